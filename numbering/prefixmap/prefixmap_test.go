package prefixmap

import (
	"math"
	"math/rand/v2"
	"testing"
)

// longestPrefixSlow is the obviously correct reference.
func longestPrefixSlow(entries map[string]int32, digits string) int32 {
	for l := min(len(digits), MaxDigits); l > 0; l-- {
		if v, ok := entries[digits[:l]]; ok {
			return v
		}
	}
	return None
}

func mustEntry(t testing.TB, p string, v int32) Entry[int32] {
	t.Helper()
	pre, err := ParsePrefix(p)
	if err != nil {
		t.Fatal(err)
	}
	return Entry[int32]{pre, v}
}

func TestAgainstReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	randDigits := func(n, symbols int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + rng.IntN(symbols))
		}
		return string(b)
	}
	for round := 0; round < 300; round++ {
		symbols := 2 + rng.IntN(9) // few symbols: many nested prefixes
		ref := map[string]int32{}
		var entries []Entry[int32]
		for i := 0; i < 1+rng.IntN([]int{10, 60, 2000}[round%3]); i++ {
			p := randDigits(1+rng.IntN(8), symbols)
			if _, dup := ref[p]; dup {
				continue
			}
			v := int32(rng.IntN(5))
			ref[p] = v
			entries = append(entries, mustEntry(t, p, v))
		}
		table := New(entries, None)
		for i := 1; i < len(table.starts); i++ {
			if table.starts[i] <= table.starts[i-1] || table.values[i] == table.values[i-1] {
				t.Fatalf("round %d: segments not strictly ascending and merged at %d", round, i)
			}
		}
		for q := 0; q < 300; q++ {
			d := randDigits(rng.IntN(12), symbols)
			if got, want := table.Lookup([]byte(d)), longestPrefixSlow(ref, d); got != want {
				t.Fatalf("round %d: Lookup(%q) = %d, want %d", round, d, got, want)
			}
			if got := table.LookupKey(KeyOf(d)); got != table.Lookup([]byte(d)) {
				t.Fatalf("LookupKey and Lookup differ on %q", d)
			}
		}
	}
}

func TestEdges(t *testing.T) {
	t.Parallel()
	var entries []Entry[int32]
	for i, p := range []string{"4915", "49", "5", "491", "4"} { // out of order on purpose
		entries = append(entries, mustEntry(t, p, []int32{4, 2, 5, 3, 1}[i]))
	}
	table := New(entries, None)
	for in, want := range map[string]int32{
		"": None, "3": None, "4": 1, "40": 1, "49": 2, "490": 2, "491": 3, "4915": 4, "49151": 4,
		"4916": 3, "492": 2, "48": 1, "5": 5, "59": 5, "6": None, "999999999999999999999": None,
		"000000000000000000000": None,
	} {
		if got := table.Lookup([]byte(in)); got != want {
			t.Errorf("Lookup(%q) = %d, want %d", in, got, want)
		}
	}
	var zero Table[int32]
	if got := zero.Lookup([]byte("49")); got != 0 {
		t.Errorf("zero table: %d", got)
	}
	if empty := New[int32](nil, None); empty.Lookup([]byte("49")) != None || empty.Segments() != 1 {
		t.Errorf("empty table answers")
	}
	for _, bad := range []string{"", "4a", "1234567890123456789"} {
		if _, err := ParsePrefix(bad); err == nil {
			t.Errorf("ParsePrefix(%q) accepted", bad)
		}
	}
	p, _ := ParsePrefix("4915")
	if p.Len() != 4 || p.Key() != KeyOf("4915") || !p.Encloses(KeyOf("491512")) || p.Encloses(KeyOf("491")) || p.Encloses(KeyOf("4916")) {
		t.Errorf("Prefix methods wrong for %v", p)
	}

	type pair struct{ a, b int16 }
	structs := New([]Entry[pair]{{mustEntry(t, "49", 0).Prefix, pair{1, 2}}}, pair{-1, -1})
	if structs.Lookup([]byte("4930")) != (pair{1, 2}) || structs.Lookup([]byte("4")) != (pair{-1, -1}) {
		t.Errorf("struct values wrong")
	}
}

func TestLookupDoesNotAllocate(t *testing.T) {
	table := New([]Entry[int32]{mustEntry(t, "49", 1), mustEntry(t, "4915", 2)}, None)
	d := []byte("4915123456789")
	if a := testing.AllocsPerRun(100, func() { table.Lookup(d) }); a != 0 {
		t.Errorf("Lookup allocates %.1f times", a)
	}
}

func FuzzLookup(f *testing.F) {
	f.Add("49,4915,491,5", "4915123")
	f.Add("1", "")
	f.Fuzz(func(t *testing.T, prefixes, query string) {
		ref := map[string]int32{}
		var entries []Entry[int32]
		start := 0
		for i := 0; i <= len(prefixes); i++ {
			if i < len(prefixes) && prefixes[i] != ',' {
				continue
			}
			p := prefixes[start:i]
			start = i + 1
			pre, err := ParsePrefix(p)
			if err != nil {
				continue
			}
			if _, dup := ref[p]; !dup {
				entries = append(entries, Entry[int32]{pre, int32(len(ref))})
				ref[p] = int32(len(ref))
			}
		}
		for i := 0; i < len(query); i++ {
			if query[i] < '0' || query[i] > '9' {
				return
			}
		}
		table := New(entries, None)
		if got, want := table.Lookup([]byte(query)), longestPrefixSlow(ref, query); got != want {
			t.Fatalf("Lookup(%q) = %d, want %d (prefixes %q)", query, got, want, prefixes)
		}
	})
}

// TestBucketOfDivides checks the multiplicative division against the
// hardware's at every bucket size, at the edges of buckets, where an
// off-by-one would show, and at random keys.
func TestBucketOfDivides(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for digits := 1; digits <= 5; digits++ {
		d := pow11[MaxDigits-digits]
		tb := Table[int]{bucketShift: d, bucketMul: math.MaxUint64/d + 1}
		keys := []uint64{0, 1, pow11[MaxDigits] - 1}
		for b := uint64(0); b < pow11[digits]; b += 1 + b/7 {
			keys = append(keys, b*d, b*d+d-1, b*d+d-2, b*d+d-5)
		}
		for range 10000 {
			keys = append(keys, rng.Uint64N(pow11[MaxDigits]))
		}
		for _, k := range keys {
			if got, want := tb.bucketOf(k), k/d; got != want {
				t.Fatalf("digits %d: bucketOf(%d) = %d, want %d", digits, k, got, want)
			}
		}
	}
}
