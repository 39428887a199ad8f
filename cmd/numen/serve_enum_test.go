package main

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/mnp/enum/enumtest"
	"github.com/numenhq/numen/mnp/remote"
)

// TestServeENUM answers an MNP route from Knot DNS through an enum
// backend whose first server is down, with the simulator behind it.
func TestServeENUM(t *testing.T) {
	t.Parallel()
	zone := enumtest.SOA("e164.arpa.") +
		enumtest.NAPTRName("+4915112345678", "e164.arpa.") + ` NAPTR 100 10 "u" "E2U+pstn:tel" "!^.*$!tel:+4915112345678;npdi;rn=D262;rn-context=+49!" .` + "\n" +
		enumtest.NAPTRName("+4915112345679", "e164.arpa.") + ` NAPTR 100 10 "u" "E2U+pstn:tel" "!^.*$!tel:+4915112345679;npdi!" .` + "\n" +
		enumtest.NAPTRName("+4915112345670", "e164.arpa.") + ` NAPTR 100 10 "u" "E2U+pstn:tel" "!^.*$!tel:+4915112345670;npdi;rn=D999!" .` + "\n"
	k := enumtest.StartKnot(t, enumtest.Zone{Origin: "e164.arpa.", Text: zone})
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	down := pc.LocalAddr().String()
	require.NoError(t, pc.Close()) // nothing answers there any more

	simnet := []backendConfig{{Type: "simnet"}}
	const secret = "enum-secret-0123456789"
	cfg := &serveConfig{
		Cache: &cacheConfig{MNP: duration(3600e9)},
		Routes: []routeConfig{
			{Route: "DS7", Backends: simnet}, {Route: "GT1", Backends: simnet}, {Route: "GT2", Backends: simnet},
			{Route: "MP1", Backends: []backendConfig{
				{Type: "enum", Servers: []string{down, k.Addr()}, RoutingNumbers: map[string]string{"D262": "26203"}},
				{Type: "simnet", Name: "simulator"},
			}},
		},
		Accounts: []accountConfig{{Key: "enum", Secrets: []string{secret}}},
	}
	c, err := remote.New(startServer(t, cfg, false).base, "enum", secret)
	require.NoError(t, err)
	mnpLookup := func(number string) *apiv2.MNPResult {
		t.Helper()
		res, err := c.MNPLookup(t.Context(), number, &remote.LookupOptions{Route: "MP1"})
		require.NoError(t, err)
		require.Equal(t, "COMPLETED", res.ProcessingStatus, number)
		return res
	}
	res := mnpLookup("+4915112345678")
	require.Equal(t, "26203", apiv2.Deref(res.MCCMNC))
	require.True(t, *res.IsPorted)
	require.Equal(t, "MP1", apiv2.Deref(res.Route))
	res = mnpLookup("+4915112345679")
	require.Equal(t, "26201", apiv2.Deref(res.MCCMNC))
	require.False(t, *res.IsPorted)
	// An rn the table does not know: the route's next backend, the
	// simulator, answers (mnpLookup checks that it is COMPLETED: without
	// a backend left, it would be REJECTED).
	mnpLookup("+4915112345670")
}
