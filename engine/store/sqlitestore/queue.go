package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
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
// One process owns a data directory, so the store knows when there is
// work: the working River client runs only while the queue holds
// unfinished jobs (store.Switch), started when a job is queued here and
// stopped by an idle check once a minute. It polls for jobs only while it
// runs: a SQLite database has no notifications to wait on. An idle server
// runs no client at all.
type queue struct {
	db      *sql.DB
	inserts *river.Client[*sql.Tx] // inserts only: every insert goes through it
	sw      store.Switch
}

var _ store.Queue = (*Store)(nil)

// idleCheck is how often the idle check runs (store.Switch.IdleCheck).
var idleCheck = time.Minute

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
	s.q.sw = store.Switch{Name: "sqlitestore: " + s.path, NewRunner: s.q.newRunner, Unfinished: s.q.unfinished, IdleCheck: idleCheck}
	s.q.inserts, err = river.NewClient(riversqlite.New(db), &river.Config{})
	return err
}

// client returns the client that inserts jobs.
func (q *queue) client() *river.Client[*sql.Tx] { return q.inserts }

// newRunner makes the working client.
func (q *queue) newRunner(cfg store.QueueConfig) (store.Runner, error) {
	return river.NewClient(riversqlite.New(q.db), &river.Config{
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
}

// unfinished reports whether the queue has a job that is not finished.
func (q *queue) unfinished(ctx context.Context) (bool, error) {
	var n int
	err := q.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded'))`).Scan(&n)
	return n == 1, err
}

// StartQueue starts working the queue: at once if it has unfinished jobs,
// else when a job is queued (see "Idle" above).
func (s *Store) StartQueue(ctx context.Context, cfg store.QueueConfig) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	return s.q.sw.Start(ctx, cfg)
}

// StopQueue stops working the queue, waiting for running jobs until ctx
// ends; jobs still running are taken over after RescueAfter at the next
// start.
func (s *Store) StopQueue(ctx context.Context) error { return s.q.sw.Stop(ctx) }

// Enqueue claims the key (when claim is not nil) and inserts job, in one
// transaction; see store.Queue.
func (s *Store) Enqueue(ctx context.Context, claim *store.Claim, job river.InsertManyParams) (*store.Claim, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if err := s.isDamaged(); err != nil {
		return nil, fmt.Errorf("sqlitestore: queuing: %w", err)
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
