package auth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// MessageSignatureUsed is the message of a digest signature presented again within its window:
// the error of [ReasonReplayedSignature], which a server answers with 401.
const MessageSignatureUsed = "signature already used"

// ReplayGuard remembers the digest signatures a server accepted, so that each is accepted once:
// a request captured on the way and sent again within the timestamp's window is refused
// instead of being served (and charged) a second time. A server asks it after the signature
// has been verified, so that forged signatures never fill its memory.
//
// [ReplayMemory] keeps them in the process (one server); a store shared by several servers
// (engine/store/pgstore) implements it over its database, so that a request replayed to
// another node is refused too.
type ReplayGuard interface {
	// ClaimSignature records that the account key sent a request with timestamp ts (Unix
	// seconds) and signature sig, at the server's time now. It returns nil the first time,
	// an [*Error] with [ReasonReplayedSignature] when the same key, timestamp and signature
	// were claimed before, a [*ReplayMemoryFullError] when the key's memory is full of
	// signatures still within their window, or another error when the memory cannot be
	// reached (the server should then refuse the request: 503).
	ClaimSignature(ctx context.Context, key string, ts int64, sig [32]byte, now time.Time) error
}

// ReplayMemoryFullError refuses a request whose signature cannot be remembered: its API key
// has as many signatures within their window as the memory keeps for one key. Forgetting one
// still within its window would let it be replayed, so the request is refused instead (a
// server answers 429 with Retry-After) until the oldest expire.
type ReplayMemoryFullError struct {
	Key string
	// Limit is the memory's bound per key.
	Limit int
	// RetryAfter is when the oldest remembered signature expires.
	RetryAfter time.Duration
}

func (e *ReplayMemoryFullError) Error() string {
	return fmt.Sprintf("too many signed requests for this API key within the digest timestamp's window "+
		"(%d are remembered against replays); retry after %d s", e.Limit, int(e.RetryAfter/time.Second))
}

// ReplayedSignature returns the error of a signature claimed again: an [*Error] with
// [ReasonReplayedSignature] and the message [MessageSignatureUsed].
func ReplayedSignature(key string) error {
	return &Error{Reason: ReasonReplayedSignature, Method: MethodDigest, Header: HeaderDigestSignature, Key: key, msg: MessageSignatureUsed}
}

// DefaultReplayLimit is the number of signatures a [ReplayMemory] keeps per API key: a key
// may send about 1,600 signed requests per second, sustained, within a 30 s window either
// side (61 seconds of timestamps); beyond, requests are refused until the oldest expire.
const DefaultReplayLimit = 100_000

// ReplayMemory is a [ReplayGuard] in the process's memory: per API key, the signatures of
// each timestamp second, dropped once that second is out of the window. Its memory is
// bounded: at most limit signatures per key (16 bytes each, of the 32 of an HMAC-SHA256,
// plus the map's overhead), and past that [ReplayMemoryFullError]. It is safe for
// concurrent use; keys do not wait for each other.
//
// It forgets everything when the process ends: a server restarted within the window accepts
// once more a signature it accepted before the restart, until its timestamp leaves the
// window (at most 2 × window after it was signed). Servers that must not, and every cluster,
// keep the memory in a shared database instead.
type ReplayMemory struct {
	window int64 // seconds: a signature of timestamp ts is valid until now > ts+window
	limit  int
	keys   sync.Map // key → *keyReplays
}

type keyReplays struct {
	mu      sync.Mutex
	n       int
	seconds map[int64]map[[16]byte]struct{} // timestamp → signatures
	swept   int64                           // the last second swept
}

// NewReplayMemory returns a memory of the signatures of timestamps within window of now
// (a [Verifier]'s MaxSkew), at most limit per key (DefaultReplayLimit when limit <= 0).
func NewReplayMemory(window time.Duration, limit int) *ReplayMemory {
	if limit <= 0 {
		limit = DefaultReplayLimit
	}
	return &ReplayMemory{window: int64(window / time.Second), limit: limit}
}

// ClaimSignature implements [ReplayGuard].
func (m *ReplayMemory) ClaimSignature(_ context.Context, key string, ts int64, sig [32]byte, now time.Time) error {
	v, ok := m.keys.Load(key)
	if !ok {
		v, _ = m.keys.LoadOrStore(key, &keyReplays{seconds: map[int64]map[[16]byte]struct{}{}})
	}
	k := v.(*keyReplays)
	unix := now.Unix()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.swept != unix {
		// Timestamps are accepted within ±window of now: a second further back than that
		// can never be presented again. At most 2·window+1 seconds are held.
		for s, sigs := range k.seconds {
			if s < unix-m.window {
				k.n -= len(sigs)
				delete(k.seconds, s)
			}
		}
		k.swept = unix
	}
	short := [16]byte(sig[:16])
	sigs := k.seconds[ts]
	if _, seen := sigs[short]; seen {
		return ReplayedSignature(key)
	}
	if k.n >= m.limit {
		oldest := ts
		for s := range k.seconds {
			oldest = min(oldest, s)
		}
		return &ReplayMemoryFullError{Key: key, Limit: m.limit, RetryAfter: time.Duration(max(1, oldest+m.window+1-unix)) * time.Second}
	}
	if sigs == nil {
		sigs = map[[16]byte]struct{}{}
		k.seconds[ts] = sigs
	}
	sigs[short] = struct{}{}
	k.n++
	return nil
}

// IsReplayed reports whether err refuses a signature presented again.
func IsReplayed(err error) bool {
	var ae *Error
	return errors.As(err, &ae) && ae.Reason == ReasonReplayedSignature
}
