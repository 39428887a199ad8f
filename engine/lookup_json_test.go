package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLookupJSON: the *JSON methods return json.Marshal of their result,
// the very bytes the sink receives in Record.JSON (encoded once), for
// fresh, cached and rejected results; the other methods give the sink the
// JSON too; and without a sink the *JSON methods still encode.
func TestLookupJSON(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.Cache = CacheOptions{HLR: time.Hour, MNP: time.Hour} })
	ctx := context.Background()
	check := func(name string, result any, body []byte, err error) {
		t.Helper()
		require.NoError(t, err, name)
		want, err := json.Marshal(result)
		require.NoError(t, err)
		require.Equal(t, string(want), string(body), name)
		last := f.records[len(f.records)-1]
		require.Same(t, result, last.Result, name)
		require.Equal(t, &body[0], &last.JSON[0], "%s: the sink's bytes are the answer's, not a second encoding", name)
	}
	for i := range 2 { // the second HLR and MNP answers come from the cache
		res, body, err := f.eng.HLRLookupJSON(ctx, f.acct, Request{Number: "+4915123456789"})
		check("HLR", res, body, err)
		require.Equal(t, i == 1, res.Cached)
		mres, body, err := f.eng.MNPLookupJSON(ctx, f.acct, Request{Number: "+4915123456789"})
		check("MNP", mres, body, err)
		require.Equal(t, i == 1, mres.Cached)
	}
	res, body, err := f.eng.HLRLookupJSON(ctx, f.acct, Request{Number: "+49301234567"})
	check("HLR rejected", res, body, err)
	nres, body, err := f.eng.NTLookupJSON(ctx, f.acct, Request{Number: "+44 20 7946 0000"})
	check("NT", nres, body, err)

	plain, err := f.eng.NTLookup(ctx, f.acct, Request{Number: "+44 20 7946 0000"})
	require.NoError(t, err)
	want, err := json.Marshal(plain)
	require.NoError(t, err)
	require.Equal(t, string(want), string(f.records[len(f.records)-1].JSON), "records of NTLookup carry the JSON too")

	_, _, err = f.eng.NTLookupJSON(ctx, f.acct, Request{})
	require.ErrorContains(t, err, "number: is required")

	unsunk := f.eng.WithSink(nil)
	nres, body, err = unsunk.NTLookupJSON(ctx, f.acct, Request{Number: "+44 20 7946 0000"})
	require.NoError(t, err)
	want, err = json.Marshal(nres)
	require.NoError(t, err)
	require.Equal(t, string(want), string(body), "encoded without a sink")
}
