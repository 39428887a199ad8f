package portdb

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var deltaTime1 = time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC)

// writeDelta writes d and returns its bytes.
func writeDelta(t testing.TB, d *Delta) []byte {
	t.Helper()
	var buf bytes.Buffer
	_, err := d.WriteTo(&buf)
	require.NoError(t, err)
	return buf.Bytes()
}

func TestDeltaRoundTrip(t *testing.T) {
	base := openCSV(t, readSample(t), "DE", "AT")
	d := NewDelta(base.Identity(), deltaTime1)
	require.NoError(t, d.Add("+4915112345679", "26203", "Telefónica Germany", deltaTime1))
	require.NoError(t, d.Add("4915112345678", "", "", deltaTime1.Add(time.Minute)))
	require.NoError(t, d.Add("+436641111111", "23210", "New Austria", deltaTime1))
	text := writeDelta(t, d)
	require.Equal(t, `numen-portdb-delta 1
base `+strings.TrimPrefix(string(hex16(base.Identity())), "")+`
created 2025-06-02T08:00:00Z
network 23210 New Austria
network 26203 Telefónica Germany
+436641111111 23210 2025-06-02T08:00:00Z
+4915112345678 returned 2025-06-02T08:01:00Z
+4915112345679 26203 2025-06-02T08:00:00Z
`, string(text[:bytes.LastIndex(text[:len(text)-1], []byte("\n"))+1]))
	require.Regexp(t, `\nend 3 [0-9a-f]{8}\n$`, string(text))

	got, err := ReadDelta(bytes.NewReader(text), "d.delta")
	require.NoError(t, err)
	require.Equal(t, d.Base, got.Base)
	require.Equal(t, d.Created, got.Created)
	var want, have []DeltaEntry
	for e := range d.Entries() {
		want = append(want, e)
	}
	for e := range got.Entries() {
		have = append(have, e)
	}
	require.Equal(t, want, have)
	require.Equal(t, DeltaEntry{Number: "4915112345678", Returned: true, Time: deltaTime1.Add(time.Minute)}, have[1])
	require.Equal(t, text, writeDelta(t, got), "written again, the same bytes")
}

func hex16(v uint64) []byte {
	const digits = "0123456789abcdef"
	b := make([]byte, 16)
	for i := 15; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return b
}

// Deltas answer before the file: a number ported, a new network, a number
// returned (its own entry gone, its range answers), and the file's other
// entries unchanged.
func TestWithDeltas(t *testing.T) {
	raw := buildBytes(t, readSample(t), "DE", "AT")
	base, err := OpenBytes(raw)
	require.NoError(t, err)
	d := NewDelta(base.Identity(), deltaTime1)
	require.NoError(t, d.Add("4915112345679", "26203", "", deltaTime1))    // in +4915112* (26202)
	require.NoError(t, d.Add("4915112345678", "", "", deltaTime1))         // own entry 26203, range 26202
	require.NoError(t, d.Add("4930123456789", "26299", "Neu", deltaTime1)) // new network
	require.NoError(t, d.Add("4930999999999", "", "", deltaTime1))         // returned, never ported
	db, err := OpenBytes(raw, WithDeltas(d))
	require.NoError(t, err)
	check := func(digits, mccmnc, name, prefix string, exact bool) {
		t.Helper()
		r := db.Lookup(digits)
		require.NoError(t, r.Err())
		require.Equal(t, mccmnc, r.MCCMNC(), digits)
		require.Equal(t, name, r.Network(), digits)
		require.Equal(t, prefix, r.Prefix(), digits)
		require.Equal(t, exact, r.Exact(), digits)
	}
	check("4915112345679", "26203", "Telefónica Germany", "4915112345679", true)
	check("+4915112345678", "26202", "Vodafone", "4915112", false)
	check("4930123456789", "26299", "Neu", "4930123456789", true)
	check("4930999999999", "", "", "", false)
	check("4917612345678", "26201", "Telekom", "4917612345678", true) // untouched
	check("436641234567", "23201", "A1 Telekom Austria", "436641234567", true)
	info := db.Info()
	require.Equal(t, 1, info.Deltas)
	require.Equal(t, 4, info.DeltaNumbers)
	require.Positive(t, info.DeltaBytes)
}

// Several deltas: the latest time stamp wins, and of equal times the
// later delta.
func TestDeltasOrder(t *testing.T) {
	raw := buildBytes(t, readSample(t), "DE", "AT")
	base, err := OpenBytes(raw)
	require.NoError(t, err)
	a, b := NewDelta(base.Identity(), deltaTime1), NewDelta(base.Identity(), deltaTime1)
	later := deltaTime1.Add(time.Hour)
	require.NoError(t, a.Add("4915110000001", "26201", "", later))
	require.NoError(t, b.Add("4915110000001", "26202", "", deltaTime1)) // older: loses
	require.NoError(t, a.Add("4915110000002", "26201", "", deltaTime1))
	require.NoError(t, b.Add("4915110000002", "26203", "", deltaTime1)) // same time, later delta: wins
	require.NoError(t, a.Add("4915110000003", "26201", "", deltaTime1))
	require.NoError(t, b.Add("4915110000003", "", "", later)) // returned later
	db, err := OpenBytes(raw, WithDeltas(a, b))
	require.NoError(t, err)
	require.Equal(t, "26201", db.Lookup("4915110000001").MCCMNC())
	require.Equal(t, "26203", db.Lookup("4915110000002").MCCMNC())
	require.Equal(t, "26201", db.Lookup("4915110000003").MCCMNC(), "returned: the range +491511* answers")
	require.False(t, db.Lookup("4915110000003").Exact())
}

func TestDeltaForAnotherBase(t *testing.T) {
	raw := buildBytes(t, readSample(t), "DE", "AT")
	other := openCSV(t, "4915112345678,26201\n", "DE")
	d := NewDelta(other.Identity(), deltaTime1)
	d.Name = "other.delta"
	require.NoError(t, d.Add("4915112345679", "26203", "", deltaTime1))
	base, err := OpenBytes(raw)
	require.NoError(t, err)
	_, err = OpenBytes(raw, WithDeltas(d))
	require.ErrorIs(t, err, ErrDeltaBase)
	require.ErrorContains(t, err, "other.delta applies to base "+string(hex16(other.Identity()))+", this database is "+string(hex16(base.Identity())))

	d = NewDelta(base.Identity(), deltaTime1)
	require.NoError(t, d.Add("15551234567", "31000", "", deltaTime1))
	_, err = OpenBytes(raw, WithDeltas(d))
	require.ErrorContains(t, err, "number +15551234567 is not in a region the database covers")
}

// Damaged delta files are refused with the file and line named.
func TestReadDeltaErrors(t *testing.T) {
	base := openCSV(t, readSample(t), "DE", "AT")
	d := NewDelta(base.Identity(), deltaTime1)
	require.NoError(t, d.Add("4915112345679", "26203", "Telefónica Germany", deltaTime1))
	require.NoError(t, d.Add("4915112345680", "", "", deltaTime1))
	good := string(writeDelta(t, d))
	lines := strings.SplitAfter(good, "\n")
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "x.delta: empty: not a delta file"},
		{"other file", "NUMENPDB\x01\x00", "x.delta:1: not a delta file"},
		{"version", strings.Replace(good, "delta 1", "delta 2", 1), `x.delta:1: delta format version "2", this program reads 1`},
		{"cut", good[:len(good)-20], "x.delta:"},
		{"no end", strings.Join(lines[:len(lines)-2], ""), "x.delta:6: no end line: the file is cut short"},
		{"flipped", strings.Replace(good, "26203 2025", "26208 2025", 1), `x.delta:5: network "26208" has no network line`},
		{"checksum", strings.Replace(good, "08:00:00Z\n+", "08:00:01Z\n+", 1), "checksum "},
		{"count", strings.Replace(good, "end 2 ", "end 3 ", 1), "x.delta:7: end line counts 3 entries, the file has 2"},
		{"unsorted", lines[0] + lines[1] + lines[2] + lines[3] + lines[5] + lines[4] + lines[6], "x.delta:6: number +4915112345679: entries must be sorted"},
		{"bad number", strings.Replace(good, "+4915112345680", "+0915112345680", 1), `x.delta:6: number "+0915112345680" is not 1 to 15 digits`},
		{"bad time", strings.Replace(good, "08:00:00Z\n+", "8am\n+", 1), `x.delta:5: time "2025-06-02T8am" is not like`},
		{"base", strings.Replace(good, "base ", "base x", 1), "x.delta:2: base identity"},
		{"trailing", good + "x\n", "x.delta:8: text after the end line"},
		{"long line", good[:40] + strings.Repeat("9", 600), "x.delta:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadDelta(strings.NewReader(tc.text), "x.delta")
			require.ErrorContains(t, err, tc.want)
			var de *DeltaError
			require.True(t, errors.As(err, &de), "%v", err)
		})
	}
}

// Diff of two builds and Compact of the base with the diff give back the
// second build, byte for byte.
func TestDiffCompact(t *testing.T) {
	sample := readSample(t)
	oldRaw := buildBytes(t, sample, "DE", "AT")
	newCSV := strings.Replace(sample, "+4917612345678,26201\n", "+4917612345679,26299,Neu\n", 1)
	newCSV = strings.Replace(newCSV, "4917698765432,26202,Vodafone", "4917698765432,26203,Telefónica Germany", 1)
	newCSV += "+4915112345600,26201,Telekom\n"
	newRaw := buildBytes(t, newCSV, "DE", "AT")
	old, err := OpenBytes(oldRaw)
	require.NoError(t, err)
	nw, err := OpenBytes(newRaw)
	require.NoError(t, err)
	d, err := Diff(old, nw, deltaTime1)
	require.NoError(t, err)
	var got []string
	for e := range d.Entries() {
		if e.Returned {
			got = append(got, e.Number+" returned")
		} else {
			got = append(got, e.Number+" "+e.Network.MCCMNC)
		}
	}
	require.Equal(t, []string{"4915112345600 26201", "4917612345678 returned", "4917612345679 26299", "4917698765432 26203"}, got)

	// Through the file format, as numen portdb apply does.
	d, err = ReadDelta(bytes.NewReader(writeDelta(t, d)), "d.delta")
	require.NoError(t, err)
	db, err := OpenBytes(oldRaw, WithDeltas(d))
	require.NoError(t, err)
	for _, n := range []string{"4915112345600", "4917612345678", "4917612345679", "4917698765432", "4915112345678"} {
		require.Equal(t, nw.Lookup(n), db.Lookup(n), n)
	}
	var out bytes.Buffer
	_, err = Compact(&out, db, BuildOptions{Plan: testPlan(t), Created: fixedTime})
	require.NoError(t, err)
	require.Equal(t, newRaw, out.Bytes(), "compacted == built from the same data")

	_, err = Diff(old, openCSV(t, "+4915112345678,26201\n", "DE"), deltaTime1)
	require.ErrorContains(t, err, "cover other regions")
	_, err = Diff(old, openCSV(t, "+4915112345678,26201\n+4916*,26201\n", "DE", "AT"), deltaTime1)
	require.ErrorContains(t, err, "other ranges")
}

// A Holder takes a new delta file, a changed list of deltas and a new
// base; it refuses a damaged delta and a delta for another base, keeping
// what it had.
func TestHolderReloadWithDeltas(t *testing.T) {
	dir := t.TempDir()
	raw := buildBytes(t, readSample(t), "DE", "AT")
	path := filepath.Join(dir, "ported.db")
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	base, err := OpenBytes(raw)
	require.NoError(t, err)
	h := NewHolder(nil)
	defer h.Close()
	swapped, err := h.ReloadWithDeltas(path, nil)
	require.NoError(t, err)
	require.True(t, swapped)
	require.Equal(t, "26202", h.Lookup("4915112345679").MCCMNC())

	put := func(name string, b []byte) string {
		tmp := filepath.Join(dir, name+".tmp")
		require.NoError(t, os.WriteFile(tmp, b, 0o644))
		require.NoError(t, os.Rename(tmp, filepath.Join(dir, name)))
		return filepath.Join(dir, name)
	}
	d1 := NewDelta(base.Identity(), deltaTime1)
	require.NoError(t, d1.Add("4915112345679", "26203", "", deltaTime1))
	p1 := put("1.delta", writeDelta(t, d1))
	swapped, err = h.ReloadWithDeltas(path, []string{p1})
	require.NoError(t, err)
	require.True(t, swapped)
	require.Equal(t, "26203", h.Lookup("4915112345679").MCCMNC())
	swapped, err = h.ReloadWithDeltas(path, []string{p1})
	require.NoError(t, err)
	require.False(t, swapped, "nothing new")

	good := writeDelta(t, d1)
	p2 := put("2.delta", good[:len(good)-5])
	_, err = h.ReloadWithDeltas(path, []string{p1, p2})
	require.ErrorContains(t, err, p2+":")
	require.Equal(t, "26203", h.Lookup("4915112345679").MCCMNC(), "kept")
	swapped, err = h.ReloadWithDeltas(path, []string{p1, p2})
	require.NoError(t, err, "refused once, not tried again until it changes")
	require.False(t, swapped)

	other := NewDelta(42, deltaTime1)
	require.NoError(t, other.Add("4915112345679", "26201", "", deltaTime1))
	p2 = put("2.delta", writeDelta(t, other))
	_, err = h.ReloadWithDeltas(path, []string{p1, p2})
	require.ErrorIs(t, err, ErrDeltaBase)
	require.ErrorContains(t, err, p2+" applies to base 000000000000002a")

	d2 := NewDelta(base.Identity(), deltaTime1)
	require.NoError(t, d2.Add("4915112345679", "26201", "", deltaTime1.Add(time.Second)))
	p2 = put("2.delta", writeDelta(t, d2))
	swapped, err = h.ReloadWithDeltas(path, []string{p1, p2})
	require.NoError(t, err)
	require.True(t, swapped)
	require.Equal(t, "26201", h.Lookup("4915112345679").MCCMNC(), "the later delta")
	info, _ := h.Info()
	require.Equal(t, 2, info.Deltas)

	swapped, err = h.ReloadWithDeltas(path, nil)
	require.NoError(t, err)
	require.True(t, swapped, "fewer deltas: another set")
	require.Equal(t, "26202", h.Lookup("4915112345679").MCCMNC())
}

// A lookup with deltas allocates nothing.
func TestNoAllocsWithDeltas(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters allocate")
	}
	raw := buildBytes(t, readSample(t), "DE", "AT")
	base, err := OpenBytes(raw)
	require.NoError(t, err)
	d := NewDelta(base.Identity(), deltaTime1)
	require.NoError(t, d.Add("4915112345679", "26203", "", deltaTime1))
	require.NoError(t, d.Add("4915112345678", "", "", deltaTime1))
	db, err := OpenBytes(raw, WithDeltas(d))
	require.NoError(t, err)
	h := NewHolder(db)
	sink := 0
	for _, digits := range []string{"4915112345679", "4915112345678", "4915112000000", "4930123456", "x"} {
		require.Zero(t, testing.AllocsPerRun(1000, func() {
			r := db.Lookup(digits)
			sink += len(r.MCCMNC()) + len(r.Network()) + len(r.Prefix())
		}), "DB.Lookup(%q)", digits)
		require.Zero(t, testing.AllocsPerRun(1000, func() {
			sink += len(h.Lookup(digits).MCCMNC())
		}), "Holder.Lookup(%q)", digits)
	}
	require.NotZero(t, sink)
}

// Lookups through a Holder while base and deltas are swapped in and out
// under them: every answer is the old data's or the new's, never an
// error, and every database is closed once swapped out.
func TestHolderDeltasWhileLookingUp(t *testing.T) {
	dir := t.TempDir()
	raw := buildBytes(t, readSample(t), "DE", "AT")
	path := filepath.Join(dir, "ported.db")
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	base, err := OpenBytes(raw)
	require.NoError(t, err)
	var paths []string
	for i, mccmnc := range []string{"26203", "26201"} {
		d := NewDelta(base.Identity(), deltaTime1)
		require.NoError(t, d.Add("4915112345679", mccmnc, "", deltaTime1))
		p := filepath.Join(dir, strconv.Itoa(i)+".delta")
		require.NoError(t, os.WriteFile(p, writeDelta(t, d), 0o644))
		paths = append(paths, p)
	}
	h := NewHolder(nil)
	defer h.Close()
	_, err = h.ReloadWithDeltas(path, nil)
	require.NoError(t, err)
	stop := make(chan struct{})
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				r := h.Lookup("4915112345679")
				switch m := r.MCCMNC(); {
				case r.Err() != nil:
					errs <- r.Err()
					return
				case m != "26202" && m != "26203" && m != "26201":
					errs <- fmt.Errorf("answer %q from no data", m)
					return
				}
			}
		}()
	}
	sets := [][]string{{paths[0]}, {paths[1]}, nil, {paths[0], paths[1]}}
	for i := range 40 {
		swapped, err := h.ReloadWithDeltas(path, sets[i%len(sets)])
		require.NoError(t, err)
		require.True(t, swapped)
	}
	close(stop)
	wg.Wait()
	for range 4 {
		require.NoError(t, <-errs)
	}
	require.Equal(t, "26201", h.Lookup("4915112345679").MCCMNC(), "the last set: both deltas, the later wins")
}
