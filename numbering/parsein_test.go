package numbering

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering/internal/planfmt"
	"github.com/nyaruka/phonenumbers/v2"
)

// regionalInput is one input of the regional differential test: text
// written or dialled in a region.
type regionalInput struct {
	s, region string
}

// dialRegions lists the regions with a calling code, sorted.
var dialRegions = sync.OnceValue(func() []string {
	var out []string
	for r := range phonenumbers.GetSupportedRegions() {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
})

// iddStrings returns the strings an international-prefix pattern matches,
// sorted (libphonenumber's patterns describe small finite languages; at
// most limit strings are kept, evenly spread).
func iddStrings(pattern string, limit int) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		panic(err)
	}
	out := expandRegexp(re.Simplify())
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > limit {
		step := float64(len(out)) / float64(limit)
		kept := make([]string, 0, limit)
		for i := range limit {
			kept = append(kept, out[int(float64(i)*step)])
		}
		out = kept
	}
	return out
}

// expandRegexp lists the digit strings a regular expression without
// unbounded repetition matches.
func expandRegexp(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine:
		return []string{""}
	case syntax.OpLiteral:
		return []string{string(re.Rune)}
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1] && r <= '9'; r++ {
				if r >= '0' {
					out = append(out, string(r))
				}
			}
		}
		return out
	case syntax.OpCapture:
		return expandRegexp(re.Sub[0])
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			var next []string
			for _, a := range out {
				for _, b := range expandRegexp(sub) {
					next = append(next, a+b)
				}
			}
			out = next
		}
		return out
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			out = append(out, expandRegexp(sub)...)
		}
		return out
	case syntax.OpQuest:
		return append([]string{""}, expandRegexp(re.Sub[0])...)
	case syntax.OpRepeat:
		var out []string
		for n := re.Min; n <= re.Max; n++ {
			rep := []string{""}
			for range n {
				var next []string
				for _, a := range rep {
					for _, b := range expandRegexp(re.Sub[0]) {
						next = append(next, a+b)
					}
				}
				rep = next
			}
			out = append(out, rep...)
		}
		return out
	}
	panic(fmt.Sprintf("international prefix pattern: %v not supported", re.Op))
}

// argentinaCarrierForms writes an Argentine mobile number (national
// number 9 + area code + subscriber) the way it is dialled at home: 0,
// the area code, 15, the subscriber, for each split of the area code.
func argentinaCarrierForms(nsn string) []string {
	if !strings.HasPrefix(nsn, "9") || len(nsn) != 11 {
		return nil
	}
	rest := nsn[1:]
	var out []string
	for area := 2; area <= 4; area++ {
		out = append(out, "0"+rest[:area]+" 15 "+rest[area:], rest[:area]+"15"+rest[area:])
	}
	return out
}

// regionalCorpus builds the inputs of the regional differential test from
// every example number of every region and type: national format as
// libphonenumber writes it, its digits, the national significant number
// without and with the national prefix, the number dialled with each
// international prefix of the region (and from other regions),
// Argentina's mobile forms with 15, Mexico's old mobile prefixes,
// Brazil's carrier selection codes, mutations that break them, and "+"
// forms; each in its region and in regions it does not belong to.
func regionalCorpus() []regionalInput {
	rng := rand.New(rand.NewPCG(29, 2026))
	regions := dialRegions()
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		panic(err)
	}
	idds := map[string][]string{}
	for _, m := range coll.Metadata {
		if m.GetId() != "001" && m.GetInternationalPrefix() != "" {
			idds[m.GetId()] = iddStrings(m.GetInternationalPrefix(), 24)
		}
	}
	type example struct {
		region string
		num    *phonenumbers.PhoneNumber
	}
	var examples []example
	for _, ex := range exampleNumbers() {
		num, err := phonenumbers.Parse(ex.e164, "ZZ")
		if err != nil {
			panic(err)
		}
		examples = append(examples, example{ex.region, num})
	}
	var out []regionalInput
	// add reads s in its own region and in four others, one of them a
	// region of the same calling code where there is one.
	add := func(s, region string) {
		out = append(out, regionalInput{s, region})
		for range 3 {
			out = append(out, regionalInput{s, regions[rng.IntN(len(regions))]})
		}
		if region != "001" {
			if same := phonenumbers.GetRegionCodesForCountryCode(phonenumbers.GetCountryCodeForRegion(region)); len(same) > 1 {
				out = append(out, regionalInput{s, same[rng.IntN(len(same))]})
			} else {
				out = append(out, regionalInput{s, []string{"US", "DE", "GB", "AR", "BR", "MX", "IT", "AU", "RU", "CN"}[rng.IntN(10)]})
			}
		}
	}
	for _, ex := range examples {
		num := ex.num
		nsn := phonenumbers.GetNationalSignificantNumber(num)
		cc := strconv.Itoa(int(num.GetCountryCode()))
		region := ex.region
		if region == "001" {
			// Non-geographic numbers are dialled from somewhere.
			region = regions[rng.IntN(len(regions))]
			for _, idd := range idds[region] {
				add(idd+" "+cc+" "+nsn, region)
			}
			add("+"+cc+nsn, region)
			continue
		}
		national := phonenumbers.Format(num, phonenumbers.NATIONAL)
		add(national, region)
		add(phonenumbers.NormalizeDigitsOnly(national), region)
		add(nsn, region)
		if ndd := phonenumbers.GetNddPrefixForRegion(region, true); ndd != "" {
			add(ndd+nsn, region)
			add(ndd+" "+nsn[:len(nsn)/2]+"-"+nsn[len(nsn)/2:], region)
		}
		add(cc+nsn, region)
		add("+"+cc+" "+nsn, region)
		add(phonenumbers.Format(num, phonenumbers.INTERNATIONAL), region)
		for _, idd := range idds[region] {
			add(idd+" "+cc+" "+nsn, region)
		}
		// Dialled from another region, with its international prefix.
		from := regions[rng.IntN(len(regions))]
		if p := idds[from]; len(p) > 0 {
			add(p[rng.IntN(len(p))]+cc+nsn, from)
		}
		// Mutations: a digit less, a digit more, a changed digit, a
		// national number of a few digits.
		add(nsn[:len(nsn)-1], region)
		add(national+strconv.Itoa(rng.IntN(10)), region)
		mut := []byte(nsn)
		mut[rng.IntN(len(mut))] = byte('0' + rng.IntN(10))
		add("0"+string(mut), region)
		add(nsn[:min(len(nsn), 1+rng.IntN(3))], region)
		switch region {
		case "AR":
			for _, f := range argentinaCarrierForms(nsn) {
				add(f, region)
			}
		case "MX":
			for _, p := range []string{"1", "01", "044 ", "045 ", "+52 1 "} {
				add(p+nsn, region)
			}
		case "BR":
			for _, carrier := range []string{"12", "14", "15", "21", "23", "31", "41", "43", "55", "65", "99", "17"} {
				add("0 "+carrier+" "+nsn, region)
				add("90"+carrier+nsn, region)
			}
		}
	}
	// Vanity numbers, separators, other digit scripts, and text that is
	// no number.
	for _, s := range []string{
		"1-800-FLOWERS", "0800 FLOWERS", "(800) MICROSOFT", "011 1 800 FLOWERS", "00 1 800 FLOWERS",
		"０１５１ ２３４５６７８９", "٠١٥١٢٣٤٥٦٧٨٩", "tel:030-1234567", "030 1234567 ext. 89", "030#12",
		"", " ", "0", "00", "+", "+0", "+00", "+49", "+0049 30 1234567", "++49 30 1234567", "hello",
		"0011 49 30 1234567", "1411 0011 49 30 1234567", "810 49 30 1234567", "8 10 49 30 1234567",
		"119 49 30 1234567", "00 0 49 30", "011 0 44 20", "01 1234", "+999 1234567", "999 1234567",
		"123456789012345678901234567890", "0000000000000000000", "06 1 234 5678", "8 495 123 45 67",
	} {
		for _, r := range []string{"DE", "US", "AU", "RU", "CU", "HU", "GB", "JP", "KR", "CL"} {
			out = append(out, regionalInput{s, r})
		}
	}
	return out
}

// lpnParseErrors maps phonenumbers' parse errors to the Reasons with which
// ParseIn fails on the same input. NotANumber covers the input that is no
// number at all; ParseIn names its faults more closely (an empty string,
// a stray character, a single digit that is too short).
var lpnParseErrors = []struct {
	err     error
	reasons []Reason
}{
	{phonenumbers.ErrInvalidCountryCode, []Reason{InvalidCountryCode}},
	{phonenumbers.ErrTooShortNSN, []Reason{TooShort}},
	{phonenumbers.ErrTooShortAfterIDD, []Reason{TooShort}},
	{phonenumbers.ErrNumTooLong, []Reason{TooLong, InputTooLong}},
	{phonenumbers.ErrNotANumber, []Reason{NotANumber, Empty, InvalidCharacter, TooShort, ExtensionUnsupported}},
}

// knownRegionalDifferences are inputs on which ParseIn departs from
// phonenumbers' Parse on purpose, with the reason and what Java
// libphonenumber does.
var knownRegionalDifferences = map[string]string{
	// Extensions: Numen refuses every number with an extension (its
	// API has no field for one); phonenumbers and Java parse the
	// number and keep the extension apart.
	"030 1234567 ext. 89": "extension refused",
	"030#12":              "extension refused",
	// A second "+": phonenumbers and Java read "++49" as "+49"
	// (PLUS_CHARS_PATTERN is "[+＋]+"); Numen's Parse refuses it as
	// not a number, and ParseIn reads digits as Parse does.
	"++49 30 1234567": "double plus refused",
}

// regionalAnswer is what the differential test compares: the reading of
// the input and the verdict on it.
type regionalAnswer struct {
	E164   string
	Valid  bool
	Type   Type
	Region string
}

// differsInRegion reads s in region with ParseIn and ClassifyIn and with
// phonenumbers' Parse, and describes the difference ("" when they agree:
// the same number, validity, type and region, or failures that mean the
// same). ok reports whether phonenumbers parsed it.
func differsInRegion(p *Plan, s, region string) (diff string, ok bool) {
	num, lerr := phonenumbers.Parse(s, region)
	res, err := p.ClassifyIn(s, region)
	if err != nil {
		return fmt.Sprintf("ClassifyIn: %v", err), lerr == nil
	}
	n, perr := p.ParseIn(s, region)
	if n != res.Number || (perr == nil) == res.Number.IsZero() {
		return fmt.Sprintf("ParseIn %v, %v; ClassifyIn %v", n, perr, res.Number), lerr == nil
	}
	if v, _ := p.ValidateIn(s, region); v != (Validity{Number: res.Number, Valid: res.Valid, Type: res.Type, Reason: res.Reason, Region: res.CountryCode}) {
		return fmt.Sprintf("ValidateIn %+v, ClassifyIn %+v", v, res), lerr == nil
	}
	if lerr != nil {
		if perr == nil {
			return fmt.Sprintf("numen reads %v, libphonenumber fails: %v", n, lerr), false
		}
		var pe *ParseError
		if !errors.As(perr, &pe) || pe.Region != region {
			return fmt.Sprintf("error %v (%T) without the region", perr, perr), false
		}
		for _, m := range lpnParseErrors {
			if errors.Is(lerr, m.err) {
				if slices.Contains(m.reasons, pe.Reason) {
					return "", false
				}
				return fmt.Sprintf("numen fails with %q, libphonenumber with %q", pe.Reason, lerr), false
			}
		}
		return fmt.Sprintf("libphonenumber error %v not mapped", lerr), false
	}
	if perr != nil {
		return fmt.Sprintf("numen fails (%v), libphonenumber reads %s", perr, phonenumbers.Format(num, phonenumbers.E164)), true
	}
	typ := phonenumbers.GetNumberType(num)
	want := regionalAnswer{E164: phonenumbers.Format(num, phonenumbers.E164), Valid: phonenumbers.IsValidNumber(num), Type: lpnToAPI[typ]}
	if want.Valid {
		want.Region = phonenumbers.GetRegionCodeForNumber(num)
		if want.Region == "001" {
			want.Region = ""
		}
	} else {
		want.Type = Unknown
	}
	got := regionalAnswer{E164: capLeadingZeros(p, res.Number.String()), Valid: res.Valid, Type: res.Type}
	if got.Valid {
		got.Region = res.CountryCode
	}
	if want != got {
		return fmt.Sprintf("libphonenumber %+v, numen %+v", want, got), true
	}
	return "", true
}

// TestParseInAgainstLibphonenumber reads more than 100,000 inputs built
// from every example number of every region and type, each in its region
// and in others, with ParseIn and ClassifyIn and with phonenumbers' Parse
// (the same libphonenumber release), and requires the same reading and
// verdict, or failures that mean the same, except for the listed
// deliberate differences.
func TestParseInAgainstLibphonenumber(t *testing.T) {
	t.Parallel()
	p := refPlan(t)
	corpus := regionalCorpus()
	if len(corpus) < 100000 {
		t.Fatalf("corpus has %d inputs, want at least 100,000", len(corpus))
	}
	var parsed, failed, valid, mismatches int
	seen := map[string]bool{}
	for _, in := range corpus {
		diff, ok := differsInRegion(p, in.s, in.region)
		if ok {
			parsed++
		} else {
			failed++
		}
		if diff == "" && ok {
			if r, _ := p.ValidateIn(in.s, in.region); r.Valid {
				valid++
			}
		}
		if _, known := knownRegionalDifferences[in.s]; known {
			seen[in.s] = true
			continue
		}
		if diff != "" {
			mismatches++
			if mismatches <= 100 {
				t.Errorf("%q in %s: %s", in.s, in.region, diff)
			}
		}
	}
	t.Logf("%d inputs: %d read (%d valid), %d refused by both, %d mismatches", len(corpus), parsed, valid, failed, mismatches)
	for s := range knownRegionalDifferences {
		if !seen[s] {
			t.Errorf("known difference %q is not in the corpus", s)
		}
	}
	if valid < 20000 || failed < 2000 {
		t.Errorf("corpus too one-sided: %d valid, %d failures", valid, failed)
	}
}

// TestKnownRegionalDifferences keeps the table of deliberate differences
// honest: each input still differs from phonenumbers in some region.
func TestKnownRegionalDifferences(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for s, why := range knownRegionalDifferences {
		diff, _ := differsInRegion(p, s, "DE")
		if diff == "" {
			t.Errorf("%q (%s): no longer differs", s, why)
		}
	}
}

// FuzzParseInAgainstLibphonenumber compares ParseIn and ClassifyIn with
// phonenumbers' Parse on input the fuzzer makes: its first byte picks the
// region, the rest become digits, spaces, dashes and parentheses, with a
// "+" where the fuzzer puts one first.
func FuzzParseInAgainstLibphonenumber(f *testing.F) {
	regions := dialRegions()
	for i, in := range regionalCorpus() {
		if i%331 == 0 {
			if r := slices.Index(regions, in.region); r >= 0 {
				f.Add(byte(r), in.s)
			}
		}
	}
	p := refPlan(f)
	f.Fuzz(func(t *testing.T, r byte, in string) {
		var b strings.Builder
		for i := 0; i < len(in) && b.Len() < 32; i++ {
			switch c := in[i]; {
			case c >= '0' && c <= '9', c == ' ', c == '-', c == '(', c == ')':
				b.WriteByte(c)
			case c == '+' && b.Len() == 0:
				b.WriteByte(c)
			}
		}
		s, region := b.String(), regions[int(r)%len(regions)]
		if _, known := knownRegionalDifferences[s]; known {
			return
		}
		if diff, _ := differsInRegion(p, s, region); diff != "" {
			t.Fatalf("%q in %s: %s", s, region, diff)
		}
	})
}

// TestParseInRegions checks the region argument: either case, every
// region phonenumbers knows, and an unknown one named in the error.
func TestParseInRegions(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, r := range dialRegions() {
		if _, err := p.ParseIn("+49 30 1234567", r); err != nil {
			t.Errorf("%s: %v", r, err)
		}
	}
	if n, err := p.ParseIn("030 1234567", "de"); err != nil || n.String() != "+49301234567" {
		t.Errorf("lower case de: %v, %v", n, err)
	}
	for _, r := range []string{"", "D", "DEU", "XX", "ZZ", "001", "d\x00", "é"} {
		_, err := p.ParseIn("030 1234567", r)
		var re *RegionError
		if !errors.As(err, &re) || re.Region != r || !errors.Is(err, ErrUnknownRegion) || !strings.Contains(err.Error(), strconv.Quote(r)) {
			t.Errorf("region %q: %v", r, err)
		}
		if res, err := p.ClassifyIn("030 1234567", r); !errors.Is(err, ErrUnknownRegion) || res.Valid || res.Status != StatusFailed {
			t.Errorf("ClassifyIn in %q: %+v, %v", r, res, err)
		}
		if v, err := p.ValidateIn("030 1234567", r); !errors.Is(err, ErrUnknownRegion) || v.Valid {
			t.Errorf("ValidateIn in %q: %+v, %v", r, v, err)
		}
	}
	_, err := p.ParseIn("0", "DE")
	if err == nil || err.Error() != `numbering: parsing "0" in DE: too short` {
		t.Errorf("error %v", err)
	}
}

// TestParseInWithoutDialling loads a plan file without the Dialling
// section, as written before it existed: it loads and classifies, and
// ParseIn fails with ErrNoDialling.
func TestParseInWithoutDialling(t *testing.T) {
	t.Parallel()
	old := withoutSection(t, data.Plan(), planfmt.SecDialling)
	p, err := OpenBytes(old)
	if err != nil {
		t.Fatal(err)
	}
	if res := p.ClassifyString("+49 151 23456789"); !res.Valid {
		t.Errorf("ClassifyString: %+v", res)
	}
	if _, err := p.ParseIn("0151 23456789", "DE"); !errors.Is(err, ErrNoDialling) {
		t.Errorf("ParseIn: %v", err)
	}
	if _, err := p.ClassifyIn("0151 23456789", "DE"); !errors.Is(err, ErrNoDialling) {
		t.Errorf("ClassifyIn: %v", err)
	}
	if _, err := p.ValidateIn("0151 23456789", "DE"); !errors.Is(err, ErrNoDialling) {
		t.Errorf("ValidateIn: %v", err)
	}
}

// withoutSection returns a copy of a plan file whose directory no longer
// lists section id (its bytes stay, unreferenced), resealed: a plan file as
// written before the section existed.
func withoutSection(t *testing.T, plan []byte, id uint32) []byte {
	t.Helper()
	b := slices.Clone(plan)
	n := int(planfmt.U16(b, planfmt.OffSections))
	dir := b[planfmt.HeaderSize : planfmt.HeaderSize+n*planfmt.DirEntrySize]
	for i := range n {
		if planfmt.U32(dir, i*planfmt.DirEntrySize) == id {
			copy(dir[i*planfmt.DirEntrySize:], dir[(i+1)*planfmt.DirEntrySize:])
			clear(dir[(n-1)*planfmt.DirEntrySize:])
			b[planfmt.OffSections] = byte(n - 1)
			b[planfmt.OffSections+1] = byte((n - 1) >> 8)
			reseal(b, true)
			return b
		}
	}
	t.Fatalf("no section %d", id)
	return nil
}

// TestDamagedDiallingSection: a dialling section that does not fit the
// plan (another number of regions, a program the plan does not have) is
// refused with an error naming it, never read as rules.
func TestDamagedDiallingSection(t *testing.T) {
	t.Parallel()
	for name, damage := range map[string]func(b []byte, off int){
		"regions":  func(b []byte, off int) { put32(b, off, planfmt.U32(b, off)+1) },
		"program":  func(b []byte, off int) { b[off+4], b[off+5] = 0xFE, 0xFF },
		"national": func(b []byte, off int) { b[off+6], b[off+7] = 0x00, 0x80 },
	} {
		b := slices.Clone(data.Plan())
		off, _ := sectionOf(t, b, planfmt.SecDialling)
		damage(b, off)
		reseal(b, true)
		_, err := OpenBytes(b)
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Section != "dialling section" {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestLiteralRules checks the rules read by comparison against the
// matcher they stand in for: for every program of the plan that has
// literals, on every digit string of up to 4 digits and on longer random
// ones, the first literal that starts the input is the matcher's match.
func TestLiteralRules(t *testing.T) {
	t.Parallel()
	p := plan(t)
	byRegion := func(id string) *region { return p.regionByID(id) }
	for _, c := range []struct {
		rule *nationalPrefix
		want []string
	}{
		{byRegion("DE").natPrefix, []string{"0"}},
		{byRegion("GB").natPrefix, []string{"0", "180020"}},
		{byRegion("BY").natPrefix, []string{"0", "80", "8"}},
		{byRegion("US").idd, []string{"011"}},
		{byRegion("HU").natPrefix, []string{"06"}},
		{byRegion("AR").natPrefix, nil}, // groups and a transform: the matcher
	} {
		if !slices.Equal(c.rule.literals, c.want) {
			t.Errorf("literals %q, want %q", c.rule.literals, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs [][]byte
	for n := 0; n <= 4; n++ {
		for v := range int(math.Pow10(n)) {
			inputs = append(inputs, fmt.Appendf(nil, "%0*d", n, v)[:n])
		}
	}
	for range 2000 {
		b := make([]byte, 5+rng.IntN(15))
		for i := range b {
			b[i] = byte('0' + rng.IntN(10))
			if rng.IntN(3) == 0 {
				b[i] = "0018"[rng.IntN(4)]
			}
		}
		inputs = append(inputs, b)
	}
	checked := 0
	seen := map[*nationalPrefix]bool{}
	for i := range p.regions {
		for _, np := range []*nationalPrefix{p.regions[i].idd, p.regions[i].natPrefix} {
			if np == nil || np.literals == nil || seen[np] {
				continue
			}
			seen[np] = true
			checked++
			for _, in := range inputs {
				var st matchState
				matched := np.run(&st, in)
				n, ok := literalMatch(np.literals, in)
				if ok != matched || ok && n != st.caps[1] {
					t.Fatalf("%s %q on %q: literals %d %v, matcher %v %d", p.regions[i].id, np.literals, in, n, ok, matched, st.caps[1])
				}
			}
		}
	}
	if checked < 10 {
		t.Errorf("only %d rules read by comparison", checked)
	}
	t.Logf("%d rules read by comparison, each checked on %d inputs", checked, len(inputs))
}
