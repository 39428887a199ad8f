package httpapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/sqlitestore"
	"github.com/numenhq/numen/engine/store/storetest"
	"github.com/numenhq/numen/routing"
)

func TestReportPages(t *testing.T) {
	t.Parallel()
	st, err := sqlitestore.Open(t.Context(), t.TempDir())
	require.NoError(t, err)
	defer st.Close()
	s := newServer(t, func(cfg *Config, a *account.Account) { cfg.Store = st })
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

// A download that meets a damaged page after its first bytes is aborted,
// so that the client sees it incomplete, not a shorter report that ends
// well; /healthz reports the damage from then on.
func TestDamagedDatabaseAbortsDownload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, err := sqlitestore.Open(t.Context(), dir)
	require.NoError(t, err)
	const n = 20000
	from := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	records := make([]engine.Record, n)
	for i := range records {
		records[i] = storetest.NewRecord(key, "BIG-2026-11", routing.NT, fmt.Sprintf("r%011d", i), from.Add(time.Duration(i)*time.Millisecond), i%3)
	}
	require.NoError(t, st.RecordAll(t.Context(), records))
	require.NoError(t, st.Close())

	// 16 KiB of noise in the middle of the database file, where the
	// results' pages are.
	path := filepath.Join(dir, sqlitestore.FileName)
	info, err := os.Stat(path)
	require.NoError(t, err)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	noise := make([]byte, 16<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	_, err = f.WriteAt(noise, info.Size()/2)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	st, err = sqlitestore.Open(t.Context(), dir)
	require.NoError(t, err)
	defer st.Close()
	s := newServer(t, func(cfg *Config, a *account.Account) { cfg.Store = st; cfg.Health = st.Ping })
	status, _, b := s.do(t, "GET", "/healthz", "", noAuth)
	require.Equal(t, http.StatusOK, status, "%s", b)

	// The report pages' download, and the API's.
	for _, path := range []string{"/reports/BIG-2026-11?format=csv", "/api/v2/reports/BIG-2026-11?format=csv"} {
		req, err := http.NewRequest("GET", s.URL+path, nil)
		require.NoError(t, err)
		basic(t, s, req, nil)
		resp, err := s.Client().Do(req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			require.Error(t, err, "%s: a download of %d bytes ended as if complete", path, len(body))
			require.Less(t, bytes.Count(body, []byte("\n")), n+1)
		} else {
			// The damage was met before the first byte.
			require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s: %s", path, body)
		}
	}

	status, _, b = s.do(t, "GET", "/healthz", "", noAuth)
	require.Equal(t, http.StatusServiceUnavailable, status, "%s", b)
	require.Contains(t, string(b), "damaged")
}

// The report pages count against the account's rate limit, and a failed
// sign-in there is logged and counted like a failed API request.
func TestReportPagesRateLimitAndFailedSignIns(t *testing.T) {
	t.Parallel()
	st, err := sqlitestore.Open(t.Context(), t.TempDir())
	require.NoError(t, err)
	defer st.Close()
	s := newServer(t, func(cfg *Config, a *account.Account) { cfg.Store = st; a.RateLimit, a.RateBurst = 0.001, 2 })

	wrong := func(t *testing.T, s *server, req *http.Request, body []byte) {
		req.Header.Set("Authorization", auth.BasicHeader(key, "not-the-secret"))
	}
	status, _, b := s.do(t, "GET", "/reports", "", wrong)
	require.Equal(t, http.StatusUnauthorized, status, "%s", b)
	require.Contains(t, s.logs.String(), `"msg":"report pages: authentication failed"`)
	require.Contains(t, s.logs.String(), `"reason":"bad basic credentials"`)
	_, _, metrics := s.do(t, "GET", "/metrics", "", noAuth)
	require.Contains(t, string(metrics), "numen_auth_failures_total 1\n")
	require.Contains(t, string(metrics), `numen_http_requests_total{code="401",endpoint="/reports"} 1`)

	for range 2 {
		status, _, b = s.do(t, "GET", "/reports", "", basic)
		require.Equal(t, http.StatusOK, status, "%s", b)
	}
	status, hdr, b := s.do(t, "GET", "/reports/SYNC-API-NT-2026-11?format=csv", "", basic)
	require.Equal(t, http.StatusTooManyRequests, status, "%s", b)
	require.NotEmpty(t, hdr.Get("Retry-After"))
}

// failingReader is a store whose downloads fail after their first bytes.
type failingReader struct{ store.Reader }

func (failingReader) Export(ctx context.Context, account, storage string, q *store.Query, format store.Format, w io.Writer) error {
	if _, err := w.Write([]byte(strings.Repeat("id,number\r\n", 10000))); err != nil {
		return err
	}
	return errors.New("disk read error")
}

// A download that fails after its first bytes is cut, not ended: on the
// report pages and through the API alike.
func TestDownloadFailingMidStreamIsCut(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(cfg *Config, a *account.Account) { cfg.Store = failingReader{} })
	for _, path := range []string{"/reports/ANY-2026-11?format=csv", "/api/v2/reports/ANY-2026-11?format=csv"} {
		req, err := http.NewRequest("GET", s.URL+path, nil)
		require.NoError(t, err)
		basic(t, s, req, nil)
		resp, err := s.Client().Do(req)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Error(t, err, "%s: the download ended as if complete", path)
	}
	require.Contains(t, s.logs.String(), "transfer aborted")
}
