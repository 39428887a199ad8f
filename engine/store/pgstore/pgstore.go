// Package pgstore is the store.Database of sidecars that share state: the
// results of lookups and their reports, the idempotency keys of bulk
// submissions, the webhook outbox and the River queue
// (github.com/riverqueue/river) in one PostgreSQL database, through pgx v5
// and River's pgx driver. Any number of numen serve processes may open the
// same database: a sync lookup on any lands in the same reports, a bulk job
// submitted to one is worked by any, and an Idempotency-Key replayed to
// another node answers the same receipt.
//
//	db, err := pgstore.Open(ctx, "postgres://numen@db.internal/numen")
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
// day; table results_pending the results not yet counted in the two (see
// "Reports and summaries"). Tables bulk_idempotency,
// webhook_batches and webhook_deliveries are the queue's; River migrates
// its own. The schema is versioned (table numen_schema) and Open migrates
// it, under an advisory lock, so that nodes starting together migrate once.
// A database newer than the build is an error.
//
// # Durability and throughput
//
// Record returns nil once its result is committed. A few writer goroutines
// take the results queued and commit each group in one statement
// (insertSQL: the rows, and a row of results_pending each): under load one
// commit acknowledges many lookups. A result whose id is already stored
// fails alone, with store.ErrDuplicateID.
//
// # Reports and summaries
//
// The commit a lookup waits for writes its result only: the counts of
// reports and report_facets, rows that every lookup of a report would
// update and lock, are added by an indexer goroutine after the result is
// durable (index.go). Woken by a commit, it waits 20 ms for more, then
// takes the pending results in transactions of up to 4096: each deletes
// their rows of results_pending and adds their counts, in one statement,
// so that a result is counted exactly once whatever dies when (a crash
// before the commit leaves it pending, after it counted). Indexers of
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
// as the pending results grow. The rows it deletes stay in
// results_pending, dead, until a vacuum, and reads skip them: the indexer
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
// while the queue has unfinished jobs (store.Switch): an idle node waits on
// LISTEN for River's insert notifications, which a job queued on any node
// sends, and polls nothing. QueueConfig.PollInterval is the running
// client's fallback.
//
// # Thread safety
//
// A Store is safe for concurrent use.
package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
)

// Options configure Open.
type Options struct {
	// Writers is the number of goroutines that commit results (default 2):
	// how many groups commit at once. More make smaller groups, and cost
	// the server more than they overlap (BenchmarkRecord: 1 or 2 writers
	// commit 16,000-17,000 results/s from 16 callers on two cores shared
	// with the server, 4 writers 10,000).
	Writers int
	// MaxBatch bounds the results one commit takes (default 512).
	MaxBatch int
	// MaxConns bounds the connections of the pool (default 16).
	MaxConns int32
}

// Store is the PostgreSQL store.Database. See the package documentation.
type Store struct {
	pool *pgxpool.Pool
	name string // the database's URL without its password, for errors
	opts Options

	// mu guards closed and the sends on queue, so that Close closes queue
	// only when no Record is sending.
	mu     sync.RWMutex
	closed bool
	queue  chan *pending
	wg     sync.WaitGroup // the writers

	ix indexer
	q  queue
}

var _ store.Database = (*Store)(nil)

// pending is a result waiting for its commit.
type pending struct {
	entry store.Entry
	done  chan error
}

// Open connects to the database at url (a postgres:// URL or a libpq
// connection string), migrates the schema and River's tables, and starts
// the writers.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	if opts.Writers <= 0 {
		opts.Writers = 2
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 512
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 16
	}
	name := redact(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %s: %w", name, err)
	}
	cfg.MaxConns = opts.MaxConns
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %s: %w", name, err)
	}
	s := &Store{pool: pool, name: name, opts: opts, queue: make(chan *pending, opts.MaxBatch)}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: %s: %w", name, err)
	}
	if err := pool.QueryRow(ctx, "SELECT current_schema()").Scan(&s.q.schema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: %s: %w", name, err)
	}
	s.q.sw = store.Switch{Name: "pgstore: " + name, NewRunner: s.newRunner, Unfinished: s.unfinished, IdleCheck: idleCheck}
	if s.q.inserts, err = river.NewClient(riverpgxv5.New(pool), &river.Config{}); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: %s: %w", name, err)
	}
	s.startIndexer()
	for range opts.Writers {
		s.wg.Add(1)
		go s.write()
	}
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

// Record appends r to its report and returns once it is committed (nil),
// or with store.ErrDuplicateID, store.ErrClosed, a database error, or
// ctx's error. With ctx's error the result may still be committed:
// recorded, not acknowledged.
func (s *Store) Record(ctx context.Context, r engine.Record) error {
	return s.RecordAll(ctx, []engine.Record{r})
}

// RecordAll appends records, each as Record does; it returns the first
// error.
func (s *Store) RecordAll(ctx context.Context, records []engine.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ps := make([]*pending, len(records))
	for i, r := range records {
		e, err := store.EntryOf(r)
		if err != nil {
			return fmt.Errorf("pgstore: %w", err)
		}
		ps[i] = &pending{entry: e, done: make(chan error, 1)}
	}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return fmt.Errorf("pgstore: record %d results: %w", len(records), store.ErrClosed)
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

// write is a writer goroutine: it takes the results queued, up to
// MaxBatch, and commits them together, until Close closes the queue. A
// group waits, at most groupDelay, until it is as large as the last one
// was, or nearly (the next one shrinks by an eighth at most), as the
// SQLite store's writer does.
func (s *Store) write() {
	defer s.wg.Done()
	batch := make([]*pending, 0, s.opts.MaxBatch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	last := 1
	for p := range s.queue {
		batch = append(batch[:0], p)
		timer.Reset(groupDelay)
	drain:
		for len(batch) < s.opts.MaxBatch {
			select {
			case p, ok := <-s.queue:
				if !ok {
					break drain
				}
				batch = append(batch, p)
				continue
			default:
			}
			if len(batch) >= last {
				break
			}
			select {
			case p, ok := <-s.queue:
				if !ok {
					break drain
				}
				batch = append(batch, p)
			case <-timer.C:
				break drain
			}
		}
		timer.Stop()
		last = max(len(batch), last-max(1, last/8))
		s.commit(batch)
	}
}

// Ping checks that the database answers and has this build's schema.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	var version int
	if err := s.pool.QueryRow(ctx, `SELECT version FROM numen_schema`).Scan(&version); err != nil {
		return fmt.Errorf("pgstore: ping %s: %w", s.name, err)
	}
	if version != SchemaVersion {
		return fmt.Errorf("pgstore: ping %s: schema version %d, want %d", s.name, version, SchemaVersion)
	}
	return nil
}

// Close stops the queue's workers (waiting up to 30 s for running jobs),
// waits until the results handed to Record are committed, and closes the
// pool. Closing twice is not an error.
func (s *Store) Close() error {
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
	s.wg.Wait()
	s.stopIndexer()
	s.pool.Close()
	return nil
}

func (s *Store) checkOpen() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return fmt.Errorf("pgstore: %s: %w", s.name, store.ErrClosed)
	}
	return nil
}

// Reports lists the reports of account, most recently written first (then
// by name).
func (s *Store) Reports(ctx context.Context, account string) ([]store.Report, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	fail := func(err error) ([]store.Report, error) {
		return nil, fmt.Errorf("pgstore: reports of %q in %s: %w", account, s.name, err)
	}
	rows, err := readReports(ctx, s.pool, account)
	if err != nil {
		return fail(err)
	}
	var reports []store.Report
	for _, r := range rows {
		reports = store.AddReportRow(reports, r.storage, engine.Product(r.product), r.count, engine.Money(r.cost), r.firstMS, r.lastMS)
	}
	store.SortReports(reports)
	return reports, nil
}

// Export implements store.Reader, in one read-only transaction.
func (s *Store) Export(ctx context.Context, account, storage string, q *store.Query, format store.Format, w io.Writer) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	fail := func(err error) error {
		return fmt.Errorf("pgstore: export report %q of %q from %s: %w", storage, account, s.name, err)
	}
	if _, err := store.ParseFormat(string(format)); err != nil {
		return fail(err)
	}
	if err := q.Check(); err != nil {
		return fail(err)
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	products, err := reportProducts(ctx, tx, account, storage)
	if err != nil {
		return fail(err)
	}
	plan, err := choosePlan(ctx, tx, account, storage, q, 0)
	if err != nil {
		return fail(err)
	}
	query, args, err := store.SelectSQL(store.Postgres, "product, body", account, storage, q, "", 0, plan)
	if err != nil {
		return fail(err)
	}
	ex, err := store.NewExporter(w, format, store.ExportProducts(products, q))
	if err != nil {
		return fail(err)
	}
	rows, err := tx.Query(ctx, query, args...)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	for rows.Next() {
		// The raw values: valid until the next row, with no copy.
		vals := rows.RawValues()
		if err := ex.Write(engine.Product(vals[0]), vals[1]); err != nil {
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

// reportProducts returns the products of a report, or
// store.ErrUnknownReport.
// choosePlan reads how many results of the report have each value q's
// conditions name, and its total, from report_facets, and chooses how to
// read them (store.ChoosePlan).
func choosePlan(ctx context.Context, tx querier, account, storage string, q *store.Query, limit int) (store.Plan, error) {
	if len(q.Where) == 0 {
		return store.PlanAuto, nil
	}
	fields, values := make([]string, len(q.Where)), make([]string, len(q.Where))
	for i, c := range q.Where {
		fields[i], values[i] = string(c.Field), c.Value
	}
	rows, err := tx.Query(ctx, `
SELECT field, value, count FROM report_facets
WHERE account = $1 AND storage = $2 AND (field = 'product' OR (field, value) IN (SELECT * FROM unnest($3::text[], $4::text[])))`,
		account, storage, fields, values)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var total int64
	counts := map[store.Cond]int64{}
	for rows.Next() {
		var field, value string
		var count int64
		if err := rows.Scan(&field, &value, &count); err != nil {
			return 0, err
		}
		if field == string(store.FieldProduct) {
			total += count
		}
		counts[store.Cond{Field: store.Field(field), Value: value}] = count
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	least := total
	for _, c := range q.Where {
		least = min(least, counts[c]) // a value the report lacks: 0
	}
	return store.ChoosePlan(total, least, limit), nil
}

func reportProducts(ctx context.Context, tx querier, account, storage string) ([]engine.Product, error) {
	rows, err := tx.Query(ctx, reportProductsSQL, account, storage)
	if err != nil {
		return nil, err
	}
	ps, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, store.ErrUnknownReport
	}
	out := make([]engine.Product, len(ps))
	for i, p := range ps {
		out[i] = engine.Product(p)
	}
	return out, nil
}

// Query implements store.Reader.
func (s *Store) Query(ctx context.Context, account, storage string, q *store.Query, after string, limit int) (store.Page, error) {
	if err := s.checkOpen(); err != nil {
		return store.Page{}, err
	}
	fail := func(err error) (store.Page, error) {
		return store.Page{}, fmt.Errorf("pgstore: results of report %q of %q from %s: %w", storage, account, s.name, err)
	}
	limit = store.PageSize(limit)
	if err := q.Check(); err != nil {
		return fail(err)
	}
	if _, err := reportProducts(ctx, s.pool, account, storage); err != nil {
		return fail(err)
	}
	plan, err := choosePlan(ctx, s.pool, account, storage, q, limit)
	if err != nil {
		return fail(err)
	}
	query, args, err := store.SelectSQL(store.Postgres, "id, product, created_ms, cost, body, "+q.SortValueColumn(), account, storage, q, after, limit, plan)
	if err != nil {
		return fail(err)
	}
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	page := store.Page{Rows: make([]store.Row, 0, min(limit, 64))}
	var value, lastValue string
	for rows.Next() {
		var (
			r             store.Row
			product, body string
			createdMS, ct int64
		)
		if err := rows.Scan(&r.ID, &product, &createdMS, &ct, &body, &value); err != nil {
			return fail(err)
		}
		if len(page.Rows) == limit {
			last := page.Rows[limit-1]
			page.Next = store.NextCursor(q, lastValue, last.Time.UnixMilli(), last.ID)
			break
		}
		r.Product, r.Time, r.Cost, r.Result = engine.Product(product), time.UnixMilli(createdMS).UTC(), engine.Money(ct), json.RawMessage(body)
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
		return store.Summary{}, fmt.Errorf("pgstore: summary of report %q of %q from %s: %w", storage, account, s.name, err)
	}
	sum, err := readSummary(ctx, s.pool, account, storage)
	if err != nil {
		return fail(err)
	}
	return sum, nil
}

// Bodies returns the stored bodies of the ids the store has.
func (s *Store) Bodies(ctx context.Context, ids []string) (map[string]json.RawMessage, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT id, body FROM results WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("pgstore: read results of %s: %w", s.name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, body string
		if err := rows.Scan(&id, &body); err != nil {
			return nil, fmt.Errorf("pgstore: read results of %s: %w", s.name, err)
		}
		out[id] = json.RawMessage(body)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pgstore: read results of %s: %w", s.name, err)
	}
	return out, nil
}
