package numbering

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering/internal/planfmt"
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
// prefix; the national digits in the calling code's other regions); and
// random keys in random regions, alone and after prefixes.
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
	// Random keys in random regions: digits, with prefixes of zeros and
	// ones more often than not, a leading "+" in a third, now and then a
	// digit of another script, a separator or a "+" later on.
	rng := rand.New(rand.NewPCG(31, 2026))
	for range 20000 {
		region := ""
		if k := rng.IntN(len(regions) + 1); k < len(regions) {
			region = regions[k]
		}
		keys := make([]rune, 1+rng.IntN(22))
		for i := range keys {
			keys[i] = rune('0' + rng.IntN(10))
			switch {
			case i < 4 && rng.IntN(3) == 0:
				keys[i] = []rune("01")[rng.IntN(2)]
			case rng.IntN(15) == 0:
				keys[i] = []rune("٣۴５ -+x")[rng.IntN(7)]
			}
		}
		if rng.IntN(3) == 0 {
			keys[0] = '+'
		}
		add(region, string(keys), "random keys")
	}
	// Random digits after a prefix that leads the formatter somewhere: "+"
	// and a calling code, the region's national prefix, its or another
	// region's international prefix and a calling code (and the national
	// prefix after it), the region's calling code without "+".
	codes := slices.Sorted(maps.Keys(phonenumbers.GetSupportedCallingCodes()))
	anyCode := func() string { return strconv.Itoa(codes[rng.IntN(len(codes))]) }
	for range 10000 {
		region := regions[rng.IntN(len(regions))]
		m := lpnMetadata()[region]
		var prefix string
		switch rng.IntN(5) {
		case 0:
			prefix = "+" + anyCode()
		case 1:
			prefix = m.GetNationalPrefix()
		case 2:
			prefix = concreteIDD(region) + anyCode()
		case 3:
			prefix = concreteIDD(regions[rng.IntN(len(regions))]) + anyCode()
			if rng.IntN(2) == 0 {
				prefix += m.GetNationalPrefix()
			}
		case 4:
			prefix = strconv.Itoa(int(m.GetCountryCode()))
		}
		keys := []rune(prefix)
		for range rng.IntN(18) {
			keys = append(keys, rune('0'+rng.IntN(10)))
		}
		add(region, string(keys), "random digits after a prefix")
	}
	return out
})

// aytDiff is a difference the differential test finds: what was
// compared ("text", "caret"), Numen's answer and phonenumbers'.
type aytDiff struct {
	what      string
	text      string // the field's text (Numen's) at that key
	got, want string
	msg       string
}

// aytExceptions are the differences from phonenumbers' formatter that the
// differential test accepts, each a rule with its reason; any other
// difference fails the test. There is one:
var aytExceptions = []struct {
	reason string
	match  func(d aytDiff) bool
}{
	{
		// Before a number has three digits the field shows the keys as
		// typed; a digit typed in another script ("５") stays so. Numen's
		// caret maps it to its ASCII digit and stands after it;
		// libphonenumber looks for the ASCII digit, finds none and
		// answers the end of the text. After the last key both are the
		// end.
		"caret after a digit of another script shown as typed",
		func(d aytDiff) bool {
			return d.what == "caret" && d.want == strconv.Itoa(utf8.RuneCountInString(d.text)) &&
				strings.ContainsFunc(d.text, func(r rune) bool { return r >= utf8.RuneSelf && unicode.IsDigit(r) })
		},
	},
}

// Numen also differs on input the sequences do not make, on purpose:
//   - a full-width plus sign "＋" typed first is read as "+"; libphonenumber
//     puts it among the national digits (and phonenumbers counts its three
//     UTF-8 bytes as three digits), so that it formats nothing that
//     follows it ("+" and a calling code are formatted here);
//   - should libphonenumber's ableToExtractLongerNdd not find the national
//     prefix it took off earlier, Java would throw and phonenumbers panic
//     (StringBuilder.setLength(-1)); Numen keeps the prefix as it is.

// TestAsYouTypeMatchesPhonenumbers types every sequence of aytSequences
// into Numen's formatter and phonenumbers' and compares, at every
// keystroke, the text, the remembered caret position (FormattedPos and
// GetRememberedPosition) after the last key and, in half the sequences,
// after the middle one, Progress with CheckIn (or Check) on the input so
// far, and that RawPos inverts FormattedPos.
func TestAsYouTypeMatchesPhonenumbers(t *testing.T) {
	t.Parallel()
	p := refPlan(t)
	seqs := aytSequences()
	examples := 0
	for _, s := range seqs {
		if !strings.HasPrefix(s.how, "random") {
			examples++
		}
	}
	if examples < 20000 {
		t.Fatalf("%d sequences of example numbers, want at least 20,000", examples)
	}
	var (
		mu    sync.Mutex
		diffs []aytDiff
		keys  int
	)
	const workers = 2
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local []aytDiff
			n := 0
			formatters := map[string]*AsYouType{}
			for i := w; i < len(seqs); i += workers {
				s := seqs[i]
				f := formatters[s.region]
				if f == nil {
					var err error
					if f, err = p.NewAsYouType(s.region); err != nil {
						local = append(local, aytDiff{what: "error", msg: fmt.Sprintf("NewAsYouType(%q): %v", s.region, err)})
						continue
					}
					formatters[s.region] = f
				}
				f.Reset()
				ref := phonenumbers.GetAsYouTypeFormatter(s.region)
				// For every other sequence, a second formatter remembers
				// the caret after the middle key, as a field does after
				// an edit there.
				mid := (utf8.RuneCountInString(s.input) + 1) / 2
				var refMid *phonenumbers.AsYouTypeFormatter
				if i%4 < 2 {
					refMid = phonenumbers.GetAsYouTypeFormatter(s.region)
				}
				typed := 0
				for k, c := range []rune(s.input) {
					n++
					typed += utf8.RuneLen(c)
					want := ref.InputDigitAndRememberPosition(c)
					text, pr := f.Input(c)
					switch {
					case refMid == nil:
					case k+1 == mid:
						refMid.InputDigitAndRememberPosition(c)
					default:
						refMid.InputDigit(c)
					}
					if refMid != nil && k+1 >= mid {
						if got, want := f.FormattedPos(mid), refMid.GetRememberedPosition(); got != want {
							local = append(local, aytDiff{"caret", string(text), strconv.Itoa(got), strconv.Itoa(want), fmt.Sprintf("%s: %q in %q after %q (%q): caret after key %d at %d, phonenumbers %d", s.how, s.input, s.region, s.input[:typed], text, mid, got, want)})
							break
						}
					}
					if string(text) != want {
						local = append(local, aytDiff{"text", string(text), string(text), want, fmt.Sprintf("%s: %q in %q after %q: text %q, phonenumbers %q", s.how, s.input, s.region, s.input[:typed], text, want)})
						break
					}
					if got, want := f.FormattedPos(f.rawRunes), ref.GetRememberedPosition(); got != want {
						local = append(local, aytDiff{"caret", string(text), strconv.Itoa(got), strconv.Itoa(want), fmt.Sprintf("%s: %q in %q after %q (%q): caret %d, phonenumbers %d", s.how, s.input, s.region, s.input[:typed], text, got, want)})
						break
					}
					var check Progress
					if s.region == "" {
						check = p.Check(s.input[:typed])
					} else {
						check, _ = p.CheckIn(s.input[:typed], s.region)
					}
					if pr != check || f.Progress() != check || string(f.Text()) != want {
						local = append(local, aytDiff{what: "check", msg: fmt.Sprintf("%q in %q after %q: Progress %+v, CheckIn %+v", s.input, s.region, s.input[:typed], pr, check)})
						break
					}
				}
				for k := 0; k <= f.rawRunes; k++ {
					if got := f.RawPos(f.FormattedPos(k)); got != k {
						local = append(local, aytDiff{what: "raw caret", msg: fmt.Sprintf("%q in %q (%q): RawPos(FormattedPos(%d)) = %d", s.input, s.region, f.Text(), k, got)})
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
	slices.SortFunc(diffs, func(a, b aytDiff) int { return strings.Compare(a.msg, b.msg) })
	explained := make([]int, len(aytExceptions))
next:
	for _, d := range diffs {
		for i, e := range aytExceptions {
			if e.match(d) {
				explained[i]++
				continue next
			}
		}
		t.Error(d.msg)
	}
	t.Logf("%d sequences, %d keystrokes compared; %d differences", len(seqs), keys, len(diffs))
	for i, e := range aytExceptions {
		t.Logf("%d explained: %s", explained[i], e.reason)
	}
}

// TestAsYouType shows what a field shows key by key, and the caret.
func TestAsYouType(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, tc := range []struct {
		region, keys string
		texts        []string // after each key
		state        InputState
		e164         string // Number at the end, "" for none
	}{
		{"DE", "030123456", []string{"0", "03", "030", "030 1", "030 12", "030 123", "030 1234", "030 12345", "030 123456"}, Valid, "+4930123456"},
		{"US", "6502530000", []string{"6", "65", "650", "650-2", "650-25", "650-253", "650-2530", "(650) 253-00", "(650) 253-000", "(650) 253-0000"}, Valid, "+16502530000"},
		{"", "+442079460000", []string{"+", "+4", "+44 ", "+44 2", "+44 20", "+44 20 7", "+44 20 79", "+44 20 794", "+44 20 7946", "+44 20 7946 0", "+44 20 7946 00", "+44 20 7946 000", "+44 20 7946 0000"}, Valid, "+442079460000"},
		{"FR", "0033612", []string{"0", "00", "00 3", "00 33 ", "00 33 6", "00 33 61", "00 33 6 12"}, Incomplete, "+33612"},
		// Separators typed by the person: the input is shown as typed.
		{"DE", "030-12", []string{"0", "03", "030", "030-", "030-1", "030-12"}, Incomplete, "+493012"},
		// Digits of other scripts are read as ASCII digits.
		{"DE", "٠٣٠١٢٣٤٥٦", []string{"٠", "٠٣", "030", "030 1", "030 12", "030 123", "030 1234", "030 12345", "030 123456"}, Valid, "+4930123456"},
		{"DE", "x", []string{"x"}, Impossible, ""},
		// A full-width plus is a plus (see aytExceptions).
		{"", "＋4930", []string{"＋", "＋4", "+49 ", "+49 3", "+49 30"}, Incomplete, "+4930"},
	} {
		f, err := p.NewAsYouType(tc.region)
		if err != nil {
			t.Fatal(err)
		}
		var pr Progress
		for i, c := range []rune(tc.keys) {
			var text []byte
			text, pr = f.Input(c)
			if string(text) != tc.texts[i] {
				t.Errorf("%q in %q, key %d: %q, want %q", tc.keys, tc.region, i, text, tc.texts[i])
			}
		}
		if pr.State != tc.state {
			t.Errorf("%q in %q: %v, want %v", tc.keys, tc.region, pr.State, tc.state)
		}
		n, ok := f.Number()
		if got := map[bool]string{true: n.String()}[ok]; got != tc.e164 {
			t.Errorf("%q in %q: Number %q, want %q", tc.keys, tc.region, got, tc.e164)
		}
		f.Reset()
		if len(f.Text()) != 0 || f.Progress() != (Progress{State: Incomplete}) || f.FormattedPos(3) != 0 {
			t.Errorf("after Reset: %q %+v", f.Text(), f.Progress())
		}
	}
}

// TestAsYouTypeCaret checks the caret mapping on "(650) 253-0000": after
// the n-th digit, and back.
func TestAsYouTypeCaret(t *testing.T) {
	t.Parallel()
	p := plan(t)
	f, err := p.NewAsYouType("us")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range "6502530000" {
		f.Input(c)
	}
	// "(650) 253-0000"
	//  0123456789...
	for raw, want := range []int{0, 2, 3, 4, 7, 8, 9, 11, 12, 13, 14, 14} {
		if got := f.FormattedPos(raw); got != want {
			t.Errorf("FormattedPos(%d) = %d, want %d", raw, got, want)
		}
	}
	for pos, want := range []int{0, 0, 1, 2, 3, 3, 3, 4, 5, 6, 6, 7, 8, 9, 10, 10} {
		if got := f.RawPos(pos); got != want {
			t.Errorf("RawPos(%d) = %d, want %d", pos, got, want)
		}
	}
	if got := f.FormattedPos(-1); got != 0 {
		t.Errorf("FormattedPos(-1) = %d", got)
	}
}

// TestNewAsYouTypeRegions checks the regions NewAsYouType takes.
func TestNewAsYouTypeRegions(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, region := range []string{"", "DE", "de", "US", "GG"} {
		if _, err := p.NewAsYouType(region); err != nil {
			t.Errorf("%q: %v", region, err)
		}
	}
	for _, region := range []string{"XX", "001", "D", "DEU"} {
		_, err := p.NewAsYouType(region)
		var re *RegionError
		if !errors.Is(err, ErrUnknownRegion) || !errors.As(err, &re) || re.Region != region {
			t.Errorf("%q: %v, want a RegionError", region, err)
		}
	}
}

// TestAsYouTypeWithoutItsData opens a plan file written before the
// as-you-type table: it formats whole numbers, and NewAsYouType says
// what is missing.
func TestAsYouTypeWithoutItsData(t *testing.T) {
	t.Parallel()
	b := bytes.Clone(data.Plan())
	fmtAt, _ := sectionOf(t, b, planfmt.SecFormats)
	put32(b, fmtAt+planfmt.FmtAYT, 0)
	reseal(b, true)
	p, err := OpenBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	n, err := p.Parse("+4930123456")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := p.Format(n, National); err != nil || s != "030 123456" {
		t.Errorf("Format: %q, %v", s, err)
	}
	if _, err := p.NewAsYouType("DE"); !errors.Is(err, ErrNoAsYouType) {
		t.Errorf("NewAsYouType: %v, want ErrNoAsYouType", err)
	}
}

// TestAsYouTypeDoesNotAllocate proves typing allocation-free once the
// formatter is made: Input at every key, Reset, the caret maps and Number.
func TestAsYouTypeDoesNotAllocate(t *testing.T) {
	p := plan(t)
	for _, tc := range []struct{ region, keys string }{
		{"DE", "015123456789"}, {"DE", "+4915123456789"}, {"DE", "004930123456"}, {"US", "16502530000"},
		{"US", "01144 20 7946 0000"}, {"GB", "07400123456"}, {"AR", "01123456789"}, {"BR", "011987654321"},
		{"", "+8613800138000"}, {"", "+80012345678"}, {"RU", "84951234567"}, {"FR", "٠٦١٢٣٤٥٦٧٨"},
	} {
		f, err := p.NewAsYouType(tc.region)
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(100, func() {
			f.Reset()
			for _, c := range tc.keys {
				f.Input(c)
			}
			f.FormattedPos(5)
			f.RawPos(5)
			f.Number()
		})
		if allocs != 0 {
			t.Errorf("%q in %q: %.1f allocations", tc.keys, tc.region, allocs)
		}
	}
}

// FuzzAsYouType types random keys: the formatter must not panic, its
// answers must agree with each other and with CheckIn (Check without a
// region) and ParseIn (Parse) on the input so far, and the caret maps
// must stay within the text and the input and never go backwards.
func FuzzAsYouType(f *testing.F) {
	regions := []string{"", "DE", "US", "GB", "FR", "BR", "AR", "RU", "IN", "AU", "JP", "CN", "MX", "IT", "NZ", "BO", "KR", "HU"}
	for _, s := range []string{"015123456789", "+4915123456789", "0049 30 123", "(650) 253-0000", "+", "++1", "0011 44 20", "٠٣٠١٢", "＋49", "1-800", "8 495 123", "x", "00800123456789", "0" + strings.Repeat("9", 40)} {
		f.Add(uint8(len(s)), s)
	}
	p := plan(f)
	f.Fuzz(func(t *testing.T, ri uint8, keys string) {
		region := regions[int(ri)%len(regions)]
		a, err := p.NewAsYouType(region)
		if err != nil {
			t.Fatal(err)
		}
		var raw []byte
		n := 0
		for _, c := range keys {
			if n++; n > 60 {
				break
			}
			raw = utf8.AppendRune(raw, c)
			text, pr := a.Input(c)
			if string(a.Text()) != string(text) || a.Progress() != pr {
				t.Fatalf("%q in %q: Text %q / Input %q, Progress %+v / Input %+v", raw, region, a.Text(), text, a.Progress(), pr)
			}
			var check Progress
			var num Number
			var perr error
			if region == "" {
				check = p.Check(string(raw))
				num, perr = p.Parse(string(raw))
			} else {
				check, _ = p.CheckIn(string(raw), region)
				num, perr = p.ParseIn(string(raw), region)
			}
			if pr != check {
				t.Fatalf("%q in %q: Progress %+v, CheckIn %+v", raw, region, pr, check)
			}
			if got, ok := a.Number(); ok != (perr == nil) || got != num {
				t.Fatalf("%q in %q: Number %v %v, ParseIn %v %v", raw, region, got, ok, num, perr)
			}
			runes := utf8.RuneCount(text)
			prev := 0
			for k := 0; k <= n+1; k++ {
				pos := a.FormattedPos(k)
				if pos < prev || pos > runes {
					t.Fatalf("%q in %q (%q): FormattedPos(%d) = %d after %d", raw, region, text, k, pos, prev)
				}
				prev = pos
			}
			prev = 0
			for k := 0; k <= runes+1; k++ {
				back := a.RawPos(k)
				if back < prev || back > n {
					t.Fatalf("%q in %q (%q): RawPos(%d) = %d after %d", raw, region, text, k, back, prev)
				}
				prev = back
			}
		}
	})
}

// TestAsYouTypeCheckShortcut compares AsYouType's check, which skips
// reading the input as a whole number when it has too few digits to be
// valid, with CheckIn on random digits around that bound, with and
// without "+", in every region: the shortcut must never change the
// answer.
func TestAsYouTypeCheckShortcut(t *testing.T) {
	t.Parallel()
	p := plan(t)
	rng := rand.New(rand.NewPCG(3, 5))
	var formatters []*AsYouType
	var ids []string
	for i := range p.regions {
		if id := p.regions[i].id; id != nonGeoRegion {
			f, err := p.NewAsYouType(id)
			if err != nil {
				t.Fatal(err)
			}
			formatters, ids = append(formatters, f), append(ids, id)
		}
	}
	for range 300000 {
		k := rng.IntN(len(formatters))
		f := formatters[k]
		b := make([]byte, rng.IntN(max(f.minValid, 1)+6))
		for i := range b {
			b[i] = byte('0' + rng.IntN(10))
			if i < 4 && rng.IntN(2) == 0 {
				b[i] = "01"[rng.IntN(2)]
			}
		}
		if len(b) > 0 && rng.IntN(2) == 0 {
			b[0] = '+'
		}
		f.raw, f.ascii = b, true
		if got, want := f.check(), must(p.CheckIn(string(b), ids[k])); got != want {
			t.Fatalf("%q in %s: %+v, CheckIn %+v (minValid %d)", b, ids[k], got, want, f.minValid)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
