package compile

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// entry maps one prefix (ASCII digits) to a value index.
type entry struct {
	prefix string
	value  uint16
}

// table is a prefix table flattened into disjoint key segments (see
// planfmt): what numbering binary-searches in place.
type table struct {
	starts  []uint32
	values  []uint16
	first   []uint32
	buckets int // bucket digits
}

// flatten builds the segments of entries, whose prefixes must be distinct
// and of 1 to planfmt.KeyDigits digits.
func flatten(entries []entry) (*table, error) {
	type span struct {
		lo, hi uint64 // uint64: the end of a prefix of nines is KeySpan
		depth  int
		value  uint16
	}
	spans := make([]span, len(entries))
	for i, e := range entries {
		if len(e.prefix) == 0 || len(e.prefix) > planfmt.KeyDigits {
			return nil, fmt.Errorf("prefix %q: want 1 to %d digits", e.prefix, planfmt.KeyDigits)
		}
		for j := 0; j < len(e.prefix); j++ {
			if e.prefix[j] < '0' || e.prefix[j] > '9' {
				return nil, fmt.Errorf("prefix %q: not a digit string", e.prefix)
			}
		}
		lo := uint64(planfmt.Key(e.prefix))
		spans[i] = span{lo, lo + uint64(planfmt.Pow11(planfmt.KeyDigits-len(e.prefix))), len(e.prefix), e.value}
	}
	// Enclosing prefixes start at or before what they enclose; at the same
	// start, the shorter (enclosing) one comes first.
	slices.SortFunc(spans, func(a, b span) int {
		if c := cmp.Compare(a.lo, b.lo); c != 0 {
			return c
		}
		return cmp.Compare(a.depth, b.depth)
	})
	for i := 1; i < len(spans); i++ {
		if spans[i].lo == spans[i-1].lo && spans[i].depth == spans[i-1].depth {
			return nil, fmt.Errorf("prefix given twice (key %d)", spans[i].lo)
		}
	}
	var starts []uint64
	var values []uint16
	starts, values = append(starts, 0), append(values, planfmt.NoValue)
	emit := func(at uint64, v uint16) {
		last := len(starts) - 1
		switch {
		case starts[last] == at:
			values[last] = v
			if last > 0 && values[last-1] == v {
				starts, values = starts[:last], values[:last]
			}
		case values[last] != v:
			starts = append(starts, at)
			values = append(values, v)
		}
	}
	var stack []span
	pop := func() {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		v := uint16(planfmt.NoValue)
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
	// A segment starting at KeySpan (after a prefix of nines) covers no key.
	if n := len(starts); starts[n-1] == planfmt.KeySpan {
		starts, values = starts[:n-1], values[:n-1]
	}
	t := &table{values: values}
	t.starts = make([]uint32, len(starts))
	for i, s := range starts {
		t.starts[i] = uint32(s)
	}
	// About two segments per bucket, at most MaxBucketDigits digits.
	for t.buckets < planfmt.MaxBucketDigits && int(planfmt.Pow11(t.buckets))*2 < len(t.starts) {
		t.buckets++
	}
	n := int(planfmt.Pow11(t.buckets))
	shift := planfmt.Pow11(planfmt.KeyDigits - t.buckets)
	t.first = make([]uint32, n+1)
	seg := 0
	for b := 0; b < n; b++ {
		start := uint32(b) * shift
		for seg+1 < len(t.starts) && t.starts[seg+1] <= start {
			seg++
		}
		t.first[b] = uint32(seg)
	}
	t.first[n] = uint32(len(t.starts) - 1)
	return t, nil
}

// encode appends the table's header and arrays to w.
func (t *table) encode(w *writer, valueCount int) {
	w.u32(uint32(len(t.starts)))
	w.u32(uint32(t.buckets))
	w.u32(uint32(valueCount))
	w.u32(0)
	for _, s := range t.starts {
		w.u32(s)
	}
	for _, v := range t.values {
		w.u16(v)
	}
	w.pad(4)
	for _, f := range t.first {
		w.u32(f)
	}
}
