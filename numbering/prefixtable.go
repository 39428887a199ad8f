package numbering

import (
	"cmp"
	"slices"
)

// prefixTable answers longest-prefix lookups over digit strings (carrier,
// geocoding and time-zone data) with one binary search and no allocation.
//
// Every digit string of up to keyDigits digits is encoded as a base-11 number
// in which 0 marks "end of string" and digit d is d+1, left-aligned. All
// strings starting with a prefix p then form the contiguous key range
// [key(p), key(p)+11^(keyDigits-len(p))), so the prefixes, which nest or are
// disjoint, flatten into sorted, disjoint segments, each owned by the longest
// prefix covering it. A lookup finds the segment holding the number's key.
type prefixTable struct {
	starts []uint64 // segment starts, ascending; starts[0] == 0
	values []int32  // value of each segment, noValue when no prefix covers it
	// first[b] is the segment holding the first key that begins with the
	// bucketDigits digits numbered b (in base 11), so that a lookup only
	// searches the segments of its own bucket.
	first []int32
}

const (
	keyDigits    = 18 // 11^18 < 2^64
	bucketDigits = 5
	noValue      = -1
)

var pow11 = func() (p [keyDigits + 1]uint64) {
	p[0] = 1
	for i := 1; i <= keyDigits; i++ {
		p[i] = p[i-1] * 11
	}
	return p
}()

// digitKey encodes the first keyDigits digits of s (ASCII digits only).
func digitKey(s []byte) uint64 {
	var k uint64
	for i := 0; i < keyDigits; i++ {
		k *= 11
		if i < len(s) {
			k += uint64(s[i]-'0') + 1
		}
	}
	return k
}

// prefixEntry is one prefix of a table: the key range of the digit strings
// that start with it, its length, and its value.
type prefixEntry struct {
	lo, hi uint64
	depth  int
	value  int32
}

// newPrefixEntry makes the entry for prefix, 1 to keyDigits ASCII digits.
func newPrefixEntry(prefix []byte, value int32) prefixEntry {
	lo := digitKey(prefix)
	return prefixEntry{lo, lo + pow11[keyDigits-len(prefix)], len(prefix), value}
}

// newPrefixTable builds a table from entries with distinct prefixes. It
// sorts entries in place unless they are in order already (as the generated
// files are).
func newPrefixTable(spans []prefixEntry) prefixTable {
	// Enclosing prefixes start at or before what they enclose; at the same
	// start, the shorter (enclosing) one comes first.
	order := func(a, b prefixEntry) int {
		if c := cmp.Compare(a.lo, b.lo); c != 0 {
			return c
		}
		return cmp.Compare(a.depth, b.depth)
	}
	if !slices.IsSortedFunc(spans, order) {
		slices.SortFunc(spans, order)
	}
	t := prefixTable{starts: []uint64{0}, values: []int32{noValue}}
	emit := func(at uint64, v int32) {
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
	var stack []prefixEntry
	pop := func() {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		v := int32(noValue)
		if len(stack) > 0 {
			v = stack[len(stack)-1].value
		}
		emit(top.hi, v)
	}
	for _, s := range spans {
		for len(stack) > 0 && stack[len(stack)-1].hi <= s.lo {
			pop()
		}
		emit(s.lo, s.value)
		stack = append(stack, s)
	}
	for len(stack) > 0 {
		pop()
	}
	buckets := int(pow11[bucketDigits])
	t.first = make([]int32, buckets+1)
	seg := 0
	for b := 0; b <= buckets; b++ {
		start := uint64(b) * pow11[keyDigits-bucketDigits]
		if b == buckets {
			start = pow11[keyDigits] - 1
		}
		for seg+1 < len(t.starts) && t.starts[seg+1] <= start {
			seg++
		}
		t.first[b] = int32(seg)
	}
	return t
}

// lookup returns the value of the longest prefix of digits in the table, or
// noValue.
func (t *prefixTable) lookup(digits []byte) int32 {
	k := digitKey(digits)
	// Find the last segment whose start is <= k, among those of k's bucket.
	b := k / pow11[keyDigits-bucketDigits]
	lo, hi := int(t.first[b]), int(t.first[b+1])+1
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if t.starts[mid] <= k {
			lo = mid
		} else {
			hi = mid
		}
	}
	return t.values[lo]
}
