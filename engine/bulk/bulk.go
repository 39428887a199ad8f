// Package bulk runs the asynchronous half of the lookup API: POST
// /hlr-lookups and POST /nt-lookups. A submission of up to 1000 numbers is
// checked, given ids and durably queued before its receipt is sent; workers
// then look the numbers up through the engine, record the results in the
// store, and deliver them to the account's webhook URLs in signed callbacks
// of at most 1000 results (package engine/webhook), retried on the spec's
// schedule.
//
// # Durability
//
// The queue is River (github.com/riverqueue/river) on the results database
// (SQLite embedded, through riversqlite), so accepted work, its results and
// the delivery schedule live in one file and survive restarts. The steps,
// each committed before the next:
//
//  1. Submit inserts one lookup job with the accepted numbers and their ids
//     (and the idempotency record) in one transaction, then answers.
//  2. The lookup job looks up the numbers that have no stored result yet
//     and records them (store.RecordAll): after a crash, a job that runs
//     again reuses what it recorded and charges nothing twice.
//  3. In one transaction it stores the callback body, one delivery row and
//     one delivery job per webhook URL, and completes itself.
//  4. Each delivery job posts the body; a failure schedules the next
//     attempt after 1, 2, 4, ... 1024 minutes; after the last the delivery
//     is marked failed (in the database and in the metrics).
//
// A crash at any point loses no accepted number and no result: the worst
// case is a callback delivered twice (the webhook-id header lets receivers
// drop it). A job that was running when the process died is picked up again
// after Options.RescueAfter.
package bulk

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/webhook"

	_ "modernc.org/sqlite" // the "sqlite" driver
)

// Options configure a Bulk.
type Options struct {
	Engine *engine.Engine
	// Store records the results; the queue lives in the same SQLite file,
	// DatabasePath.
	Store        store.Store
	DatabasePath string
	// Account returns an account's current settings (secrets, webhook
	// URLs, routing), or false for a key that no longer exists.
	Account func(key string) (*account.Account, bool)
	// Sender posts the callbacks; default a webhook.Sender with the spec's
	// 10 s acknowledgement timeout.
	Sender *webhook.Sender
	// Minute is the unit of the retry schedule: time.Minute (the default)
	// in service; tests shorten it to run the whole schedule quickly.
	Minute time.Duration
	// LookupWorkers is the number of lookup jobs run at once (default 2);
	// Parallel the lookups run at once within one job (default 16).
	LookupWorkers, Parallel int
	// DeliveryWorkers is the number of deliveries run at once (default 16).
	DeliveryWorkers int
	// RescueAfter is how long one attempt of a lookup job may run, and so
	// how long after a crash another worker takes the job over (default 5
	// minutes). An attempt that runs out records the results it has.
	RescueAfter time.Duration
	// PollInterval is how often idle workers look for work (default 200 ms).
	PollInterval time.Duration
	// Logger receives the workers' logs; default slog.Default().
	Logger *slog.Logger
	// Metrics counts lookups and deliveries; nil for none.
	Metrics Metrics
	// Clock gives the time of receipts; default time.Now.
	Clock func() time.Time
}

// Metrics is where bulk counts its lookups and deliveries (the sidecar's
// /metrics: *httpapi.Metrics implements it).
type Metrics interface {
	// ObserveLookup counts one lookup of a product with its outcome.
	ObserveLookup(product, status string)
	// Register adds a series whose value is read when metrics are
	// written.
	Register(family, kind, help, series string, value func() float64)
}

// Bulk accepts bulk submissions and runs their lookups and deliveries. It
// implements the HTTP adapter's BulkHandler (httpapi.BulkHandler).
type Bulk struct {
	o      Options
	db     *sql.DB
	client *river.Client[*sql.Tx]
	log    *slog.Logger

	delivered, failed, attempts atomic.Uint64
	stopOnce                    sync.Once
}

// Open migrates the queue's tables in the database and starts the workers.
// Close stops them.
func Open(ctx context.Context, o Options) (*Bulk, error) {
	switch {
	case o.Engine == nil, o.Store == nil, o.Account == nil:
		return nil, errors.New("bulk: Options.Engine, Store and Account are required")
	case o.DatabasePath == "":
		return nil, errors.New("bulk: Options.DatabasePath is required")
	}
	if o.Sender == nil {
		o.Sender = &webhook.Sender{}
	}
	if o.Minute <= 0 {
		o.Minute = time.Minute
	}
	if o.LookupWorkers <= 0 {
		o.LookupWorkers = 2
	}
	if o.Parallel <= 0 {
		o.Parallel = 16
	}
	if o.DeliveryWorkers <= 0 {
		o.DeliveryWorkers = 16
	}
	if o.RescueAfter <= 0 {
		o.RescueAfter = 5 * time.Minute
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 200 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	path, err := filepath.Abs(o.DatabasePath)
	if err != nil {
		return nil, err
	}
	// River shares the results database through a pool of its own: one
	// connection, as riversqlite recommends, waiting for the store's writer
	// rather than failing while it holds the lock.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("bulk: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	b := &Bulk{o: o, db: db, log: o.Logger}
	if err := b.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &lookupWorker{b: b})
	river.AddWorker(workers, &deliveryWorker{b: b})
	b.client, err = river.NewClient(riversqlite.New(db), &river.Config{
		Logger:               o.Logger.With("component", "river"),
		FetchPollInterval:    o.PollInterval,
		FetchCooldown:        min(o.PollInterval, 100*time.Millisecond),
		RescueStuckJobsAfter: o.RescueAfter,
		JobTimeout:           -1, // per worker: see Timeout
		Queues: map[string]river.QueueConfig{
			queueLookups:    {MaxWorkers: o.LookupWorkers},
			queueDeliveries: {MaxWorkers: o.DeliveryWorkers},
		},
		Workers:                     workers,
		CompletedJobRetentionPeriod: 24 * time.Hour,
		DiscardedJobRetentionPeriod: 30 * 24 * time.Hour,
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("bulk: %w", err)
	}
	if err := b.client.Start(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("bulk: starting the workers: %w", err)
	}
	if m := o.Metrics; m != nil {
		m.Register("numen_webhook_deliveries_total", "counter", "Webhook deliveries by outcome: delivered, or failed after the last retry.",
			`numen_webhook_deliveries_total{outcome="delivered"}`, func() float64 { return float64(b.delivered.Load()) })
		m.Register("numen_webhook_deliveries_total", "counter", "Webhook deliveries by outcome: delivered, or failed after the last retry.",
			`numen_webhook_deliveries_total{outcome="failed"}`, func() float64 { return float64(b.failed.Load()) })
		m.Register("numen_webhook_attempts_total", "counter", "Webhook delivery attempts, successful or not.",
			`numen_webhook_attempts_total`, func() float64 { return float64(b.attempts.Load()) })
	}
	return b, nil
}

// Close stops taking jobs and waits for the running ones to finish (or
// for ctx to end, when they are abandoned to be rescued at the next start).
func (b *Bulk) Close(ctx context.Context) error {
	var err error
	b.stopOnce.Do(func() {
		if stopErr := b.client.Stop(ctx); stopErr != nil && !errors.Is(stopErr, context.Canceled) {
			err = stopErr
		}
		if cerr := b.db.Close(); err == nil {
			err = cerr
		}
	})
	return err
}

const (
	queueLookups    = "bulk_lookups"
	queueDeliveries = "webhook_deliveries"
)

// schema is the bulk package's own tables, beside River's and the store's.
const schema = `
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
`

func (b *Bulk) migrate(ctx context.Context) error {
	m, err := rivermigrate.New(riversqlite.New(b.db), nil)
	if err != nil {
		return fmt.Errorf("bulk: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("bulk: migrating the queue's tables: %w", err)
	}
	if _, err := b.db.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("bulk: creating the bulk tables: %w", err)
	}
	return nil
}

// item is one accepted number of a submission.
type item struct {
	ID     string `json:"id"`
	Number string `json:"n"`
}

// lookupArgs is the job of one submission: its accepted numbers.
type lookupArgs struct {
	Account     string         `json:"account"`
	Product     engine.Product `json:"product"`
	Route       string         `json:"route,omitempty"`
	Storage     string         `json:"storage,omitempty"`
	WebhookURLs []string       `json:"webhook_urls"`
	Items       []item         `json:"items"`
}

func (lookupArgs) Kind() string { return "numen_bulk_lookup" }

func (lookupArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueLookups, MaxAttempts: 25}
}

// deliveryArgs is the job of one callback to one URL.
type deliveryArgs struct {
	Batch   string `json:"batch"`
	Account string `json:"account"`
	URL     string `json:"url"`
}

func (deliveryArgs) Kind() string { return "numen_webhook_delivery" }

func (deliveryArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queueDeliveries, MaxAttempts: webhook.MaxAttempts}
}

// Submit accepts one bulk request: see the package documentation. The
// receipt lists every number, accepted with its id or rejected (unusable
// for the product: never charged), and the cost of the accepted ones.
func (b *Bulk) Submit(ctx context.Context, a *account.Account, product string, numbers []string, route, storage, idempotencyKey string, body []byte) (*apiv2.Receipt, error) {
	p := engine.Product(product)
	if p != engine.ProductHLR && p != engine.ProductNT {
		return nil, fmt.Errorf("bulk: product %q", product)
	}
	if len(numbers) > webhook.MaxResults {
		return nil, &engine.RequestError{Field: "numbers", Problem: fmt.Sprintf("%d numbers; at most %d", len(numbers), webhook.MaxResults)}
	}
	hash := sha256.Sum256(body)
	if idempotencyKey != "" {
		if len(idempotencyKey) > 255 {
			return nil, &engine.RequestError{Field: "Idempotency-Key", Problem: "at most 255 characters"}
		}
		if r, err := b.earlier(ctx, a.Key, idempotencyKey, hash[:]); r != nil || err != nil {
			return r, err
		}
	}
	now := b.o.Clock()
	nt := p == engine.ProductNT
	receipt := &apiv2.Receipt{
		Accepted: []apiv2.Submitted{}, Rejected: []apiv2.Submitted{},
		TotalCount: len(numbers), WebhookURLs: append([]string{}, a.WebhookURLs...),
		Storage: engine.StorageName(storage, p, true, now),
	}
	args := lookupArgs{Account: a.Key, Product: p, Route: route, Storage: storage, WebhookURLs: a.WebhookURLs}
	var cost engine.Money
	routes := map[string]bool{}
	for _, n := range numbers {
		ad, err := b.o.Engine.Admit(a.Engine, p, n, route, storage)
		if err != nil {
			return nil, err
		}
		if !ad.Accepted {
			receipt.Rejected = append(receipt.Rejected, apiv2.Submitted{Number: n, NT: nt})
			continue
		}
		id, err := b.o.Engine.NewID()
		if err != nil {
			return nil, err
		}
		// The number as its result will name it (E.164), as the webhook
		// will; rejected numbers are echoed as given.
		receipt.Accepted = append(receipt.Accepted, apiv2.Submitted{ID: apiv2.String(id), Number: ad.Number, NT: nt})
		args.Items = append(args.Items, item{ID: id, Number: n})
		cost += ad.Cost
		routes[ad.Route] = true
	}
	receipt.AcceptedCount, receipt.RejectedCount = len(receipt.Accepted), len(receipt.Rejected)
	receipt.Cost = apiv2.Decimal(cost.String())
	receipt.Route = route
	if route == "" {
		// Automatic selection: the route when the accepted numbers share
		// one, else AUTO (each result names its own).
		receipt.Route = "AUTO"
		if len(routes) == 1 {
			for r := range routes {
				receipt.Route = r
			}
		}
	}
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("bulk: queuing: %w", err)
	}
	defer tx.Rollback()
	if idempotencyKey != "" {
		// The key is claimed first, in the transaction that queues the
		// numbers: of concurrent submissions with one key, the first to
		// commit queues its numbers and the others, finding its row, answer
		// with its receipt (or 409 for another body) and queue nothing.
		raw, err := json.Marshal(receipt)
		if err != nil {
			return nil, err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO bulk_idempotency (account, key, body_hash, receipt, created_ms) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (account, key) DO NOTHING`,
			a.Key, idempotencyKey, hash[:], string(raw), now.UnixMilli())
		if err != nil {
			return nil, fmt.Errorf("bulk: recording the idempotency key: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, fmt.Errorf("bulk: recording the idempotency key: %w", err)
		} else if n == 0 {
			if err := tx.Rollback(); err != nil {
				return nil, fmt.Errorf("bulk: queuing: %w", err)
			}
			r, err := b.earlier(ctx, a.Key, idempotencyKey, hash[:])
			if err == nil && r == nil {
				err = fmt.Errorf("bulk: idempotency key %q of %q: claimed, yet not found", idempotencyKey, a.Key)
			}
			return r, err
		}
	}
	if len(args.Items) > 0 {
		if _, err := b.client.InsertTx(ctx, tx, args, nil); err != nil {
			return nil, fmt.Errorf("bulk: queuing %d numbers: %w", len(args.Items), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("bulk: queuing %d numbers: %w", len(args.Items), err)
	}
	return receipt, nil
}

// earlier returns the receipt of an earlier submission with the same
// idempotency key and body; the same key with another body is a 409.
func (b *Bulk) earlier(ctx context.Context, account, key string, hash []byte) (*apiv2.Receipt, error) {
	var stored []byte
	var raw string
	err := b.db.QueryRowContext(ctx, `SELECT body_hash, receipt FROM bulk_idempotency WHERE account = ? AND key = ?`, account, key).Scan(&stored, &raw)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("bulk: reading idempotency key: %w", err)
	case string(stored) != string(hash):
		return nil, engine.ErrIdempotencyKeyReused
	}
	var r apiv2.Receipt
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		return nil, fmt.Errorf("bulk: stored receipt: %w", err)
	}
	return &r, nil
}

// DeliveryState is the state of one callback to one URL.
type DeliveryState struct {
	Batch      string
	URL        string
	State      string // pending, delivered or failed
	Attempts   int
	LastStatus int // the receiver's last HTTP status, 0 when it did not answer
	LastError  string
	Updated    time.Time
}

// Deliveries lists an account's callbacks, newest first, at most limit.
func (b *Bulk) Deliveries(ctx context.Context, account string, limit int) ([]DeliveryState, error) {
	rows, err := b.db.QueryContext(ctx, `SELECT d.batch_id, d.url, d.state, d.attempts, d.last_status, d.last_error, d.updated_ms
		FROM webhook_deliveries d JOIN webhook_batches w ON w.id = d.batch_id
		WHERE w.account = ? ORDER BY d.updated_ms DESC LIMIT ?`, account, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DeliveryState
	for rows.Next() {
		var d DeliveryState
		var ms int64
		if err := rows.Scan(&d.Batch, &d.URL, &d.State, &d.Attempts, &d.LastStatus, &d.LastError, &ms); err != nil {
			return nil, err
		}
		d.Updated = time.UnixMilli(ms)
		out = append(out, d)
	}
	return out, rows.Err()
}

// errAccountGone fails the jobs of an account removed from the config.
var errAccountGone = errors.New("account no longer configured")

var _ rivertype.JobArgs = lookupArgs{}
