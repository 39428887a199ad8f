package pgstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/numenhq/numen/engine/auth"
)

// ReplayGuard returns the digest signatures' memory of every node sharing
// the database (an auth.ReplayGuard): a signature claimed on one node is
// refused on all, as long as its timestamp is within window of now (the
// servers' digest window, 30 s by default). A claim is a row (timestamp,
// API key, signature) that conflicts with an earlier one. The claims of
// concurrent requests are inserted together, in one statement (claimSQL)
// while the statement before is under way, as the writers commit results:
// under load one commit, and one flush of the server's log, answers many
// requests, not one each. Rows whose timestamp left the window are
// deleted, by each node at most every sweepInterval, in the request that
// finds it due. So the table holds the signed POSTs of the cluster's last
// window and a few seconds, and nodes, restarts included, never forget a
// signature still valid. It has no bound per key of its own: the table is
// on disk, and the accounts' rate limits bound what they send.
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

	// mu guards queue and busy: the claims waiting for a statement, and
	// whether one is under way (its caller inserts what is queued when
	// it returns, until nothing is).
	mu    sync.Mutex
	queue []*claim
	busy  bool
}

// claim is a signature waiting for its statement; done has room for its
// answer.
type claim struct {
	key  string
	ts   int64
	sig  []byte
	done chan error
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
	c := &claim{key: key, ts: ts, sig: sig[:], done: make(chan error, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, c)
	if !g.busy {
		// No statement under way: this caller inserts the queue, its
		// own claim with it; then a goroutine inserts what queued
		// meanwhile, until nothing is, so that this request waits for
		// no other's.
		g.busy = true
		g.insertQueued()
		go func() {
			g.mu.Lock()
			for len(g.queue) > 0 {
				g.insertQueued()
			}
			g.busy = false
			g.mu.Unlock()
		}()
	}
	g.mu.Unlock()
	select {
	case err := <-c.done:
		return err
	case <-ctx.Done():
		return ctx.Err() // possibly claimed: the request is refused anyway
	}
}

// insertQueued inserts the claims queued (claimSQL) and answers each. It
// is called with mu held, and holds it again when it returns.
func (g *replayGuard) insertQueued() {
	batch := g.queue
	g.queue = nil
	g.mu.Unlock()
	defer g.mu.Lock()
	// In the order of their rows: two statements (of two nodes) that
	// insert some of the same rows wait for each other in that order,
	// never in a cycle. A signature twice in the batch: the later ones
	// are replays.
	slices.SortStableFunc(batch, func(a, b *claim) int {
		return cmp.Or(cmp.Compare(a.ts, b.ts), strings.Compare(a.key, b.key), strings.Compare(string(a.sig), string(b.sig)))
	})
	var (
		fresh []*claim
		tss   []int64
		keys  []string
		sigs  [][]byte
	)
	for i, c := range batch {
		if i > 0 && c.ts == batch[i-1].ts && c.key == batch[i-1].key && string(c.sig) == string(batch[i-1].sig) {
			c.done <- auth.ReplayedSignature(c.key)
			continue
		}
		fresh = append(fresh, c)
		tss, keys, sigs = append(tss, c.ts), append(keys, c.key), append(sigs, c.sig)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	claimed, err := g.insert(ctx, tss, keys, sigs)
	for i, c := range fresh {
		switch {
		case err != nil:
			c.done <- fmt.Errorf("pgstore: claiming a digest signature in %s: %w", g.s.name, err)
		case !claimed[i]:
			c.done <- auth.ReplayedSignature(c.key)
		default:
			c.done <- nil
		}
	}
}

// claimSQL inserts claims ($1 timestamps, $2 keys, $3 signatures, each
// once, in the order the writer sorted them by), in one statement
// committed on its own, and returns those it inserted: the others were
// claimed before.
const claimSQL = `
INSERT INTO digest_signatures (ts, account, signature)
SELECT ts, account, signature FROM unnest($1::bigint[], $2::text[], $3::bytea[]) WITH ORDINALITY AS c (ts, account, signature, i)
ORDER BY i
ON CONFLICT DO NOTHING
RETURNING ts, account, signature`

// claimKey is a claim's row.
type claimKey struct {
	ts       int64
	key, sig string
}

// insert runs claimSQL and reports which claims it inserted.
func (g *replayGuard) insert(ctx context.Context, tss []int64, keys []string, sigs [][]byte) ([]bool, error) {
	rows, err := g.s.pool.Query(ctx, claimSQL, tss, keys, sigs)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	inserted := make(map[claimKey]bool, len(tss))
	for rows.Next() {
		var k claimKey
		var sig []byte
		if err := rows.Scan(&k.ts, &k.key, &sig); err != nil {
			return nil, err
		}
		k.sig = string(sig)
		inserted[k] = true
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	claimed := make([]bool, len(tss))
	for i := range tss {
		claimed[i] = inserted[claimKey{tss[i], keys[i], string(sigs[i])}]
	}
	return claimed, nil
}
