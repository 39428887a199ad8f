package sqlitestore_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store/sqlitestore"
)

// records is a slog handler that keeps the messages logged.
type records struct {
	mu   sync.Mutex
	msgs []string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Level.String()+" "+rec.Message)
	return nil
}

// TestIndexerFailureLoggedOnce: an indexer transaction that fails the
// same way at every retry is logged once, not at every retry, and its
// recovery once.
func TestIndexerFailureLoggedOnce(t *testing.T) {
	t.Parallel()
	attempts := make(chan bool) // the indexer's transactions, before COMMIT: fail?
	logs := &records{}
	s := open(t, t.TempDir(), sqlitestore.WithLogger(slog.New(logs)), sqlitestore.WithIndexDelay(0),
		sqlitestore.WithIndexRetry(time.Millisecond),
		sqlitestore.WithBeforeCommit(func([]string) error {
			if <-attempts {
				return errors.New("injected failure")
			}
			return nil
		}))
	ctx := t.Context()
	require.NoError(t, s.Record(ctx, record("logged000001", 0)))
	for range 5 {
		attempts <- true
	}
	attempts <- false
	require.NoError(t, s.Close()) // once the indexer has committed
	logs.mu.Lock()
	defer logs.mu.Unlock()
	require.Equal(t, []string{
		"ERROR the indexer failed; it tries again (the results are safe in the log)",
		"INFO the indexer commits again",
	}, logs.msgs)
}
