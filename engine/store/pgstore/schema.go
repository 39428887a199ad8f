package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

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
	// tags (tagsSQL: one index rather than six, a third of the
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
CREATE INDEX results_tags ON results USING gin ((` + tagsSQL2 + `));

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
	// 4: reports and summaries off the commit of the results (index.go):
	// a commit marks its results pending, with the names of their country
	// and network (the labels of the summaries, which the results'
	// columns lack), and the indexer moves them into reports and
	// report_facets. Rows are taken by ctid, never by a key: no index to
	// write in the commit. Vacuumed after every 10,000 rows deleted, not
	// after 20% of a table that stays small. The databases of the
	// versions before kept reports and report_facets in the commit of
	// their results: nothing is pending in them.
	`
CREATE TABLE results_pending (
	id           text NOT NULL,
	country_name text NOT NULL,
	network_name text NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);
`,
	// 5: a commit adds its results' counts to reports_pending, a row per
	// report and combination of the values a summary counts (product,
	// status, connectivity, number type, country, network, day: days since
	// 1970-01-01 in UTC, with the country's and network's names and the
	// first and last times), rather than a row per result in
	// results_pending, which the indexer joined back to the results: under
	// load a commit's results share a few rows. The results pending in
	// the table of schema 4 move to the new one, counted alike; a node of
	// the build before, still running, fails its commits from here on
	// (no results_pending), rather than leave results uncounted: the
	// migration locks the old table first, so that the commits into it
	// that are under way end before its rows are moved.
	`
LOCK TABLE results_pending IN ACCESS EXCLUSIVE MODE;
CREATE TABLE reports_pending (
	account      text    NOT NULL,
	storage      text    NOT NULL,
	product      text    NOT NULL,
	status       text    COLLATE "C" NOT NULL,
	connectivity text    COLLATE "C" NOT NULL,
	number_type  text    COLLATE "C" NOT NULL,
	country      text    COLLATE "C" NOT NULL,
	network      text    COLLATE "C" NOT NULL,
	day          integer NOT NULL,
	country_name text    NOT NULL,
	network_name text    NOT NULL,
	count        bigint  NOT NULL,
	cost         bigint  NOT NULL,
	first_ms     bigint  NOT NULL,
	last_ms      bigint  NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
INSERT INTO reports_pending
	SELECT r.account, r.storage, r.product, r.status, r.connectivity, r.number_type, r.country, r.network,
		floor(r.created_ms / 86400000.0)::integer, max(p.country_name), max(p.network_name),
		count(*), sum(r.cost), min(r.created_ms), max(r.created_ms)
	FROM results_pending p JOIN results r USING (id)
	GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
DROP TABLE results_pending;
`,
	// 6: the balance tables, balance.go.
	balanceSchema,
	// 7: three more Fields: an NT result's validity (is_valid, 'true' or
	// 'false') and invalid_reason, and the route of any result; a column
	// each of results (read from the results stored before), in the tags
	// of the GIN index (rebuilt), and counted into report_facets; the
	// pending counts move to a new table, counts_pending, reports_pending
	// with the new fields. The counts pending when it runs lack them: they
	// are moved into reports and report_facets first, as the indexer of
	// schema 6 moved them (under the lock of reports_pending, so that the
	// commits under way end first), and the new fields are then counted
	// from the results, which hold every result, pending or not. A node of
	// the build before, still running, fails its commits and its indexer
	// from here on (no reports_pending; results' new columns have no
	// default) rather than leave results uncounted, or count the new
	// table's rows without the new fields.
	`
LOCK TABLE reports_pending IN ACCESS EXCLUSIVE MODE;
WITH taken AS (
	DELETE FROM reports_pending RETURNING *
), reported AS (
	INSERT INTO reports AS r (account, storage, product, count, cost, first_ms, last_ms)
	SELECT account, storage, product, sum(count), sum(cost), min(first_ms), max(last_ms)
	FROM taken GROUP BY account, storage, product
	ON CONFLICT (account, storage, product) DO UPDATE SET
		count    = r.count + excluded.count,
		cost     = r.cost + excluded.cost,
		first_ms = least(r.first_ms, excluded.first_ms),
		last_ms  = greatest(r.last_ms, excluded.last_ms)
)
INSERT INTO report_facets AS f (account, storage, field, value, label, count, cost)
SELECT a.account, a.storage, v.field, v.value, max(v.label), sum(a.count), sum(a.cost)
FROM taken a CROSS JOIN LATERAL (VALUES ('product', a.product, ''), ('status', a.status, ''),
	('connectivity', a.connectivity, ''), ('number_type', a.number_type, ''),
	('country', a.country, a.country_name), ('network', a.network, a.network_name),
	('day', to_char(date '1970-01-01' + a.day, 'YYYY-MM-DD'), ''))
	AS v (field, value, label)
GROUP BY a.account, a.storage, v.field, v.value
ON CONFLICT (account, storage, field, value) DO UPDATE SET
	count = f.count + excluded.count,
	cost  = f.cost + excluded.cost,
	label = CASE WHEN excluded.label <> '' THEN excluded.label ELSE f.label END;
DROP TABLE reports_pending;
CREATE TABLE counts_pending (
	account        text    NOT NULL,
	storage        text    NOT NULL,
	product        text    NOT NULL,
	status         text    COLLATE "C" NOT NULL,
	connectivity   text    COLLATE "C" NOT NULL,
	number_type    text    COLLATE "C" NOT NULL,
	country        text    COLLATE "C" NOT NULL,
	network        text    COLLATE "C" NOT NULL,
	valid          text    COLLATE "C" NOT NULL,
	invalid_reason text    COLLATE "C" NOT NULL,
	route          text    COLLATE "C" NOT NULL,
	day            integer NOT NULL,
	country_name   text    NOT NULL,
	network_name   text    NOT NULL,
	count          bigint  NOT NULL,
	cost           bigint  NOT NULL,
	first_ms       bigint  NOT NULL,
	last_ms        bigint  NOT NULL
) WITH (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000);
ALTER TABLE results
	ADD COLUMN valid          text COLLATE "C" NOT NULL DEFAULT '',
	ADD COLUMN invalid_reason text COLLATE "C" NOT NULL DEFAULT '',
	ADD COLUMN route          text COLLATE "C" NOT NULL DEFAULT '';
UPDATE results r SET
	valid          = CASE WHEN r.product = 'NT' THEN coalesce(x.j ->> 'is_valid', '') ELSE '' END,
	invalid_reason = left(coalesce(CASE r.product WHEN 'NT' THEN x.j ->> 'invalid_reason' END, ''), 100),
	route          = left(coalesce(x.j ->> 'route', ''), 100)
FROM (SELECT id, body::jsonb AS j FROM results) x WHERE x.id = r.id;
ALTER TABLE results
	ALTER COLUMN valid DROP DEFAULT,
	ALTER COLUMN invalid_reason DROP DEFAULT,
	ALTER COLUMN route DROP DEFAULT;
DROP INDEX results_tags;
CREATE INDEX results_tags ON results USING gin ((` + tagsSQL + `));
INSERT INTO report_facets
	SELECT account, storage, 'valid', valid, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'invalid_reason', invalid_reason, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'route', route, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4;
ANALYZE results;
`,
}

// tagsSQL2 is the expression of the GIN index of schema 2 (tagsSQL of
// the six Fields then).
const tagsSQL2 = `ARRAY['product=' || product, 'status=' || status, 'connectivity=' || connectivity, ` +
	`'number_type=' || number_type, 'country=' || country, 'network=' || network]`

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
