package numbering

import (
	"sync/atomic"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// places are geocoding's descriptions, by value of the Geocoding table,
// read from the section's string pool a chunk at a time on first use. A
// lookup returns a one-element slice of a description, which must live
// somewhere: decoding all 38,000 at load made 600 KB of string headers and
// paged in the section's string ids, for a program that answers one
// number.
type places struct {
	ids    []byte // uint32 string of the pool per value
	pool   stringPool
	n      int                                      // values
	chunks []atomic.Pointer[[placesPerChunk]string] // nil until first used
}

const placesPerChunk = 64

func newPlaces(ids []byte, pool stringPool, n int) places {
	return places{ids: ids, pool: pool, n: n, chunks: make([]atomic.Pointer[[placesPerChunk]string], (n+placesPerChunk-1)/placesPerChunk)}
}

// get returns the description of value v (0 <= v < n) as a one-element
// slice, shared: the caller must not modify it. It allocates only the
// first time a chunk is used.
func (ps *places) get(v int) []string {
	c := ps.chunks[v/placesPerChunk].Load()
	if c == nil {
		c = ps.fill(v / placesPerChunk)
	}
	i := v % placesPerChunk
	return c[i : i+1 : i+1]
}

// fill decodes chunk k; of goroutines filling it at once, one's stays.
func (ps *places) fill(k int) *[placesPerChunk]string {
	c := new([placesPerChunk]string)
	for i := range c {
		v := k*placesPerChunk + i
		if v >= ps.n {
			break
		}
		c[i] = ps.pool.get(planfmt.U32(ps.ids, 4*v))
	}
	if ps.chunks[k].CompareAndSwap(nil, c) {
		return c
	}
	return ps.chunks[k].Load()
}
