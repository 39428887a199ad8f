// Package core is the store's logic written once, over a small driver
// interface, as River's client is over riverdriver: listing reports,
// queries and their plans, downloads, summaries, the bodies of results,
// recording (validation and the group-commit writer), the idempotency
// claims and the webhook outbox. A driver (package pgstore over pgx,
// package sqlitestore over database/sql) supplies an executor (DB: run a
// statement, read rows, begin a transaction), its SQL text (SQL) and the
// commit of a group of results; what is truly its own (SQLite's results
// log and indexer, PostgreSQL's LISTEN) stays in the driver.
//
// T is River's transaction type of the driver (pgx.Tx, *sql.Tx): jobs are
// inserted in the driver's transactions through River's client.
package core

import (
	"context"
	"errors"
)

// Row is the one row of DB.QueryRow.
type Row interface {
	// Scan copies the row's columns into dest; ErrNoRows when there is
	// no row.
	Scan(dest ...any) error
}

// Rows are the rows of DB.Query. Scan takes a *RawBytes for a column to
// read without a copy (valid until the next Next).
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// RawBytes is a column read without a copy, valid until the next row.
type RawBytes []byte

// Executor runs statements on a connection pool or in a transaction.
type Executor interface {
	// Exec runs a statement and returns the rows it affected.
	Exec(ctx context.Context, sql string, args ...any) (int64, error)
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) Row
}

// Tx is a transaction of a driver; River returns its River transaction.
type Tx[T any] interface {
	Executor
	Commit(ctx context.Context) error
	// Rollback ends the transaction unless committed; after Commit it
	// does nothing.
	Rollback(ctx context.Context)
	River() T
}

// DB is a driver's database: statements, and transactions (readOnly: a
// snapshot that writes nothing, for a download).
type DB[T any] interface {
	Executor
	Begin(ctx context.Context, readOnly bool) (Tx[T], error)
}

// ErrNoRows is the error of Row.Scan without a row, whatever the driver.
var ErrNoRows = errors.New("no rows")

// SQL is a driver's SQL text: what the logic runs, in its dialect. Every
// statement takes the parameters its comment names, in that order.
type SQL struct {
	// Param is the nth (from 1) parameter of a statement: "?" or "$1".
	Param func(n int) string
	// Match is the condition of a query on the Fields' values (plan: how
	// the driver chose to read them; PlanAuto where it has no choice),
	// and whether the rows it selects must be ordered after they are read
	// (a subquery); nil: a column per field (MatchColumns).
	Match func(conds []Cond, plan QueryPlan, arg func(any) string) (cond string, sortAfter bool)
	// Version (): the schema version of the database.
	Version string
	// Reports (account): storage, product, count, cost, first_ms, last_ms;
	// rows of one report and product are added up.
	Reports string
	// Products (account, storage): product.
	Products string
	// Summary (account, storage): field, value, label, count, cost and
	// whether its label is newer; rows of one value are added up.
	Summary string
	// Facets (account, storage, fields, values): field, value, count of
	// the report's product values and of the (field, value) pairs: what
	// ChoosePlan weighs; "" for a driver without the choice.
	Facets string
	// Bodies (ids of one chunk): id, body; BodiesChunk ids at most (0:
	// all at once).
	Bodies      func(ids []string) (string, []any)
	BodiesChunk int
	// Unfinished (): 1 when River has a job not finished, else 0.
	Unfinished string
	// The queue's tables: InsertClaim (account, key, body_hash, receipt,
	// created_ms; nothing on conflict); SelectClaim (account, key):
	// body_hash, receipt, created_ms; InsertBatch (id, account, type,
	// results, body, created_ms; nothing on conflict); InsertDelivery
	// (batch_id, url, updated_ms); SelectBatch (id): account, type,
	// results, body, created_ms; UpdateDelivery (state, attempts,
	// last_status, last_error, updated_ms, batch_id, url); Deliveries
	// (account, limit): batch_id, url, state, attempts, last_status,
	// last_error, updated_ms.
	InsertClaim, SelectClaim, InsertBatch, InsertDelivery, SelectBatch, UpdateDelivery, Deliveries string
}
