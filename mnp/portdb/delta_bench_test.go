package portdb

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// benchDeltaSize is the size of the benchmark's delta: 100,000 numbers,
// half moved to another network, a quarter returned and a quarter newly
// ported, spread over the 10-million-entry fixture.
const benchDeltaSize = 100_000

type deltaFixture struct {
	path  string   // the delta file
	size  int      // its bytes
	hits  []string // numbers the delta changes, in random order
	delta *Delta
}

var (
	deltaOnce  sync.Once
	benchDelta *deltaFixture
)

func deltaData(b *testing.B) *deltaFixture {
	f := benchData(b)
	deltaOnce.Do(func() {
		db, err := OpenBytes(f.db)
		if err != nil {
			panic(err)
		}
		at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
		d := NewDelta(db.Identity(), at)
		keys := db.nums.keys
		step := len(keys) / benchDeltaSize
		var hits []string
		for i := 0; len(d.entries) < benchDeltaSize && i < len(keys); i += step {
			e := keys[i]
			digits := strconv.FormatUint(e>>netBits, 10)
			mccmnc, name := "", ""
			if i%3 != 0 { // two in three moved, one returned
				n := db.h.networks[(int(e&netMask)+1)%len(db.h.networks)]
				mccmnc, name = n.MCCMNC, n.Name
			}
			if err := d.Add(digits, mccmnc, name, at); err != nil {
				panic(err)
			}
			hits = append(hits, digits)
			// A number next to it that the file does not have: ported.
			if i%3 == 1 {
				if v := e>>netBits + 1; len(d.entries) < benchDeltaSize && i+1 < len(keys) && keys[i+1]>>netBits != v {
					n := db.h.networks[0]
					if err := d.Add(strconv.FormatUint(v, 10), n.MCCMNC, n.Name, at); err != nil {
						panic(err)
					}
					hits = append(hits, strconv.FormatUint(v, 10))
				}
			}
		}
		if len(d.entries) != benchDeltaSize {
			panic("benchmark delta: " + strconv.Itoa(len(d.entries)) + " entries")
		}
		var buf bytes.Buffer
		if _, err := d.WriteTo(&buf); err != nil {
			panic(err)
		}
		path := filepath.Join(filepath.Dir(f.path), "1.delta")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			panic(err)
		}
		for i := range hits { // a fixed shuffle
			j := int(uint64(i)*0x9E3779B97F4A7C15>>33) % (i + 1)
			hits[i], hits[j] = hits[j], hits[i]
		}
		benchDelta = &deltaFixture{path: path, size: buf.Len(), hits: packed(hits[:benchQueries]), delta: d}
	})
	return benchDelta
}

// BenchmarkLookupDeltas: Lookup on the mapped 10-million-entry file alone
// (deltas=none) and with a delta of 100,000 numbers applied
// (deltas=100k), for the query sets of BenchmarkLookup and for numbers
// the delta changes (hit=delta). Compare with benchstat -col /deltas.
func BenchmarkLookupDeltas(b *testing.B) {
	f := benchData(b)
	df := deltaData(b)
	for _, deltas := range []string{"none", "100k"} {
		var opts []Option
		if deltas == "100k" {
			opts = append(opts, WithDeltas(df.delta))
		}
		db, err := Open(f.path, opts...)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		for _, set := range []struct {
			name    string
			queries []string
		}{
			{"hit=number", f.numbers},
			{"hit=range", f.inRange},
			{"hit=none", f.misses},
			{"hit=delta", df.hits},
		} {
			b.Run("deltas="+deltas+"/"+set.name, func(b *testing.B) {
				q := set.queries
				b.ReportAllocs()
				cpu := startCPU()
				i := 0
				for b.Loop() {
					db.Lookup(q[i&(benchQueries-1)])
					i++
				}
				cpu.report(b)
			})
		}
	}
}

// BenchmarkApplyDelta: the delta of 100,000 numbers taken by a running
// service: read=delta reads and checks the file; reload=base+delta is
// Holder.ReloadWithDeltas of the 10-million-entry file and the delta
// (open, verify the base, read the delta, build the overlay, swap), what
// numen serve does when a new delta arrives.
func BenchmarkApplyDelta(b *testing.B) {
	f := benchData(b)
	df := deltaData(b)
	b.Run("read=delta", func(b *testing.B) {
		b.SetBytes(int64(df.size))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ReadDeltaFile(df.path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reload=base+delta", func(b *testing.B) {
		b.ReportAllocs()
		var info Info
		for b.Loop() {
			h := NewHolder(nil)
			if _, err := h.ReloadWithDeltas(f.path, []string{df.path}); err != nil {
				b.Fatal(err)
			}
			info, _ = h.Info()
			h.Close()
		}
		b.ReportMetric(float64(info.DeltaBytes), "overlay-bytes")
		b.ReportMetric(float64(info.DeltaNumbers), "delta-numbers")
		b.ReportMetric(float64(df.size), "file-bytes")
	})
}

// BenchmarkLookupCachedDeltas: Lookup in the small sample database, whose
// entries stay in the first-level cache, alone (deltas=none) and with a
// delta of 100,000 numbers (deltas=100k, 1 MB: the second-level cache):
// the work the deltas add to a lookup, without the wait for the big
// file's memory. hit=delta is a number the delta ports.
func BenchmarkLookupCachedDeltas(b *testing.B) {
	raw := buildBytes(b, readSample(b), "DE", "AT")
	base, err := OpenBytes(raw)
	if err != nil {
		b.Fatal(err)
	}
	d := NewDelta(base.Identity(), fixedTime)
	for i := range benchDeltaSize {
		// +49170 numbers of 12 digits, spread over the range.
		if err := d.Add(strconv.Itoa(491700000000+i*97), "26203", "", fixedTime); err != nil {
			b.Fatal(err)
		}
	}
	withDeltas, err := OpenBytes(raw, WithDeltas(d))
	if err != nil {
		b.Fatal(err)
	}
	for _, db := range []struct {
		name string
		db   *DB
	}{{"none", base}, {"100k", withDeltas}} {
		for _, q := range []struct{ name, digits string }{
			{"hit=number", "4915112345678"},
			{"hit=range", "4915112000000"},
			{"hit=none", "4930123456789"},
			{"hit=delta", strconv.Itoa(491700000000 + 5000*97)},
		} {
			b.Run("deltas="+db.name+"/"+q.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu := startCPU()
				for b.Loop() {
					db.db.Lookup(q.digits)
				}
				cpu.report(b)
			})
		}
	}
}
