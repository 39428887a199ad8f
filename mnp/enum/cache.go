package enum

import (
	"sync"
	"time"
)

// cache keeps records by number (E.164 digits) until their TTL ends,
// bounded in entries. When full, an insert first drops expired entries
// (looking at a few), else an arbitrary one: answers are cheap to ask
// again, and a bounded map is what matters.
type cache struct {
	maxTTL time.Duration
	max    int
	mu     sync.RWMutex
	m      map[string]cacheEntry
}

type cacheEntry struct {
	expires int64 // Unix nanoseconds
	record  record
}

func newCache(entries int, maxTTL time.Duration) *cache {
	return &cache{maxTTL: maxTTL, max: entries, m: make(map[string]cacheEntry, min(entries, 1024))}
}

// get returns the record of digits when it has not expired at now. It
// allocates nothing.
func (c *cache) get(digits []byte, now time.Time) (record, bool) {
	c.mu.RLock()
	e, ok := c.m[string(digits)]
	c.mu.RUnlock()
	if !ok || now.UnixNano() >= e.expires {
		return record{}, false
	}
	return e.record, true
}

// put keeps r for ttl, at most the cache's maximum.
func (c *cache) put(digits string, r record, now time.Time, ttl time.Duration) {
	ttl = min(ttl, c.maxTTL)
	if ttl <= 0 {
		return
	}
	e := cacheEntry{expires: now.Add(ttl).UnixNano(), record: r}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[digits]; !ok && len(c.m) >= c.max {
		nowNano, seen, dropped := now.UnixNano(), 0, false
		for k, old := range c.m {
			if old.expires <= nowNano {
				delete(c.m, k)
				dropped = true
			}
			if seen++; seen >= 32 {
				break
			}
		}
		if !dropped {
			for k := range c.m {
				delete(c.m, k)
				break
			}
		}
	}
	c.m[digits] = e
}

// len returns the number of entries, expired ones included.
func (c *cache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}
