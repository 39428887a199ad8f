package httpapi

import (
	"math"
	"sync"
	"time"
)

// bucket is a token bucket: rate tokens a second, at most burst saved up.
type bucket struct {
	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// allow takes a token from the account's bucket; when there is none it
// returns how long until there is one.
func (h *Handler) allow(a *Account) (time.Duration, bool) {
	if a.RateLimit <= 0 {
		return 0, true
	}
	burst := float64(max(a.RateBurst, 1))
	v, _ := h.limits.LoadOrStore(a.Key, &bucket{tokens: burst, last: h.cfg.Clock()})
	b := v.(*bucket)
	now := h.cfg.Clock()
	b.mu.Lock()
	defer b.mu.Unlock()
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(burst, b.tokens+elapsed*a.RateLimit)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	return time.Duration((1 - b.tokens) / a.RateLimit * float64(time.Second)), false
}
