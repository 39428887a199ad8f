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
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/sqlitestore"
	"github.com/numenhq/numen/engine/store/storetest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := sqlitestore.Open(t.Context(), t.TempDir())
		require.NoError(t, err)
		return s
	})
}

func TestQueueConformance(t *testing.T) {
	t.Parallel()
	storetest.RunQueue(t, func(t *testing.T) store.Database {
		s, err := sqlitestore.Open(t.Context(), t.TempDir())
		require.NoError(t, err)
		return s
	})
}

func TestConformanceNoDelay(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := sqlitestore.Open(t.Context(), t.TempDir(), sqlitestore.WithGroupCommit(16, 0), sqlitestore.WithReaders(1))
		require.NoError(t, err)
		return s
	})
}

func open(t *testing.T, dir string, opts ...sqlitestore.Option) *sqlitestore.Store {
	t.Helper()
	s, err := sqlitestore.Open(t.Context(), dir, opts...)
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
	ctx := t.Context()
	reports, err := s.Reports(ctx, account)
	require.NoError(t, err)
	exports = map[string]string{}
	for _, r := range reports {
		for _, f := range []store.Format{store.CSV, store.JSON} {
			var buf bytes.Buffer
			require.NoError(t, s.Export(ctx, account, r.Name, &store.Query{}, f, &buf))
			exports[r.Name+"."+string(f)] = buf.String()
		}
	}
	return reports, exports
}

func TestReopenKeepsEverything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	for i := range 50 {
		require.NoError(t, s.Record(t.Context(), record(fmt.Sprintf("reopen%04d", i), i)))
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
	require.NoError(t, s.Record(t.Context(), record("reopen9999", 0)))
}

func TestOpenTwiceMigratesOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for range 3 {
		s := open(t, dir)
		require.NoError(t, s.Ping(t.Context()))
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

	// A second store on a directory in use fails at once, naming it.
	a := open(t, dir)
	_, err = sqlitestore.Open(t.Context(), dir)
	require.ErrorContains(t, err, "is open in another store")
	require.ErrorContains(t, err, sqlitestore.LockName)
	require.NoError(t, a.Record(t.Context(), record("twice0000001", 0)))
	require.NoError(t, a.Close())
	b := open(t, dir)
	require.ErrorIs(t, b.Record(t.Context(), record("twice0000001", 0)), store.ErrDuplicateID)
	require.NoError(t, b.Close())
}

func TestOpenNewerSchema(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, open(t, dir).Close())
	db, err := sql.Open("sqlite", filepath.Join(dir, sqlitestore.FileName))
	require.NoError(t, err)
	_, err = db.Exec(fmt.Sprintf("PRAGMA user_version = %d", sqlitestore.SchemaVersion+1))
	require.NoError(t, err)
	require.NoError(t, db.Close())
	_, err = sqlitestore.Open(t.Context(), dir)
	require.ErrorContains(t, err, "newer than this build")
}

func TestOpenCreatesPrivateFiles(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	dir := filepath.Join(t.TempDir(), "a", "b")
	s := open(t, dir)
	require.NoError(t, s.Record(t.Context(), record("private00001", 0)))
	require.Equal(t, filepath.Join(dir, sqlitestore.FileName), s.Path())
	for _, name := range []string{"", sqlitestore.FileName, sqlitestore.FileName + "-wal"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Zero(t, fi.Mode().Perm()&0o077, "%s is %v", name, fi.Mode())
	}
	require.NoError(t, s.Close())
}

func TestOpenPathWithOddCharacters(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "my reports?x=1#frag%20&_pragma=x")
	s := open(t, dir)
	require.NoError(t, s.Record(t.Context(), record("oddpath00001", 0)))
	require.NoError(t, s.Close())
	_, err := os.Stat(filepath.Join(dir, sqlitestore.FileName))
	require.NoError(t, err)
}

func TestOpenUnwritable(t *testing.T) {
	t.Parallel()
	t.Run("parent is a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		require.NoError(t, os.WriteFile(file, nil, 0o600))
		dir := filepath.Join(file, "store")
		_, err := sqlitestore.Open(t.Context(), dir)
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
		_, err := sqlitestore.Open(t.Context(), dir)
		require.ErrorContains(t, err, "directory "+dir+" is not writable")
		require.ErrorIs(t, err, os.ErrPermission)
		t.Log(err)
	})
}

// stall returns a WithSync hook that holds the first flush of the log
// until release is closed, and counts the flushes.
func stall() (opt sqlitestore.Option, held <-chan struct{}, release chan struct{}, flushes *atomic.Int32) {
	h, r := make(chan struct{}), make(chan struct{})
	flushes = new(atomic.Int32)
	opt = sqlitestore.WithSync(func() error {
		if flushes.Add(1) == 1 {
			close(h)
			<-r
		}
		return nil
	})
	return opt, h, r, flushes
}

// queueWatch wakes a test each time a result is queued for the writer,
// through the store's hook (sqlitestore.WithOnQueued): give its option to
// Open, then wait.
type queueWatch chan struct{}

func newQueueWatch() queueWatch { return make(queueWatch, 1) }

func (q queueWatch) option() sqlitestore.Option {
	return sqlitestore.WithOnQueued(func(int) {
		select {
		case q <- struct{}{}:
		default: // a wake-up is pending already
		}
	})
}

// wait waits until n results wait for the writer (which the tests hold,
// so that the queue only grows), looking again at each wake-up.
func (q queueWatch) wait(t *testing.T, s *sqlitestore.Store, n int) {
	t.Helper()
	timeout := time.After(time.Minute)
	for sqlitestore.Queued(s) < n {
		select {
		case <-q:
		case <-timeout:
			t.Fatalf("%d results queued, want %d", sqlitestore.Queued(s), n)
		}
	}
}

// indexWatch holds the outcome of the indexer's latest transaction,
// through the store's hook (sqlitestore.WithAfterIndex): give its option to
// Open, then wait for a failure or a commit.
type indexWatch chan error

func newIndexWatch() indexWatch { return make(indexWatch, 1) }

func (w indexWatch) option() sqlitestore.Option {
	return sqlitestore.WithAfterIndex(func(err error) {
		for { // keep the latest outcome only
			select {
			case w <- err:
				return
			default:
			}
			select {
			case <-w:
			default:
			}
		}
	})
}

// wait waits until a transaction of the indexer has failed (failed true)
// or committed, and its outcome is published.
func (w indexWatch) wait(t *testing.T, failed bool) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case err := <-w:
			if (err != nil) == failed {
				return
			}
		case <-timeout:
			t.Fatalf("the indexer did not %s", map[bool]string{true: "fail", false: "commit"}[failed])
		}
	}
}

// countResults returns the number of results of acct-1 that its reports
// count.
func countResults(t *testing.T, s store.Store) int64 {
	t.Helper()
	reports, err := s.Reports(t.Context(), "acct-1")
	require.NoError(t, err)
	var n int64
	for _, r := range reports {
		n += r.Count
	}
	return n
}

// An id already recorded is refused wherever it is: in the log and not
// yet in the database, in the database, or earlier in the same group.
// The other results of the group are appended.
func TestDuplicateFailsAloneInGroup(t *testing.T) {
	t.Parallel()
	opt, held, release, flushes := stall()
	queue := newQueueWatch()
	// The indexer commits only when a read asks.
	s := open(t, t.TempDir(), opt, queue.option(), sqlitestore.WithIndexDelay(time.Hour))
	defer s.Close()
	ctx := t.Context()

	first := make(chan error, 1)
	go func() { first <- s.Record(ctx, record("batch0000000", 0)) }()
	<-held // the writer flushes the first group

	ids := []string{"batch0000001", "batch0000000", "batch0000002", "batch0000002", "batch0000003"}
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() { errs[i] = s.Record(ctx, record(id, i)) })
		queue.wait(t, s, i+1) // in this order
	}
	close(release)
	wg.Wait()
	require.NoError(t, <-first)
	require.EqualValues(t, 2, flushes.Load(), "one flush for the group")

	require.NoError(t, errs[0])
	require.ErrorIs(t, errs[1], store.ErrDuplicateID) // in the log, not in the database
	require.Equal(t, 4, sqlitestore.Unindexed(s))
	require.NoError(t, errs[2])
	require.ErrorIs(t, errs[3], store.ErrDuplicateID) // twice in the group
	require.ErrorContains(t, errs[3], `sqlitestore: append result "batch0000002" to `)
	require.NoError(t, errs[4])
	require.EqualValues(t, 4, countResults(t, s), "batch0000000 to batch0000003, each once")
	require.Zero(t, sqlitestore.Unindexed(s), "the read had the indexer commit them")

	// In the database: an id lower than its greatest is looked up there.
	require.ErrorIs(t, s.Record(ctx, record("batch0000001", 1)), store.ErrDuplicateID)
	require.ErrorIs(t, s.Record(ctx, record("batch0000003", 1)), store.ErrDuplicateID)
	require.NoError(t, s.Record(ctx, record("batch0000000x", 1)))
	require.EqualValues(t, 5, countResults(t, s))
}

// A transaction of the indexer that fails is tried again. Meanwhile
// Records go on (their results are safe in the log), and Ping and the
// reads report the failure. Results it could not commit by Close are
// committed by the next Open.
func TestIndexerRetries(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	failing.Store(true)
	dir := t.TempDir()
	indexed := newIndexWatch()
	s := open(t, dir, sqlitestore.WithIndexDelay(0), sqlitestore.WithIndexRetry(10*time.Millisecond), indexed.option(),
		sqlitestore.WithBeforeCommit(func([]string) error {
			if failing.Load() {
				return errors.New("injected failure")
			}
			return nil
		}))
	ctx := t.Context()
	for i := range 3 {
		require.NoError(t, s.Record(ctx, record(fmt.Sprintf("retry%07d", i), i)))
	}
	indexed.wait(t, true)
	err := s.Ping(ctx)
	require.ErrorContains(t, err, "injected failure")
	require.ErrorContains(t, err, "results wait in the log; it tries again")
	_, err = s.Query(ctx, "acct-1", "report-HLR-2026-11", &store.Query{}, "", 0)
	require.ErrorContains(t, err, "are in the log but not in the database yet, and the indexer fails")

	failing.Store(false)
	indexed.wait(t, false)
	require.NoError(t, s.Ping(ctx))
	require.Equal(t, []string{"retry0000000", "retry0000001", "retry0000002"}, storedIDs(t, s))

	// Failing at Close: the results stay in the log.
	failing.Store(true)
	require.NoError(t, s.Record(ctx, record("retry0000003", 3)))
	require.ErrorContains(t, s.Close(), "injected failure")
	s = open(t, dir)
	defer s.Close()
	require.Equal(t, []string{"retry0000000", "retry0000001", "retry0000002", "retry0000003"}, storedIDs(t, s))
	require.EqualValues(t, 4, countResults(t, s))
}

// While maxUnindexed results wait for an indexer that fails, Record
// refuses more, saying why.
func TestRecordWaitsForTheIndexer(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	failing.Store(true)
	indexed := newIndexWatch()
	s := open(t, t.TempDir(), sqlitestore.WithIndexDelay(0), sqlitestore.WithIndexRetry(10*time.Millisecond),
		sqlitestore.WithMaxUnindexed(2), indexed.option(),
		sqlitestore.WithBeforeCommit(func([]string) error {
			if failing.Load() {
				return errors.New("injected failure")
			}
			return nil
		}))
	defer s.Close()
	ctx := t.Context()
	require.NoError(t, s.Record(ctx, record("wait00000001", 0)))
	require.NoError(t, s.Record(ctx, record("wait00000002", 1)))
	indexed.wait(t, true)
	require.Error(t, s.Ping(ctx))
	err := s.Record(ctx, record("wait00000003", 2))
	require.ErrorContains(t, err, "2 results wait for the indexer, which fails")
	require.ErrorContains(t, err, "injected failure")
	failing.Store(false)
	indexed.wait(t, false)
	require.NoError(t, s.Ping(ctx))
	require.NoError(t, s.Record(ctx, record("wait00000003", 2)))
	require.Equal(t, []string{"wait00000001", "wait00000002", "wait00000003"}, storedIDs(t, s))
}

// storedIDs returns the ids of every result of acct-1, sorted.
func storedIDs(t *testing.T, s store.Store) []string {
	t.Helper()
	ctx := t.Context()
	reports, err := s.Reports(ctx, "acct-1")
	require.NoError(t, err)
	var ids []string
	for _, r := range reports {
		after := ""
		for range r.Count/store.MaxPage + 1 {
			page, err := s.Query(ctx, "acct-1", r.Name, &store.Query{}, after, store.MaxPage)
			require.NoError(t, err)
			for _, row := range page.Rows {
				ids = append(ids, row.ID)
			}
			if page.Next == "" {
				break
			}
			after = page.Next
		}
	}
	slices.Sort(ids)
	return ids
}

func TestContextEndsWhileFlushing(t *testing.T) {
	t.Parallel()
	opt, held, release, _ := stall()
	dir := t.TempDir()
	s := open(t, dir, opt)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Record(ctx, record("late00000001", 0)) }()
	<-held // written to the log, not flushed
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
	t.Parallel()
	dir := t.TempDir()
	opt, held, release, _ := stall()
	queue, closing := newQueueWatch(), make(chan struct{})
	s := open(t, dir, opt, queue.option(), sqlitestore.WithIndexDelay(time.Hour),
		sqlitestore.WithOnClosing(func() { close(closing) }))
	ctx := t.Context()
	const n = 40
	errs := make([]error, n)
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = s.Record(ctx, record("drain0000000", 0)) })
	<-held
	for i := 1; i < n; i++ {
		wg.Go(func() { errs[i] = s.Record(ctx, record(fmt.Sprintf("drain%07d", i), i)) })
	}
	queue.wait(t, s, n-1)
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	// Close waits for the writer, which waits for release: results queued
	// before Close are appended, not dropped, and the indexer commits
	// them before Close returns.
	<-closing
	require.ErrorIs(t, s.Record(ctx, record("refused00000", 0)), store.ErrClosed)
	close(release)
	wg.Wait()
	require.NoError(t, <-closed)
	for i, err := range errs {
		require.NoError(t, err, "record %d", i)
	}
	require.NoError(t, os.RemoveAll(filepath.Join(dir, sqlitestore.LogDir)), "everything is in the database")
	s = open(t, dir, sqlitestore.WithStartAnyway()) // without its log on purpose
	require.Len(t, s.Recovery().Problems, 1)
	defer s.Close()
	require.Len(t, storedIDs(t, s), n)
}

func TestRecordAfterCloseIsErrClosed(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir())
	require.NoError(t, s.Close())
	err := s.Record(t.Context(), record("afterclose01", 0))
	require.ErrorIs(t, err, store.ErrClosed)
	require.ErrorContains(t, err, "afterclose01")
}

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "numen-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	st, err := sqlitestore.Open(context.Background(), dir)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	ctx := context.Background()
	// The engine calls Record (engine.Options.Sink) before it answers.
	r := storetest.NewRecord("demo", "SYNC-API-NT-2026-11", engine.ProductNT, "x7k2m9q4w1ab", storetest.Base, 0)
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
	var csv strings.Builder
	if err := st.Export(ctx, "demo", "SYNC-API-NT-2026-11", &store.Query{}, store.CSV, &csv); err != nil {
		panic(err)
	}
	fmt.Print(strings.ReplaceAll(csv.String(), "\r\n", "\n")) // its lines end in CRLF
	// Output:
	// SYNC-API-NT-2026-11 [NT] 1 0.0010
	// id,number,number_type,query_status,is_valid,invalid_reason,is_possibly_ported,is_vanity_number,qualifies_for_hlr_lookup,mccmnc,mcc,mnc,original_network_name,original_country_name,original_country_code,original_country_prefix,regions,timezones,info_text,international_format,national_format,cost,timestamp,storage,route
	// x7k2m9q4w1ab,'+4930123456,LANDLINE,OK,true,,false,false,false,,,,,Germany,DE,'+49,Berlin|Brandenburg,Europe/Berlin,,'+49 30 123456,030 123456,0.0010,2026-11-03 09:30:00.123+0000,SYNC-API-NT-2026-11,NT1
}

// A report page: the summary its charts are drawn from, and one page of
// the results that a filter selects, newest first, with the cursor of the
// next.
func ExampleStore_Query() {
	dir, err := os.MkdirTemp("", "numen-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	st, err := sqlitestore.Open(context.Background(), dir)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	ctx := context.Background()
	const report = "SYNC-API-NT-2026-11"
	for i := range 6 {
		if err := st.Record(ctx, storetest.Skewed("demo", report, i)); err != nil {
			panic(err)
		}
	}
	sum, err := st.Summary(ctx, "demo", report)
	if err != nil {
		panic(err)
	}
	for _, t := range sum.Values[store.FieldCountry] {
		fmt.Println(t.Value, t.Label, t.Count)
	}
	q := store.Query{Where: []store.Cond{{Field: store.FieldCountry, Value: "DE"}}, Desc: true}
	page, err := st.Query(ctx, "demo", report, &q, "", 2)
	if err != nil {
		panic(err)
	}
	for _, r := range page.Rows {
		fmt.Println(r.ID, r.Time.Format(time.TimeOnly))
	}
	fmt.Println("more:", page.Next != "")
	// Output:
	// DE Germany 5
	// GB United Kingdom 1
	// demo-00000000004 09:30:10
	// demo-00000000003 09:30:07
	// more: true
}

// A Record returns only after the log has been flushed with its result in
// it, and the results that arrive during a flush share the next one. A
// read sees every result acknowledged before it began.
func TestRecordWaitsForFlush(t *testing.T) {
	t.Parallel()
	opt, held, release, flushes := stall()
	queue := newQueueWatch()
	s := open(t, t.TempDir(), opt, queue.option(), sqlitestore.WithIndexDelay(time.Hour))
	defer s.Close()
	ctx := t.Context()
	a := make(chan error, 1)
	go func() { a <- s.Record(ctx, record("flushwait001", 0)) }()
	<-held
	select {
	case err := <-a:
		t.Fatalf("Record returned %v before its flush", err)
	case <-time.After(50 * time.Millisecond):
	}
	others := make(chan error, 3)
	for i := range 3 {
		go func() { others <- s.Record(ctx, record(fmt.Sprintf("flushwait%03d", i+2), 3*(i+1))) }()
	}
	queue.wait(t, s, 3) // the first is the writer's, held in its flush
	close(release)
	require.NoError(t, <-a)
	for range 3 {
		require.NoError(t, <-others)
	}
	require.EqualValues(t, 2, flushes.Load(), "the three that waited share a flush")
	page, err := s.Query(ctx, "acct-1", "report-HLR-2026-11", &store.Query{}, "", 10)
	require.NoError(t, err)
	require.Len(t, page.Rows, 4, "acknowledged, so readable, whatever the indexer's delay")
}

// A failed flush fails the Records it would have acknowledged, and every
// Record after it, with an error that says so; the store must be opened
// again.
func TestFailedFlushBreaksTheStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var fail atomic.Bool
	s := open(t, dir, sqlitestore.WithSync(func() error {
		if fail.Load() {
			return errors.New("input/output error")
		}
		return nil
	}))
	ctx := t.Context()
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

	// Opened again, the store has what it acknowledged and takes results.
	s = open(t, dir)
	defer s.Close()
	require.NoError(t, s.Record(ctx, record("syncfail0004", 9)))
	bodies, err := s.Bodies(ctx, []string{"syncfail0001", "syncfail0002", "syncfail0003", "syncfail0004"})
	require.NoError(t, err)
	require.Contains(t, bodies, "syncfail0001")
	require.Contains(t, bodies, "syncfail0004")
	require.NotContains(t, bodies, "syncfail0003") // never written
}

// The indexer never checkpoints (wal_autocheckpoint=0); the checkpointer
// does, so that the WAL starts again from its beginning (its header's
// checkpoint sequence number grows) rather than growing without end,
// also while results keep arriving.
func TestCheckpointer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	checkpoints := make(chan struct{}, 1)
	s := open(t, dir, sqlitestore.WithRestartFrames(32), sqlitestore.WithAfterCheckpoint(func() {
		select {
		case checkpoints <- struct{}{}:
		default:
		}
	}))
	defer s.Close()
	ctx := t.Context()
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
	// The checkpointer follows the indexer, which may still be copying
	// the burst (with the race detector, and seven indexes a result, it
	// lags by up to a second or two on two vCPUs).
	for timeout := time.After(time.Minute); sqlitestore.Checkpointed(s) == 0; {
		select {
		case <-checkpoints: // a pass ended: look again
		case <-timeout:
			t.Fatal("no checkpoint")
		}
	}
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

// After a group of many results, the writer waits for about as many
// again, and forgets the size over a few groups once they stop coming: a
// lone Record is then flushed at once again. A group of one must not keep
// the target up (the decay of at least one a group).
func TestGroupTargetFollowsTheLoad(t *testing.T) {
	t.Parallel()
	// The first flush is held until the burst is queued behind it.
	entered, release := make(chan struct{}), make(chan struct{})
	var held atomic.Bool
	hold := sqlitestore.WithSync(func() error {
		if held.CompareAndSwap(false, true) {
			close(entered)
			<-release
		}
		return nil
	})
	queue := newQueueWatch()
	s := open(t, t.TempDir(), sqlitestore.WithGroupCommit(0, 20*time.Millisecond), hold, queue.option())
	defer s.Close()
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free() // before Close, should the test fail while the flush is held
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	require.EqualValues(t, 1, sqlitestore.GroupTarget(s))

	// A burst: it queues while a first Record's flush is held, and forms
	// one group.
	const burst = 24
	var wg sync.WaitGroup
	wg.Go(func() { assert.NoError(t, s.Record(ctx, record("first000000", 0))) })
	<-entered
	for i := range burst {
		wg.Go(func() { assert.NoError(t, s.Record(ctx, record(fmt.Sprintf("burst%07d", i), i))) })
	}
	queue.wait(t, s, burst)
	free()
	wg.Wait()
	require.Eventually(t, func() bool { return sqlitestore.GroupTarget(s) == burst }, 10*time.Second, time.Millisecond,
		"the writer waits for %d results after a group of %d", sqlitestore.GroupTarget(s), burst)

	// Lone Records, one after another: each group of one lowers the
	// target, by an eighth or by one, until it is one again.
	for i := range burst + 1 {
		if sqlitestore.GroupTarget(s) == 1 {
			break
		}
		require.NoError(t, s.Record(ctx, record(fmt.Sprintf("lone%08d", i), i)))
		require.Eventually(t, func() bool { return sqlitestore.Queued(s) == 0 }, 10*time.Second, time.Millisecond)
	}
	require.Eventually(t, func() bool { return sqlitestore.GroupTarget(s) == 1 }, 10*time.Second, time.Millisecond,
		"the writer still waits for %d results after %d lone ones", sqlitestore.GroupTarget(s), burst+1)
}

// The group-commit delay applies only when results arrive together: a
// Record that comes alone to an idle store is flushed at once, however
// long the delay.
func TestLoneRecordDoesNotWaitForTheDelay(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir(), sqlitestore.WithGroupCommit(0, time.Hour))
	defer s.Close()
	for i := range 3 {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		require.NoError(t, s.Record(ctx, record(fmt.Sprintf("alone%07d", i), i)))
		cancel()
	}
}

// ExampleStore_Totals counts a view of a report: the German results of
// a time range, with their cost per day; then reads page 2 of the view by
// its number, and one of its results by id.
func ExampleStore_Totals() {
	dir, err := os.MkdirTemp("", "numen-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	st, err := sqlitestore.Open(context.Background(), dir)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	ctx := context.Background()
	const report = "SYNC-API-NT-2026-11"
	for i := range 6 {
		if err := st.Record(ctx, storetest.Skewed("demo", report, i)); err != nil {
			panic(err)
		}
	}
	q := store.Query{
		Where: []store.Cond{{Field: store.FieldCountry, Value: "DE"}},
		From:  storetest.Base, To: storetest.Base.Add(8 * time.Second), // up to 09:30:08, not included
		Desc: true,
	}
	t, err := st.Totals(ctx, "demo", report, &q, 10_000)
	if err != nil {
		panic(err)
	}
	fmt.Println(t.Count, "results,", t.Cost, "EUR")
	for _, d := range t.Days {
		fmt.Println(d.Value, d.Count, d.Cost)
	}
	page, err := st.Query(ctx, "demo", report, &q, store.PageCursor(2), 2)
	if err != nil {
		panic(err)
	}
	for _, r := range page.Rows {
		fmt.Println(r.ID, r.Time.Format(time.TimeOnly))
	}
	row, err := st.Result(ctx, "demo", report, page.Rows[0].ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(row.ID, row.Product)
	// Output:
	// 4 results, 0.0040 EUR
	// 2026-11-03 4 0.0040
	// demo-00000000001 09:30:02
	// demo-00000000000 09:30:00
	// demo-00000000001 NT
}
