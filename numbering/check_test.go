package numbering

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
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
