package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/mnp/remote"
)

// TestServeEnumSupplier runs two sidecars: A serves ENUM from a
// portability database, and B's MNP route asks A over ENUM first, the
// simulator next. B's lookups answer A's data; once A stops, they fail
// over to the simulator, and the routing instruction of an HLR lookup on
// the MNP route says so.
func TestServeEnumSupplier(t *testing.T) {
	t.Parallel()
	db := writePortDB(t, "+4915123456789,26203,O2\n+4917612345678,26202,Vodafone\n")
	a := startServer(t, &serveConfig{Enum: &enumConfig{
		Listen: "127.0.0.1:0", Portdb: db, RN: map[string]string{"26203": "D262"},
	}}, true)
	m := enumLine.FindStringSubmatch(a.stdout.String())
	require.NotNil(t, m, a.stdout.String())
	aENUM := m[1]

	simnet := []backendConfig{{Type: "simnet"}}
	const secret = "supplier-secret-0123456789"
	b := startServer(t, &serveConfig{
		Cache: &cacheConfig{MNP: duration(time.Hour)},
		Routes: []routeConfig{
			{Route: "DS7", Backends: simnet}, {Route: "GT1", Backends: simnet}, {Route: "GT2", Backends: simnet},
			{Route: "MP1", Backends: []backendConfig{
				{Type: "enum", Name: "numen A", Servers: []string{aENUM}, Timeout: duration(2 * time.Second)},
				{Type: "simnet", Name: "simulator"},
			}},
		},
		Accounts: []accountConfig{{Key: "b", Secrets: []string{secret}}},
	}, false)
	c, err := remote.New(b.base, "b", secret)
	require.NoError(t, err)
	ctx := t.Context()
	mnpLookup := func(number string) *apiv2.MNPResult {
		t.Helper()
		res, err := c.MNPLookup(ctx, number, &remote.LookupOptions{Route: "MP1"})
		require.NoError(t, err)
		require.Equal(t, "COMPLETED", res.ProcessingStatus, number)
		require.Equal(t, "MP1", apiv2.Deref(res.Route))
		return res
	}

	// A's data through B: ported (+4915123456789 is a T-Mobile number,
	// 26201, moved to O2) and not ported.
	res := mnpLookup("+4915123456789")
	require.Equal(t, "26203", apiv2.Deref(res.MCCMNC))
	require.True(t, *res.IsPorted)
	require.Equal(t, "O2", apiv2.Deref(res.PortedNetworkName))
	res = mnpLookup("+4915123456780")
	require.Equal(t, "26201", apiv2.Deref(res.MCCMNC))
	require.False(t, *res.IsPorted)
	hlr, err := c.HLRLookup(ctx, "+4917612345678", &remote.LookupOptions{Route: "MP1"})
	require.NoError(t, err)
	require.Equal(t, "STATIC:MP1", hlr.RoutingInstruction, "A answered, no failover")
	require.Equal(t, "MNP_DB", hlr.DataSource)
	require.Equal(t, "26202", apiv2.Deref(hlr.MCCMNC))
	require.True(t, *hlr.IsPorted)

	// A stops: B's next backend, the simulator, answers numbers B has
	// not cached (mnpLookup checks COMPLETED: without a backend left it
	// would be REJECTED).
	require.NoError(t, a.stop())
	mnpLookup("+4917612345670")
	hlr, err = c.HLRLookup(ctx, "+4915123456781", &remote.LookupOptions{Route: "MP1"})
	require.NoError(t, err)
	require.Equal(t, "COMPLETED", hlr.ProcessingStatus)
	require.Equal(t, "STATIC:MP1:FAILOVER-2", hlr.RoutingInstruction)
	// What B cached from A stays.
	res = mnpLookup("+4915123456789")
	require.Equal(t, "26203", apiv2.Deref(res.MCCMNC))
	require.True(t, res.Cached)
}
