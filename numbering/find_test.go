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
				phonenumbers.Format(num, phonenumbers.RFC3966),
				inScript(nat, '\u0660'), inScript(intl, '\uFF10'), inScript(nsn, '\u0966'),
				nat+" ext. 12", intl+" x 345", nat+", ext 7", intl+";ext=99", nat+" - 12#",
				"["+nat+"]", nat+"/"+nsn, strings.ReplaceAll(nat, " ", "."), strings.ReplaceAll(nat, " ", "/"))
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

// inScript writes the ASCII digits of s with the digits of the script
// whose zero is zero.
func inScript(s string, zero rune) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return zero + r - '0'
		}
		return r
	}, s)
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

// TestFindDifferential compares Find with phonenumbers on generated texts
// (findTexts), each searched in three regions of seven (or none) at the
// four leniencies: the same matches at the same offsets with the same
// text and number, but for the exceptions findException explains.
func TestFindDifferential(t *testing.T) {
	t.Parallel()
	p := refPlan(t)
	texts := findTexts(31, 1200)
	switch {
	case testing.Short():
		texts = texts[:300]
	case raceDetector:
		texts = texts[:150] // the data races are in the scanning, which any text exercises
	}
	regions := []string{"US", "DE", "GB", "BR", "IN", "JP", ""}
	diffs, compared, matches := 0, 0, 0
	var byLeniency [4]int
	for i, text := range texts {
		for _, region := range []string{regions[i%7], regions[(i+2)%7], regions[(i+4)%7]} {
			for l := LeniencyPossible; l <= LeniencyExactGrouping; l++ {
				want := referenceFind(text, region, l)
				got := numenFind(t, p, text, region, l)
				compared++
				matches += len(want)
				if slices.Equal(got, want) || findException(text, region, l, got, want) != "" {
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
	t.Logf("%d texts, %d searches, %d matches of phonenumbers", len(texts), compared, matches)
	if diffs > 0 {
		t.Errorf("%d differences (by leniency %v)", diffs, byLeniency)
	}
}

// FuzzFind feeds arbitrary text to Find: it must not panic, its matches
// must be in order, apart, within the text and equal to its bytes, and
// they must be phonenumbers' matches, but for the differences
// FuzzFind feeds arbitrary text to Find: it must not panic, its matches
// must be in order, apart, within the text and equal to its bytes, and
// they must be phonenumbers' matches, but for the differences that
// findException excuses.
func FuzzFind(f *testing.F) {
	for _, s := range []string{
		"Call 030 1234567 or +49 151 23456789.", "(650) 253-0000 ext. 12", "+1 650 253 0000 x 45#",
		"on 3/10/2011 at 2012-01-02 08:00", "211-227 (2003)", "abc8005001234def", "0800 123 456 | +44 20 7946 0000",
		"(530) 583-6985 x302/x2303", "٠١٢٣٤٥٦٧٨٩ ١٢٣", "＋４９ １５１ ２３４５６７８９", "tel:+33-6-12-34-56-78;ext=5",
		"0xx11 5555 1234", "12345 - 332-445-1234", "3324451234 8002341234", "651-234-2345/332-445-1234",
		"+49 (0) 30 1234567 доб. 3", "1-800-FLOWERS", "", "+", "((((1", "1" + strings.Repeat(" 1", 40),
	} {
		for l := range 4 {
			f.Add(s, uint8(l), uint8(l))
		}
	}
	p := refPlan(f)
	regions := []string{"US", "DE", "GB", "BR", "IN", "JP", "AR", "RU", "", "IT", "MX", "FR", "CN", "KR", "AU", "NZ", "CO", "ID", "LU", "SE"}
	f.Fuzz(func(t *testing.T, text string, region, leniency uint8) {
		rg := regions[int(region)%len(regions)]
		l := Leniency(leniency % 4)
		got := numenFind(t, p, text, rg, l)
		end := 0
		for _, m := range got {
			if m.Start < end || m.End <= m.Start || m.End > len(text) || text[m.Start:m.End] != m.Raw {
				t.Fatalf("Find(%q, %q, %v): match %v after offset %d", text, rg, l, m, end)
			}
			end = m.End
		}
		want := referenceFind(text, rg, l)
		if !slices.Equal(got, want) {
			if why := findException(text, rg, l, got, want); why == "" {
				t.Fatalf("Find(%q, %q, %v):\n got %v\nwant %v", text, rg, l, got, want)
			}
		}
	})
}

// findExceptions are the known, reasoned differences between Find and
// phonenumbers: a difference is excused when every match that only one of
// them reports fits the same exception.
var findExceptions = []struct {
	why string
	// cause tells the matches the difference comes from; the matches
	// only one side reports must each be one of them, follow the first
	// (after which the two resume their search at different places), or
	// lie in the same stretch of digits and punctuation before it (the
	// same candidate, whose parts are tried in turn).
	cause func(m foundMatch) bool
}{
	{
		// phonenumbers keeps a national number as an integer and a count
		// of leading zeros, which it caps at 10 "defensively"; its length
		// checks then see a shorter number than was written, and may take
		// it, or a part of it, for a number. Numen keeps the digits. No
		// valid number has so many zeros.
		"a national number with more than 10 leading zeros",
		func(m foundMatch) bool { return strings.Contains(digitsOf(m.Raw), "00000000000") },
	},
}

// sameStretch reports whether s, text between two matches, could lie
// inside one candidate of the matcher: digits, punctuation and leads only.
func sameStretch(s string) bool {
	for _, r := range s {
		if _, ok := decimalDigit(r); !ok && !isPunct(r) && !isLead(r) {
			return false
		}
	}
	return true
}

func digitsOf(s string) string {
	var b strings.Builder
	for _, r := range s {
		if d, ok := decimalDigit(r); ok {
			b.WriteByte(d)
		}
	}
	return b.String()
}

// findException explains a difference between Find and phonenumbers that
// is known and reasoned; "" for any other.
func findException(text, region string, l Leniency, got, want []foundMatch) string {
	var only []foundMatch
	for _, m := range got {
		if !slices.Contains(want, m) {
			only = append(only, m)
		}
	}
	for _, m := range want {
		if !slices.Contains(got, m) {
			only = append(only, m)
		}
	}
	slices.SortFunc(only, func(a, b foundMatch) int { return a.Start - b.Start })
	for _, e := range findExceptions {
		var causes []foundMatch
		for _, m := range only {
			if e.cause(m) {
				causes = append(causes, m)
			}
		}
		all := len(causes) > 0
		for _, m := range only {
			// After the cause, or in the same stretch of digits and
			// punctuation (the same candidate, whose parts are tried in
			// turn).
			all = all && (m.End > causes[0].Start || sameStretch(text[m.End:causes[0].Start]))
		}
		if all {
			return e.why
		}
	}
	return ""
}

// TestFindEveryRegion searches, in every region, a text of the region's
// example numbers of every type, written nationally, internationally, as
// bare digits, regrouped and with an extension, at the four leniencies:
// the same matches as phonenumbers.
func TestFindEveryRegion(t *testing.T) {
	t.Parallel()
	p := refPlan(t)
	regions := dialRegions()
	step := 1
	if raceDetector || testing.Short() {
		step = 5
	}
	searches, matches := 0, 0
	for i := 0; i < len(regions); i += step {
		r := regions[i]
		var parts []string
		for ty := phonenumbers.FIXED_LINE; ty <= phonenumbers.VOICEMAIL; ty++ {
			num := phonenumbers.GetExampleNumberForTypeInRegion(r, ty)
			if num == nil {
				continue
			}
			nat := phonenumbers.Format(num, phonenumbers.NATIONAL)
			d := digitsOf(nat)
			if len(d) >= 6 {
				d = d[:2] + " " + d[2:5] + "-" + d[5:]
			}
			parts = append(parts, "call "+nat+" now", phonenumbers.Format(num, phonenumbers.INTERNATIONAL),
				phonenumbers.GetNationalSignificantNumber(num), d, nat+" ext. 5")
		}
		text := strings.Join(parts, "; ")
		for l := LeniencyPossible; l <= LeniencyExactGrouping; l++ {
			want := referenceFind(text, r, l)
			got := numenFind(t, p, text, r, l)
			searches++
			matches += len(want)
			if !slices.Equal(got, want) && findException(text, r, l, got, want) == "" {
				t.Errorf("Find(%q, %q, %v):\n got %v\nwant %v", text, r, l, got, want)
			}
		}
	}
	t.Logf("%d searches, %d matches of phonenumbers", searches, matches)
}
