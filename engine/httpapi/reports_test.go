package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
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
	"github.com/numenhq/numen/numbering"
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

func TestReportQueryDatesAndNumbers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ query, from, to, number, err string }{
		{query: "from=2026-11-02&to=2026-11-02", from: "2026-11-02T00:00:00Z", to: "2026-11-03T00:00:00Z"},
		{query: "from=2026-11-02", from: "2026-11-02T00:00:00Z"},
		{query: "to=2026-11-30", to: "2026-12-01T00:00:00Z"},
		{query: "from=2026-11-05&to=2026-11-01", err: "to: 2026-11-01 is before from 2026-11-05: the range is empty"},
		{query: "from=2026-13-01", err: `from: "2026-13-01" is not a date: want YYYY-MM-DD`},
		{query: "to=yesterday", err: `to: "yesterday" is not a date`},
		{query: "from=1999-12-31", err: `from: "1999-12-31" is not a date`},
		{query: "number=%2B49+15", number: "+4915"},
		{query: "number=%2B49%20(0)151-23", number: "+49015123"},
		{query: "number=0049%20151", number: "+49151"},
		{query: "number=4479", number: "4479"},
		{query: "number=%2B49abc", err: `number: "+49abc": want the start of a number`},
		{query: "number=%2B%2B49", err: `number: "++49"`},
	} {
		vals, err := url.ParseQuery(c.query)
		require.NoError(t, err)
		q, err := reportQuery(vals)
		if c.err != "" {
			require.ErrorContains(t, err, c.err, c.query)
			continue
		}
		require.NoError(t, err, c.query)
		require.Equal(t, c.number, q.NumberPrefix, c.query)
		for _, tm := range []struct {
			got  time.Time
			want string
		}{{q.From, c.from}, {q.To, c.to}} {
			if tm.want == "" {
				require.True(t, tm.got.IsZero(), c.query)
			} else {
				require.Equal(t, tm.want, tm.got.Format(time.RFC3339), c.query)
			}
		}
		again, err := reportQuery(queryValues(&q))
		require.NoError(t, err)
		require.Equal(t, q, again, "the page's links keep the query: %s", c.query)
	}
}

func TestNationalSearch(t *testing.T) {
	t.Parallel()
	plan, err := numbering.Load()
	require.NoError(t, err)
	for _, c := range []struct{ digits, region, want string }{
		{"0151", "DE", "+49151"},
		{"030", "DE", "+4930"},
		{"07911", "GB", "+447911"},
		{"0612", "FR", "+33612"},
		{"06", "IT", "+3906"}, // Italy keeps its 0
		{"0151", "", ""},
	} {
		got, ok := nationalSearch(plan, c.digits, c.region)
		require.Equal(t, c.want != "", ok, c)
		require.Equal(t, c.want, got, c)
	}
}

// TestReportPageViews reads a report of results over several days
// through its views: a date range, the count and cost of a filtered
// view, number searches as typed, a bad date that keeps the page, and
// the network filter naming the code's network.
func TestReportPageViews(t *testing.T) {
	t.Parallel()
	s := storedServer(t, nil) // 7 results on 2026-11-24
	for i, n := range []string{"+4915123456780", "+4915123456781", "+447911123456"} {
		s.now.Add(int64((24 * time.Hour).Seconds()))
		body, _ := json.Marshal(map[string]string{"number": n})
		status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", string(body), digest(secret, 0))
		require.Equal(t, 200, status, "%d %s", i, b)
	}
	b := newClient(t, s)
	b.signIn(key, secret, "/reports")
	const report = "/reports/SYNC-API-NT-2026-11"
	var sum store.Summary
	sum, err := s.h.cfg.Store.Summary(t.Context(), key, "SYNC-API-NT-2026-11")
	require.NoError(t, err)
	require.Len(t, sum.Days, 4)
	day := func(i int) string { return sum.Days[i].Value }

	resp, page := b.send("GET", report, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, text(page), "10 results, "+sum.Cost.String()+" EUR")

	// One day: its results, counted with their cost.
	resp, page = b.send("GET", report+"?from="+day(1)+"&to="+day(1), nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, text(page), "1 of 10 results, "+sum.Days[1].Cost.String()+" EUR")
	require.Contains(t, page, `name="from" value="`+day(1)+`" min="`+day(0)+`" max="`+day(3)+`"`, "the report's days bound the dates")
	require.Contains(t, page, "Cost per day of this view")
	require.Equal(t, 1, strings.Count(page, `<tr><td><a href="/reports/SYNC-API-NT-2026-11?id=`), "one row")
	require.Contains(t, page, `">`+day(1)+" ", "of that day")

	// A row's own page: every attribute in full, the time zones too.
	link := regexp.MustCompile(`<tr><td><a href="(/reports/SYNC-API-NT-2026-11\?id=[0-9a-z]+)">`).FindStringSubmatch(page)
	require.NotNil(t, link)
	resp, row := b.send("GET", link[1], nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, row, `<table id="result">`)
	require.Contains(t, row, `<th>timezones</th><td class="wrap">Europe/`)
	require.NotContains(t, row, "<details>", "nothing collapsed")
	resp, _ = b.send("GET", "/reports/SYNC-API-NT-2026-11?id=nope", nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	resp, _ = b.send("GET", "/reports/OTHER-2026-11?id="+strings.TrimPrefix(link[1], "/reports/SYNC-API-NT-2026-11?id="), nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	// A view of one field's value: its count and cost from the summary
	// (no counting), without a cost per day of its own.
	_, page = b.send("GET", report+"?country=DE", nil)
	var de store.Tally
	for _, v := range sum.Values[store.FieldCountry] {
		if v.Value == "DE" {
			de = v
		}
	}
	require.Contains(t, text(page), fmt.Sprintf("%d of 10 results, %s EUR", de.Count, de.Cost))
	require.NotContains(t, page, "Cost per day of this view")

	// From a day on, and a download of the same view.
	_, page = b.send("GET", report+"?from="+day(1), nil)
	require.Contains(t, text(page), "3 of 10 results")
	resp, body := b.send("GET", report+"?from="+day(1)+"&format=csv", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 4)

	// The API's download takes the same range; a wrong one is 400.
	status, _, body2 := s.do(t, "GET", "/api/v2/reports/SYNC-API-NT-2026-11?format=csv&from="+day(1)+"&number=%2B49%2015", "", basic)
	require.Equal(t, http.StatusOK, status, "%s", body2)
	rows, err = csv.NewReader(strings.NewReader(string(body2))).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 3, "the header and the two +4915 results from that day")
	status, _, body2 = s.do(t, "GET", "/api/v2/reports/SYNC-API-NT-2026-11?to=2026-02-30", "", basic)
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, []string{`to: "2026-02-30" is not a date: want YYYY-MM-DD (a day in UTC, 2000 to 9998)`}, errorsOf(t, body2))

	// A wrong date keeps the page, says what is wrong and keeps what was
	// typed.
	resp, page = b.send("GET", report+"?from=2026-11-31&number=%2B49", nil)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, page, `id="problem"`)
	require.Contains(t, page, `from: &#34;2026-11-31&#34; is not a date`)
	require.Contains(t, page, `name="number" value="&#43;49"`)
	require.Contains(t, page, `<table id="results">`)
	resp, page = b.send("GET", report+"?from="+day(2)+"&to="+day(1), nil)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, page, "is before from")

	// Number searches as people type them.
	for _, typed := range []string{"+49 151", "0049 151", "0151", "+49 (0)151"} {
		resp, page = b.send("GET", report+"?number="+url.QueryEscape(typed), nil)
		if typed == "+49 (0)151" {
			require.Equal(t, http.StatusOK, resp.StatusCode, typed) // reads +490151: nothing
			require.Contains(t, text(page), "0 of 10 results", typed)
			continue
		}
		require.Equal(t, http.StatusOK, resp.StatusCode, typed)
		require.Contains(t, text(page), "+4915123456780", typed)
		require.NotContains(t, text(page), "+447911123456", typed)
	}
	// 020 is read in the country the page filters by.
	_, page = b.send("GET", report+"?country=GB&number=020", nil)
	require.Contains(t, page, `download-csv`)
	require.Contains(t, text(page), "+442079460000")
	require.Contains(t, text(page), "1 of 10 results")

	// The network filter names the code's own network.
	plan := s.h.cfg.Engine.Plan()
	for _, t1 := range sum.Values[store.FieldNetwork] {
		if t1.Value == "" {
			continue
		}
		n, ok := plan.Network(t1.Value)
		require.True(t, ok, t1.Value)
		require.Contains(t, page, cmp.Or(n.Brand, n.Operator)+" ("+t1.Value+")")
	}
}

func TestPager(t *testing.T) {
	t.Parallel()
	l := reportLinks{base: "/reports/R", q: &store.Query{Desc: true}}
	texts := func(pages []pageLink) string {
		var b strings.Builder
		for _, p := range pages {
			if p.Current {
				b.WriteString("[" + p.Text + "]")
			} else {
				b.WriteString(p.Text)
			}
			b.WriteString(" ")
		}
		return strings.TrimSpace(b.String())
	}
	for _, c := range []struct {
		cur, last  int
		next, want string
	}{
		{1, 1, "", ""},
		{1, 0, "", ""},
		{1, 2, "x", "[1] 2"},
		{1, 20, "x", "[1] 2 3 … 20"},
		{7, 20, "x", "1 … 5 6 [7] 8 9 … 20"},
		{20, 20, "", "1 … 18 19 [20]"},
		{0, 20, "x", "1 2 3 … 20"},
		{25, 20, "", "1 … 20 … 23 24 [25]"},
	} {
		prev, next, pages := l.pager(c.cur, c.last, c.next)
		require.Equal(t, c.want, texts(pages), "%+v", c)
		require.Equal(t, c.cur > 1, prev != "", "%+v", c)
		require.Equal(t, c.next != "", next != "", "%+v", c)
		switch {
		case c.cur == 2:
			require.Equal(t, "/reports/R", prev)
		case c.cur > 2:
			require.Equal(t, fmt.Sprintf("/reports/R?page=%d", c.cur-1), prev)
		}
	}
	_, next, pages := l.pager(1, 3, "x")
	require.Equal(t, "/reports/R?page=2", next)
	require.Equal(t, "/reports/R", pages[0].URL, "page 1 is the report's own URL")
	_, next, _ = l.pager(0, 3, "cursor")
	require.Equal(t, "/reports/R?after=cursor", next, "after a cursor: the next by cursor")
}

// FuzzNationalSearch: any digits and region read as a national number
// give the start of an E.164 number or false, never a panic.
func FuzzNationalSearch(f *testing.F) {
	plan, err := numbering.Load()
	require.NoError(f, err)
	for _, s := range [][2]string{{"0151", "DE"}, {"07911", "GB"}, {"06", "IT"}, {"0", "US"}, {"0" + strings.Repeat("9", 30), "FR"}, {"012", "XX"}, {"08", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, digits, region string) {
		got, ok := nationalSearch(plan, digits, region)
		if !ok {
			require.Empty(t, got)
			return
		}
		require.Regexp(t, `^\+[0-9]+$`, got, "%q in %q", digits, region)
	})
}

func TestMatching(t *testing.T) {
	t.Parallel()
	sum := &store.Summary{Count: 1_000_000, Cost: 123_4567}
	require.Equal(t, "1000000 results, 123.4567 EUR", matching(sum, nil))
	require.Equal(t, "12 of 1000000 results, 0.0012 EUR", matching(sum, &store.Totals{Count: 12, Cost: 12}))
	require.Equal(t, "more than 2000 of 1000000 results", matching(sum, &store.Totals{More: true}))
}

// TestReportFiltersValidityAndRoute: the report page and the API filter
// by validity, invalid reason and route, count and cost the view from
// the summary, and the page charts the cost per route, a bar filtering
// by its route.
func TestReportFiltersValidityAndRoute(t *testing.T) {
	t.Parallel()
	s := storedServer(t, nil) // 7 NT results, some of them not valid
	b := newClient(t, s)
	b.signIn(key, secret, "/reports")
	const name = "SYNC-API-NT-2026-11"
	const report = "/reports/" + name
	sum, err := s.h.cfg.Store.Summary(t.Context(), key, name)
	require.NoError(t, err)
	tally := func(f store.Field, value string) store.Tally {
		for _, v := range sum.Values[f] {
			if v.Value == value {
				return v
			}
		}
		t.Fatalf("no %s %q in the summary: %+v", f, value, sum.Values[f])
		return store.Tally{}
	}
	invalid := tally(store.FieldValid, "false")
	require.Positive(t, invalid.Count)
	var reason string
	for _, v := range sum.Values[store.FieldInvalidReason] {
		reason = cmp.Or(reason, v.Value)
	}
	require.NotEmpty(t, reason)
	require.NotEmpty(t, sum.Values[store.FieldRoute])
	route := sum.Values[store.FieldRoute][0]
	require.NotEmpty(t, route.Value)

	resp, page := b.send("GET", report, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	for _, f := range []string{"valid", "invalid_reason", "route"} {
		require.Contains(t, page, `<select name="`+f+`"`, "a filter by %s", f)
	}
	require.Contains(t, page, "<figcaption>Cost per route (EUR)</figcaption>")
	require.Contains(t, page, `<a href="/reports/`+name+`?route=`+url.QueryEscape(route.Value)+`">`, "a route's bar filters by it")
	require.Contains(t, page, ">"+route.Cost.String()+"</text>", "the bar shows the route's cost")

	for _, c := range []struct {
		query string
		want  store.Tally
	}{
		{"valid=false", invalid},
		{"valid=true", tally(store.FieldValid, "true")},
		{"invalid_reason=" + url.QueryEscape(reason), tally(store.FieldInvalidReason, reason)},
		{"invalid_reason=-", tally(store.FieldInvalidReason, "")},
		{"route=" + url.QueryEscape(route.Value), route},
	} {
		resp, page := b.send("GET", report+"?"+c.query, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, c.query)
		require.Contains(t, text(page), fmt.Sprintf("%d of %d results, %s EUR", c.want.Count, sum.Count, c.want.Cost), c.query)
		require.Equal(t, int(c.want.Count), strings.Count(page, `<tr><td><a href="/reports/`+name+`?id=`), c.query)

		status, _, body := s.do(t, "GET", "/api/v2/reports/"+name+"?"+c.query, "", digest(secret, 0))
		require.Equal(t, http.StatusOK, status, c.query)
		var objects []map[string]any
		require.NoError(t, json.Unmarshal([]byte(body), &objects), c.query)
		require.Len(t, objects, int(c.want.Count), c.query)
	}
	// Several conditions: counted from the results (every result here
	// took the one route).
	require.Len(t, sum.Values[store.FieldRoute], 1)
	_, page = b.send("GET", report+"?valid=false&route="+url.QueryEscape(route.Value), nil)
	require.Contains(t, text(page), fmt.Sprintf("%d of %d results, %s EUR", invalid.Count, sum.Count, invalid.Cost))
}
