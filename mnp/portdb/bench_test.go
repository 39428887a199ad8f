package portdb

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The benchmark fixture: 10 million entries, as the package is sized for a
// large country's database. 9,990,000 distinct mobile numbers of German
// (+4915x, +4916x, +4917x; 12 and 13 digits) and Dutch (+316; 11 digits)
// ranges, spread at random over them, and 10,000 range prefixes of 7 to
// 10 digits in the same ranges; 12 networks. Made from a fixed seed: the
// same on every run.
const (
	benchNumbers = 9_990_000
	benchRanges  = 10_000
	benchQueries = 1 << 16
)

type benchFixture struct {
	csv     []byte // the rows, shuffled
	db      []byte // the built database
	path    string // db, written to a file
	numbers []string
	inRange []string // numbers in a range and not entries themselves
	misses  []string // plausible mobile numbers, almost all absent
	build   time.Duration
}

var (
	benchOnce sync.Once
	bench     *benchFixture
	benchDirs []string // the fixtures' files, removed at the end
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range benchDirs {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

type benchArea struct {
	prefix string
	digits int // total digits of its numbers
	share  int // per mille of the numbers
}

var benchAreas = []benchArea{
	{"49151", 13, 110}, {"49152", 13, 60}, {"49157", 13, 50}, {"49159", 13, 40},
	{"49160", 12, 40}, {"49162", 12, 40}, {"49163", 12, 30},
	{"49170", 12, 40}, {"49171", 12, 50}, {"49172", 12, 50}, {"49173", 12, 40},
	{"49174", 12, 20}, {"49175", 12, 30}, {"49176", 12, 50}, {"49177", 12, 30},
	{"49178", 12, 30}, {"49179", 12, 30}, {"49176", 13, 20}, {"49151", 12, 10},
	{"316", 11, 230},
}

var benchNets = []struct{ mccmnc, name string }{
	{"26201", "Telekom"}, {"26202", "Vodafone"}, {"26203", "Telefónica"}, {"26207", ""},
	{"26208", ""}, {"26277", "1&1"}, {"20404", "Vodafone NL"}, {"20408", "KPN"},
	{"20416", "Odido"}, {"20420", ""}, {"20415", "Ziggo"}, {"20418", ""},
}

func netFor(digits string, rnd *rand.Rand) int {
	if digits[:2] == "31" {
		return 6 + rnd.IntN(6)
	}
	return rnd.IntN(6)
}

func benchData(b *testing.B) *benchFixture {
	benchOnce.Do(func() {
		start := time.Now()
		rnd := rand.New(rand.NewPCG(2025, 6))
		f := &benchFixture{}
		// Distinct numbers per area: a walk with random gaps.
		var nums []string
		for _, a := range benchAreas {
			want := benchNumbers * a.share / 1000
			space := pow10[a.digits-len(a.prefix)]
			base := mustUint(a.prefix) * space
			gap := space / uint64(want+want/10) // the walk ends near 9/10 of the space
			x := base
			for range want {
				x += 1 + rnd.Uint64N(2*gap-1)
				if x >= base+space {
					panic("benchmark fixture: area " + a.prefix + " overflows")
				}
				nums = append(nums, strconv.FormatUint(x, 10))
			}
		}
		nums = nums[:min(len(nums), benchNumbers)]
		seen := map[string]bool{}
		var ranges []string
		for len(ranges) < benchRanges {
			n := nums[rnd.IntN(len(nums))]
			p := n[:7+rnd.IntN(4)]
			if !seen[p] {
				seen[p] = true
				ranges = append(ranges, p)
			}
		}
		rows := make([]string, 0, len(nums)+len(ranges))
		for _, n := range nums {
			i := netFor(n, rnd)
			rows = append(rows, n+","+benchNets[i].mccmnc+","+benchNets[i].name)
		}
		for _, p := range ranges {
			i := netFor(p, rnd)
			rows = append(rows, "+"+p+"*,"+benchNets[i].mccmnc)
		}
		rnd.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		var csv bytes.Buffer
		csv.WriteString("number_or_range,mccmnc,network name\n")
		for _, r := range rows {
			csv.WriteString(r)
			csv.WriteByte('\n')
		}
		f.csv = csv.Bytes()

		for range benchQueries {
			f.numbers = append(f.numbers, nums[rnd.IntN(len(nums))])
		}
		isNumber := map[string]bool{}
		for _, n := range nums {
			isNumber[n] = true
		}
		for len(f.inRange) < benchQueries {
			p := ranges[rnd.IntN(len(ranges))]
			n := p
			for len(n) < 12 {
				n += strconv.Itoa(rnd.IntN(10))
			}
			if !isNumber[n] {
				f.inRange = append(f.inRange, n)
			}
		}
		for range benchQueries {
			a := benchAreas[rnd.IntN(len(benchAreas))]
			n := a.prefix
			for len(n) < a.digits {
				n += strconv.Itoa(rnd.IntN(10))
			}
			f.misses = append(f.misses, n)
		}

		// The queries side by side in memory, as a service's input would
		// be: reading them is not what is measured.
		f.numbers, f.inRange, f.misses = packed(f.numbers), packed(f.inRange), packed(f.misses)

		var out bytes.Buffer
		t0 := time.Now()
		if _, err := Build(&out, bytes.NewReader(f.csv), BuildOptions{Plan: testPlan(b), Regions: []string{"DE", "NL"}, Source: "benchmark"}); err != nil {
			panic(err)
		}
		f.build = time.Since(t0)
		f.db = out.Bytes()
		dir, err := os.MkdirTemp("", "portdb-bench")
		if err != nil {
			panic(err)
		}
		benchDirs = append(benchDirs, dir)
		f.path = filepath.Join(dir, "ported.db")
		if err := os.WriteFile(f.path, f.db, 0o644); err != nil {
			panic(err)
		}
		bench = f
		b.Logf("fixture: %d bytes of CSV, %d bytes of database, made in %v (build %v)", len(f.csv), len(f.db), time.Since(start).Round(time.Millisecond), f.build.Round(time.Millisecond))
	})
	if bench == nil {
		b.Fatal("no fixture")
	}
	return bench
}

// packed returns ss with the strings' bytes copied into one block.
func packed(ss []string) []string {
	var all strings.Builder
	for _, s := range ss {
		all.WriteString(s)
	}
	block := all.String()
	out := make([]string, len(ss))
	pos := 0
	for i, s := range ss {
		out[i] = block[pos : pos+len(s)]
		pos += len(s)
	}
	return out
}

func openBench(b *testing.B) *DB {
	f := benchData(b)
	db, err := Open(f.path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if info := db.Info(); info.Numbers+info.Ranges != benchNumbers+benchRanges {
		b.Fatalf("fixture has %d entries", info.Numbers+info.Ranges)
	}
	return db
}

// BenchmarkLookup: one Lookup of the next query of a set, on the mapped
// 10-million-entry file (in the page cache after the first round).
func BenchmarkLookup(b *testing.B) {
	db := openBench(b)
	f := benchData(b)
	for _, set := range []struct {
		name    string
		queries []string
		found   bool
	}{
		{"hit=number", f.numbers, true},
		{"hit=range", f.inRange, true},
		{"hit=none", f.misses, false},
	} {
		b.Run(set.name, func(b *testing.B) {
			q := set.queries
			hits := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if db.Lookup(q[i&(benchQueries-1)]).Found() {
					hits++
				}
			}
			b.StopTimer()
			if set.found && hits != b.N {
				b.Fatalf("%d of %d found", hits, b.N)
			}
		})
	}
	b.Run("hit=number/via=holder", func(b *testing.B) {
		h := NewHolder(openBench(b))
		defer h.Close()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			h.Lookup(f.numbers[i&(benchQueries-1)])
		}
	})
	b.Run("hit=number/via=holder/parallel", func(b *testing.B) {
		h := NewHolder(openBench(b))
		defer h.Close()
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := rand.IntN(benchQueries)
			for pb.Next() {
				h.Lookup(f.numbers[i&(benchQueries-1)])
				i++
			}
		})
	})
}

// BenchmarkLookupCached: Lookup in the small sample database, whose
// entries stay in the first-level cache: the work of a lookup without the
// wait for memory, where a fixed cost per lookup (such as the fault guard
// of the mapped file) shows.
func BenchmarkLookupCached(b *testing.B) {
	db := openCSV(b, readSample(b), "DE", "AT")
	for _, q := range []struct{ name, digits string }{
		{"hit=number", "4915112345678"},
		{"hit=range", "4915112000000"},
		{"hit=none", "4930123456789"},
	} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				db.Lookup(q.digits)
			}
		})
	}
}

// BenchmarkOpen: Open and Close of the 10-million-entry file.
func BenchmarkOpen(b *testing.B) {
	f := benchData(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db, err := Open(f.path)
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
	b.StopTimer()
	b.ReportMetric(float64(len(f.db))/float64(benchNumbers+benchRanges), "bytes/entry")
}

// BenchmarkVerify: the full check of the 10-million-entry file.
func BenchmarkVerify(b *testing.B) {
	db := openBench(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := db.Verify(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuild: the 10 million rows of CSV to a database.
func BenchmarkBuild(b *testing.B) {
	f := benchData(b)
	plan := testPlan(b)
	b.SetBytes(int64(len(f.csv)))
	b.ReportAllocs()
	b.ResetTimer()
	var size int64
	for i := 0; i < b.N; i++ {
		stats, err := Build(io.Discard, bytes.NewReader(f.csv), BuildOptions{Plan: plan, Regions: []string{"DE", "NL"}})
		if err != nil {
			b.Fatal(err)
		}
		size = stats.Bytes
	}
	b.StopTimer()
	b.ReportMetric(float64(size)/float64(benchNumbers+benchRanges), "bytes/entry")
}

// BenchmarkRandomRead calibrates the figures of the machine: one read of
// a random entry of the mapped 10-million-entry file, each read's position
// depending on the entry read before, as a lookup's read of an entry
// depends on its search. A lookup of a number cannot take less than this.
func BenchmarkRandomRead(b *testing.B) {
	keys := openBench(b).nums.keys
	x := uint64(1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x = keys[(x*0x9E3779B97F4A7C15>>20)%uint64(len(keys))] + uint64(i)
	}
	if x == 0 {
		b.Log(x)
	}
}

// The 100-million-entry fixture, for the figures of the package
// documentation, is made only when PORTDB_BENCH_100M is set: it takes a
// few minutes and some 4 GB of memory. The entries go to the Builder
// directly, not through CSV.
var (
	big100MOnce sync.Once
	big100M     *benchFixture
)

func benchData100M(b *testing.B) *benchFixture {
	if os.Getenv("PORTDB_BENCH_100M") == "" {
		b.Skip("set PORTDB_BENCH_100M=1 for the 100-million-entry benchmarks")
	}
	big100MOnce.Do(func() {
		const numbers, ranges = 99_900_000, 100_000
		start := time.Now()
		rnd := rand.New(rand.NewPCG(2025, 100))
		bld, err := NewBuilder(BuildOptions{Plan: testPlan(b), Regions: []string{"DE", "NL"}, Source: "benchmark 100M"})
		if err != nil {
			panic(err)
		}
		for _, n := range benchNets {
			if _, err := bld.network(n.mccmnc, n.name); err != nil {
				panic(err)
			}
		}
		f := &benchFixture{}
		// Ten times the numbers in each area: the same walk, the areas of
		// one prefix merged, with one more digit where an area would be too
		// crowded.
		var areas []benchArea
		for _, a := range benchAreas {
			i := slices.IndexFunc(areas, func(x benchArea) bool { return x.prefix == a.prefix })
			if i < 0 {
				areas = append(areas, a)
				continue
			}
			areas[i].digits = max(areas[i].digits, a.digits)
			areas[i].share += a.share
		}
		for i, a := range areas {
			want := numbers * a.share / 1000
			space := pow10[a.digits-len(a.prefix)]
			if space/uint64(want+want/10) < 4 {
				space *= 10
				areas[i].digits++ // for the misses below
			}
			base := mustUint(a.prefix) * space
			gap := space / uint64(want+want/10)
			x := base
			for range want {
				x += 1 + rnd.Uint64N(2*gap-1)
				if x >= base+space {
					panic("benchmark fixture: area " + a.prefix + " overflows")
				}
				net := uint64(netFor(a.prefix, rnd))
				bld.numbers = append(bld.numbers, entry{key: x<<netBits | net, line: 1})
				if rnd.Uint64N(numbers/benchQueries) == 0 && len(f.numbers) < benchQueries {
					f.numbers = append(f.numbers, strconv.FormatUint(x, 10))
				}
			}
		}
		for len(f.numbers) < benchQueries {
			f.numbers = append(f.numbers, f.numbers[rnd.IntN(len(f.numbers))])
		}
		rnd.Shuffle(len(f.numbers), func(i, j int) { f.numbers[i], f.numbers[j] = f.numbers[j], f.numbers[i] })
		seen := map[uint64]bool{}
		for len(seen) < ranges {
			e := bld.numbers[rnd.IntN(len(bld.numbers))]
			v := e.key >> netBits
			p := v / pow10[numDigits(v)-7-rnd.IntN(4)]
			if !seen[p] {
				seen[p] = true
				bld.ranges = append(bld.ranges, entry{key: p<<netBits | e.key&netMask, line: 1})
			}
		}
		for range benchQueries {
			a := areas[rnd.IntN(len(areas))]
			n := a.prefix
			for len(n) < a.digits {
				n += strconv.Itoa(rnd.IntN(10))
			}
			f.misses = append(f.misses, n)
		}
		f.numbers, f.misses = packed(f.numbers), packed(f.misses)
		bld.rows = numbers + ranges
		dir, err := os.MkdirTemp("", "portdb-bench100m")
		if err != nil {
			panic(err)
		}
		benchDirs = append(benchDirs, dir)
		f.path = filepath.Join(dir, "ported.db")
		out, err := os.Create(f.path)
		if err != nil {
			panic(err)
		}
		t0 := time.Now()
		if _, err := bld.WriteTo(out); err != nil {
			panic(err)
		}
		f.build = time.Since(t0)
		if err := out.Close(); err != nil {
			panic(err)
		}
		bld = nil
		big100M = f
		b.Logf("100M fixture: made in %v (sorted and written in %v)", time.Since(start).Round(time.Millisecond), f.build.Round(time.Millisecond))
	})
	if big100M == nil {
		b.Fatal("no fixture")
	}
	return big100M
}

// BenchmarkLookup100M: Lookup and Open at 100 million entries (opt-in).
func BenchmarkLookup100M(b *testing.B) {
	f := benchData100M(b)
	db, err := Open(f.path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	st, err := os.Stat(f.path)
	if err != nil {
		b.Fatal(err)
	}
	info := db.Info()
	perEntry := float64(st.Size()) / float64(info.Numbers+info.Ranges)
	for _, set := range []struct {
		name    string
		queries []string
	}{{"hit=number", f.numbers}, {"hit=none", f.misses}} {
		b.Run(set.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				db.Lookup(set.queries[i&(benchQueries-1)])
			}
		})
	}
	b.Run("open", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			db, err := Open(f.path)
			if err != nil {
				b.Fatal(err)
			}
			db.Close()
		}
		b.ReportMetric(perEntry, "bytes/entry")
	})
	b.Run("verify", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := db.Verify(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
