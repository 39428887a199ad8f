package numbering

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, tc := range []struct {
		in      string
		state   InputState
		reason  Reason
		types   string // "" = not checked
		regions string // comma-joined; "" = none
	}{
		{"", Incomplete, NoReason, "", ""},
		{"+", Incomplete, NoReason, "", ""},
		{"0", Incomplete, NoReason, "", ""},
		{"00", Incomplete, NoReason, "", ""},
		{"+4", Incomplete, NoReason, "", ""},
		{"+49", Incomplete, NoReason, "", "DE"},
		{"+49 15", Incomplete, NoReason, "MOBILE|VOICEMAIL", "DE"},
		{"+49 151 234", Incomplete, NoReason, "MOBILE", "DE"},
		{"+49 151 23456789", Valid, NoReason, "MOBILE", "DE"},
		{"+49 151 234567890", Impossible, InvalidPrefix, "", ""},
		{"+49 151 2345678901234567", Impossible, TooLong, "", ""},
		{"+36 0", Incomplete, NoReason, "", "HU"},
		{"+44 7", Incomplete, NoReason, "UNKNOWN|MOBILE|PAGER", "GB,GG,IM,JE"}, // UNKNOWN: personal numbers (070)
		{"+44 (0)20 79", Incomplete, NoReason, "LANDLINE", "GB"},
		{"+44 20 7946 0000", Valid, NoReason, "LANDLINE", "GB"},
		{"+1 650", Incomplete, NoReason, "MOBILE_OR_LANDLINE", "US"},
		{"+1 650 253 0000", Valid, NoReason, "MOBILE_OR_LANDLINE", "US"},
		{"+1 0", Impossible, InvalidPrefix, "", ""},
		{"+999", Impossible, InvalidCountryCode, "", ""},
		{"+0", Impossible, InvalidCountryCode, "", ""},
		{"030 123", Impossible, MissingCountryCode, "", ""},
		{"(201) 55", Impossible, MissingCountryCode, "", ""}, // national format: see TestInvalid
		{"49 151", Impossible, MissingCountryCode, "", ""},
		{"4915", Incomplete, NoReason, "MOBILE|VOICEMAIL", "DE"}, // an MSISDN being typed
		{"+49 x", Impossible, NotANumber, "", ""},
		{"+49 30 x", Incomplete, NoReason, "LANDLINE", "DE"}, // a vanity letter: +49 309
		{"+49 30 ext. 12", Impossible, ExtensionUnsupported, "", ""},
		{"+49 30 1234 #", Impossible, ExtensionUnsupported, "", ""},
		{"+49 30 ☎", Impossible, InvalidCharacter, "", ""},
		{"++49", Impossible, NotANumber, "", ""},
		{"+800 1234", Incomplete, NoReason, "TOLL_FREE", "001"},
		{"+54 9 11 2345 6789", Valid, NoReason, "MOBILE", "AR"},
	} {
		pr := p.Check(tc.in)
		require.Equal(t, tc.state, pr.State, "%q: %+v", tc.in, pr)
		require.Equal(t, tc.reason, pr.Reason, "%q", tc.in)
		if tc.types != "" {
			require.Equal(t, tc.types, pr.Types.String(), "%q", tc.in)
		}
		require.Equal(t, tc.regions, strings.Join(pr.Regions(), ","), "%q", tc.in)
	}
	pr := p.Check("+49 30 1234567")
	require.Equal(t, Valid, pr.State)
	require.True(t, pr.Longer, "German landlines have several lengths")
	require.Equal(t, 49, pr.CallingCode)
	require.False(t, p.Check("+44 20 7946 0000").Longer)
}

// TestCheckPrefixesOfValidNumbers types every example number and its
// mutations digit by digit: every prefix of a valid number is Incomplete or
// Valid, never Impossible; an Incomplete one names the number's type and
// region once the calling code is complete (a Valid one names its own);
// and the whole number is Valid exactly when ClassifyString says so.
func TestCheckPrefixesOfValidNumbers(t *testing.T) {
	t.Parallel()
	p := plan(t)
	checked := 0
	for _, s := range differentialCorpus() {
		res := p.ClassifyString(s)
		pr := p.Check(s)
		require.Equal(t, res.Valid, pr.State == Valid, "%q: %+v, ClassifyString valid=%v", s, pr, res.Valid)
		if !res.Valid {
			continue
		}
		require.True(t, pr.Types.Has(res.Type), "%q: type %v not in %v", s, res.Type, pr.Types)
		region := res.CountryCode
		if region == "" {
			region = nonGeoRegion
		}
		for i := 1; i < len(s); i++ {
			if pr := p.Check(s[:i]); pr.State == Impossible {
				t.Fatalf("%q of valid %q (%v): impossible, %v", s[:i], s, res.Type, pr.Reason)
			} else if pr.State == Incomplete && pr.CallingCode != 0 && !pr.Types.Has(res.Type) && res.Type != Unknown {
				t.Fatalf("%q of valid %q: types %v lack %v", s[:i], s, pr.Types, res.Type)
			} else if pr.State == Incomplete && pr.CallingCode != 0 && !slices.Contains(pr.Regions(), region) {
				t.Fatalf("%q of valid %q: regions %v lack %s", s[:i], s, pr.Regions(), region)
			}
			checked++
		}
	}
	t.Logf("%d prefixes of valid numbers checked", checked)
}

func TestCheckDoesNotAllocate(t *testing.T) {
	p := plan(t)
	for _, in := range []string{"+49 15", "+44 (0)20 79", "+1 650 253 0000", "+999", "+", "+54 9 11 23", "030 123"} {
		if a := testing.AllocsPerRun(100, func() { p.Check(in) }); a != 0 {
			t.Errorf("Check(%q) allocates %.1f times", in, a)
		}
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{"+49 15", "+44 (0)2", "0", "00", "+", "+54 9 1", "+1-800-FLO", "tel:+33 6"} {
		f.Add(s)
	}
	p := plan(f)
	f.Fuzz(func(t *testing.T, s string) {
		pr := p.Check(s)
		if (pr.State == Valid) != p.ClassifyString(s).Valid {
			t.Fatalf("%q: Check %v, ClassifyString valid=%v", s, pr.State, p.ClassifyString(s).Valid)
		}
		if (pr.State == Impossible) != (pr.Reason != NoReason) {
			t.Fatalf("%q: state %v with reason %v", s, pr.State, pr.Reason)
		}
		_ = pr.Regions()
	})
}

func TestCheckIn(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, tc := range []struct {
		in, region string
		state      InputState
		reason     Reason
		types      string // "" = not checked
		regions    string // comma-joined; "" = none
		code       int
	}{
		{"", "DE", Incomplete, NoReason, "", "", 0},
		{"0", "DE", Incomplete, NoReason, "", "", 0}, // a national prefix, or "00": the calling code is open
		{"0151 2", "DE", Incomplete, NoReason, "MOBILE", "DE", 49},
		{"0151 23456789", "DE", Valid, NoReason, "MOBILE", "DE", 49},
		{"151 234", "DE", Incomplete, NoReason, "MOBILE", "DE", 49}, // without the national prefix
		{"0151 234567890", "DE", Impossible, InvalidPrefix, "", "", 49},
		{"00", "DE", Incomplete, NoReason, "", "", 0},
		{"00 33 6", "DE", Incomplete, NoReason, "MOBILE", "FR", 33}, // the international prefix, then as after "+"
		{"00 999", "DE", Impossible, InvalidCountryCode, "", "", 0},
		{"+44 20 79", "DE", Incomplete, NoReason, "LANDLINE", "GB", 44}, // "+": the region does not matter
		{"(201) 555", "US", Incomplete, NoReason, "MOBILE_OR_LANDLINE", "US", 1},
		{"(204) 5", "US", Incomplete, NoReason, "", "CA", 1}, // read in US, a Canadian number
		{"(201) 555-0123", "US", Valid, NoReason, "MOBILE_OR_LANDLINE", "US", 1},
		{"1 201 5", "US", Incomplete, NoReason, "", "US", 1}, // the national prefix 1
		{"01", "US", Incomplete, NoReason, "", "", 0},        // the beginning of 011
		{"011 44 20", "US", Incomplete, NoReason, "LANDLINE", "GB", 44},
		{"02", "US", Impossible, InvalidPrefix, "", "", 1},
		{"0 1", "US", Incomplete, NoReason, "", "", 0},
		{"030 1", "de", Incomplete, NoReason, "LANDLINE", "DE", 49},
		{"hello", "DE", Impossible, NotANumber, "", "", 0},
		{"+", "DE", Incomplete, NoReason, "", "", 0},
	} {
		pr, err := p.CheckIn(tc.in, tc.region)
		require.NoError(t, err)
		require.Equal(t, tc.state, pr.State, "%q in %s: %+v", tc.in, tc.region, pr)
		require.Equal(t, tc.reason, pr.Reason, "%q in %s", tc.in, tc.region)
		if tc.types != "" {
			require.Equal(t, tc.types, pr.Types.String(), "%q in %s", tc.in, tc.region)
		}
		require.Equal(t, tc.regions, strings.Join(pr.Regions(), ","), "%q in %s", tc.in, tc.region)
		require.Equal(t, tc.code, pr.CallingCode, "%q in %s", tc.in, tc.region)
	}
	_, err := p.CheckIn("0151 2", "XX")
	require.ErrorIs(t, err, ErrUnknownRegion)
	require.ErrorContains(t, err, `"XX"`)
}

// TestCheckInPrefixesOfRegionalInput checks CheckIn on ParseIn's
// differential corpus (national input of every region's example numbers,
// read in the right region and in wrong ones): Valid exactly when
// ValidateIn says valid, and every beginning of input valid in a region
// Incomplete there (never Impossible), with the number's type and region.
// Input with "+" and a calling code is answered as Check answers it.
func TestCheckInPrefixesOfRegionalInput(t *testing.T) {
	t.Parallel()
	p := plan(t)
	checked := 0
	corpus := regionalCorpus()
	for _, in := range corpus {
		v, err := p.ValidateIn(in.s, in.region)
		require.NoError(t, err)
		pr, err := p.CheckIn(in.s, in.region)
		require.NoError(t, err)
		require.Equal(t, v.Valid, pr.State == Valid, "%q in %s: %+v, ValidateIn valid=%v", in.s, in.region, pr, v.Valid)
		if trimmed := strings.TrimSpace(in.s); strings.HasPrefix(trimmed, "+") && !strings.HasPrefix(trimmed, "+0") && !v.Valid {
			// ("+0" may be "+" before the region's international prefix,
			// which ParseIn reads as libphonenumber does.)
			require.Equal(t, p.Check(in.s), pr, "%q in %s", in.s, in.region)
		}
		if !v.Valid {
			continue
		}
		region := v.Region
		if region == "" {
			region = nonGeoRegion
		}
		for i := range in.s { // at each character's start: beginnings as typed
			if i == 0 || i <= len("tel:") && strings.HasPrefix(in.s, "tel:") {
				continue // "tel:" before its digits is not a number, for Check too
			}
			pr, _ := p.CheckIn(in.s[:i], in.region)
			switch {
			case pr.State == Impossible:
				t.Fatalf("%q of valid %q in %s (%v): impossible, %v", in.s[:i], in.s, in.region, v.Type, pr.Reason)
			case pr.State == Incomplete && pr.CallingCode != 0 && pr.Types != 0 && !pr.Types.Has(v.Type) && v.Type != Unknown:
				t.Fatalf("%q of valid %q in %s: types %v lack %v", in.s[:i], in.s, in.region, pr.Types, v.Type)
			case pr.State == Incomplete && pr.CallingCode != 0 && pr.Types != 0 && !slices.Contains(pr.Regions(), region):
				t.Fatalf("%q of valid %q in %s: regions %v lack %s", in.s[:i], in.s, in.region, pr.Regions(), region)
			}
			checked++
		}
	}
	require.Greater(t, checked, 100_000)
	t.Logf("%d inputs, %d beginnings of valid ones checked", len(corpus), checked)
}

func TestCheckInDoesNotAllocate(t *testing.T) {
	p := plan(t)
	for _, in := range []struct{ s, region string }{
		{"0151 2", "DE"}, {"0151 23456789", "DE"}, {"00 33 6", "DE"}, {"(201) 555", "US"}, {"011 15 2345", "AR"},
		{"+44 20 79", "FR"}, {"hello", "DE"}, {"02", "US"},
	} {
		if a := testing.AllocsPerRun(100, func() { _, _ = p.CheckIn(in.s, in.region) }); a != 0 {
			t.Errorf("CheckIn(%q, %q) allocates %.1f times", in.s, in.region, a)
		}
	}
}

func FuzzCheckIn(f *testing.F) {
	for _, s := range []string{"0151 2", "00 33 6", "(201) 5", "011 4", "0", "+", "011 15 2", "1-800-FLO", "0 1"} {
		f.Add(s, "DE")
		f.Add(s, "US")
		f.Add(s, "AR")
	}
	p := plan(f)
	f.Fuzz(func(t *testing.T, s, region string) {
		pr, err := p.CheckIn(s, region)
		v, verr := p.ValidateIn(s, region)
		if (err == nil) != (verr == nil) {
			t.Fatalf("%q in %q: CheckIn error %v, ValidateIn error %v", s, region, err, verr)
		}
		if err != nil {
			return
		}
		if (pr.State == Valid) != v.Valid {
			t.Fatalf("%q in %q: CheckIn %v, ValidateIn valid=%v", s, region, pr.State, v.Valid)
		}
		if (pr.State == Impossible) != (pr.Reason != NoReason) {
			t.Fatalf("%q in %q: state %v with reason %v", s, region, pr.State, pr.Reason)
		}
		_ = pr.Regions()
	})
}

// BenchmarkCheckIn checks the beginnings of a German mobile number as it
// is typed, in international form (Check) and in national form in DE
// (CheckIn).
func BenchmarkCheckIn(b *testing.B) {
	p := plan(b)
	for _, bc := range []struct {
		name, number string
		check        func(string) Progress
	}{
		{"Check", "+49 151 23456789", p.Check},
		{"CheckIn", "0151 23456789", func(s string) Progress { pr, _ := p.CheckIn(s, "DE"); return pr }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				bc.check(bc.number[:1+i%len(bc.number)])
			}
		})
	}
}
