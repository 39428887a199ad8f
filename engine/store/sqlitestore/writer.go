package sqlitestore

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/routing"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// pending is one result waiting for its commit.
type pending struct {
	entry store.Entry
	done  chan error // buffered: the writer never waits for a Record
}

// write is the writer goroutine: it commits what Record queues, in
// batches, until Close closes the queue and the last batch is committed.
// A committed batch goes to the syncer (synced), which acknowledges it once
// the WAL is on disk; a result that failed is answered at once.
//
// One token (s.ready) passes between the writer and the syncer: the writer
// takes it before each commit (awaitSyncer), and gives it to the syncer
// with the batch it commits, or puts it back when nothing committed; the
// syncer puts it back when it takes the batches waiting for it. So at most
// one committed batch waits for the syncer at a time, and the channel,
// with room for one, never blocks a send.
func (s *Store) write() {
	defer close(s.synced)
	batch := make([]*pending, 0, s.opts.maxBatch)
	errs := make([]error, 0, s.opts.maxBatch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		p, ok := <-s.queue
		if !ok {
			return
		}
		batch = append(batch[:0], p)
		open := s.collect(&batch, timer)
		if open {
			open = s.awaitSyncer(&batch)
		} else {
			<-s.ready // the last batch, after the syncer took the one before
		}
		if err := s.broken(); err != nil {
			for _, p := range batch {
				p.done <- err
			}
			s.ready <- struct{}{}
		} else {
			errs = s.commit(batch, errs[:0])
			committed := make([]*pending, 0, len(batch))
			for i, p := range batch {
				if errs[i] != nil {
					p.done <- errs[i]
				} else {
					committed = append(committed, p)
				}
			}
			if len(committed) > 0 {
				s.synced <- committed
				select {
				case s.wake <- struct{}{}:
				default:
				}
			} else {
				s.ready <- struct{}{} // the syncer has nothing new: the token stays here
			}
		}
		clear(batch) // let the entries go
		if !open {
			return
		}
	}
}

// syncer is the goroutine that makes committed batches durable: it takes
// every batch the writer has committed so far, fsyncs the WAL once for
// all of them, and releases their Records. While it waits for the disk,
// the writer commits the next batches; see "Durability" in the package
// documentation. A failed fsync fails its batches and every later Record
// (broken): after a failed fsync the kernel may have dropped the pages it
// could not write, so nothing written since can be trusted to be on disk
// until the store is opened again, and SQLite's recovery reads the WAL.
func (s *Store) syncer() {
	defer close(s.done)
	var group []*pending
	for first := range s.synced {
		group = append(group[:0], first...)
	drain:
		for {
			select {
			case more, ok := <-s.synced:
				if !ok {
					break drain
				}
				group = append(group, more...)
			default:
				break drain
			}
		}
		s.ready <- struct{}{} // nothing committed waits now: the writer may commit

		err := s.broken()
		if err == nil {
			sync := s.syncWAL
			if s.opts.sync != nil {
				sync = s.opts.sync
			}
			if err = sync(); err != nil {
				err = fmt.Errorf("sqlitestore: sync %s-wal: %w (the store takes no more results until it is opened again)", s.path, err)
				s.failed.CompareAndSwap(nil, &err)
			}
		}
		for _, p := range group {
			p.done <- err
		}
		clear(group)
	}
}

// awaitSyncer holds the batch back, adding what arrives, while a batch
// the writer committed earlier still waits for the syncer (which is busy
// flushing the one before): it returns when the syncer has taken every
// committed batch (s.ready), or the batch is full, or the queue is closed
// (false). So the writer commits at most once per flush, and a
// transaction holds every result that arrived meanwhile: the fixed cost
// of a transaction (BEGIN, COMMIT, the report upsert, WAL frames of
// half-filled pages) is shared by as many results as the flushes let
// gather, where committing whatever is queued would commit a few results
// at a time and spend the CPU the lookups need.
func (s *Store) awaitSyncer(batch *[]*pending) (open bool) {
	defer s.held.Store(0)
	for len(*batch) < s.opts.maxBatch {
		s.held.Store(int32(len(*batch)))
		select {
		case <-s.ready:
			return true
		case p, ok := <-s.queue:
			if !ok {
				<-s.ready
				return false
			}
			*batch = append(*batch, p)
		}
	}
	<-s.ready
	return true
}

// broken returns the error of a failed fsync, or nil.
func (s *Store) broken() error {
	if err := s.failed.Load(); err != nil {
		return *err
	}
	return nil
}

// syncWAL makes every transaction committed so far durable: it flushes the
// WAL file to disk (fdatasync on Linux), which is what SQLite does itself
// at each COMMIT with synchronous=FULL. The first time it sees a WAL file
// (at the first sync, and after SQLite deleted and created it again) it
// also syncs the directory, so that the file's name is on disk too. With
// no WAL file, SQLite has checkpointed everything into the database
// (synced) and removed the WAL: the database file is synced.
func (s *Store) syncWAL() error {
	f, err := os.Open(s.path + "-wal")
	if errors.Is(err, os.ErrNotExist) {
		if f, err = os.Open(s.path); err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := datasync(f); err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if s.walFile != nil && os.SameFile(fi, s.walFile) {
		return nil
	}
	if err := syncDir(filepath.Dir(s.path)); err != nil {
		return err
	}
	s.walFile = fi
	return nil
}

// collect adds to batch what arrives within the group-commit delay, up to
// the batch size. It returns false when the queue is closed (and drained).
func (s *Store) collect(batch *[]*pending, timer *time.Timer) (open bool) {
	max := s.opts.maxBatch
	if s.opts.maxDelay <= 0 {
		for len(*batch) < max {
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
	timer.Reset(s.opts.maxDelay)
	defer timer.Stop()
	for len(*batch) < max {
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
	return true
}

// commit appends batch in one transaction and returns each entry's error
// (appended to errs). When the transaction fails, it retries the entries
// one per transaction, so that an entry the database refuses fails alone;
// it stops retrying once a failure is the database's rather than an
// entry's (a lock held elsewhere, a full disk), and fails the rest with it.
func (s *Store) commit(batch []*pending, errs []error) []error {
	errs = append(errs, make([]error, len(batch))...)
	err := s.appendTx(batch, errs)
	if err == nil {
		return errs
	}
	if len(batch) == 1 {
		errs[0] = fmt.Errorf("sqlitestore: append result %q to %s: %w", batch[0].entry.ID, s.path, err)
		return errs
	}
	batchErr := fmt.Errorf("sqlitestore: append %d results to %s: %w", len(batch), s.path, err)
	for i := range batch {
		if databaseWide(err) {
			errs[i] = batchErr
			continue
		}
		if err = s.appendTx(batch[i:i+1], errs[i:i+1]); err != nil {
			errs[i] = fmt.Errorf("sqlitestore: append result %q to %s: %w", batch[i].entry.ID, s.path, err)
			batchErr = errs[i]
		}
	}
	return errs
}

// aggregate is what one batch adds to one row of table reports.
type aggregate struct {
	account, storage string
	product          routing.Product
	count, cost      int64
	firstMS, lastMS  int64
}

// appendTx appends batch in one transaction. It returns the transaction's
// error; when it commits, errs[i] is nil or batch[i]'s duplicate id.
func (s *Store) appendTx(batch []*pending, errs []error) (err error) {
	// Statements are prepared before the transaction takes the writer's
	// one connection.
	if len(batch) > 1 {
		for _, n := range []int{min(len(batch), insertChunk), len(batch) % insertChunk} {
			if _, err := s.insertStmt(n); n > 0 && err != nil {
				return err
			}
		}
	}
	tx, err := s.wdb.Begin() // BEGIN IMMEDIATE
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	upsert := tx.Stmt(s.upsert)
	if len(batch) == 1 {
		// One result alone: its own statement, which tells a duplicate id
		// apart (commit retries a failed batch this way).
		e := &batch[0].entry
		res, err := tx.Stmt(s.insert).Exec(e.ID, e.Account, e.Storage, string(e.Product), e.Millis, int64(e.Cost), string(e.Result))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n == 0 {
			errs[0] = fmt.Errorf("sqlitestore: append result %q to %s: %w", e.ID, s.path, store.ErrDuplicateID)
			return tx.Commit() // nothing to add to its report
		}
	} else if err := s.insertRows(tx, batch); err != nil {
		return err
	}
	var aggs []aggregate // a batch touches few reports
	for i, p := range batch {
		e := &p.entry
		errs[i] = nil
		j := 0
		for j < len(aggs) && (aggs[j].account != e.Account || aggs[j].storage != e.Storage || aggs[j].product != e.Product) {
			j++
		}
		if j == len(aggs) {
			aggs = append(aggs, aggregate{account: e.Account, storage: e.Storage, product: e.Product, firstMS: e.Millis, lastMS: e.Millis})
		}
		a := &aggs[j]
		a.count++
		a.cost += int64(e.Cost)
		a.firstMS, a.lastMS = min(a.firstMS, e.Millis), max(a.lastMS, e.Millis)
	}
	for _, a := range aggs {
		if _, err := upsert.Exec(a.account, a.storage, string(a.product), a.count, a.cost, a.firstMS, a.lastMS); err != nil {
			return err
		}
	}
	if s.opts.beforeCommit != nil {
		ids := make([]string, len(batch))
		for i, p := range batch {
			ids[i] = p.entry.ID
		}
		if err := s.opts.beforeCommit(ids); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// insertChunk is the most rows one INSERT statement of insertRows takes
// (7 parameters each, far below SQLite's limit of 32,766).
const insertChunk = 64

// errDuplicateInBatch fails a batch transaction that met an id already
// recorded; commit then appends the batch's results one per transaction,
// which tells the duplicate apart.
var errDuplicateInBatch = errors.New("a result id of the batch is already recorded")

// insertRows inserts batch with INSERT statements of up to insertChunk
// rows each: one statement per chunk instead of one per result, which
// saves the statement's execution overhead per row. A chunk that inserts
// fewer rows than it has met an id already recorded: errDuplicateInBatch.
func (s *Store) insertRows(tx *sql.Tx, batch []*pending) error {
	for start := 0; start < len(batch); start += insertChunk {
		chunk := batch[start:min(start+insertChunk, len(batch))]
		stmt := s.inserts[len(chunk)] // prepared by appendTx
		args := s.args[:0]
		for _, p := range chunk {
			e := &p.entry
			args = append(args, e.ID, e.Account, e.Storage, string(e.Product), e.Millis, int64(e.Cost), string(e.Result))
		}
		res, err := tx.Stmt(stmt).Exec(args...)
		clear(args)
		s.args = args
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if n != int64(len(chunk)) {
			return errDuplicateInBatch
		}
	}
	return nil
}

// insertStmt returns the writer's INSERT statement of n rows, prepared on
// first use, outside a transaction (which holds the writer's one
// connection). Only the writer goroutine calls it.
func (s *Store) insertStmt(n int) (*sql.Stmt, error) {
	if n == 0 {
		return nil, nil
	}
	if st := s.inserts[n]; st != nil {
		return st, nil
	}
	q := insertSQL + " VALUES (?, ?, ?, ?, ?, ?, ?)" + strings.Repeat(", (?, ?, ?, ?, ?, ?, ?)", n-1) + insertConflict
	st, err := s.wdb.Prepare(q)
	if err != nil {
		return nil, err
	}
	s.inserts[n] = st
	return st, nil
}

// databaseWide reports whether err is the database's failure rather than
// one entry's: retrying other entries would fail the same way.
func databaseWide(err error) bool {
	if errors.Is(err, sql.ErrConnDone) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff { // primary result code
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL,
		sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB,
		sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_PROTOCOL:
		return true
	}
	return false
}
