package numbering

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nyaruka/phonenumbers/v2"
)

// foundMatch is what the differential test compares of a match.
type foundMatch struct {
	Start, End int
	Raw        string
	Number     string // E.164
}

func (m foundMatch) String() string {
	return fmt.Sprintf("[%d,%d) %q %s", m.Start, m.End, m.Raw, m.Number)
}

// referenceFind is phonenumbers' FindNumbersWithLeniency with its default
// bound on tries (FindNumbers' math.MaxInt).
func referenceFind(text, region string, l Leniency) []foundMatch {
	var out []foundMatch
	for m := range phonenumbers.FindNumbersWithLeniency(text, region, phonenumbers.Leniency(l), math.MaxInt) {
		out = append(out, foundMatch{m.Start(), m.End(), m.RawString(), phonenumbers.Format(m.Number(), phonenumbers.E164)})
	}
	return out
}

func numenFind(t testing.TB, p *Plan, text, region string, l Leniency) []foundMatch {
	t.Helper()
	seq, err := p.Find(text, region, l)
	if err != nil {
		t.Fatalf("Find(%q, %q, %v): %v", text, region, l, err)
	}
	var out []foundMatch
	for m := range seq {
		out = append(out, foundMatch{m.Start, m.End, m.Raw, m.Result.Number.String()})
	}
	return out
}

// findRegions are the regions whose example numbers the generated texts
// carry, and in which they are searched.
var findRegions = []string{"US", "DE", "GB", "FR", "BR", "IN", "JP", "AU", "IT", "AR", "MX", "RU", "CN", "NL", "ES", "CH", "SE", "KR", "ZA", "NG"}

// findTexts generates n texts: example numbers of several regions written
// nationally and internationally, grouped as formatted, ungrouped and
// regrouped, in prose, tables, beside dates, times, prices, other digit
// runs, brackets, slashes and extensions.
func findTexts(seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	types := []phonenumbers.PhoneNumberType{phonenumbers.FIXED_LINE, phonenumbers.MOBILE, phonenumbers.TOLL_FREE, phonenumbers.PREMIUM_RATE, phonenumbers.VOIP}
	var numbers []string
	for _, r := range findRegions {
		for _, ty := range types {
			num := phonenumbers.GetExampleNumberForTypeInRegion(r, ty)
			if num == nil {
				continue
			}
			nat := phonenumbers.Format(num, phonenumbers.NATIONAL)
			intl := phonenumbers.Format(num, phonenumbers.INTERNATIONAL)
			e164 := phonenumbers.Format(num, phonenumbers.E164)
			nsn := phonenumbers.GetNationalSignificantNumber(num)
			numbers = append(numbers, nat, intl, e164, nsn,
				strings.ReplaceAll(intl, " ", "-"),
				strings.ReplaceAll(nat, " ", ""),
				phonenumbers.FormatOutOfCountryCallingNumber(num, findRegions[rng.IntN(len(findRegions))]),
				regroup(rng, nat), regroup(rng, intl),
				"("+nsn[:min(3, len(nsn))]+") "+nsn[min(3, len(nsn)):],
				phonenumbers.Format(num, phonenumbers.RFC3966))
		}
	}
	noise := []string{
		"Call me at", "or", "tel.", "Phone:", "Fax", "on 3/10/2011", "at 2012-01-02 08:00", "2012-01-02 08",
		"price $1,234.56", "€ 99", "15%", "order #12345", "ref 211-227 (2003)", "ISBN 978-3-16-148410-0",
		"page 12", "the year 1999", "v2.0.12", "12:45", "31/10/96", "10.5 km", "3.14159", "(", ")", "[", "]",
		"/", " - ", ".", ",", ";", "abc", "def", "x", "ext. 123", " x 45", "#", "+", "00", "0", "1", "2",
		"|", "\t", "\n", "—", "–", "tel:", "Nr.", "Tel.:", "Mob.", "ﾃﾞﾝﾜ", "電話", "٠١٢٣٤٥٦٧٨٩", "１２３４",
		"ext 7", ";ext=12", "anexo 5", "доб. 3", "between", "and", "room 101", "10:30", "2024/01/05",
		"1-800-FLOWERS", "(0)", "+49 (0)", "0049", "011", "//", "xx", "*", "~", "12345678901234567890123",
	}
	texts := make([]string, 0, n)
	for range n {
		var b strings.Builder
		parts := 3 + rng.IntN(8)
		for k := range parts {
			if k > 0 {
				switch rng.IntN(6) {
				case 0:
				case 1:
					b.WriteString(" | ")
				case 2:
					b.WriteString(", ")
				default:
					b.WriteByte(' ')
				}
			}
			if rng.IntN(2) == 0 {
				b.WriteString(numbers[rng.IntN(len(numbers))])
			} else {
				b.WriteString(noise[rng.IntN(len(noise))])
			}
		}
		texts = append(texts, b.String())
	}
	return texts
}

// regroup writes the digits of s with separators at random places.
func regroup(rng *rand.Rand, s string) string {
	var b strings.Builder
	seps := []string{" ", "-", ".", "/", " ", ""}
	for i, r := range s {
		if r == ' ' || r == '-' {
			continue
		}
		if i > 0 && rng.IntN(4) == 0 {
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		b.WriteRune(r)
	}
	return b.String()
}

func TestFindDifferential(t *testing.T) {
	p := plan(t)
	texts := findTexts(31, 3000)
	if testing.Short() {
		texts = texts[:500]
	}
	diffs := 0
	var byLeniency [4]int
	for _, text := range texts {
		for _, region := range []string{"US", "DE", "GB", "BR", "IN", "JP", ""} {
			for l := LeniencyPossible; l <= LeniencyExactGrouping; l++ {
				want := referenceFind(text, region, l)
				got := numenFind(t, p, text, region, l)
				if slices.Equal(got, want) {
					continue
				}
				diffs++
				byLeniency[l]++
				if byLeniency[l] <= 10 {
					t.Errorf("Find(%q, %q, %v):\n got %v\nwant %v", text, region, l, got, want)
				}
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d differences (by leniency %v)", diffs, byLeniency)
	}
}
