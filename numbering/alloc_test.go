package numbering

import (
	"strings"
	"testing"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// TestClassifyDoesNotAllocate proves the hot path allocation-free: parsing
// and classifying numbers of many countries and types, valid and invalid.
// National-prefix rules (Argentina's, "+44 (0)20 ...") included.
func TestClassifyDoesNotAllocate(t *testing.T) {
	p := plan(t)
	inputs := []string{
		"+49 151 23456789", "+44 20 7946 0000", "+1 650 253 0000", "+1-800-FLOWERS",
		"+33 6 12 34 56 78", "+91 98765 43210", "+234 803 123 4567", "+86 138 0013 8000",
		"+7 495 123 45 67", "+39 06 1234 5678", "+800 1234 5678", "+49 1", "+999 123",
		"hello", "", "+1 023 456 7890", "00447400123456", "4915123456789",
		"+54 9 11 2345 6789", "+44 (0)20 7946 0000", "+7 8 495 123 45 67", "+262 269 61 23 45",
	}
	for _, in := range inputs {
		var res Result
		allocs := testing.AllocsPerRun(100, func() { res = p.ClassifyString(in) })
		if allocs != 0 {
			t.Errorf("ClassifyString(%q) allocates %.1f times", in, allocs)
		}
		if allocs := testing.AllocsPerRun(100, func() { p.Validate(in) }); allocs != 0 {
			t.Errorf("Validate(%q) allocates %.1f times", in, allocs)
		}
		if !res.Number.IsZero() {
			if allocs := testing.AllocsPerRun(100, func() { res = p.Classify(res.Number) }); allocs != 0 {
				t.Errorf("Classify(%v) allocates %.1f times", res.Number, allocs)
			}
		}
	}
	res := p.ClassifyString("+49 151 23456789")
	buf := make([]byte, 0, 1024)
	if allocs := testing.AllocsPerRun(100, func() { buf = res.AppendJSON(buf[:0]) }); allocs != 0 {
		t.Errorf("AppendJSON allocates %.1f times", allocs)
	}
}

// TestRangeLookupDoesNotAllocate proves the original-network index
// allocation-free on its own, for numbers with and without a known network.
func TestRangeLookupDoesNotAllocate(t *testing.T) {
	p := plan(t)
	for in, want := range map[string]string{
		"4915112345678": "26201", "447400123456": "23420", "12025550123": "", "99912345": "",
	} {
		var got string
		allocs := testing.AllocsPerRun(100, func() {
			got = ""
			if v := p.ranges.lookup(planfmt.Key(in)); v >= 0 {
				got = p.rangeNetwork(v).mccmnc
			}
		})
		if allocs != 0 {
			t.Errorf("range lookup of %s allocates %.1f times", in, allocs)
		}
		if got != want {
			t.Errorf("MCCMNC of %s: %q, want %q", in, got, want)
		}
	}
}

// TestFormatDoesNotAllocate proves formatting allocation-free in every
// style and as dialled from other regions, for numbers of many countries,
// valid and not, into a buffer with room.
func TestFormatDoesNotAllocate(t *testing.T) {
	p := plan(t)
	buf := make([]byte, 0, 128)
	for _, in := range []string{
		"+49 151 23456789", "+44 20 7946 0000", "+1 650 253 0000", "+39 06 1234 5678",
		"+54 9 11 2345 6789", "+55 11 3333 4444", "+7 912 345 67 89", "+800 1234 5678",
		"+49 123", "+86 138 0013 8000", "+61 4 1234 5678",
	} {
		n, err := p.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, style := range []Style{E164, International, National, RFC3966} {
			if allocs := testing.AllocsPerRun(100, func() { buf, _ = p.AppendFormat(buf[:0], n, style) }); allocs != 0 {
				t.Errorf("AppendFormat(%s, %v) allocates %.1f times", in, style, allocs)
			}
		}
		for _, from := range []string{"US", "DE", "FR", "KZ", "UZ", "AU", "ca"} {
			if allocs := testing.AllocsPerRun(100, func() { buf, _ = p.AppendFormatFrom(buf[:0], n, from) }); allocs != 0 {
				t.Errorf("AppendFormatFrom(%s, %s) allocates %.1f times", in, from, allocs)
			}
		}
		if allocs := testing.AllocsPerRun(100, func() { buf, _ = p.AppendNationalWithCarrier(buf[:0], n, "15") }); allocs != 0 {
			t.Errorf("AppendNationalWithCarrier(%s) allocates %.1f times", in, allocs)
		}
	}
}

// TestParseInDoesNotAllocate proves reading national input allocation-free:
// national format with and without the trunk prefix, international
// prefixes, the rules with groups and transforms (Argentina, Brazil, the
// Virgin Islands), "+" input, and input that fails.
func TestParseInDoesNotAllocate(t *testing.T) {
	p := plan(t)
	for _, in := range [][2]string{
		{"0151 23456789", "DE"}, {"151 23456789", "DE"}, {"(201) 555-0123", "US"}, {"011 44 20 7946 0000", "US"},
		{"00 33 1 23 45 67 89", "DE"}, {"011 15 2345-6789", "AR"}, {"0 21 11 98765 4321", "BR"}, {"774 1234", "VI"},
		{"1411 0011 49 30 1234567", "AU"}, {"8 10 49 30 1234567", "RU"}, {"+49 151 23456789", "us"}, {"+0049 30 1234567", "DE"},
		{"02 1234 5678", "IT"}, {"1-800-FLOWERS", "US"}, {"0", "DE"}, {"hello", "DE"}, {"0 1", "BA"}, {"", "GB"},
	} {
		s, region := in[0], in[1]
		if allocs := testing.AllocsPerRun(100, func() { _, _ = p.ClassifyIn(s, region) }); allocs != 0 {
			t.Errorf("ClassifyIn(%q, %s) allocates %.1f times", s, region, allocs)
		}
		if allocs := testing.AllocsPerRun(100, func() { _, _ = p.ValidateIn(s, region) }); allocs != 0 {
			t.Errorf("ValidateIn(%q, %s) allocates %.1f times", s, region, allocs)
		}
		if _, err := p.ParseIn(s, region); err == nil {
			if allocs := testing.AllocsPerRun(100, func() { _, _ = p.ParseIn(s, region) }); allocs != 0 {
				t.Errorf("ParseIn(%q, %s) allocates %.1f times", s, region, allocs)
			}
		}
	}
}

// TestFindDoesNotAllocate proves scanning allocation-free: a Find costs
// the iterator it returns (its closures, at most findAllocs allocations),
// and nothing per byte, per candidate or per match, at any leniency, for
// text without numbers (but with digits: prices, dates, percentages) and
// text full of numbers alike.
func TestFindDoesNotAllocate(t *testing.T) {
	const findAllocs = 3
	p := plan(t)
	prose := "The quick brown fox jumps over the lazy dog; déjà vu, naïve café — 3 dogs, 12% off, $5, 3/10/2011 at 2012-01-02 08:00. "
	withNumbers := "Call 030 1234567 or +44 20 7946 0000 (office); mobile 0151 23456789 ext. 12, fax (089) 1234-5678, 0800 123 4567. "
	for _, text := range []string{prose, withNumbers} {
		for l := LeniencyPossible; l <= LeniencyExactGrouping; l++ {
			count := func(text string) float64 {
				return testing.AllocsPerRun(20, func() {
					seq, _ := p.Find(text, "DE", l)
					for range seq {
					}
				})
			}
			short, long := count(text), count(strings.Repeat(text, 50))
			if short > findAllocs || long != short {
				t.Errorf("Find(%.20q..., %v) allocates %.1f times, %.1f for 50 times the text; want at most %d, the same", text, l, short, long, findAllocs)
			}
		}
	}
}
