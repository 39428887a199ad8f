package core

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
)

// Writer is the group commit both drivers share: Record queues its
// validated result, and writer goroutines take what is queued and commit
// it together, with the driver's commit function, which answers each
// result. A group is every result queued when a writer comes for them,
// up to MaxBatch: while one group commits, the next gathers, so a commit
// carries one result when the store is idle and dozens under load. When
// a group is smaller than the last one (its callers have not all come
// back yet), the writer also waits up to MaxDelay for the rest; the next
// group then waits for nearly as many (an eighth fewer, at least one), so
// a burst's size is forgotten over a few groups, not at once.
//
// P is the driver's pending result: what its commit function answers.
type Writer[P any] struct {
	// Name names the driver in errors ("sqlitestore").
	Name string
	// MaxBatch bounds a group; MaxDelay is the longest wait for a group
	// as large as the last (0: none).
	MaxBatch int
	MaxDelay time.Duration
	// Commit commits a group and answers each of its results.
	Commit func(batch []P)
	// New makes the pending result of an entry, and the channel its
	// answer comes on (buffered: Commit never waits for a Record).
	New func(store.Entry) (P, <-chan error)
	// OnQueued and OnClosing are tests' hooks (nil otherwise): OnQueued
	// is called after a Record or RecordAll has queued a result, with the
	// number then waiting; OnClosing once Close has stopped taking
	// results, before it waits for those queued.
	OnQueued  func(queued int)
	OnClosing func()

	// mu guards closed and the sends on queue, so that Close closes queue
	// only when no Record is sending.
	mu     sync.RWMutex
	closed bool
	queue  chan P
	wg     sync.WaitGroup
	target atomic.Int64 // how many results the next group waits for
}

// Start starts n writer goroutines.
func (w *Writer[P]) Start(n int) {
	w.queue = make(chan P, w.MaxBatch)
	w.target.Store(1)
	for range n {
		w.wg.Add(1)
		go w.write()
	}
}

// Record implements engine.Sink: RecordAll of one record, without its
// slices.
func (w *Writer[P]) Record(ctx context.Context, r engine.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	e, err := store.EntryOf(r)
	if err != nil {
		return fmt.Errorf("%s: %w", w.Name, err)
	}
	p, done := w.New(e)
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return fmt.Errorf("%s: record %q: %w", w.Name, r.ID, store.ErrClosed)
	}
	select {
	case w.queue <- p:
		w.mu.RUnlock()
		if w.OnQueued != nil {
			w.OnQueued(len(w.queue))
		}
	case <-ctx.Done():
		w.mu.RUnlock()
		return ctx.Err() // not queued: not recorded
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RecordAll validates records (store.EntryOf), queues them and returns
// once each is answered, with the first error; or ctx's error (the
// results may still be committed then: recorded, not acknowledged).
func (w *Writer[P]) RecordAll(ctx context.Context, records []engine.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ps := make([]P, len(records))
	dones := make([]<-chan error, len(records))
	for i, r := range records {
		e, err := store.EntryOf(r)
		if err != nil {
			return fmt.Errorf("%s: %w", w.Name, err)
		}
		ps[i], dones[i] = w.New(e)
	}
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return fmt.Errorf("%s: record %d results: %w", w.Name, len(records), store.ErrClosed)
	}
	queued := 0
	for _, p := range ps {
		select {
		case w.queue <- p:
			queued++
			if w.OnQueued != nil {
				w.OnQueued(len(w.queue))
			}
			continue
		case <-ctx.Done():
		}
		break
	}
	w.mu.RUnlock()
	var first error
	for _, done := range dones[:queued] {
		select {
		case err := <-done:
			if err != nil && first == nil {
				first = err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if queued < len(ps) {
		return ctx.Err() // the rest were not queued: not recorded
	}
	return first
}

// Closed reports whether Close has begun.
func (w *Writer[P]) Closed() bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.closed
}

// Close stops taking results and waits until those queued are committed.
// It reports false when the writer was closed already.
func (w *Writer[P]) Close() bool {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return false
	}
	w.closed = true
	close(w.queue)
	w.mu.Unlock()
	if w.OnClosing != nil {
		w.OnClosing()
	}
	w.wg.Wait()
	return true
}

// Queued returns how many results wait for a writer.
func (w *Writer[P]) Queued() int { return len(w.queue) }

// Target returns how many results the next group waits for.
func (w *Writer[P]) Target() int64 { return w.target.Load() }

// write is a writer goroutine, until Close.
func (w *Writer[P]) write() {
	defer w.wg.Done()
	batch := make([]P, 0, w.MaxBatch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	last := 1
	for {
		w.target.Store(int64(last))
		p, ok := <-w.queue
		if !ok {
			return
		}
		batch = append(batch[:0], p)
		open := w.collect(&batch, timer, last)
		w.Commit(batch)
		last = max(len(batch), last-max(1, last/8))
		clear(batch) // let the results go
		if !open {
			return
		}
	}
}

// collect adds to batch what is queued, up to MaxBatch; when the group is
// smaller than last, it waits up to MaxDelay for the rest, then takes
// what else is queued. It returns false when the queue is closed (and
// drained).
func (w *Writer[P]) collect(batch *[]P, timer *time.Timer, last int) (open bool) {
	if !w.drain(batch) {
		return false
	}
	want := min(last, w.MaxBatch)
	if len(*batch) >= want || w.MaxDelay <= 0 {
		return true
	}
	timer.Reset(w.MaxDelay)
	defer timer.Stop()
	for len(*batch) < want {
		select {
		case p, ok := <-w.queue:
			if !ok {
				return false
			}
			*batch = append(*batch, p)
		case <-timer.C:
			return true
		}
	}
	return w.drain(batch)
}

// drain adds to batch what is queued, without waiting, up to MaxBatch. It
// returns false when the queue is closed (and drained).
func (w *Writer[P]) drain(batch *[]P) (open bool) {
	for len(*batch) < w.MaxBatch {
		select {
		case p, ok := <-w.queue:
			if !ok {
				return false
			}
			*batch = append(*batch, p)
		default:
			return true
		}
	}
	return true
}
