package pgstore_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/engine/store/storetest"
)

// pendingCount returns the number of results not yet indexed.
func pendingCount(t *testing.T, dsn string) int64 {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var n int64
	require.NoError(t, conn.QueryRow(ctx, `SELECT coalesce(sum(count), 0) FROM counts_pending`).Scan(&n))
	return n
}

// indexed indexes every pending result (its indexers may hold some a
// while) and checks that none is left.
func indexed(t *testing.T, s *pgstore.Store, dsn string) {
	t.Helper()
	require.Eventually(t, func() bool {
		_, err := s.IndexAll(t.Context())
		require.NoError(t, err)
		return pendingCount(t, dsn) == 0
	}, 20*time.Second, 10*time.Millisecond, "results left pending")
}

// TestReadsCountPending: with every result still pending, the reads count
// them, exactly; once indexed, the same.
func TestReadsCountPending(t *testing.T) {
	pgstore.SetIndexDelay(t, time.Hour)
	ctx := t.Context()
	dsn := pgtest.Database(t)
	s, err := pgstore.Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	const acct, name = "acct-p", "campaign-2026-11"
	rs := storetest.Varied(acct, name, 90)
	require.NoError(t, s.RecordAll(ctx, rs[:60]))
	require.ErrorIs(t, s.RecordAll(ctx, rs[50:]), store.ErrDuplicateID)
	require.NoError(t, s.RecordAll(ctx, storetest.Varied("acct-other", name, 10)))

	require.EqualValues(t, 100, pendingCount(t, dsn), "nothing indexed yet")
	require.EqualValues(t, 100, requireExact(t, s, dsn))
	pending, err := s.Summary(ctx, acct, name)
	require.NoError(t, err)
	// A pending report is known, with its products: all three exported.
	var csv bytes.Buffer
	require.NoError(t, s.Export(ctx, acct, name, &store.Query{}, store.CSV, &csv))
	for _, p := range store.Products() {
		require.Contains(t, csv.String(), string(p))
	}
	page, err := s.Query(ctx, acct, name, &store.Query{}, "", store.MaxPage)
	require.NoError(t, err)
	require.Len(t, page.Rows, 90)

	n, err := s.IndexAll(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 100, n)
	require.Zero(t, pendingCount(t, dsn))
	require.EqualValues(t, 100, requireExact(t, s, dsn))
	indexed, err := s.Summary(ctx, acct, name)
	require.NoError(t, err)
	require.Equal(t, pending, indexed, "the same summary, labels too, pending or indexed")

	// Half indexed, half pending: still exact.
	more := storetest.Varied("acct-q", name, 40)
	require.NoError(t, s.RecordAll(ctx, more[:20]))
	_, err = s.IndexAll(ctx)
	require.NoError(t, err)
	require.NoError(t, s.RecordAll(ctx, more[20:]))
	require.EqualValues(t, 20, pendingCount(t, dsn))
	require.EqualValues(t, 140, requireExact(t, s, dsn))
}

// TestTwoStoresIndexConcurrently: two stores on one database, as two
// nodes, record into the same reports at once, some results on both
// (the second fails as a duplicate), and their indexers race for the same
// pending rows: every report counts each stored result once.
func TestTwoStoresIndexConcurrently(t *testing.T) {
	pgstore.SetIndexDelay(t, time.Millisecond) // many small index transactions: many races
	ctx := t.Context()
	dsn := pgtest.Database(t)
	var nodes [2]*pgstore.Store
	for i := range nodes {
		s, err := pgstore.Open(ctx, dsn)
		require.NoError(t, err)
		defer s.Close()
		nodes[i] = s
	}
	const callers, each = 8, 300
	var duplicates atomic.Int64
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range each {
				// Two callers share each id: the one that comes second
				// fails, on either node.
				id := fmt.Sprintf("two-%d-%05d", c/2, i)
				p := store.Products()[i%3]
				r := storetest.NewRecord(fmt.Sprintf("acct-%d", i%3), fmt.Sprintf("report-%d", i%4), p, id,
					storetest.Base.Add(time.Duration(i)*time.Hour), i)
				err := nodes[(c+i)%2].Record(ctx, r)
				if errors.Is(err, store.ErrDuplicateID) {
					duplicates.Add(1)
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	require.EqualValues(t, callers/2*each, duplicates.Load(), "every id twice, stored once")
	for _, s := range nodes {
		require.EqualValues(t, callers/2*each, requireExact(t, s, dsn))
	}
	indexed(t, nodes[0], dsn)
	require.EqualValues(t, callers/2*each, requireExact(t, nodes[0], dsn))
}

// TestIndexerKilledMidway terminates the indexer's connection again and
// again (pg_terminate_backend, as a failover or an administrator would)
// while results are recorded: each transaction it loses leaves its
// results pending, none counted twice or lost, and the counts are exact.
func TestIndexerKilledMidway(t *testing.T) {
	pgstore.SetIndexDelay(t, 0)
	pgstore.SetIndexRetry(t, 0)
	ctx := t.Context()
	dsn := pgtest.Database(t)
	// The errors of the transactions killed are expected: not logged.
	s, err := pgstore.Open(ctx, dsn, pgstore.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	defer s.Close()
	admin, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer admin.Close(ctx)

	done := make(chan struct{})
	var killed atomic.Int64
	var killer sync.WaitGroup
	killer.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			// About every other index statement (by the microsecond it
			// began), so that some commit and some die; chosen and
			// killed in one statement, so that the connection is still
			// at it, not at a commit of results or a read.
			var n int64
			err := admin.QueryRow(ctx, `
SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'
	AND query LIKE '/* pgstore indexer */%' AND extract(microseconds FROM query_start)::bigint % 2 = 0`).Scan(&n)
			if err != nil {
				t.Error(err)
				return
			}
			killed.Add(n)
		}
	})
	const callers, each = 8, 400
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range each {
				r := storetest.NewRecord("acct-k", fmt.Sprintf("report-%d", i%3), store.Products()[i%3],
					fmt.Sprintf("k%d-%05d", c, i), storetest.Base.Add(time.Duration(i)*time.Minute), i)
				if err := s.Record(ctx, r); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(done)
	killer.Wait()
	t.Logf("%d index transactions killed; %d results pending after", killed.Load(), pendingCount(t, dsn))
	require.Positive(t, killed.Load(), "the test killed no index transaction")
	require.EqualValues(t, callers*each, requireExact(t, s, dsn))
	// The pool replaces the connections killed; the next pass indexes all.
	indexed(t, s, dsn)
	require.EqualValues(t, callers*each, requireExact(t, s, dsn))
}
