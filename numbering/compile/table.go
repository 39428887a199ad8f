package compile

import (
	"fmt"

	"github.com/numenhq/numen/numbering/internal/planfmt"
	"github.com/numenhq/numen/numbering/prefixmap"
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
// and of 1 to planfmt.KeyDigits digits: prefixmap's segments (over keys of
// prefixmap.MaxDigits digits, which for prefixes this short are the plan's
// keys times 11^(MaxDigits-KeyDigits)), with a bucket index of their own.
func flatten(entries []entry) (*table, error) {
	list := make([]prefixmap.Entry[uint16], len(entries))
	seen := make(map[string]bool, len(entries))
	for i, e := range entries {
		if len(e.prefix) > planfmt.KeyDigits {
			return nil, fmt.Errorf("prefix %q: more than %d digits", e.prefix, planfmt.KeyDigits)
		}
		if seen[e.prefix] {
			return nil, fmt.Errorf("prefix %s given twice", e.prefix)
		}
		seen[e.prefix] = true
		pre, err := prefixmap.ParsePrefix(e.prefix)
		if err != nil {
			return nil, err
		}
		list[i] = prefixmap.Entry[uint16]{Prefix: pre, Value: e.value}
	}
	segments := prefixmap.New(list, planfmt.NoValue)
	scale := uint64(1)
	for range prefixmap.MaxDigits - planfmt.KeyDigits {
		scale *= 11
	}
	t := &table{}
	for k, v := range segments.All() {
		start := uint64(k) / scale
		if start >= planfmt.KeySpan {
			break // after a prefix of nines: covers no key
		}
		t.starts = append(t.starts, uint32(start))
		t.values = append(t.values, v)
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
