package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/numenhq/numen/engine/store"
)

// The queue (store.Queue) lives in the same file: River's tables, the
// idempotency keys and the webhook outbox (migration 3). Its connection is
// one of its own (riversqlite works best with one), whose commits wait for
// the disk (synchronous=FULL): a job queued is a receipt answered, and
// unlike results, jobs have no log to replay. It checkpoints the WAL
// itself as well (SQLite's automatic checkpoints), since River writes when
// no result does (its leader's heartbeat, say).
//
// # Idle
//
// A River client polls even with nothing to do: a SQLite database has no
// notifications to wait on, and River's timers tick several times a second.
// One process owns a data directory, though, so the store knows when there
// is work: the working client runs only while the queue holds unfinished
// jobs (available, running, retryable or scheduled). StartQueue starts it
// if the queue has such jobs (as after a crash, or a retry scheduled for
// later); Enqueue and Dispatch start it when they queue a job; and once a
// minute (idleCheck) a running client that has no unfinished job left is
// stopped (and a stopped one started, should a wake have failed). An idle
// server therefore runs no River client at all.
type queue struct {
	db *sql.DB

	inserts *river.Client[*sql.Tx] // inserts only: every insert goes through it

	mu      sync.Mutex
	cfg     *store.QueueConfig     // set by StartQueue, nil after StopQueue
	worker  *river.Client[*sql.Tx] // the working client, while it runs
	idle    chan struct{}          // closed to stop the idle checks
	stopped chan struct{}          // closed when they have stopped
}

// idleCheck is how often a running client is stopped if the queue has no
// unfinished job.
var idleCheck = time.Minute

var _ store.Queue = (*Store)(nil)

// queueDSN is the queue connection's: the writer's pragmas, durable
// commits, and BEGIN IMMEDIATE so that a transaction never fails half-way
// on a lock.
func queueDSN(path string, o options) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", max(o.busyTimeout, 10*time.Second).Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	if u.Path[0] != '/' {
		u.Path = "/" + u.Path
	}
	return u.String()
}

// openQueue opens the queue's connection, migrates River's tables and
// makes the insert-only client.
func (s *Store) openQueue(ctx context.Context) error {
	db, err := sql.Open("sqlite", queueDSN(s.path, s.opts))
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	s.q.db = db
	m, err := rivermigrate.New(riversqlite.New(db), nil)
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrating the queue's tables: %w", err)
	}
	s.q.inserts, err = river.NewClient(riversqlite.New(db), &river.Config{})
	return err
}

// client returns the client that inserts jobs.
func (q *queue) client() *river.Client[*sql.Tx] { return q.inserts }

// StartQueue records the workers and starts working the queue: at once if
// it has unfinished jobs, else when a job is queued (see "Idle" above).
func (s *Store) StartQueue(ctx context.Context, cfg store.QueueConfig) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	s.q.mu.Lock()
	defer s.q.mu.Unlock()
	if s.q.cfg != nil {
		return fmt.Errorf("sqlitestore: %s: the queue is started already", s.path)
	}
	s.q.cfg = &cfg
	if err := s.q.wake(ctx, s.path); err != nil {
		s.q.cfg = nil
		return err
	}
	s.q.idle, s.q.stopped = make(chan struct{}), make(chan struct{})
	go s.q.checkIdle(s.path, s.q.idle, s.q.stopped)
	return nil
}

// unfinished reports whether the queue has a job that is not finished.
func (q *queue) unfinished(ctx context.Context) (bool, error) {
	var n int
	err := q.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded'))`).Scan(&n)
	return n == 1, err
}

// wake starts the working client if the queue is started, the client is
// not running and there is work. The caller holds q.mu.
func (q *queue) wake(ctx context.Context, path string) error {
	if q.cfg == nil || q.worker != nil {
		return nil
	}
	work, err := q.unfinished(ctx)
	if err != nil {
		return fmt.Errorf("sqlitestore: %s: reading the queue: %w", path, err)
	}
	if !work {
		return nil
	}
	cfg := q.cfg
	c, err := river.NewClient(riversqlite.New(q.db), &river.Config{
		Logger:                      cfg.Logger,
		FetchPollInterval:           cfg.PollInterval,
		FetchCooldown:               min(cfg.PollInterval, 100*time.Millisecond),
		PollOnly:                    true, // nothing to listen to: this process queues every job
		RescueStuckJobsAfter:        cfg.RescueAfter,
		JobTimeout:                  -1, // per worker
		Queues:                      cfg.Queues,
		Workers:                     cfg.Workers,
		CompletedJobRetentionPeriod: cfg.CompletedRetention,
		DiscardedJobRetentionPeriod: cfg.DiscardedRetention,
	})
	if err != nil {
		return fmt.Errorf("sqlitestore: %w", err)
	}
	if err := c.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("sqlitestore: starting the queue's workers: %w", err)
	}
	q.worker = c
	return nil
}

// checkIdle stops the working client, every idleCheck, when the queue has
// no unfinished job.
func (q *queue) checkIdle(path string, idle <-chan struct{}, stopped chan<- struct{}) {
	defer close(stopped)
	t := time.NewTicker(idleCheck)
	defer t.Stop()
	for {
		select {
		case <-idle:
			return
		case <-t.C:
		}
		q.mu.Lock()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if q.worker != nil {
			// With q.mu held, no job is queued between the check and the
			// stop: Enqueue and Dispatch wake the client after their commit,
			// under q.mu.
			if work, err := q.unfinished(ctx); err == nil && !work {
				if err := q.worker.Stop(ctx); err == nil || errors.Is(err, context.Canceled) {
					q.worker = nil
				}
			}
		} else {
			// Work that no wake saw (its wake failed): start for it now.
			_ = q.wake(ctx, path)
		}
		cancel()
		q.mu.Unlock()
	}
}

// queued wakes the working client after a job was committed, whatever
// becomes of the caller's context: the job is queued.
func (s *Store) queued(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	s.q.mu.Lock()
	defer s.q.mu.Unlock()
	return s.q.wake(ctx, s.path)
}

// StopQueue stops working the queue, waiting for running jobs until ctx
// ends; jobs still running are taken over after RescueAfter at the next
// start.
func (s *Store) StopQueue(ctx context.Context) error {
	s.q.mu.Lock()
	c, idle, stopped := s.q.worker, s.q.idle, s.q.stopped
	s.q.cfg, s.q.worker, s.q.idle = nil, nil, nil
	s.q.mu.Unlock()
	if idle != nil {
		close(idle)
		<-stopped
	}
	if c == nil {
		return nil
	}
	if err := c.Stop(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("sqlitestore: stopping the queue: %w", err)
	}
	return nil
}

// Enqueue claims the key (when claim is not nil) and inserts job, in one
// transaction; see store.Queue.
func (s *Store) Enqueue(ctx context.Context, claim *store.Claim, job river.InsertManyParams) (*store.Claim, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	tx, err := s.q.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: queuing: %w", err)
	}
	defer tx.Rollback()
	if claim != nil {
		// The key is claimed first, in the transaction that queues the job:
		// of concurrent submissions with one key, the first to commit
		// queues its job, and the others find its claim.
		res, err := tx.ExecContext(ctx, `INSERT INTO bulk_idempotency (account, key, body_hash, receipt, created_ms) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (account, key) DO NOTHING`, claim.Account, claim.Key, claim.BodyHash, string(claim.Receipt), claim.Created.UnixMilli())
		if err != nil {
			return nil, fmt.Errorf("sqlitestore: claiming idempotency key: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, fmt.Errorf("sqlitestore: claiming idempotency key: %w", err)
		} else if n == 0 {
			tx.Rollback()
			earlier, err := s.Claim(ctx, claim.Account, claim.Key)
			if err == nil && earlier == nil {
				err = fmt.Errorf("sqlitestore: idempotency key %q of %q: claimed, yet not found", claim.Key, claim.Account)
			}
			return earlier, err
		}
	}
	if job.Args != nil {
		if _, err := s.q.client().InsertManyTx(ctx, tx, []river.InsertManyParams{job}); err != nil {
			return nil, fmt.Errorf("sqlitestore: queuing a %s job: %w", job.Args.Kind(), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlitestore: queuing: %w", err)
	}
	if job.Args != nil {
		// Queued: a failure to start the workers now does not unqueue it
		// (the next start, or the next job, wakes them).
		if err := s.queued(ctx); err != nil {
			s.logQueue(err)
		}
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
	err := s.q.db.QueryRowContext(ctx, `SELECT body_hash, receipt, created_ms FROM bulk_idempotency WHERE account = ? AND key = ?`,
		account, key).Scan(&c.BodyHash, &receipt, &ms)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("sqlitestore: reading idempotency key: %w", err)
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
	tx, err := s.q.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ms := b.Created.UnixMilli()
	res, err := tx.ExecContext(ctx, `INSERT INTO webhook_batches (id, account, type, results, body, created_ms) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		b.ID, b.Account, b.Product, b.Results, b.Body, ms)
	if err != nil {
		return fmt.Errorf("sqlitestore: storing callback %s: %w", b.ID, err)
	}
	if fresh, err := res.RowsAffected(); err != nil {
		return err
	} else if fresh == 0 {
		return nil // dispatched before
	}
	for _, u := range b.URLs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (batch_id, url, state, attempts, last_status, last_error, updated_ms) VALUES (?, ?, 'pending', 0, 0, '', ?)`,
			b.ID, u, ms); err != nil {
			return fmt.Errorf("sqlitestore: storing a delivery of %s: %w", b.ID, err)
		}
	}
	if len(jobs) > 0 {
		if _, err := s.q.client().InsertManyTx(ctx, tx, jobs); err != nil {
			return fmt.Errorf("sqlitestore: queuing the deliveries of %s: %w", b.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if len(jobs) > 0 {
		if err := s.queued(ctx); err != nil {
			s.logQueue(err)
		}
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
	err := s.q.db.QueryRowContext(ctx, `SELECT account, type, results, body, created_ms FROM webhook_batches WHERE id = ?`, id).
		Scan(&b.Account, &b.Product, &b.Results, &b.Body, &ms)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("sqlitestore: %w %s", store.ErrUnknownBatch, id)
	case err != nil:
		return nil, fmt.Errorf("sqlitestore: reading callback %s: %w", id, err)
	}
	b.Created = time.UnixMilli(ms).UTC()
	return b, nil
}

// SetDelivery records a delivery's state.
func (s *Store) SetDelivery(ctx context.Context, d store.Delivery) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	_, err := s.q.db.ExecContext(ctx, `UPDATE webhook_deliveries SET state = ?, attempts = ?, last_status = ?, last_error = ?, updated_ms = ? WHERE batch_id = ? AND url = ?`,
		d.State, d.Attempts, d.LastStatus, d.LastError, d.Updated.UnixMilli(), d.Batch, d.URL)
	return err
}

// Deliveries lists an account's deliveries, most recently updated first.
func (s *Store) Deliveries(ctx context.Context, account string, limit int) ([]store.Delivery, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	rows, err := s.q.db.QueryContext(ctx, `SELECT d.batch_id, d.url, d.state, d.attempts, d.last_status, d.last_error, d.updated_ms
		FROM webhook_deliveries d JOIN webhook_batches w ON w.id = d.batch_id
		WHERE w.account = ? ORDER BY d.updated_ms DESC, d.batch_id DESC, d.url LIMIT ?`, account, limit)
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

// logQueue logs a failure to start the workers after a job was queued.
func (s *Store) logQueue(err error) {
	s.q.mu.Lock()
	cfg := s.q.cfg
	s.q.mu.Unlock()
	if cfg != nil && cfg.Logger != nil {
		cfg.Logger.Error("starting the queue's workers after queuing a job", "error", err)
	}
}
