package httpapi

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/sqlitestore"
	"github.com/numenhq/numen/engine/store/storetest"
)

// BenchmarkLookup serves signed POST /nt-lookup and /hlr-lookup requests
// in process, without a listener, with the request log as text (as numen
// serve writes it): the handler's own cost per request, and its
// allocations. With sink=entry the results go to a sink that does what a
// store does with a record before writing it (store.EntryOf); with
// sink=none to none. benchmarks/http measures the whole sidecar.
func BenchmarkLookup(b *testing.B) {
	for _, sink := range []string{"none", "entry"} {
		b.Run("sink="+sink, func(b *testing.B) {
			var s engine.Sink
			if sink == "entry" {
				s = engine.SinkFunc(func(ctx context.Context, r engine.Record) error {
					_, err := store.EntryOf(r)
					return err
				})
			}
			benchmarkLookup(b, s)
		})
	}
}

// benchHandler returns a Handler for benchmarks: the test backends, one
// account, a clock stopped at now, no memory of digest signatures, the
// request log as text to nowhere;
// results go to sink, the report pages read st (either may be nil).
func benchHandler(b *testing.B, now time.Time, sink engine.Sink, st store.Reader) *Handler {
	hlr := []engine.HLR{{Name: "test", Backend: connectedHLR{}}}
	eng, err := engine.New(engine.Options{
		Plan:     loadPlan(b),
		Backends: []engine.RouteBackends{{Route: "DS7", HLR: hlr}, {Route: "GT1", HLR: hlr}, {Route: "GT2", HLR: hlr}, {Route: "MP1", Portability: []engine.Portability{{Name: "test", Backend: notPorted{}}}}},
		Clock:    func() time.Time { return now },
		Sink:     sink,
	})
	if err != nil {
		b.Fatal(err)
	}
	acct, err := eng.NewProfile(engine.ProfileOptions{Key: key})
	if err != nil {
		b.Fatal(err)
	}
	h, err := New(Config{
		Engine: eng, Accounts: []*account.Account{{Key: key, Secrets: []string{secret}, Profile: acct}}, Store: st,
		Clock: func() time.Time { return now }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		// One signed request is served again and again: the memory of
		// signatures would refuse it. What that memory costs a request is
		// BenchmarkReplayMemory (engine/auth).
		Replays: forgetful{},
	})
	if err != nil {
		b.Fatal(err)
	}
	return h
}

func benchmarkLookup(b *testing.B, sink engine.Sink) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	h := benchHandler(b, now, sink, nil)
	for _, tc := range []struct{ name, path, body string }{
		{"NT", "/nt-lookup", `{"number":"+44 20 7946 0000"}`},
		{"HLR", "/hlr-lookup", `{"msisdn":"+4915123456789"}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			body := []byte(tc.body)
			req := httptest.NewRequest(http.MethodPost, apiv2.Base+tc.path, nil)
			req.RemoteAddr = "127.0.0.1:40000"
			if err := auth.SignRequest(req, key, secret, now, body); err != nil {
				b.Fatal(err)
			}
			w := &discardWriter{header: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				req.Body = io.NopCloser(bytes.NewReader(body))
				req.ContentLength = int64(len(body))
				clear(w.header)
				h.ServeHTTP(w, req)
				if w.status != http.StatusOK {
					b.Fatalf("status %d", w.status)
				}
			}
		})
	}
}

// discardWriter is a ResponseWriter that keeps the status only.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) WriteHeader(status int)      { w.status = status }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }

// BenchmarkReportPage serves a report page to a signed-in browser in
// process: its summary, first page of 50 results and charts, read from a
// SQLite store holding a report of 100,000 results
// (storetest.Skewed), and rendered. What the store's part costs on a
// report of a million results is BenchmarkPages in engine/store/...
//
//	go test -run '^$' -bench BenchmarkReportPage -count 6 ./engine/httpapi
func BenchmarkReportPage(b *testing.B) {
	st, err := sqlitestore.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	const name = "SYNC-API-NT-2026-11"
	batch := make([]engine.Record, 0, 5000)
	for i := range 100_000 {
		batch = append(batch, storetest.Skewed(key, name, i))
		if len(batch) == cap(batch) {
			if err := st.RecordAll(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	h := benchHandler(b, now, nil, st)
	// Once the store has indexed them all (a read waits for that).
	if _, err := st.Summary(ctx, key, name); err != nil {
		b.Fatal(err)
	}
	_, cookie := newSession(key, secret, now)
	for _, view := range []struct{ label, query string }{{"all", ""}, {"country=MT", "?country=MT"}, {"number=+4915,sort=number", "?number=%2B4915&sort=number"}} {
		target := "/reports/" + name + view.query
		b.Run(view.label, func(b *testing.B) {
			req := httptest.NewRequest("GET", target, nil)
			req.RemoteAddr = "127.0.0.1:1234"
			req.Header.Set("Accept", "text/html")
			req.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(`id="results"`)) {
					b.Fatalf("%d %s", w.Code, w.Body.String())
				}
			}
		})
	}
}
