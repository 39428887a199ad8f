package numbering

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNetwork(t *testing.T) {
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
