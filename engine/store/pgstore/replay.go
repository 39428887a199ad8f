package pgstore

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/numenhq/numen/engine/auth"
)

// ReplayGuard returns the digest signatures' memory of every node sharing
// the database (an auth.ReplayGuard): a signature claimed on one node is
// refused on all, as long as its timestamp is within window of now (the
// servers' digest window, 30 s by default). Each claim is one INSERT of a
// row (timestamp, API key, signature) that conflicts with an earlier one;
// rows whose timestamp left the window are deleted, by each node at most
// every sweepInterval, in the request that finds it due. So the table holds
// the signed POSTs of the cluster's last window and a few seconds, and
// nodes, restarts included, never forget a signature still valid. It has no
// bound per key of its own: the table is on disk, and the accounts' rate
// limits bound what they send.
func (s *Store) ReplayGuard(window time.Duration) auth.ReplayGuard {
	return &replayGuard{s: s, window: int64(window / time.Second)}
}

// sweepInterval is the least time between two deletions of expired
// signatures by one node.
const sweepInterval = 5 * time.Second

type replayGuard struct {
	s      *Store
	window int64
	swept  atomic.Int64 // Unix seconds of the last deletion
}

func (g *replayGuard) ClaimSignature(ctx context.Context, key string, ts int64, sig [32]byte, now time.Time) error {
	if err := g.s.checkOpen(); err != nil {
		return err
	}
	unix := now.Unix()
	if last := g.swept.Load(); unix-last >= int64(sweepInterval/time.Second) && g.swept.CompareAndSwap(last, unix) {
		if _, err := g.s.pool.Exec(ctx, `DELETE FROM digest_signatures WHERE ts < $1`, unix-g.window); err != nil {
			return fmt.Errorf("pgstore: deleting expired digest signatures in %s: %w", g.s.name, err)
		}
	}
	tag, err := g.s.pool.Exec(ctx, `INSERT INTO digest_signatures (ts, account, signature) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, ts, key, sig[:])
	if err != nil {
		return fmt.Errorf("pgstore: claiming a digest signature in %s: %w", g.s.name, err)
	}
	if tag.RowsAffected() == 0 {
		return auth.ReplayedSignature(key)
	}
	return nil
}
