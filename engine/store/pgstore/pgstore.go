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
// units, and the result object as the API wrote it, as text so that exports
// repeat its bytes); table reports one row per account, report and product
// with the count, cost and first and last times, updated in the
// transaction that adds the results. Tables bulk_idempotency,
// webhook_batches and webhook_deliveries are the queue's; River migrates
// its own. The schema is versioned (table numen_schema) and Open migrates
// it, under an advisory lock, so that nodes starting together migrate once.
// A database newer than the build is an error.
//
// # Durability and throughput
//
// Record returns nil once its result is committed. A few writer goroutines
// take the results queued and commit each group in one statement (insertSQL:
// the rows, and their reports' counts, in a fixed order so that writers of
// several nodes never deadlock): under load one commit acknowledges many
// lookups. A result whose id is already stored fails
// alone, with store.ErrDuplicateID.
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
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

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

	q queue
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

// migrations build the schema: migration i (from 1) takes the database
// from version i-1 to i. Append only; never edit one that has shipped.
var migrations = []string{
	// 1: results and their reports; the bulk queue's idempotency keys and
	// webhook outbox.
	`
CREATE TABLE results (
	id         text   NOT NULL PRIMARY KEY,
	account    text   NOT NULL,
	storage    text   NOT NULL,
	product    text   NOT NULL CHECK (product IN ('HLR', 'MNP', 'NT')),
	created_ms bigint NOT NULL,
	cost       bigint NOT NULL,
	body       text   NOT NULL
);
-- Export and Results read a report in (created_ms, id) order.
CREATE INDEX results_report ON results (account, storage, created_ms, id);

CREATE TABLE reports (
	account  text   NOT NULL,
	storage  text   NOT NULL,
	product  text   NOT NULL,
	count    bigint NOT NULL,
	cost     bigint NOT NULL,
	first_ms bigint NOT NULL,
	last_ms  bigint NOT NULL,
	PRIMARY KEY (account, storage, product)
);

CREATE TABLE bulk_idempotency (
	account    text   NOT NULL,
	key        text   NOT NULL,
	body_hash  bytea  NOT NULL,
	receipt    text   NOT NULL,
	created_ms bigint NOT NULL,
	PRIMARY KEY (account, key)
);

CREATE TABLE webhook_batches (
	id         text   NOT NULL PRIMARY KEY,
	account    text   NOT NULL,
	type       text   NOT NULL,
	results    integer NOT NULL,
	body       bytea  NOT NULL,
	created_ms bigint NOT NULL
);

CREATE TABLE webhook_deliveries (
	batch_id    text    NOT NULL REFERENCES webhook_batches (id),
	url         text    NOT NULL,
	state       text    NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
	attempts    integer NOT NULL,
	last_status integer NOT NULL,
	last_error  text    NOT NULL,
	updated_ms  bigint  NOT NULL,
	PRIMARY KEY (batch_id, url)
);
CREATE INDEX webhook_batches_account ON webhook_batches (account);
`,
	// 2: what reports are filtered, sorted and summarised by (the
	// Fields of package store, and the number): a column each (collation
	// "C": bytes order them, as in SQLite, and a number prefix is a
	// range), read from the results stored before; the number indexed
	// with the report's time order, the fields by one GIN index of their
	// tags (store.TagsSQL: one index rather than six, a third of the
	// write cost, and any combination of conditions); and per report the
	// count and cost of each
	// field's values and of each day (report_facets), kept in the
	// statement that adds the results, as reports is.
	`
ALTER TABLE results
	ADD COLUMN number       text COLLATE "C" NOT NULL DEFAULT '',
	ADD COLUMN status       text COLLATE "C" NOT NULL DEFAULT '',
	ADD COLUMN connectivity text COLLATE "C" NOT NULL DEFAULT '',
	ADD COLUMN number_type  text COLLATE "C" NOT NULL DEFAULT '',
	ADD COLUMN country      text COLLATE "C" NOT NULL DEFAULT '',
	ADD COLUMN network      text COLLATE "C" NOT NULL DEFAULT '';
UPDATE results r SET
	number       = left(coalesce(CASE r.product WHEN 'NT' THEN x.j ->> 'number' ELSE x.j ->> 'msisdn' END, ''), 100),
	status       = left(coalesce(CASE r.product WHEN 'NT' THEN x.j ->> 'query_status' ELSE x.j ->> 'processing_status' END, ''), 100),
	connectivity = left(coalesce(CASE r.product WHEN 'HLR' THEN x.j ->> 'connectivity_status' END, ''), 100),
	number_type  = left(coalesce(CASE r.product WHEN 'NT' THEN x.j ->> 'number_type' END, ''), 100),
	country      = left(coalesce(x.j ->> 'original_country_code', ''), 100),
	network      = left(coalesce(x.j ->> 'mccmnc', ''), 100)
FROM (SELECT id, body::jsonb AS j FROM results) x WHERE x.id = r.id;
CREATE INDEX results_number ON results (account, storage, number, created_ms, id);
-- The planner reads a report's pages by the statistics of the table:
-- brought up to date after every 50,000 results, not after 10% of the
-- table (autovacuum's default: a million results on a table of ten), and
-- made now for the results stored before.
ALTER TABLE results SET (autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 50000);
ANALYZE results;
CREATE INDEX results_tags ON results USING gin ((` + store.TagsSQL + `));

CREATE TABLE report_facets (
	account text   NOT NULL,
	storage text   NOT NULL,
	field   text   NOT NULL, -- a Field of package store, or 'day'
	value   text   COLLATE "C" NOT NULL, -- the field's value, or the day (UTC, 2006-01-02)
	label   text   NOT NULL, -- the name results give the value (country, network), or ''
	count   bigint NOT NULL,
	cost    bigint NOT NULL,
	PRIMARY KEY (account, storage, field, value)
);
INSERT INTO report_facets
	SELECT account, storage, 'product', product, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'status', status, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'connectivity', connectivity, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'number_type', number_type, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'country', country, CASE WHEN country = '' THEN '' ELSE left(coalesce(max(body::jsonb ->> 'original_country_name'), ''), 100) END, count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'network', network, CASE WHEN network = '' THEN '' ELSE left(coalesce(max(body::jsonb ->> 'original_network_name'), ''), 100) END, count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'day', to_char(to_timestamp(created_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD'), '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4;
`,
	// 3: the digest signatures accepted within their timestamp's window
	// (ReplayGuard, replay.go), so that every node refuses a replay. The
	// timestamp leads the key: expired rows are a range of it.
	`
CREATE TABLE digest_signatures (
	ts        bigint NOT NULL,
	account   text   NOT NULL,
	signature bytea  NOT NULL,
	PRIMARY KEY (ts, account, signature)
);
`,
}

// groupDelay bounds how long a writer waits for a group as large as its
// last one: under load a commit waits a little for the results on their
// way, and takes them all (in process at 32 connections, 21,000 requests/s
// against 17,500 without the wait); idle, a result's group is complete at
// once.
var groupDelay = time.Millisecond

// SchemaVersion is the schema version this build writes.
var SchemaVersion = len(migrations)

// migrationLock is the advisory lock key nodes take to migrate: "numen" in
// ASCII.
const migrationLock = 0x6e756d656e

// migrate brings the schema and River's tables up to date, under an
// advisory lock held on one connection, so that nodes starting at once
// migrate one after the other.
func (s *Store) migrate(ctx context.Context) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return fmt.Errorf("taking the migration lock: %w", err)
	}
	defer func() {
		// Released with the session anyway, should this fail.
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock)
	}()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS numen_schema (version integer NOT NULL)`); err != nil {
		return fmt.Errorf("schema version table: %w", err)
	}
	version := 0
	err = tx.QueryRow(ctx, `SELECT version FROM numen_schema`).Scan(&version)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		if _, err := tx.Exec(ctx, `INSERT INTO numen_schema (version) VALUES (0)`); err != nil {
			return err
		}
	case err != nil:
		return fmt.Errorf("read the schema version: %w", err)
	}
	if version > SchemaVersion {
		return fmt.Errorf("schema version %d is newer than this build's %d: open it with a newer numen", version, SchemaVersion)
	}
	for v := version; v < SchemaVersion; v++ {
		if _, err := tx.Exec(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
	}
	if _, err := tx.Exec(ctx, `UPDATE numen_schema SET version = $1`, SchemaVersion); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	m, err := rivermigrate.New(riverpgxv5.New(s.pool), nil)
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrating the queue's tables: %w", err)
	}
	return nil
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

// commit stores a group of results in one transaction and answers each.
func (s *Store) commit(batch []*pending) {
	// An id twice in the group: the later ones fail, as they would after
	// the first's commit.
	seen := make(map[string]bool, len(batch))
	var fresh []*pending
	for _, p := range batch {
		if seen[p.entry.ID] {
			p.done <- fmt.Errorf("pgstore: record %q: %w", p.entry.ID, store.ErrDuplicateID)
			continue
		}
		seen[p.entry.ID] = true
		fresh = append(fresh, p)
	}
	var c columns
	for _, p := range fresh {
		c.add(&p.entry)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inserted, err := s.insert(ctx, &c)
	for _, p := range fresh {
		switch {
		case err != nil:
			p.done <- fmt.Errorf("pgstore: record %q: %w", p.entry.ID, err)
		case !inserted[p.entry.ID]:
			p.done <- fmt.Errorf("pgstore: record %q: %w", p.entry.ID, store.ErrDuplicateID)
		default:
			p.done <- nil
		}
	}
}

// insertSQL stores a group of results, adds them to their reports and
// counts them in their reports' summaries, in one statement (one round
// trip, committed on its own): the results whose id is new are inserted;
// their counts and costs are added to their reports and to the rows of
// report_facets of their fields' values and their day (both in the order
// of the rows' keys, so that the statements of several nodes lock the
// rows in the same order and never deadlock); and the ids inserted are
// returned. A result whose id is stored already is left out of all three.
const insertSQL = `
WITH input AS (
	SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[],
		$8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[])
	AS t (id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network, country_name, network_name, day)
), ins AS (
	INSERT INTO results (id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network)
	SELECT id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network
	FROM input
	ON CONFLICT (id) DO NOTHING
	RETURNING id
), added AS (
	SELECT input.* FROM input JOIN ins USING (id)
), reported AS (
	INSERT INTO reports AS r (account, storage, product, count, cost, first_ms, last_ms)
	SELECT account, storage, product, count(*), sum(cost), min(created_ms), max(created_ms)
	FROM added GROUP BY account, storage, product
	ORDER BY account, storage, product
	ON CONFLICT (account, storage, product) DO UPDATE SET
		count    = r.count + excluded.count,
		cost     = r.cost + excluded.cost,
		first_ms = least(r.first_ms, excluded.first_ms),
		last_ms  = greatest(r.last_ms, excluded.last_ms)
), tallied AS (
	INSERT INTO report_facets AS f (account, storage, field, value, label, count, cost)
	SELECT * FROM (
		-- Every result is new (the rule): the group's tallies, summed by the writer.
		SELECT * FROM unnest($17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::bigint[], $23::bigint[])
			AS t (account, storage, field, value, label, count, cost)
		WHERE (SELECT count(*) FROM ins) = cardinality($1::text[])
		UNION ALL
		-- Some were stored before: the tallies of those added only.
		SELECT a.account, a.storage, v.field, v.value, max(v.label), count(*), sum(a.cost)
		FROM added a CROSS JOIN LATERAL (VALUES
			('product', a.product, ''), ('status', a.status, ''), ('connectivity', a.connectivity, ''),
			('number_type', a.number_type, ''), ('country', a.country, a.country_name),
			('network', a.network, a.network_name), ('day', a.day, '')
		) AS v (field, value, label)
		WHERE (SELECT count(*) FROM ins) < cardinality($1::text[])
		GROUP BY a.account, a.storage, v.field, v.value
	) x
	ORDER BY account, storage, field, value
	ON CONFLICT (account, storage, field, value) DO UPDATE SET
		count = f.count + excluded.count,
		cost  = f.cost + excluded.cost,
		label = CASE WHEN excluded.label <> '' THEN excluded.label ELSE f.label END
)
SELECT id FROM ins`

// columns are the arrays of a group's results, one per parameter of
// insertSQL, and the group's tallies (tally).
type columns struct {
	ids, accounts, storages, products, bodies                 []string
	created, costs                                            []int64
	numbers, statuses, connectivities, numberTypes, countries []string
	networks, countryNames, networkNames, days                []string
	tallies                                                   map[tallyKey]*tallyRow
}

// tallyKey is a row of report_facets.
type tallyKey struct{ account, storage, field, value string }

// tallyRow is what a group adds to a row of report_facets.
type tallyRow struct {
	label       string
	count, cost int64
}

// tally counts a result's value of a field in the group's tallies (the
// label the greatest, as SQL's max).
func (c *columns) tally(e *store.Entry, field, value, label string) {
	k := tallyKey{e.Account, e.Storage, field, value}
	t := c.tallies[k]
	if t == nil {
		t = &tallyRow{}
		c.tallies[k] = t
	}
	t.count++
	t.cost += int64(e.Cost)
	t.label = max(t.label, label)
}

// tallyArrays returns the group's tallies as insertSQL's arrays, in the
// order of their keys (the order of the rows' locks).
func (c *columns) tallyArrays() []any {
	keys := make([]tallyKey, 0, len(c.tallies))
	for k := range c.tallies {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b tallyKey) int {
		return cmp.Or(strings.Compare(a.account, b.account), strings.Compare(a.storage, b.storage),
			strings.Compare(a.field, b.field), strings.Compare(a.value, b.value))
	})
	var accounts, storages, fields, values, labels []string
	var counts, costs []int64
	for _, k := range keys {
		t := c.tallies[k]
		accounts, storages, fields, values = append(accounts, k.account), append(storages, k.storage), append(fields, k.field), append(values, k.value)
		labels, counts, costs = append(labels, t.label), append(counts, t.count), append(costs, t.cost)
	}
	return []any{accounts, storages, fields, values, labels, counts, costs}
}

func (c *columns) add(e *store.Entry) {
	f := &e.Facts
	c.ids, c.accounts, c.storages = append(c.ids, e.ID), append(c.accounts, e.Account), append(c.storages, e.Storage)
	c.products, c.bodies = append(c.products, string(e.Product)), append(c.bodies, string(e.Result))
	c.created, c.costs = append(c.created, e.Millis), append(c.costs, int64(e.Cost))
	c.numbers, c.statuses, c.connectivities = append(c.numbers, f.Number), append(c.statuses, f.Status), append(c.connectivities, f.Connectivity)
	c.numberTypes, c.countries, c.networks = append(c.numberTypes, f.NumberType), append(c.countries, f.Country), append(c.networks, f.Network)
	c.countryNames, c.networkNames = append(c.countryNames, f.CountryName), append(c.networkNames, f.NetworkName)
	day := store.Day(e.Millis)
	c.days = append(c.days, day)
	if c.tallies == nil {
		c.tallies = map[tallyKey]*tallyRow{}
	}
	c.tally(e, string(store.FieldProduct), string(e.Product), "")
	c.tally(e, string(store.FieldStatus), f.Status, "")
	c.tally(e, string(store.FieldConnectivity), f.Connectivity, "")
	c.tally(e, string(store.FieldNumberType), f.NumberType, "")
	c.tally(e, string(store.FieldCountry), f.Country, f.CountryName)
	c.tally(e, string(store.FieldNetwork), f.Network, f.NetworkName)
	c.tally(e, store.DayField, day, "")
}

func (s *Store) insert(ctx context.Context, c *columns) (map[string]bool, error) {
	args := append([]any{c.ids, c.accounts, c.storages, c.products, c.created, c.costs, c.bodies,
		c.numbers, c.statuses, c.connectivities, c.numberTypes, c.countries, c.networks, c.countryNames, c.networkNames, c.days},
		c.tallyArrays()...)
	rows, err := s.pool.Query(ctx, insertSQL, args...)
	if err != nil {
		return nil, err
	}
	inserted := make(map[string]bool, len(c.ids))
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		inserted[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return inserted, nil
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
	rows, err := s.pool.Query(ctx, `
SELECT storage, product, count, cost, first_ms, last_ms FROM reports
WHERE account = $1 ORDER BY storage, product`, account)
	if err != nil {
		return fail(err)
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
			return fail(err)
		}
		reports = store.AddReportRow(reports, name, engine.Product(product), count, engine.Money(cost), firstMS, lastMS)
	}
	if err := rows.Err(); err != nil {
		return fail(err)
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

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
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
	rows, err := tx.Query(ctx, `SELECT product FROM reports WHERE account = $1 AND storage = $2`, account, storage)
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
	rows, err := s.pool.Query(ctx, `
SELECT field, value, label, count, cost FROM report_facets WHERE account = $1 AND storage = $2`, account, storage)
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
