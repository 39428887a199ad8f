package engine

import (
	"errors"
	"sync"
	"time"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/routing"
)

// CacheOptions configure the result cache. HLR answers go stale within
// hours (handsets switch off, roam), portability answers within days.
type CacheOptions struct {
	// HLR and MNP are the lifetimes of cached answers; zero disables
	// caching of that product.
	HLR, MNP time.Duration
	// MaxEntries bounds the cache; default 100,000. When full, the oldest
	// entries go first.
	MaxEntries int
}

// cacheKey identifies an answer: per account (accounts do not see each
// other's lookups), product, number and route.
type cacheKey struct {
	account string
	product routing.Product
	number  string
	route   string
}

type cacheEntry struct {
	key     cacheKey
	expires time.Time
	hlr     *apiv2.HLRResult
	mnp     *apiv2.MNPResult
}

// cache is a bounded map of completed answers with a FIFO ring for
// eviction: entries are inserted in time order, so the ring's oldest entry
// is also the first to expire.
type cache struct {
	opts    CacheOptions
	mu      sync.Mutex
	entries map[cacheKey]*cacheEntry
	ring    []*cacheEntry
	next    int
}

func newCache(o CacheOptions) (*cache, error) {
	if o.HLR < 0 || o.MNP < 0 || o.MaxEntries < 0 {
		return nil, errors.New("engine: cache lifetimes and size must not be negative")
	}
	if o.HLR == 0 && o.MNP == 0 {
		return nil, nil
	}
	if o.MaxEntries == 0 {
		o.MaxEntries = 100_000
	}
	return &cache{opts: o, entries: map[cacheKey]*cacheEntry{}, ring: make([]*cacheEntry, o.MaxEntries)}, nil
}

func (c *cache) lifetime(p routing.Product) time.Duration {
	if p == routing.MNP {
		return c.opts.MNP
	}
	return c.opts.HLR
}

func (c *cache) get(k cacheKey, now time.Time) *cacheEntry {
	if c == nil || c.lifetime(k.product) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[k]
	if e == nil || !now.Before(e.expires) {
		return nil
	}
	return e
}

func (c *cache) put(e *cacheEntry, now time.Time) {
	if c == nil || c.lifetime(e.key.product) == 0 {
		return
	}
	e.expires = now.Add(c.lifetime(e.key.product))
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.ring[c.next]; old != nil && c.entries[old.key] == old {
		delete(c.entries, old.key)
	}
	c.ring[c.next] = e
	c.next = (c.next + 1) % len(c.ring)
	c.entries[e.key] = e
}
