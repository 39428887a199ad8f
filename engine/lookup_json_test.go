package engine

import (
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/routing"
	"github.com/stretchr/testify/require"
)

// TestLookupJSON: a lookup's Answer carries json.Marshal of its result,
// the very bytes the sink receives in Record.JSON (encoded once), for
// fresh, cached and rejected results; and without a sink a lookup encodes
// only when the request asks (Request.Encode).
func TestLookupJSON(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *Options) { o.Cache = CacheOptions{HLR: time.Hour, MNP: time.Hour} })
	ctx := t.Context()
	check := func(name string, result apiv2.Result, body []byte, err error) {
		t.Helper()
		require.NoError(t, err, name)
		want, err := json.Marshal(result)
		require.NoError(t, err)
		require.Equal(t, string(want), string(body), name)
		last := f.records[len(f.records)-1]
		require.Same(t, result, last.Result, name)
		require.Equal(t, Product(result.Product()), last.Product(), name)
		require.Equal(t, &body[0], &last.JSON[0], "%s: the sink's bytes are the answer's, not a second encoding", name)
	}
	for i := range 2 { // the second HLR and MNP answers come from the cache
		hlr, err := f.eng.HLRLookup(ctx, f.acct, Request{Number: "+4915123456789"})
		check("HLR", hlr.Result, hlr.JSON, err)
		require.Equal(t, i == 1, hlr.Result.Cached)
		mnp, err := f.eng.MNPLookup(ctx, f.acct, Request{Number: "+4915123456789"})
		check("MNP", mnp.Result, mnp.JSON, err)
		require.Equal(t, i == 1, mnp.Result.Cached)
	}
	hlr, err := f.eng.HLRLookup(ctx, f.acct, Request{Number: "+49301234567"})
	check("HLR rejected", hlr.Result, hlr.JSON, err)
	nt, err := f.eng.NTLookup(ctx, f.acct, Request{Number: "+44 20 7946 0000"})
	check("NT", nt.Result, nt.JSON, err)

	_, err = f.eng.NTLookup(ctx, f.acct, Request{})
	require.ErrorContains(t, err, "number: is required")

	unsunk := f.eng.WithSink(nil)
	nt, err = unsunk.NTLookup(ctx, f.acct, Request{Number: "+44 20 7946 0000"})
	require.NoError(t, err)
	require.Nil(t, nt.JSON, "not asked for, and no sink")
	nt, err = unsunk.NTLookup(ctx, f.acct, Request{Number: "+44 20 7946 0000", Encode: true})
	require.NoError(t, err)
	want, err := json.Marshal(nt.Result)
	require.NoError(t, err)
	require.Equal(t, string(want), string(nt.JSON), "encoded without a sink when asked")
}

// The engine's storageName, which keeps the month's default names, names
// every report as StorageName does, across months (also going back).
func TestStorageNameOfTheMonth(t *testing.T) {
	t.Parallel()
	e := Engine{months: new(atomic.Pointer[monthReports])}
	for _, ts := range []string{"2026-11-30T23:59:59Z", "2026-12-01T00:00:00Z", "2026-11-15T12:00:00+05:00", "2027-01-01T00:30:00+01:00", "2026-12-31T23:59:59Z"} {
		now, err := time.Parse(time.RFC3339, ts)
		require.NoError(t, err)
		for _, storage := range []string{"", "CAMPAIGN"} {
			for _, p := range []routing.Product{routing.HLR, routing.MNP, routing.NT, "OTHER"} {
				for _, async := range []bool{false, true} {
					require.Equal(t, StorageName(storage, p, async, now), e.storageName(storage, p, async, now), "%s %q %s async=%v", ts, storage, p, async)
				}
			}
		}
	}
}
