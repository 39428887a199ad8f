package store

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
)

// Queue is the durable work of the bulk API, in the store's database: the
// River queue of lookup and delivery jobs (github.com/riverqueue/river),
// the idempotency keys of submissions and the webhook outbox (the callback
// bodies and the state of each delivery). The store owns the River client:
// package bulk defines the jobs and their workers, and never opens a
// database or a transaction itself.
//
// Every method that writes commits before it returns nil, so that a
// receipt answered is a job queued.
type Queue interface {
	// StartQueue starts working the queues with the workers of cfg. A
	// store works no job before it is called; inserting jobs needs no
	// workers.
	StartQueue(ctx context.Context, cfg QueueConfig) error

	// StopQueue stops working jobs and waits for the running ones to
	// finish, or for ctx to end (they are then taken over after
	// QueueConfig.RescueAfter, by this process or another).
	StopQueue(ctx context.Context) error

	// Enqueue inserts job and, when claim is not nil, stores claim, in one
	// transaction. When the account's key is claimed already, it inserts
	// nothing and returns the earlier claim: of concurrent submissions
	// with one key, exactly one is queued. A job with nil Args inserts no
	// job (a submission of numbers that were all rejected).
	Enqueue(ctx context.Context, claim *Claim, job river.InsertManyParams) (earlier *Claim, err error)

	// Claim returns the claim of an account's idempotency key, or nil.
	Claim(ctx context.Context, account, key string) (*Claim, error)

	// Dispatch stores a callback batch, a pending delivery per URL of the
	// batch, and the delivery jobs, in one transaction. A batch whose id
	// is stored already changes nothing (nil): a lookup job that runs
	// again after a crash queues its callbacks once.
	Dispatch(ctx context.Context, batch *Batch, jobs []river.InsertManyParams) error

	// Batch returns a stored callback batch, ErrUnknownBatch if there is
	// none.
	Batch(ctx context.Context, id string) (*Batch, error)

	// SetDelivery records the state of a delivery after an attempt.
	SetDelivery(ctx context.Context, d Delivery) error

	// Deliveries lists an account's deliveries, most recently updated
	// first, at most limit.
	Deliveries(ctx context.Context, account string, limit int) ([]Delivery, error)
}

// Database is a store with its queue: what a data directory or a
// PostgreSQL database opens to.
type Database interface {
	Store
	Queue
}

// QueueConfig configures the River client of StartQueue.
type QueueConfig struct {
	// Workers are the job kinds' workers; Queues the queues to work, with
	// their concurrency.
	Workers *river.Workers
	Queues  map[string]river.QueueConfig
	// PollInterval is how often idle workers look for jobs when no
	// notification tells them sooner.
	PollInterval time.Duration
	// RescueAfter is how long a job may run before it is taken over, as
	// after a crash (its worker's Timeout, when set, bounds an attempt).
	RescueAfter time.Duration
	// CompletedRetention and DiscardedRetention are how long finished
	// jobs are kept.
	CompletedRetention, DiscardedRetention time.Duration
	Logger                                 *slog.Logger
}

// Claim is a submission's idempotency key: an account's key, the digest of
// the body first submitted with it and the receipt answered.
type Claim struct {
	Account, Key string
	BodyHash     []byte
	Receipt      []byte // JSON
	Created      time.Time
}

// Batch is one webhook callback: its body and the URLs it goes to.
type Batch struct {
	ID, Account string
	Product     string // HLR or NT
	Results     int
	Body        []byte
	URLs        []string
	Created     time.Time
}

// Delivery is the state of one callback to one URL.
type Delivery struct {
	Batch      string
	URL        string
	State      string // DeliveryPending, DeliveryDelivered or DeliveryFailed
	Attempts   int
	LastStatus int // the receiver's last HTTP status, 0 when it did not answer
	LastError  string
	Updated    time.Time
}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// ErrUnknownBatch is a callback batch the store does not have.
var ErrUnknownBatch = errors.New("unknown callback batch")
