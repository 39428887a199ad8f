package httpapi

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/store/sqlitestore"
)

func TestReportPages(t *testing.T) {
	st, err := sqlitestore.Open(t.TempDir())
	require.NoError(t, err)
	defer st.Close()
	s := newServer(t, func(cfg *Config, a *Account) { cfg.Store = st })
	s.sinkTo.Store(engine.Sink(st))
	var ids []string
	for _, n := range []string{"+4915123456789", "+442079460000"} {
		status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", `{"number": "`+n+`"}`, digest(secret, 0))
		require.Equal(t, 200, status)
		var res struct{ ID string }
		require.NoError(t, json.Unmarshal(b, &res))
		ids = append(ids, res.ID)
	}
	require.Len(t, ids, 2)

	status, hdr, _ := s.do(t, "GET", "/reports", "", noAuth)
	require.Equal(t, 401, status)
	require.Contains(t, hdr.Get("WWW-Authenticate"), "Basic")

	status, hdr, b := s.do(t, "GET", "/reports", "", basic)
	require.Equal(t, 200, status)
	require.Contains(t, hdr.Get("Content-Type"), "text/html")
	require.Contains(t, string(b), "SYNC-API-NT-2026-11")
	require.Contains(t, string(b), "?format=csv")

	status, hdr, b = s.do(t, "GET", "/reports/SYNC-API-NT-2026-11?format=csv", "", basic)
	require.Equal(t, 200, status, "%s", b)
	require.Equal(t, `attachment; filename="SYNC-API-NT-2026-11.csv"`, hdr.Get("Content-Disposition"))
	rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 3, "a header and two results")
	require.Equal(t, "id", rows[0][0])

	// A script signs the page's whole path.
	status, _, b = s.do(t, "GET", "/reports/SYNC-API-NT-2026-11?format=json", "", func(t *testing.T, s *server, req *http.Request, body []byte) {
		require.NoError(t, auth.SignRequest(req, key, secret, time.Unix(s.now.Load(), 0), body, auth.WithBasePath("")))
	})
	require.Equal(t, 200, status, "%s", b)
	var results []map[string]any
	require.NoError(t, json.Unmarshal(b, &results))
	require.Len(t, results, 2)

	status, _, b = s.do(t, "GET", "/reports/SYNC-API-NT-2026-11", "", basic)
	require.Equal(t, 200, status)
	require.Contains(t, string(b), ids[0])

	status, _, b = s.do(t, "GET", "/reports/NOPE-2026-11?format=csv", "", basic)
	require.Equal(t, 404, status)
	require.Equal(t, []string{`no report "NOPE-2026-11" for this API key`}, errorsOf(t, b))
	status, _, b = s.do(t, "GET", "/reports/SYNC-API-NT-2026-11?format=xml", "", basic)
	require.Equal(t, 400, status, "%s", b)
	status, _, _ = s.do(t, "POST", "/reports", "", basic)
	require.Equal(t, 405, status)
}
