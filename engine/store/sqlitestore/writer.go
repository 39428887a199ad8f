package sqlitestore

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/numenhq/numen/engine/store"
)

// pending is one result waiting for its Record to be answered.
type pending struct {
	entry store.Entry
	done  chan error // buffered: the writer never waits for a Record
	err   error      // the writer's: set when the result is refused
}

// logWriter is the commit function of the store's group-commit writer
// (core.Writer, one goroutine): it appends each group of results to the
// results log in one write and one flush, hands them to the indexer and
// answers their Records. Only the writer goroutine uses it.
type logWriter struct {
	log      *resultsLog
	idx      *indexer
	health   *health
	logger   *slog.Logger
	recorded func(ctx context.Context, ids []string) (map[string]bool, error)
	inGroup  map[string]struct{} // ids of the group it appends
}

// commit appends a group of results to the log and answers their
// Records: nil once the log is flushed, store.ErrDuplicateID for an id
// already recorded, or the error that kept them out.
func (w *logWriter) commit(batch []*pending) {
	answer := func(err error) {
		for _, p := range batch {
			if p.err == nil {
				p.done <- err
			}
		}
	}
	if err := w.health.broken(); err != nil {
		answer(err)
		return
	}
	if err := w.health.isDamaged(); err != nil {
		answer(err)
		return
	}
	if err := w.idx.await(); err != nil {
		answer(err)
		return
	}
	if n := w.refuseDuplicates(batch); n == len(batch) {
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
	seg, start, err := w.log.append(buf)
	if err != nil {
		err = fmt.Errorf("sqlitestore: results log of %s: %w (the store takes no more results until it is opened again)", w.health.path, err)
		if w.health.failed.CompareAndSwap(nil, &err) {
			w.logger.Error("appending to the results log failed; the store takes no more results until it is opened again", "error", err)
		}
		answer(err)
		return
	}
	for i := range items {
		items[i].segment, items[i].end = seg, start+items[i].end
	}
	w.idx.add(items)
	answer(nil)
}

// refuseDuplicates answers, with store.ErrDuplicateID, the results of batch
// whose id is already recorded (in the log or the database) or comes twice
// in the batch (the second), and marks them (p.err). It returns how many
// it refused.
//
// The ids in the log that the indexer has not committed yet are in memory
// (indexer.unindexed). An id greater than every id in the database (ids
// grow with time: the usual case) cannot be in the database; one that is
// not is looked up there. The indexer takes an id out of unindexed only
// after its commit, in the same critical section as it raises maxIndexed,
// so an id is always in one place or the other.
func (w *logWriter) refuseDuplicates(batch []*pending) (refused int) {
	clear(w.inGroup)
	var lookup []*pending
	dup := func(id string) error {
		return fmt.Errorf("sqlitestore: append result %q to %s: %w", id, w.health.path, store.ErrDuplicateID)
	}
	w.idx.mu.Lock()
	for _, p := range batch {
		id := p.entry.ID
		_, inLog := w.idx.unindexed[id]
		_, twice := w.inGroup[id]
		if inLog || twice {
			p.err = dup(id)
			continue
		}
		w.inGroup[id] = struct{}{}
		if id <= w.idx.maxIndexed {
			lookup = append(lookup, p)
		}
	}
	w.idx.mu.Unlock()
	if len(lookup) > 0 {
		ids := make([]string, len(lookup))
		for i, p := range lookup {
			ids[i] = p.entry.ID
		}
		found, err := w.recorded(context.Background(), ids)
		if w.health.readFailed(err) != nil {
			if damaged := w.health.isDamaged(); damaged != nil {
				err = damaged // store.ErrDamaged: the file will not heal, a retry will not help
			}
		}
		for _, p := range lookup {
			switch {
			case err != nil:
				p.err = fmt.Errorf("sqlitestore: append result %q to %s: look for its id in the database: %w", p.entry.ID, w.health.path, err)
			case found[p.entry.ID]:
				p.err = dup(p.entry.ID)
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
