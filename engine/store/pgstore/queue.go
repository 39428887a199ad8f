package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/numenhq/numen/engine/store"
)

// queue is the River side of the store (store.Queue): the insert-only
// client, every insert's, and the working client, which runs only while
// the database's queue has unfinished jobs (store.Switch). An idle node
// runs no River client: it waits on LISTEN for River's insert
// notifications (listen), which any node's insert sends when it commits,
// and starts its client for them. So idle nodes do not poll, and a job
// queued on one node wakes them all.
type queue struct {
	inserts *river.Client[pgx.Tx]
	sw      store.Switch
	schema  string // River's notifications are per schema

	stopListen context.CancelFunc
	listening  chan struct{} // closed when listen has returned
}

// idleCheck is how often the idle check runs (store.Switch.IdleCheck).
var idleCheck = time.Minute

func (q *queue) client() *river.Client[pgx.Tx] { return q.inserts }

// newRunner makes the working client: it listens for River's notifications
// (LISTEN/NOTIFY) while it runs, and polls every PollInterval as a
// fallback.
func (s *Store) newRunner(cfg store.QueueConfig) (store.Runner, error) {
	return river.NewClient(riverpgxv5.New(s.pool), &river.Config{
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
}

// unfinished reports whether the queue has a job that is not finished.
func (s *Store) unfinished(ctx context.Context) (bool, error) {
	var work bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded'))`).Scan(&work)
	return work, err
}

// StartQueue starts working the queue: at once if it has unfinished jobs,
// else when a job is queued, here or on another node.
func (s *Store) StartQueue(ctx context.Context, cfg store.QueueConfig) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := s.q.sw.Start(ctx, cfg); err != nil {
		return err
	}
	lctx, cancel := context.WithCancel(context.Background())
	s.q.stopListen, s.q.listening = cancel, make(chan struct{})
	go s.listen(lctx, cfg, s.q.listening)
	return nil
}

// listen waits for River's insert notifications on a connection of its own
// and wakes the workers for each, until ctx ends; it reconnects after a
// failure, and wakes the workers after each (re)connection for what it
// missed meanwhile.
func (s *Store) listen(ctx context.Context, cfg store.QueueConfig, done chan<- struct{}) {
	defer close(done)
	channel := pgx.Identifier{s.q.schema + ".river_insert"}.Sanitize()
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
		if err == nil {
			if _, err = conn.Exec(ctx, "LISTEN "+channel); err == nil {
				s.q.sw.Queued(ctx)
				for {
					if _, err = conn.WaitForNotification(ctx); err != nil {
						break
					}
					s.q.sw.Queued(ctx)
				}
			}
			conn.Close(context.Background())
		}
		if ctx.Err() != nil {
			return
		}
		if cfg.Logger != nil {
			cfg.Logger.Warn("listening for queued jobs; trying again in 1s", "error", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// StopQueue stops listening and working, waiting for running jobs until
// ctx ends (another node, or the next start, takes over those still
// running after RescueAfter).
func (s *Store) StopQueue(ctx context.Context) error {
	if s.q.stopListen != nil {
		s.q.stopListen()
		<-s.q.listening
		s.q.stopListen = nil
	}
	return s.q.sw.Stop(ctx)
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
	if job.Args != nil {
		s.q.sw.Queued(ctx)
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
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	if len(jobs) > 0 {
		s.q.sw.Queued(ctx)
	}
	return nil
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
