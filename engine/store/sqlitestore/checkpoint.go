package sqlitestore

import (
	"database/sql"
	"sync/atomic"
	"time"
)

// Checkpointing copies the pages of committed transactions from the WAL
// into the database file, so that the WAL can start again from its
// beginning instead of growing. SQLite's default runs a checkpoint inside
// the COMMIT that takes the WAL past 1,000 pages, which stalls the
// committing connection for the copy and two fsyncs. Here the indexer's
// connection never checkpoints (wal_autocheckpoint=0); the checkpointer
// goroutine does, on a connection of its own, while the indexer goes on
// committing:
//
//   - after commits, at most every checkpointPause, a PASSIVE checkpoint:
//     it copies what no reader still needs and never waits for a lock;
//   - when the WAL has grown past restartFrames anyway (a checkpoint that
//     ends while new commits arrive leaves the WAL where it is, and under
//     steady load that is every checkpoint), a RESTART checkpoint: it
//     waits for the indexer and readers to be done with the WAL, so that
//     the next commit writes the WAL from its beginning (and
//     journal_size_limit truncates it). The indexer waits for it; it has
//     little left to copy after the PASSIVE ones.
const (
	checkpointPause = 100 * time.Millisecond
	restartFrames   = 8192 // 32 MiB of 4 KiB pages (options.restartFrames)
)

// checkpointer is the goroutine that checkpoints (see checkpointPause),
// with its state.
type checkpointer struct {
	db            *sql.DB // one connection, the checkpointer's
	health        *health
	wake          <-chan struct{} // the indexer committed
	stop          chan struct{}   // closed by Close: the checkpointer and the pruner return
	done          chan struct{}   // closed when the checkpointer has returned
	restartFrames int64
	verifying     *atomic.Bool // the pruner's quick_check runs
	checkpointed  atomic.Int64 // frames checkpointed, for tests
	after         func()       // a test's hook after each pass (WithAfterCheckpoint)
}

func (c *checkpointer) init(s *Store, o options) {
	c.health, c.wake, c.restartFrames, c.verifying = &s.health, s.idx.committed, o.restartFrames, &s.pr.verifying
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	c.after = o.afterCkpt
}

func (c *checkpointer) run() {
	defer close(c.done)
	pause := time.NewTimer(checkpointPause)
	pause.Stop()
	defer pause.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-c.wake:
		}
		frames := c.checkpoint("PASSIVE")
		// A RESTART waits for every reader, the pruner's quick_check too,
		// and blocks the indexer meanwhile: not while one runs.
		if frames >= c.restartFrames && !c.verifying.Load() {
			c.checkpoint("RESTART")
		}
		if c.after != nil {
			c.after()
		}
		pause.Reset(checkpointPause)
		select {
		case <-c.stop:
			return
		case <-pause.C:
		}
	}
}

// checkpoint runs PRAGMA wal_checkpoint(mode) and returns the WAL's
// size in frames. Errors are not the store's failure: SQLITE_BUSY means
// another connection checkpoints, and the next checkpoint tries again;
// the WAL then only grows for a while.
func (c *checkpointer) checkpoint(mode string) (frames int64) {
	var busy, done int64
	// The mode is one of ours; PRAGMA takes no parameters.
	if err := c.db.QueryRow("PRAGMA wal_checkpoint("+mode+")").Scan(&busy, &frames, &done); err != nil {
		c.health.readFailed(err)
		return 0
	}
	if done > 0 {
		c.checkpointed.Add(done)
	}
	return frames
}
