package httpapi

import (
	"time"

	"github.com/numenhq/numen/engine/account"
	"golang.org/x/time/rate"
)

// allow takes a token from the account's rate limiter (golang.org/x/time/rate,
// one per API key, made at its first request: RateLimit tokens a second, at
// most RateBurst saved up, on the handler's clock); when there is none it
// returns how long until there is one.
func (h *Handler) allow(a *account.Account) (time.Duration, bool) {
	if a.RateLimit <= 0 {
		return 0, true
	}
	v, ok := h.limits.Load(a.Key)
	if !ok {
		v, _ = h.limits.LoadOrStore(a.Key, rate.NewLimiter(rate.Limit(a.RateLimit), max(a.RateBurst, 1)))
	}
	l := v.(*rate.Limiter)
	now := h.cfg.Clock()
	r := l.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now) // not taken: the request is refused
		return d, false
	}
	return 0, true
}
