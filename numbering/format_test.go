package numbering

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/numenhq/numen/numbering/compile"
	"github.com/numenhq/numen/numbering/internal/planfmt"
	"github.com/nyaruka/phonenumbers/v2"
)

// formatFromRegions are the regions numbers are formatted as dialled from
// in the differential test: inside and outside the North American
// Numbering Plan, Russia and Kazakhstan (one calling code), regions whose
// international prefix is a pattern of several (with and without a
// preferred one: UZ, BY, CO, KR, AU, BR, ...).
var formatFromRegions = []string{
	"US", "CA", "JM", "GB", "DE", "FR", "JP", "AU", "RU", "KZ", "CN", "BR", "AR", "MX",
	"IT", "IN", "SG", "HK", "IL", "ZA", "NG", "UZ", "BY", "CO", "KR", "TR", "FI", "ID",
}

var lpnStyles = map[Style]phonenumbers.PhoneNumberFormat{
	E164: phonenumbers.E164, International: phonenumbers.INTERNATIONAL,
	National: phonenumbers.NATIONAL, RFC3966: phonenumbers.RFC3966,
}

// formatKnownDifferences are the answers in which Numen follows Java's
// libphonenumber where phonenumbers (Go) does not, keyed by "input|style",
// with the reason; the test fails on an entry that no longer differs. There
// are none with today's metadata. Where the two libraries' code differs,
// Numen does as Java does, and none of it is reached:
//
//   - RFC 3966: Java replaces a run of punctuation at the end of a
//     formatted number with "-", phonenumbers drops it; no template of the
//     metadata ends in punctuation.
//   - Templates: Go's regexp reads "$12" as group 12, Java as group 1 and
//     a "2"; numbering/compile refuses a template with a letter, digit or
//     "_" after "$n", and the metadata has none.
//   - Leading zeros: phonenumbers writes at most 10 of a national number's
//     leading zeros, Java all of them; Numen keeps all (the fuzz target
//     compares only numbers both read alike).
//
// Deliberate differences of the API, not of answers: a region code in
// lower case is read as its upper case (libphonenumber: an unknown region),
// and an unknown region is an error (libphonenumber formats the number in
// the international format instead).
var formatKnownDifferences = map[string]string{}

// formatDifferences formats s with both Numen and phonenumbers in every
// style, nationally with and without a carrier code, and as dialled from
// every region of from, and returns the
// differences, keyed by "input|style" ("input|from XX").
func formatDifferences(p *Plan, s string, from []string) (diffs map[string][2]string, parsed bool) {
	num, err := phonenumbers.Parse(s, "ZZ")
	if err != nil {
		return nil, false
	}
	n, err := p.Parse(s)
	if err != nil {
		return nil, false
	}
	diffs = map[string][2]string{}
	for _, style := range []Style{E164, International, National, RFC3966} {
		got, err := p.Format(n, style)
		if err != nil {
			got = "error: " + err.Error()
		}
		if want := phonenumbers.Format(num, lpnStyles[style]); got != want {
			diffs[s+"|"+style.String()] = [2]string{got, want}
		}
	}
	for _, carrier := range []string{"15", ""} {
		b, err := p.AppendNationalWithCarrier(nil, n, carrier)
		got := string(b)
		if err != nil {
			got = "error: " + err.Error()
		}
		if want := phonenumbers.FormatNationalNumberWithCarrierCode(num, carrier); got != want {
			diffs[s+"|carrier "+carrier] = [2]string{got, want}
		}
	}
	for _, r := range from {
		got, err := p.FormatFrom(n, r)
		if err != nil {
			got = "error: " + err.Error()
		}
		if want := phonenumbers.FormatOutOfCountryCallingNumber(num, r); got != want {
			diffs[s+"|from "+r] = [2]string{got, want}
		}
	}
	return diffs, true
}

// TestFormatDifferential formats every example number of every region and
// type, and the mutations of them of differentialCorpus (many of them
// parseable but not valid, which libphonenumber formats too), in every
// style and as dialled from formatFromRegions, with both Numen and
// phonenumbers: the strings must be identical.
func TestFormatDifferential(t *testing.T) {
	t.Parallel()
	p := refPlan(t)
	corpus := differentialCorpus()
	seen := map[string]bool{}
	compared, invalid := 0, 0
	var failures []string
	for _, s := range corpus {
		diffs, ok := formatDifferences(p, s, formatFromRegions)
		if !ok {
			continue
		}
		compared++
		if !p.ClassifyString(s).Valid {
			invalid++
		}
		for key, d := range diffs {
			if _, known := formatKnownDifferences[key]; known {
				seen[key] = true
				continue
			}
			failures = append(failures, fmt.Sprintf("%s: numen %q, phonenumbers %q", key, d[0], d[1]))
		}
	}
	sort.Strings(failures)
	for i, f := range failures {
		if i == 50 {
			t.Errorf("... and %d more", len(failures)-50)
			break
		}
		t.Error(f)
	}
	for key := range formatKnownDifferences {
		if !seen[key] {
			t.Errorf("%s: listed as a known difference, but Numen and phonenumbers agree", key)
		}
	}
	t.Logf("%d numbers (%d not valid) compared in %d styles, with and without a carrier and from %d regions: %d answers", compared, invalid, 4, len(formatFromRegions), compared*(4+2+len(formatFromRegions)))
	if compared < 20000 || invalid < 5000 {
		t.Fatalf("only %d numbers compared, %d of them not valid", compared, invalid)
	}
}

// TestFormatFromEveryRegion formats the example numbers as dialled from
// every region of the plan, which exercises every region's international
// prefix.
func TestFormatFromEveryRegion(t *testing.T) {
	t.Parallel()
	p := refPlan(t)
	var regions []string
	for r := range phonenumbers.GetSupportedRegions() {
		regions = append(regions, r)
	}
	sort.Strings(regions)
	n := 0
	for i, ex := range exampleNumbers() {
		if i%7 != 0 { // a seventh of the examples, from every region: 130,000 answers
			continue
		}
		diffs, ok := formatDifferences(p, ex.e164, regions)
		if !ok {
			t.Fatalf("example %s does not parse", ex.e164)
		}
		n++
		for key, d := range diffs {
			if _, known := formatKnownDifferences[key]; !known {
				t.Errorf("%s: numen %q, phonenumbers %q", key, d[0], d[1])
			}
		}
	}
	if n < 190 {
		t.Fatalf("only %d examples", n)
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, tc := range []struct {
		in    string
		style Style
		from  string
		want  string
	}{
		{"+4915123456789", International, "", "+49 1512 3456789"},
		{"+4915123456789", National, "", "01512 3456789"},
		{"+4915123456789", E164, "", "+4915123456789"},
		{"+4915123456789", RFC3966, "", "tel:+49-1512-3456789"},
		{"+4915123456789", 0, "FR", "00 49 1512 3456789"},
		{"+4915123456789", 0, "us", "011 49 1512 3456789"},
		{"+4915123456789", 0, "DE", "01512 3456789"},
		{"+12015550123", 0, "CA", "1 (201) 555-0123"},
		{"+12015550123", National, "", "(201) 555-0123"},
		{"+12015550123", International, "", "+1 201-555-0123"},
		{"+390612345678", National, "", "06 1234 5678"}, // Italy: the leading zero is part of the number
		{"+390612345678", 0, "GB", "00 39 06 1234 5678"},
		{"+79123456789", 0, "KZ", "8 (912) 345-67-89"}, // one calling code: national format
		{"+4930123", International, "", "+49 30 123"},  // too short to be valid, formatted all the same
		{"+49123", National, "", "123"},                // no format fits: the national number
		{"+882 1234", International, "", "+882 1234"},
	} {
		n, err := p.Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if tc.from != "" {
			got, err = p.FormatFrom(n, tc.from)
		} else {
			got, err = p.Format(n, tc.style)
		}
		if err != nil || got != tc.want {
			t.Errorf("%s %v from %q: %q, %v; want %q", tc.in, tc.style, tc.from, got, err, tc.want)
		}
	}
}

func TestFormatErrors(t *testing.T) {
	t.Parallel()
	p := plan(t)
	n, err := p.Parse("+4915123456789")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.FormatFrom(n, "XX")
	if !errors.Is(err, ErrUnknownRegion) || !strings.Contains(err.Error(), `"XX"`) {
		t.Errorf("FormatFrom XX: %v", err)
	}
	if _, err = p.FormatFrom(n, "001"); !errors.Is(err, ErrUnknownRegion) {
		t.Errorf("FormatFrom 001: %v", err)
	}
	if _, err = p.Format(n, Style(9)); err == nil || !strings.Contains(err.Error(), "Style(9)") {
		t.Errorf("Format Style(9): %v", err)
	}
	if s, err := p.Format(Number{}, International); s != "" || err != nil {
		t.Errorf("zero Number: %q, %v", s, err)
	}

	// A plan without the formats section reads numbers and writes E.164,
	// and says why it writes nothing else.
	stripped, err := compile.Strip(p.file, compile.Formats)
	if err != nil {
		t.Fatal(err)
	}
	bare, err := OpenBytes(stripped)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := bare.Format(n, E164); got != "+4915123456789" || err != nil {
		t.Errorf("E164 without formats: %q, %v", got, err)
	}
	for _, style := range []Style{International, National, RFC3966} {
		if _, err := bare.Format(n, style); !errors.Is(err, ErrNoFormats) {
			t.Errorf("%v without formats: %v", style, err)
		}
	}
	if _, err := bare.FormatFrom(n, "FR"); !errors.Is(err, ErrNoFormats) {
		t.Errorf("FormatFrom without formats: %v", err)
	}
	if !bare.ClassifyString("+4915123456789").Valid {
		t.Error("a plan without formats classifies no more")
	}
	// ... and takes them back as a pack.
	pack, err := compile.Pack(p.file, compile.Formats)
	if err != nil {
		t.Fatal(err)
	}
	full, err := OpenBytes(stripped, WithPack(pack))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := full.Format(n, National); got != "01512 3456789" || err != nil {
		t.Errorf("National with the formats pack: %q, %v", got, err)
	}
}

func TestAppendNationalWithCarrier(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, tc := range []struct{ in, carrier, want string }{
		{"+551133334444", "15", "0 15 (11) 3333-4444"},
		{"+551133334444", "", "(11) 3333-4444"},
		{"+4915123456789", "15", "01512 3456789"}, // no carrier rule in Germany
	} {
		n, err := p.Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.AppendNationalWithCarrier(nil, n, tc.carrier)
		num, _ := phonenumbers.Parse(tc.in, "ZZ")
		want := phonenumbers.FormatNationalNumberWithCarrierCode(num, tc.carrier)
		if err != nil || string(got) != tc.want || want != tc.want {
			t.Errorf("%s carrier %q: %q, %v; want %q (phonenumbers %q)", tc.in, tc.carrier, got, err, tc.want, want)
		}
	}
}

// FuzzFormat formats arbitrary input that both Numen and phonenumbers read
// as the same number, in every style and as dialled from a region picked
// by the second argument, and compares the two.
func FuzzFormat(f *testing.F) {
	for i, s := range []string{
		"+49 151 23456789", "+44 20 7946 0000", "+1 650 253 0000", "+39 06 1234 5678", "+39 312 345 6789",
		"+54 9 11 2345 6789", "+55 11 3333 4444", "+7 912 345 67 89", "+7 727 258 12 34", "+800 1234 5678",
		"+49 123", "+86 138 0013 8000", "+61 4 1234 5678", "+52 1 55 1234 5678", "+998 90 123 45 67",
		"+375 29 123 45 67", "+57 601 234 5678", "+82 2 123 4567", "+972 3 123 4567", "+27 82 123 4567",
		"+234 803 123 4567", "+65 6123 4567", "+852 2123 4567", "+91 98765 43210", "+81 3 1234 5678",
		"+1-800-FLOWERS", "+882 1234", "+979 123456789", "+44 (0)20 7946 0000", "+3906", "",
	} {
		f.Add(s, uint8(i*7))
	}
	p := refPlan(f)
	f.Fuzz(func(t *testing.T, s string, pick uint8) {
		num, err := phonenumbers.Parse(s, "ZZ")
		if err != nil {
			return
		}
		n, err := p.Parse(s)
		if err != nil || n.String() != phonenumbers.Format(num, phonenumbers.E164) {
			return // read differently: the classification tests compare parsing
		}
		from := formatFromRegions[int(pick)%len(formatFromRegions)]
		diffs, _ := formatDifferences(p, s, []string{from})
		for key, d := range diffs {
			if _, known := formatKnownDifferences[key]; !known {
				t.Errorf("%s: numen %q, phonenumbers %q", key, d[0], d[1])
			}
		}
	})
}

// TestFormatLeadingDigitVariants changes each of the first six national
// digits of every example number to every other digit: numbers that pass
// one format's leading digits and fail its pattern, or pass into another
// format, valid or not. Both libraries must write them alike.
func TestFormatLeadingDigitVariants(t *testing.T) {
	t.Parallel()
	p := refPlan(t)
	seen := map[string]bool{}
	compared := 0
	for _, ex := range exampleNumbers() {
		cc, nsn, ok := p.SplitCallingCode(ex.e164[1:])
		if !ok {
			t.Fatalf("example %s: no calling code", ex.e164)
		}
		for i := 0; i < 6 && i < len(nsn); i++ {
			for d := byte('0'); d <= '9'; d++ {
				v := []byte(nsn)
				v[i] = d
				s := fmt.Sprintf("+%d%s", cc, v)
				if seen[s] {
					continue
				}
				seen[s] = true
				num, err := phonenumbers.Parse(s, "ZZ")
				if err != nil {
					continue
				}
				n, err := p.Parse(s)
				if err != nil || n.String() != phonenumbers.Format(num, phonenumbers.E164) {
					continue
				}
				compared++
				for _, style := range []Style{International, National} {
					got, err := p.Format(n, style)
					if want := phonenumbers.Format(num, lpnStyles[style]); got != want || err != nil {
						t.Errorf("%s %v: numen %q, %v; phonenumbers %q", s, style, got, err, want)
					}
				}
			}
		}
	}
	if compared < 50000 {
		t.Fatalf("only %d numbers compared", compared)
	}
	t.Logf("%d numbers compared", compared)
}

// TestMatchLayout checks the layout matcher on a layout written by hand,
// "(\d{3})([2-9]\d{2,3})(\d{4})": lengths, digit sets and where the groups
// fall. (No format of today's metadata has a digit set its leading digits
// do not already imply, so the differential tests cannot show the sets.)
func TestMatchLayout(t *testing.T) {
	t.Parallel()
	all := uint16(0x3FF)
	layout := []byte{4, 3, 8, 2, // atoms, groups, fixed digits, variable atom
		byte(all), byte(all >> 8), 3, 3,
		0xFC, 0x03, 1, 1, // [2-9]
		byte(all), byte(all >> 8), 2, 3,
		byte(all), byte(all >> 8), 4, 4,
		0, 1, 1, 2, 3, 1,
	}
	if msg := checkLayout(layout[4:], 4, 3, 8, 2); msg != "" {
		t.Fatal(msg)
	}
	for in, want := range map[string]string{
		"2015550123":   "201|555|0123",
		"20155501234":  "201|5550|1234",
		"2011550123":   "", // [2-9] refuses 1
		"201555012":    "", // too short
		"201555012345": "", // too long
	} {
		var bounds [planfmt.MaxAtoms + 1]uint8
		got := ""
		if matchLayout(layout, []byte(in), &bounds) {
			got = in[bounds[0]:bounds[1]] + "|" + in[bounds[1]:bounds[3]] + "|" + in[bounds[3]:bounds[4]]
		}
		if got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
	for _, bad := range []struct {
		body                           []byte
		atoms, groups, fixed, variable int
	}{
		{layout[4:], 4, 3, 9, 2},  // fixed digits do not add up
		{layout[4:], 4, 3, 8, 1},  // a variable atom of fixed length, a fixed one of variable length
		{layout[4:], 4, 10, 8, 2}, // too many groups
		{append(append([]byte{}, layout[4:20]...), 0, 1, 3, 2, 3, 1), 4, 3, 8, 2}, // a group beyond the atoms
	} {
		if msg := checkLayout(bad.body, bad.atoms, bad.groups, bad.fixed, bad.variable); msg == "" {
			t.Errorf("checkLayout(%v, %d, %d, %d, %d) accepts it", bad.body, bad.atoms, bad.groups, bad.fixed, bad.variable)
		}
	}
}

// FuzzFormatsSection writes the fuzzer's bytes over a part of the small
// plan's formats section and reseals the file, so that the damage reaches
// the section's structural checks: the plan must refuse it, or format
// numbers without panicking.
func FuzzFormatsSection(f *testing.F) {
	small := smallPlan(f)
	at, n := sectionOf(f, small, planfmt.SecFormats)
	f.Add(uint16(0), []byte{0xFF, 0xFF})
	f.Add(uint16(planfmt.FmtHeaderSize), []byte{0x30, 0, 0x40, 0})
	f.Add(uint16(n/2), []byte{9, 9, 9, 9, 9, 9, 9, 9})
	f.Add(uint16(n-8), []byte{0x81, 0x82, 0x89, 0xFF})
	f.Fuzz(func(t *testing.T, off uint16, patch []byte) {
		b := bytes.Clone(small)
		copy(b[at+int(off)%n:at+n], patch)
		reseal(b, true)
		p, err := OpenBytes(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		for _, s := range []string{"+49 151 23456789", "+49 30 1234567", "+49 1", "+54 9 11 2345 6789", "+54 11 2345 6789", "+800 1234 5678"} {
			num, err := p.Parse(s)
			if err != nil {
				continue
			}
			for _, style := range []Style{International, National, RFC3966} {
				_, _ = p.AppendFormat(nil, num, style)
			}
			_, _ = p.AppendFormatFrom(nil, num, "AR")
			_, _ = p.AppendNationalWithCarrier(nil, num, "15")
		}
	})
}
