package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/numenhq/numen/engine/store/internal/core"
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

// indexer is the goroutine that copies the results of the log into the
// database, with its state: what the log writer hands it, what the
// readers wait for, and the segments the pruner may delete.
type indexer struct {
	path         string
	db           *sql.DB // one connection, the indexer's
	health       *health
	logger       *slog.Logger
	delay, retry time.Duration
	maxUnindexed int
	beforeCommit func(ids []string) error
	afterIndex   func(error) // a test's hook (WithAfterIndex); nil otherwise

	insert, upsert, tally, position *sql.Stmt
	inserts                         [insertChunk + 1]*sql.Stmt // INSERTs of n rows (insertStmt)
	args                            []any                      // their arguments

	work chan struct{} // results were queued
	kick chan struct{} // a read, the writer or Close asks for a commit now
	done chan struct{} // closed when the indexer has exited
	// committed tells the checkpointer that a transaction committed.
	committed chan struct{}
	// logged is the last failure the indexer logged, so that a failure
	// retried every second is logged once.
	loggedErr string

	mu sync.Mutex
	// queue holds the results in the log that the indexer has not taken
	// yet, in log order.
	queue []logged
	// unindexed holds the ids of the results in the log that are not
	// committed in the database yet (queued or being committed).
	unindexed map[string]struct{}
	// maxIndexed is the greatest id in the database.
	maxIndexed string
	// handed counts the results handed to the indexer, indexed those it
	// has committed: a read waits until indexed reaches what handed was
	// when it began (caughtUp).
	handed, indexed int64
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

func (x *indexer) init(s *Store, o options) {
	x.path, x.health, x.logger = s.path, &s.health, o.logger
	x.delay, x.retry, x.maxUnindexed, x.beforeCommit, x.afterIndex = o.indexDelay, o.indexRetry, o.maxUnindexed, o.beforeCommit, o.afterIndex
	x.work, x.kick, x.done = make(chan struct{}, 1), make(chan struct{}, 1), make(chan struct{})
	x.committed = make(chan struct{}, 1)
	x.unindexed, x.progress = make(map[string]struct{}), make(chan struct{})
}

// publish wakes the goroutines waiting on progress. The caller holds mu.
func (x *indexer) publish() {
	close(x.progress)
	x.progress = make(chan struct{})
}

// add hands results that are in the log to the indexer. It is called
// before their Records are answered, so that a read that begins after an
// answer waits for them (caughtUp).
func (x *indexer) add(items []logged) {
	x.mu.Lock()
	for _, it := range items {
		x.unindexed[it.entry.ID] = struct{}{}
	}
	x.queue = append(x.queue, items...)
	x.handed += int64(len(items))
	x.mu.Unlock()
	signal(x.work)
}

// close tells the indexer that no more results come.
func (x *indexer) close() {
	x.mu.Lock()
	x.closing = true
	x.mu.Unlock()
	signal(x.kick)
}

// signal sends on a channel with room for one, without waiting.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// await makes the writer wait while maxUnindexed results wait for the
// indexer. It fails when the indexer is failing meanwhile: the results
// already in the log are safe, but the memory for more is not there.
func (x *indexer) await() error {
	for {
		x.mu.Lock()
		n, progress, err := len(x.unindexed), x.progress, x.err
		x.mu.Unlock()
		if n < x.maxUnindexed {
			return nil
		}
		if err != nil {
			return fmt.Errorf("sqlitestore: %s: %d results wait for the indexer, which fails: %w", x.path, n, err)
		}
		signal(x.kick)
		<-progress
	}
}

// caughtUp waits until the indexer has committed every result handed to
// it before the call: every result whose Record has returned nil is then
// in the database. Reads call it first.
func (x *indexer) caughtUp(ctx context.Context) error {
	x.mu.Lock()
	target := x.handed
	x.mu.Unlock()
	for {
		x.mu.Lock()
		indexed, progress, err := x.indexed, x.progress, x.err
		x.mu.Unlock()
		if indexed >= target {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%d results are in the log but not in the database yet, and the indexer fails: %w", target-indexed, err)
		}
		signal(x.kick)
		select {
		case <-progress:
		case <-ctx.Done():
			return ctx.Err()
		case <-x.done:
			return fmt.Errorf("%w (results in the log go to the database at the next Open)", errIndexerStopped)
		}
	}
}

var errIndexerStopped = errors.New("the indexer has stopped")

// failure returns, for Ping, why the indexer does not commit, or nil.
func (x *indexer) failure() error {
	select {
	case <-x.done:
		return fmt.Errorf("sqlitestore: %s: %w", x.path, errIndexerStopped)
	default:
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		return fmt.Errorf("%w (%d results wait in the log; it tries again)", x.err, len(x.unindexed))
	}
	return nil
}

// lastError returns the error of the indexer's last transaction, if it
// failed.
func (x *indexer) lastError() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.err
}

// run is the indexer goroutine: it waits for results, lets more gather
// for the index delay (unless a read or the writer asks for them, or
// indexBatch are waiting), and commits them, until the writer has stopped
// and everything is committed. A transaction that fails is tried again
// after the retry pause, and the error is reported meanwhile (Ping,
// reads, and the log once per distinct failure); when it still fails at
// Close, its results stay in the log for the next Open.
func (x *indexer) run() {
	defer close(x.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var batch []logged // the indexer's copy of the results it commits
	for {
		select {
		case <-x.work:
		case <-x.kick:
		}
		x.mu.Lock()
		n, closing := len(x.queue), x.closing
		x.mu.Unlock()
		if !closing && n > 0 && n < indexBatch && x.delay > 0 {
			timer.Reset(x.delay)
			select {
			case <-timer.C:
			case <-x.kick:
				timer.Stop()
			}
		}
		for {
			batch, closing = x.take(batch)
			if len(batch) == 0 {
				break
			}
			if !x.commitRetrying(batch, timer) {
				return
			}
			x.published(batch)
			clear(batch)
		}
		if closing {
			return
		}
	}
}

// take copies up to indexBatch queued results into batch, and clears
// them in the queue, so that the queue's array, which append reuses, does
// not keep the results (and their groups' buffers) after they are
// committed.
func (x *indexer) take(batch []logged) ([]logged, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := min(len(x.queue), indexBatch)
	batch = append(batch[:0], x.queue[:n]...)
	clear(x.queue[:n])
	x.queue = x.queue[n:]
	if len(x.queue) == 0 {
		x.queue = nil // let the array go
	}
	return batch, x.closing
}

// commitRetrying commits batch, trying again after each failure until it
// commits (true) or the store closes (false).
func (x *indexer) commitRetrying(batch []logged, timer *time.Timer) bool {
	for {
		err := x.commit(batch)
		if err == nil {
			if x.loggedErr != "" {
				x.logger.Info("the indexer commits again", "path", x.path)
				x.loggedErr = ""
			}
			return true
		}
		err = fmt.Errorf("sqlitestore: index %d results in %s: %w", len(batch), x.path, err)
		if msg := err.Error(); msg != x.loggedErr {
			x.logger.Error("the indexer failed; it tries again (the results are safe in the log)", "error", err, "retry", x.retry)
			x.loggedErr = msg
		}
		x.mu.Lock()
		x.err = err
		closing := x.closing
		x.publish()
		x.mu.Unlock()
		if x.afterIndex != nil {
			x.afterIndex(err)
		}
		if closing {
			return false
		}
		timer.Reset(x.retry)
		select {
		case <-timer.C:
		case <-x.kick:
			timer.Stop()
			// A read or Close asks: try again now (Close only once).
		}
	}
}

// published publishes a committed batch: its ids leave unindexed, readers
// waiting for it go on, and the pruner may delete the segments before its
// last one.
func (x *indexer) published(batch []logged) {
	last := batch[len(batch)-1]
	x.mu.Lock()
	for _, it := range batch {
		delete(x.unindexed, it.entry.ID)
		x.maxIndexed = max(x.maxIndexed, it.entry.ID)
	}
	x.indexed += int64(len(batch))
	x.committedSegment = last.segment
	x.err = nil
	x.publish()
	x.mu.Unlock()
	signal(x.committed)
	if x.afterIndex != nil {
		x.afterIndex(nil)
	}
}

// segments returns the segments the pruner looks at: the first that may
// be in the log directory, and the one of the last committed result.
func (x *indexer) segments() (first, committed uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.firstSegment, x.committedSegment
}

// pruned records that the segments before first are deleted.
func (x *indexer) pruned(first uint64) {
	x.mu.Lock()
	x.firstSegment = first
	x.mu.Unlock()
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
func syncDatabase(path string) error {
	f, err := os.Open(path + "-wal")
	if errors.Is(err, os.ErrNotExist) {
		f, err = os.Open(path)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if err := datasync(f); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// commit commits batch to the database with the log position after
// it. A batch with a result the database has already (which the writer
// refuses, so only a log replayed over a database that has its results)
// is committed again one result at a time, each of those skipped.
func (x *indexer) commit(batch []logged) error {
	if err := x.health.isDamaged(); err != nil {
		return err // its results stay in the log
	}
	err := x.health.readFailed(x.tx(batch, false))
	if errors.Is(err, errDuplicateInBatch) {
		err = x.tx(batch, true)
	}
	return err
}

// tx inserts batch in one transaction, with statements of up to
// insertChunk rows (or one per row, skipping results already there, when
// oneByOne), adds it to its reports, and records the log position after
// its last result.
func (x *indexer) tx(batch []logged, oneByOne bool) (err error) {
	// Statements are prepared before the transaction takes the indexer's
	// one connection.
	if !oneByOne {
		for _, n := range []int{min(len(batch), insertChunk), len(batch) % insertChunk} {
			if _, err := x.insertStmt(n); n > 0 && err != nil {
				return err
			}
		}
	}
	tx, err := x.db.Begin() // BEGIN IMMEDIATE
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	var counts core.Counts
	if oneByOne {
		insert := tx.Stmt(x.insert)
		for i := range batch {
			e := &batch[i].entry
			res, err := insert.Exec(insertArgs(nil, e, string(e.Result))...)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 1 {
				counts.Add(&batch[i].entry)
			}
		}
	} else {
		if err := x.insertRows(tx, batch); err != nil {
			return err
		}
		for i := range batch {
			counts.Add(&batch[i].entry)
		}
	}
	upsert, tally := tx.Stmt(x.upsert), tx.Stmt(x.tally)
	err = counts.Reports(func(k core.ReportKey, r core.ReportRow) error {
		_, err := upsert.Exec(k.Account, k.Storage, string(k.Product), r.Count, r.Cost, r.FirstMS, r.LastMS)
		return err
	})
	if err == nil {
		err = counts.Facets(func(k core.FacetKey, t core.FacetRow) error {
			_, err := tally.Exec(k.Account, k.Storage, k.Field, k.Value, t.Label, t.Count, t.Cost)
			return err
		})
	}
	if err != nil {
		return err
	}
	last := batch[len(batch)-1]
	if _, err := tx.Stmt(x.position).Exec(int64(last.segment), last.end); err != nil {
		return err
	}
	if x.beforeCommit != nil {
		ids := make([]string, len(batch))
		for i := range batch {
			ids[i] = batch[i].entry.ID
		}
		if err := x.beforeCommit(ids); err != nil {
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
func (x *indexer) insertRows(tx *sql.Tx, batch []logged) error {
	for start := 0; start < len(batch); start += insertChunk {
		chunk := batch[start:min(start+insertChunk, len(batch))]
		stmt := x.inserts[len(chunk)] // prepared by indexTx
		args := x.args[:0]
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
		x.args = args
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
func (x *indexer) insertStmt(n int) (*sql.Stmt, error) {
	if n == 0 {
		return nil, nil
	}
	if st := x.inserts[n]; st != nil {
		return st, nil
	}
	q := insertManySQL + " VALUES " + insertRow + strings.Repeat(", "+insertRow, n-1)
	st, err := x.db.Prepare(q)
	if err != nil {
		return nil, err
	}
	x.inserts[n] = st
	return st, nil
}

func (x *indexer) closeStatements() {
	for _, st := range append([]*sql.Stmt{x.insert, x.upsert, x.tally, x.position}, x.inserts[:]...) {
		if st != nil {
			st.Close()
		}
	}
}
