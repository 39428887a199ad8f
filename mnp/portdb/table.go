package portdb

// table is one sorted array of entries and its sample index, both read in
// place from the file, and a small top index made at open. An entry is
// value<<netBits | network index, and the values are strictly increasing
// (Verify checks it; lookups stay within the arrays whatever they hold).
type table struct {
	keys    []uint64
	samples []uint64 // samples[i] == keys[i<<shift]
	shift   uint8
	// tops[i] == samples[i<<topShift]: small enough (a few kilobytes for
	// 100 million entries) to stay in the first-level cache.
	tops []uint64
	// end is one more than the last entry's value, the bound of the last
	// run of samples and of the last block of entries.
	end uint64
	// Half the width of the first window searched around a guess in a
	// block of entries; sampleWindow in a run of samples.
	keyWindow, sampleWindow int
}

// topShift is log2 of the number of samples per top entry.
const topShift = 8

func newTable(keys, samples []uint64, shift uint8) table {
	t := table{keys: keys, samples: samples, shift: shift,
		keyWindow: window(shift), sampleWindow: window(topShift)}
	t.tops = make([]uint64, (len(samples)+1<<topShift-1)>>topShift)
	for i := range t.tops {
		t.tops[i] = samples[i<<topShift]
	}
	if len(keys) > 0 {
		t.end = keys[len(keys)-1]>>netBits + 1
	}
	return t
}

// window returns the half width of the window searched first around the
// guessed position of a value among 2^shift entries: the standard
// deviation of the position of a random value, sqrt(2^shift)/2, since
// evenly spread numbers, as a set of numbers ported at random is, keep
// closer to the guess than random values. (Wider windows measured slower:
// more instructions per lookup, for answers the fallback finds anyway.)
func window(shift uint8) int {
	return max(4, 1<<(shift/2)/2)
}

// find returns the entry whose value is v.
//
// Three steps narrow the search, each guessing v's position by
// interpolation between two known values and correcting the guess: the
// top index (binary search, in the processor's first-level cache) gives
// a run of samples, the samples (1/2^shift of the table, in the
// second-level cache) a block of entries, and the block the entry. The
// values of a set of random numbers are close to evenly spread between
// two samples, so the guesses land within a few entries of the answer:
// for a table far larger than the caches, the lookup costs about one
// cache miss in the entries.
func (t *table) find(v uint64) (uint64, bool) {
	tops, samples, keys := t.tops, t.samples, t.keys
	probe := v<<netBits | netMask
	if len(tops) == 0 || tops[0] > probe {
		return 0, false
	}
	// The last top entry <= v, by binary search without branches (the
	// compiler makes a branch of an if, mispredicted half the time).
	top, n := 0, len(tops)
	for n > 1 {
		half := n >> 1
		le := int(int64(tops[top+half]>>netBits-v-1) >> 63) // -1 when <= v; values < 2^50
		top += half & le
		n -= half
	}
	lo := top << topShift
	hi := min(lo+1<<topShift, len(samples))
	next := t.end // the value just after [lo, hi)
	if top+1 < len(tops) {
		next = tops[top+1] >> netBits
	}
	base := lastLE(samples, lo, hi, v, tops[top]>>netBits, next, t.sampleWindow)
	if base < lo {
		return 0, false // only when the samples and the top index disagree
	}
	lo = base << t.shift
	hi = min(lo+1<<t.shift, len(keys))
	if lo >= hi {
		return 0, false // only when the counts and samples disagree
	}
	next = t.end
	if base+1 < len(samples) {
		next = samples[base+1] >> netBits
	}
	i := lastLE(keys, lo, hi, v, samples[base]>>netBits, next, t.keyWindow)
	if i >= lo && keys[i]>>netBits == v {
		return keys[i], true
	}
	return 0, false
}

// lastLE returns the last index in [lo, hi) whose value is <= v, lo-1 when
// there is none. first is the value of keys[lo] and next a value above
// keys[hi-1] (the next sample's, or table.end), both known from the level
// above without a memory access: they place the first guess, and the
// answer is looked for in the w entries either side of it first.
func lastLE(keys []uint64, lo, hi int, v, first, next uint64, w int) int {
	if v < first {
		return lo - 1
	}
	g := hi - 1
	if next > first && v < next {
		// (v-first) < 2^50 and hi-lo <= 2^maxShift: the product fits.
		g = lo + int((v-first)*uint64(hi-lo)/(next-first))
	}
	// Count the window's entries <= v. The loads do not depend on each
	// other, so the cache misses of the window's few lines overlap: about
	// the cost of one.
	a, c := max(g-w, lo), min(g+w, hi)
	above := uint64(0) // entries > v; without a branch, which would
	// stall on each load it depends on
	for _, k := range keys[a:c] {
		above += (v - k>>netBits) >> 63 // values < 2^50: no overflow
	}
	count := c - a - int(above)
	switch {
	case count == 0 && a > lo: // all > v: gallop down
		prev := a // keys[prev] > v
		for step := w; ; step <<= 1 {
			i := prev - step
			if i < lo {
				return upperBound(keys, lo, prev, v) - 1
			}
			if keys[i]>>netBits <= v {
				return upperBound(keys, i+1, prev, v) - 1
			}
			prev = i
		}
	case count == c-a && c < hi: // all <= v: gallop up
		prev := c - 1 // keys[prev] <= v
		for step := w; ; step <<= 1 {
			i := prev + step
			if i >= hi {
				return upperBound(keys, prev+1, hi, v) - 1
			}
			if keys[i]>>netBits > v {
				return upperBound(keys, prev+1, i, v) - 1
			}
			prev = i
		}
	default:
		return a + count - 1
	}
}

// upperBound returns the first index in [lo, hi) whose value is > v, or hi.
func upperBound(keys []uint64, lo, hi int, v uint64) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keys[m]>>netBits <= v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// filter is a one-hash Bloom filter over the values of a table, in
// memory: 16 bits per entry, so that about one lookup in sixteen of a
// value the table does not have searches the table. Range lookups try
// several prefix lengths; the filter lets most of them skip the search.
type filter struct {
	bits  []uint64
	shift uint8 // 64 - log2 of the number of bits
}

// maxFiltered is the largest table given a filter (8 MB of it): making it
// reads the whole table at open.
const maxFiltered = 1 << 22

func newFilter(keys []uint64) filter {
	if len(keys) == 0 || len(keys) > maxFiltered {
		return filter{}
	}
	logBits := uint8(10)
	for 1<<logBits < 16*len(keys) {
		logBits++
	}
	f := filter{bits: make([]uint64, 1<<(logBits-6)), shift: 64 - logBits}
	for _, k := range keys {
		h := f.hash(k >> netBits)
		f.bits[h>>6] |= 1 << (h & 63)
	}
	return f
}

func (f *filter) hash(v uint64) uint64 { return (v * 0x9E3779B97F4A7C15) >> f.shift }

// mayHave reports whether the table may have v: false only when it does
// not. Without bits (no filter) it always may.
func (f *filter) mayHave(v uint64) bool {
	if f.bits == nil {
		return true
	}
	h := f.hash(v)
	return f.bits[h>>6]&(1<<(h&63)) != 0
}
