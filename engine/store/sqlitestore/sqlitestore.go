// Package sqlitestore is the embedded store.Store: the results of lookups
// in one SQLite file, dir/numen.db, through the pure-Go driver
// modernc.org/sqlite (no cgo).
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
// that appends the results, so that Reports reads a few rows instead of
// scanning the results. The schema is versioned with PRAGMA user_version
// and migrated by Open.
//
// # Durability
//
// The database runs in WAL mode. Record returns nil only after the
// transaction holding its result has committed and the WAL has been
// flushed to disk after that commit (fdatasync on Linux), so a result
// that was acknowledged survives a crash of the process, and of the
// machine as far as the disk honours fsync. The crash test kills a
// writing process with SIGKILL and finds every acknowledged id.
//
// The flush is not part of COMMIT. With synchronous=FULL, SQLite would
// fsync the WAL inside every COMMIT, and the one writer would wait for
// the disk before it could begin the next transaction. Instead the writer
// commits with synchronous=NORMAL (no fsync in COMMIT) and hands each
// committed batch to a second goroutine, the syncer, which flushes the
// WAL once for every batch committed so far and only then releases their
// Records. Flushing the WAL is what synchronous=FULL does at COMMIT, and
// it makes every transaction committed before it durable, whichever
// connection committed it (SQLite's author on the SQLite forum, "Switching
// pragma synchronous to upgrade durability", 2021). While the syncer waits
// for the disk, the writer commits the next batch. A failed flush fails
// its Records and every later one, and Ping reports it: after a failed
// fsync the kernel may have dropped the pages it could not write, so the
// store takes no more results until it is opened again (and SQLite's
// recovery reads the WAL).
//
// A result can be visible to readers (Export, Results, Bodies) a moment
// before it is acknowledged, between its commit and the flush. A result
// that was seen but not acknowledged could be lost with the machine; one
// that was acknowledged cannot.
//
// A Record whose context ends while its result waits for the commit
// returns the context's error, but the result may still be committed: it
// is then recorded and not acknowledged, which is safe (the engine does not
// answer, and the id is never reused). The reverse, acknowledged and lost,
// does not happen.
//
// Checkpoints, which copy the WAL into the database file, run on a
// connection of their own, not inside the writer's commits (checkpoint.go).
//
// # Group commit
//
// A flush per result would bound the store at the disk's fsyncs per
// second, for all callers together. Instead, Record hands its result to a
// single writer goroutine. The writer takes the first result waiting and
// every other one queued (up to DefaultMaxBatch); while a batch it
// committed before still waits for the syncer, it holds the new one back
// and adds what arrives, and it commits the new batch in one transaction
// once the syncer has taken the one before. The syncer flushes once for
// every batch committed while it was flushing the previous time. So a
// transaction holds as many results as arrived during a flush: one when
// the store is idle (no added latency), dozens under load, and the fixed
// cost of a transaction is shared by all of them. WithGroupCommit can make
// the writer wait a fixed delay for more results before it commits; on the
// machine of benchmarks/README.md, a 2 ms delay lowered throughput at every
// concurrency measured, as well as adding latency, so the default is none.
//
// A result whose id is already recorded fails alone, with
// store.ErrDuplicateID, and the others of its batch commit: a batch that
// meets one is appended again one result per transaction. When a
// transaction fails for another reason, its results are retried one per
// transaction, so that one result the database refuses does not fail the
// others; a failure of the database itself (a lock held too long by
// another process, a full disk, an I/O error) fails them all at once.
//
// # Performance
//
// A Record costs a commit and a flush when it is alone and a share of
// them under load. On the 2-vCPU machine of benchmarks/README.md ("Stored
// results"), one goroutine records about 3,300 results per second (0.31 ms
// each) and 64 goroutines together about 25,000 per second, some 24 per
// transaction (BenchmarkRecord). Lookup ids grow with time (engine), so a
// new result lands on the last page of the id index; the writer inserts a
// batch with statements of up to 64 rows. Reports reads the reports table, 0.09 ms for an
// account with 12 reports whether they hold 10,000 results or 100,000,
// where aggregating the results took 41 ms and 0.5 s (BenchmarkReports).
// Export and Results walk the results_report index in order, with no sort;
// Export streams, one result at a time: about 350,000 results per second
// as JSON and 34,000 as CSV, which decodes each result (BenchmarkExport).
//
// # Thread safety
//
// A Store is safe for concurrent use. Writes go through the one writer
// goroutine and its one connection; reads use a separate pool of read-only
// connections (WithReaders), which WAL lets run while the writer commits;
// the checkpointer has a connection of its own.
// Only one process should open a directory at a time: a second one works
// (SQLite locks the file), but its writer competes for the write lock.
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
	"github.com/numenhq/numen/routing"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// FileName is the name of the database file in the directory given to Open.
const FileName = "numen.db"

// Group-commit defaults (WithGroupCommit).
const (
	DefaultMaxBatch               = 256
	DefaultMaxDelay time.Duration = 0
)

// Option configures Open.
type Option func(*options)

type options struct {
	maxBatch    int
	maxDelay    time.Duration
	readers     int
	busyTimeout time.Duration

	// beforeCommit, for tests, runs in the writer's transaction after the
	// inserts and before COMMIT; an error fails the transaction like a
	// failed COMMIT would.
	beforeCommit func(ids []string) error
	// sync, for tests, replaces the syncer's fsync of the WAL.
	sync func() error
	// restartFrames is the WAL size (frames) past which the checkpointer
	// restarts the WAL; restartFrames by default, smaller in tests.
	restartFrames int64
}

// WithGroupCommit sets how many results one transaction commits at most
// (default DefaultMaxBatch; a negative or zero maxBatch keeps it) and how
// long the writer waits for more results once one is waiting before it
// commits (default DefaultMaxDelay, none: it commits whatever is queued).
// A delay adds that much latency to every Record and, with callers that
// wait for their Record before sending the next result (every lookup
// does), it lowers throughput too: see the package documentation.
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
	path string
	opts options

	wdb *sql.DB // one connection, the writer goroutine's
	rdb *sql.DB // read-only connections
	cdb *sql.DB // one connection, the checkpointer's

	insert, upsert *sql.Stmt // on wdb

	inserts [insertChunk + 1]*sql.Stmt // INSERTs of n rows on wdb (insertStmt); the writer's
	args    []any                      // their arguments; the writer's

	// mu guards closed and the sends on queue, so that Close closes queue
	// only when no Record is sending.
	mu     sync.RWMutex
	closed bool
	queue  chan *pending
	synced chan []*pending // committed batches, from the writer to the syncer
	ready  chan struct{}   // a token: no committed batch waits for the syncer (awaitSyncer)
	held   atomic.Int32    // results awaitSyncer holds back, for tests
	done   chan struct{}   // closed when the writer and the syncer have exited

	wake         chan struct{} // the writer committed: the checkpointer may have work
	stopCP       chan struct{} // closed by Close: the checkpointer returns
	cpDone       chan struct{} // closed when the checkpointer has returned
	checkpointed atomic.Int64  // frames checkpointed, for tests

	failed  atomic.Pointer[error] // set once an fsync failed: see syncer
	walFile os.FileInfo           // the WAL file the syncer last synced (its goroutine's)
}

var _ store.Store = (*Store)(nil)

// Open opens the store in dir, creating dir (mode 0700) and the database
// (mode 0600) when missing and migrating the schema to this build's
// version. A directory that cannot be created or written is an error
// naming it.
func Open(dir string, opts ...Option) (*Store, error) {
	o := options{maxBatch: DefaultMaxBatch, maxDelay: DefaultMaxDelay, readers: 4, busyTimeout: 5 * time.Second, restartFrames: restartFrames}
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
	// SQLite would create the file readable by all; results are not for
	// everyone. Its -wal and -shm files take the database's permissions.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		return fail(err)
	} else if err := f.Close(); err != nil {
		return fail(err)
	}

	s := &Store{
		path: path, opts: o, queue: make(chan *pending, o.maxBatch),
		synced: make(chan []*pending, 64), ready: make(chan struct{}, 1), done: make(chan struct{}),
		wake: make(chan struct{}, 1), stopCP: make(chan struct{}), cpDone: make(chan struct{}),
	}
	ctx := context.Background()
	if s.wdb, err = sql.Open("sqlite", dsn(path, o, writerConn)); err != nil {
		return fail(err)
	}
	s.wdb.SetMaxOpenConns(1)
	s.wdb.SetMaxIdleConns(1)
	s.wdb.SetConnMaxLifetime(0)
	s.wdb.SetConnMaxIdleTime(0)
	if err := s.setUp(ctx); err != nil {
		s.wdb.Close()
		return fail(err)
	}
	if s.rdb, err = sql.Open("sqlite", dsn(path, o, readerConn)); err != nil {
		s.closeStatements()
		s.wdb.Close()
		return fail(err)
	}
	s.rdb.SetMaxOpenConns(o.readers)
	s.rdb.SetMaxIdleConns(o.readers)
	if err := s.rdb.PingContext(ctx); err != nil {
		s.closeStatements()
		s.wdb.Close()
		s.rdb.Close()
		return fail(err)
	}
	if s.cdb, err = sql.Open("sqlite", dsn(path, o, checkpointerConn)); err != nil {
		s.closeStatements()
		s.wdb.Close()
		s.rdb.Close()
		return fail(err)
	}
	s.cdb.SetMaxOpenConns(1)
	s.cdb.SetMaxIdleConns(1)
	s.cdb.SetConnMaxLifetime(0)
	s.cdb.SetConnMaxIdleTime(0)
	s.ready <- struct{}{}
	go s.write()
	go s.syncer()
	go s.checkpointer()
	return s, nil
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
	writerConn
	checkpointerConn
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
	case writerConn:
		q.Add("_pragma", "journal_mode(WAL)")
		// The syncer makes commits durable (write.go): COMMIT itself does
		// not wait for the disk.
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

// setUp checks the writer connection's journal mode, migrates the schema
// and prepares the writer's statements.
func (s *Store) setUp(ctx context.Context) error {
	var mode string
	if err := s.wdb.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		// WAL needs shared memory, which some network file systems lack.
		return fmt.Errorf("journal_mode is %q, not wal: is the directory on a local file system?", mode)
	}
	if err := migrate(ctx, s.wdb); err != nil {
		return err
	}
	var err error
	if s.insert, err = s.wdb.PrepareContext(ctx, insertSQL+" VALUES (?, ?, ?, ?, ?, ?, ?)"+insertConflict); err != nil {
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
	return nil
}

func (s *Store) closeStatements() {
	for _, st := range append([]*sql.Stmt{s.insert, s.upsert}, s.inserts[:]...) {
		if st != nil {
			st.Close()
		}
	}
}

// The writer's INSERT of results: insertSQL, then one or more rows of
// seven parameters, then insertConflict. A result whose id is already
// recorded is not inserted (and not an error): the rows affected tell.
const (
	insertSQL      = "INSERT INTO results (id, account, storage, product, created_ms, cost, body)"
	insertConflict = " ON CONFLICT (id) DO NOTHING"
)

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Record appends r to its report and returns once it is committed (nil),
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

// Ping checks that the database answers and has this build's schema, and
// that the writer is running and no fsync has failed.
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
	var version int
	if err := s.rdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("sqlitestore: ping %s: %w", s.path, err)
	}
	if version != schemaVersion {
		return fmt.Errorf("sqlitestore: ping %s: schema version %d, want %d", s.path, version, schemaVersion)
	}
	return nil
}

// Close stops accepting results, waits until those already handed to
// Record are committed and running reads (an Export streaming to a slow
// client, say) have finished, and closes the database. Closing twice is
// not an error.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.queue)
	s.mu.Unlock()
	<-s.done
	close(s.stopCP)
	<-s.cpDone
	s.closeStatements()
	// The last connection to close checkpoints the WAL into the database.
	err := errors.Join(s.cdb.Close(), s.rdb.Close(), s.wdb.Close())
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
	rows, err := s.rdb.QueryContext(ctx, `
SELECT storage, product, count, cost, first_ms, last_ms FROM reports
WHERE account = ? ORDER BY storage, product`, account)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: reports of %q in %s: %w", account, s.path, err)
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
			return nil, fmt.Errorf("sqlitestore: reports of %q in %s: %w", account, s.path, err)
		}
		first, last := time.UnixMilli(firstMS).UTC(), time.UnixMilli(lastMS).UTC()
		if n := len(reports); n == 0 || reports[n-1].Name != name {
			reports = append(reports, store.Report{Name: name, First: first, Last: last})
		}
		r := &reports[len(reports)-1]
		r.Products = append(r.Products, routing.Product(product))
		r.Count += count
		r.Cost += engine.Money(cost)
		if first.Before(r.First) {
			r.First = first
		}
		if last.After(r.Last) {
			r.Last = last
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlitestore: reports of %q in %s: %w", account, s.path, err)
	}
	store.SortReports(reports)
	return reports, nil
}

// Export writes one report to w; see store.Store and store.Exporter. The
// report is read in one read transaction: results committed while it
// streams are not part of it.
func (s *Store) Export(ctx context.Context, account, storage string, format store.Format, w io.Writer) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	fail := func(err error) error {
		return fmt.Errorf("sqlitestore: export report %q of %q from %s: %w", storage, account, s.path, err)
	}
	if _, err := store.ParseFormat(string(format)); err != nil {
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
	ex, err := store.NewExporter(w, format, products)
	if err != nil {
		return fail(err)
	}
	rows, err := tx.QueryContext(ctx, `
SELECT product, body FROM results
WHERE account = ? AND storage = ? ORDER BY created_ms, id`, account, storage)
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
		if err := ex.Write(routing.Product(product), body); err != nil {
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
func (s *Store) products(ctx context.Context, tx *sql.Tx, account, storage string) ([]routing.Product, error) {
	rows, err := tx.QueryContext(ctx, `SELECT product FROM reports WHERE account = ? AND storage = ?`, account, storage)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var products []routing.Product
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		products = append(products, routing.Product(p))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(products) == 0 {
		return nil, store.ErrUnknownReport
	}
	return products, nil
}

// Results returns one page of a report; see store.Store.
func (s *Store) Results(ctx context.Context, account, storage, after string, limit int) ([]store.Row, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	fail := func(err error) ([]store.Row, error) {
		return nil, fmt.Errorf("sqlitestore: results of report %q of %q after %q from %s: %w", storage, account, after, s.path, err)
	}
	limit = store.PageSize(limit)
	var rows *sql.Rows
	var err error
	if after == "" {
		rows, err = s.rdb.QueryContext(ctx, `
SELECT id, product, created_ms, cost, body FROM results
WHERE account = ? AND storage = ?
ORDER BY created_ms, id LIMIT ?`, account, storage, limit)
	} else {
		var afterMS int64
		err = s.rdb.QueryRowContext(ctx, `
SELECT created_ms FROM results WHERE id = ? AND account = ? AND storage = ?`,
			after, account, storage).Scan(&afterMS)
		if errors.Is(err, sql.ErrNoRows) {
			return fail(store.ErrUnknownCursor)
		}
		if err != nil {
			return fail(err)
		}
		rows, err = s.rdb.QueryContext(ctx, `
SELECT id, product, created_ms, cost, body FROM results
WHERE account = ? AND storage = ? AND (created_ms, id) > (?, ?)
ORDER BY created_ms, id LIMIT ?`, account, storage, afterMS, after, limit)
	}
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	page := make([]store.Row, 0, min(limit, 64))
	for rows.Next() {
		var (
			r             store.Row
			product       string
			createdMS, ct int64
			body          []byte
		)
		if err := rows.Scan(&r.ID, &product, &createdMS, &ct, &body); err != nil {
			return fail(err)
		}
		r.Product, r.Time, r.Cost, r.Result = routing.Product(product), time.UnixMilli(createdMS).UTC(), engine.Money(ct), body
		page = append(page, r)
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	if len(page) == 0 && after == "" {
		// Reports exist only with results: an empty first page is a
		// report the account does not have.
		return fail(store.ErrUnknownReport)
	}
	return page, nil
}

// RecordAll appends records: it queues them all for the writer, which
// commits them in batches of up to the group-commit size, and returns once
// each is committed, with the first error.
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
	out := make(map[string]json.RawMessage, len(ids))
	const chunk = 500 // well under SQLite's limit of bound parameters
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		q := "SELECT id, body FROM results WHERE id IN (?" + strings.Repeat(",?", len(part)-1) + ")"
		rows, err := s.rdb.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("sqlitestore: read results of %s: %w", s.path, err)
		}
		for rows.Next() {
			var id, body string
			if err := rows.Scan(&id, &body); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlitestore: read results of %s: %w", s.path, err)
			}
			out[id] = json.RawMessage(body)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("sqlitestore: read results of %s: %w", s.path, err)
		}
	}
	return out, nil
}
