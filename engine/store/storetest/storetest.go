// Package storetest holds the conformance suites of the stores: every
// implementation (sqlitestore, pgstore) runs Run (store.Store: record,
// list, page and export alike) and RunQueue (store.Queue: claims, the
// webhook outbox, working jobs) against the real database. Its CSV and
// JSON golden files live in this package's testdata directory; run the
// suite of any implementation with -update to rewrite them.
package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/store"
)

var update = flag.Bool("update", false, "rewrite the golden files in engine/store/storetest/testdata/")

// Opener returns a new, empty store for one test. Run closes it (and may
// close it early); the opener cleans up whatever else it made. The
// subtests run in parallel: an opener is called concurrently, and the
// stores it returns must not share state.
type Opener func(t *testing.T) store.Store

// Run runs the conformance suite against the stores open returns.
func Run(t *testing.T, open Opener) {
	t.Run("RoundTrip", func(t *testing.T) { t.Parallel(); testRoundTrip(t, open) })
	t.Run("MixedReport", func(t *testing.T) { t.Parallel(); testMixedReport(t, open) })
	t.Run("Paging", func(t *testing.T) { t.Parallel(); testPaging(t, open) })
	t.Run("Query", func(t *testing.T) { t.Parallel(); testQuery(t, open) })
	t.Run("Summary", func(t *testing.T) { t.Parallel(); testSummary(t, open) })
	t.Run("UnknownReport", func(t *testing.T) { t.Parallel(); testUnknownReport(t, open) })
	t.Run("AccountsApart", func(t *testing.T) { t.Parallel(); testAccountsApart(t, open) })
	t.Run("DuplicateID", func(t *testing.T) { t.Parallel(); testDuplicateID(t, open) })
	t.Run("InvalidRecord", func(t *testing.T) { t.Parallel(); testInvalidRecord(t, open) })
	t.Run("CanceledContext", func(t *testing.T) { t.Parallel(); testCanceledContext(t, open) })
	t.Run("Concurrent", func(t *testing.T) { t.Parallel(); testConcurrent(t, open) })
	t.Run("Closed", func(t *testing.T) { t.Parallel(); testClosed(t, open) })
	t.Run("RecordAllAndBodies", func(t *testing.T) { t.Parallel(); testRecordAllAndBodies(t, open) })
}

// testRecordAllAndBodies records a bulk batch at once and reads its bodies
// back by id, as a bulk job that runs again after a crash does.
func testRecordAllAndBodies(t *testing.T, open Opener) {
	s := openStore(t, open)
	ctx := t.Context()
	rs := fixtures("acct", "ASYNC-API-NT-2026-11", engine.ProductNT, 1200, Base, "bulk")
	require.NoError(t, s.RecordAll(ctx, rs))
	ids := make([]string, 0, len(rs)+1)
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	ids = append(ids, "not-recorded")
	bodies, err := s.Bodies(ctx, ids)
	require.NoError(t, err)
	require.Len(t, bodies, len(rs))
	for _, r := range rs[:10] {
		want, err := json.Marshal(r.Result)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(bodies[r.ID]))
	}
	reports, err := s.Reports(ctx, "acct")
	require.NoError(t, err)
	require.Len(t, reports, 1)
	require.Equal(t, int64(len(rs)), reports[0].Count)
	// A repeated id fails as Record's would; the other records still land.
	again := append(fixtures("acct", "ASYNC-API-NT-2026-11", engine.ProductNT, 1, Base, "fresh"), rs[0])
	require.ErrorIs(t, s.RecordAll(ctx, again), store.ErrDuplicateID)
	bodies, err = s.Bodies(ctx, []string{"fresh0000"})
	require.NoError(t, err)
	require.Len(t, bodies, 1)
	empty, err := s.Bodies(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, empty)
}

func openStore(t *testing.T, open Opener) store.Store {
	t.Helper()
	s := open(t)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	require.NoError(t, s.Ping(t.Context()))
	return s
}

// recordAll records rs in order and returns the result objects as the API
// writes them.
func recordAll(t *testing.T, s store.Store, rs []engine.Record) [][]byte {
	t.Helper()
	bodies := make([][]byte, len(rs))
	for i, r := range rs {
		require.NoError(t, s.Record(t.Context(), r), "record %s", r.ID)
		var err error
		bodies[i], err = json.Marshal(r.Result)
		require.NoError(t, err)
	}
	return bodies
}

// fixtures returns n records of product in one report, a second apart,
// cycling through NewRecord's variants.
func fixtures(account, storage string, product engine.Product, n int, from time.Time, idPrefix string) []engine.Record {
	rs := make([]engine.Record, n)
	for i := range rs {
		rs[i] = NewRecord(account, storage, product, fmt.Sprintf("%s%04d", idPrefix, i), from.Add(time.Duration(i)*time.Second), i)
	}
	return rs
}

func export(t *testing.T, s store.Store, account, storage string, f store.Format) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, s.Export(t.Context(), account, storage, &store.Query{}, f, &buf))
	return buf.Bytes()
}

func testRoundTrip(t *testing.T, open Opener) {
	s := openStore(t, open)
	ctx := t.Context()
	const acct = "acct-1"
	reports := map[engine.Product]string{
		engine.ProductHLR: "SYNC-API-2026-11",
		engine.ProductMNP: "SYNC-API-MNP-2026-11",
		engine.ProductNT:  "SYNC-API-NT-2026-11",
	}
	bodies := map[engine.Product][][]byte{}
	var records []engine.Record
	for i, p := range store.Products() {
		rs := fixtures(acct, reports[p], p, 3, Base.Add(time.Duration(i)*time.Hour), strings.ToLower(string(p))+"id")
		records = append(records, rs...)
		bodies[p] = recordAll(t, s, rs)
	}

	got, err := s.Reports(ctx, acct)
	require.NoError(t, err)
	var want []store.Report
	for i := len(store.Products()) - 1; i >= 0; i-- { // newest first
		p := store.Products()[i]
		var cost engine.Money
		for _, r := range records {
			if r.Product() == p {
				cost += r.Cost
			}
		}
		first := Base.Add(time.Duration(i) * time.Hour).Truncate(time.Millisecond)
		want = append(want, store.Report{
			Name: reports[p], Products: []engine.Product{p}, Count: 3, Cost: cost,
			First: first, Last: first.Add(2 * time.Second),
		})
	}
	require.Equal(t, want, got)

	for _, p := range store.Products() {
		name := strings.ToLower(string(p))

		// JSON: the API's bodies, in order, byte for byte.
		js := export(t, s, acct, reports[p], store.JSON)
		var objects []json.RawMessage
		require.NoError(t, json.Unmarshal(js, &objects), "%s", js)
		require.Len(t, objects, len(bodies[p]))
		for i := range objects {
			require.Equal(t, string(bodies[p][i]), string(objects[i]))
		}
		golden(t, name+".json", js)

		// CSV: the product's columns, one row per result.
		csv := export(t, s, acct, reports[p], store.CSV)
		require.True(t, bytes.HasPrefix(csv, []byte(strings.Join(store.Columns(p), ",")+"\r\n")), "%s", csv)
		golden(t, name+".csv", csv)

		// Query: the same rows.
		page, err := s.Query(ctx, acct, reports[p], &store.Query{}, "", 0)
		require.NoError(t, err)
		require.Len(t, page.Rows, 3)
		require.Empty(t, page.Next)
		for i, row := range page.Rows {
			r := records[indexOf(records, row.ID)]
			require.Equal(t, store.Row{
				ID: r.ID, Product: p, Time: r.Time.Truncate(time.Millisecond), Cost: r.Cost,
				Result: json.RawMessage(bodies[p][i]),
			}, row)
		}
	}
}

func indexOf(rs []engine.Record, id string) int {
	for i, r := range rs {
		if r.ID == id {
			return i
		}
	}
	return -1
}

func testMixedReport(t *testing.T, open Opener) {
	s := openStore(t, open)
	ctx := t.Context()
	const acct, name = "acct-1", "campaign-2026-11"
	var rs []engine.Record
	for i := range 6 { // NT, MNP, HLR, NT, ...: interleaved in time
		p := store.Products()[2-i%3]
		rs = append(rs, NewRecord(acct, name, p, fmt.Sprintf("mixed%04d", i), Base.Add(time.Duration(i)*time.Minute), i/3))
	}
	recordAll(t, s, rs)
	got, err := s.Reports(ctx, acct)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, store.Products(), got[0].Products)
	require.EqualValues(t, 6, got[0].Count)

	csv := export(t, s, acct, name, store.CSV)
	header, _, _ := strings.Cut(string(csv), "\r\n")
	require.True(t, strings.HasPrefix(header, "product,id,msisdn,connectivity_status,"), header)
	golden(t, "mixed.csv", csv)
	golden(t, "mixed.json", export(t, s, acct, name, store.JSON))
}

func testPaging(t *testing.T, open Opener) {
	s := openStore(t, open)
	ctx := t.Context()
	const acct, name = "acct-1", "SYNC-API-NT-2026-11"
	rs := fixtures(acct, name, engine.ProductNT, 25, Base, "page")
	// Two results in the same millisecond are ordered by id.
	rs[10].Time, rs[11].Time = rs[12].Time, rs[12].Time
	recordAll(t, s, rs)

	var ids []string
	after := ""
	for range 10 { // 25 results in pages of 7: 4 pages, the last one short
		page, err := s.Query(ctx, acct, name, &store.Query{}, after, 7)
		require.NoError(t, err)
		for _, r := range page.Rows {
			ids = append(ids, r.ID)
		}
		if page.Next == "" {
			require.Len(t, page.Rows, 4)
			break
		}
		require.Len(t, page.Rows, 7)
		after = page.Next
	}
	want := make([]string, len(rs))
	for i, r := range rs {
		want[i] = r.ID
	}
	require.Equal(t, want, ids)

	// A page that ends a report exactly has no next.
	page, err := s.Query(ctx, acct, name, &store.Query{}, "", 25)
	require.NoError(t, err)
	require.Len(t, page.Rows, 25)
	require.Empty(t, page.Next)

	for _, bad := range []string{"nosuchcursor", "e30", "!!!"} {
		_, err = s.Query(ctx, acct, name, &store.Query{}, bad, 7)
		require.ErrorIs(t, err, store.ErrBadCursor, bad)
	}
	// A cursor of one order is not one of another.
	first, err := s.Query(ctx, acct, name, &store.Query{Sort: "number"}, "", 7)
	require.NoError(t, err)
	_, err = s.Query(ctx, acct, name, &store.Query{}, first.Next, 7)
	require.ErrorIs(t, err, store.ErrBadCursor)

	all, err := s.Query(ctx, acct, name, &store.Query{}, "", 5000)
	require.NoError(t, err)
	require.Len(t, all.Rows, 25, "a limit above MaxPage is MaxPage")
}

func testUnknownReport(t *testing.T, open Opener) {
	s := openStore(t, open)
	ctx := t.Context()
	recordAll(t, s, fixtures("acct-1", "SYNC-API-2026-11", engine.ProductHLR, 1, Base, "known"))
	for _, f := range []store.Format{store.CSV, store.JSON} {
		var buf bytes.Buffer
		err := s.Export(ctx, "acct-1", "SYNC-API-2026-10", &store.Query{}, f, &buf)
		require.ErrorIs(t, err, store.ErrUnknownReport)
		require.Zero(t, buf.Len(), "nothing is written before the report is known")
	}
	_, err := s.Query(ctx, "acct-1", "SYNC-API-2026-10", &store.Query{}, "", 0)
	require.ErrorIs(t, err, store.ErrUnknownReport)
	_, err = s.Summary(ctx, "acct-1", "SYNC-API-2026-10")
	require.ErrorIs(t, err, store.ErrUnknownReport)
	err = s.Export(ctx, "acct-1", "SYNC-API-2026-11", &store.Query{}, store.Format("xml"), &bytes.Buffer{})
	require.ErrorContains(t, err, `format "xml"`)
	reports, err := s.Reports(ctx, "nobody")
	require.NoError(t, err)
	require.Empty(t, reports)
}

func testAccountsApart(t *testing.T, open Opener) {
	s := openStore(t, open)
	ctx := t.Context()
	const name = "SYNC-API-2026-11"
	recordAll(t, s, fixtures("acct-a", name, engine.ProductHLR, 2, Base, "a"))
	recordAll(t, s, fixtures("acct-b", name, engine.ProductHLR, 3, Base, "b"))
	for acct, n := range map[string]int64{"acct-a": 2, "acct-b": 3} {
		reports, err := s.Reports(ctx, acct)
		require.NoError(t, err)
		require.Len(t, reports, 1)
		require.Equal(t, n, reports[0].Count, acct)
		page, err := s.Query(ctx, acct, name, &store.Query{}, "", 0)
		require.NoError(t, err)
		require.Len(t, page.Rows, int(n))
		for _, r := range page.Rows {
			require.Equal(t, acct[len(acct)-1:], r.ID[:1], "acct %s sees %s", acct, r.ID)
		}
		sum, err := s.Summary(ctx, acct, name)
		require.NoError(t, err)
		require.Equal(t, n, sum.Count)
	}
	// A cursor made on one account's report reads only the other's
	// rows: it is a position, not a key.
	a, err := s.Query(ctx, "acct-a", name, &store.Query{}, "", 1)
	require.NoError(t, err)
	b, err := s.Query(ctx, "acct-b", name, &store.Query{}, a.Next, 0)
	require.NoError(t, err)
	for _, r := range b.Rows {
		require.Equal(t, "b", r.ID[:1])
	}
	// Nor does an account have a report another one named.
	_, err = s.Query(ctx, "acct-c", name, &store.Query{}, "", 0)
	require.ErrorIs(t, err, store.ErrUnknownReport)
	_, err = s.Summary(ctx, "acct-c", name)
	require.ErrorIs(t, err, store.ErrUnknownReport)
	require.ErrorIs(t, s.Export(ctx, "acct-c", name, &store.Query{}, store.CSV, io.Discard), store.ErrUnknownReport)
}

func testDuplicateID(t *testing.T, open Opener) {
	s := openStore(t, open)
	ctx := t.Context()
	r := NewRecord("acct-1", "SYNC-API-2026-11", engine.ProductHLR, "dup000000001", Base, 0)
	require.NoError(t, s.Record(ctx, r))
	again := r
	again.Time, again.Cost = r.Time.Add(time.Hour), 999
	err := s.Record(ctx, again)
	require.ErrorIs(t, err, store.ErrDuplicateID)
	require.ErrorContains(t, err, "dup000000001")
	// The same id in another account's report is the same id.
	again.Account, again.Storage = "acct-2", "other-2026-11"
	require.ErrorIs(t, s.Record(ctx, again), store.ErrDuplicateID)

	reports, err := s.Reports(ctx, "acct-1")
	require.NoError(t, err)
	require.Len(t, reports, 1)
	require.EqualValues(t, 1, reports[0].Count)
	require.Equal(t, r.Cost, reports[0].Cost)
	require.Equal(t, r.Time.Truncate(time.Millisecond), reports[0].Last)
	reports, err = s.Reports(ctx, "acct-2")
	require.NoError(t, err)
	require.Empty(t, reports)
}

func testInvalidRecord(t *testing.T, open Opener) {
	s := openStore(t, open)
	ctx := t.Context()
	good := NewRecord("acct-1", "SYNC-API-2026-11", engine.ProductHLR, "valid0000001", Base, 0)
	for name, change := range map[string]func(r *engine.Record){
		"no id":         func(r *engine.Record) { r.ID = "" },
		"no account":    func(r *engine.Record) { r.Account = "" },
		"no storage":    func(r *engine.Record) { r.Storage = "" },
		"no time":       func(r *engine.Record) { r.Time = time.Time{} },
		"negative cost": func(r *engine.Record) { r.Cost = -1 },
		"nil result":    func(r *engine.Record) { r.Result = nil },
		"typed nil":     func(r *engine.Record) { r.Result = (*apiv2.HLRResult)(nil) },
	} {
		r := good
		change(&r)
		require.ErrorIs(t, s.Record(ctx, r), store.ErrInvalidRecord, name)
	}
	require.NoError(t, s.Record(ctx, good))
}

func testCanceledContext(t *testing.T, open Opener) {
	s := openStore(t, open)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	r := NewRecord("acct-1", "SYNC-API-2026-11", engine.ProductHLR, "canceled0001", Base, 0)
	require.ErrorIs(t, s.Record(ctx, r), context.Canceled)
	// A context that ended before Record records nothing.
	_, err := s.Query(t.Context(), "acct-1", "SYNC-API-2026-11", &store.Query{}, "", 0)
	require.ErrorIs(t, err, store.ErrUnknownReport)
}

func testConcurrent(t *testing.T, open Opener) {
	s := openStore(t, open)
	ctx := t.Context()
	const workers, each = 32, 200
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			p := store.Products()[w%3]
			name := fmt.Sprintf("report-%d-2026-11", w%4)
			for i := range each {
				r := NewRecord("acct-1", name, p, fmt.Sprintf("w%02di%04d", w, i), Base.Add(time.Duration(i)*time.Millisecond), i)
				if err := s.Record(ctx, r); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	reports, err := s.Reports(ctx, "acct-1")
	require.NoError(t, err)
	require.Len(t, reports, 4)
	var total int64
	seen := map[string]bool{}
	for _, rep := range reports {
		total += rep.Count
		after, n := "", 0
		for range workers * each / store.MaxPage * 2 {
			page, err := s.Query(ctx, "acct-1", rep.Name, &store.Query{}, after, store.MaxPage)
			require.NoError(t, err)
			for _, row := range page.Rows {
				require.False(t, seen[row.ID], "%s twice", row.ID)
				seen[row.ID] = true
			}
			n += len(page.Rows)
			if page.Next == "" {
				break
			}
			after = page.Next
		}
		require.EqualValues(t, rep.Count, n, rep.Name)
	}
	require.EqualValues(t, workers*each, total)
	require.Len(t, seen, workers*each)
}

func testClosed(t *testing.T, open Opener) {
	s := open(t)
	ctx := t.Context()
	r := NewRecord("acct-1", "SYNC-API-2026-11", engine.ProductHLR, "closed000001", Base, 0)
	require.NoError(t, s.Record(ctx, r))
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "closing twice")
	r.ID = "closed000002"
	require.ErrorIs(t, s.Record(ctx, r), store.ErrClosed)
	_, err := s.Reports(ctx, "acct-1")
	require.ErrorIs(t, err, store.ErrClosed)
	require.ErrorIs(t, s.Export(ctx, "acct-1", "SYNC-API-2026-11", &store.Query{}, store.JSON, &bytes.Buffer{}), store.ErrClosed)
	_, err = s.Query(ctx, "acct-1", "SYNC-API-2026-11", &store.Query{}, "", 0)
	require.ErrorIs(t, err, store.ErrClosed)
	_, err = s.Summary(ctx, "acct-1", "SYNC-API-2026-11")
	require.ErrorIs(t, err, store.ErrClosed)
	require.ErrorIs(t, s.Ping(ctx), store.ErrClosed)
}

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	require.True(t, ok)
	GoldenFile(t, filepath.Join(filepath.Dir(file), "testdata", name), got)
}

// GoldenFile compares got with the file at path, or writes it when the
// tests run with -update (a flag this package defines for every test
// that imports it).
func GoldenFile(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is missing: run the test with -update to create it", path)
	}
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "%s differs; run the test with -update and review the diff", path)
}
