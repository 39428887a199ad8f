package numbering

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/nyaruka/phonenumbers/v2"
)

// aytSequence is a number as a person types it, key by key, in a region
// ("" for none).
type aytSequence struct {
	region, input string
	how           string // how the sequence was made, for messages
}

// concreteIDD returns a prefix people dial for the region's international
// prefix, or "" when none of the usual ones is.
func concreteIDD(region string) string {
	m := lpnMetadata()[region]
	if m == nil {
		return ""
	}
	if p := m.GetPreferredInternationalPrefix(); p != "" && regexp.MustCompile(`^\d+$`).MatchString(p) {
		return p
	}
	re := regexp.MustCompile("^(?:" + m.GetInternationalPrefix() + ")$")
	for _, c := range []string{"00", "011", "0011", "010", "001", "810", "000", "002", "009", "119", "1810", "990", "0012", "0015", "00414"} {
		if re.MatchString(c) {
			return c
		}
	}
	return ""
}

// lpnMetadata is phonenumbers' metadata by region.
var lpnMetadata = sync.OnceValue(func() map[string]*phonenumbers.PhoneMetadata {
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		panic(err)
	}
	out := map[string]*phonenumbers.PhoneMetadata{}
	for _, m := range coll.Metadata {
		if m.GetId() != "001" {
			out[m.GetId()] = m
		}
	}
	return out
})

// aytSequences builds the sequences of the differential test: every
// example number of every region (and of the non-geographic calling
// codes), typed nationally (the digits of its national format; those
// digits without the national prefix; the national format as printed),
// internationally in its region ("+" and the calling code, with the
// region's international prefix, the international format as printed),
// with "+" and no region, and from other regions (their international
// prefix; the national digits in the calling code's other regions).
var aytSequences = sync.OnceValue(func() []aytSequence {
	regions := make([]string, 0, 256)
	for r := range phonenumbers.GetSupportedRegions() {
		regions = append(regions, r)
	}
	sort.Strings(regions)
	seen := map[aytSequence]bool{}
	var out []aytSequence
	add := func(region, input, how string) {
		s := aytSequence{region: region, input: input}
		if input == "" || seen[s] {
			return
		}
		seen[s] = true
		s.how = how
		out = append(out, s)
	}
	for i, ex := range exampleNumbers() {
		num, err := phonenumbers.Parse(ex.e164, "ZZ")
		if err != nil {
			continue
		}
		cc := strconv.Itoa(int(num.GetCountryCode()))
		nsn := phonenumbers.GetNationalSignificantNumber(num)
		plus := "+" + cc + nsn
		add("", plus, "plus, no region")
		add("", phonenumbers.Format(num, phonenumbers.INTERNATIONAL), "international format, no region")
		// From five other regions, with their international prefix.
		for k := 1; k <= 5; k++ {
			from := regions[(i*7+k*31)%len(regions)]
			if idd := concreteIDD(from); idd != "" {
				add(from, idd+cc+nsn, "international prefix of another region")
			}
			add(from, plus, "plus, another region")
		}
		if ex.region == "001" {
			continue
		}
		r := ex.region
		national := phonenumbers.Format(num, phonenumbers.NATIONAL)
		add(r, phonenumbers.NormalizeDigitsOnly(national), "national digits")
		add(r, national, "national format")
		add(r, nsn, "national significant number")
		add(r, plus, "plus")
		add(r, phonenumbers.Format(num, phonenumbers.INTERNATIONAL), "international format")
		if idd := concreteIDD(r); idd != "" {
			add(r, idd+cc+nsn, "international prefix")
		}
		for _, other := range phonenumbers.GetRegionCodesForCountryCode(int(num.GetCountryCode())) {
			if other != r && other != "001" {
				add(other, phonenumbers.NormalizeDigitsOnly(national), "national digits in another region of the calling code")
				break
			}
		}
	}
	return out
})

// aytExceptions are the differences from phonenumbers' formatter that the
// differential test accepts, each with its reason: the input, the region
// and the keystroke, and why the texts differ.
var aytExceptions = map[string]string{}

// TestAsYouTypeMatchesPhonenumbers types every sequence of aytSequences
// into Numen's formatter and phonenumbers' and compares, at every
// keystroke, the text, the remembered caret position (FormattedPos and
// GetRememberedPosition), Progress with CheckIn (or Check) on the input
// so far, and that RawPos inverts FormattedPos.
func TestAsYouTypeMatchesPhonenumbers(t *testing.T) {
	p := plan(t)
	seqs := aytSequences()
	if len(seqs) < 20000 {
		t.Fatalf("%d sequences, want at least 20,000", len(seqs))
	}
	type diff struct{ key, msg string }
	var (
		mu    sync.Mutex
		diffs []diff
		keys  int
	)
	const workers = 2
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local []diff
			n := 0
			formatters := map[string]*AsYouType{}
			for i := w; i < len(seqs); i += workers {
				s := seqs[i]
				f := formatters[s.region]
				if f == nil {
					var err error
					if f, err = p.NewAsYouType(s.region); err != nil {
						local = append(local, diff{"", fmt.Sprintf("NewAsYouType(%q): %v", s.region, err)})
						continue
					}
					formatters[s.region] = f
				}
				f.Reset()
				ref := phonenumbers.GetAsYouTypeFormatter(s.region)
				typed := 0
				for k, c := range s.input {
					n++
					typed += utf8.RuneLen(c)
					want := ref.InputDigitAndRememberPosition(c)
					text, pr := f.Input(c)
					key := fmt.Sprintf("%s %q %d", s.region, s.input, k)
					if string(text) != want {
						local = append(local, diff{key, fmt.Sprintf("%s: %q in %q after %q: text %q, phonenumbers %q", s.how, s.input, s.region, s.input[:typed], text, want)})
						break
					}
					if got, want := f.FormattedPos(f.rawRunes), ref.GetRememberedPosition(); got != want {
						local = append(local, diff{key, fmt.Sprintf("%s: %q in %q after %q (%q): caret %d, phonenumbers %d", s.how, s.input, s.region, s.input[:typed], text, got, want)})
						break
					}
					var check Progress
					if s.region == "" {
						check = p.Check(s.input[:typed])
					} else {
						check, _ = p.CheckIn(s.input[:typed], s.region)
					}
					if pr != check || f.Progress() != check || string(f.Text()) != want {
						local = append(local, diff{"", fmt.Sprintf("%q in %q after %q: Progress %+v, CheckIn %+v", s.input, s.region, s.input[:typed], pr, check)})
						break
					}
				}
				for k := 0; k <= f.rawRunes; k++ {
					if got := f.RawPos(f.FormattedPos(k)); got != k {
						local = append(local, diff{"", fmt.Sprintf("%q in %q (%q): RawPos(FormattedPos(%d)) = %d", s.input, s.region, f.Text(), k, got)})
						break
					}
				}
			}
			mu.Lock()
			diffs = append(diffs, local...)
			keys += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.SortFunc(diffs, func(a, b diff) int { return strings.Compare(a.msg, b.msg) })
	explained := 0
	for _, d := range diffs {
		if _, ok := aytExceptions[d.key]; ok && d.key != "" {
			explained++
			continue
		}
		t.Error(d.msg)
	}
	t.Logf("%d sequences, %d keystrokes compared; %d differences, all explained", len(seqs), keys, explained)
}
