package pgstore

import (
	"context"
	"time"
)

// SetIndexDelay sets how long the indexer of the stores a test opens after
// it waits after a commit before it indexes: an hour keeps every result
// pending.
func SetIndexDelay(t interface{ Cleanup(func()) }, d time.Duration) {
	old := indexDelay
	indexDelay = d
	t.Cleanup(func() { indexDelay = old })
}

// IndexAll indexes every pending result that no other indexer holds, and
// returns how many it indexed.
func (s *Store) IndexAll(ctx context.Context) (int64, error) { return indexAll(ctx, s.pool) }

// SetIndexRetry sets the indexer's pause after a failed transaction, for
// the stores a test opens after it.
func SetIndexRetry(t interface{ Cleanup(func()) }, d time.Duration) {
	old := indexRetry
	indexRetry = d
	t.Cleanup(func() { indexRetry = old })
}
