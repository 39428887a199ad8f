// Package sqlitestore is the embedded store.Database: the results of lookups
// in one SQLite file, dir/numen.db, through the pure-Go driver
// modernc.org/sqlite (no cgo), and a results log beside it, dir/results-log,
// where each result is made durable first.
//
//	st, err := sqlitestore.Open("/var/lib/numen")
//	if err != nil { ... }
//	defer st.Close()
//	eng, err := engine.New(engine.Options{Plan: plan, Sink: st})
//
// # What it stores
//
// Table results holds one row per result: its id (the primary key), account,
// report name, product, completion time in Unix milliseconds, cost in
// engine.Money units, and the result object as the API wrote it (JSON).
// Table reports holds one row per account, report and product with the
// count, total cost and first and last times, updated in the transaction
// that adds the results, so that Reports reads a few rows instead of
// scanning the results. Table log_position holds how far into the results
// log the database goes. The schema is versioned with PRAGMA user_version
// and migrated by Open.
//
// The same file holds the bulk queue (store.Queue, queue.go): River's
// tables (github.com/riverqueue/river, through riversqlite), the
// idempotency keys of submissions and the webhook outbox, on a connection
// of their own whose commits wait for the disk. The store owns the River
// client: package bulk registers its workers with StartQueue and never
// opens the file.
//
// # Durability
//
// Record returns nil only once its result is on disk in the results log:
// a single writer goroutine appends each group of results to the log's
// current segment in one write and flushes it with one fdatasync (log.go
// describes the format). A result that was acknowledged survives a crash
// of the process, and of the machine as far as the disk honours fsync;
// the crash test kills a recording process with SIGKILL, with the indexer
// running and with every result still only in the log, and finds every
// acknowledged id.
//
// The indexer goroutine then copies the results into the database, in
// transactions of up to 4,096 results, together with the log position
// after them. Its commits do not wait for the disk (synchronous=NORMAL):
// before it deletes a segment it has all of, it flushes the database's
// WAL once (syncDatabase), so a result leaves the log only once it is
// durable in the database. Indexing is the expensive part (15-20 µs of
// CPU per result in the driver), and it is off the lookups' path: the
// results of a 50 ms window (WithIndexDelay) share a transaction. Open
// commits what the log has past the database's position, so the results
// of a process that died before its indexer caught up are in the database
// once the next Open returns. A record cut short at the end of the last
// segment (a crash during its write, never acknowledged) is copied aside,
// its bytes zeroed, and reported (Recovery).
//
// # Damage
//
// A segment is deleted only when its results are committed and flushed,
// the database has passed PRAGMA quick_check since, and the segment is
// older than the retention (WithLogRetention, a day by default; prune.go):
// a backup of the database that is no older, restored, is caught up from
// the log by the next Open with nothing lost.
//
// Once the database is found damaged (a read, a commit or the pruner's
// check meets SQLITE_CORRUPT or SQLITE_NOTADB), Record and Enqueue fail
// with store.ErrDamaged (HTTP 503), the indexer commits nothing, no
// segment is deleted, and Ping names the way out: stop, restore the
// database from a backup, run "numen data recover" (Recover).
//
// Open checks the database's position against the segments present
// (recover.go) and refuses, with a MismatchError that names each problem
// and the commands, a database that is missing, empty or new beside a log
// that has segments, a segment missing from the position on, and a
// damaged record. Records with one flipped bit are repaired (CRC-32C
// finds the bit), and the reader resynchronises past damage, keeping the
// records after it (log.go, "Damage"). WithStartAnyway, or Recover, goes
// past the problems, keeping everything the log still has. Check reports
// all this without changing anything ("numen data check").
//
// Reads (Reports, Export, Results, Bodies) first wait for the indexer to
// commit every result acknowledged before they began, asking it to commit
// at once: a read sees every acknowledged result, as with a database that
// commits before it answers. A result can be seen a moment before it is
// acknowledged (after its flush and before its Record returns), never the
// reverse.
//
// A failed flush fails its Records and every later one, and Ping reports
// it: after a failed fsync the kernel may have dropped the pages it could
// not write, so the store takes no more results until it is opened again.
// A failed transaction of the indexer is tried again every second; its
// results are safe in the log meanwhile, Ping and the reads report the
// failure, and Records go on until DefaultMaxUnindexed results wait
// (WithMaxUnindexed), after which they fail with the indexer's error. What
// the indexer has not committed by Close stays in the log for the next
// Open.
//
// A Record whose context ends while its result waits for the flush returns
// the context's error, but the result may still be stored: it is then
// recorded and not acknowledged, which is safe (the engine does not
// answer, and the id is never reused).
//
// Checkpoints, which copy the WAL into the database file, run on a
// connection of their own, not inside the indexer's commits
// (checkpoint.go).
//
// # Group commit
//
// A flush per result would bound the store at the disk's fsyncs per
// second, and each costs CPU too. Instead the writer takes every result
// queued and flushes them all at once; the results that arrive during the
// flush form the next group. When the group is smaller than the last one
// (results arrive concurrently, and some of their callers have not come
// back yet), the writer also waits up to DefaultMaxDelay (500 µs,
// WithGroupCommit) for the rest before it flushes; after a group cut short
// by the delay, the next waits for nearly as many (an eighth fewer, at
// least one fewer), so a
// burst's size is forgotten over a few groups, not at once. Fewer, larger
// flushes leave the CPU to the lookups: a flush costs 67-90 µs of CPU on
// the virtual machine B of benchmarks/README.md. A Record that comes
// alone after the store has been idle does not wait (0.14 ms,
// BenchmarkRecord/writers=1), and WithGroupCommit(0, 0) turns the delay
// off.
//
// A result whose id is already recorded fails alone, with
// store.ErrDuplicateID, and the others of its group are appended. The
// writer knows the ids in the log that the indexer has not committed; an
// id at or below the greatest id in the database (ids grow with time, so
// this is rare) is looked up there.
//
// # Performance
//
// Measured on the 2-vCPU machine B of benchmarks/README.md ("Stored
// results"): one goroutine records about 7,000 results per second (0.14 ms
// each, a flush of the log) and 64 goroutines together 66,000-72,000
// (BenchmarkRecord), and the indexer spends about 6 µs of CPU per result
// in the sidecar. Reports takes 0.03 ms for an account with 12 reports,
// whether they hold 10,000 results or 100,000 (aggregating the results
// took 21 ms and 0.3 s: BenchmarkReports). Export writes about 600,000
// results per second as JSON and 83,000 as CSV, which decodes each result
// (BenchmarkExport). Export and Results walk the results_report index in
// order, with no sort; Export streams, one result at a time.
//
// # Thread safety
//
// A Store is safe for concurrent use. The writer goroutine alone appends
// to the log; the indexer alone writes to the database, on one connection;
// reads use a separate pool of read-only connections (WithReaders), which
// WAL lets run while the indexer commits; the checkpointer has a
// connection of its own. One store at a time opens a directory: Open
// locks dir/numen.lock (flock, or LockFileEx on Windows), and a second
// Open of the directory, from this process or another, fails naming it.
package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"

	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// FileName is the name of the database file in the directory given to Open.
const FileName = "numen.db"

// Group-commit defaults (WithGroupCommit).
const (
	DefaultMaxBatch               = 256
	DefaultMaxDelay time.Duration = 500 * time.Microsecond
)

// Option configures Open.
type Option func(*options)

type options struct {
	direct      bool // commit each group to the database, without the log (tests)
	maxBatch    int
	maxDelay    time.Duration
	readers     int
	busyTimeout time.Duration

	indexDelay   time.Duration
	maxUnindexed int

	// segmentSize is the size of a segment of the log (segmentSize;
	// smaller in tests), indexRetry the pause before the indexer tries a
	// failed transaction again (indexRetry; shorter in tests).
	segmentSize int64
	indexRetry  time.Duration

	// beforeCommit, for tests, runs in the indexer's transaction after the
	// inserts and before COMMIT; an error fails the transaction like a
	// failed COMMIT would.
	beforeCommit func(ids []string) error
	// sync, for tests, replaces the writer's flush of the results log.
	sync func() error
	// restartFrames is the WAL size (frames) past which the checkpointer
	// restarts the WAL; restartFrames by default, smaller in tests.
	restartFrames int64

	startAnyway bool          // WithStartAnyway
	retention   time.Duration // WithLogRetention
	// retentionBytes: WithLogRetentionBytes
	retentionBytes int64
	pruneEvery     time.Duration // how often the pruner looks (prune.go); shorter in tests
}

// WithStartAnyway opens a store whose database does not match its results
// log (an empty or new database beside a log that has segments, a segment
// missing, a damaged record; see "Damage" in the package documentation)
// instead of refusing: it commits to the database every record the log
// still has past the database's position, copies damaged bytes to
// results-log/damaged, and reports what it went past (Store.Recovery).
// What is missing stays lost. "numen data recover" opens the store this
// way; "numen serve --start-anyway" too.
func WithStartAnyway() Option { return func(o *options) { o.startAnyway = true } }

// WithLogRetentionBytes bounds the size of the segments kept for the
// retention (default DefaultLogRetentionBytes): past it, the oldest go
// even when younger than the retention. Zero keeps none past their check.
func WithLogRetentionBytes(n int64) Option {
	return func(o *options) {
		if n >= 0 {
			o.retentionBytes = n
		}
	}
}

// WithLogRetention sets how long segments of the results log are kept
// after their results are in the database (default DefaultLogRetention):
// a backup of the database no older than that, restored, is caught up
// from the log at the next Open with nothing lost. Zero deletes them as
// soon as the database that holds them has been checked.
func WithLogRetention(d time.Duration) Option {
	return func(o *options) {
		if d >= 0 {
			o.retention = d
		}
	}
}

// WithGroupCommit sets how many results one flush of the log takes at
// most (default DefaultMaxBatch; a negative or zero maxBatch keeps it) and
// how long the writer waits, for a group smaller than the last one, for
// the rest before it flushes (default DefaultMaxDelay; zero flushes
// whatever is queued at once). The delay adds up to that much latency to a
// Record under concurrency and saves flushes: see "Group commit" in the
// package documentation.
func WithGroupCommit(maxBatch int, maxDelay time.Duration) Option {
	return func(o *options) {
		if maxBatch > 0 {
			o.maxBatch = maxBatch
		}
		if maxDelay >= 0 {
			o.maxDelay = maxDelay
		}
	}
}

// WithReaders sets the number of read connections (default 4): how many
// Reports, Export and Results calls run at once; more wait.
func WithReaders(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.readers = n
		}
	}
}

// WithIndexDelay sets how long the indexer lets results gather before it
// commits them to the database (default DefaultIndexDelay): longer makes
// its transactions larger and cheaper per result, and keeps more results
// in memory. A read does not wait for it: it has the indexer commit at
// once what it needs. Zero commits as soon as results arrive.
func WithIndexDelay(d time.Duration) Option {
	return func(o *options) {
		if d >= 0 {
			o.indexDelay = d
		}
	}
}

// WithMaxUnindexed sets how many results may be in the log and not yet in
// the database (default DefaultMaxUnindexed) before Record waits for the
// indexer.
func WithMaxUnindexed(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.maxUnindexed = n
		}
	}
}

// WithBusyTimeout sets how long a connection waits for a lock held by
// another process on the same file (default 5 s).
func WithBusyTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.busyTimeout = d
		}
	}
}

// Store is the SQLite store.Store. See the package documentation.
type Store struct {
	path   string // the database file
	logDir string // the results log
	opts   options
	lock   *os.File // LockName, locked while the store is open

	groupTarget atomic.Int64 // how many results the writer's next group waits for (tests)

	wdb *sql.DB // one connection, the indexer's
	rdb *sql.DB // read-only connections
	cdb *sql.DB // one connection, the checkpointer's

	insert, upsert, tally, position *sql.Stmt // on wdb

	inserts [insertChunk + 1]*sql.Stmt // INSERTs of n rows on wdb (insertStmt); the indexer's
	args    []any                      // their arguments; the indexer's

	// mu guards closed and the sends on queue, so that Close closes queue
	// only when no Record is sending.
	mu     sync.RWMutex
	closed bool
	queue  chan *pending

	log     *resultsLog           // the writer's
	inGroup map[string]struct{}   // the writer's: ids of the group it appends
	done    chan struct{}         // closed when the writer has exited
	failed  atomic.Pointer[error] // set once an append to the log failed
	damaged atomic.Pointer[error] // set once a read found the database damaged

	idx     indexState
	idxWork chan struct{} // results were queued for the indexer
	idxKick chan struct{} // a read, the writer or Close asks the indexer to commit now
	idxDone chan struct{} // closed when the indexer has exited

	wake         chan struct{} // the indexer committed: the checkpointer may have work
	stopCP       chan struct{} // closed by Close: the checkpointer and the pruner return
	cpDone       chan struct{} // closed when the checkpointer has returned
	pruneDone    chan struct{} // closed when the pruner has returned
	verifying    atomic.Bool   // the pruner's quick_check runs
	checkpointed atomic.Int64  // frames checkpointed, for tests

	fresh    bool     // the database was missing, empty or without a schema at Open
	recovery Recovery // what Open did to the log (Recovery)

	q queue // the bulk queue (queue.go)
}

var _ store.Store = (*Store)(nil)

// Open opens the store in dir, creating dir (mode 0700), the database
// (mode 0600) and the results log when missing, migrating the schema to
// this build's version, and committing to the database the results of
// the log that are not in it yet (after a crash). A directory that cannot
// be created or written, or that another store has open, is an error
// naming it.
func Open(dir string, opts ...Option) (*Store, error) {
	o := options{
		maxBatch: DefaultMaxBatch, maxDelay: DefaultMaxDelay, readers: 4, busyTimeout: 5 * time.Second,
		restartFrames: restartFrames, indexDelay: DefaultIndexDelay, maxUnindexed: DefaultMaxUnindexed,
		segmentSize: segmentSize, indexRetry: indexRetry, retention: DefaultLogRetention, retentionBytes: DefaultLogRetentionBytes, pruneEvery: pruneEvery,
	}
	for _, opt := range opts {
		opt(&o)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: open %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	fail := func(err error) (*Store, error) {
		return nil, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fail(fmt.Errorf("create directory: %w", err))
	}
	if err := checkWritable(dir); err != nil {
		return fail(err)
	}
	s := &Store{
		path: path, logDir: filepath.Join(dir, LogDir), opts: o, queue: make(chan *pending, o.maxBatch),
		inGroup: make(map[string]struct{}), done: make(chan struct{}),
		idxWork: make(chan struct{}, 1), idxKick: make(chan struct{}, 1), idxDone: make(chan struct{}),
		wake: make(chan struct{}, 1), stopCP: make(chan struct{}), cpDone: make(chan struct{}), pruneDone: make(chan struct{}),
	}
	s.idx.unindexed = make(map[string]struct{})
	s.idx.progress = make(chan struct{})
	if s.lock, err = lockDir(dir); err != nil {
		return fail(err)
	}
	if err := s.open(); err != nil {
		s.release()
		return fail(err)
	}
	s.groupTarget.Store(1)
	go s.write()
	go s.index()
	go s.checkpointer()
	go s.pruner()
	return s, nil
}

// open opens the database and the log for Open, and commits to the
// database what the log has that it has not.
func (s *Store) open() (err error) {
	// A database that is missing or empty beside a log that has segments
	// lost what it had indexed: refused before anything is created.
	if fi, err := os.Stat(s.path); err == nil && fi.Size() == 0 || errors.Is(err, os.ErrNotExist) {
		s.fresh = true
		if err := s.checkFresh(fmt.Sprintf("%s is %s", s.path, map[bool]string{true: "missing", false: "empty (0 bytes)"}[err != nil])); err != nil {
			return err
		}
	}
	// SQLite would create the file readable by all; results are not for
	// everyone. Its -wal and -shm files take the database's permissions.
	if f, err := os.OpenFile(s.path, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		return err
	} else if err := f.Close(); err != nil {
		return err
	}
	ctx := context.Background()
	connect := func(role connRole, conns int) (*sql.DB, error) {
		db, err := sql.Open("sqlite", dsn(s.path, s.opts, role))
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(conns)
		db.SetMaxIdleConns(conns)
		db.SetConnMaxLifetime(0)
		db.SetConnMaxIdleTime(0)
		return db, nil
	}
	if s.wdb, err = connect(indexerConn, 1); err != nil {
		return err
	}
	if err := s.setUp(ctx); err != nil {
		return err
	}
	if s.rdb, err = connect(readerConn, s.opts.readers); err != nil {
		return err
	}
	if err := s.rdb.PingContext(ctx); err != nil {
		return err
	}
	if s.cdb, err = connect(checkpointerConn, 1); err != nil {
		return err
	}
	if err := s.recover(ctx); err != nil {
		return err
	}
	if err := s.openQueue(ctx); err != nil {
		return err
	}
	return s.wdb.QueryRowContext(ctx, "SELECT coalesce(max(id), '') FROM results").Scan(&s.idx.maxIndexed)
}

// release closes what Open opened, after a failed Open or at Close.
func (s *Store) release() error {
	s.closeStatements()
	var errs []error
	if s.log != nil {
		errs = append(errs, s.log.close())
	}
	// The last connection to close checkpoints the WAL into the database.
	for _, db := range []*sql.DB{s.q.db, s.cdb, s.rdb, s.wdb} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	errs = append(errs, s.lock.Close()) // and unlocks
	return errors.Join(errs...)
}

// checkWritable creates and removes a file in dir: SQLite needs to create
// its -wal and -shm files there, and its own error for a directory it
// cannot write ("unable to open database file") names neither the
// directory nor the reason.
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".numen-write-check-*")
	if err != nil {
		return fmt.Errorf("directory %s is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// connRole is what a connection is for.
type connRole int

const (
	readerConn connRole = iota
	indexerConn
	checkpointerConn
	backupConn // VACUUM INTO, which query_only refuses (Backup)
)

// dsn returns the driver's name for the database: a file: URI (so that any
// path survives) with the pragmas every connection needs. The writer takes
// the write lock when its transactions begin (BEGIN IMMEDIATE), so that a
// transaction never fails half-way on a lock; readers are read-only.
func dsn(path string, o options, role connRole) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.busyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	switch role {
	case checkpointerConn:
		q.Add("_pragma", "synchronous(NORMAL)") // a checkpoint syncs the WAL before and the database after
		q.Add("_pragma", "journal_size_limit(67108864)")
	case backupConn:
	case indexerConn:
		q.Add("_pragma", "journal_mode(WAL)")
		// The indexer's commits do not wait for the disk: the log holds
		// their results until syncDatabase has flushed them.
		q.Add("_pragma", "synchronous(NORMAL)")
		// After a burst, truncate the WAL back to 64 MiB once checkpointed.
		q.Add("_pragma", "journal_size_limit(67108864)")
		// A multi-row INSERT (insertRows) keeps a statement journal, to undo
		// its rows should one fail: in memory, not in a temporary file.
		q.Add("_pragma", "temp_store(MEMORY)")
		// The checkpointer checkpoints, not the commits (checkpoint.go).
		q.Add("_pragma", "wal_autocheckpoint(0)")
		q.Set("_txlock", "immediate")
	default:
		q.Add("_pragma", "query_only(1)")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	if u.Path[0] != '/' { // Windows: file:///C:/...
		u.Path = "/" + u.Path
	}
	return u.String()
}

// setUp checks the indexer connection's journal mode, migrates the schema
// and prepares the indexer's statements.
func (s *Store) setUp(ctx context.Context) error {
	var mode string
	if err := s.wdb.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		// WAL needs shared memory, which some network file systems lack.
		return fmt.Errorf("journal_mode is %q, not wal: is the directory on a local file system?", mode)
	}
	var version int
	if err := s.wdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version == 0 && !s.fresh {
		s.fresh = true
		if err := s.checkFresh(s.path + " is a new database (no schema)"); err != nil {
			return err
		}
	}
	if err := migrate(ctx, s.wdb); err != nil {
		return err
	}
	var err error
	if s.insert, err = s.wdb.PrepareContext(ctx, insertSQL+" VALUES "+insertRow+insertConflict); err != nil {
		return err
	}
	if s.upsert, err = s.wdb.PrepareContext(ctx, `
INSERT INTO reports (account, storage, product, count, cost, first_ms, last_ms)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (account, storage, product) DO UPDATE SET
	count    = count + excluded.count,
	cost     = cost + excluded.cost,
	first_ms = min(first_ms, excluded.first_ms),
	last_ms  = max(last_ms, excluded.last_ms)`); err != nil {
		return err
	}
	if s.tally, err = s.wdb.PrepareContext(ctx, `
INSERT INTO report_facets (account, storage, field, value, label, count, cost)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (account, storage, field, value) DO UPDATE SET
	count = count + excluded.count,
	cost  = cost + excluded.cost,
	label = CASE WHEN excluded.label <> '' THEN excluded.label ELSE label END`); err != nil {
		return err
	}
	if s.position, err = s.wdb.PrepareContext(ctx, `
INSERT INTO log_position (id, segment, end_offset) VALUES (1, ?, ?)
ON CONFLICT (id) DO UPDATE SET segment = excluded.segment, end_offset = excluded.end_offset`); err != nil {
		return err
	}
	return nil
}

func (s *Store) closeStatements() {
	for _, st := range append([]*sql.Stmt{s.insert, s.upsert, s.tally, s.position}, s.inserts[:]...) {
		if st != nil {
			st.Close()
		}
	}
}

// The indexer's INSERT of results: insertSQL, then one or more rows
// (insertRow, insertColumns parameters each), then insertConflict. A
// result whose id is already recorded is not inserted (and not an error):
// the rows affected tell.
const (
	insertSQL = `INSERT INTO results (id, account, storage, product, created_ms, cost, body,
	number, status, connectivity, number_type, country, network)`
	insertRow      = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	insertColumns  = 13
	insertConflict = " ON CONFLICT (id) DO NOTHING"
)

// insertArgs appends the parameters of e's row of insertSQL to args.
// body is e.Result as a string.
func insertArgs(args []any, e *store.Entry, body string) []any {
	f := &e.Facts
	return append(args, e.ID, e.Account, e.Storage, string(e.Product), e.Millis, int64(e.Cost), body,
		f.Number, f.Status, f.Connectivity, f.NumberType, f.Country, f.Network)
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Record appends r to its report and returns once it is durable (nil),
// or with the reason it is not: store.ErrInvalidRecord,
// store.ErrDuplicateID, store.ErrClosed, a database error, or ctx's error.
// With ctx's error the result may still be committed; see the package
// documentation.
func (s *Store) Record(ctx context.Context, r engine.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e, err := store.EntryOf(r)
	if err != nil {
		return fmt.Errorf("sqlitestore: %w", err)
	}
	p := &pending{entry: e, done: make(chan error, 1)}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return fmt.Errorf("sqlitestore: record %q: %w", r.ID, store.ErrClosed)
	}
	select {
	case s.queue <- p:
		s.mu.RUnlock()
	case <-ctx.Done():
		s.mu.RUnlock()
		return ctx.Err() // not queued: not recorded
	}
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Ping checks that the database answers and has this build's schema, that
// the writer and the indexer are running, that no flush of the log has
// failed and that the indexer's last transaction did not fail.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	select {
	case <-s.done:
		return fmt.Errorf("sqlitestore: %s: the writer has stopped", s.path)
	default:
	}
	if err := s.broken(); err != nil {
		return err
	}
	if err := s.damaged.Load(); err != nil {
		return *err
	}
	select {
	case <-s.idxDone:
		return fmt.Errorf("sqlitestore: %s: %w", s.path, errIndexerStopped)
	default:
	}
	s.idx.mu.Lock()
	ierr, waiting := s.idx.err, len(s.idx.unindexed)
	s.idx.mu.Unlock()
	if ierr != nil {
		return fmt.Errorf("%w (%d results wait in the log; it tries again)", ierr, waiting)
	}
	var version int
	if err := s.rdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("sqlitestore: ping %s: %w", s.path, err)
	}
	if version != schemaVersion {
		return fmt.Errorf("sqlitestore: ping %s: schema version %d, want %d", s.path, version, schemaVersion)
	}
	return nil
}

// readFailed returns err, and when it says that the database file is
// damaged (SQLite's "database disk image is malformed" or "file is not a
// database"), remembers it for Ping, so that /healthz reports the damage
// from then on: a read that meets damaged pages fails, and the file will
// not heal.
func (s *Store) readFailed(err error) error {
	if isCorrupt(err) {
		s.markDamaged(err)
	}
	return err
}

// isCorrupt reports whether err is SQLite's for a damaged database file.
func isCorrupt(err error) bool {
	var ce *corruptError
	if errors.As(err, &ce) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return true
		}
	}
	return false
}

// markDamaged remembers that the database was found damaged (by a read,
// the indexer or the pruner's check; why): from then on Record and
// Enqueue fail with store.ErrDamaged, the indexer commits nothing, no
// segment of the results log is deleted, and Ping reports it with the
// way out. The file will not heal.
func (s *Store) markDamaged(why error) {
	damaged := fmt.Errorf("sqlitestore: %s is damaged (%v); it takes no more results and keeps every segment of the results log: stop the server, restore %s from a backup, and run numen data recover %s (the results since the backup are in the log)",
		s.path, why, FileName, filepath.Dir(s.path))
	s.damaged.CompareAndSwap(nil, &damaged)
}

// isDamaged returns, wrapping store.ErrDamaged, why the store takes no
// results because its database is damaged, or nil.
func (s *Store) isDamaged() error {
	if err := s.damaged.Load(); err != nil {
		return fmt.Errorf("%w: %w", store.ErrDamaged, *err)
	}
	return nil
}

// Close stops accepting results, waits until those already handed to
// Record are in the log and the indexer has committed them to the
// database, waits for running reads (an Export streaming to a slow client,
// say) to finish, and closes the database and the log. Closing twice is
// not an error. Results the indexer could not commit stay in the log, and
// the next Open commits them.
func (s *Store) Close() error {
	// The owner stops the queue first, with a deadline of its choice;
	// this bounds the wait for running jobs should it not have.
	stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err := s.StopQueue(stopCtx)
	cancel()
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.queue)
	s.mu.Unlock()
	<-s.done
	<-s.idxDone
	close(s.stopCP)
	<-s.cpDone
	<-s.pruneDone
	err = s.release()
	if err == nil {
		s.idx.mu.Lock()
		err = s.idx.err
		s.idx.mu.Unlock()
	}
	if err != nil {
		return fmt.Errorf("sqlitestore: close %s: %w", s.path, err)
	}
	return nil
}

func (s *Store) checkOpen() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return fmt.Errorf("sqlitestore: %s: %w", s.path, store.ErrClosed)
	}
	return nil
}

// Reports lists the reports of account, most recently written first (then
// by name).
func (s *Store) Reports(ctx context.Context, account string) ([]store.Report, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if err := s.caughtUp(ctx); err != nil {
		return nil, s.readFailed(fmt.Errorf("sqlitestore: reports of %q in %s: %w", account, s.path, err))
	}
	rows, err := s.rdb.QueryContext(ctx, `
SELECT storage, product, count, cost, first_ms, last_ms FROM reports
WHERE account = ? ORDER BY storage, product`, account)
	if err != nil {
		return nil, s.readFailed(fmt.Errorf("sqlitestore: reports of %q in %s: %w", account, s.path, err))
	}
	defer rows.Close()
	var reports []store.Report
	for rows.Next() {
		var (
			name, product   string
			count, cost     int64
			firstMS, lastMS int64
		)
		if err := rows.Scan(&name, &product, &count, &cost, &firstMS, &lastMS); err != nil {
			return nil, s.readFailed(fmt.Errorf("sqlitestore: reports of %q in %s: %w", account, s.path, err))
		}
		reports = store.AddReportRow(reports, name, engine.Product(product), count, engine.Money(cost), firstMS, lastMS)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readFailed(fmt.Errorf("sqlitestore: reports of %q in %s: %w", account, s.path, err))
	}
	store.SortReports(reports)
	return reports, nil
}

// Export implements store.Reader: it reads in one read transaction, after
// the indexer has caught up with the results acknowledged before the call.
func (s *Store) Export(ctx context.Context, account, storage string, q *store.Query, format store.Format, w io.Writer) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	fail := func(err error) error {
		return s.readFailed(fmt.Errorf("sqlitestore: export report %q of %q from %s: %w", storage, account, s.path, err))
	}
	if _, err := store.ParseFormat(string(format)); err != nil {
		return fail(err)
	}
	query, args, err := store.SelectSQL(store.SQLite, "product, body", account, storage, q, "", 0, store.PlanAuto)
	if err != nil {
		return fail(err)
	}
	if err := s.caughtUp(ctx); err != nil {
		return fail(err)
	}
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	products, err := s.products(ctx, tx, account, storage)
	if err != nil {
		return fail(err)
	}
	ex, err := store.NewExporter(w, format, store.ExportProducts(products, q))
	if err != nil {
		return fail(err)
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	var product string
	var body sql.RawBytes // reused: valid until the next Scan
	for rows.Next() {
		if err := rows.Scan(&product, &body); err != nil {
			return fail(err)
		}
		if err := ex.Write(engine.Product(product), body); err != nil {
			return fail(err)
		}
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	if err := ex.Close(); err != nil {
		return fail(err)
	}
	return nil
}

// products returns the products of a report, or store.ErrUnknownReport.
func (s *Store) products(ctx context.Context, tx *sql.Tx, account, storage string) ([]engine.Product, error) {
	rows, err := tx.QueryContext(ctx, `SELECT product FROM reports WHERE account = ? AND storage = ?`, account, storage)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var products []engine.Product
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		products = append(products, engine.Product(p))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(products) == 0 {
		return nil, store.ErrUnknownReport
	}
	return products, nil
}

// Query implements store.Reader, reading after the indexer has caught up
// with the results acknowledged before the call.
func (s *Store) Query(ctx context.Context, account, storage string, q *store.Query, after string, limit int) (store.Page, error) {
	if err := s.checkOpen(); err != nil {
		return store.Page{}, err
	}
	fail := func(err error) (store.Page, error) {
		return store.Page{}, s.readFailed(fmt.Errorf("sqlitestore: results of report %q of %q from %s: %w", storage, account, s.path, err))
	}
	limit = store.PageSize(limit)
	query, args, err := store.SelectSQL(store.SQLite, "id, product, created_ms, cost, body, "+q.SortValueColumn(), account, storage, q, after, limit, store.PlanAuto)
	if err != nil {
		return fail(err)
	}
	if err := s.caughtUp(ctx); err != nil {
		return fail(err)
	}
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	if _, err := s.products(ctx, tx, account, storage); err != nil {
		return fail(err)
	}
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	page := store.Page{Rows: make([]store.Row, 0, min(limit, 64))}
	var value, lastValue string
	for rows.Next() {
		var (
			r             store.Row
			product       string
			createdMS, ct int64
			body          []byte
		)
		if err := rows.Scan(&r.ID, &product, &createdMS, &ct, &body, &value); err != nil {
			return fail(err)
		}
		if len(page.Rows) == limit {
			last := page.Rows[limit-1]
			page.Next = store.NextCursor(q, lastValue, last.Time.UnixMilli(), last.ID)
			break
		}
		r.Product, r.Time, r.Cost, r.Result = engine.Product(product), time.UnixMilli(createdMS).UTC(), engine.Money(ct), body
		page.Rows = append(page.Rows, r)
		lastValue = value
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	return page, nil
}

// Summary implements store.Reader.
func (s *Store) Summary(ctx context.Context, account, storage string) (store.Summary, error) {
	if err := s.checkOpen(); err != nil {
		return store.Summary{}, err
	}
	fail := func(err error) (store.Summary, error) {
		return store.Summary{}, s.readFailed(fmt.Errorf("sqlitestore: summary of report %q of %q from %s: %w", storage, account, s.path, err))
	}
	if err := s.caughtUp(ctx); err != nil {
		return fail(err)
	}
	rows, err := s.rdb.QueryContext(ctx, `
SELECT field, value, label, count, cost FROM report_facets WHERE account = ? AND storage = ?`, account, storage)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	sum, err := store.ReadSummary(rows)
	if err != nil {
		return fail(err)
	}
	return sum, nil
}

// RecordAll appends records: it queues them all for the writer, which
// appends them to the log in groups of up to the group-commit size, and
// returns once each is durable, with the first error.
func (s *Store) RecordAll(ctx context.Context, records []engine.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ps := make([]*pending, len(records))
	for i, r := range records {
		e, err := store.EntryOf(r)
		if err != nil {
			return fmt.Errorf("sqlitestore: %w", err)
		}
		ps[i] = &pending{entry: e, done: make(chan error, 1)}
	}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return fmt.Errorf("sqlitestore: record %d results: %w", len(records), store.ErrClosed)
	}
	queued := 0
	for _, p := range ps {
		select {
		case s.queue <- p:
			queued++
			continue
		case <-ctx.Done():
		}
		break
	}
	s.mu.RUnlock()
	var first error
	for _, p := range ps[:queued] {
		select {
		case err := <-p.done:
			if err != nil && first == nil {
				first = err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if queued < len(ps) {
		return ctx.Err() // the rest were not queued: not recorded
	}
	return first
}

// Bodies returns the stored bodies of the ids the store has.
func (s *Store) Bodies(ctx context.Context, ids []string) (map[string]json.RawMessage, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if err := s.caughtUp(ctx); err != nil {
		return nil, fmt.Errorf("sqlitestore: read results of %s: %w", s.path, err)
	}
	out := make(map[string]json.RawMessage, len(ids))
	err := s.byID(ctx, ids, true, func(id, body string) { out[id] = json.RawMessage(body) })
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: read results of %s: %w", s.path, err)
	}
	return out, nil
}

// byID calls each with the id (and the body, when withBody) of every result
// of ids that the database has, reading them in chunks of bound
// parameters.
func (s *Store) byID(ctx context.Context, ids []string, withBody bool, each func(id, body string)) error {
	cols := "id, ''"
	if withBody {
		cols = "id, body"
	}
	const chunk = 500 // well under SQLite's limit of bound parameters
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := s.rdb.QueryContext(ctx, "SELECT "+cols+" FROM results WHERE id IN (?"+strings.Repeat(",?", len(part)-1)+")", args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id, body string
			if err := rows.Scan(&id, &body); err != nil {
				rows.Close()
				return err
			}
			each(id, body)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}
