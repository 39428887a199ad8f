package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/numenhq/numen/engine/store"
)

// StartQueue implements store.Queue: the queue is worked at once if it has
// unfinished jobs, else when a job is queued (Switch).
func (s *Store[T]) StartQueue(ctx context.Context, cfg store.QueueConfig) error {
	if err := s.Open(); err != nil {
		return err
	}
	return s.sw.Start(ctx, cfg)
}

// StopQueue implements store.Queue.
func (s *Store[T]) StopQueue(ctx context.Context) error { return s.sw.Stop(ctx) }

// StopForClose stops a queue with stop for a driver's Close: the owner
// stops it first, with a deadline of its choice; this bounds the wait for
// running jobs at 30 s should it not have.
func StopForClose(stop func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return stop(ctx)
}

// inTx runs f in a transaction of the queue's database and commits it;
// queued reports whether f inserted jobs, to wake the workers after the
// commit.
func (s *Store[T]) inTx(ctx context.Context, what string, f func(tx Tx[T]) (queued bool, err error)) error {
	tx, err := s.Jobs.Begin(ctx, false)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", s.Name, what, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	queued, err := f(tx)
	if err == nil {
		err = tx.Commit(ctx)
	}
	if err != nil {
		if errors.Is(err, errNothing) {
			return nil
		}
		return fmt.Errorf("%s: %s: %w", s.Name, what, err)
	}
	if queued {
		s.sw.Queued(ctx)
	}
	return nil
}

// errNothing ends a transaction of inTx that has nothing to commit.
var errNothing = errors.New("nothing to commit")

// Enqueue implements store.Queue: the key is claimed first, in the
// transaction that queues the job, so that of concurrent submissions with
// one key (on any nodes) the first to commit queues its job, and the
// others find its claim.
func (s *Store[T]) Enqueue(ctx context.Context, claim *store.Claim, job river.InsertManyParams) (*store.Claim, error) {
	if err := s.Open(); err != nil {
		return nil, err
	}
	if s.Writable != nil {
		if err := s.Writable(); err != nil {
			return nil, fmt.Errorf("%s: queuing: %w", s.Name, err)
		}
	}
	claimed := true
	err := s.inTx(ctx, "queuing", func(tx Tx[T]) (bool, error) {
		if claim != nil {
			n, err := tx.Exec(ctx, s.SQL.InsertClaim, claim.Account, claim.Key, claim.BodyHash, string(claim.Receipt), claim.Created.UnixMilli())
			if err != nil {
				return false, fmt.Errorf("claiming idempotency key: %w", err)
			}
			if n == 0 {
				claimed = false
				return false, errNothing
			}
		}
		if job.Args == nil {
			return false, nil
		}
		if _, err := s.inserts.InsertManyTx(ctx, tx.River(), []river.InsertManyParams{job}); err != nil {
			return false, fmt.Errorf("a %s job: %w", job.Args.Kind(), err)
		}
		return true, nil
	})
	if err != nil || claimed {
		return nil, err
	}
	earlier, err := s.Claim(ctx, claim.Account, claim.Key)
	if err == nil && earlier == nil {
		err = fmt.Errorf("%s: idempotency key %q of %q: claimed, yet not found", s.Name, claim.Key, claim.Account)
	}
	return earlier, err
}

// Claim implements store.Queue.
func (s *Store[T]) Claim(ctx context.Context, account, key string) (*store.Claim, error) {
	if err := s.Open(); err != nil {
		return nil, err
	}
	c := &store.Claim{Account: account, Key: key}
	var receipt string
	var ms int64
	err := s.Jobs.QueryRow(ctx, s.SQL.SelectClaim, account, key).Scan(&c.BodyHash, &receipt, &ms)
	switch {
	case errors.Is(err, ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%s: reading idempotency key: %w", s.Name, err)
	}
	c.Receipt, c.Created = []byte(receipt), time.UnixMilli(ms).UTC()
	return c, nil
}

// Dispatch implements store.Queue: a batch stored before changes nothing.
func (s *Store[T]) Dispatch(ctx context.Context, b *store.Batch, jobs []river.InsertManyParams) error {
	if err := s.Open(); err != nil {
		return err
	}
	ms := b.Created.UnixMilli()
	return s.inTx(ctx, "storing callback "+b.ID, func(tx Tx[T]) (bool, error) {
		n, err := tx.Exec(ctx, s.SQL.InsertBatch, b.ID, b.Account, b.Product, b.Results, b.Body, ms)
		if err != nil {
			return false, err
		}
		if n == 0 {
			return false, errNothing // dispatched before
		}
		for _, u := range b.URLs {
			if _, err := tx.Exec(ctx, s.SQL.InsertDelivery, b.ID, u, ms); err != nil {
				return false, fmt.Errorf("a delivery: %w", err)
			}
		}
		if len(jobs) == 0 {
			return false, nil
		}
		if _, err := s.inserts.InsertManyTx(ctx, tx.River(), jobs); err != nil {
			return false, fmt.Errorf("queuing the deliveries: %w", err)
		}
		return true, nil
	})
}

// Batch implements store.Queue (the batch without its URLs).
func (s *Store[T]) Batch(ctx context.Context, id string) (*store.Batch, error) {
	if err := s.Open(); err != nil {
		return nil, err
	}
	b := &store.Batch{ID: id}
	var ms int64
	err := s.Jobs.QueryRow(ctx, s.SQL.SelectBatch, id).Scan(&b.Account, &b.Product, &b.Results, &b.Body, &ms)
	switch {
	case errors.Is(err, ErrNoRows):
		return nil, fmt.Errorf("%s: %w %s", s.Name, store.ErrUnknownBatch, id)
	case err != nil:
		return nil, fmt.Errorf("%s: reading callback %s: %w", s.Name, id, err)
	}
	b.Created = time.UnixMilli(ms).UTC()
	return b, nil
}

// SetDelivery implements store.Queue.
func (s *Store[T]) SetDelivery(ctx context.Context, d store.Delivery) error {
	if err := s.Open(); err != nil {
		return err
	}
	_, err := s.Jobs.Exec(ctx, s.SQL.UpdateDelivery, d.State, d.Attempts, d.LastStatus, d.LastError, d.Updated.UnixMilli(), d.Batch, d.URL)
	return err
}

// Deliveries implements store.Queue.
func (s *Store[T]) Deliveries(ctx context.Context, account string, limit int) ([]store.Delivery, error) {
	if err := s.Open(); err != nil {
		return nil, err
	}
	var out []store.Delivery
	err := each(ctx, s.Jobs, func(rows Rows) error {
		var d store.Delivery
		var ms int64
		err := rows.Scan(&d.Batch, &d.URL, &d.State, &d.Attempts, &d.LastStatus, &d.LastError, &ms)
		d.Updated = time.UnixMilli(ms).UTC()
		out = append(out, d)
		return err
	}, s.SQL.Deliveries, account, limit)
	return out, err
}
