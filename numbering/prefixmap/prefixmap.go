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
// A Table takes 16 bytes per segment (at most two per prefix) plus its
// bucket index. Lookups cost one key computation and a binary search within
// one bucket: tens of nanoseconds when the table is in cache, a few cache
// misses otherwise. Building sorts the entries unless they come sorted.
//
// # Thread safety
//
// A Table is immutable once built and safe for concurrent use.
package prefixmap

import (
	"cmp"
	"fmt"
	"slices"
)

// MaxDigits is the number of leading digits that keys encode; longer
// strings are looked up by their first MaxDigits digits.
const MaxDigits = 18 // 11^18 < 2^64

// None is the value Lookup returns when no prefix covers a string.
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
	var k uint64
	for i := 0; i < n; i++ {
		k = k*11 + uint64(digits[i]-'0') + 1
	}
	return Key(k * pow11[MaxDigits-n])
}

// Entry is one prefix of a table with its value.
type Entry struct {
	lo, hi uint64 // the key range of the strings starting with the prefix
	depth  int    // length of the prefix
	value  int32
}

// NewEntry makes the entry mapping prefix, 1 to MaxDigits ASCII digits, to
// value, which must not be negative.
func NewEntry[S ~string | ~[]byte](prefix S, value int32) (Entry, error) {
	if len(prefix) == 0 || len(prefix) > MaxDigits {
		return Entry{}, fmt.Errorf("prefixmap: prefix %q: want 1 to %d digits", prefix, MaxDigits)
	}
	for i := 0; i < len(prefix); i++ {
		if prefix[i] < '0' || prefix[i] > '9' {
			return Entry{}, fmt.Errorf("prefixmap: prefix %q: not a digit string", prefix)
		}
	}
	if value < 0 {
		return Entry{}, fmt.Errorf("prefixmap: prefix %q: negative value %d", prefix, value)
	}
	lo := uint64(KeyOf(prefix))
	return Entry{lo, lo + pow11[MaxDigits-len(prefix)], len(prefix), value}, nil
}

// segment is a key range from start to the next segment's start, and its
// value (None when no prefix covers it). Start and value share a cache line.
type segment struct {
	start uint64
	value int32
}

// Key returns the key of the entry's prefix; entries sort by it, and
// enclosing prefixes before what they enclose.
func (e Entry) Key() Key { return Key(e.lo) }

// Encloses reports whether the digit string with key k starts with the
// entry's prefix.
func (e Entry) Encloses(k Key) bool { return e.lo <= uint64(k) && uint64(k) < e.hi }

// Value returns the entry's value.
func (e Entry) Value() int32 { return e.value }

// WithValue returns the entry with another value, which must not be negative.
func (e Entry) WithValue(v int32) Entry {
	e.value = max(v, 0)
	return e
}

// Table maps digit strings to the value of their longest prefix in it.
// The zero Table maps everything to None.
type Table struct {
	segs []segment // ascending; segs[0].start == 0
	// first[b] is the segment holding the first key that begins with the
	// bucket's digits (b numbered in base 11), so that a lookup searches
	// only the segments of its own bucket.
	first       []int32
	bucketShift uint64 // pow11[MaxDigits-bucket digits]
}

// New builds a table from entries with distinct prefixes (a prefix given
// twice keeps one of its values, unspecified which). It sorts entries in
// place unless they are in order already.
func New(entries []Entry) Table {
	// Enclosing prefixes start at or before what they enclose; at the same
	// start, the shorter (enclosing) one comes first.
	order := func(a, b Entry) int {
		if c := cmp.Compare(a.lo, b.lo); c != 0 {
			return c
		}
		return cmp.Compare(a.depth, b.depth)
	}
	if !slices.IsSortedFunc(entries, order) {
		slices.SortFunc(entries, order)
	}
	t := Table{segs: make([]segment, 1, 2*len(entries)+1)}
	t.segs[0] = segment{0, None}
	emit := func(at uint64, v int32) {
		last := len(t.segs) - 1
		switch {
		case t.segs[last].start == at:
			t.segs[last].value = v
			if last > 0 && t.segs[last-1].value == v {
				t.segs = t.segs[:last]
			}
		case t.segs[last].value != v:
			t.segs = append(t.segs, segment{at, v})
		}
	}
	var stack []Entry
	pop := func() {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		v := int32(None)
		if len(stack) > 0 {
			v = stack[len(stack)-1].value
		}
		emit(top.hi, v)
	}
	for _, e := range entries {
		for len(stack) > 0 && stack[len(stack)-1].hi <= e.lo {
			pop()
		}
		emit(e.lo, e.value)
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
func (t *Table) index() {
	digits := 1
	for digits < 5 && pow11[digits]*2 < uint64(len(t.segs)) {
		digits++
	}
	buckets := int(pow11[digits])
	t.bucketShift = pow11[MaxDigits-digits]
	t.first = make([]int32, buckets+1)
	seg := 0
	for b := 0; b <= buckets; b++ {
		start := uint64(b) * t.bucketShift
		if b == buckets {
			start = pow11[MaxDigits] - 1
		}
		for seg+1 < len(t.segs) && t.segs[seg+1].start <= start {
			seg++
		}
		t.first[b] = int32(seg)
	}
}

// Lookup returns the value of the longest prefix of digits (ASCII digits)
// in the table, or None.
func (t *Table) Lookup(digits []byte) int32 { return t.LookupKey(KeyOf(digits)) }

// LookupKey is Lookup for a key already computed with KeyOf, so that one
// key serves several tables.
func (t *Table) LookupKey(k Key) int32 {
	if len(t.first) == 0 {
		return None
	}
	// Find the last segment whose start is <= k, among those of k's bucket.
	b := uint64(k) / t.bucketShift
	lo, hi := int(t.first[b]), int(t.first[b+1])+1
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if t.segs[mid].start <= uint64(k) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return t.segs[lo].value
}

// Segments returns the number of key segments, a measure of the table's
// size: it takes 16 bytes per segment plus 4 per bucket.
func (t *Table) Segments() int { return len(t.segs) }
