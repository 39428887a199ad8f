package enumserver

import (
	"hash/maphash"
	"net/netip"
	"sync"
	"time"
)

// RateLimit limits the UDP answers to each client address with a token
// bucket, as the response rate limiting of Knot and BIND does: an answer
// takes a token, the bucket holds Burst tokens and gains PerSecond tokens
// a second. Over the limit, every Slip-th query is answered truncated (TC
// set, no records: a client that really asked retries over TCP, which is
// not limited, and a spoofed victim gets no amplification) and the others
// are dropped. The zero RateLimit does not limit.
type RateLimit struct {
	// PerSecond is the rate of answers per client address; 0 for no limit.
	PerSecond float64
	// Burst is how many answers a client may get at once (default:
	// PerSecond, at least 1).
	Burst int
	// Slip: 0 for the default, 2 (every second query over the limit is
	// answered truncated, as BIND does); 1 answers every one truncated
	// (Knot's default); a negative value drops them all.
	Slip int
}

// limiterBuckets is the number of buckets: the memory of the limiter is
// fixed (1 MiB: buckets of 64 bytes), whatever the number of clients.
// Addresses share a bucket when their hashes (seeded at random, so that no one can aim at
// another's bucket) collide: with fewer than a few thousand active
// clients that is rare, and it makes the limit stricter, never looser.
const limiterBuckets = 1 << 14

type bucket struct {
	mu     sync.Mutex
	tokens float64
	last   int64 // nanoseconds since the limiter's start
	slip   uint32
	_      [32]byte // keep buckets of two clients off one cache line
}

// limiter is the per-address token buckets.
type limiter struct {
	rate, burst float64
	slip        int
	seed        maphash.Seed
	start       time.Time
	buckets     []bucket
}

func newLimiter(rl RateLimit) *limiter {
	if rl.PerSecond <= 0 {
		return nil
	}
	burst := float64(rl.Burst)
	if rl.Burst <= 0 {
		burst = max(rl.PerSecond, 1)
	}
	slip := rl.Slip
	if slip == 0 {
		slip = 2
	}
	return &limiter{rate: rl.PerSecond, burst: burst, slip: slip, seed: maphash.MakeSeed(), start: time.Now(), buckets: make([]bucket, limiterBuckets)}
}

// verdict is what the limiter says of one query.
type verdict uint8

const (
	allow    verdict = iota
	slipTC           // answer truncated
	dropOver         // drop
)

// take takes a token for addr's answer at now.
func (l *limiter) take(addr netip.Addr, now time.Time) verdict {
	a := addr.Unmap().As16()
	b := &l.buckets[maphash.Bytes(l.seed, a[:])&(limiterBuckets-1)]
	t := now.Sub(l.start).Nanoseconds()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.last == 0 {
		b.tokens = l.burst
	} else if dt := t - b.last; dt > 0 {
		b.tokens = min(l.burst, b.tokens+float64(dt)*l.rate/1e9)
	}
	b.last = max(t, 1)
	if b.tokens >= 1 {
		b.tokens--
		return allow
	}
	if l.slip < 0 {
		return dropOver
	}
	b.slip++
	if b.slip%uint32(l.slip) == 0 {
		return slipTC
	}
	return dropOver
}
