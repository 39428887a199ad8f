package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/numenhq/numen/engine/store"
)

// queue is the River side of the store (store.Queue): an insert-only
// client until StartQueue, then the working client, both on the pool.
type queue struct {
	mu      sync.Mutex
	inserts *river.Client[pgx.Tx]
	worker  *river.Client[pgx.Tx]
}

func (q *queue) client() *river.Client[pgx.Tx] {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.worker != nil {
		return q.worker
	}
	return q.inserts
}

// StartQueue starts the River client that works the queues. It listens for
// River's notifications (LISTEN/NOTIFY), so that a job queued on any node
// wakes this one's idle workers at once.
func (s *Store) StartQueue(ctx context.Context, cfg store.QueueConfig) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	s.q.mu.Lock()
	defer s.q.mu.Unlock()
	if s.q.worker != nil {
		return fmt.Errorf("pgstore: %s: the queue is started already", s.name)
	}
	c, err := river.NewClient(riverpgxv5.New(s.pool), &river.Config{
		Logger:                      cfg.Logger,
		FetchPollInterval:           cfg.PollInterval,
		FetchCooldown:               min(cfg.PollInterval, 100*time.Millisecond),
		RescueStuckJobsAfter:        cfg.RescueAfter,
		JobTimeout:                  -1, // per worker
		Queues:                      cfg.Queues,
		Workers:                     cfg.Workers,
		CompletedJobRetentionPeriod: cfg.CompletedRetention,
		DiscardedJobRetentionPeriod: cfg.DiscardedRetention,
	})
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("pgstore: starting the queue's workers: %w", err)
	}
	s.q.worker = c
	return nil
}

// StopQueue stops the workers, waiting for running jobs until ctx ends.
func (s *Store) StopQueue(ctx context.Context) error {
	s.q.mu.Lock()
	c := s.q.worker
	s.q.mu.Unlock()
	if c == nil {
		return nil
	}
	if err := c.Stop(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("pgstore: stopping the queue: %w", err)
	}
	return nil
}

// Enqueue claims the key (when claim is not nil) and inserts job, in one
// transaction; see store.Queue.
func (s *Store) Enqueue(ctx context.Context, claim *store.Claim, job river.InsertManyParams) (*store.Claim, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("pgstore: queuing: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if claim != nil {
		// The key is claimed first, in the transaction that queues the job:
		// of concurrent submissions with one key, on any nodes, the first
		// to commit queues its job; the others wait for it on the key's
		// row and then find its claim.
		tag, err := tx.Exec(ctx, `INSERT INTO bulk_idempotency (account, key, body_hash, receipt, created_ms) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (account, key) DO NOTHING`, claim.Account, claim.Key, claim.BodyHash, string(claim.Receipt), claim.Created.UnixMilli())
		if err != nil {
			return nil, fmt.Errorf("pgstore: claiming idempotency key: %w", err)
		}
		if tag.RowsAffected() == 0 {
			tx.Rollback(ctx)
			earlier, err := s.Claim(ctx, claim.Account, claim.Key)
			if err == nil && earlier == nil {
				err = fmt.Errorf("pgstore: idempotency key %q of %q: claimed, yet not found", claim.Key, claim.Account)
			}
			return earlier, err
		}
	}
	if job.Args != nil {
		if _, err := s.q.client().InsertManyTx(ctx, tx, []river.InsertManyParams{job}); err != nil {
			return nil, fmt.Errorf("pgstore: queuing a %s job: %w", job.Args.Kind(), err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("pgstore: queuing: %w", err)
	}
	return nil, nil
}

// Claim returns the claim of an account's idempotency key, or nil.
func (s *Store) Claim(ctx context.Context, account, key string) (*store.Claim, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	c := &store.Claim{Account: account, Key: key}
	var receipt string
	var ms int64
	err := s.pool.QueryRow(ctx, `SELECT body_hash, receipt, created_ms FROM bulk_idempotency WHERE account = $1 AND key = $2`,
		account, key).Scan(&c.BodyHash, &receipt, &ms)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("pgstore: reading idempotency key: %w", err)
	}
	c.Receipt, c.Created = []byte(receipt), time.UnixMilli(ms).UTC()
	return c, nil
}

// Dispatch stores a callback batch and its deliveries and queues their
// jobs, once; see store.Queue.
func (s *Store) Dispatch(ctx context.Context, b *store.Batch, jobs []river.InsertManyParams) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	ms := b.Created.UnixMilli()
	tag, err := tx.Exec(ctx, `INSERT INTO webhook_batches (id, account, type, results, body, created_ms) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
		b.ID, b.Account, b.Product, b.Results, b.Body, ms)
	if err != nil {
		return fmt.Errorf("pgstore: storing callback %s: %w", b.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return nil // dispatched before
	}
	for _, u := range b.URLs {
		if _, err := tx.Exec(ctx, `INSERT INTO webhook_deliveries (batch_id, url, state, attempts, last_status, last_error, updated_ms) VALUES ($1, $2, 'pending', 0, 0, '', $3)`,
			b.ID, u, ms); err != nil {
			return fmt.Errorf("pgstore: storing a delivery of %s: %w", b.ID, err)
		}
	}
	if len(jobs) > 0 {
		if _, err := s.q.client().InsertManyTx(ctx, tx, jobs); err != nil {
			return fmt.Errorf("pgstore: queuing the deliveries of %s: %w", b.ID, err)
		}
	}
	return tx.Commit(ctx)
}

// Batch returns a stored callback batch (without its URLs).
func (s *Store) Batch(ctx context.Context, id string) (*store.Batch, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	b := &store.Batch{ID: id}
	var ms int64
	err := s.pool.QueryRow(ctx, `SELECT account, type, results, body, created_ms FROM webhook_batches WHERE id = $1`, id).
		Scan(&b.Account, &b.Product, &b.Results, &b.Body, &ms)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, fmt.Errorf("pgstore: %w %s", store.ErrUnknownBatch, id)
	case err != nil:
		return nil, fmt.Errorf("pgstore: reading callback %s: %w", id, err)
	}
	b.Created = time.UnixMilli(ms).UTC()
	return b, nil
}

// SetDelivery records a delivery's state.
func (s *Store) SetDelivery(ctx context.Context, d store.Delivery) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `UPDATE webhook_deliveries SET state = $1, attempts = $2, last_status = $3, last_error = $4, updated_ms = $5 WHERE batch_id = $6 AND url = $7`,
		d.State, d.Attempts, d.LastStatus, d.LastError, d.Updated.UnixMilli(), d.Batch, d.URL)
	return err
}

// Deliveries lists an account's deliveries, most recently updated first.
func (s *Store) Deliveries(ctx context.Context, account string, limit int) ([]store.Delivery, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT d.batch_id, d.url, d.state, d.attempts, d.last_status, d.last_error, d.updated_ms
		FROM webhook_deliveries d JOIN webhook_batches w ON w.id = d.batch_id
		WHERE w.account = $1 ORDER BY d.updated_ms DESC, d.batch_id DESC, d.url LIMIT $2`, account, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Delivery
	for rows.Next() {
		var d store.Delivery
		var ms int64
		if err := rows.Scan(&d.Batch, &d.URL, &d.State, &d.Attempts, &d.LastStatus, &d.LastError, &ms); err != nil {
			return nil, err
		}
		d.Updated = time.UnixMilli(ms).UTC()
		out = append(out, d)
	}
	return out, rows.Err()
}
