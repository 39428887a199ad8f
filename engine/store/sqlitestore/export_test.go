package sqlitestore

import (
	"os"
	"time"
)

// WithBeforeCommit runs f in each transaction of the indexer, after its
// inserts and before COMMIT, with the ids it appends; an error from f fails
// the transaction as a failed COMMIT would.
func WithBeforeCommit(f func(ids []string) error) Option {
	return func(o *options) { o.beforeCommit = f }
}

// Queued returns the number of results waiting for the writer.
func Queued(s *Store) int { return s.Writer.Queued() }

// WithOnQueued calls f after each result is queued for the writer, with
// the number then waiting.
func WithOnQueued(f func(queued int)) Option {
	return func(o *options) { o.onQueued = f }
}

// WithOnClosing calls f when Close has stopped taking results, before it
// waits for those queued.
func WithOnClosing(f func()) Option {
	return func(o *options) { o.onClosing = f }
}

// WithAfterIndex calls f after each of the indexer's transactions, once
// its outcome (err, nil when it committed) is what Ping and the reads see.
func WithAfterIndex(f func(err error)) Option {
	return func(o *options) { o.afterIndex = f }
}

// WithAfterCheckpoint calls f after each pass of the checkpointer.
func WithAfterCheckpoint(f func()) Option {
	return func(o *options) { o.afterCkpt = f }
}

// WithAfterPrune calls f after each pass of the background pruner.
func WithAfterPrune(f func()) Option {
	return func(o *options) { o.afterPrune = f }
}

// SchemaVersion is the schema version of this build.
var SchemaVersion = schemaVersion

// WithSync replaces the writer's flush of the results log with f.
func WithSync(f func() error) Option {
	return func(o *options) { o.sync = f }
}

// WithRestartFrames sets the WAL size in frames past which the
// checkpointer restarts the WAL.
func WithRestartFrames(n int64) Option {
	return func(o *options) { o.restartFrames = n }
}

// Checkpointed returns the number of WAL frames the checkpointer has
// copied into the database.
func Checkpointed(s *Store) int64 { return s.cp.checkpointed.Load() }

// Unindexed returns the number of results in the log that are not in the
// database yet.
func Unindexed(s *Store) int {
	s.idx.mu.Lock()
	defer s.idx.mu.Unlock()
	return len(s.idx.unindexed)
}

// WithSegmentSize sets the size of a segment of the results log.
func WithSegmentSize(n int64) Option {
	return func(o *options) { o.segmentSize = n }
}

// WithIndexRetry sets the pause before the indexer tries a failed
// transaction again.
func WithIndexRetry(d time.Duration) Option {
	return func(o *options) { o.indexRetry = d }
}

// GroupTarget returns how many results the writer's next group waits for.
func GroupTarget(s *Store) int64 { return s.Writer.Target() }

// SetIdleCheck sets how often the queue's idle check runs, for a test.
func SetIdleCheck(t interface{ Cleanup(func()) }, d time.Duration) {
	old := idleCheck
	idleCheck = d
	t.Cleanup(func() { idleCheck = old })
}

// QueueWorking reports whether the working River client runs.
func (s *Store) QueueWorking() bool { return s.Switch().Running() }

// WithoutLog commits each group of results straight to the database,
// flushing its WAL, instead of appending it to the results log: what a
// store without the log would do (synchronous=FULL), for BenchmarkRecord
// to show what the log earns.
func WithoutLog() Option {
	return func(o *options) {
		o.commit = func(s *Store) func([]*pending) {
			return func(batch []*pending) {
				err := s.health.isDamaged()
				if err == nil && s.logw.refuseDuplicates(batch) == len(batch) {
					return
				}
				if err == nil {
					err = commitDirect(s, batch)
				}
				for _, p := range batch {
					if p.err == nil {
						p.done <- err
					}
				}
			}
		}
	}
}

// commitDirect commits a group to the database and flushes its WAL.
func commitDirect(s *Store, batch []*pending) error {
	items := make([]logged, 0, len(batch))
	for _, p := range batch {
		if p.err == nil {
			items = append(items, logged{entry: p.entry})
		}
	}
	if err := s.idx.commit(items); err != nil {
		return err
	}
	f, err := os.Open(s.path + "-wal")
	if err != nil {
		return err
	}
	defer f.Close()
	return datasync(f)
}

// WithPruneEvery sets how often the pruner looks for segments to delete.
func WithPruneEvery(d time.Duration) Option {
	return func(o *options) { o.pruneEvery = d }
}

// Prune runs the pruner's work once, now.
func Prune(s *Store) { s.pr.prune(time.Now()) }

// CheckpointNow copies the whole WAL into the database file and truncates
// it.
func CheckpointNow(s *Store) { s.cp.checkpoint("TRUNCATE") }
