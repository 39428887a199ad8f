// Package sqlitestore is the embedded store.Database: the results of lookups
// in one SQLite file, dir/numen.db, through the pure-Go driver
// modernc.org/sqlite (no cgo), and a results log beside it, dir/results-log,
// where each result is made durable first.
//
//	st, err := sqlitestore.Open(ctx, "/var/lib/numen", sqlitestore.WithLogger(logger))
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
// The store is four parts, each with its own state and goroutine: the
// log writer (writer.go: the commit function of the group-commit writer
// both stores share), the indexer (indexer.go), the checkpointer
// (checkpoint.go) and the pruner (prune.go); they share only what the
// health type knows (a failed flush, a damaged database). Each logs
// through the store's logger (WithLogger).
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
// A failed transaction of the indexer is tried again every second, and
// logged once per distinct failure; its results are safe in the log
// meanwhile, Ping and the reads report the failure, and Records go on until DefaultMaxUnindexed results wait
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
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/core"
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
	maxBatch    int
	maxDelay    time.Duration
	readers     int
	busyTimeout time.Duration
	logger      *slog.Logger

	indexDelay   time.Duration
	maxUnindexed int

	startAnyway    bool          // WithStartAnyway
	retention      time.Duration // WithLogRetention
	retentionBytes int64         // WithLogRetentionBytes

	// For tests (export_test.go): the size of a segment of the log, the
	// pause before the indexer tries a failed transaction again, how often
	// the pruner looks, the WAL size (frames) past which the checkpointer
	// restarts the WAL; a hook in the indexer's transaction before COMMIT
	// (an error fails it as a failed COMMIT would); the writer's flush of
	// the log; a commit function in place of the log writer's; and the
	// hooks called after a result is queued, when Close stops taking
	// results, after each of the pruner's passes, after each of the
	// indexer's transactions (with its error, once published) and after
	// each of the checkpointer's passes.
	segmentSize   int64
	indexRetry    time.Duration
	pruneEvery    time.Duration
	restartFrames int64
	beforeCommit  func(ids []string) error
	sync          func() error
	commit        func(*Store) func([]*pending)
	onQueued      func(queued int)
	onClosing     func()
	afterPrune    func()
	afterIndex    func(error)
	afterCkpt     func()
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

// WithLogger sets the logger of the store's own work (the indexer's and
// the checkpointer's failures, the log's); default slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// Store is the SQLite store.Database. See the package documentation.
type Store struct {
	*core.Store[*sql.Tx]
	*core.Writer[*pending]

	path   string // the database file
	logDir string // the results log
	opts   options
	lock   *os.File // LockName, locked while the store is open
	health health

	rdb *sql.DB // read-only connections
	qdb *sql.DB // the queue's connection (queue.go)

	logw logWriter
	idx  indexer
	cp   checkpointer
	pr   pruner

	fresh    bool     // the database was missing, empty or without a schema at Open
	recovery Recovery // what Open did to the log (Recovery)

	// balances are the accounts' budgets (balance.go), made at first use.
	balances     *core.LocalBalances
	balancesOnce sync.Once
}

var _ store.Database = (*Store)(nil)

// health is what the parts of a store know of its state: a failed flush
// of the results log, a database found damaged.
type health struct {
	path    string
	failed  atomic.Pointer[error] // set once an append to the log failed
	damaged atomic.Pointer[error] // set once the database was found damaged
}

// broken returns the error of a failed append to the log, or nil.
func (h *health) broken() error {
	if err := h.failed.Load(); err != nil {
		return *err
	}
	return nil
}

// readFailed returns err, and when it says that the database file is
// damaged, remembers it (markDamaged): a read that meets damaged pages
// fails, and the file will not heal.
func (h *health) readFailed(err error) error {
	if isCorrupt(err) {
		h.markDamaged(err)
	}
	return err
}

// markDamaged remembers that the database was found damaged (by a read,
// the indexer or the pruner's check; why): from then on Record and
// Enqueue fail with store.ErrDamaged, the indexer commits nothing, no
// segment of the results log is deleted, and Ping reports it with the
// way out.
func (h *health) markDamaged(why error) {
	damaged := fmt.Errorf("sqlitestore: %s is damaged (%v); it takes no more results and keeps every segment of the results log: stop the server, restore %s from a backup, and run numen data recover %s (the results since the backup are in the log)",
		h.path, why, FileName, filepath.Dir(h.path))
	h.damaged.CompareAndSwap(nil, &damaged)
}

// isDamaged returns, wrapping store.ErrDamaged, why the store takes no
// results because its database is damaged, or nil.
func (h *health) isDamaged() error {
	if err := h.damaged.Load(); err != nil {
		return fmt.Errorf("%w: %w", store.ErrDamaged, *err)
	}
	return nil
}

// isCorrupt reports whether err is SQLite's for a damaged database file
// ("database disk image is malformed", "file is not a database").
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

// Open opens the store in dir, creating dir (mode 0700), the database
// (mode 0600) and the results log when missing, migrating the schema to
// this build's version, and committing to the database the results of
// the log that are not in it yet (after a crash). A directory that cannot
// be created or written, or that another store has open, is an error
// naming it.
func Open(ctx context.Context, dir string, opts ...Option) (*Store, error) {
	o := options{
		maxBatch: DefaultMaxBatch, maxDelay: DefaultMaxDelay, readers: 4, busyTimeout: 5 * time.Second, logger: slog.Default(),
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
	s := &Store{path: path, logDir: filepath.Join(dir, LogDir), opts: o}
	s.health.path = path
	s.idx.init(s, o)
	s.cp.init(s, o)
	s.pr.init(s, o)
	if s.lock, err = lockDir(dir); err != nil {
		return fail(err)
	}
	if err := s.open(ctx); err != nil {
		s.release()
		return fail(err)
	}
	s.logw = logWriter{health: &s.health, idx: &s.idx, log: s.logw.log, logger: o.logger, inGroup: make(map[string]struct{}), recorded: s.recorded}
	commit := s.logw.commit
	if o.commit != nil {
		commit = o.commit(s)
	}
	s.Writer = &core.Writer[*pending]{
		Name: "sqlitestore", MaxBatch: o.maxBatch, MaxDelay: o.maxDelay, Commit: commit,
		New: func(e store.Entry) (*pending, <-chan error) {
			p := &pending{entry: e, done: make(chan error, 1)}
			return p, p.done
		},
		OnQueued: o.onQueued, OnClosing: o.onClosing,
	}
	s.Start(1)
	go s.idx.run()
	go s.cp.run()
	go s.pr.run()
	return s, nil
}

// open opens the database and the log for Open, and commits to the
// database what the log has that it has not.
func (s *Store) open(ctx context.Context) (err error) {
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
	if s.idx.db, err = connect(indexerConn, 1); err != nil {
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
	if s.cp.db, err = connect(checkpointerConn, 1); err != nil {
		return err
	}
	s.Store = &core.Store[*sql.Tx]{
		Name: "sqlitestore", Where: s.path, SQL: &dialect, Version: schemaVersion, Results: newDB(s.rdb),
		Open: s.checkOpen, CaughtUp: s.idx.caughtUp, ReadFailed: s.health.readFailed, Writable: s.health.isDamaged,
	}
	if err := s.recover(ctx); err != nil {
		return err
	}
	if err := s.openQueue(ctx); err != nil {
		return err
	}
	return s.idx.db.QueryRowContext(ctx, "SELECT coalesce(max(id), '') FROM results").Scan(&s.idx.maxIndexed)
}

// release closes what Open opened, after a failed Open or at Close.
func (s *Store) release() error {
	s.idx.closeStatements()
	var errs []error
	if s.logw.log != nil {
		errs = append(errs, s.logw.log.close())
	}
	// The last connection to close checkpoints the WAL into the database.
	for _, db := range []*sql.DB{s.qdb, s.cp.db, s.rdb, s.idx.db} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	errs = append(errs, s.lock.Close()) // and unlocks
	return errors.Join(errs...)
}

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Ping checks that the database answers and has this build's schema, that
// the indexer is running, that no flush of the log has failed, that the
// database is not known to be damaged and that the indexer's last
// transaction did not fail.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := s.health.broken(); err != nil {
		return err
	}
	if err := s.health.damaged.Load(); err != nil {
		return *err
	}
	if err := s.idx.failure(); err != nil {
		return err
	}
	return s.Store.Ping(ctx)
}

// Close stops accepting results, waits until those already handed to
// Record are in the log and the indexer has committed them to the
// database, waits for running reads (an Export streaming to a slow client,
// say) to finish, and closes the database and the log. Closing twice is
// not an error. Results the indexer could not commit stay in the log, and
// the next Open commits them.
func (s *Store) Close() error {
	if err := core.StopForClose(s.StopQueue); err != nil {
		return err
	}
	if !s.Writer.Close() {
		return nil
	}
	s.idx.close()
	<-s.idx.done
	close(s.cp.stop) // the checkpointer's and the pruner's
	<-s.cp.done
	<-s.pr.done
	err := s.release()
	if err == nil {
		err = s.idx.lastError()
	}
	if err != nil {
		return fmt.Errorf("sqlitestore: close %s: %w", s.path, err)
	}
	return nil
}

func (s *Store) checkOpen() error {
	if s.Closed() {
		return fmt.Errorf("sqlitestore: %s: %w", s.path, store.ErrClosed)
	}
	return nil
}

// recorded returns which of ids the database has.
func (s *Store) recorded(ctx context.Context, ids []string) (map[string]bool, error) {
	found := make(map[string]bool)
	err := s.ByID(ctx, ids, func(id string, _ []byte) { found[id] = true })
	return found, err
}

// setUp checks the indexer connection's journal mode, migrates the schema
// and prepares the indexer's statements.
func (s *Store) setUp(ctx context.Context) error {
	var mode string
	if err := s.idx.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		// WAL needs shared memory, which some network file systems lack.
		return fmt.Errorf("journal_mode is %q, not wal: is the directory on a local file system?", mode)
	}
	var version int
	if err := s.idx.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version == 0 && !s.fresh {
		s.fresh = true
		if err := s.checkFresh(s.path + " is a new database (no schema)"); err != nil {
			return err
		}
	}
	if err := migrate(ctx, s.idx.db); err != nil {
		return err
	}
	// From now on the pages a transaction changes stay in memory until
	// it commits (at most indexBatch results', some MiB): when the cache
	// spilled them into the WAL half-way, SQLite wrote them again at the
	// commit and read the WAL back to recompute its checksums, about a
	// tenth of the indexer's CPU. Not before the migrations, which may
	// rewrite a whole database in one transaction. The pool keeps its one
	// connection (connect); one that replaces a broken one spills again,
	// which costs CPU only.
	if _, err := s.idx.db.ExecContext(ctx, "PRAGMA cache_spill = 0"); err != nil {
		return err
	}
	var err error
	if s.idx.insert, err = s.idx.db.PrepareContext(ctx, insertSQL+" VALUES "+insertRow+insertConflict); err != nil {
		return err
	}
	if s.idx.upsert, err = s.idx.db.PrepareContext(ctx, `
INSERT INTO reports (account, storage, product, count, cost, first_ms, last_ms)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (account, storage, product) DO UPDATE SET
	count    = count + excluded.count,
	cost     = cost + excluded.cost,
	first_ms = min(first_ms, excluded.first_ms),
	last_ms  = max(last_ms, excluded.last_ms)`); err != nil {
		return err
	}
	if s.idx.tally, err = s.idx.db.PrepareContext(ctx, `
INSERT INTO report_facets (account, storage, field, value, label, count, cost)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (account, storage, field, value) DO UPDATE SET
	count = count + excluded.count,
	cost  = cost + excluded.cost,
	label = CASE WHEN excluded.label <> '' THEN excluded.label ELSE label END`); err != nil {
		return err
	}
	if s.idx.position, err = s.idx.db.PrepareContext(ctx, `
INSERT INTO log_position (id, segment, end_offset) VALUES (1, ?, ?)
ON CONFLICT (id) DO UPDATE SET segment = excluded.segment, end_offset = excluded.end_offset`); err != nil {
		return err
	}
	return nil
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
	queueConn  // the queue's (queue.go)
)

// dsn returns the driver's name for the database: a file: URI (so that any
// path survives) with the pragmas every connection needs. The writer takes
// the write lock when its transactions begin (BEGIN IMMEDIATE), so that a
// transaction never fails half-way on a lock; readers are read-only.
func dsn(path string, o options, role connRole) string {
	q := url.Values{}
	busy := o.busyTimeout
	if role == queueConn {
		busy = max(busy, 10*time.Second)
	}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	switch role {
	case queueConn:
		// The writer's pragmas and durable commits: a job queued is a
		// receipt answered.
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(FULL)")
		q.Set("_txlock", "immediate")
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
		// A statement journal, should a statement need one, in memory,
		// not in a temporary file.
		q.Add("_pragma", "temp_store(MEMORY)")
		// A cache of 32 MiB rather than 2 keeps the indexes' pages that
		// successive commits change again (and see setUp's cache_spill).
		q.Add("_pragma", "cache_size(-32768)")
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

// The indexer's INSERT of results: insertSQL, then one row (insertRow,
// insertColumns parameters), then insertConflict. A result whose id is
// already recorded is not inserted (and not an error): the rows affected
// tell. Its INSERT of many rows (insertRows) is insertManySQL, then the
// rows: OR IGNORE skips a row that breaks any constraint rather than
// failing the statement, so that SQLite need not journal the statement's
// pages to undo its earlier rows (a statement journal costs about 5% of
// the indexer's CPU); the rows affected tell, and the batch is then
// committed one result at a time with insertSQL, which fails on anything
// but a duplicate id.
const (
	insertSQL     = "INSERT" + insertInto
	insertManySQL = "INSERT OR IGNORE" + insertInto
	insertInto    = ` INTO results (id, account, storage, product, created_ms, cost, body,
	number, status, connectivity, number_type, country, network, valid, invalid_reason, route)`
	insertRow      = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	insertColumns  = 16
	insertConflict = " ON CONFLICT (id) DO NOTHING"
)

// insertArgs appends the parameters of e's row of insertSQL to args.
// body is e.Result as a string.
func insertArgs(args []any, e *store.Entry, body string) []any {
	f := &e.Facts
	return append(args, e.ID, e.Account, e.Storage, string(e.Product), e.Millis, int64(e.Cost), body,
		f.Number, f.Status, f.Connectivity, f.NumberType, f.Country, f.Network, f.Valid, f.InvalidReason, f.Route)
}
