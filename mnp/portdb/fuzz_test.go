package portdb

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzOpenBytes feeds OpenBytes, Verify and Lookup real databases,
// damaged ones and garbage: never a panic, never an error that is not a
// *FormatError, and a database that passes Verify finds each of its
// entries.
func FuzzOpenBytes(f *testing.F) {
	good := buildBytes(f, readSample(f), "DE", "AT")
	f.Add(good)
	f.Add(buildBytes(f, "", "DE"))
	f.Add(buildBytes(f, "4915112345678,26201\n", "DE"))
	for _, cut := range []int{0, 8, 40, fixedHeaderSize, len(good) / 2, len(good) - 1} {
		f.Add(bytes.Clone(good[:cut]))
	}
	flipped := bytes.Clone(good)
	flipped[len(flipped)-3] ^= 1
	f.Add(flipped)
	sealed := bytes.Clone(flipped)
	sealBody(sealed)
	f.Add(sealed)
	f.Add([]byte("NUMENPDB"))
	f.Add([]byte("number_or_range,mccmnc\n"))
	f.Add(bytes.Repeat([]byte{0xff}, 200))

	f.Fuzz(func(t *testing.T, b []byte) {
		db, err := OpenBytes(b)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("OpenBytes: %v is not a *FormatError", err)
			}
			return
		}
		for _, d := range []string{"4915112345678", "4915112000000", "491511", "436641234567", "4930123456", "1", "999999999999999"} {
			r := db.Lookup(d)
			if r.Found() && (r.MCCMNC() == "" || !strings.HasPrefix(strings.TrimPrefix(d, "+"), r.Prefix())) {
				t.Fatalf("Lookup(%q) = %+v", d, r)
			}
		}
		db.Info()
		db.Networks()
		if err := db.Verify(); err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Verify: %v is not a *FormatError", err)
			}
			return
		}
		for _, tb := range []*table{&db.nums, &db.ranges} {
			for i, e := range tb.keys {
				if i == 100 {
					break
				}
				digits := strconv.FormatUint(e>>netBits, 10)
				r := db.Lookup(digits)
				if !r.Found() || r.Prefix() != digits || r.Exact() != (tb == &db.nums) {
					t.Fatalf("verified database does not find its entry %s: %+v", digits, r)
				}
			}
		}
	})
}

// FuzzLookup compares Lookup with the slow reference on the sample.
func FuzzLookup(f *testing.F) {
	csv := readSample(f)
	db := openCSV(f, csv, "DE", "AT")
	slow := newSlowDB()
	for _, line := range strings.Split(csv, "\n") {
		if line == "" || line[0] == '#' || strings.HasPrefix(line, "number_or_range") {
			continue
		}
		key, rest, _ := strings.Cut(strings.ReplaceAll(line, `"`, ""), ",")
		mccmnc, _, _ := strings.Cut(rest, ",")
		slow.add(key, mccmnc)
	}
	for _, s := range []string{"4915112345678", "+4915112345679", "491511", "4916090000000", "4916199999999", "43664", "", "+", "0", "4915112345678000", "49151123456789"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, digits string) {
		requireSameAsSlow(t, db, slow, digits)
	})
}

// FuzzBuild feeds the builder arbitrary CSV: it either refuses it with a
// line-numbered *InputError or writes a database that verifies and finds
// every number row.
func FuzzBuild(f *testing.F) {
	f.Add(readSample(f))
	f.Add("4915112345678,26201\n4915112345678,26202\n")
	f.Add("4915112*,26201,A\n4915112*,26201,B\n")
	f.Add("\"4915112345678\",\"26201\",\"Tele, kom\"\n")
	f.Add("4916090000000-4916199999999,26203\n")
	f.Add("number_or_range,mccmnc\n\n# x\n+43664*,23203\n")
	plan := testPlan(f)
	f.Fuzz(func(t *testing.T, csv string) {
		var buf bytes.Buffer
		_, err := Build(&buf, strings.NewReader(csv), BuildOptions{Plan: plan, Regions: []string{"DE", "AT"}, Name: "fuzz.csv"})
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Line < 1 || !strings.HasPrefix(err.Error(), "fuzz.csv:") {
				t.Fatalf("Build: %v is not a line-numbered *InputError", err)
			}
			return
		}
		db, err := OpenBytes(buf.Bytes())
		require.NoError(t, err)
		require.NoError(t, db.Verify())
		for _, line := range strings.Split(csv, "\n") {
			key, _, _ := strings.Cut(line, ",")
			key = strings.TrimSpace(key)
			if isDigits(strings.TrimPrefix(key, "+")) {
				require.True(t, db.Lookup(key).Found(), "row %q", line)
			}
		}
	})
}

// FuzzReadDelta feeds ReadDelta delta files, damaged ones and garbage:
// never a panic, never an error that is not a *DeltaError, and a delta
// that reads writes out a file that reads back to the same entries and
// applies to its base, or is refused for its numbers, without a panic.
func FuzzReadDelta(f *testing.F) {
	raw := buildBytes(f, readSample(f), "DE", "AT")
	base, err := OpenBytes(raw)
	require.NoError(f, err)
	d := NewDelta(base.Identity(), fixedTime)
	require.NoError(f, d.Add("4915112345679", "26203", "Telefónica Germany", fixedTime))
	require.NoError(f, d.Add("4915112345678", "", "", fixedTime))
	require.NoError(f, d.Add("436641111111", "23210", "", fixedTime))
	var buf bytes.Buffer
	_, err = d.WriteTo(&buf)
	require.NoError(f, err)
	good := buf.Bytes()
	f.Add(good)
	for _, cut := range []int{0, 10, len(good) / 2, len(good) - 1} {
		f.Add(bytes.Clone(good[:cut]))
	}
	f.Add([]byte("numen-portdb-delta 1\nbase 0000000000000000\ncreated 2025-06-01T12:00:00Z\nend 0 00000000\n"))
	f.Add([]byte("NUMENPDB"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ReadDelta(bytes.NewReader(b), "fuzz.delta")
		if err != nil {
			var de *DeltaError
			if !errors.As(err, &de) || !strings.HasPrefix(err.Error(), "fuzz.delta") {
				t.Fatalf("ReadDelta: %v is not a *DeltaError naming the file", err)
			}
			return
		}
		var out bytes.Buffer
		if _, err := d.WriteTo(&out); err != nil {
			t.Fatalf("WriteTo of a delta read: %v", err)
		}
		again, err := ReadDelta(bytes.NewReader(out.Bytes()), "again")
		require.NoError(t, err)
		require.Equal(t, d.entries, again.entries)
		require.Equal(t, d.nets, again.nets)
		d.Base = base.Identity()
		db, err := OpenBytes(raw, WithDeltas(d))
		if err != nil {
			require.ErrorContains(t, err, "is not in a region the database covers")
			return
		}
		for e := range d.Entries() {
			r := db.Lookup(e.Number)
			require.NoError(t, r.Err())
			if !e.Returned {
				require.Equal(t, e.Network.MCCMNC, r.MCCMNC(), e.Number)
				require.True(t, r.Exact())
			}
		}
	})
}
