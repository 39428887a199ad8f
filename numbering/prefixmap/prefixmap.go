// Package prefixmap answers longest-prefix questions over digit strings,
// such as "which network was the range holding this number assigned to" or
// "which routing rule covers it", with one short binary search and no
// allocation.
//
// Every digit string of up to MaxDigits digits is encoded as a Key: a base-11
// number in which 0 marks "end of string" and digit d is d+1, left-aligned.
// All strings that start with a prefix p then form the contiguous key range
// [Key(p), Key(p)+11^(MaxDigits-len(p))), so a set of prefixes, which nest or
// are disjoint, flattens into sorted, disjoint segments, each owned by the
// longest prefix covering it. A lookup finds the segment holding a number's
// key; a bucket index over the first digits narrows the search to a few
// segments.
//
// # Performance
//
// A Table takes a segment per prefix boundary (at most two per prefix):
// an 8-byte start and a value; plus a bucket index of up to 11^5 int32s. Lookups cost one key computation and a binary search within
// one bucket: tens of nanoseconds when the table is in cache, a few cache
// misses otherwise. Building sorts the entries unless they come sorted.
//
// # Thread safety
//
// A Table is immutable once built and safe for concurrent use.
package prefixmap

import (
	"cmp"
	"errors"
	"iter"
	"math"
	"math/bits"
	"slices"
	"strconv"
)

// MaxDigits is the number of leading digits that keys encode; longer
// strings are looked up by their first MaxDigits digits.
const MaxDigits = 18 // 11^18 < 2^64

// None is the conventional "no value" of tables of int32 indexes.
const None = -1

// Key is the encoding of a digit string that orders a prefix before all
// strings that extend it.
type Key uint64

var pow11 = func() (p [MaxDigits + 1]uint64) {
	p[0] = 1
	for i := 1; i <= MaxDigits; i++ {
		p[i] = p[i-1] * 11
	}
	return p
}()

// KeyOf encodes the first MaxDigits characters of digits, which must be
// ASCII digits.
func KeyOf[S ~string | ~[]byte](digits S) Key {
	n := min(len(digits), MaxDigits)
	// Two digits a step halves the chain of dependent multiplications.
	var k uint64
	i := 0
	for ; i+1 < n; i += 2 {
		k = k*121 + uint64(digits[i]-'0')*11 + uint64(digits[i+1]-'0') + 12
	}
	if i < n {
		k = k*11 + uint64(digits[i]-'0') + 1
	}
	return Key(k * pow11[MaxDigits-n])
}

// Prefix is a digit-string prefix as the range of keys of the strings that
// start with it.
type Prefix struct {
	lo, hi uint64
	depth  int // length of the prefix
}

// ParsePrefix returns the Prefix of 1 to MaxDigits ASCII digits.
func ParsePrefix[S ~string | ~[]byte](prefix S) (Prefix, error) {
	if len(prefix) == 0 || len(prefix) > MaxDigits {
		return Prefix{}, errors.New("prefixmap: prefix " + "\"" + string(prefix) + "\"" + ": want 1 to " + strconv.Itoa(MaxDigits) + " digits")
	}
	for i := 0; i < len(prefix); i++ {
		if prefix[i] < '0' || prefix[i] > '9' {
			return Prefix{}, errors.New("prefixmap: prefix " + "\"" + string(prefix) + "\"" + ": not a digit string")
		}
	}
	lo := uint64(KeyOf(prefix))
	return Prefix{lo, lo + pow11[MaxDigits-len(prefix)], len(prefix)}, nil
}

// Key returns the key of the prefix itself. Prefixes sort by it like their
// digits do (enclosing prefixes first), and distinct prefixes have
// distinct keys.
func (p Prefix) Key() Key { return Key(p.lo) }

// Encloses reports whether the digit string with key k starts with p.
func (p Prefix) Encloses(k Key) bool { return p.lo <= uint64(k) && uint64(k) < p.hi }

// Len returns the number of digits of the prefix.
func (p Prefix) Len() int { return p.depth }

// Entry maps one prefix to a value.
type Entry[V comparable] struct {
	Prefix
	Value V
}

// Table maps digit strings to the value of their longest prefix in it. The
// zero Table maps everything to V's zero value.
type Table[V comparable] struct {
	// Segment i runs from starts[i] to starts[i+1] and holds the value of
	// the longest prefix covering it. The starts are kept apart from the
	// values so that a binary search reads 8 of them per cache line.
	starts []uint64 // ascending; starts[0] == 0
	values []V
	// first[b] is the segment holding the first key that begins with the
	// bucket's digits (b numbered in base 11), so that a lookup searches
	// only the segments of its own bucket.
	first       []int32
	bucketShift uint64 // pow11[MaxDigits-bucket digits]
	// bucketMul is ceil(2^64 / bucketShift): a lookup divides by
	// multiplying, which costs a few cycles where a 64-bit division costs
	// dozens (see bucketOf).
	bucketMul uint64
}

// New builds a table from entries with distinct prefixes (a prefix given
// twice keeps one of its values, unspecified which); strings that no prefix
// covers map to none. It sorts entries in place unless they are in order
// already.
func New[V comparable](entries []Entry[V], none V) Table[V] {
	// Enclosing prefixes start at or before what they enclose; at the same
	// start, the shorter (enclosing) one comes first.
	order := func(a, b Entry[V]) int {
		if c := cmp.Compare(a.lo, b.lo); c != 0 {
			return c
		}
		return cmp.Compare(a.depth, b.depth)
	}
	if !slices.IsSortedFunc(entries, order) {
		slices.SortFunc(entries, order)
	}
	t := Table[V]{starts: make([]uint64, 1, 2*len(entries)+1), values: make([]V, 1, 2*len(entries)+1)}
	t.values[0] = none
	emit := func(at uint64, v V) {
		last := len(t.starts) - 1
		switch {
		case t.starts[last] == at:
			t.values[last] = v
			if last > 0 && t.values[last-1] == v {
				t.starts, t.values = t.starts[:last], t.values[:last]
			}
		case t.values[last] != v:
			t.starts = append(t.starts, at)
			t.values = append(t.values, v)
		}
	}
	var stack []Entry[V]
	pop := func() {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		v := none
		if len(stack) > 0 {
			v = stack[len(stack)-1].Value
		}
		emit(top.hi, v)
	}
	for _, e := range entries {
		for len(stack) > 0 && stack[len(stack)-1].hi <= e.lo {
			pop()
		}
		emit(e.lo, e.Value)
		stack = append(stack, e)
	}
	for len(stack) > 0 {
		pop()
	}
	t.index()
	return t
}

// index builds the bucket index, with about two segments per bucket and at
// most 11^5 buckets.
func (t *Table[V]) index() {
	digits := 1
	for digits < 5 && pow11[digits]*2 < uint64(len(t.starts)) {
		digits++
	}
	buckets := int(pow11[digits])
	t.bucketShift = pow11[MaxDigits-digits]
	t.bucketMul = math.MaxUint64/t.bucketShift + 1 // bucketShift is never a power of two
	t.first = make([]int32, buckets+1)
	seg := 0
	for b := 0; b <= buckets; b++ {
		start := uint64(b) * t.bucketShift
		if b == buckets {
			start = pow11[MaxDigits] - 1
		}
		for seg+1 < len(t.starts) && t.starts[seg+1] <= start {
			seg++
		}
		t.first[b] = int32(seg)
	}
}

// Lookup returns the value of the longest prefix of digits (ASCII digits)
// in the table, or the table's none value.
func (t *Table[V]) Lookup(digits []byte) V { return t.LookupKey(KeyOf(digits)) }

// LookupKey is Lookup for a key already computed with KeyOf, so that one
// key serves several tables.
func (t *Table[V]) LookupKey(k Key) V {
	if len(t.first) == 0 {
		var zero V
		return zero
	}
	// Find the last segment whose start is <= k, among those of k's bucket.
	b := t.bucketOf(uint64(k))
	// A branch-free binary search: the comparison picks the base with a
	// conditional move, as random keys would mispredict a branch half of
	// the time.
	lo, n := int(t.first[b]), int(t.first[b+1])+1-int(t.first[b])
	for n > 1 {
		half := n >> 1
		if t.starts[lo+half] <= uint64(k) {
			lo += half
		}
		n -= half
	}
	return t.values[lo]
}

// bucketOf returns k / bucketShift. The high word of k * ceil(2^64/d)
// is floor(k/d + k*e/2^64) with 0 < e < 1, and k < 2^42, so it is the
// quotient or, when k mod d falls within k/2^64 of d, one more; one
// multiplication corrects that.
func (t *Table[V]) bucketOf(k uint64) uint64 {
	q, _ := bits.Mul64(k, t.bucketMul)
	if q*t.bucketShift > k {
		q--
	}
	return q
}

// All yields the table's segments in key order: the key of the first digit
// string of each and the value of the strings from there to the next.
func (t *Table[V]) All() iter.Seq2[Key, V] {
	return func(yield func(Key, V) bool) {
		for i, s := range t.starts {
			if !yield(Key(s), t.values[i]) {
				return
			}
		}
	}
}

// Segments returns the number of key segments, a measure of the table's
// size: each takes 8 bytes plus the value's size, and each bucket 4.
func (t *Table[V]) Segments() int { return len(t.starts) }
