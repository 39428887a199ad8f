package engine

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
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

// The engine's storageName, which keeps the month's default names, names
// every report as StorageName does, across months (also going back).
func TestStorageNameOfTheMonth(t *testing.T) {
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

// An NT result's values share one allocation with it (ntBox) and come out
// as NTResultOf's used to: each nullable field nil exactly when empty.
func TestNTResultFields(t *testing.T) {
	var f fields
	for i := range len(f.s) + 2 { // past the room: allocated apart
		v := string(rune('a' + i))
		require.Equal(t, v, *f.str(v))
		require.Nil(t, f.str(""))
	}
	for i := range len(f.b) + 2 {
		require.Equal(t, i%2 == 0, *f.bool(i%2 == 0))
	}
	var none *fields
	require.Equal(t, "x", *none.str("x"))
	require.True(t, *none.bool(true))
}

// TestNTResultFormatsInPlace: the formatted numbers of an NT result live
// in the result's own allocation (fields.formats), so formatting them
// allocates nothing, and a number that is not valid has none.
func TestNTResultFormatsInPlace(t *testing.T) {
	plan := loadPlan(t)
	res := plan.ClassifyString("+49 151 23456789")
	f := new(fields)
	var intl, national *string
	allocs := testing.AllocsPerRun(100, func() {
		*f = fields{}
		intl, national = f.formatted(&res, numbering.International), f.formatted(&res, numbering.National)
	})
	require.Zero(t, allocs)
	require.Equal(t, "+49 1512 3456789", apiv2.Deref(intl))
	require.Equal(t, "01512 3456789", apiv2.Deref(national))

	out := NTResultOf(&res)
	require.Equal(t, "+49 1512 3456789", apiv2.Deref(out.InternationalFormat))
	require.Equal(t, "01512 3456789", apiv2.Deref(out.NationalFormat))
	invalid := plan.ClassifyString("+49 151 2")
	out = NTResultOf(&invalid)
	require.Nil(t, out.InternationalFormat)
	require.Nil(t, out.NationalFormat)
}
