// Package pgstore is the store.Database of sidecars that share state: the
// results of lookups and their reports, the idempotency keys of bulk
// submissions, the webhook outbox and the River queue
// (github.com/riverqueue/river) in one PostgreSQL database, through pgx v5
// and River's pgx driver. Any number of numen serve processes may open the
// same database: a sync lookup on any lands in the same reports, a bulk job
// submitted to one is worked by any, and an Idempotency-Key replayed to
// another node answers the same receipt.
//
//	db, err := pgstore.Open(ctx, "postgres://numen@db.internal/numen", pgstore.WithLogger(logger))
//	if err != nil { ... }
//	defer db.Close()
//
// # Schema
//
// Table results holds one row per result (id, account, report name,
// product, completion time in Unix milliseconds, cost in engine.Money
// units, the result object as the API wrote it, as text so that exports
// repeat its bytes, and its number and the values of store's Fields, each
// in a column); table reports one row per account, report and product
// with the count, cost and first and last times; table report_facets per
// report the count and cost of each value of every Field and of every
// day; table counts_pending the counts of the results not yet counted in
// the two (see "Reports and summaries"). Tables bulk_idempotency,
// webhook_batches and webhook_deliveries are the queue's; River migrates
// its own. The schema is versioned (table numen_schema) and Open migrates
// it, under an advisory lock, so that nodes starting together migrate once.
// A database newer than the build is an error. Some migrations change what
// a commit writes (5: counts pending per kind; 7: the fields valid,
// invalid_reason and route; each moves the pending counts to a new
// table): a node of the build before that still runs fails its commits
// and its indexer from then on, rather than store results its reports
// would not count or count them without the new fields, so a cluster is
// upgraded by stopping the old nodes before (or as) the new ones start.
//
// # Durability and throughput
//
// Record returns nil once its result is committed. A few writer goroutines
// take the results queued and commit each group in one statement
// (insertNewSQL: the rows, and their counts in counts_pending, which the
// writer adds up): under load one commit acknowledges many lookups. A
// result whose id is already stored fails alone, with
// store.ErrDuplicateID: the statement, which has no ON CONFLICT, fails
// whole, and one that skips the ids stored (insertSQL) follows. The
// digest signatures of ReplayGuard are committed in groups alike.
//
// # Reports and summaries
//
// The commit a lookup waits for writes its result only: the counts of
// reports and report_facets, rows that every lookup of a report would
// update and lock, are added by an indexer goroutine after the result is
// durable (index.go). The commit adds its results' counts to
// counts_pending instead: a row per report and combination of the
// values a summary counts (the product, the Fields, the day), so that the
// results of one commit, which under load are mostly of a few kinds,
// share a few rows, and no row another commit writes. Woken by a commit,
// the indexer waits 20 ms for more, then takes the pending rows in
// transactions of up to 4096: each deletes them and adds their counts, in
// one statement, so that a result is counted exactly once whatever dies
// when (a crash before the commit leaves it pending, after it counted). Indexers of
// several nodes share the pending rows (FOR UPDATE SKIP LOCKED: none waits
// for another's, none takes it too), and lock the rows of reports and
// report_facets in key order, so they never deadlock. Nothing depends on
// the order of commits or of ids. What a node leaves pending when it
// stops or dies is indexed by the next pass of any node's indexer (Open
// makes one).
//
// Reads are exact at once, with no delay: Reports, Summary, and the
// products of Query and Export add to the indexed counts those of the
// report's pending results, in the same statement (one snapshot), so a
// result acknowledged is counted, once. The indexer keeps the pending
// results few (those of the last 20 ms or so), which bounds what a read
// adds up; should the indexer fail, it logs the error (slog's default
// logger), tries again every second, and reads stay exact but cost more
// as the pending rows grow. The rows it deletes stay in
// counts_pending, dead, until a vacuum, and reads skip them: the indexer
// vacuums the table a second after a pass that took results (at most once
// a second, and never waiting for another node's vacuum), rather than
// leave it to autovacuum. It has a connection of its own, besides the
// pool's MaxConns, so that a connection killed while indexing never fails
// a lookup's commit. How Query and Export choose their plan
// (store.ChoosePlan) reads the indexed counts only: a guide, not a result.
//
// # Queue
//
// The River client works on the pool, with LISTEN/NOTIFY, and runs only
// while the queue has unfinished jobs (core.Switch): an idle node waits on
// LISTEN for River's insert notifications, which a job queued on any node
// sends, and polls nothing. QueueConfig.PollInterval is the running
// client's fallback.
//
// # Balances and spending limits
//
// An account may have a prepaid balance (the sum of its top-ups, table
// balance_topups, one row per top-up id, less everything it was ever
// charged) and a monthly cap (from the config; engine.Limits). Spending
// is never kept apart: an account spent what its results were charged,
// read from the reports' counts (Store.Reports, exact at once). So a
// crash can never charge twice (a result is charged by being recorded)
// nor lose a charge (an acknowledged result is durable).
//
// Checking each lookup against the database would serialise an account's
// lookups on one row. Instead each node leases budget (Budgets, an
// engine.Budget per limited account): a lookup reserves its price from
// the node's lease in memory, under a mutex of the account (no I/O, no
// allocation), and is settled with what it was charged once its result is
// recorded. When the lease is spent or its 30 s have passed (WithLeases
// sets the duration and the grace below), the node asks
// for a new one in a transaction under the account's advisory lock
// (pg_advisory_xact_lock), which drops the leases that ended 2 minutes
// ago (their nodes died or stopped), then grants up to 64 lookups at the
// price, or a second of the account's lookups on this node when it runs
// faster (at most 65,536), and at most half of what is left (in whole
// lookups), so that near the limit another node still finds some. What is left is the limit, less
// the results' spending, less what the other nodes' leases hold (granted
// less used, table balance_leases), less what this node holds.
//
// Why spending never passes a limit: a node's lease row says it was
// granted G and had used U (settled, recorded) when it last wrote the
// row; from then on it can add at most G-U to the results (its
// reservations never pass G, and what it settled is in the results
// already). The grant reads the leases before the results, so a use
// reported in between is counted twice (never missed); every result
// recorded later comes from some lease's G-U. A node that dies keeps its
// row; whatever it recorded before dying is in the results, and its row
// counts whole until it is dropped, after its end and the grace: a node
// killed with -9 makes the others refuse early for up to 2.5 minutes, at
// most by its lease, and never lets them pass the limit. The bound of
// the grace: a lookup reserved before its lease ended must be recorded
// within the grace (lookups are bounded by the request timeout, 30 s by
// default); a node paused longer (a stopped VM) could pass the limit by
// at most its last lease.
//
// Between grants a node reports its use (one UPDATE per account whose use
// changed, every second, and at once after each lookup when the last grant
// gave less than asked, near the limit), so that the other nodes stop
// counting it twice: near the limit, a lookup may be refused while
// another node's last use is counted twice, for at most that report.
// The month is the node's (UTC), as results name their reports; a lease
// granted in the old month counts against the new one until it is used or
// ends (never more than allowed, at most a lease less for a while).
// A result whose recording failed (it may or may not be stored) stays held
// by its node for the grace; by then the results have it or never will. Accounts without limits have
// no Budget: their lookups pay one nil test.
//
// # Thread safety
//
// A Store is safe for concurrent use.
package pgstore

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/core"
)

// Option configures Open.
type Option func(*options)

type options struct {
	writers, maxBatch int
	maxConns          int32
	logger            *slog.Logger
	// leaseTTL and leaseGrace are the budgets' leases' (WithLeases).
	leaseTTL, leaseGrace time.Duration
}

// WithWriters sets the number of goroutines that commit results (default
// 2): how many groups commit at once. More make smaller groups, and cost
// the server more than they overlap (BenchmarkRecord: 1 or 2 writers
// commit 16,000-17,000 results/s from 16 callers on two cores shared with
// the server, 4 writers 10,000).
func WithWriters(n int) Option { return func(o *options) { o.writers = max(n, 1) } }

// WithMaxBatch bounds the results one commit takes (default 512).
func WithMaxBatch(n int) Option { return func(o *options) { o.maxBatch = max(n, 1) } }

// WithMaxConns bounds the connections of the pool (default 16).
func WithMaxConns(n int32) Option { return func(o *options) { o.maxConns = max(n, 1) } }

// WithLogger sets the logger of the store's own work (listening for
// queued jobs); default slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// Store is the PostgreSQL store.Database. See the package documentation.
type Store struct {
	*core.Store[pgx.Tx]
	*core.Writer[*pending]

	pool   *pgxpool.Pool
	name   string // the database's URL without its password, for errors
	logger *slog.Logger

	// budgets is the node's share of the accounts' budgets (balance.go).
	budgets *Budgets

	ix indexer

	schema     string // River's notifications are per schema
	stopListen context.CancelFunc
	listening  chan struct{} // closed when listen has returned
}

var _ store.Database = (*Store)(nil)

// pending is a result waiting for its commit.
type pending struct {
	entry store.Entry
	done  chan error
}

// idleCheck is how often the queue's idle check runs (core.Switch).
var idleCheck = time.Minute

// Open connects to the database at dsn (a postgres:// URL or a libpq
// connection string), migrates the schema and River's tables, and starts
// the writers.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	o := options{writers: 2, maxBatch: 512, maxConns: 16, logger: slog.Default(), leaseTTL: leaseTTL, leaseGrace: leaseGrace}
	for _, opt := range opts {
		opt(&o)
	}
	name := redact(dsn)
	fail := func(err error) (*Store, error) { return nil, fmt.Errorf("pgstore: %s: %w", name, err) }
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return fail(err)
	}
	cfg.MaxConns = o.maxConns
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fail(err)
	}
	s := &Store{pool: pool, name: name, logger: o.logger}
	s.budgets = newBudgets(s, o.leaseTTL, o.leaseGrace)
	db := newDB(pool)
	s.Store = &core.Store[pgx.Tx]{Name: "pgstore", Where: name, SQL: &dialect, Version: SchemaVersion, Results: db, Jobs: db, Open: s.checkOpen}
	s.Writer = &core.Writer[*pending]{
		Name: "pgstore", MaxBatch: o.maxBatch, MaxDelay: groupDelay, Commit: s.commit,
		New: func(e store.Entry) (*pending, <-chan error) {
			p := &pending{entry: e, done: make(chan error, 1)}
			return p, p.done
		},
	}
	err = s.migrate(ctx)
	if err == nil {
		err = pool.QueryRow(ctx, "SELECT current_schema()").Scan(&s.schema)
	}
	if err == nil {
		err = s.InitQueue(riverpgxv5.New(pool), false, idleCheck)
	}
	if err != nil {
		pool.Close()
		return fail(err)
	}
	s.startIndexer()
	go s.budgets.reportEvery(s.budgets.stop, s.budgets.stopped)
	s.Start(o.writers)
	return s, nil
}

// redact returns a database URL without its password.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return "the database"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.Redacted()
}

// Close stops the queue's workers (waiting up to 30 s for running jobs),
// waits until the results handed to Record are committed, and closes the
// pool. Closing twice is not an error.
func (s *Store) Close() error {
	if err := core.StopForClose(s.StopQueue); err != nil {
		return err
	}
	if s.Writer.Close() {
		// Leases of accounts' budgets that hold nothing go back at once;
		// the others end with their time (balance.go).
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := s.budgets.release(ctx); err != nil {
			s.logger.Warn("pgstore: giving back the budgets' leases", "error", err)
		}
		cancel()
		s.stopIndexer()
		s.pool.Close()
	}
	return nil
}

func (s *Store) checkOpen() error {
	if s.Closed() {
		return fmt.Errorf("pgstore: %s: %w", s.name, store.ErrClosed)
	}
	return nil
}
