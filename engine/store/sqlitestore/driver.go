package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/numenhq/numen/engine/store/internal/core"
)

// The driver of the shared logic (package core): database/sql's
// connections and transactions as its executor, and SQLite's SQL text.

var dialect = core.SQL{
	Param:    func(int) string { return "?" },
	Version:  `PRAGMA user_version`,
	Reports:  `SELECT storage, product, count, cost, first_ms, last_ms FROM reports WHERE account = ? ORDER BY storage, product`,
	Products: `SELECT product FROM reports WHERE account = ? AND storage = ?`,
	Summary:  `SELECT field, value, label, count, cost, 0 FROM report_facets WHERE account = ? AND storage = ?`,
	Bodies: func(ids []string) (string, []any) {
		args := make([]any, len(ids))
		for i, id := range ids {
			args[i] = id
		}
		return "SELECT id, body FROM results WHERE id IN (?" + strings.Repeat(",?", len(ids)-1) + ")", args
	},
	BodiesChunk: 500, // well under SQLite's limit of bound parameters
	Unfinished:  `SELECT EXISTS (SELECT 1 FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded'))`,
	InsertClaim: `INSERT INTO bulk_idempotency (account, key, body_hash, receipt, created_ms) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (account, key) DO NOTHING`,
	SelectClaim:    `SELECT body_hash, receipt, created_ms FROM bulk_idempotency WHERE account = ? AND key = ?`,
	InsertBatch:    `INSERT INTO webhook_batches (id, account, type, results, body, created_ms) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
	InsertDelivery: `INSERT INTO webhook_deliveries (batch_id, url, state, attempts, last_status, last_error, updated_ms) VALUES (?, ?, 'pending', 0, 0, '', ?)`,
	SelectBatch:    `SELECT account, type, results, body, created_ms FROM webhook_batches WHERE id = ?`,
	UpdateDelivery: `UPDATE webhook_deliveries SET state = ?, attempts = ?, last_status = ?, last_error = ?, updated_ms = ? WHERE batch_id = ? AND url = ?`,
	Deliveries: `SELECT d.batch_id, d.url, d.state, d.attempts, d.last_status, d.last_error, d.updated_ms
FROM webhook_deliveries d JOIN webhook_batches w ON w.id = d.batch_id
WHERE w.account = ? ORDER BY d.updated_ms DESC, d.batch_id DESC, d.url LIMIT ?`,
}

// sqlExec is core.Executor over a *sql.DB or *sql.Tx.
type sqlExec struct {
	q interface {
		ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
		QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
		QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	}
}

func (e sqlExec) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := e.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (e sqlExec) Query(ctx context.Context, query string, args ...any) (core.Rows, error) {
	rows, err := e.q.QueryContext(ctx, query, args...)
	return sqlRows{rows}, err
}

func (e sqlExec) QueryRow(ctx context.Context, query string, args ...any) core.Row {
	return sqlRow{e.q.QueryRowContext(ctx, query, args...)}
}

type sqlRow struct{ *sql.Row }

func (r sqlRow) Scan(dest ...any) error {
	if err := r.Row.Scan(dest...); errors.Is(err, sql.ErrNoRows) {
		return core.ErrNoRows
	} else {
		return err
	}
}

// sqlRows reads a core.RawBytes column as a sql.RawBytes, with no copy.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Scan(dest ...any) error {
	for i, d := range dest {
		if raw, ok := d.(*core.RawBytes); ok {
			dest[i] = (*sql.RawBytes)(raw)
		}
	}
	return r.Rows.Scan(dest...)
}

func (r sqlRows) Close() { r.Rows.Close() }

// sqlDB is core.DB over a *sql.DB.
type sqlDB struct {
	sqlExec
	db *sql.DB
}

func newDB(db *sql.DB) sqlDB { return sqlDB{sqlExec{db}, db} }

func (d sqlDB) Begin(ctx context.Context, readOnly bool) (core.Tx[*sql.Tx], error) {
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: readOnly})
	if err != nil {
		return nil, err
	}
	return sqlTx{sqlExec{tx}, tx}, nil
}

type sqlTx struct {
	sqlExec
	tx *sql.Tx
}

func (t sqlTx) Commit(context.Context) error { return t.tx.Commit() }
func (t sqlTx) Rollback(context.Context)     { _ = t.tx.Rollback() }
func (t sqlTx) River() *sql.Tx               { return t.tx }
