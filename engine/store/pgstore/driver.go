package pgstore

import (
	"context"
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/numenhq/numen/engine/store/internal/core"
)

// The driver of the shared logic (package core): pgx's pool and
// transactions as its executor, and PostgreSQL's SQL text.

// tagsSQL is a result's tags, one "field=value" per Field (a field's name
// has no "=", so a tag names one value of one field): the expression of
// the GIN index of the results' fields, and the one a query's conditions
// must use to be served by it.
const tagsSQL = `ARRAY['product=' || product, 'status=' || status, 'connectivity=' || connectivity, ` +
	`'number_type=' || number_type, 'country=' || country, 'network=' || network, ` +
	`'valid=' || valid, 'invalid_reason=' || invalid_reason, 'route=' || route]`

var dialect = core.SQL{
	Param: func(n int) string { return "$" + strconv.Itoa(n) },
	// One GIN index over the fields' tags serves every combination of
	// conditions; read by time, the columns are checked on each row.
	Match: func(conds []core.Cond, plan core.QueryPlan, arg func(any) string) (string, bool) {
		if plan == core.PlanByTime {
			return core.MatchColumns(conds, arg), false
		}
		tags := make([]string, len(conds))
		for i, c := range conds {
			tags[i] = string(c.Field) + "=" + c.Value
		}
		return " AND " + tagsSQL + " @> " + arg(tags) + "::text[]", plan == core.PlanByValue
	},
	Version:  `SELECT version FROM numen_schema`,
	Reports:  reportsSQL,
	Products: reportProductsSQL,
	Summary:  summarySQL,
	Facets: `SELECT field, value, count FROM report_facets
WHERE account = $1 AND storage = $2 AND (field = 'product' OR (field, value) IN (SELECT * FROM unnest($3::text[], $4::text[])))`,
	Bodies: func(ids []string) (string, []any) {
		return `SELECT id, body FROM results WHERE id = ANY($1)`, []any{ids}
	},
	Unfinished: `SELECT (EXISTS (SELECT 1 FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded')))::int`,
	InsertClaim: `INSERT INTO bulk_idempotency (account, key, body_hash, receipt, created_ms) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (account, key) DO NOTHING`,
	SelectClaim:    `SELECT body_hash, receipt, created_ms FROM bulk_idempotency WHERE account = $1 AND key = $2`,
	InsertBatch:    `INSERT INTO webhook_batches (id, account, type, results, body, created_ms) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
	InsertDelivery: `INSERT INTO webhook_deliveries (batch_id, url, state, attempts, last_status, last_error, updated_ms) VALUES ($1, $2, 'pending', 0, 0, '', $3)`,
	SelectBatch:    `SELECT account, type, results, body, created_ms FROM webhook_batches WHERE id = $1`,
	UpdateDelivery: `UPDATE webhook_deliveries SET state = $1, attempts = $2, last_status = $3, last_error = $4, updated_ms = $5 WHERE batch_id = $6 AND url = $7`,
	Deliveries: `SELECT d.batch_id, d.url, d.state, d.attempts, d.last_status, d.last_error, d.updated_ms
FROM webhook_deliveries d JOIN webhook_batches w ON w.id = d.batch_id
WHERE w.account = $1 ORDER BY d.updated_ms DESC, d.batch_id DESC, d.url LIMIT $2`,
}

// pgxExec is core.Executor over a pool or a transaction of pgx.
type pgxExec struct {
	q interface {
		Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
		Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
		QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	}
}

func (e pgxExec) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := e.q.Exec(ctx, sql, args...)
	return tag.RowsAffected(), err
}

func (e pgxExec) Query(ctx context.Context, sql string, args ...any) (core.Rows, error) {
	rows, err := e.q.Query(ctx, sql, args...)
	return pgxRows{rows}, err
}

func (e pgxExec) QueryRow(ctx context.Context, sql string, args ...any) core.Row {
	return pgxRow{e.q.QueryRow(ctx, sql, args...)}
}

type pgxRow struct{ pgx.Row }

func (r pgxRow) Scan(dest ...any) error {
	if err := r.Row.Scan(dest...); errors.Is(err, pgx.ErrNoRows) {
		return core.ErrNoRows
	} else {
		return err
	}
}

// pgxRows reads a core.RawBytes column from the row's raw values, with
// no copy.
type pgxRows struct{ pgx.Rows }

func (r pgxRows) Scan(dest ...any) error {
	for i, d := range dest {
		if raw, ok := d.(*core.RawBytes); ok {
			*raw = r.RawValues()[i]
			dest[i] = nil // skipped by pgx
		}
	}
	return r.Rows.Scan(dest...)
}

// pgxDB is core.DB over the pool.
type pgxDB struct {
	pgxExec
	pool *pgxpool.Pool
}

func newDB(pool *pgxpool.Pool) pgxDB { return pgxDB{pgxExec{pool}, pool} }

func (d pgxDB) Begin(ctx context.Context, readOnly bool) (core.Tx[pgx.Tx], error) {
	opts := pgx.TxOptions{}
	if readOnly {
		opts = pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	}
	tx, err := d.pool.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	return pgxTx{pgxExec{tx}, tx}, nil
}

type pgxTx struct {
	pgxExec
	tx pgx.Tx
}

func (t pgxTx) Commit(ctx context.Context) error { return t.tx.Commit(ctx) }
func (t pgxTx) Rollback(ctx context.Context)     { _ = t.tx.Rollback(ctx) }
func (t pgxTx) River() pgx.Tx                    { return t.tx }
