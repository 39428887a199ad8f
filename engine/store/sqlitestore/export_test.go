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
