package sqlitestore

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/numenhq/numen/engine/store"
)

// pending is one result waiting for its Record to be answered.
type pending struct {
	entry store.Entry
	done  chan error // buffered: the writer never waits for a Record
	err   error      // the writer's: set when the result is refused
}

// write is the writer goroutine: it appends what Record queues to the
// results log, a group at a time, until Close closes the queue and the
// last group is appended; then it tells the indexer that no more come.
//
// A group is every result queued when the writer comes for them (up to
// the batch size): while the writer waits for the disk to flush one group,
// the next gathers. So a flush carries one result when the store is idle
// and dozens under load.
func (s *Store) write() {
	defer close(s.done)
	defer s.closeIndexQueue()
	batch := make([]*pending, 0, s.opts.maxBatch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	last := 1 // how many results the next group waits for (collect)
	for {
		s.groupTarget.Store(int64(last)) // 1 already, from Open
		p, ok := <-s.queue
		if !ok {
			return
		}
		batch = append(batch[:0], p)
		open := s.collect(&batch, timer, last)
		s.logGroup(batch)
		// The next group waits for as many results as this one held, or
		// for nearly as many as the one before: a group cut short by the
		// delay does not shrink the next at once.
		last = max(len(batch), last-max(1, last/8))
		clear(batch) // let the entries go
		if !open {
			return
		}
	}
}

// logGroup appends a group of results to the log and answers their
// Records: nil once the log is flushed, store.ErrDuplicateID for an id
// already recorded, or the error that kept them out.
func (s *Store) logGroup(batch []*pending) {
	answer := func(err error) {
		for _, p := range batch {
			if p.err == nil {
				p.done <- err
			}
		}
	}
	if err := s.broken(); err != nil {
		answer(err)
		return
	}
	if err := s.isDamaged(); err != nil {
		answer(err)
		return
	}
	if err := s.awaitIndexer(); err != nil {
		answer(err)
		return
	}
	if n := s.refuseDuplicates(batch); n == len(batch) {
		return
	}

	if s.opts.direct {
		answer(s.commitDirect(batch))
		return
	}
	// One buffer per group: the indexer keeps the entries, which refer to
	// it, until they are committed.
	size := 0
	for _, p := range batch {
		if p.err == nil {
			size += recordHeader + 40 + len(p.entry.ID) + len(p.entry.Account) + len(p.entry.Storage) + len(p.entry.Result)
		}
	}
	buf := make([]byte, 0, size)
	items := make([]logged, 0, len(batch))
	for _, p := range batch {
		if p.err != nil {
			continue
		}
		buf = appendRecord(buf, &p.entry)
		e := p.entry
		e.Result = buf[len(buf)-len(e.Result):]
		items = append(items, logged{entry: e, end: int64(len(buf))})
	}
	seg, start, err := s.log.append(buf)
	if err != nil {
		err = fmt.Errorf("sqlitestore: results log of %s: %w (the store takes no more results until it is opened again)", s.path, err)
		s.failed.CompareAndSwap(nil, &err)
		answer(err)
		return
	}
	for i := range items {
		items[i].segment, items[i].end = seg, start+items[i].end
	}
	s.toIndex(items)
	answer(nil)
}

// refuseDuplicates answers, with store.ErrDuplicateID, the results of batch
// whose id is already recorded (in the log or the database) or comes twice
// in the batch (the second), and marks them (p.err). It returns how many
// it refused.
//
// The ids in the log that the indexer has not committed yet are in memory
// (s.idx.unindexed). An id greater than every id in the database (ids grow
// with time: the usual case) cannot be in the database; one that is not is
// looked up there. The indexer takes an id out of unindexed only after its
// commit, in the same critical section as it raises maxIndexed, so an id
// is always in one place or the other.
func (s *Store) refuseDuplicates(batch []*pending) (refused int) {
	clear(s.inGroup)
	var lookup []*pending
	s.idx.mu.Lock()
	for _, p := range batch {
		id := p.entry.ID
		_, inLog := s.idx.unindexed[id]
		_, twice := s.inGroup[id]
		if inLog || twice {
			p.err = fmt.Errorf("sqlitestore: append result %q to %s: %w", id, s.path, store.ErrDuplicateID)
			continue
		}
		s.inGroup[id] = struct{}{}
		if id <= s.idx.maxIndexed {
			lookup = append(lookup, p)
		}
	}
	s.idx.mu.Unlock()
	if len(lookup) > 0 {
		ids := make([]string, len(lookup))
		for i, p := range lookup {
			ids[i] = p.entry.ID
		}
		found, err := s.recorded(context.Background(), ids)
		for _, p := range lookup {
			switch {
			case err != nil:
				p.err = fmt.Errorf("sqlitestore: append result %q to %s: look for its id in the database: %w", p.entry.ID, s.path, err)
			case found[p.entry.ID]:
				p.err = fmt.Errorf("sqlitestore: append result %q to %s: %w", p.entry.ID, s.path, store.ErrDuplicateID)
			}
		}
	}
	for _, p := range batch {
		if p.err != nil {
			p.done <- p.err
			refused++
		}
	}
	return refused
}

// recorded returns which of ids the database has.
func (s *Store) recorded(ctx context.Context, ids []string) (map[string]bool, error) {
	found := make(map[string]bool)
	err := s.byID(ctx, ids, false, func(id, _ string) { found[id] = true })
	return found, err
}

// broken returns the error of a failed append to the log, or nil.
func (s *Store) broken() error {
	if err := s.failed.Load(); err != nil {
		return *err
	}
	return nil
}

// collect adds to batch what is queued, up to the batch size. When that
// leaves the group smaller than the last one (its callers have not all
// come back yet), it waits up to the group-commit delay for the rest, and
// then takes what else is queued. It returns false when the queue is
// closed (and drained).
func (s *Store) collect(batch *[]*pending, timer *time.Timer, last int) (open bool) {
	max := s.opts.maxBatch
	if !s.drain(batch) {
		return false
	}
	want := min(last, max)
	if len(*batch) >= want || s.opts.maxDelay <= 0 {
		return true
	}
	timer.Reset(s.opts.maxDelay)
	defer timer.Stop()
	for len(*batch) < want {
		select {
		case p, ok := <-s.queue:
			if !ok {
				return false
			}
			*batch = append(*batch, p)
		case <-timer.C:
			return true
		}
	}
	return s.drain(batch)
}

// drain adds to batch what is queued, without waiting, up to the batch
// size. It returns false when the queue is closed (and drained).
func (s *Store) drain(batch *[]*pending) (open bool) {
	for len(*batch) < s.opts.maxBatch {
		select {
		case p, ok := <-s.queue:
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

// commitDirect commits a group straight to the database and flushes its
// WAL, as a store without the results log would (synchronous=FULL): the
// variant BenchmarkRecord measures against the log (option withoutLog, for
// tests only), to show what the log earns.
func (s *Store) commitDirect(batch []*pending) error {
	items := make([]logged, 0, len(batch))
	for _, p := range batch {
		if p.err == nil {
			items = append(items, logged{entry: p.entry})
		}
	}
	if err := s.indexBatch(items); err != nil {
		return err
	}
	f, err := os.Open(s.path + "-wal")
	if err != nil {
		return err
	}
	defer f.Close()
	return datasync(f)
}
