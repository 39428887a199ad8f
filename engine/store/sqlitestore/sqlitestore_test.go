package sqlitestore_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/sqlitestore"
	"github.com/numenhq/numen/engine/store/storetest"
	"github.com/numenhq/numen/routing"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := sqlitestore.Open(t.TempDir())
		require.NoError(t, err)
		return s
	})
}

func TestConformanceNoDelay(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := sqlitestore.Open(t.TempDir(), sqlitestore.WithGroupCommit(16, 0), sqlitestore.WithReaders(1))
		require.NoError(t, err)
		return s
	})
}

func open(t *testing.T, dir string, opts ...sqlitestore.Option) *sqlitestore.Store {
	t.Helper()
	s, err := sqlitestore.Open(dir, opts...)
	require.NoError(t, err)
	return s
}

func record(id string, i int) engine.Record {
	p := store.Products()[i%3]
	return storetest.NewRecord("acct-1", "report-"+string(p)+"-2026-11", p, id, storetest.Base.Add(time.Duration(i)*time.Millisecond), i)
}

// snapshot is everything an account's store holds, to compare two opens.
func snapshot(t *testing.T, s store.Store, account string) (reports []store.Report, exports map[string]string) {
	t.Helper()
	ctx := context.Background()
	reports, err := s.Reports(ctx, account)
	require.NoError(t, err)
	exports = map[string]string{}
	for _, r := range reports {
		for _, f := range []store.Format{store.CSV, store.JSON} {
			var buf bytes.Buffer
			require.NoError(t, s.Export(ctx, account, r.Name, f, &buf))
			exports[r.Name+"."+string(f)] = buf.String()
		}
	}
	return reports, exports
}

func TestReopenKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	for i := range 50 {
		require.NoError(t, s.Record(context.Background(), record(fmt.Sprintf("reopen%04d", i), i)))
	}
	reports, exports := snapshot(t, s, "acct-1")
	require.Len(t, reports, 3)
	require.NoError(t, s.Close())

	s = open(t, dir)
	defer s.Close()
	reports2, exports2 := snapshot(t, s, "acct-1")
	require.Equal(t, reports, reports2)
	require.Equal(t, exports, exports2)
	// And it takes more.
	require.NoError(t, s.Record(context.Background(), record("reopen9999", 0)))
}

func TestOpenTwiceMigratesOnce(t *testing.T) {
	dir := t.TempDir()
	for range 3 {
		s := open(t, dir)
		require.NoError(t, s.Ping(context.Background()))
		require.NoError(t, s.Close())
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, sqlitestore.FileName))
	require.NoError(t, err)
	defer db.Close()
	var version int
	require.NoError(t, db.QueryRow("PRAGMA user_version").Scan(&version))
	require.Equal(t, sqlitestore.SchemaVersion, version)
	var mode string
	require.NoError(t, db.QueryRow("PRAGMA journal_mode").Scan(&mode))
	require.Equal(t, "wal", mode)

	// Two stores on one directory at once (two processes, say) share it.
	a, b := open(t, dir), open(t, dir)
	require.NoError(t, a.Record(context.Background(), record("twice0000001", 0)))
	require.NoError(t, b.Record(context.Background(), record("twice0000002", 3)))
	require.ErrorIs(t, b.Record(context.Background(), record("twice0000001", 0)), store.ErrDuplicateID)
	rows, err := a.Results(context.Background(), "acct-1", "report-HLR-2026-11", "", 0)
	require.NoError(t, err)
	require.Len(t, rows, 2)
	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
}

func TestOpenNewerSchema(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, open(t, dir).Close())
	db, err := sql.Open("sqlite", filepath.Join(dir, sqlitestore.FileName))
	require.NoError(t, err)
	_, err = db.Exec(fmt.Sprintf("PRAGMA user_version = %d", sqlitestore.SchemaVersion+1))
	require.NoError(t, err)
	require.NoError(t, db.Close())
	_, err = sqlitestore.Open(dir)
	require.ErrorContains(t, err, "newer than this build")
}

func TestOpenCreatesPrivateFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	dir := filepath.Join(t.TempDir(), "a", "b")
	s := open(t, dir)
	require.NoError(t, s.Record(context.Background(), record("private00001", 0)))
	require.Equal(t, filepath.Join(dir, sqlitestore.FileName), s.Path())
	for _, name := range []string{"", sqlitestore.FileName, sqlitestore.FileName + "-wal"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Zero(t, fi.Mode().Perm()&0o077, "%s is %v", name, fi.Mode())
	}
	require.NoError(t, s.Close())
}

func TestOpenPathWithOddCharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my reports?x=1#frag%20&_pragma=x")
	s := open(t, dir)
	require.NoError(t, s.Record(context.Background(), record("oddpath00001", 0)))
	require.NoError(t, s.Close())
	_, err := os.Stat(filepath.Join(dir, sqlitestore.FileName))
	require.NoError(t, err)
}

func TestOpenUnwritable(t *testing.T) {
	t.Run("parent is a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		require.NoError(t, os.WriteFile(file, nil, 0o600))
		dir := filepath.Join(file, "store")
		_, err := sqlitestore.Open(dir)
		require.ErrorContains(t, err, "sqlitestore: open "+filepath.Join(dir, sqlitestore.FileName)+": create directory")
		t.Log(err)
	})
	t.Run("read-only directory", func(t *testing.T) {
		if runtime.GOOS == "windows" || os.Geteuid() == 0 {
			t.Skip("root (or Windows) writes to read-only directories")
		}
		dir := filepath.Join(t.TempDir(), "ro")
		require.NoError(t, os.Mkdir(dir, 0o500))
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		_, err := sqlitestore.Open(dir)
		require.ErrorContains(t, err, "directory "+dir+" is not writable")
		require.ErrorIs(t, err, os.ErrPermission)
		t.Log(err)
	})
}

// stall returns a WithBeforeCommit hook that holds the first transaction
// until release is closed, and reports the ids of every transaction.
func stall() (opt sqlitestore.Option, held <-chan struct{}, release chan struct{}, batches func() [][]string) {
	var mu sync.Mutex
	var seen [][]string
	h, r := make(chan struct{}), make(chan struct{})
	opt = sqlitestore.WithBeforeCommit(func(ids []string) error {
		mu.Lock()
		seen = append(seen, slices.Clone(ids))
		first := len(seen) == 1
		mu.Unlock()
		if first {
			close(h)
			<-r
		}
		return nil
	})
	return opt, h, r, func() [][]string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// waitQueued waits until n results wait for the writer.
func waitQueued(t *testing.T, s *sqlitestore.Store, n int) {
	t.Helper()
	for range 100000 {
		if sqlitestore.Queued(s) == n {
			return
		}
		time.Sleep(100 * time.Microsecond)
	}
	t.Fatalf("%d results queued, want %d", sqlitestore.Queued(s), n)
}

func TestDuplicateFailsAloneInBatch(t *testing.T) {
	opt, held, release, batches := stall()
	s := open(t, t.TempDir(), opt)
	defer s.Close()
	ctx := context.Background()

	first := make(chan error, 1)
	go func() { first <- s.Record(ctx, record("batch0000000", 0)) }()
	<-held // the writer holds the first transaction open

	ids := []string{"batch0000001", "batch0000000", "batch0000002", "batch0000002", "batch0000003"}
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() { errs[i] = s.Record(ctx, record(id, i)) })
		waitQueued(t, s, i+1) // in this order
	}
	close(release)
	wg.Wait()
	require.NoError(t, <-first)

	// The batch after the first met a duplicate id: it is appended again
	// one result per transaction, and the duplicates commit nothing.
	require.Equal(t, [][]string{{"batch0000000"}, {"batch0000001"}, {"batch0000002"}, {"batch0000003"}}, batches())
	require.NoError(t, errs[0])
	require.ErrorIs(t, errs[1], store.ErrDuplicateID) // committed in the first transaction
	require.NoError(t, errs[2])
	require.ErrorIs(t, errs[3], store.ErrDuplicateID) // twice in the same batch
	require.NoError(t, errs[4])

	reports, err := s.Reports(ctx, "acct-1")
	require.NoError(t, err)
	var n int64
	for _, r := range reports {
		n += r.Count
	}
	require.EqualValues(t, 4, n, "batch0000000 to batch0000003, each once")
}

func TestFailedBatchRetriedOneByOne(t *testing.T) {
	var mu sync.Mutex
	var attempts [][]string
	fail := errors.New("injected failure")
	held, release := make(chan struct{}), make(chan struct{})
	opt := sqlitestore.WithBeforeCommit(func(ids []string) error {
		mu.Lock()
		attempts = append(attempts, slices.Clone(ids))
		first := len(attempts) == 1
		mu.Unlock()
		if first {
			close(held)
			<-release
		}
		if slices.Contains(ids, "bad000000000") {
			return fail
		}
		return nil
	})
	s := open(t, t.TempDir(), opt)
	defer s.Close()
	ctx := context.Background()
	first := make(chan error, 1)
	go func() { first <- s.Record(ctx, record("good00000000", 0)) }()
	<-held

	ids := []string{"good00000001", "bad000000000", "good00000002"}
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() { errs[i] = s.Record(ctx, record(id, i)) })
		waitQueued(t, s, i+1)
	}
	close(release)
	wg.Wait()
	require.NoError(t, <-first)

	require.Equal(t, [][]string{{"good00000000"}, ids, {"good00000001"}, {"bad000000000"}, {"good00000002"}}, attempts)
	require.NoError(t, errs[0])
	require.ErrorIs(t, errs[1], fail)
	require.ErrorContains(t, errs[1], `sqlitestore: append result "bad000000000" to `)
	require.NoError(t, errs[2])
	require.Equal(t, []string{"good00000000", "good00000001", "good00000002"}, storedIDs(t, s))
}

// storedIDs returns the ids of every result of acct-1, sorted.
func storedIDs(t *testing.T, s store.Store) []string {
	t.Helper()
	ctx := context.Background()
	reports, err := s.Reports(ctx, "acct-1")
	require.NoError(t, err)
	var ids []string
	for _, r := range reports {
		after := ""
		for range r.Count/store.MaxPage + 1 {
			page, err := s.Results(ctx, "acct-1", r.Name, after, store.MaxPage)
			require.NoError(t, err)
			for _, row := range page {
				ids = append(ids, row.ID)
			}
			if len(page) == 0 {
				break
			}
			after = page[len(page)-1].ID
		}
	}
	slices.Sort(ids)
	return ids
}

func TestContextEndsWhileCommitting(t *testing.T) {
	opt, held, release, _ := stall()
	dir := t.TempDir()
	s := open(t, dir, opt)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Record(ctx, record("late00000001", 0)) }()
	<-held // in the transaction, not committed
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	close(release)
	require.NoError(t, s.Close())

	// Recorded although not acknowledged: allowed, and the id stays taken.
	s = open(t, dir)
	defer s.Close()
	require.Equal(t, []string{"late00000001"}, storedIDs(t, s))
}

func TestCloseDrainsPending(t *testing.T) {
	dir := t.TempDir()
	opt, held, release, _ := stall()
	s := open(t, dir, opt)
	ctx := context.Background()
	const n = 40
	errs := make([]error, n)
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = s.Record(ctx, record("drain0000000", 0)) })
	<-held
	for i := 1; i < n; i++ {
		wg.Go(func() { errs[i] = s.Record(ctx, record(fmt.Sprintf("drain%07d", i), i)) })
	}
	waitQueued(t, s, n-1)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	// Close waits for the writer, which waits for release: results queued
	// before Close are committed, not dropped.
	for range 100000 {
		if errors.Is(s.Ping(ctx), store.ErrClosed) {
			break
		}
		time.Sleep(100 * time.Microsecond)
	}
	require.ErrorIs(t, s.Record(ctx, record("refused00000", 0)), store.ErrClosed)
	close(release)
	wg.Wait()
	require.NoError(t, <-closed)
	for i, err := range errs {
		require.NoError(t, err, "record %d", i)
	}
	s = open(t, dir)
	defer s.Close()
	require.Len(t, storedIDs(t, s), n)
}

func TestRecordAfterCloseIsErrClosed(t *testing.T) {
	s := open(t, t.TempDir())
	require.NoError(t, s.Close())
	err := s.Record(context.Background(), record("afterclose01", 0))
	require.ErrorIs(t, err, store.ErrClosed)
	require.ErrorContains(t, err, "afterclose01")
}

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "numen-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	st, err := sqlitestore.Open(dir)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	ctx := context.Background()
	// The engine calls Record (engine.Options.Sink) before it answers.
	r := storetest.NewRecord("demo", "SYNC-API-NT-2026-11", routing.NT, "x7k2m9q4w1ab", storetest.Base, 0)
	if err := st.Record(ctx, r); err != nil {
		panic(err)
	}
	reports, err := st.Reports(ctx, "demo")
	if err != nil {
		panic(err)
	}
	for _, rep := range reports {
		fmt.Println(rep.Name, rep.Products, rep.Count, rep.Cost)
	}
	if err := st.Export(ctx, "demo", "SYNC-API-NT-2026-11", store.CSV, os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// SYNC-API-NT-2026-11 [NT] 1 0.0010
	// id,number,number_type,query_status,is_valid,invalid_reason,is_possibly_ported,is_vanity_number,qualifies_for_hlr_lookup,mccmnc,mcc,mnc,original_network_name,original_country_name,original_country_code,original_country_prefix,regions,timezones,info_text,cost,timestamp,storage,route
	// x7k2m9q4w1ab,+4930123456,LANDLINE,OK,true,,false,false,false,,,,,Germany,DE,+49,Berlin|Brandenburg,Europe/Berlin,,0.0010,2026-11-03 09:30:00.123+0000,SYNC-API-NT-2026-11,NT1
}

// A Record returns only after the WAL has been synced following its
// commit. While the syncer flushes, the writer commits one batch more,
// and holds back the results that arrive after it until the syncer has
// taken that batch: one commit per flush, with everything that arrived
// meanwhile.
func TestRecordWaitsForSync(t *testing.T) {
	var syncs atomic.Int32
	release := make(chan struct{})
	s := open(t, t.TempDir(), sqlitestore.WithSync(func() error {
		syncs.Add(1)
		<-release
		return nil
	}))
	t.Cleanup(func() { close(release); s.Close() })
	ctx := context.Background()
	visible := func() int {
		rows, err := s.Results(ctx, "acct-1", "report-HLR-2026-11", "", 10)
		require.NoError(t, err)
		return len(rows)
	}
	notYet := func(errs chan error) {
		select {
		case err := <-errs:
			t.Fatalf("Record returned %v before its sync", err)
		case <-time.After(50 * time.Millisecond):
		}
	}

	a := make(chan error, 1)
	go func() { a <- s.Record(ctx, record("syncwait0001", 0)) }()
	require.Eventually(t, func() bool { return syncs.Load() == 1 }, 5*time.Second, time.Millisecond)
	require.Equal(t, 1, visible()) // committed, not yet acknowledged
	notYet(a)

	// B commits while the first flush waits: the syncer has taken A.
	b := make(chan error, 1)
	go func() { b <- s.Record(ctx, record("syncwait0002", 3)) }()
	require.Eventually(t, func() bool { return visible() == 2 }, 5*time.Second, time.Millisecond)

	// C and D wait for the writer's next commit: B still waits for the
	// syncer.
	cd := make(chan error, 2)
	go func() { cd <- s.Record(ctx, record("syncwait0003", 6)) }()
	go func() { cd <- s.Record(ctx, record("syncwait0004", 9)) }()
	require.Eventually(t, func() bool { return sqlitestore.Held(s) == 2 }, 5*time.Second, time.Millisecond)
	notYet(cd)
	require.Equal(t, 2, visible())

	release <- struct{}{} // the first flush ends: A is acknowledged
	require.NoError(t, <-a)
	require.Eventually(t, func() bool { return syncs.Load() == 2 }, 5*time.Second, time.Millisecond)
	require.Eventually(t, func() bool { return visible() == 4 }, 5*time.Second, time.Millisecond) // C and D, one commit
	notYet(b)
	release <- struct{}{} // B
	require.NoError(t, <-b)
	require.Eventually(t, func() bool { return syncs.Load() == 3 }, 5*time.Second, time.Millisecond)
	notYet(cd)
	release <- struct{}{} // C and D, one flush
	require.NoError(t, <-cd)
	require.NoError(t, <-cd)
	require.EqualValues(t, 3, syncs.Load())
}

// A failed sync fails the Records it would have acknowledged, and every
// Record after it, with an error that says so; the store must be opened
// again.
func TestFailedSyncBreaksTheStore(t *testing.T) {
	dir := t.TempDir()
	var fail atomic.Bool
	s := open(t, dir, sqlitestore.WithSync(func() error {
		if fail.Load() {
			return errors.New("input/output error")
		}
		return nil
	}))
	ctx := context.Background()
	require.NoError(t, s.Record(ctx, record("syncfail0001", 0)))
	fail.Store(true)
	err := s.Record(ctx, record("syncfail0002", 3))
	require.ErrorContains(t, err, "input/output error")
	require.ErrorContains(t, err, "takes no more results until it is opened again")
	fail.Store(false)
	err = s.Record(ctx, record("syncfail0003", 6))
	require.ErrorContains(t, err, "takes no more results until it is opened again")
	require.ErrorContains(t, s.Ping(ctx), "takes no more results until it is opened again")
	require.NoError(t, s.Close())

	// Opened again, the store has what it committed and takes results.
	s = open(t, dir)
	defer s.Close()
	require.NoError(t, s.Record(ctx, record("syncfail0004", 9)))
	bodies, err := s.Bodies(ctx, []string{"syncfail0001", "syncfail0002", "syncfail0003", "syncfail0004"})
	require.NoError(t, err)
	require.Contains(t, bodies, "syncfail0001")
	require.Contains(t, bodies, "syncfail0004")
	require.NotContains(t, bodies, "syncfail0003") // never committed
}

// The writer never checkpoints (wal_autocheckpoint=0); the checkpointer
// does, so that the WAL starts again from its beginning (its header's
// checkpoint sequence number grows) rather than growing without end,
// also while results keep arriving.
func TestCheckpointer(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, sqlitestore.WithRestartFrames(32))
	defer s.Close()
	ctx := context.Background()
	walSequence := func() uint32 {
		h := make([]byte, 32)
		f, err := os.Open(filepath.Join(dir, sqlitestore.FileName+"-wal"))
		require.NoError(t, err)
		defer f.Close()
		_, err = f.ReadAt(h, 0)
		require.NoError(t, err)
		return uint32(h[12])<<24 | uint32(h[13])<<16 | uint32(h[14])<<8 | uint32(h[15])
	}
	require.NoError(t, s.Record(ctx, record("ckpx00000000", 0)))
	start := walSequence()

	// 8 writers for at least 400 ms (several checkpoint pauses), at most
	// 40,000 results.
	var wg sync.WaitGroup
	deadline := time.Now().Add(400 * time.Millisecond)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5000 && time.Now().Before(deadline); i++ {
				require.NoError(t, s.Record(ctx, record(fmt.Sprintf("ckpt%d%07d", w, i), i)))
			}
		}()
	}
	wg.Wait()
	require.Positive(t, sqlitestore.Checkpointed(s))
	// The WAL file's header changes when the first commit after a complete
	// checkpoint writes the WAL from its beginning again: keep committing
	// (once per poll) until one does.
	polls := 0
	require.Eventually(t, func() bool {
		polls++
		require.NoError(t, s.Record(ctx, record(fmt.Sprintf("ckpy%08d", polls), polls)))
		return walSequence() > start
	}, 20*time.Second, 20*time.Millisecond, "the WAL never started again")
}
