package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
)

// The indexer copies the results of the log into the database, in large
// transactions, off the lookups' path; see "Durability" in the package
// documentation.
const (
	// DefaultIndexDelay is how long the indexer lets results gather
	// before it commits them (WithIndexDelay), unless a read waits for
	// them or enough are waiting.
	DefaultIndexDelay = 50 * time.Millisecond
	// indexBatch is the most results one transaction of the indexer
	// commits, and the number that starts one without the delay.
	indexBatch = 4096
	// DefaultMaxUnindexed is how many results may wait for the indexer
	// (WithMaxUnindexed) before Record waits for it: it bounds the memory
	// they take (about 1 KB each) and the log's lead on the database.
	DefaultMaxUnindexed = 32768
	// indexRetry is the pause before the indexer tries a failed
	// transaction again.
	indexRetry = time.Second
)

// indexState is what the writer, the indexer and the readers share.
type indexState struct {
	mu sync.Mutex
	// queue holds the results in the log that the indexer has not taken
	// yet, in log order.
	queue []logged
	// unindexed holds the ids of the results in the log that are not
	// committed in the database yet (queued or being committed).
	unindexed map[string]struct{}
	// maxIndexed is the greatest id in the database.
	maxIndexed string
	// logged counts the results handed to the indexer, indexed those it
	// has committed: a read waits until indexed reaches what logged was
	// when it began (caughtUp).
	logged, indexed int64
	// progress is closed and replaced at each commit of the indexer, and
	// when a transaction fails: waiters look again (publish).
	progress chan struct{}
	// err is the error of the indexer's last transaction if it failed
	// (it tries again), nil after one commits.
	err error
	// closing: the writer has stopped; the indexer commits what is
	// queued and returns.
	closing bool
	// firstSegment is the oldest segment that may still be in the log
	// directory; committedSegment the segment of the last result the
	// indexer committed. The pruner deletes segments from the first up to
	// the committed one (prune.go).
	firstSegment, committedSegment uint64
}

// publish wakes the goroutines waiting on progress. The caller holds mu.
func (x *indexState) publish() {
	close(x.progress)
	x.progress = make(chan struct{})
}

// toIndex hands results that are in the log to the indexer. It is called
// before their Records are answered, so that a read that begins after an
// answer waits for them (caughtUp).
func (s *Store) toIndex(items []logged) {
	s.idx.mu.Lock()
	for _, it := range items {
		s.idx.unindexed[it.entry.ID] = struct{}{}
	}
	s.idx.queue = append(s.idx.queue, items...)
	s.idx.logged += int64(len(items))
	s.idx.mu.Unlock()
	signal(s.idxWork)
}

// closeIndexQueue tells the indexer that no more results come.
func (s *Store) closeIndexQueue() {
	s.idx.mu.Lock()
	s.idx.closing = true
	s.idx.mu.Unlock()
	signal(s.idxKick)
}

// signal sends on a channel with room for one, without waiting.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// awaitIndexer makes the writer wait while maxUnindexed results wait for
// the indexer. It fails when the indexer is failing meanwhile: the results
// already in the log are safe, but the memory for more is not there.
func (s *Store) awaitIndexer() error {
	for {
		s.idx.mu.Lock()
		n, progress, err := len(s.idx.unindexed), s.idx.progress, s.idx.err
		s.idx.mu.Unlock()
		if n < s.opts.maxUnindexed {
			return nil
		}
		if err != nil {
			return fmt.Errorf("sqlitestore: %s: %d results wait for the indexer, which fails: %w", s.path, n, err)
		}
		signal(s.idxKick)
		<-progress
	}
}

// caughtUp waits until the indexer has committed every result handed to
// it before the call: every result whose Record has returned nil is then
// in the database. Reads call it first.
func (s *Store) caughtUp(ctx context.Context) error {
	s.idx.mu.Lock()
	target := s.idx.logged
	s.idx.mu.Unlock()
	for {
		s.idx.mu.Lock()
		indexed, progress, err := s.idx.indexed, s.idx.progress, s.idx.err
		s.idx.mu.Unlock()
		if indexed >= target {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%d results are in the log but not in the database yet, and the indexer fails: %w", target-indexed, err)
		}
		signal(s.idxKick)
		select {
		case <-progress:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.idxDone:
			return fmt.Errorf("%w (results in the log go to the database at the next Open)", errIndexerStopped)
		}
	}
}

var errIndexerStopped = errors.New("the indexer has stopped")

// index is the indexer goroutine: it waits for results, lets more gather
// for the index delay (unless a read or the writer asks for them, or
// indexBatch are waiting), and commits them, until the writer has stopped
// and everything is committed. A transaction that fails is tried again
// after indexRetry, and the error is reported meanwhile (Ping, reads);
// when it still fails at Close, its results stay in the log for the next
// Open.
func (s *Store) index() {
	defer close(s.idxDone)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var batch []logged // the indexer's copy of the results it commits
	for {
		select {
		case <-s.idxWork:
		case <-s.idxKick:
		}
		s.idx.mu.Lock()
		n, closing := len(s.idx.queue), s.idx.closing
		s.idx.mu.Unlock()
		if !closing && n > 0 && n < indexBatch && s.opts.indexDelay > 0 {
			timer.Reset(s.opts.indexDelay)
			select {
			case <-timer.C:
			case <-s.idxKick:
				timer.Stop()
			}
		}
		for {
			s.idx.mu.Lock()
			// Copied out, and cleared in the queue, so that the queue's
			// array, which append reuses, does not keep the results (and
			// their groups' buffers) after they are committed.
			n := min(len(s.idx.queue), indexBatch)
			batch = append(batch[:0], s.idx.queue[:n]...)
			clear(s.idx.queue[:n])
			s.idx.queue = s.idx.queue[n:]
			if len(s.idx.queue) == 0 {
				s.idx.queue = nil // let the array go
			}
			closing = s.idx.closing
			s.idx.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			for {
				err := s.indexBatch(batch)
				if err == nil {
					break
				}
				s.idx.mu.Lock()
				s.idx.err = fmt.Errorf("sqlitestore: index %d results in %s: %w", len(batch), s.path, err)
				closing = s.idx.closing
				s.idx.publish()
				s.idx.mu.Unlock()
				if closing {
					return
				}
				timer.Reset(s.opts.indexRetry)
				select {
				case <-timer.C:
				case <-s.idxKick:
					timer.Stop()
					// A read or Close asks: try again now (Close only once).
				}
			}
			s.indexed(batch)
			clear(batch)
		}
		if closing {
			return
		}
	}
}

// indexed publishes a committed batch: its ids leave unindexed, readers
// waiting for it go on, and the pruner may delete the segments before its
// last one.
func (s *Store) indexed(batch []logged) {
	last := batch[len(batch)-1]
	s.idx.mu.Lock()
	for _, it := range batch {
		delete(s.idx.unindexed, it.entry.ID)
		if it.entry.ID > s.idx.maxIndexed {
			s.idx.maxIndexed = it.entry.ID
		}
	}
	s.idx.indexed += int64(len(batch))
	s.idx.committedSegment = last.segment
	s.idx.err = nil
	s.idx.publish()
	s.idx.mu.Unlock()
	signal(s.wake)
}

// syncDatabase makes every transaction the indexer has committed durable.
// Its commits do not wait for the disk (synchronous=NORMAL): the results
// are durable in the log already, and the log position commits with them,
// so a commit lost with the machine is committed again by the next Open.
// Before the pruner deletes a segment, though, what the indexer committed
// from it must be on disk: syncDatabase flushes the WAL file, which is what
// synchronous=FULL does at each COMMIT and makes every transaction
// committed before it durable (SQLite forum, "Switching pragma synchronous
// to upgrade durability", 2021), and the directory, which holds the WAL's
// name. With no WAL file, a checkpoint has copied everything into the
// database file (and synced it), and SQLite removed the WAL: the database
// file is flushed.
func (s *Store) syncDatabase() error {
	f, err := os.Open(s.path + "-wal")
	if errors.Is(err, os.ErrNotExist) {
		f, err = os.Open(s.path)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := datasync(f); err != nil {
		return err
	}
	return syncDir(filepath.Dir(s.path))
}

// indexBatch commits batch to the database with the log position after
// it. A batch with a result the database has already (which the writer
// refuses, so only a log replayed over a database that has its results)
// is committed again one result at a time, each of those skipped.
func (s *Store) indexBatch(batch []logged) error {
	if err := s.isDamaged(); err != nil {
		return err // its results stay in the log
	}
	err := s.indexTx(batch, false)
	if isCorrupt(err) {
		s.markDamaged(err)
	}
	if errors.Is(err, errDuplicateInBatch) {
		err = s.indexTx(batch, true)
	}
	return err
}

// aggregateKey names a row of table reports.
type aggregateKey struct {
	account, storage string
	product          engine.Product
}

// aggregate is what one transaction adds to one row of table reports.
type aggregate struct {
	count, cost     int64
	firstMS, lastMS int64
}

// tallyKey names a row of table report_facets.
type tallyKey struct {
	account, storage, field, value string
}

// tally is what one transaction adds to one row of table report_facets.
type tally struct {
	label       string
	count, cost int64
}

// tallies are the rows of table report_facets one transaction adds to.
type tallies map[tallyKey]*tally

// add counts e under the value of each field and its day.
func (t *tallies) add(e *store.Entry) {
	if *t == nil {
		*t = make(tallies)
	}
	f := &e.Facts
	one := func(field, value, label string) {
		k := tallyKey{e.Account, e.Storage, field, value}
		x := (*t)[k]
		if x == nil {
			x = &tally{}
			(*t)[k] = x
		}
		x.count++
		x.cost += int64(e.Cost)
		if label != "" {
			x.label = label
		}
	}
	one(string(store.FieldProduct), string(e.Product), "")
	one(string(store.FieldStatus), f.Status, "")
	one(string(store.FieldConnectivity), f.Connectivity, "")
	one(string(store.FieldNumberType), f.NumberType, "")
	one(string(store.FieldCountry), f.Country, f.CountryName)
	one(string(store.FieldNetwork), f.Network, f.NetworkName)
	one("day", store.Day(e.Millis), "")
}

// write adds the tallies to their rows with upsert (the statement
// s.tally prepared in the transaction).
func (t tallies) write(upsert *sql.Stmt) error {
	for k, x := range t {
		if _, err := upsert.Exec(k.account, k.storage, k.field, k.value, x.label, x.count, x.cost); err != nil {
			return err
		}
	}
	return nil
}

// indexTx inserts batch in one transaction, with statements of up to
// insertChunk rows (or one per row, skipping results already there, when
// oneByOne), adds it to its reports, and records the log position after
// its last result.
func (s *Store) indexTx(batch []logged, oneByOne bool) (err error) {
	// Statements are prepared before the transaction takes the indexer's
	// one connection.
	if !oneByOne {
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
	aggs := make(map[aggregateKey]*aggregate)
	var tallies tallies
	add := func(it *logged) {
		e := &it.entry
		tallies.add(e)
		k := aggregateKey{e.Account, e.Storage, e.Product}
		a := aggs[k]
		if a == nil {
			a = &aggregate{firstMS: e.Millis, lastMS: e.Millis}
			aggs[k] = a
		}
		a.count++
		a.cost += int64(e.Cost)
		a.firstMS, a.lastMS = min(a.firstMS, e.Millis), max(a.lastMS, e.Millis)
	}
	if oneByOne {
		insert := tx.Stmt(s.insert)
		for i := range batch {
			e := &batch[i].entry
			res, err := insert.Exec(insertArgs(nil, e, string(e.Result))...)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 1 {
				add(&batch[i])
			}
		}
	} else {
		if err := s.insertRows(tx, batch); err != nil {
			return err
		}
		for i := range batch {
			add(&batch[i])
		}
	}
	upsert := tx.Stmt(s.upsert)
	for k, a := range aggs {
		if _, err := upsert.Exec(k.account, k.storage, string(k.product), a.count, a.cost, a.firstMS, a.lastMS); err != nil {
			return err
		}
	}
	if err := tallies.write(tx.Stmt(s.tally)); err != nil {
		return err
	}
	last := batch[len(batch)-1]
	if _, err := tx.Stmt(s.position).Exec(int64(last.segment), last.end); err != nil {
		return err
	}
	if s.opts.beforeCommit != nil {
		ids := make([]string, len(batch))
		for i := range batch {
			ids[i] = batch[i].entry.ID
		}
		if err := s.opts.beforeCommit(ids); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// insertChunk is the most rows one INSERT statement of insertRows takes
// (insertColumns parameters each, far below SQLite's limit of 32,766).
const insertChunk = 64

// errDuplicateInBatch fails a transaction that met an id already in the
// database; indexBatch then commits the batch one result at a time.
var errDuplicateInBatch = errors.New("a result id of the batch is already in the database")

// insertRows inserts batch with INSERT statements of up to insertChunk
// rows each: one statement per chunk instead of one per result, which
// saves the statement's execution overhead per row. A chunk that inserts
// fewer rows than it has met an id already recorded: errDuplicateInBatch.
func (s *Store) insertRows(tx *sql.Tx, batch []logged) error {
	for start := 0; start < len(batch); start += insertChunk {
		chunk := batch[start:min(start+insertChunk, len(batch))]
		stmt := s.inserts[len(chunk)] // prepared by indexTx
		args := s.args[:0]
		for i := range chunk {
			e := &chunk[i].entry
			// The body as a string without copying it: e.Result is a part
			// of its group's log buffer (logGroup) or of a segment read at
			// Open (readSegment), which nothing modifies, and the driver
			// copies the text it binds.
			body := unsafe.String(unsafe.SliceData(e.Result), len(e.Result))
			args = insertArgs(args, e, body)
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
		// A transaction takes milliseconds of CPU, and Go would let it
		// hold its processor for up to 10 ms before the lookups queued
		// behind it run: let them run between statements.
		runtime.Gosched()
	}
	return nil
}

// insertStmt returns the indexer's INSERT statement of n rows, prepared
// on first use, outside a transaction (which holds the indexer's one
// connection). Only the indexer goroutine (and Open, before it starts)
// calls it.
func (s *Store) insertStmt(n int) (*sql.Stmt, error) {
	if n == 0 {
		return nil, nil
	}
	if st := s.inserts[n]; st != nil {
		return st, nil
	}
	q := insertSQL + " VALUES " + insertRow + strings.Repeat(", "+insertRow, n-1) + insertConflict
	st, err := s.wdb.Prepare(q)
	if err != nil {
		return nil, err
	}
	s.inserts[n] = st
	return st, nil
}
