package benchmarks

import (
	"maps"
	"slices"
	"testing"

	"github.com/nyaruka/phonenumbers/v2"
)

func TestCorpus(t *testing.T) {
	t.Parallel()
	corpus := Corpus()
	if len(corpus) < 10_000 {
		t.Errorf("corpus has %d numbers, want at least 10,000", len(corpus))
	}
	if again := Corpus(); !slices.Equal(corpus, again) {
		t.Error("Corpus is not deterministic: two calls differ")
	}

	// libphonenumber is the judge of validity and region here.
	byCC := make(map[int][]*phonenumbers.PhoneNumber) // valid numbers by calling code
	invalid := 0
	for _, s := range corpus {
		n, err := phonenumbers.Parse(PlusForm(s), "ZZ")
		if err != nil || !phonenumbers.IsValidNumber(n) {
			invalid++
			continue
		}
		cc := int(n.GetCountryCode())
		byCC[cc] = append(byCC[cc], n)
	}
	// Regions that share a calling code with their main region (EH with MA,
	// MF with GP) may have no number that GetRegionCodeForNumber attributes
	// to them, so ask whether a number is valid for the region instead.
	for _, r := range slices.Sorted(maps.Keys(phonenumbers.GetSupportedRegions())) {
		if !slices.ContainsFunc(byCC[phonenumbers.GetCountryCodeForRegion(r)], func(n *phonenumbers.PhoneNumber) bool {
			return phonenumbers.IsValidNumberForRegion(n, r)
		}) {
			t.Errorf("no valid number of region %s in the corpus", r)
		}
	}
	for _, cc := range slices.Sorted(maps.Keys(phonenumbers.GetSupportedGlobalNetworkCallingCodes())) {
		if len(byCC[cc]) == 0 {
			t.Errorf("no valid number of non-geographic calling code +%d in the corpus", cc)
		}
	}

	// README.md describes the corpus as 10-20% invalid.
	share := float64(invalid) / float64(len(corpus))
	t.Logf("%d numbers, %d invalid (%.1f%%)", len(corpus), invalid, 100*share)
	if invalid == 0 || share < 0.10 || share > 0.20 {
		t.Errorf("%d of %d numbers invalid (%.1f%%), want 10-20%%", invalid, len(corpus), 100*share)
	}
}

func TestPlusForm(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"0049 30 123456", "+49 30 123456"},
		{" 00441234", "+441234"},
		{"+4930123456", "+4930123456"},
		{"0301234", "0301234"},
		{"", ""},
	} {
		if got := PlusForm(tc.in); got != tc.want {
			t.Errorf("PlusForm(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
