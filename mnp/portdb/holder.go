package portdb

import (
	"os"
	"sync"
	"sync/atomic"
)

// Holder holds the current database of a running service and replaces it
// while lookups run: Swap puts a new database in place at once, and the
// old one is closed when the last lookup that started on it has finished,
// never under a lookup. The zero Holder holds no database; its lookups find
// nothing and it covers no region.
//
// Each lookup through a Holder counts itself in and out of the database
// it uses (two atomic operations on a counter shared by all goroutines).
type Holder struct {
	cur atomic.Pointer[lease]
	// reload serialises Reload, and refused is the set of files (the base
	// and its deltas) it last failed to open, not tried again until one
	// of them changes.
	reload  sync.Mutex
	refused []os.FileInfo
}

// lease is one database while a Holder has it: refs counts the Holder's
// own reference, while the database is current, and each use in progress.
// When it falls to zero the database is closed, and no use can start
// again: acquire never raises a count from zero.
type lease struct {
	db   *DB
	refs atomic.Int64
}

func (l *lease) acquire() bool {
	for {
		n := l.refs.Load()
		if n <= 0 {
			return false
		}
		if l.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (l *lease) release() {
	if l.refs.Add(-1) == 0 {
		l.db.Close()
	}
}

// NewHolder returns a Holder of db, which may be nil.
func NewHolder(db *DB) *Holder {
	h := &Holder{}
	h.Swap(db)
	return h
}

// Swap makes db the current database (nil for none) and takes ownership
// of it. The database it replaces is closed as soon as no lookup uses it:
// at once when none is running. Open db WithVerify, so that a damaged file
// is refused before it answers, and the current database keeps answering;
// and put its file in place by rename, never by writing into the file an
// open database maps (see the package documentation, Replacing the file).
func (h *Holder) Swap(db *DB) {
	var next *lease
	if db != nil {
		next = &lease{db: db}
		next.refs.Store(1)
	}
	if old := h.cur.Swap(next); old != nil {
		old.release()
	}
}

// Close closes the current database once no lookup uses it and leaves the
// Holder empty.
func (h *Holder) Close() error {
	h.Swap(nil)
	return nil
}

// acquire returns the current database's lease, counted in, or nil.
func (h *Holder) acquire() *lease {
	for {
		l := h.cur.Load()
		if l == nil {
			return nil
		}
		if l.acquire() {
			return l
		}
		// l was swapped out and closed between the Load and the count:
		// the next Load sees its successor.
	}
}

// View calls f with the current database (nil when there is none), which
// stays open until f returns. f must not keep the database, nor call Swap
// or Close on it.
func (h *Holder) View(f func(db *DB)) {
	l := h.acquire()
	if l == nil {
		f(nil)
		return
	}
	defer l.release()
	f(l.db)
}

// Lookup looks the number up in the current database (see DB.Lookup).
func (h *Holder) Lookup(digits string) Result {
	l := h.acquire()
	if l == nil {
		return Result{}
	}
	r := l.db.Lookup(digits)
	l.release()
	return r
}

// Covers reports whether the current database covers the region (see
// DB.Covers). Regions are in the header, on the heap: no count is needed.
func (h *Holder) Covers(region string) bool {
	l := h.cur.Load()
	return l != nil && l.db.Covers(region)
}

// Info returns the current database's Info, and false when there is none.
func (h *Holder) Info() (Info, bool) {
	l := h.cur.Load()
	if l == nil {
		return Info{}, false
	}
	return l.db.Info(), true
}

// Reload swaps in the file at path when it is another file than the one
// the current database was opened from: a new file renamed over the old
// one's name (see Replacing the file). It opens the new file with opts
// and WithVerify, so that a damaged file is refused (the error) and the
// current database keeps answering; a file refused once is not opened
// again until another file takes the name or its size or time changes.
// It reports whether it swapped. The same file, even changed in place, is
// not reopened: it is not a replacement (DB.Changed tells it apart).
// Reload does not take the place of a lookup's checks; run it now and
// then (numen serve: every 10 seconds, and on SIGHUP) to pick up new
// files. ReloadWithDeltas does the same for a base and its deltas;
// Reload is ReloadWithDeltas without deltas, so that it drops the deltas
// of a current database that has some.
func (h *Holder) Reload(path string, opts ...Option) (bool, error) {
	return h.ReloadWithDeltas(path, nil, opts...)
}
