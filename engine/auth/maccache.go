package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"sync"
	"sync/atomic"
)

// maxCachedSecrets bounds the secrets a macCache keeps keyed HMACs for.
// Credentials may change (a rotated secret is never asked for again), so
// past the bound a secret's HMAC is keyed afresh for each request instead.
const maxCachedSecrets = 4096

// macCache keeps, per secret, HMAC-SHA256 states that have absorbed the
// key: a verification then resets one (a copy of the keyed state) instead
// of allocating a new HMAC and hashing the key's two blocks again. The
// zero value is ready to use and safe for concurrent use.
type macCache struct {
	pools sync.Map // secret string → *sync.Pool of hash.Hash
	n     atomic.Int64
}

// sum appends HMAC-SHA256(secret, prefix + body) to dst: digestMAC's
// result.
func (c *macCache) sum(dst []byte, secret string, prefix, body []byte) []byte {
	pool := c.pool(secret)
	if pool == nil {
		return digestMAC(dst, []byte(secret), prefix, body)
	}
	mac := pool.Get().(hash.Hash)
	writeAll(mac, prefix, body)
	dst = mac.Sum(dst)
	mac.Reset()
	pool.Put(mac)
	return dst
}

// pool returns secret's pool, or nil when the cache is full.
func (c *macCache) pool(secret string) *sync.Pool {
	if p, ok := c.pools.Load(secret); ok {
		return p.(*sync.Pool)
	}
	if c.n.Add(1) > maxCachedSecrets { // a place for it, if one is left
		c.n.Add(-1)
		return nil
	}
	key := []byte(secret)
	p, loaded := c.pools.LoadOrStore(secret, &sync.Pool{New: func() any { return hmac.New(sha256.New, key) }})
	if loaded {
		c.n.Add(-1)
	}
	return p.(*sync.Pool)
}
