// Package store keeps the results of lookups: every result the engine
// returns is first appended to a named report (the API's "storage", such as
// SYNC-API-NT-2026-11) of its account, where it can be listed, paged
// through and downloaded as CSV or JSON, as the API's specification has it.
//
// The store is split into the interfaces its consumers need: Recorder
// (an engine.Sink, so the engine records a result before it answers, and
// what bulk jobs record and reread), Reader (an account's reports with
// their counts and costs, one report as a download and a page of it, for
// the web interface) and Queue (the bulk queue: River, idempotency keys and
// the webhook outbox; queue.go). A Database is all of them: one database
// that owns its connections, its migrations and its River client, so that
// nothing else opens it. Package sqlitestore implements it on an embedded
// SQLite file, package pgstore on a PostgreSQL database that several
// sidecars share; both pass the same conformance suites (package
// storetest), and package stores opens either from one setting.
//
// This package holds what consumers need: the interfaces, the report and
// row types, the sentinel errors, the validation and encoding of a record
// (EntryOf) and the layout of a report's table (Table, Columns), which the
// CSV download and the web page share.
//
// # How the stores are built
//
// The logic is written once, over a small driver interface, as River's
// client is over riverdriver (engine/store/internal/core):
//
//   - core.DB, Tx, Rows and Row are a driver's executor: run a statement,
//     read rows (a core.RawBytes column without a copy), begin a
//     transaction; Tx[T] also hands River its transaction type (pgx.Tx,
//     *sql.Tx), so that jobs are inserted in the driver's transactions;
//   - core.SQL is a driver's SQL text, statement by statement, with its
//     parameters ($1 or ?) and how a query's conditions on the Fields are
//     matched (PostgreSQL: one GIN index of tags; SQLite: an index per
//     field);
//   - core.Store[T] implements Reader, the queue (Enqueue, Claim,
//     Dispatch, Batch, SetDelivery, Deliveries, StartQueue and StopQueue
//     through core.Switch, which runs River only while there is work),
//     Bodies and Ping over them, and builds every page's SELECT
//     (core.SelectSQL) and its plan (core.ChoosePlan);
//   - core.Writer[P] is Record and RecordAll: validation (EntryOf) and
//     the adaptive group commit, with the driver's commit function;
//   - core.Counts adds a group of results to its report's counts and
//     summary rows, for the drivers' indexers.
//
// A driver embeds core.Store and core.Writer, supplies its adapters, its
// SQL text and its commit, and adds only what is its own: package pgstore
// its pool, its one-statement commit and LISTEN for River's
// notifications; package sqlitestore its results log (the commit), its
// indexer, checkpointer and pruner, and its damage checks. Both run the
// same conformance suites (storetest.Run, storetest.RunQueue).
//
// # Durability
//
// An implementation returns nil from Record only once the result is
// durable: committed, and on disk as far as the database can tell. A Record
// that returns an error may or may not have stored its result (for
// example when its context ended while the commit was under way):
// recorded but unacknowledged is allowed, acknowledged but lost is not.
//
// # Thread safety
//
// Implementations are safe for concurrent use. A Table is not: one
// goroutine lays out one table.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/store/internal/facts"
)

// Recorder is what the engine and the bulk queue write: results, each
// appended to its account's report and durable before it is acknowledged.
type Recorder interface {
	// Record appends one result to its account's report. It returns nil
	// only once the result is durable.
	engine.Sink

	// RecordAll appends several results, as Record does each: it returns
	// nil only once all are durable, else the first error (results of
	// other records may still be committed). Bulk workers record a
	// batch's results with it.
	RecordAll(ctx context.Context, records []engine.Record) error

	// Bodies returns the stored result objects of the given ids that the
	// store has, by id: a bulk job that runs again after a crash reuses
	// the results it recorded before, rather than look them up (and
	// charge) twice.
	Bodies(ctx context.Context, ids []string) (map[string]json.RawMessage, error)
}

// Reader is what the reports pages and downloads read.
type Reader interface {
	// Reports lists the reports of an account, most recently written
	// first. An account without results has none (and no error).
	Reports(ctx context.Context, account string) ([]Report, error)

	// Export writes the results of one report that q selects to w in
	// format, in q's order, streaming them: the memory it needs does not
	// grow with the report. A report the account does not have is
	// ErrUnknownReport, before anything is written. An error after the
	// first bytes leaves the download unfinished: the caller must not
	// pass it off as complete.
	Export(ctx context.Context, account, storage string, q *Query, format Format, w io.Writer) error

	// Query returns one page of the results of a report that q selects,
	// in q's order: up to limit results (at most MaxPage; 0 or less means
	// DefaultPage) after the cursor after ("" for the first page; the Next
	// of the page before, with the same query; or PageCursor(n), page n of
	// pages of limit results). A report the account does
	// not have is ErrUnknownReport; a cursor this store did not make for
	// q's order is ErrBadCursor; an invalid query names its problem.
	Query(ctx context.Context, account, storage string, q *Query, after string, limit int) (Page, error)

	// Summary returns the counts and costs of a report's results per
	// value of each Field and per day. A report the account does not have
	// is ErrUnknownReport.
	Summary(ctx context.Context, account, storage string) (Summary, error)

	// Totals returns the count and cost of the results of a report that
	// q selects (its order does not matter), in all and per day: exact,
	// as Query is, and read from the results q selects (a Summary is
	// cheaper for the whole report). A report the account does not have
	// is ErrUnknownReport; an invalid query names its problem.
	//
	// Counting reads every result selected (4.3 s for a third of a report
	// of a million results on SQLite): limit > 0 bounds the results read,
	// and a query that selects more than limit gives More and nothing
	// else. Whole days of a report and nothing else are the summary's
	// days, read at once whatever their count.
	Totals(ctx context.Context, account, storage string, q *Query, limit int) (Totals, error)

	// Result returns one result of a report by its id (a row's own page).
	// A report the account does not have is ErrUnknownReport; an id the
	// report does not hold is ErrUnknownResult.
	Result(ctx context.Context, account, storage, id string) (Row, error)
}

// Store is one results database: its results and reports, its health
// check and its end. Consumers take the small interface they need
// (Recorder, Reader, Queue); the program that opens the store hands it to
// each.
type Store interface {
	Recorder
	Reader

	// Ping checks that the store can be read and written to: a health
	// check.
	Ping(ctx context.Context) error

	// Close waits for the results already handed to Record to be
	// committed, then releases the store. Calls after Close fail with
	// ErrClosed.
	Close() error
}

// Page sizes of Reader.Query.
const (
	DefaultPage = 100
	MaxPage     = 1000
)

// Errors callers branch on. Implementations wrap them with context; test
// with errors.Is.
var (
	// ErrClosed is returned by every method of a closed store.
	ErrClosed = errors.New("store closed")
	// ErrUnknownReport is a report that the account does not have (no
	// result was ever recorded under that name): HTTP 404.
	ErrUnknownReport = errors.New("unknown report")
	// ErrUnknownResult is an id that the report does not hold: HTTP 404.
	ErrUnknownResult = errors.New("unknown result")
	// ErrDuplicateID is a Record whose id is already recorded. Only that
	// record fails; the results committed with it are not affected.
	ErrDuplicateID = errors.New("result id already recorded")
	// ErrInvalidRecord is a Record that cannot be stored as given (a
	// missing field, an unknown product, a result of the wrong type).
	ErrInvalidRecord = facts.ErrInvalid
	// ErrDamaged is a store that has found its database damaged and takes
	// no more results until an operator repairs it: HTTP 503. Its text is
	// fit for a client; the error that wraps it names the file.
	ErrDamaged = errors.New("the results database is damaged and takes no results until an operator repairs it")
)

// Report summarises one report of an account.
type Report struct {
	// Name is the report's name as results carry it in "storage", with
	// its month: "SYNC-API-NT-2026-11".
	Name string
	// Products are the products of its results, in the order HLR, MNP,
	// NT. Default report names hold one product; a name chosen by the
	// caller may hold several.
	Products []engine.Product
	// Count is the number of results.
	Count int64
	// Cost is what its results were charged, in total.
	Cost engine.Money
	// First and Last are the completion times of its oldest and newest
	// results, to the millisecond, in UTC.
	First, Last time.Time
}

// Row is one result of a report, as Query pages through them.
type Row struct {
	ID      string
	Product engine.Product
	// Time is the completion time, to the millisecond, in UTC.
	Time time.Time
	Cost engine.Money
	// Result is the result object exactly as the API returned it.
	Result json.RawMessage
}

// Format is a download format of Export.
//
// JSON is an array of the result objects exactly as the API returned them,
// one per line.
//
// CSV (RFC 4180: quoted where needed, lines ending in CRLF) has a header
// row, then one row per result; cells hold the attribute values: text,
// numbers in decimal, booleans as true and false, null as an empty cell,
// arrays (regions, timezones) with their elements joined by "|" (an empty
// array is an empty cell too). A cell that a spreadsheet would read as a
// formula (text starting with "=", "+", "-", "@", a tab or a carriage
// return) gets a leading apostrophe, as OWASP advises against CSV
// injection: a number's "+44..." is written "'+44...". A carriage return
// inside a cell is dropped (encoding/csv in CRLF mode writes a line break
// inside a quoted cell as CRLF and drops a lone CR); the JSON download
// keeps every byte. A report of one product has that product's attributes
// as columns, in the API's order (Columns). A report that mixes products
// (possible only under a name the caller chose) starts with a "product"
// column, then has the union of the products' attributes: those of HLR,
// then the ones MNP adds, then the ones NT adds (only for the products the
// report holds); a cell of an attribute the row's product does not have is
// empty.
type Format string

// Formats.
const (
	CSV  Format = "csv"
	JSON Format = "json"
)

// ParseFormat reads "csv" or "json" (as in ?format=csv).
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case CSV, JSON:
		return f, nil
	}
	return "", fmt.Errorf("format %q: want csv or json", s)
}

// ContentType returns the media type of a download in f.
func (f Format) ContentType() string {
	if f == CSV {
		return "text/csv; charset=utf-8"
	}
	return "application/json"
}

// productOrder is the fixed order of products: the order of
// Report.Products and of the columns of a CSV export that mixes products.
var productOrder = [...]engine.Product{engine.ProductHLR, engine.ProductMNP, engine.ProductNT}

// Products returns the products in their fixed order, HLR, MNP, NT: the
// order of Report.Products and of the columns of a CSV export that mixes
// products.
func Products() []engine.Product { return slices.Clone(productOrder[:]) }

// productRank returns p's place in the fixed order, or -1.
func productRank(p engine.Product) int {
	for i, q := range productOrder {
		if p == q {
			return i
		}
	}
	return -1
}

// Entry is a record ready to be stored: validated, its result marshalled.
type Entry struct {
	Account, Storage, ID string
	Product              engine.Product
	// Millis is the completion time in Unix milliseconds, the precision
	// the stores keep.
	Millis int64
	Cost   engine.Money
	// Result is the result object as the API writes it (encoding/json).
	Result []byte
	// Facts are the attributes of Result the stores index and count
	// (engine/store/internal/facts: the drivers' plumbing).
	Facts facts.Facts
}

// EntryOf validates r and encodes its result, or takes r.JSON as it is
// when the engine encoded the result already (the bytes the lookup answered
// with). Its product is its result's (engine.Record.Product). Errors wrap
// ErrInvalidRecord and name the record's id and the field.
func EntryOf(r engine.Record) (Entry, error) {
	bad := func(field, problem string, args ...any) (Entry, error) {
		return Entry{}, fmt.Errorf("%w %q: %s %s", ErrInvalidRecord, r.ID, field, fmt.Sprintf(problem, args...))
	}
	switch {
	case r.ID == "":
		return bad("ID", "is empty")
	case r.Account == "":
		return bad("Account", "is empty")
	case r.Storage == "":
		return bad("Storage", "is empty")
	case r.Time.IsZero():
		return bad("Time", "is zero")
	case r.Cost < 0:
		return bad("Cost", "%s is negative", r.Cost)
	case isNil(r.Result):
		return bad("Result", "is nil")
	}
	body := r.JSON
	if body == nil {
		body = r.Result.AppendJSON(nil)
	}
	return Entry{
		Account: r.Account, Storage: r.Storage, ID: r.ID, Product: r.Product(),
		Millis: r.Time.UnixMilli(), Cost: r.Cost, Result: body,
		Facts: facts.Of(r.Result),
	}, nil
}

// isNil reports whether v is nil or holds a nil pointer: the types that
// apiv2.Result admits are all pointers.
func isNil(v apiv2.Result) bool {
	switch v := v.(type) {
	case *apiv2.HLRResult:
		return v == nil
	case *apiv2.MNPResult:
		return v == nil
	case *apiv2.NTResult:
		return v == nil
	}
	return true
}
