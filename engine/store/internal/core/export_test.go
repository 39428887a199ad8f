package core_test

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
	"github.com/numenhq/numen/engine/store/internal/core"
	"github.com/numenhq/numen/engine/store/storetest"
)

func TestExporterCells(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	ex, err := core.NewExporter(&buf, store.CSV, []engine.Product{engine.ProductNT})
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
	ex, err := core.NewExporter(&buf, store.CSV, []engine.Product{engine.ProductNT})
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
		require.Equal(t, want, core.Neutralise(in), "%q", in)
	}
}

func TestExporterJSON(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	ex, err := core.NewExporter(&buf, store.JSON, nil)
	require.NoError(t, err)
	require.NoError(t, ex.Close())
	require.Equal(t, "[]\n", buf.String(), "an empty array")

	buf.Reset()
	ex, err = core.NewExporter(&buf, store.JSON, nil)
	require.NoError(t, err)
	require.NoError(t, ex.Write(engine.ProductNT, []byte(`{"id":"a"}`)))
	require.NoError(t, ex.Write(engine.ProductHLR, []byte(`{"id":"b"}`)))
	require.NoError(t, ex.Close())
	require.Equal(t, "[\n{\"id\":\"a\"},\n{\"id\":\"b\"}\n]\n", buf.String())
}

func TestNewExporterErrors(t *testing.T) {
	t.Parallel()
	_, err := core.NewExporter(&bytes.Buffer{}, "xml", nil)
	require.ErrorContains(t, err, `format "xml"`)
	_, err = core.NewExporter(&bytes.Buffer{}, store.CSV, nil)
	require.Error(t, err)
	_, err = core.NewExporter(&bytes.Buffer{}, store.CSV, []engine.Product{"XYZ"})
	require.ErrorContains(t, err, `"XYZ"`)
}

func TestMixedHeader(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	// Order and repetition of the products given do not matter.
	ex, err := core.NewExporter(&buf, store.CSV, []engine.Product{engine.ProductNT, engine.ProductMNP, engine.ProductNT})
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
