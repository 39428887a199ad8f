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
// The queue is River (github.com/riverqueue/river) in the store's database
// (store.Queue): the store owns the connection, the migrations and the
// River client, and this package defines the jobs and their workers. So
// accepted work, its results and the delivery schedule live in one
// database and survive restarts, and with a shared database any sidecar
// works any job. The steps, each committed before the next:
//
//  1. Submit checks the whole submission (every number's length, route,
//     storage name) and encodes its receipt, so that nothing can fail
//     after the next step but the answer's delivery; then it claims the
//     idempotency key (if any), keeping the encoded receipt, and inserts
//     one lookup job with the accepted numbers and their ids, in one
//     transaction (store.Queue.Enqueue), then answers those bytes.
//  2. The lookup job looks up the numbers that have no stored result yet
//     and records them (store.RecordAll): after a crash, a job that runs
//     again reuses what it recorded and charges nothing twice. An attempt
//     is bounded by Options.RescueAfter; one cut short records what it
//     looked up.
//  3. In one transaction it stores the callback body, one delivery row and
//     one delivery job per webhook URL (store.Queue.Dispatch), under the
//     callback id drawn at submission and kept in the job (128 random bits
//     and more, so unique across deployments and databases, and the same
//     for every attempt and delivery), so that a job run again queues
//     nothing twice and a receiver that drops repeated webhook-ids drops
//     only repeats.
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
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/webhook"
)

// Options configure a Bulk.
type Options struct {
	Engine *engine.Engine
	// Store records the results and holds the queue: the jobs, the
	// idempotency keys and the webhook outbox.
	Store Store
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

// Store is what bulk needs of the store: it records results and holds the
// queue (a store.Database has both).
type Store interface {
	store.Recorder
	store.Queue
}

// Bulk accepts bulk submissions and runs their lookups and deliveries. It
// implements the HTTP adapter's BulkHandler (httpapi.BulkHandler).
type Bulk struct {
	o   Options
	log *slog.Logger

	delivered, failed, attempts atomic.Uint64
	stopOnce                    sync.Once
	// callbacks keeps the bodies of the callbacks queued by this process
	// for their deliveries (workers.go).
	callbacks callbackCache
}

// Open starts the workers on the store's queue.
// Close stops them.
func Open(ctx context.Context, o Options) (*Bulk, error) {
	switch {
	case o.Engine == nil, o.Store == nil, o.Account == nil:
		return nil, errors.New("bulk: Options.Engine, Store and Account are required")
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
	b := &Bulk{o: o, log: o.Logger}
	workers := river.NewWorkers()
	river.AddWorker(workers, &lookupWorker{b: b})
	river.AddWorker(workers, &deliveryWorker{b: b})
	err := o.Store.StartQueue(ctx, store.QueueConfig{
		Workers: workers,
		Queues: map[string]river.QueueConfig{
			queueLookups:    {MaxWorkers: o.LookupWorkers},
			queueDeliveries: {MaxWorkers: o.DeliveryWorkers},
		},
		PollInterval:       o.PollInterval,
		RescueAfter:        o.RescueAfter,
		CompletedRetention: 24 * time.Hour,
		DiscardedRetention: 30 * 24 * time.Hour,
		Logger:             o.Logger.With("component", "river"),
	})
	if err != nil {
		return nil, fmt.Errorf("bulk: %w", err)
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
// The store stays open: its owner closes it.
func (b *Bulk) Close(ctx context.Context) error {
	var err error
	b.stopOnce.Do(func() { err = b.o.Store.StopQueue(ctx) })
	return err
}

const (
	queueLookups    = "bulk_lookups"
	queueDeliveries = "webhook_deliveries"
)

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
	Country     string         `json:"country,omitempty"` // the numbers' default region (engine.Request.Country)
	WebhookURLs []string       `json:"webhook_urls"`
	Items       []item         `json:"items"`
	// Batch is the callback's id (its webhook-id): "wh_" and 26
	// random base32 characters (130 bits), drawn by Submit and kept in the
	// job, so that it is the same on every attempt of the job and every
	// delivery of the callback, and unique across databases. Jobs queued
	// before it existed have none and use "wh_<job id>" (batchID).
	Batch string `json:"batch,omitempty"`
}

// batchID returns the id of a job's callback: its Batch, or, for a job
// queued by an older Numen, "wh_<job id>", the id such a job's earlier
// attempts used.
func batchID(jobID int64, args *lookupArgs) string {
	if args.Batch != "" {
		return args.Batch
	}
	return fmt.Sprintf("wh_%d", jobID)
}

// newBatchID draws a callback id: "wh_" and crypto/rand.Text.
func newBatchID() string { return "wh_" + rand.Text() }

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
// for the product: never charged), and the cost of the accepted ones; it
// is returned with its JSON encoding, the response body.
//
// The whole submission is checked and its receipt encoded before anything
// is queued or charged: a number longer than engine.MaxNumberLength, a bad
// route or storage name refuses the whole submission (a
// *engine.RequestError naming the field, numbers[i] for a number), with
// nothing queued. Once queued, nothing can fail but the answer's
// delivery; a retry with the same Idempotency-Key then answers the first
// receipt, byte for byte, and queues nothing again.
//
// Numbers may be written in the national format of s.Country (the API's
// "country" of the whole batch); an unknown country is an
// *engine.RequestError, before anything is queued.
func (b *Bulk) Submit(ctx context.Context, a *account.Account, s engine.Submission) (*apiv2.Receipt, []byte, error) {
	p, numbers, route, storage, country, idempotencyKey := s.Product, s.Numbers, s.Route, s.Storage, s.Country, s.IdempotencyKey
	if p != engine.ProductHLR && p != engine.ProductNT {
		return nil, nil, fmt.Errorf("bulk: product %q", p)
	}
	field := "msisdns"
	if p == engine.ProductNT {
		field = "numbers"
	}
	if len(numbers) > webhook.MaxResults {
		return nil, nil, &engine.RequestError{Field: field, Problem: fmt.Sprintf("%d numbers; at most %d", len(numbers), webhook.MaxResults)}
	}
	for i, n := range numbers {
		if err := engine.CheckNumberLength(fmt.Sprintf("%s[%d]", field, i), n); err != nil {
			return nil, nil, err
		}
	}
	hash := sha256.Sum256(s.Body)
	if idempotencyKey != "" {
		if len(idempotencyKey) > 255 {
			return nil, nil, &engine.RequestError{Field: "Idempotency-Key", Problem: "at most 255 characters"}
		}
		if r, raw, err := b.earlier(ctx, a.Key, idempotencyKey, hash[:]); r != nil || err != nil {
			return r, raw, err
		}
	}
	now := b.o.Clock()
	nt := p == engine.ProductNT
	receipt := &apiv2.Receipt{
		Accepted: []apiv2.Submitted{}, Rejected: []apiv2.Submitted{},
		TotalCount: len(numbers), WebhookURLs: append([]string{}, a.WebhookURLs...),
		Storage: engine.StorageName(storage, p, true, now),
	}
	args := lookupArgs{Account: a.Key, Product: p, Route: route, Storage: storage, Country: country, WebhookURLs: a.WebhookURLs, Batch: newBatchID()}
	var cost engine.Money
	routes := map[string]bool{}
	for _, n := range numbers {
		ad, err := b.o.Engine.Admit(a.Profile, p, engine.Request{Number: n, Route: route, Storage: storage, Country: country})
		if err != nil {
			return nil, nil, err
		}
		if !ad.Accepted {
			receipt.Rejected = append(receipt.Rejected, apiv2.Submitted{Number: n, NT: nt})
			continue
		}
		id, err := b.o.Engine.NewID()
		if err != nil {
			return nil, nil, err
		}
		// The number as its result will name it (E.164), as the webhook
		// will; rejected numbers are echoed as given.
		receipt.Accepted = append(receipt.Accepted, apiv2.Submitted{ID: apiv2.String(id), Number: ad.Number, NT: nt})
		args.Items = append(args.Items, item{ID: id, Number: n})
		cost += ad.Cost
		routes[ad.Route] = true
	}
	receipt.AcceptedCount, receipt.RejectedCount = len(receipt.Accepted), len(receipt.Rejected)
	// The whole batch fits the account's limits, or none is queued (402):
	// each lookup still reserves its price when it runs.
	if err := b.o.Engine.CheckBudget(ctx, a.Profile, cost); err != nil {
		return nil, nil, err
	}
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
	// Encoded now, before the job is queued: AppendJSON cannot fail, and
	// the claim keeps these very bytes for a retry.
	encoded := receipt.AppendJSON(make([]byte, 0, 64+48*len(numbers)))
	var claim *store.Claim
	if idempotencyKey != "" {
		claim = &store.Claim{Account: a.Key, Key: idempotencyKey, BodyHash: hash[:], Receipt: encoded, Created: now}
	}
	var job river.InsertManyParams
	if len(args.Items) > 0 {
		job.Args = args
	}
	earlier, err := b.o.Store.Enqueue(ctx, claim, job)
	if err != nil {
		return nil, nil, fmt.Errorf("bulk: queuing %d numbers: %w", len(args.Items), err)
	}
	if earlier != nil {
		return replay(earlier, hash[:])
	}
	return receipt, encoded, nil
}

// earlier returns the receipt of an earlier submission with the same
// idempotency key and body, or nil when the key is new; the same key with
// another body is engine.ErrIdempotencyKeyReused (409).
func (b *Bulk) earlier(ctx context.Context, account, key string, hash []byte) (*apiv2.Receipt, []byte, error) {
	c, err := b.o.Store.Claim(ctx, account, key)
	if err != nil || c == nil {
		return nil, nil, err
	}
	return replay(c, hash)
}

// replay answers a submission whose key was claimed: the claim's receipt
// (the bytes first answered) for the same body, a 409 for another.
func replay(c *store.Claim, hash []byte) (*apiv2.Receipt, []byte, error) {
	if string(c.BodyHash) != string(hash) {
		return nil, nil, engine.ErrIdempotencyKeyReused
	}
	var r apiv2.Receipt
	if err := json.Unmarshal(c.Receipt, &r); err != nil {
		return nil, nil, fmt.Errorf("bulk: stored receipt: %w", err)
	}
	return &r, c.Receipt, nil
}

// Deliveries lists an account's callbacks, most recently updated first, at
// most limit.
func (b *Bulk) Deliveries(ctx context.Context, account string, limit int) ([]store.Delivery, error) {
	return b.o.Store.Deliveries(ctx, account, limit)
}

// errAccountGone fails the jobs of an account removed from the config.
var errAccountGone = errors.New("account no longer configured")

var _ rivertype.JobArgs = lookupArgs{}
