package sqlitestore_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/facts"
	"github.com/numenhq/numen/engine/store/sqlitestore"
)

// The job kinds of package bulk, as the fixture's version queued them
// (bulk's own types are not exported; their kinds and JSON are the
// contract a database keeps across versions).
type fixtureLookup struct {
	Account string `json:"account"`
	Product string `json:"product"`
	Items   []struct {
		ID string `json:"id"`
	} `json:"items"`
}

func (fixtureLookup) Kind() string { return "numen_bulk_lookup" }

type fixtureDelivery struct {
	Batch string `json:"batch"`
	URL   string `json:"url"`
}

func (fixtureDelivery) Kind() string { return "numen_webhook_delivery" }

type kindWorker[T river.JobArgs] struct {
	river.WorkerDefaults[T]
	mu    sync.Mutex
	jobs  []T
	first chan struct{} // closed after the first job
}

func newKindWorker[T river.JobArgs]() *kindWorker[T] {
	return &kindWorker[T]{first: make(chan struct{})}
}

func (w *kindWorker[T]) Work(ctx context.Context, job *river.Job[T]) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.jobs = append(w.jobs, job.Args)
	if len(w.jobs) == 1 {
		close(w.first)
	}
	return nil
}

func (w *kindWorker[T]) worked() []T {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]T(nil), w.jobs...)
}

// TestOpensVersion1DataDirectory opens a data directory written by numen
// at f3e6795 (River v0.31.0, schema 2; testdata/README.md) and requires
// everything it acknowledged: every result, in its report, the idempotency
// keys, the pending webhook delivery, and both queued jobs, which the
// workers then run.
func TestOpensVersion1DataDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tar := exec.Command("tar", "xzf", filepath.Join("testdata", "v1-datadir.tgz"), "-C", dir)
	out, err := tar.CombinedOutput()
	require.NoError(t, err, "%s", out)
	s, err := sqlitestore.Open(t.Context(), dir)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	ctx := t.Context()
	require.NoError(t, s.Ping(ctx))

	// Every id the old server answered is stored.
	f, err := os.Open(filepath.Join("testdata", "v1-datadir.responses.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var answer struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &answer))
		if answer.ID != "" {
			ids = append(ids, answer.ID)
		}
		// The ids of a bulk receipt are results to come; the job that ran
		// has its three in the ASYNC report, checked below.
	}
	require.NoError(t, sc.Err())
	require.Len(t, ids, 10, "the sync answers of the fixture")
	bodies, err := s.Bodies(ctx, ids)
	require.NoError(t, err)
	for _, id := range ids {
		require.Contains(t, bodies, id, "acknowledged by the old version, lost in the upgrade")
	}

	counts := map[string]int64{}
	reports, err := s.Reports(ctx, "fixture")
	require.NoError(t, err)
	for _, r := range reports {
		counts[r.Name] = r.Count
	}
	require.Equal(t, map[string]int64{
		"SYNC-API-NT-2026-11":   6, // 5, and the one acknowledged before SIGKILL
		"SYNC-API-2026-11":      3,
		"FIXTURE-NAMED-2026-11": 1,
		"ASYNC-API-NT-2026-11":  3, // the bulk job that ran
	}, counts)

	// The results stored before the columns of the filters and the
	// summaries existed have them (migrations 4 and 5), the same as new
	// ones.
	for _, r := range reports {
		sum, err := s.Summary(ctx, "fixture", r.Name)
		require.NoError(t, err)
		require.Equal(t, r.Count, sum.Count, r.Name)
		require.Equal(t, r.Cost, sum.Cost, r.Name)
		var days int64
		for _, d := range sum.Days {
			days += d.Count
		}
		require.Equal(t, r.Count, days, r.Name)
		// Every field's values count every result once, those of
		// migration 5 (validity, invalid reason, route) included.
		for _, f := range store.Fields() {
			var n int64
			for _, v := range sum.Values[f] {
				n += v.Count
			}
			require.Equal(t, r.Count, n, "%s: %s", r.Name, f)
		}
		page, err := s.Query(ctx, "fixture", r.Name, &store.Query{}, "", 0)
		require.NoError(t, err)
		for _, row := range page.Rows {
			want, err := facts.FromJSON(row.Product, row.Result)
			require.NoError(t, err)
			q := &store.Query{NumberPrefix: want.Number, Where: []store.Cond{
				{Field: store.FieldStatus, Value: want.Status}, {Field: store.FieldCountry, Value: want.Country},
				{Field: store.FieldNetwork, Value: want.Network}, {Field: store.FieldNumberType, Value: want.NumberType},
				{Field: store.FieldConnectivity, Value: want.Connectivity}, {Field: store.FieldProduct, Value: string(row.Product)},
				{Field: store.FieldValid, Value: want.Valid}, {Field: store.FieldInvalidReason, Value: want.InvalidReason},
				{Field: store.FieldRoute, Value: want.Route},
			}}
			if !strings.HasPrefix(want.Number, "+") {
				q.NumberPrefix = "" // the text of an invalid number is no prefix
			}
			found, err := s.Query(ctx, "fixture", r.Name, q, "", store.MaxPage)
			require.NoError(t, err)
			require.Contains(t, rowIDs(found.Rows), row.ID, "%s by its facts %+v", row.ID, want)
		}
	}

	for key, accepted := range map[string]int{"fixture-bulk-1": 3, "fixture-bulk-2": 1} {
		c, err := s.Claim(ctx, "fixture", key)
		require.NoError(t, err)
		require.NotNil(t, c, key)
		var receipt struct {
			AcceptedCount int `json:"accepted_count"`
		}
		require.NoError(t, json.Unmarshal(c.Receipt, &receipt))
		require.Equal(t, accepted, receipt.AcceptedCount, key)
	}

	ds, err := s.Deliveries(ctx, "fixture", 10)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	require.Equal(t, store.DeliveryPending, ds[0].State)
	require.Equal(t, 1, ds[0].Attempts)
	batch, err := s.Batch(ctx, ds[0].Batch)
	require.NoError(t, err)
	require.Equal(t, 3, batch.Results)

	// The queue: the delivery to retry and the job that never ran.
	lookups, deliveries := newKindWorker[fixtureLookup](), newKindWorker[fixtureDelivery]()
	workers := river.NewWorkers()
	river.AddWorker(workers, lookups)
	river.AddWorker(workers, deliveries)
	require.NoError(t, s.StartQueue(ctx, store.QueueConfig{
		Workers: workers, PollInterval: 50 * time.Millisecond, RescueAfter: time.Minute,
		Queues: map[string]river.QueueConfig{"bulk_lookups": {MaxWorkers: 1}, "webhook_deliveries": {MaxWorkers: 1}},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}))
	timeout := time.After(30 * time.Second)
	for _, first := range []chan struct{}{lookups.first, deliveries.first} {
		select {
		case <-first:
		case <-timeout:
			t.Fatal("the queued jobs did not run within 30 s")
		}
	}
	require.NoError(t, s.StopQueue(ctx))
	require.Len(t, lookups.worked(), 1, "the accepted HLR job runs after the upgrade")
	require.Equal(t, "HLR", lookups.worked()[0].Product)
	require.Len(t, lookups.worked()[0].Items, 1)
	require.Equal(t, []fixtureDelivery{{Batch: batch.ID, URL: "http://127.0.0.1:9/results"}}, deliveries.worked())

	var user int
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, sqlitestore.FileName)+"?mode=ro")
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.QueryRow("PRAGMA user_version").Scan(&user))
	require.Equal(t, sqlitestore.SchemaVersion, user)
}

func rowIDs(rows []store.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}
