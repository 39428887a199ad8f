package store_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path/filepath"
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

func TestExporterCells(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	ex, err := store.NewExporter(&buf, store.CSV, []engine.Product{engine.ProductNT})
	require.NoError(t, err)
	res := &apiv2.NTResult{
		ID: "a,b", Number: "+1 \"555\"", IsValid: apiv2.Bool(false),
		Regions: []string{"New York", "New, Jersey"}, Timezones: []string{},
	}
	body, err := json.Marshal(res)
	require.NoError(t, err)
	require.NoError(t, ex.Write(engine.ProductNT, body))
	require.ErrorContains(t, ex.Write(engine.ProductHLR, body), `"HLR" result`)
	require.ErrorContains(t, ex.Write(engine.ProductNT, []byte("{")), "result 3")
	require.NoError(t, ex.Close())
	lines := strings.Split(buf.String(), "\r\n")
	require.Equal(t, strings.Join(store.Columns(engine.ProductNT), ","), lines[0])
	// id, number, number_type, query_status, is_valid, invalid_reason, ...,
	// regions, timezones (empty array), info_text, international_format,
	// national_format, cost, ...
	require.Equal(t, `"a,b","'+1 ""555""",,,false,,,,,,,,,,,,"New York|New, Jersey",,,,,,,,`, lines[1])
	require.Equal(t, []string{""}, lines[2:], "lines end in CRLF, the last one too")
}

// TestExporterNeutralisesFormulas exports results whose text a spreadsheet
// would run as a formula (testdata/injection.csv): each such cell starts
// with an apostrophe; other cells are as they were.
func TestExporterNeutralisesFormulas(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	ex, err := store.NewExporter(&buf, store.CSV, []engine.Product{engine.ProductNT})
	require.NoError(t, err)
	for i, text := range []string{
		`=HYPERLINK("http://evil.example/","click")`,
		"+4930123456",
		"-2+3+cmd|' /C calc'!A0",
		"@SUM(1+1)*cmd|' /C calc'!A0",
		"\t=1+1",
		"\r=1+1",
		"plain text",
		"a=1",
		"",
		" =1+1", // a leading space: spreadsheets read text
	} {
		res := &apiv2.NTResult{
			ID: fmt.Sprintf("id%d", i), Number: text, NumberType: "UNKNOWN", QueryStatus: "FAILED",
			InvalidReason: apiv2.String(text), Regions: []string{text, "x"},
		}
		body, err := json.Marshal(res)
		require.NoError(t, err)
		require.NoError(t, ex.Write(engine.ProductNT, body))
	}
	require.NoError(t, ex.Close())
	storetest.GoldenFile(t, filepath.Join("testdata", "injection.csv"), buf.Bytes())

	// Read back as CSV, no cell starts with a formula character.
	rows, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 11)
	for _, row := range rows[1:] {
		for _, cell := range row {
			if cell != "" {
				require.NotContains(t, "=+-@\t\r", cell[:1], "cell %q", cell)
			}
		}
	}
}

func TestNeutralise(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"": "", "=1": "'=1", "+1": "'+1", "-1": "'-1", "@a": "'@a", "\tx": "'\tx", "\rx": "'\rx",
		"'=1": "'=1", "1+1": "1+1", "x": "x", "é": "é",
	} {
		require.Equal(t, want, store.Neutralise(in), "%q", in)
	}
}

func TestExporterJSON(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	ex, err := store.NewExporter(&buf, store.JSON, nil)
	require.NoError(t, err)
	require.NoError(t, ex.Close())
	require.Equal(t, "[]\n", buf.String(), "an empty array")

	buf.Reset()
	ex, err = store.NewExporter(&buf, store.JSON, nil)
	require.NoError(t, err)
	require.NoError(t, ex.Write(engine.ProductNT, []byte(`{"id":"a"}`)))
	require.NoError(t, ex.Write(engine.ProductHLR, []byte(`{"id":"b"}`)))
	require.NoError(t, ex.Close())
	require.Equal(t, "[\n{\"id\":\"a\"},\n{\"id\":\"b\"}\n]\n", buf.String())
}

func TestNewExporterErrors(t *testing.T) {
	t.Parallel()
	_, err := store.NewExporter(&bytes.Buffer{}, "xml", nil)
	require.ErrorContains(t, err, `format "xml"`)
	_, err = store.NewExporter(&bytes.Buffer{}, store.CSV, nil)
	require.Error(t, err)
	_, err = store.NewExporter(&bytes.Buffer{}, store.CSV, []engine.Product{"XYZ"})
	require.ErrorContains(t, err, `"XYZ"`)
}

func TestMixedHeader(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	// Order and repetition of the products given do not matter.
	ex, err := store.NewExporter(&buf, store.CSV, []engine.Product{engine.ProductNT, engine.ProductMNP, engine.ProductNT})
	require.NoError(t, err)
	require.NoError(t, ex.Close())
	header := strings.Split(strings.TrimSuffix(buf.String(), "\r\n"), ",")
	want := append([]string{"product"}, store.Columns(engine.ProductMNP)...)
	for _, c := range store.Columns(engine.ProductNT) {
		if !strings.Contains(","+strings.Join(want, ",")+",", ","+c+",") {
			want = append(want, c)
		}
	}
	require.Equal(t, want, header)
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
			Country: "DE", CountryName: "Germany", Network: "26203", NetworkName: "Telekom",
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
