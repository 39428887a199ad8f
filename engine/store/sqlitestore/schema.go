package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations build the schema: migration i (from 1) takes the database
// from PRAGMA user_version i-1 to i. Append only; never edit one that has
// shipped.
var migrations = []string{
	// 1: results and their reports.
	`
CREATE TABLE results (
	id         TEXT    NOT NULL PRIMARY KEY,
	account    TEXT    NOT NULL,
	storage    TEXT    NOT NULL,
	product    TEXT    NOT NULL CHECK (product IN ('HLR', 'MNP', 'NT')),
	created_ms INTEGER NOT NULL,
	cost       INTEGER NOT NULL,
	body       TEXT    NOT NULL
) STRICT;

-- Export and Results read a report in (created_ms, id) order.
CREATE INDEX results_report ON results (account, storage, created_ms, id);

-- One row per account, report and product, updated in the transaction that
-- appends the results, so that listing an account's reports does not scan
-- them.
CREATE TABLE reports (
	account  TEXT    NOT NULL,
	storage  TEXT    NOT NULL,
	product  TEXT    NOT NULL,
	count    INTEGER NOT NULL,
	cost     INTEGER NOT NULL,
	first_ms INTEGER NOT NULL,
	last_ms  INTEGER NOT NULL,
	PRIMARY KEY (account, storage, product)
) STRICT, WITHOUT ROWID;
`,
	// 3 (below): the bulk queue's tables. River's own are migrated by
	// River (rivermigrate). Before version 3, package bulk created these
	// tables itself, hence IF NOT EXISTS.
	// 2: the position in the results log (log.go) up to which results are
	// in the database, updated in the transaction that adds them.
	`
CREATE TABLE log_position (
	id         INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
	segment    INTEGER NOT NULL,
	end_offset INTEGER NOT NULL
) STRICT;
`,
	// 3: the idempotency keys of bulk submissions and the webhook outbox.
	`
CREATE TABLE IF NOT EXISTS bulk_idempotency (
	account    TEXT NOT NULL,
	key        TEXT NOT NULL,
	body_hash  BLOB NOT NULL,
	receipt    TEXT NOT NULL,
	created_ms INTEGER NOT NULL,
	PRIMARY KEY (account, key)
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS webhook_batches (
	id         TEXT NOT NULL PRIMARY KEY,
	account    TEXT NOT NULL,
	type       TEXT NOT NULL,
	results    INTEGER NOT NULL,
	body       BLOB NOT NULL,
	created_ms INTEGER NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS webhook_deliveries (
	batch_id    TEXT NOT NULL REFERENCES webhook_batches (id),
	url         TEXT NOT NULL,
	state       TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
	attempts    INTEGER NOT NULL,
	last_status INTEGER NOT NULL,
	last_error  TEXT NOT NULL,
	updated_ms  INTEGER NOT NULL,
	PRIMARY KEY (batch_id, url)
) STRICT, WITHOUT ROWID;
`,
	// 4: what reports are filtered, sorted and summarised by (the
	// Fields of package store, and the number): a column each, read from
	// the results stored before, each indexed with the report's time
	// order; and per report the count and cost of each field's values and
	// of each day (report_facets), kept as the reports table is.
	`
ALTER TABLE results ADD COLUMN number       TEXT NOT NULL DEFAULT '';
ALTER TABLE results ADD COLUMN status       TEXT NOT NULL DEFAULT '';
ALTER TABLE results ADD COLUMN connectivity TEXT NOT NULL DEFAULT '';
ALTER TABLE results ADD COLUMN number_type  TEXT NOT NULL DEFAULT '';
ALTER TABLE results ADD COLUMN country      TEXT NOT NULL DEFAULT '';
ALTER TABLE results ADD COLUMN network      TEXT NOT NULL DEFAULT '';
UPDATE results SET
	number       = substr(coalesce(CASE product WHEN 'NT' THEN body ->> '$.number' ELSE body ->> '$.msisdn' END, ''), 1, 100),
	status       = substr(coalesce(CASE product WHEN 'NT' THEN body ->> '$.query_status' ELSE body ->> '$.processing_status' END, ''), 1, 100),
	connectivity = substr(coalesce(CASE product WHEN 'HLR' THEN body ->> '$.connectivity_status' END, ''), 1, 100),
	number_type  = substr(coalesce(CASE product WHEN 'NT' THEN body ->> '$.number_type' END, ''), 1, 100),
	country      = substr(coalesce(body ->> '$.original_country_code', ''), 1, 100),
	network      = substr(coalesce(body ->> '$.mccmnc', ''), 1, 100);
CREATE INDEX results_number       ON results (account, storage, number, created_ms, id);
CREATE INDEX results_product      ON results (account, storage, product, created_ms, id);
CREATE INDEX results_status       ON results (account, storage, status, created_ms, id);
CREATE INDEX results_connectivity ON results (account, storage, connectivity, created_ms, id);
CREATE INDEX results_number_type  ON results (account, storage, number_type, created_ms, id);
CREATE INDEX results_country      ON results (account, storage, country, created_ms, id);
CREATE INDEX results_network      ON results (account, storage, network, created_ms, id);

CREATE TABLE report_facets (
	account TEXT    NOT NULL,
	storage TEXT    NOT NULL,
	field   TEXT    NOT NULL, -- a Field of package store, or 'day'
	value   TEXT    NOT NULL, -- the field's value, or the day (UTC, 2006-01-02)
	label   TEXT    NOT NULL, -- the name results give the value (country, network), or ''
	count   INTEGER NOT NULL,
	cost    INTEGER NOT NULL,
	PRIMARY KEY (account, storage, field, value)
) STRICT, WITHOUT ROWID;
INSERT INTO report_facets
	SELECT account, storage, 'product', product, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'status', status, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'connectivity', connectivity, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'number_type', number_type, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'country', country, CASE WHEN country = '' THEN '' ELSE substr(coalesce(max(body ->> '$.original_country_name'), ''), 1, 100) END, count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'network', network, CASE WHEN network = '' THEN '' ELSE substr(coalesce(max(body ->> '$.original_network_name'), ''), 1, 100) END, count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'day', strftime('%Y-%m-%d', created_ms / 1000.0, 'unixepoch'), '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4;
`,
	// 5: three more Fields: an NT result's validity (is_valid, "true" or
	// "false") and invalid_reason, and the route of any result; a column
	// each, read from the results stored before, indexed with the
	// report's time order as the others are, and counted into
	// report_facets. Results still in the log only are counted when the
	// indexer copies them, with all the fields.
	`
ALTER TABLE results ADD COLUMN valid          TEXT NOT NULL DEFAULT '';
ALTER TABLE results ADD COLUMN invalid_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE results ADD COLUMN route          TEXT NOT NULL DEFAULT '';
UPDATE results SET
	valid          = CASE WHEN product = 'NT' THEN CASE body ->> '$.is_valid' WHEN 1 THEN 'true' WHEN 0 THEN 'false' ELSE '' END ELSE '' END,
	invalid_reason = substr(coalesce(CASE product WHEN 'NT' THEN body ->> '$.invalid_reason' END, ''), 1, 100),
	route          = substr(coalesce(body ->> '$.route', ''), 1, 100);
CREATE INDEX results_valid          ON results (account, storage, valid, created_ms, id);
CREATE INDEX results_invalid_reason ON results (account, storage, invalid_reason, created_ms, id);
CREATE INDEX results_route          ON results (account, storage, route, created_ms, id);
INSERT INTO report_facets
	SELECT account, storage, 'valid', valid, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'invalid_reason', invalid_reason, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4
	UNION ALL SELECT account, storage, 'route', route, '', count(*), sum(cost) FROM results GROUP BY 1, 2, 3, 4;
`,
}

// schemaVersion is the user_version of a database this build wrote.
var schemaVersion = len(migrations)

// migrate brings the database up to schemaVersion in one immediate
// transaction, so that two processes opening a new database at once do not
// both create it. A database newer than this build is an error: its schema
// may not be what this code reads.
func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	switch {
	case version == schemaVersion:
		return nil
	case version > schemaVersion:
		return fmt.Errorf("schema version %d is newer than this build's %d: open it with a newer numen", version, schemaVersion)
	}
	for v := version; v < schemaVersion; v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
	}
	// PRAGMA takes no parameters; the value is ours.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
		return fmt.Errorf("set schema version %d: %w", schemaVersion, err)
	}
	return tx.Commit()
}
