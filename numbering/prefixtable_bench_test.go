package numbering

import (
	"bytes"
	"math/rand/v2"
	"testing"

	radix "github.com/armon/go-radix"
	"github.com/numenhq/numen/numbering/internal/planfmt"
	"github.com/numenhq/numen/numbering/prefixmap"
)

// Two prefix tables of the plan in three structures: the plan file's own
// key segments, read in place (what numbering looks up); the same
// segments built in memory by package prefixmap (what routing uses for its
// rules); and a go-radix tree. The tables: geocoding, the largest (269,000
// prefixes), and the network ranges (29,000). All three answer the same
// longest-prefix queries; see benchmarks/README.md for the figures.

func geocodingPrefixes(tb testing.TB) (keys [][]byte, values []int32) {
	keys, values, _ = tablePrefixes(tb, "geocoding_en.tsv.gz")
	return keys, values
}

// tablePrefixes reads a generated table: its prefixes, their values as
// indexes, and the values.
func tablePrefixes(tb testing.TB, name string) (keys [][]byte, values []int32, texts []string) {
	raw := readGenerated(tb, name)
	index := map[string]int32{}
	for line := range bytes.Lines(raw) {
		if line[0] == '#' {
			continue
		}
		prefix, value, _ := bytes.Cut(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\t'})
		v, ok := index[string(value)]
		if !ok {
			v = int32(len(index))
			index[string(value)] = v
			texts = append(texts, string(value))
		}
		keys = append(keys, prefix)
		values = append(values, v)
	}
	return keys, values, texts
}

// queries are numbers that start with a known prefix followed by random digits.
func prefixQueries(keys [][]byte, n int) [][]byte {
	rng := rand.New(rand.NewPCG(5, 6))
	// One backing array, so that reading the queries in order costs the
	// benchmark no cache misses of its own.
	const width = 12
	backing := make([]byte, 0, n*width)
	out := make([][]byte, n)
	for i := range out {
		start := len(backing)
		k := keys[rng.IntN(len(keys))]
		backing = append(backing, k[:min(len(k), width)]...)
		for len(backing)-start < width {
			backing = append(backing, byte('0'+rng.IntN(10)))
		}
		out[i] = backing[start:len(backing):len(backing)]
	}
	return out
}

func TestRadixAgreesWithPrefixTable(t *testing.T) {
	t.Parallel()
	keys, values := geocodingPrefixes(t)
	entries := make([]prefixmap.Entry[int32], len(keys))
	tree := radix.New()
	for i, k := range keys {
		pre, _ := prefixmap.ParsePrefix(k)
		entries[i] = prefixmap.Entry[int32]{Prefix: pre, Value: values[i]}
		tree.Insert(string(k), values[i])
	}
	table := prefixmap.New(entries, prefixmap.None)
	for _, q := range prefixQueries(keys, 20000) {
		_, v, ok := tree.LongestPrefix(string(q))
		want := int32(prefixmap.None)
		if ok {
			want = v.(int32)
		}
		if got := table.Lookup(q); got != want {
			t.Fatalf("%s: table %d, radix %d", q, got, want)
		}
	}
}

// TestPlanTablesAgreeWithPrefixmap: the plan file's geocoding and range
// tables answer what prefixmap, built from the generated TSV, answers.
func TestPlanTablesAgreeWithPrefixmap(t *testing.T) {
	t.Parallel()
	p := plan(t)
	geo, places := p.geocoding() // read on first use: not yet when this test runs alone
	for _, tc := range []struct {
		file  string
		table *prefixTable
		value func(int) string
	}{
		{"geocoding_en.tsv.gz", geo, func(v int) string { return places.get(v)[0] }},
		{"carrier_en.tsv.gz", &p.ranges, func(v int) string { return p.rangeNetwork(v).name }},
	} {
		keys, values, texts := tablePrefixes(t, tc.file)
		entries := make([]prefixmap.Entry[int32], len(keys))
		for i, k := range keys {
			pre, _ := prefixmap.ParsePrefix(k)
			entries[i] = prefixmap.Entry[int32]{Prefix: pre, Value: values[i]}
		}
		want := prefixmap.New(entries, prefixmap.None)
		for _, q := range prefixQueries(keys, 20000) {
			w, g := "", ""
			if v := want.Lookup(q); v != prefixmap.None {
				w = texts[v]
			}
			if v := tc.table.lookup(planfmt.Key(q)); v >= 0 {
				g = tc.value(v)
			}
			if w != g {
				t.Fatalf("%s %s: plan %q, prefixmap %q", tc.file, q, g, w)
			}
		}
	}
}

func BenchmarkPrefixIndex(b *testing.B) {
	p := plan(b)
	geo, _ := p.geocoding() // read on first use
	for _, table := range []struct {
		name, file string
		plan       *prefixTable
	}{
		{"geocoding", "geocoding_en.tsv.gz", geo},
		{"ranges", "carrier_en.tsv.gz", &p.ranges},
	} {
		keys, values, _ := tablePrefixes(b, table.file)
		queries := prefixQueries(keys, 1<<16)
		b.Run("table="+table.name+"/impl=plan-file", func(b *testing.B) {
			t := table.plan
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t.lookup(planfmt.Key(queries[i&(len(queries)-1)]))
			}
		})
		b.Run("table="+table.name+"/impl=prefixmap", func(b *testing.B) {
			entries := make([]prefixmap.Entry[int32], len(keys))
			for i, k := range keys {
				pre, _ := prefixmap.ParsePrefix(k)
				entries[i] = prefixmap.Entry[int32]{Prefix: pre, Value: values[i]}
			}
			t := prefixmap.New(entries, prefixmap.None)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t.Lookup(queries[i&(len(queries)-1)])
			}
		})
		b.Run("table="+table.name+"/impl=go-radix", func(b *testing.B) {
			tree := radix.New()
			for i, k := range keys {
				tree.Insert(string(k), values[i])
			}
			strs := make([]string, len(queries))
			for i, q := range queries {
				strs[i] = string(q)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tree.LongestPrefix(strs[i&(len(strs)-1)])
			}
		})
	}
}
