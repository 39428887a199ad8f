package numbering

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNetwork(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, tc := range []struct {
		mccmnc, region, name string
		regions              []string
	}{
		{"26201", "DE", "Telekom", []string{"DE"}},
		{"23430", "GB", "EE", []string{"GB"}},
		{"50501", "AU", "Telstra", []string{"AU", "CC", "CX"}},
		{"310260", "US", "T-Mobile", nil},
		{"72406", "BR", "Vivo", []string{"BR"}},
	} {
		nw, ok := p.Network(tc.mccmnc)
		require.True(t, ok, tc.mccmnc)
		require.Equal(t, tc.region, nw.Region, tc.mccmnc)
		require.Equal(t, tc.name, nw.Name(), tc.mccmnc)
		require.Equal(t, tc.mccmnc[:3], nw.MCC())
		require.Equal(t, tc.mccmnc[3:], nw.MNC())
		if tc.regions != nil {
			require.Equal(t, tc.regions, nw.Regions, tc.mccmnc)
		}
	}
	for _, missing := range []string{"", "26299", "99999", "2620", "abcde"} {
		_, ok := p.Network(missing)
		require.False(t, ok, missing)
	}
}

func TestNetworksOfRegion(t *testing.T) {
	t.Parallel()
	p := plan(t)
	de := p.Networks("DE")
	require.NotEmpty(t, de)
	codes := map[string]bool{}
	for i, nw := range de {
		require.True(t, nw.Operational, nw.MCCMNC)
		require.Contains(t, nw.Regions, "DE")
		if i > 0 {
			require.Less(t, de[i-1].MCCMNC, nw.MCCMNC)
		}
		codes[nw.MCCMNC] = true
	}
	for _, want := range []string{"26201", "26202", "26203"} {
		require.True(t, codes[want], want)
	}
	require.NotEmpty(t, p.Networks("CX"), "networks the list gives for AU/CC/CX")
	require.Empty(t, p.Networks("XX"))
}

func TestRegionOfMCCAndCountry(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for mcc, region := range map[string]string{"262": "DE", "234": "GB", "310": "US", "505": "AU", "250": "RU", "999": ""} {
		require.Equal(t, region, p.RegionOfMCC(mcc), mcc)
	}
	c, ok := p.Country("DE")
	require.True(t, ok)
	require.Equal(t, Country{Code: "DE", Name: "Germany", Prefix: "+49"}, c)
	c, ok = p.Country("CX")
	require.True(t, ok)
	require.Equal(t, "+61", c.Prefix)
	_, ok = p.Country("XX")
	require.False(t, ok)
	_, ok = p.Country("001")
	require.False(t, ok, "non-geographic services are not countries")
}

// carrierRanges reads the shipped carrier table (prefix -> network name)
// and MCCMNC table (prefix -> MCCMNC) as the generator wrote them.
func carrierRanges(t *testing.T) (names, codes map[string]string) {
	t.Helper()
	read := func(name string) map[string]string {
		raw := readGenerated(t, name)
		out := map[string]string{}
		for _, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
			prefix, value, ok := strings.Cut(line, "\t")
			require.True(t, ok, "%s: %q", name, line)
			out[prefix] = value
		}
		return out
	}
	return read("carrier_en.tsv.gz"), read("mccmnc.tsv.gz")
}

// numberInRange finds a valid number whose longest carrier range is prefix
// and whose type has an original network (mobile, mobile or landline,
// pager): a bounded depth-first walk of the region automata of the prefix's
// calling code that stays out of the longer ranges inside prefix. ok is
// false when the plan has no such number within the walk's budget.
func numberInRange(p *Plan, prefix string, isRange map[string]string) (res Result, ok bool) {
	cc, national, found := p.SplitCallingCode(prefix)
	if !found {
		return Result{}, false
	}
	ccLen := len(prefix) - len(national)
	var buf [maxDigits]byte
	copy(buf[:], prefix)
	var budget int
	var walk func(r *region, s, n int) bool
	walk = func(r *region, s, n int) bool {
		if budget--; budget < 0 {
			return false
		}
		if n > len(prefix) && isRange[string(buf[:n])] != "" {
			return false // a longer range: not this one's number
		}
		if r.typeOfMask(r.automata().types.acceptOf(s), n-ccLen) != typeNone {
			num := Number{n: uint8(n), ccLen: uint8(ccLen)}
			copy(num.digits[:], buf[:n])
			if res = p.Classify(num); res.Valid && (res.Type.IsMobile() || res.Type == Pager) {
				return true
			}
		}
		if n-ccLen >= maxNationalDigits {
			return false
		}
		for d := range 10 {
			if next := r.automata().types.step(s, d); next >= 0 {
				buf[n] = byte('0' + d)
				if walk(r, next, n+1) {
					return true
				}
			}
		}
		return false
	}
	for _, i := range p.codes[p.byCC[cc]].regions {
		r := &p.regions[i]
		s := 0
		for j := 0; j < len(national) && s >= 0; j++ {
			s = r.automata().types.step(s, int(national[j]-'0'))
		}
		budget = 4000
		if s >= 0 && walk(r, s, len(prefix)) {
			return res, true
		}
	}
	return Result{}, false
}

// TestMCCMNCBelongsToTheRangesNetwork checks a property of the whole
// shipped table: a number of any carrier range answers that range's network
// name, and an MCCMNC that the generator assigned to that same name (within
// the calling code) or none, never the code of a shorter range of another
// operator.
func TestMCCMNCBelongsToTheRangesNetwork(t *testing.T) {
	t.Parallel()
	p := plan(t)
	names, codes := carrierRanges(t)
	assigned := map[[2]string]map[string]bool{} // (calling code, name) -> MCCMNCs
	key := func(prefix string) [2]string {
		cc, _, _ := p.SplitCallingCode(prefix)
		return [2]string{fmt.Sprint(cc), names[prefix]}
	}
	for prefix, code := range codes {
		if _, ok := names[prefix]; !ok {
			t.Fatalf("MCCMNC table prefix %s is not a carrier range", prefix)
		}
		k := key(prefix)
		if assigned[k] == nil {
			assigned[k] = map[string]bool{}
		}
		assigned[k][code] = true
	}
	prefixes := slices.Sorted(maps.Keys(names))
	checked, withCode, none := 0, 0, 0
	var bad []string
	for _, prefix := range prefixes {
		res, ok := numberInRange(p, prefix, names)
		if !ok {
			none++
			continue
		}
		checked++
		name := names[prefix]
		switch {
		case res.Network != name:
			bad = append(bad, fmt.Sprintf("%v (range %s %q): network %q", res.Number, prefix, name, res.Network))
		case res.MCCMNC == "":
		case !assigned[key(prefix)][res.MCCMNC]:
			bad = append(bad, fmt.Sprintf("%v (range %s %q): MCCMNC %s is not one of %q's", res.Number, prefix, name, res.MCCMNC, name))
		default:
			withCode++
			require.Equal(t, res.MCCMNC[:3], res.MCC())
			require.Equal(t, res.MCCMNC[3:], res.MNC())
		}
	}
	t.Logf("%d ranges checked (%d answer an MCCMNC); %d have no valid mobile or pager number", checked, withCode, none)
	if len(bad) > 0 {
		t.Fatalf("%d ranges answer another network's name or code, such as:\n%s", len(bad), strings.Join(bad[:min(len(bad), 20)], "\n"))
	}
	// Most ranges hold valid mobile numbers: a walk that finds few would
	// make this test vacuous.
	require.Greater(t, checked, len(names)*9/10)
}

// TestNamedRangeWithoutCode: a range whose operator has no resolved MCCMNC
// answers its name with null mccmnc, mcc and mnc, not the code of the
// enclosing range of another operator (MTN Uganda's 64110, Docomo's 44010).
func TestNamedRangeWithoutCode(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for in, network := range map[string]string{
		"+256 724 012345":  "Hamilton Telecom",
		"+81 70 4512 3456": "KDDI",
	} {
		res := p.ClassifyString(in)
		require.True(t, res.Valid, in)
		require.Equal(t, network, res.Network, in)
		require.Empty(t, res.MCCMNC, in)
		require.Empty(t, res.MCC(), in)
		require.Empty(t, res.MNC(), in)
		js := string(res.AppendJSON(nil))
		require.Contains(t, js, `"mccmnc":null,"mcc":null,"mnc":null,"original_network_name":"`+network+`"`, in)
	}
}

// Dutch T-Mobile's ranges answer T-Mobile Netherlands' own code, 204-16;
// 204-20 was Orange Netherlands' (data/README.md, Cross-check; the source
// is mobile-broadband-provider-info, which lists T-Mobile NL under 204-16).
func TestDutchTMobile(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, n := range []string{"+31 6 41 123456", "+31 6 14 123456"} {
		res := p.ClassifyString(n)
		require.True(t, res.Valid, n)
		require.Equal(t, "T-Mobile", res.Network, n)
		require.Equal(t, "20416", res.MCCMNC, n)
	}
}

// Carriers the MCC-MNC list does not name as libphonenumber does, resolved
// by the code mobile-broadband-provider-info gives them (data/README.md,
// Cross-check); the list has each code operational in the country.
func TestSecondSourceNetworks(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for in, want := range map[string][2]string{
		"+966 50 123 4567":  {"STC", "42001"},      // the list's brand: "Al Jawal (STC )"
		"+389 70 123 456":   {"T-Mobile", "29401"}, // now Makedonski Telekom
		"+375 44 123 45 67": {"Velcom", "25701"},   // now A1 Belarus
		"+66 81 812 3456":   {"AIS", "52001"},      // Advanced Info Service
		"+965 5000 1234":    {"VIVA", "41904"},     // now stc Kuwait
		"+855 12 345 678":   {"Cellcard", "45601"}, // CamGSM
	} {
		res := p.ClassifyString(in)
		require.True(t, res.Valid, in)
		require.Equal(t, want[0], res.Network, in)
		require.Equal(t, want[1], res.MCCMNC, in)
	}
}
