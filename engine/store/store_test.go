package store_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/facts"
	"github.com/numenhq/numen/engine/store/storetest"
)

// keys returns the keys of a JSON object in the order they are written.
func keys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(b))
	_, err = dec.Token() // {
	require.NoError(t, err)
	var ks []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		ks = append(ks, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return ks
}

func TestColumnsAreTheAPIsAttributesInOrder(t *testing.T) {
	t.Parallel()
	require.Equal(t, keys(t, apiv2.HLRResult{}), store.Columns(engine.ProductHLR))
	require.Equal(t, keys(t, apiv2.MNPResult{}), store.Columns(engine.ProductMNP))
	require.Equal(t, keys(t, apiv2.NTResult{}), store.Columns(engine.ProductNT))
	require.Nil(t, store.Columns("XYZ"))
	// A copy: the caller may change it.
	c := store.Columns(engine.ProductNT)
	c[0] = "changed"
	require.Equal(t, "id", store.Columns(engine.ProductNT)[0])
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for _, f := range []store.Format{store.CSV, store.JSON} {
		got, err := store.ParseFormat(string(f))
		require.NoError(t, err)
		require.Equal(t, f, got)
	}
	_, err := store.ParseFormat("CSV")
	require.Error(t, err)
	require.Equal(t, "text/csv; charset=utf-8", store.CSV.ContentType())
	require.Equal(t, "application/json", store.JSON.ContentType())
}

func TestEntryOf(t *testing.T) {
	t.Parallel()
	r := storetest.NewRecord("acct", "SYNC-API-2026-11", engine.ProductHLR, "id0000000001", storetest.Base, 0)
	e, err := store.EntryOf(r)
	require.NoError(t, err)
	body, err := json.Marshal(r.Result)
	require.NoError(t, err)
	require.Equal(t, store.Entry{
		Account: "acct", Storage: "SYNC-API-2026-11", ID: "id0000000001", Product: engine.ProductHLR,
		Millis: storetest.Base.UnixMilli(), Cost: r.Cost, Result: body,
		Facts: facts.Facts{
			Number: "+4915123456789", Status: "COMPLETED", Connectivity: "CONNECTED",
			Country: "DE", CountryName: "Germany", Network: "26203", NetworkName: "Telekom", Route: "DS7",
		},
	}, e)

	// The engine's encoding is kept as it is, not encoded again; the
	// record is still validated.
	encoded := r
	encoded.JSON = []byte(`{"as":"answered"}`)
	e, err = store.EntryOf(encoded)
	require.NoError(t, err)
	require.Equal(t, encoded.JSON, e.Result)
	encoded.ID = ""
	_, err = store.EntryOf(encoded)
	require.ErrorIs(t, err, store.ErrInvalidRecord)

	// The product is the result's: a record cannot name another.
	nt := storetest.NewRecord("acct", "S", engine.ProductNT, "id0000000002", storetest.Base, 0)
	e, err = store.EntryOf(nt)
	require.NoError(t, err)
	require.Equal(t, engine.ProductNT, e.Product)

	r.Result = (*apiv2.HLRResult)(nil)
	_, err = store.EntryOf(r)
	require.ErrorIs(t, err, store.ErrInvalidRecord)
	require.ErrorContains(t, err, `"id0000000001": Result is nil`)
	r.Result = nil
	_, err = store.EntryOf(r)
	require.ErrorContains(t, err, `"id0000000001": Result is nil`)
}

var _ engine.Sink = store.Store(nil)

// TestFactsFromJSON checks that the facts EntryOf takes from a result value are
// those facts.FromJSON reads from its JSON (the SQLite store's log and both
// stores' migrations read them so), for every product and outcome of the
// fixtures, and that long values are cut to 100 characters.
func TestFactsFromJSON(t *testing.T) {
	t.Parallel()
	for _, p := range store.Products() {
		for variant := range 3 {
			r := storetest.NewRecord("acct", "S", p, "id0000000001", storetest.Base, variant)
			e, err := store.EntryOf(r)
			require.NoError(t, err)
			f, err := facts.FromJSON(p, e.Result)
			require.NoError(t, err)
			require.Equal(t, e.Facts, f, "%s variant %d", p, variant)
			require.NotEmpty(t, f.Number)
			require.NotEmpty(t, f.Status)
		}
	}
	nt := storetest.NewRecord("acct", "S", engine.ProductNT, "id0000000001", storetest.Base, 0)
	res := nt.Result.(*apiv2.NTResult)
	res.Number = strings.Repeat("é", 150)
	res.OriginalNetworkName = apiv2.String(strings.Repeat("n", 101))
	res.MCCMNC = apiv2.String("26201")
	e, err := store.EntryOf(nt)
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("é", 100), e.Facts.Number)
	require.Equal(t, strings.Repeat("n", 100), e.Facts.NetworkName)
	f, err := facts.FromJSON(engine.ProductNT, e.Result)
	require.NoError(t, err)
	require.Equal(t, e.Facts, f)

	// A name without a code is not a value's label: the results without
	// an MCCMNC are one value, whatever some of them call their network.
	res.MCCMNC = nil
	e, err = store.EntryOf(nt)
	require.NoError(t, err)
	require.Empty(t, e.Facts.Network)
	require.Empty(t, e.Facts.NetworkName)
	f, err = facts.FromJSON(engine.ProductNT, e.Result)
	require.NoError(t, err)
	require.Equal(t, e.Facts, f)

	_, err = facts.FromJSON(engine.ProductNT, []byte(`[1]`))
	require.ErrorIs(t, err, store.ErrInvalidRecord)
	_, err = facts.FromJSON("XYZ", []byte(`{}`))
	require.ErrorIs(t, err, store.ErrInvalidRecord)
}

// TestFactsOfValidity checks the facts of the fields of validity and
// route: an NT result's is_valid as "true" or "false" and its
// invalid_reason, any product's route, and "" where a result has none.
func TestFactsOfValidity(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		product                     engine.Product
		variant                     int
		valid, invalidReason, route string
	}{
		{engine.ProductNT, 0, "true", "", "NT1"},
		{engine.ProductNT, 1, "false", "not a number", "NT1"},
		{engine.ProductHLR, 0, "", "", "DS7"},
		{engine.ProductMNP, 0, "", "", "MP1"},
	} {
		r := storetest.NewRecord("acct", "r-2026-11", c.product, "id0000000001", storetest.Base, c.variant)
		e, err := store.EntryOf(r)
		require.NoError(t, err)
		require.Equal(t, [3]string{c.valid, c.invalidReason, c.route},
			[3]string{e.Facts.Valid, e.Facts.InvalidReason, e.Facts.Route}, "%s variant %d", c.product, c.variant)
	}
	f, err := facts.FromJSON(engine.ProductNT, []byte(`{"number":"+1","is_valid":null,"route":null}`))
	require.NoError(t, err)
	require.Equal(t, facts.Facts{Number: "+1"}, f)
}
