package sqlitestore

import "time"

// WithBeforeCommit runs f in each transaction of the indexer, after its
// inserts and before COMMIT, with the ids it appends; an error from f fails
// the transaction as a failed COMMIT would.
func WithBeforeCommit(f func(ids []string) error) Option {
	return func(o *options) { o.beforeCommit = f }
}

// Queued returns the number of results waiting for the writer.
func Queued(s *Store) int { return len(s.queue) }

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
func Checkpointed(s *Store) int64 { return s.checkpointed.Load() }

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
func GroupTarget(s *Store) int64 { return s.groupTarget.Load() }

// SetIdleCheck sets how often the queue's idle check runs, for a test.
func SetIdleCheck(t interface{ Cleanup(func()) }, d time.Duration) {
	old := idleCheck
	idleCheck = d
	t.Cleanup(func() { idleCheck = old })
}

// QueueWorking reports whether the working River client runs.
func (s *Store) QueueWorking() bool { return s.q.sw.Running() }

// WithoutLog commits each group of results straight to the database,
// flushing its WAL, instead of appending it to the results log: what a
// store without the log would do, for BenchmarkRecord to compare.
func WithoutLog() Option { return func(o *options) { o.direct = true } }

// WithPruneEvery sets how often the pruner looks for segments to delete.
func WithPruneEvery(d time.Duration) Option {
	return func(o *options) { o.pruneEvery = d }
}

// Prune runs the pruner's work once, now.
func Prune(s *Store) { s.prune(time.Now()) }

// CheckpointNow copies the whole WAL into the database file and truncates
// it.
func CheckpointNow(s *Store) { s.runCheckpoint("TRUNCATE") }
