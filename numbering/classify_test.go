package numbering

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestClassifyTable checks real-looking numbers from 40 countries and every
// number type against values known from the countries' numbering plans
// (mobile ranges, area codes, carriers of well-known mobile prefixes), not
// against the code's own output.
func TestClassifyTable(t *testing.T) {
	t.Parallel()
	p := plan(t)
	type want struct {
		e164    string
		typ     Type
		country string
		network string // "" = not checked
		region  string // first of Regions; "" = not checked
		zone    string // one of Timezones; "" = not checked
	}
	tests := []struct {
		in string
		want
	}{
		{"+49 151 23456789", want{"+4915123456789", Mobile, "DE", "T-Mobile", "Germany", "Europe/Berlin"}},
		{"+49 172 3456789", want{"+491723456789", Mobile, "DE", "Vodafone", "", ""}},
		{"+49 176 12345678", want{"+4917612345678", Mobile, "DE", "O2", "", ""}},
		{"+49 30 1234567", want{"+49301234567", Landline, "DE", "", "Berlin", "Europe/Berlin"}},
		{"+49 89 1234567", want{"+49891234567", Landline, "DE", "", "Munich", ""}},
		{"+49 800 1234567", want{"+498001234567", TollFree, "DE", "", "", ""}},
		{"+49 900 1 234567", want{"+499001234567", PremiumRate, "DE", "", "", ""}},
		{"+44 7400 123456", want{"+447400123456", Mobile, "GB", "", "United Kingdom", "Europe/London"}},
		{"+44 20 7946 0000", want{"+442079460000", Landline, "GB", "", "London", "Europe/London"}},
		{"+44 161 496 0000", want{"+441614960000", Landline, "GB", "", "Manchester", ""}},
		{"+44 800 123 4567", want{"+448001234567", TollFree, "GB", "", "", ""}},
		{"+44 909 876 5432", want{"+449098765432", PremiumRate, "GB", "", "", ""}},
		{"+44 56 1234 5678", want{"+445612345678", VoIP, "GB", "", "", ""}},
		{"+44 7640 123456", want{"+447640123456", Pager, "GB", "", "", ""}},
		{"+44 55 1234 5678", want{"+445512345678", UAN, "GB", "", "", ""}},
		{"+34 901 12 34 56", want{"+34901123456", SharedCost, "ES", "", "", ""}},
		{"+49 177 99 1234567", want{"+49177991234567", Voicemail, "DE", "", "", ""}},
		{"+41 58 123 45 67", want{"+41581234567", UAN, "CH", "", "", ""}},
		{"+1 650 253 0000", want{"+16502530000", MobileOrLandline, "US", "", "Mountain View, CA", "America/Los_Angeles"}},
		{"+1 212 555 0100", want{"+12125550100", MobileOrLandline, "US", "", "New York, NY", "America/New_York"}},
		{"+1 800 234 5678", want{"+18002345678", TollFree, "US", "", "", ""}},
		{"+1 900 234 5678", want{"+19002345678", PremiumRate, "US", "", "", ""}},
		{"+1 416 234 5678", want{"+14162345678", MobileOrLandline, "CA", "", "", "America/Toronto"}},
		{"+33 6 12 34 56 78", want{"+33612345678", Mobile, "FR", "", "France", "Europe/Paris"}},
		{"+33 1 23 45 67 89", want{"+33123456789", Landline, "FR", "", "", "Europe/Paris"}},
		{"+33 800 12 34 56", want{"+33800123456", TollFree, "FR", "", "", ""}},
		{"+39 312 345 6789", want{"+393123456789", Mobile, "IT", "", "Italy", "Europe/Rome"}},
		{"+39 06 1234 5678", want{"+390612345678", Landline, "IT", "", "Rome", ""}},
		{"+34 612 345 678", want{"+34612345678", Mobile, "ES", "", "", "Europe/Madrid"}},
		{"+34 91 123 45 67", want{"+34911234567", Landline, "ES", "", "Madrid", ""}},
		{"+31 6 12345678", want{"+31612345678", Mobile, "NL", "", "", "Europe/Amsterdam"}},
		{"+31 20 123 4567", want{"+31201234567", Landline, "NL", "", "Amsterdam", ""}},
		{"+48 512 345 678", want{"+48512345678", Mobile, "PL", "", "", "Europe/Warsaw"}},
		{"+48 22 123 45 67", want{"+48221234567", Landline, "PL", "", "Warsaw", ""}},
		{"+7 912 345 67 89", want{"+79123456789", Mobile, "RU", "", "", ""}},
		{"+7 495 123 45 67", want{"+74951234567", Landline, "RU", "", "Moscow", "Europe/Moscow"}},
		{"+7 701 123 45 67", want{"+77011234567", Mobile, "KZ", "", "", ""}},
		{"+234 803 123 4567", want{"+2348031234567", Mobile, "NG", "MTN", "", "Africa/Lagos"}},
		{"+27 82 123 4567", want{"+27821234567", Mobile, "ZA", "Vodacom", "", "Africa/Johannesburg"}},
		{"+27 21 123 4567", want{"+27211234567", Landline, "ZA", "", "Cape Town/Gordons Bay/Somerset West/Stellenbosch", ""}},
		{"+55 11 91234 5678", want{"+5511912345678", Mobile, "BR", "", "", "America/Sao_Paulo"}},
		{"+55 11 3123 4567", want{"+551131234567", Landline, "BR", "", "São Paulo", ""}},
		{"+91 98765 43210", want{"+919876543210", Mobile, "IN", "", "", "Asia/Calcutta"}},
		{"+86 138 0013 8000", want{"+8613800138000", Mobile, "CN", "China Mobile", "", "Asia/Shanghai"}},
		{"+81 90 1234 5678", want{"+819012345678", Mobile, "JP", "", "", "Asia/Tokyo"}},
		{"+81 3 1234 5678", want{"+81312345678", Landline, "JP", "", "Tokyo", ""}},
		{"+61 412 345 678", want{"+61412345678", Mobile, "AU", "Optus", "", ""}},
		{"+61 2 9876 5432", want{"+61298765432", Landline, "AU", "", "Sydney", "Australia/Sydney"}},
		{"+54 9 11 2345 6789", want{"+5491123456789", Mobile, "AR", "", "", "America/Buenos_Aires"}},
		{"+90 532 123 45 67", want{"+905321234567", Mobile, "TR", "Turkcell", "", "Europe/Istanbul"}},
		{"+46 70 123 45 67", want{"+46701234567", Mobile, "SE", "", "", "Europe/Stockholm"}},
		{"+41 79 123 45 67", want{"+41791234567", Mobile, "CH", "Swisscom", "", "Europe/Zurich"}},
		{"+41 44 123 45 67", want{"+41441234567", Landline, "CH", "", "Zurich", ""}},
		{"+43 664 1234567", want{"+436641234567", Mobile, "AT", "A1 TA", "", "Europe/Vienna"}},
		{"+32 470 12 34 56", want{"+32470123456", Mobile, "BE", "Proximus", "", "Europe/Brussels"}},
		{"+351 912 345 678", want{"+351912345678", Mobile, "PT", "", "", "Europe/Lisbon"}},
		{"+353 85 123 4567", want{"+353851234567", Mobile, "IE", "", "", "Europe/Dublin"}},
		{"+254 712 345678", want{"+254712345678", Mobile, "KE", "Safaricom", "", "Africa/Nairobi"}},
		{"+20 100 123 4567", want{"+201001234567", Mobile, "EG", "Vodafone", "", "Africa/Cairo"}},
		{"+966 50 123 4567", want{"+966501234567", Mobile, "SA", "", "", "Asia/Riyadh"}},
		{"+971 50 123 4567", want{"+971501234567", Mobile, "AE", "Etisalat", "", "Asia/Dubai"}},
		{"+62 812 3456 789", want{"+628123456789", Mobile, "ID", "Telkomsel", "", ""}},
		{"+82 10 1234 5678", want{"+821012345678", Mobile, "KR", "", "", "Asia/Seoul"}},
		{"+65 9123 4567", want{"+6591234567", Mobile, "SG", "", "", "Asia/Singapore"}},
		{"+65 6123 4567", want{"+6561234567", Landline, "SG", "", "", ""}},
		{"+852 5123 4567", want{"+85251234567", Mobile, "HK", "", "", "Asia/Hong_Kong"}},
		{"+30 691 234 5678", want{"+306912345678", Mobile, "GR", "", "", "Europe/Athens"}},
		{"+47 412 34 567", want{"+4741234567", Mobile, "NO", "", "", "Europe/Oslo"}},
		{"+358 40 123 4567", want{"+358401234567", Mobile, "FI", "", "", "Europe/Helsinki"}},
		{"+420 601 123 456", want{"+420601123456", Mobile, "CZ", "", "", "Europe/Prague"}},
		{"+380 50 123 4567", want{"+380501234567", Mobile, "UA", "", "", "Europe/Kyiv"}},
		{"+972 53 123 4567", want{"+972531234567", Mobile, "IL", "", "", "Asia/Jerusalem"}},
		{"+92 300 1234567", want{"+923001234567", Mobile, "PK", "", "", "Asia/Karachi"}},
		{"+63 917 123 4567", want{"+639171234567", Mobile, "PH", "", "", "Asia/Manila"}},
		{"+1 441 412 3456", want{"+14414123456", Landline, "BM", "", "", "Atlantic/Bermuda"}},
		{"+44 1624 756789", want{"+441624756789", Landline, "IM", "", "", ""}},
		{"+800 1234 5678", want{"+80012345678", TollFree, "", "", "International Freephone Service", ""}},
		{"+882 34 1234 5678", want{"+8823412345678", Unknown, "", "", "", ""}},
	}
	countries := map[string]bool{}
	types := map[Type]bool{}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			res := p.ClassifyString(tt.in)
			require.Equal(t, StatusOK, res.Status)
			require.Equal(t, tt.e164, res.Number.String())
			require.Equal(t, tt.typ, res.Type, "type")
			require.Equal(t, tt.country, res.CountryCode, "country")
			if tt.typ != Unknown {
				require.True(t, res.Valid, "reason %q", res.Reason)
				require.Equal(t, NoReason, res.Reason)
			}
			if tt.network != "" {
				require.Equal(t, tt.network, res.Network, "network")
			}
			if tt.region != "" {
				require.NotEmpty(t, res.Regions)
				require.Equal(t, tt.region, res.Regions[0], "region")
			}
			if tt.zone != "" {
				// Mobile numbers are not geographic: they get every zone of the country.
				require.Contains(t, res.Timezones, tt.zone, "time zone")
			}
			require.Equal(t, res.Valid && tt.typ.IsMobile(), res.QualifiesForHLR)
			require.Equal(t, "+"+fmt.Sprint(res.Number.CountryCode()), res.CountryPrefix)
		})
		countries[tt.country] = true
		types[tt.typ] = true
	}
	require.GreaterOrEqual(t, len(countries), 40)
	for _, typ := range Types() {
		if typ != Voicemail && typ != Unknown { // voicemail examples exist only in a few plans; see TestExampleNumbers
			require.True(t, types[typ], "no case for %v", typ)
		}
	}
}

// TestInvalid covers each Reason with the status it implies.
func TestInvalid(t *testing.T) {
	t.Parallel()
	p := plan(t)
	tests := []struct {
		in      string
		reason  Reason
		status  Status
		country string // country filled in despite the failure
	}{
		{"", Empty, StatusFailed, ""},
		{"   \t ", Empty, StatusFailed, ""},
		{"hello", NotANumber, StatusFailed, ""},
		{"phone me", NotANumber, StatusFailed, ""},
		{"+", NotANumber, StatusFailed, ""},
		{"++49 30 1234567", NotANumber, StatusFailed, ""},
		{"+49 30 +1234567", NotANumber, StatusFailed, ""},
		{"+49 30 123\x07 4567", InvalidCharacter, StatusFailed, ""},
		{"+49\x00301234567", InvalidCharacter, StatusFailed, ""},
		{"+49 30 1234567 ☎", InvalidCharacter, StatusFailed, ""},
		{"+49*301234567", InvalidCharacter, StatusFailed, ""},
		{"030 1234567", MissingCountryCode, StatusFailed, ""},
		// National format without a leading 0: bare digits are an MSISDN
		// only as a plain digit string, or these would be answered as an
		// Egyptian landline (+20 1 5550123) and a New Zealand number.
		{"(201) 555-0123", MissingCountryCode, StatusFailed, ""},
		{"(649) 712-1234", MissingCountryCode, StatusFailed, ""},
		{"201-555-0123", MissingCountryCode, StatusFailed, ""},
		{"49 151 23456789", MissingCountryCode, StatusFailed, ""},
		{"4915123456789x", MissingCountryCode, StatusFailed, ""}, // a vanity letter is formatting too
		{"tel:4915123456789", MissingCountryCode, StatusFailed, ""},
		{"+999 1234567", InvalidCountryCode, StatusFailed, ""},
		{"+0 1234567", InvalidCountryCode, StatusFailed, ""},
		{"000 1234567", InvalidCountryCode, StatusFailed, ""},
		{"+49 30 1234567 ext. 89", ExtensionUnsupported, StatusFailed, ""},
		{"+49 30 1234567;ext=89", ExtensionUnsupported, StatusFailed, ""},
		{"+1 212 555 0100 x12", ExtensionUnsupported, StatusFailed, ""},
		{"+49 30 1234567#89", ExtensionUnsupported, StatusFailed, ""},
		{"+49 3012~3456", ExtensionUnsupported, StatusFailed, ""},
		{"+966112345*678", InvalidCharacter, StatusFailed, ""}, // libphonenumber drops the star; a number with one is suspect
		{"+4930123456!", InvalidCharacter, StatusFailed, ""},
		{"+" + strings.Repeat("1", 40), InputTooLong, StatusFailed, ""},
		{strings.Repeat("9", 300), InputTooLong, StatusFailed, ""},
		{"+49 1", TooShort, StatusOK, "DE"},
		{"+33 6 12", TooShort, StatusOK, "FR"},
		{"+33 6 12 34 56 78 9", TooLong, StatusOK, "FR"},
		{"+49 151 2345678901234567", TooLong, StatusOK, "DE"},
		{"+1 123 456 7890", InvalidPrefix, StatusOK, ""},
		{"+33 0 12 34 56 78", InvalidPrefix, StatusOK, "FR"}, // 0 is not stripped: 8 digits would be too short
		{"+44 20 7946 00", LocalOnly, StatusOK, ""},
		{"+41 44 123 45 678", InvalidLength, StatusOK, "CH"}, // Swiss numbers have 9 or 12 digits
		{"+44 20 7946 000", InvalidPrefix, StatusOK, ""},     // +44 is shared by GB, GG, IM, JE: no country for an invalid number
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.in), func(t *testing.T) {
			res := p.ClassifyString(tt.in)
			require.False(t, res.Valid)
			require.Equal(t, tt.reason, res.Reason, "reason %q", res.Reason)
			require.Equal(t, tt.status, res.Status)
			require.Equal(t, Unknown, res.Type)
			require.Equal(t, tt.country, res.CountryCode)
			require.False(t, res.QualifiesForHLR)
			require.Nil(t, res.Regions)
			require.NotEmpty(t, res.Reason.String())
			_, err := p.Parse(tt.in)
			if tt.status == StatusFailed {
				var pe *ParseError
				require.ErrorAs(t, err, &pe)
				require.Equal(t, tt.reason, pe.Reason)
				require.Contains(t, err.Error(), tt.reason.String())
			}
		})
	}
}

// TestParseForms checks that the accepted spellings of one number agree.
func TestParseForms(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, in := range []string{
		"+4915123456789", "004915123456789", "4915123456789", "+49 151 23456789",
		"+49 (0)151 2345-6789", "+49.151.234.567.89", "+49/151/23456789", "tel:+49-151-23456789",
		" \t+49 151 23456789\r\n", "＋４９ １５１ ２３４５６７８９", "+49\u00a0151\u00a023456789",
		"+49 – 151 – 23456789", "+49 0151 23456789",
	} {
		n, err := p.Parse(in)
		require.NoError(t, err, in)
		require.Equal(t, "+4915123456789", n.String(), in)
		require.Equal(t, 49, n.CountryCode())
		require.Equal(t, "15123456789", n.NationalNumber())
		require.False(t, n.IsVanity())
	}
}

func TestVanity(t *testing.T) {
	t.Parallel()
	p := plan(t)
	res := p.ClassifyString("+1-800-FLOWERS")
	require.True(t, res.Valid)
	require.True(t, res.Number.IsVanity())
	require.Equal(t, "+18003569377", res.Number.String())
	require.Equal(t, TollFree, res.Type)
	require.Contains(t, string(res.AppendJSON(nil)), `"is_vanity_number":true`)

	res = p.ClassifyString("+44 800 MICROSOFT")
	require.True(t, res.Number.IsVanity())

	// Letters before three digits are not a vanity number.
	require.Equal(t, NotANumber, p.ClassifyString("+1 CALL NOW").Reason)
}

func TestNationalPrefixStripping(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for in, want := range map[string]string{
		"+44 (0) 20 7946 0000": "+442079460000", // trunk prefix 0
		"+7 8 495 123 45 67":   "+74951234567",  // Russia's trunk prefix 8
		"+7 800 555 35 35":     "+78005553535",  // 8 that is part of the number is kept
		"+39 06 1234 5678":     "+390612345678", // Italy keeps its leading 0
		"+1 1 650 253 0000":    "+16502530000",  // NANP's 1
	} {
		res := p.ClassifyString(in)
		require.Equal(t, want, res.Number.String(), in)
		require.True(t, res.Valid, in)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	v := plan(t).Version()
	require.Regexp(t, `^v\d+\.\d+\.\d+$`, v.Libphonenumber)
	require.Regexp(t, `^[0-9a-f]{12}$`, v.Tables)
	require.Equal(t, "libphonenumber "+v.Libphonenumber+" + numen-data "+v.Tables, v.String())
}

func TestTypeNames(t *testing.T) {
	t.Parallel()
	want := []string{"UNKNOWN", "LANDLINE", "MOBILE", "MOBILE_OR_LANDLINE", "TOLL_FREE", "PREMIUM_RATE", "SHARED_COST", "VOIP", "PAGER", "UAN", "VOICEMAIL"}
	var got []string
	for _, typ := range Types() {
		got = append(got, typ.String())
		back, ok := ParseType(typ.String())
		require.True(t, ok)
		require.Equal(t, typ, back)
	}
	require.Equal(t, want, got)
	_, ok := ParseType("FAX")
	require.False(t, ok)
}

func TestRegionsAndCallingCodes(t *testing.T) {
	t.Parallel()
	p := plan(t)
	require.Equal(t, []string{"GB", "GG", "IM", "JE"}, p.Regions(44))
	require.Equal(t, "US", p.Regions(1)[0])
	require.Equal(t, []string{"001"}, p.Regions(800))
	require.Nil(t, p.Regions(999))
	require.Nil(t, p.Regions(0))
	require.Equal(t, 49, p.CallingCode("DE"))
	require.Equal(t, 1, p.CallingCode("CA"))
	require.Equal(t, 0, p.CallingCode("XX"))
	require.Equal(t, 0, p.CallingCode("001"))
	for in, want := range map[string]struct {
		cc   int
		rest string
		ok   bool
	}{
		"4915123": {49, "15123", true}, "1650": {1, "650", true}, "35385": {353, "85", true},
		"49": {49, "", true}, "999": {0, "", false}, "0049": {0, "", false}, "": {0, "", false}, "4x": {0, "", false},
	} {
		cc, rest, ok := p.SplitCallingCode(in)
		require.Equal(t, want.cc, cc, in)
		require.Equal(t, want.rest, rest, in)
		require.Equal(t, want.ok, ok, in)
	}
}

func TestMobileNumbers(t *testing.T) {
	t.Parallel()
	p := plan(t)
	// German mobile numbers: 015x, 016x and 017x ranges of 10 and 11 digits;
	// 0151 is T-Mobile's: 10^8 numbers of 11 digits (151 and 8 more).
	require.Equal(t, 1e8, p.MobileNumbers("DE", "151"))
	require.Zero(t, p.MobileNumbers("DE", "30")) // Berlin landlines
	require.Zero(t, p.MobileNumbers("XX", ""))
	require.Zero(t, p.MobileNumbers("DE", "1x"))
	de := p.MobileNumbers("DE", "")
	require.Greater(t, de, 1e8)
	require.Equal(t, de, p.MobileNumbers("DE", "1")) // all German mobiles start with 1
	// The counts of the ten next digits add up to the prefix's.
	var sum float64
	for d := '0'; d <= '9'; d++ {
		sum += p.MobileNumbers("GB", "7"+string(d))
	}
	require.Equal(t, p.MobileNumbers("GB", "7"), sum)
}

// Bare digits are an MSISDN: a plain digit string, white space around it
// aside, read with its calling code.
func TestBareDigitsAreAnMSISDN(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for in, want := range map[string]string{
		"4915123456789":     "+4915123456789",
		" 4915123456789\n":  "+4915123456789",
		"12015550123":       "+12015550123",
		"２０１５５５０１２３":        "+2015550123", // full-width digits: an MSISDN in Egypt
		"00 1 201 555 0123": "+12015550123",
	} {
		res := p.ClassifyString(in)
		require.Equal(t, StatusOK, res.Status, "%q: %v", in, res.Reason)
		require.Equal(t, want, res.Number.String(), "%q", in)
	}
}
