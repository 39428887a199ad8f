package pgstore_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
)

// TestReplayGuardConcurrentClaims: many requests claim signatures at once
// on two nodes, each signature by several of them (on either node, some
// in the same statement): each signature is accepted exactly once, the
// others refused as replays.
func TestReplayGuardConcurrentClaims(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := pgtest.Database(t)
	var guards [2]auth.ReplayGuard
	for i := range guards {
		s, err := pgstore.Open(ctx, dsn)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		guards[i] = s.ReplayGuard(30 * time.Second)
	}
	now := time.Now()
	const callers, signatures, copies = 24, 300, 3
	// Each signature's copies one after the other: callers take them at
	// about the same time, into one statement or two at once.
	jobs := make(chan int, signatures*copies)
	for n := range signatures * copies {
		jobs <- n / copies
	}
	close(jobs)
	var accepted, replayed [signatures]atomic.Int64
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for n := range jobs {
				sig := [32]byte{byte(n), byte(n >> 8)}
				err := guards[(c+n)%2].ClaimSignature(ctx, fmt.Sprintf("key-%d", n%4), now.Unix()+int64(n%3), sig, now)
				switch {
				case err == nil:
					accepted[n].Add(1)
				case auth.IsReplayed(err):
					replayed[n].Add(1)
				default:
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for n := range signatures {
		require.EqualValues(t, 1, accepted[n].Load(), "signature %d accepted once", n)
		require.EqualValues(t, copies-1, replayed[n].Load(), "signature %d refused after", n)
	}
	// And again, later: all refused.
	for n := range signatures {
		sig := [32]byte{byte(n), byte(n >> 8)}
		require.True(t, auth.IsReplayed(guards[n%2].ClaimSignature(ctx, fmt.Sprintf("key-%d", n%4), now.Unix()+int64(n%3), sig, now)))
	}
}
