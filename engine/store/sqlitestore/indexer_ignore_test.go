package sqlitestore

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/storetest"
)

// batchOf returns n results of one report, as the log hands them to the
// indexer.
func batchOf(t *testing.T, from, n int) []logged {
	t.Helper()
	var batch []logged
	for i := from; i < from+n; i++ {
		r := storetest.NewRecord("acct", "SYNC-API-NT-2026-11", engine.ProductNT, fmt.Sprintf("x%05d", i), storetest.Base.Add(time.Duration(i)*time.Second), i)
		e, err := store.EntryOf(r)
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, logged{entry: e, segment: 1, end: int64(i + 1)})
	}
	return batch
}

// TestIndexerSkipsOnlyDuplicates checks the many-row INSERT OR IGNORE of
// the indexer: a batch with results already in the database (a log
// replayed over it) inserts and counts only the others, and a row that
// breaks a constraint other than the id's fails the commit instead of
// being skipped.
func TestIndexerSkipsOnlyDuplicates(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, err := Open(ctx, t.TempDir(), WithIndexDelay(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	summary := func() store.Summary {
		t.Helper()
		sum, err := s.Summary(ctx, "acct", "SYNC-API-NT-2026-11")
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	count := func() (n int) {
		t.Helper()
		if err := s.rdb.QueryRowContext(ctx, `SELECT count(*) FROM results`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// 100 results, then 200 of which the first 100 are the same: the
	// database holds 200, counted once each.
	if err := s.idx.commit(batchOf(t, 0, 100)); err != nil {
		t.Fatal(err)
	}
	if err := s.idx.commit(batchOf(t, 0, 200)); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 200 {
		t.Fatalf("%d results stored, want 200", n)
	}
	got := summary()
	want, err := storeOnce(ctx, t, batchOf(t, 0, 200))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary after a replayed batch:\n%+v\nwant (the same results indexed once):\n%+v", got, want)
	}

	// A result whose product the table refuses (CHECK) among new ones:
	// the commit fails and stores none of them.
	bad := batchOf(t, 300, 100)
	bad[50].entry.Product = "XYZ"
	if err := s.idx.commit(bad); err == nil {
		t.Fatal("a batch with a product the table refuses committed")
	}
	if n := count(); n != 200 {
		t.Fatalf("%d results stored after a failed commit, want 200", n)
	}
	if got := summary(); !reflect.DeepEqual(got, want) {
		t.Errorf("summary after a failed commit:\n%+v\nwant:\n%+v", got, want)
	}
}

// storeOnce indexes batch in a new store and returns its summary.
func storeOnce(ctx context.Context, t *testing.T, batch []logged) (store.Summary, error) {
	s, err := Open(ctx, t.TempDir(), WithIndexDelay(time.Hour))
	if err != nil {
		return store.Summary{}, err
	}
	defer s.Close()
	if err := s.idx.commit(batch); err != nil {
		return store.Summary{}, err
	}
	return s.Summary(ctx, "acct", "SYNC-API-NT-2026-11")
}
