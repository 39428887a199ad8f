package httpapi

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
	"github.com/stretchr/testify/require"
)

// A filter by a value its field cannot have is refused naming the
// parameter and the values it takes, never answered with an empty view
// that reads as "no such results"; open fields (country, network, route,
// invalid reason) take any value.
func TestReportQueryFieldValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ query, err string }{
		{query: "valid=maybe", err: `valid: "maybe": want true, false, or - for results without one`},
		{query: "valid=TRUE", err: `valid: "TRUE": want true, false`},
		{query: "number_type=FOO", err: `number_type: "FOO": want UNKNOWN, LANDLINE, MOBILE,`},
		{query: "product=XYZ", err: `product: "XYZ": want HLR, MNP, NT`},
		{query: "status=DONE", err: `status: "DONE": want COMPLETED, REJECTED, FAILED, OK`},
		{query: "connectivity=ONLINE", err: `connectivity: "ONLINE": want CONNECTED, ABSENT, INVALID_MSISDN, UNDETERMINED`},
		{query: "valid=true"}, {query: "valid=false"}, {query: "valid=-"},
		{query: "number_type=MOBILE_OR_LANDLINE"}, {query: "product=NT"}, {query: "status=OK"},
		{query: "connectivity=INVALID_MSISDN"}, {query: "connectivity=-"},
		{query: "country=ZZ"}, {query: "route=NOPE"}, {query: "network=99999"}, {query: "invalid_reason=whatever"},
	} {
		vals, err := url.ParseQuery(c.query)
		require.NoError(t, err)
		_, err = reportQuery(vals)
		if c.err == "" {
			require.NoError(t, err, c.query)
		} else {
			require.ErrorContains(t, err, c.err, c.query)
		}
	}
}

// The fixed values are the API's: every number type of numbering, every
// connectivity and processing status of mnp.
func TestReportFieldValuesAreTheAPIs(t *testing.T) {
	t.Parallel()
	for _, ty := range numbering.Types() {
		require.NoError(t, checkFieldValue(store.FieldNumberType, ty.String()))
	}
	for c := mnp.Connectivity(0); c <= mnp.InvalidMSISDN; c++ {
		require.NoError(t, checkFieldValue(store.FieldConnectivity, c.String()))
	}
	for _, st := range []mnp.Status{mnp.Completed, mnp.Rejected, mnp.Failed} {
		require.NoError(t, checkFieldValue(store.FieldStatus, st.String()))
	}
	require.NoError(t, checkFieldValue(store.FieldStatus, numbering.StatusOK.String()))
	require.NoError(t, checkFieldValue(store.FieldStatus, numbering.StatusFailed.String()))
}

// The API's download and the pages' refuse what they cannot answer: a
// value a field cannot have, an unknown parameter of the API (a misspelt
// filter would download the whole report), a national number without the
// country it is dialled in (read as E.164 it selects nothing). A national
// number with its country is read as on the page.
func TestReportDownloadRefusesWhatItCannotAnswer(t *testing.T) {
	t.Parallel()
	s := storedServer(t, nil)
	const api = "/api/v2/reports/SYNC-API-NT-2026-11"
	for _, c := range []struct{ path, err string }{
		{api + "?valid=maybe", `valid: "maybe": want true, false, or - for results without one`},
		{api + "?format=csv&number_type=mobile", `number_type: "mobile": want UNKNOWN,`},
		{api + "?contry=GB", "contry: unknown parameter; a report download takes format, product, status, connectivity, number_type, country, network, valid, invalid_reason, route, number, from, to, sort, order"},
		{api + "?format=csv&page=2", "page: unknown parameter"},
		{api + "?format=csv&number=0151", `number: "0151" is a national number: add the country it is dialled in (country=DE), or start it with + and the country code`},
		{api + "?format=xml", `format "xml": want csv or json`},
		{"/reports/SYNC-API-NT-2026-11?format=csv&number=0151", `number: "0151" is a national number`},
		{"/reports/SYNC-API-NT-2026-11?format=csv&valid=maybe", `valid: "maybe"`},
	} {
		status, hdr, body := s.do(t, "GET", c.path, "", basic)
		require.Equal(t, http.StatusBadRequest, status, "%s: %s", c.path, body)
		require.Contains(t, hdr.Get("Content-Type"), "application/json", c.path)
		errs := errorsOf(t, body)
		require.Len(t, errs, 1, c.path)
		require.Contains(t, errs[0], c.err, c.path)
	}
	// The same search as "+49151": the results of that prefix, on the API
	// and in the pages' downloads.
	want := downloadRows(t, s, api+"?format=csv&number=%2B49151")
	require.Greater(t, len(want), 1, "the fixture has +49151 numbers")
	require.Equal(t, want, downloadRows(t, s, api+"?format=csv&number=0151&country=DE"))
	require.Equal(t, want, downloadRows(t, s, "/reports/SYNC-API-NT-2026-11?format=csv&number=0151&country=DE"))
	// Ruby's trailing "?" is no parameter.
	status, _, body := s.do(t, "GET", api+"?", "", basic)
	require.Equal(t, http.StatusOK, status, "%s", body)
}

func downloadRows(t *testing.T, s *server, path string) [][]string {
	t.Helper()
	status, _, body := s.do(t, "GET", path, "", basic)
	require.Equal(t, http.StatusOK, status, "%s: %s", path, body)
	rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	require.NoError(t, err)
	return rows
}
