package sqlitestore

// WithBeforeCommit runs f in each transaction of the writer, after its
// inserts and before COMMIT, with the ids it appends; an error from f fails
// the transaction as a failed COMMIT would.
func WithBeforeCommit(f func(ids []string) error) Option {
	return func(o *options) { o.beforeCommit = f }
}

// Queued returns the number of results waiting for the writer.
func Queued(s *Store) int { return len(s.queue) }

// SchemaVersion is the schema version of this build.
var SchemaVersion = schemaVersion

// WithSync replaces the syncer's fsync of the WAL with f.
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

// Held returns the number of results the writer holds back while a
// committed batch waits for the syncer.
func Held(s *Store) int { return int(s.held.Load()) }
