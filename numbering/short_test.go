package numbering

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering/compile"
	"github.com/numenhq/numen/numbering/internal/planfmt"
	"github.com/nyaruka/phonenumbers/v2"
	"github.com/stretchr/testify/require"
)

// lpnShortInfo is what phonenumbers' ShortNumberInfo answers for s dialled
// in region, read as Plan.ShortNumber documents: the emergency functions
// take the string as it is; the others take the number whose national
// significant number is s's digits (letters as libphonenumber normalises
// them), or, for input with "+", phonenumbers.Parse's reading of it. ok is
// false when s holds no short number for them (the emergency answers still
// stand).
//
// phonenumbers.Parse(s, region) would read 368 of the 74,505 example
// short numbers and one-digit mutations of them differently, taking the
// region's international or trunk prefix off a short number: Uzbekistan's
// 001, a short number of the metadata, fails as "00" and calling code 1;
// Cape Verde's 0130 becomes +1 30; South Africa's 041348 loses its 0.
// Short numbers are dialled as they are, so ShortNumber, like
// libphonenumber's former string methods (isValidShortNumberForRegion(String,
// String)), takes the digits as the short number.
func lpnShortInfo(s, region string) (info ShortInfo, ok bool) {
	info.Emergency = phonenumbers.IsEmergencyNumber(s, region)
	info.ConnectsToEmergency = phonenumbers.ConnectsToEmergencyNumber(s, region)
	pn := lpnShortNumber(s, region)
	if pn == nil {
		return info, false
	}
	number := lpnNumberInfo(pn, region)
	number.Emergency, number.ConnectsToEmergency = info.Emergency, info.ConnectsToEmergency
	return number, true
}

// lpnNumberInfo is phonenumbers' ShortNumberInfo for a PhoneNumber, but for
// the emergency answers, which take a string.
func lpnNumberInfo(pn *phonenumbers.PhoneNumber, region string) (info ShortInfo) {
	info.Valid = phonenumbers.IsValidShortNumberForRegion(pn, region)
	info.Possible = phonenumbers.IsPossibleShortNumberForRegion(pn, region)
	switch phonenumbers.GetExpectedCostForRegion(pn, region) {
	case phonenumbers.TOLL_FREE_COST:
		info.Cost = TollFreeCost
	case phonenumbers.STANDARD_RATE_COST:
		info.Cost = StandardRateCost
	case phonenumbers.PREMIUM_RATE_COST:
		info.Cost = PremiumRateCost
	}
	info.CarrierSpecific = phonenumbers.IsCarrierSpecificForRegion(pn, region)
	info.SMS = phonenumbers.IsSmsServiceForRegion(pn, region)
	return info
}

// lpnShortNumber returns the PhoneNumber of s dialled in region, or nil.
func lpnShortNumber(s, region string) *phonenumbers.PhoneNumber {
	if strings.ContainsAny(s, "+\uFF0B") {
		pn, err := phonenumbers.Parse(s, region)
		if err != nil {
			return nil
		}
		return pn
	}
	// The reading Plan.ShortNumber documents for digit strings written
	// with separators and vanity letters; any other character makes no
	// number (Parse's rules, tested with it).
	body := strings.Map(func(r rune) rune {
		for _, zero := range []rune{'\u0660', '\u06F0', '\uFF10'} { // the scripts Parse reads
			if r >= zero && r <= zero+9 {
				return '0' + r - zero
			}
		}
		return r
	}, strings.TrimPrefix(strings.TrimSpace(s), "tel:"))
	const separators = " -./()[]"
	if strings.Trim(strings.ToUpper(body), "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"+separators) != "" {
		return nil
	}
	if i := strings.IndexFunc(body, unicode.IsLetter); i >= 0 && len(phonenumbers.NormalizeDigitsOnly(body[:i])) < 3 {
		return nil // vanity letters follow three digits
	}
	digits := lpnNormalize(body)
	if digits == "" || len(digits) > 17 || strings.Trim(digits, "0") == "" && len(digits) > 10 {
		return nil // nothing, or more than a PhoneNumber holds: no short number
	}
	return lpnNationalNumber(phonenumbers.GetCountryCodeForRegion(region), digits)
}

// lpnNormalize is libphonenumber's normalisation of a number's text
// (PhoneNumberUtil.normalize): with three or more letters, letters become
// keypad digits; else only the digits count.
func lpnNormalize(s string) string {
	letters := 0
	for _, r := range s {
		if r|0x20 >= 'a' && r|0x20 <= 'z' {
			letters++
		}
	}
	if letters >= 3 {
		return phonenumbers.NormalizeDigitsOnly(phonenumbers.ConvertAlphaCharactersInNumber(s))
	}
	return phonenumbers.NormalizeDigitsOnly(s)
}

// lpnNationalNumber builds the PhoneNumber with national significant
// number digits as phonenumbers' parser does: leading zeros in
// ItalianLeadingZero and NumberOfLeadingZeros.
func lpnNationalNumber(cc int, digits string) *phonenumbers.PhoneNumber {
	nn, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return nil // a PhoneNumber cannot hold it (more than 19 digits)
	}
	c := int32(cc)
	pn := &phonenumbers.PhoneNumber{CountryCode: &c, NationalNumber: &nn}
	if len(digits) > 1 && digits[0] == '0' {
		t := true
		pn.ItalianLeadingZero = &t
		zeros := int32(1)
		for int(zeros) < len(digits)-1 && digits[zeros] == '0' {
			zeros++
		}
		if zeros > 1 {
			pn.NumberOfLeadingZeros = &zeros
		}
	}
	if phonenumbers.GetNationalSignificantNumber(pn) != digits {
		return nil // a PhoneNumber cannot hold it (more than 10 leading zeros)
	}
	return pn
}

// shortRegions returns the regions of phonenumbers' short-number metadata
// (the non-geographic entry aside), sorted.
func shortRegions(t testing.TB) []string {
	coll, err := phonenumbers.ShortNumberMetadataCollection()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range coll.GetMetadata() {
		if m.GetId() != "001" {
			out = append(out, m.GetId())
		}
	}
	slices.Sort(out)
	return out
}

// shortExamples returns a region's example short numbers of every kind.
func shortExamples(region string) []string {
	coll, _ := phonenumbers.ShortNumberMetadataCollection()
	for _, m := range coll.GetMetadata() {
		if m.GetId() != region {
			continue
		}
		var out []string
		for _, d := range []*phonenumbers.PhoneNumberDesc{m.GetGeneralDesc(), m.GetShortCode(), m.GetTollFree(), m.GetStandardRate(),
			m.GetPremiumRate(), m.GetEmergency(), m.GetCarrierSpecific(), m.GetSmsServices()} {
			if e := d.GetExampleNumber(); e != "" && !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
		return out
	}
	return nil
}

// emergencyNumbers enumerates the emergency numbers of a region from the
// plan's automaton, up to 8 digits and 500 numbers (each is checked against
// phonenumbers by the caller; TestShortNumbersExhaustive checks that none
// of up to 3 digits is missing).
func emergencyNumbers(p *Plan, region string) []string {
	i := p.short.byRegion[regionKey(region)]
	if i == 0 {
		return nil
	}
	a := &p.short.regions[i-1].a
	var out []string
	var walk func(st int, prefix []byte)
	walk = func(st int, prefix []byte) {
		if len(out) >= 500 || len(prefix) > 8 {
			return
		}
		if a.acceptOf(st)&(1<<planfmt.ShortEmergency) != 0 {
			out = append(out, string(prefix))
		}
		if a.future(st)&(1<<planfmt.ShortEmergency) == 0 {
			return
		}
		for d := range 10 {
			if next := a.step(st, d); next >= 0 {
				walk(next, append(prefix, byte('0'+d)))
			}
		}
	}
	walk(0, nil)
	return out
}

// shortMutations returns s with one digit more, one less and one changed,
// at every position.
func shortMutations(s string) []string {
	var out []string
	for i := 0; i <= len(s); i++ {
		for c := byte('0'); c <= '9'; c++ {
			out = append(out, s[:i]+string(c)+s[i:])
			if i < len(s) && s[i] != c {
				out = append(out, s[:i]+string(c)+s[i+1:])
			}
		}
		if i < len(s) {
			out = append(out, s[:i]+s[i+1:])
		}
	}
	return out
}

// shortInputs returns the differential inputs of a region: its examples,
// its emergency numbers, their mutations, prefixes and extensions, and
// written forms (spaced, dashed, international, vanity letters).
func shortInputs(p *Plan, region string, rnd *rand.Rand) []string {
	seeds := shortExamples(region)
	emergency := emergencyNumbers(p, region)
	var out []string
	add := func(s ...string) { out = append(out, s...) }
	cc := strconv.Itoa(p.CallingCode(region))
	for _, s := range append(slices.Clone(seeds), emergency...) {
		add(s, strings.Join(strings.Split(s, ""), " "), strings.Join(strings.Split(s, ""), "-"), "+"+cc+" "+s, "+"+cc+s, "tel:"+s, " "+s+" ")
		add(shortMutations(s)...)
		if len(s) > 3 {
			add(s[:3] + vanityOf(s[3:]))
		}
	}
	for _, s := range emergency {
		for i := 1; i < len(s); i++ {
			add(s[:i])
		}
		for range 5 {
			longer := s
			for n := 1 + rnd.IntN(6); n > 0; n-- {
				longer += strconv.Itoa(rnd.IntN(10))
			}
			add(longer, longer[:len(s)]+" "+longer[len(s):], s+"#", s+"/x1", "*"+s, "a"+s, "+"+s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// vanityOf spells digits 2-9 as keypad letters (others stay digits).
func vanityOf(digits string) string {
	const letters = "  ADGJMPTW"
	b := []byte(digits)
	for i, c := range b {
		if c >= '2' && c <= '9' {
			b[i] = letters[c-'0']
		}
	}
	return string(b)
}

// shortKnownDifferences are the inputs where Numen and phonenumbers answer
// differently because phonenumbers is wrong, with the reason and what
// Java's libphonenumber answers; empty while there are none.
var shortKnownDifferences = map[string]string{}

// TestShortNumbersDifferential compares Plan.ShortNumber with phonenumbers'
// ShortNumberInfo on every example short number and every emergency number
// of every region, and on mutations of them.
func TestShortNumbersDifferential(t *testing.T) {
	t.Parallel()
	p := plan(t)
	rnd := rand.New(rand.NewPCG(29, 12))
	n, emergencies := 0, 0
	for _, region := range shortRegions(t) {
		if len(emergencyNumbers(p, region)) > 0 {
			emergencies++
		}
		for _, s := range shortInputs(p, region, rnd) {
			n++
			compareShort(t, p, s, region)
		}
	}
	t.Logf("%d inputs in %d regions, %d with emergency numbers", n, len(shortRegions(t)), emergencies)
	if n < 50_000 || emergencies < 200 {
		t.Errorf("%d inputs, %d regions with emergency numbers: the metadata did not load?", n, emergencies)
	}
}

// TestShortNumbersExhaustive compares every digit string of up to 3
// digits in every region: most emergency numbers have 3 digits, and this
// finds any that the enumeration from the plan's automata would miss.
func TestShortNumbersExhaustive(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, region := range shortRegions(t) {
		for l := 1; l <= 3; l++ {
			for v := range pow10(l) {
				compareShort(t, p, strconv.Itoa(pow10(l) + v)[1:], region)
			}
		}
	}
}

func pow10(n int) int {
	v := 1
	for range n {
		v *= 10
	}
	return v
}

func compareShort(t *testing.T, p *Plan, s, region string) {
	t.Helper()
	got, err := p.ShortNumber(s, region)
	if err != nil {
		t.Fatalf("ShortNumber(%q, %s): %v", s, region, err)
	}
	want, ok := lpnShortInfo(s, region)
	if !ok {
		// No short number for phonenumbers: Numen must find none either.
		want.Cost = UnknownCost
	}
	if got != want {
		if why, known := shortKnownDifferences[region+" "+s]; known {
			t.Logf("known difference %s %q: %s", region, s, why)
			return
		}
		t.Errorf("ShortNumber(%q, %s) = %+v, phonenumbers %+v", s, region, got, want)
	}
}

func TestShortNumberErrors(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, region := range []string{"XX", "", "DEU", "001", "D1"} {
		_, err := p.ShortNumber("112", region)
		var re *RegionError
		require.ErrorAs(t, err, &re, region)
		require.Equal(t, region, re.Region)
		require.Contains(t, err.Error(), strconv.Quote(region))
	}
	// A region of the plan without short numbers in libphonenumber's
	// metadata answers false everywhere, as phonenumbers does.
	without := ""
	for _, r := range p.regions {
		if r.id != nonGeoRegion && p.short.byRegion[regionKey(r.id)] == 0 {
			without = r.id
			break
		}
	}
	require.NotEmpty(t, without, "every region has short numbers: test another way")
	info, err := p.ShortNumber("112", without)
	require.NoError(t, err)
	require.Equal(t, ShortInfo{}, info)
	compareShort(t, p, "112", without)

	stripped, err := compile.Strip(data.Plan(), compile.ShortNumbers)
	require.NoError(t, err)
	bare, err := OpenBytes(stripped)
	require.NoError(t, err)
	_, err = bare.ShortNumber("112", "DE")
	require.ErrorIs(t, err, ErrNoShortNumbers)
	want, got := plan(t).ClassifyString("+49 151 23456789"), bare.ClassifyString("+49 151 23456789")
	want.plan, got.plan = nil, nil // the plans differ, their answers must not
	require.Equal(t, want, got)
}

// TestShortNumberCases pins answers worth reading: libphonenumber's own
// test cases of ShortNumberInfo among them.
func TestShortNumberCases(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, tc := range []struct {
		s, region string
		want      ShortInfo
	}{
		{"112", "DE", ShortInfo{Valid: true, Possible: true, Emergency: true, ConnectsToEmergency: true, Cost: TollFreeCost}},
		{"1 1 2", "DE", ShortInfo{Valid: true, Possible: true, Emergency: true, ConnectsToEmergency: true, Cost: TollFreeCost}},
		{"911", "US", ShortInfo{Valid: true, Possible: true, Emergency: true, ConnectsToEmergency: true, Cost: TollFreeCost}},
		// A longer string still reaches the services in the US, not in Brazil.
		{"9116666666", "US", ShortInfo{ConnectsToEmergency: true}},
		{"19011234", "BR", ShortInfo{}},
		{"190", "BR", ShortInfo{Valid: true, Possible: true, Emergency: true, ConnectsToEmergency: true, Cost: TollFreeCost}},
		// "+1 911" is not dialled as an emergency number; as a short
		// number of the US it still is one.
		{"+1 911", "US", ShortInfo{Valid: true, Possible: true, Cost: TollFreeCost}},
		{"+49 112", "US", ShortInfo{}},
		// Digits of other scripts count for the emergency answers.
		{"١١٢", "DE", ShortInfo{Valid: true, Possible: true, Emergency: true, ConnectsToEmergency: true, Cost: TollFreeCost}},
		{"116000", "FR", ShortInfo{Valid: true, Possible: true, Cost: TollFreeCost}},
		{"1000", "FR", ShortInfo{Valid: true, Possible: true, Cost: PremiumRateCost}},
		{"224", "FR", ShortInfo{Valid: true, Possible: true, Cost: TollFreeCost, CarrierSpecific: true}},
		{"23333", "US", ShortInfo{Valid: true, Possible: true, Cost: StandardRateCost, SMS: true}},
		{"", "DE", ShortInfo{}},
		{"hello", "DE", ShortInfo{}},
		// Fewer than three letters are dropped, as libphonenumber's
		// parser drops them; more are vanity letters.
		{"112a", "DE", ShortInfo{Valid: true, Possible: true, Emergency: true, ConnectsToEmergency: true, Cost: TollFreeCost}},
		{"116ABC", "DE", ShortInfo{Possible: true, Cost: TollFreeCost}}, // 116222
	} {
		got, err := p.ShortNumber(tc.s, tc.region)
		require.NoError(t, err)
		require.Equal(t, tc.want, got, "%q in %s", tc.s, tc.region)
		compareShort(t, p, tc.s, tc.region)
	}
}

func TestShortNumberDoesNotAllocate(t *testing.T) {
	p := plan(t)
	for _, in := range []struct{ s, region string }{
		{"112", "DE"}, {"116 000", "FR"}, {"911", "US"}, {"9116666666", "US"}, {"+49 112", "DE"},
		{"١١٢", "DE"}, {"hello", "DE"}, {"118 12/ x3", "GB"}, {"TAXI", "AT"}, {"1", "BR"}, {"112a", "DE"}, {"tel:0800 TAXI", "DE"},
	} {
		if allocs := testing.AllocsPerRun(100, func() { _, _ = p.ShortNumber(in.s, in.region) }); allocs != 0 {
			t.Errorf("ShortNumber(%q, %s) allocates %.1f times", in.s, in.region, allocs)
		}
	}
}

// TestCorruptShortNumbers damages the short-number section of a plan with
// correct checksums: each damage is a *FormatError naming it.
func TestCorruptShortNumbers(t *testing.T) {
	t.Parallel()
	good := data.Plan()
	at, _ := sectionOf(t, good, planfmt.SecShortNumbers)
	rec := at + 8
	for _, tc := range []struct {
		name   string
		damage func([]byte)
		want   string
	}{
		{"no regions", func(b []byte) { put32(b, at, 0) }, "impossible"},
		{"automata inside the records", func(b []byte) { put32(b, at+4, 64) }, "impossible"},
		{"regions out of order", func(b []byte) { copy(b[rec+planfmt.ShortRegionSize:], "AA") }, "region code \"AA\" after"},
		{"automaton not aligned", func(b []byte) { put32(b, rec+planfmt.ShortAutomaton, 3) }, "region AC: short numbers automaton at 3: not aligned"},
		{"automaton beyond the section", func(b []byte) { put32(b, rec+planfmt.ShortAutomaton, 1<<24) }, "beyond the section"},
		{"unknown flag", func(b []byte) { b[rec+planfmt.ShortRegionFlags] = 0x80 }, "flags 0x80"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := bytes.Clone(good)
			tc.damage(b)
			reseal(b, true)
			p, err := OpenBytes(b)
			require.Nil(t, p)
			require.ErrorIs(t, err, ErrFormat)
			require.ErrorContains(t, err, "short numbers section")
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// FuzzShortNumber compares Plan.ShortNumber with phonenumbers'
// ShortNumberInfo on arbitrary input, in a region the fuzzer picks.
func FuzzShortNumber(f *testing.F) {
	for _, seed := range []struct {
		s      string
		region uint16
	}{
		{"112", 0}, {"911", 1}, {"9116666666", 1}, {"190", 2}, {"+1 911", 1}, {"116 000", 3},
		{"١١٢", 0}, {"112/ x9", 0}, {"*112#", 4}, {"tel:112", 0}, {"a+112", 0}, {"1-1-2", 5},
		{"", 0}, {"\xff\xfe112", 6}, {"118 12 TAXI", 7}, {"+", 8}, {"000", 9}, {"0800 123", 10},
	} {
		f.Add(seed.s, seed.region)
	}
	p := plan(f)
	regions := shortRegions(f)
	f.Fuzz(func(t *testing.T, s string, r uint16) {
		region := regions[int(r)%len(regions)]
		got, err := p.ShortNumber(s, region)
		if err != nil {
			t.Fatalf("ShortNumber(%q, %s): %v", s, region, err)
		}
		emergency := phonenumbers.IsEmergencyNumber(s, region)
		connects := phonenumbers.ConnectsToEmergencyNumber(s, region)
		if got.Emergency != emergency || got.ConnectsToEmergency != connects {
			t.Fatalf("ShortNumber(%q, %s): emergency %v, connects %v; phonenumbers %v, %v", s, region, got.Emergency, got.ConnectsToEmergency, emergency, connects)
		}
		if got.Emergency && !got.ConnectsToEmergency {
			t.Fatalf("ShortNumber(%q, %s): an emergency number that does not connect", s, region)
		}
		// The number's answers: for the digits ShortNumber reads (Parse's
		// reading, tested with it), phonenumbers' answers.
		var buf [maxDialled]byte
		digits, ok := p.shortDigits(s, p.regionByID(region), &buf)
		if !ok {
			if got.Valid || got.Possible || got.Cost != UnknownCost || got.CarrierSpecific || got.SMS {
				t.Fatalf("ShortNumber(%q, %s) = %+v without a number", s, region, got)
			}
			return
		}
		if !strings.ContainsAny(s, "+\uFF0B") {
			body := s
			if i := strings.Index(strings.ToLower(s), "tel:"); i >= 0 {
				body = s[i+4:]
			}
			if lpn := lpnNormalize(body); lpn != string(digits) {
				t.Fatalf("ShortNumber(%q, %s) reads %s, phonenumbers %s", s, region, digits, lpn)
			}
		}
		pn := lpnNationalNumber(p.CallingCode(region), string(digits))
		if pn == nil {
			return
		}
		want := lpnNumberInfo(pn, region)
		want.Emergency, want.ConnectsToEmergency = emergency, connects
		if got != want {
			t.Fatalf("ShortNumber(%q, %s) = %+v; phonenumbers %+v", s, region, got, want)
		}
	})
}
