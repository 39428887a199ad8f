package numbering

import (
	"bytes"
	"math/rand/v2"
	"testing"

	radix "github.com/armon/go-radix"
	"github.com/numenhq/numen/numbering/prefixmap"
)

// The prefix tables held in the flattened key ranges that numbering uses
// and, for comparison, in a go-radix tree (the structure routing uses for
// its rules): geocoding, the largest (269,000 prefixes), and the MCCMNC
// table. Both structures answer the same longest-prefix queries; see
// benchmarks/README.md for the figures.

func geocodingPrefixes(tb testing.TB) (keys [][]byte, values []int32) {
	return tablePrefixes(tb, "geocoding_en.tsv.gz")
}

func tablePrefixes(tb testing.TB, name string) (keys [][]byte, values []int32) {
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
		}
		keys = append(keys, prefix)
		values = append(values, v)
	}
	return keys, values
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

func BenchmarkPrefixIndex(b *testing.B) {
	for _, table := range []struct{ name, file string }{
		{"geocoding", "geocoding_en.tsv.gz"},
		{"mccmnc", "mccmnc.tsv.gz"},
	} {
		keys, values := tablePrefixes(b, table.file)
		queries := prefixQueries(keys, 1<<16)
		b.Run("table="+table.name+"/impl=sorted-ranges", func(b *testing.B) {
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
