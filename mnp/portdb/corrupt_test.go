package portdb

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/mnp"
)

// sealBody recomputes the body checksum and then the header's, so that a
// fixture reaches the check it is about.
func sealBody(b []byte) {
	h := int(binary.LittleEndian.Uint32(b[offHeaderLen:]))
	binary.LittleEndian.PutUint32(b[offBodyCRC:], crc32.Checksum(b[h:], castagnoli()))
	sealHeader(b)
}

func sealHeader(b []byte) {
	h := int(binary.LittleEndian.Uint32(b[offHeaderLen:]))
	binary.LittleEndian.PutUint32(b[offHeaderCRC:], 0)
	binary.LittleEndian.PutUint32(b[offHeaderCRC:], crc32.Checksum(b[:h], castagnoli()))
}

// entryOffset returns the file offset of number entry i (ranges: range
// entry i).
func entryOffset(b []byte, i int, ranges bool) int {
	h, err := parseHeader(b)
	if err != nil {
		panic(err)
	}
	_, nums, _, rngs, _ := h.bodyLayout()
	if ranges {
		return h.headerLen + rngs + 8*i
	}
	return h.headerLen + nums + 8*i
}

func TestCorruptFiles(t *testing.T) {
	t.Parallel()
	good := buildBytes(t, readSample(t), "DE", "AT")
	le := binary.LittleEndian
	tests := []struct {
		name    string
		corrupt func(b []byte) []byte
		atOpen  bool   // Open refuses it; else Open accepts and Verify refuses
		want    string // in the error
		version bool   // ErrVersion rather than ErrCorrupt
	}{
		{name: "empty", atOpen: true, want: "truncated header", corrupt: func(b []byte) []byte { return b[:0] }},
		{name: "truncated header", atOpen: true, want: "truncated header", corrupt: func(b []byte) []byte { return b[:40] }},
		{name: "truncated variable header", atOpen: true, want: "header length", corrupt: func(b []byte) []byte { return b[:fixedHeaderSize+4] }},
		{name: "truncated body", atOpen: true, want: "truncated or padded", corrupt: func(b []byte) []byte { return b[:len(b)-8] }},
		{name: "body cut mid-entry", atOpen: true, want: "truncated or padded", corrupt: func(b []byte) []byte { return b[:len(b)-3] }},
		{name: "trailing bytes", atOpen: true, want: "truncated or padded", corrupt: func(b []byte) []byte { return append(b, 0, 0, 0, 0, 0, 0, 0, 0) }},
		{name: "bad magic", atOpen: true, want: "bad magic", corrupt: func(b []byte) []byte { b[0] = 'X'; return b }},
		{name: "short garbage", atOpen: true, want: "bad magic", corrupt: func(b []byte) []byte { return []byte("hello, world") }},
		{name: "newer version", atOpen: true, want: "format version 2", version: true, corrupt: func(b []byte) []byte {
			le.PutUint16(b[offVersion:], 2)
			return b
		}},
		{name: "flipped bit in header", atOpen: true, want: "header checksum", corrupt: func(b []byte) []byte { b[fixedHeaderSize+1] ^= 0x20; return b }},
		{name: "flipped bit in count", atOpen: true, want: "header checksum", corrupt: func(b []byte) []byte { b[offNumbers] ^= 1; return b }},
		{name: "count disagrees with body", atOpen: true, want: "body length", corrupt: func(b []byte) []byte {
			le.PutUint64(b[offNumbers:], le.Uint64(b[offNumbers:])+1)
			sealHeader(b)
			return b
		}},
		{name: "huge count", atOpen: true, want: "entry counts", corrupt: func(b []byte) []byte {
			le.PutUint64(b[offNumbers:], 1<<62)
			sealHeader(b)
			return b
		}},
		{name: "header length unaligned", atOpen: true, want: "header length", corrupt: func(b []byte) []byte {
			le.PutUint32(b[offHeaderLen:], le.Uint32(b[offHeaderLen:])+4)
			sealHeader(b)
			return b
		}},
		{name: "header length beyond file", atOpen: true, want: "header length", corrupt: func(b []byte) []byte {
			le.PutUint32(b[offHeaderLen:], 1<<30)
			return b
		}},
		{name: "sample stride", atOpen: true, want: "sample stride", corrupt: func(b []byte) []byte {
			b[offShift] = 40
			sealHeader(b)
			return b
		}},
		{name: "range mask without ranges", atOpen: true, want: "range length mask", corrupt: func(b []byte) []byte {
			le.PutUint16(b[offRangeMask:], 0)
			sealHeader(b)
			return b
		}},
		{name: "range mask beyond 15 digits", atOpen: true, want: "range length mask", corrupt: func(b []byte) []byte {
			le.PutUint16(b[offRangeMask:], 1<<0|1<<5)
			sealHeader(b)
			return b
		}},
		{name: "bad region", atOpen: true, want: "region", corrupt: func(b []byte) []byte {
			b[fixedHeaderSize] = 'a'
			sealHeader(b)
			return b
		}},
		{name: "bad MCCMNC", atOpen: true, want: "MCCMNC", corrupt: func(b []byte) []byte {
			b[fixedHeaderSize+2*regionSize] = 'x'
			sealHeader(b)
			return b
		}},
		{name: "network name overrun", atOpen: true, want: "network name", corrupt: func(b []byte) []byte {
			le.PutUint16(b[fixedHeaderSize+2*regionSize+6:], 60000)
			sealHeader(b)
			return b
		}},
		{name: "reserved field", atOpen: true, want: "reserved", corrupt: func(b []byte) []byte {
			b[offReserved11] = 1
			sealHeader(b)
			return b
		}},
		{name: "flipped bit in body", want: "body checksum", corrupt: func(b []byte) []byte { b[len(b)-5] ^= 0x10; return b }},
		{name: "unsorted entries", want: "not above the previous entry", corrupt: func(b []byte) []byte {
			i, j := entryOffset(b, 0, false), entryOffset(b, 1, false)
			x, y := slices.Clone(b[i:i+8]), slices.Clone(b[j:j+8])
			copy(b[i:], y)
			copy(b[j:], x)
			sealBody(b)
			return b
		}},
		{name: "duplicate entry", want: "not above the previous entry", corrupt: func(b []byte) []byte {
			i, j := entryOffset(b, 1, false), entryOffset(b, 2, false)
			copy(b[j:j+8], b[i:i+8])
			sealBody(b)
			return b
		}},
		{name: "network index out of range", want: "network index 99 out of range", corrupt: func(b []byte) []byte {
			i := entryOffset(b, 1, false)
			le.PutUint64(b[i:], le.Uint64(b[i:])&^netMask|99)
			sealBody(b)
			return b
		}},
		{name: "sixteen-digit value", want: "not 1 to 15 digits", corrupt: func(b []byte) []byte {
			i := entryOffset(b, 3, false)
			le.PutUint64(b[i:], (1<<50-1)<<netBits)
			sealBody(b)
			return b
		}},
		{name: "zero value", want: "not 1 to 15 digits", corrupt: func(b []byte) []byte {
			i := entryOffset(b, 0, true)
			le.PutUint64(b[i:], 0)
			sealBody(b)
			return b
		}},
		{name: "uncovered calling code", want: "not in a covered calling code", corrupt: func(b []byte) []byte {
			i := entryOffset(b, 3, false)
			le.PutUint64(b[i:], 99999999999999<<netBits)
			sealBody(b)
			return b
		}},
		{name: "number that is only a calling code", want: "not in a covered calling code", corrupt: func(b []byte) []byte {
			i := entryOffset(b, 0, false)
			le.PutUint64(b[i:], 43<<netBits)
			sealBody(b)
			return b
		}},
		{name: "wrong sample", want: "sample 0", corrupt: func(b []byte) []byte {
			i := entryOffset(b, 0, false) - 8 // the only sample of the numbers
			le.PutUint64(b[i:], le.Uint64(b[i:])+1)
			sealBody(b)
			return b
		}},
		{name: "range mask disagrees", want: "range length mask", corrupt: func(b []byte) []byte {
			le.PutUint16(b[offRangeMask:], le.Uint16(b[offRangeMask:])|1<<14)
			sealHeader(b)
			return b
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.corrupt(slices.Clone(good))
			db, err := OpenBytes(b)
			if tt.atOpen {
				require.Error(t, err)
			} else {
				require.NoError(t, err, "Open checks only the structure")
				// Whatever the damage, lookups stay in bounds.
				for _, d := range []string{"4915112345678", "4917612345678", "436641234567", "4915112000000", "4930123"} {
					db.Lookup(d)
				}
				err = db.Verify()
				require.Error(t, err)
				_, err2 := OpenBytes(b, WithVerify())
				require.Equal(t, err, err2, "WithVerify refuses what Verify finds")
			}
			var fe *FormatError
			require.ErrorAs(t, err, &fe)
			require.Contains(t, fe.Error(), tt.want)
			if tt.version {
				require.ErrorIs(t, err, ErrVersion)
				require.NotErrorIs(t, err, ErrCorrupt)
			} else {
				require.ErrorIs(t, err, ErrCorrupt)
			}
			if fe.Offset >= 0 {
				require.LessOrEqual(t, fe.Offset, int64(max(len(b), len(good))))
			}
		})
	}
}

// A damaged network index that Open cannot see is an error of the
// lookup, never another network's answer.
func TestLookupCorruptNetwork(t *testing.T) {
	t.Parallel()
	b := buildBytes(t, readSample(t), "DE", "AT")
	for i := range 4 {
		off := entryOffset(b, i, false)
		binary.LittleEndian.PutUint64(b[off:], binary.LittleEndian.Uint64(b[off:])|netMask)
	}
	db, err := OpenBytes(b)
	require.NoError(t, err)
	r := db.Lookup("4915112345678")
	require.False(t, r.Found())
	require.Empty(t, r.MCCMNC())
	require.ErrorIs(t, r.Err(), ErrCorrupt)
}

// truncFixture is a database of 20,000 numbers (157 KB, many pages of
// memory) and 300 ranges after them, with the numbers it has and their
// networks.
func truncFixture(t *testing.T) (b []byte, numbers []string, mccmncs []string) {
	t.Helper()
	nets := []string{"26201", "26202", "26203"}
	var csv strings.Builder
	for i := range 20_000 {
		n := strconv.Itoa(4915100000000 + 37*i)
		numbers = append(numbers, n)
		mccmncs = append(mccmncs, nets[i%3])
		csv.WriteString(n + "," + nets[i%3] + "\n")
	}
	for i := range 300 {
		csv.WriteString("+4917" + strconv.Itoa(1000+i) + "*,26207\n")
	}
	return buildBytes(t, csv.String(), "DE"), numbers, mccmncs
}

// A file truncated in place while it is mapped: a lookup whose read falls
// past the new end faults, and returns ErrChanged instead of killing the
// process (SIGBUS); so do Verify and the indexes of Open. Once a good file
// is renamed into place and swapped in, lookups answer again.
func TestLookupTruncatedInPlace(t *testing.T) {
	t.Parallel()
	good, numbers, mccmncs := truncFixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "ported.db")
	require.NoError(t, os.WriteFile(path, good, 0o644))
	db, err := Open(path, WithVerify())
	require.NoError(t, err)
	if db.unmap == nil {
		t.Skipf("files are read into memory, not mapped, on %s", runtime.GOOS)
	}
	h := NewHolder(db)
	defer h.Close()
	backend := NewBackend(h, "portdb("+path+")")
	plan := testPlan(t)

	// The numbers whose block of entries (the 2^shift entries a lookup
	// searches) starts on a page after the one holding the new end: every
	// read of their lookups faults. (The rest of the page the new end is
	// on reads as zeros, without a fault.)
	const newSize = 1000
	page := os.Getpagesize()
	var gone []int
	for i := range numbers {
		if entryOffset(good, i>>defaultShift<<defaultShift, false) >= (newSize+page-1)/page*page {
			gone = append(gone, i)
		}
	}
	require.Greater(t, len(gone), len(numbers)*9/10)
	require.Equal(t, mccmncs[gone[0]], db.Lookup(numbers[gone[0]]).MCCMNC())

	require.NoError(t, os.Truncate(path, newSize))
	require.False(t, debug.SetPanicOnFault(false), "the test's goroutine starts without")
	for k := 0; k < len(gone); k += 97 {
		n := numbers[gone[k]]
		r := db.Lookup(n)
		require.False(t, r.Found(), n)
		require.Empty(t, r.MCCMNC(), n)
		require.ErrorIs(t, r.Err(), ErrChanged, n)
		require.ErrorIs(t, h.Lookup(n).Err(), ErrChanged, n)
		res := plan.ClassifyString("+" + n)
		_, err := backend.Portability(t.Context(), mnp.Query{Number: res.Number, Region: res.CountryCode, MCCMNC: res.MCCMNC})
		require.ErrorIs(t, err, ErrChanged, n)
		require.True(t, mnp.Retryable(err), "another backend may answer")
		require.ErrorContains(t, err, "portdb("+path+"): ")
		require.ErrorContains(t, err, "truncated or modified in place")
	}
	// The setting of the goroutine is restored, whichever it was.
	require.False(t, debug.SetPanicOnFault(true))
	require.ErrorIs(t, db.Lookup(numbers[gone[0]]).Err(), ErrChanged)
	require.True(t, debug.SetPanicOnFault(false))

	require.ErrorIs(t, db.Verify(), ErrChanged)
	_, err = indexDB(db.data, nil) // the range filter reads the ranges, at the end
	require.ErrorIs(t, err, ErrChanged)
	_, err = Open(path)
	require.ErrorIs(t, err, ErrCorrupt, "a new Open sees the short file")

	// Put a good file in place the right way: written under another name,
	// then renamed over the old one; the holder takes the new database.
	tmp := filepath.Join(dir, ".ported.db.tmp")
	require.NoError(t, os.WriteFile(tmp, good, 0o644))
	require.NoError(t, os.Rename(tmp, path))
	db2, err := Open(path, WithVerify())
	require.NoError(t, err)
	h.Swap(db2)
	require.Nil(t, db.data, "the truncated mapping is released")
	for k := 0; k < len(numbers); k += 97 {
		r := h.Lookup(numbers[k])
		require.NoError(t, r.Err())
		require.Equal(t, mccmncs[k], r.MCCMNC(), numbers[k])
	}
	res := plan.ClassifyString("+" + numbers[gone[0]])
	ans, err := backend.Portability(t.Context(), mnp.Query{Number: res.Number, Region: res.CountryCode, MCCMNC: "26209"})
	require.NoError(t, err)
	require.Equal(t, mccmncs[gone[0]], ans.Network.MCCMNC)
}

// A file truncated in place within a page of its entries: the rest of
// that page reads as zeros, without a fault, and a lookup there found no
// entry and answered "not ported", a wrong answer, with no error. Every
// lookup now reads the file's last entry again after its search, so that
// each lookup after the truncation is ErrChanged, wherever its entry
// lies; the backend refuses them all (counted), reports the damage once,
// and its Health says so until a good database is swapped in.
func TestLookupTruncatedMidPage(t *testing.T) {
	t.Parallel()
	good, numbers, mccmncs := truncFixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "ported.db")
	require.NoError(t, os.WriteFile(path, good, 0o644))
	db, err := Open(path, WithVerify())
	require.NoError(t, err)
	if db.unmap == nil {
		t.Skipf("files are read into memory, not mapped, on %s", runtime.GOOS)
	}
	var reports []error
	h := NewHolder(db)
	defer h.Close()
	backend := NewBackend(h, "portdb(test)", OnDamage(func(err error) { reports = append(reports, err) }))
	require.NoError(t, backend.Health())
	require.False(t, db.Changed())
	plan := testPlan(t)

	// Cut the file 8 bytes into a page that holds number entries only:
	// the numbers whose entries lie in the rest of that page are the ones
	// whose lookups read zeros.
	page := os.Getpagesize()
	mid := entryOffset(good, len(numbers)/2, false)
	newSize := mid/page*page + 8
	var zeroed []int
	for i := range numbers {
		if off := entryOffset(good, i, false); off >= newSize && off < newSize-8+page {
			zeroed = append(zeroed, i)
		}
	}
	require.Greater(t, len(zeroed), 400)
	require.NoError(t, os.Truncate(path, int64(newSize)))

	query := func(n string) mnp.Query {
		res := plan.ClassifyString("+" + n)
		return mnp.Query{Number: res.Number, Region: res.CountryCode, MCCMNC: "26209"}
	}
	for _, i := range zeroed {
		r := db.Lookup(numbers[i])
		require.False(t, r.Found(), numbers[i])
		require.ErrorIs(t, r.Err(), ErrChanged, "entry %d, in the zeroed rest of the page", i)
		_, err := backend.Portability(t.Context(), query(numbers[i]))
		require.ErrorIs(t, err, ErrChanged, numbers[i])
		require.True(t, mnp.Retryable(err), "another backend may answer")
	}
	// An entry before the cut reads as it was, but the file is not the
	// one that was checked: its lookups are refused too.
	require.ErrorIs(t, db.Lookup(numbers[0]).Err(), ErrChanged)
	_, err = backend.Portability(t.Context(), query(numbers[0]))
	require.ErrorIs(t, err, ErrChanged)

	require.Equal(t, uint64(len(zeroed)+1), backend.Refused())
	require.True(t, db.Changed())
	require.Len(t, reports, 1, "reported once")
	require.ErrorIs(t, reports[0], ErrChanged)
	require.ErrorContains(t, reports[0], "portdb(test): ")
	herr := backend.Health()
	require.ErrorIs(t, herr, ErrChanged)
	require.ErrorContains(t, herr, "portdb(test): ")
	require.Len(t, reports, 1, "Health reports the same damage no second time")

	// A good file renamed into place and swapped in answers again.
	tmp := filepath.Join(dir, ".ported.db.tmp")
	require.NoError(t, os.WriteFile(tmp, good, 0o644))
	require.NoError(t, os.Rename(tmp, path))
	db2, err := Open(path, WithVerify())
	require.NoError(t, err)
	h.Swap(db2)
	require.NoError(t, backend.Health())
	ans, err := backend.Portability(t.Context(), query(numbers[zeroed[0]]))
	require.NoError(t, err)
	require.Equal(t, mccmncs[zeroed[0]], ans.Network.MCCMNC)
}

// Changed finds a truncation before any lookup does, by reading the
// file's last entry: a health check sees it at once.
func TestChangedWithoutLookup(t *testing.T) {
	t.Parallel()
	good, _, _ := truncFixture(t)
	path := filepath.Join(t.TempDir(), "ported.db")
	require.NoError(t, os.WriteFile(path, good, 0o644))
	db, err := Open(path, WithVerify())
	require.NoError(t, err)
	defer db.Close()
	if db.unmap == nil {
		t.Skipf("files are read into memory, not mapped, on %s", runtime.GOOS)
	}
	var reports int
	backend := NewBackend(NewHolder(db), "", OnDamage(func(error) { reports++ }))
	require.NoError(t, backend.Health())
	require.NoError(t, os.Truncate(path, int64(len(good)-8))) // within the last page: no fault
	require.True(t, db.Changed())
	require.ErrorIs(t, backend.Health(), ErrChanged)
	require.ErrorContains(t, backend.Health(), "portdb: ")
	require.Equal(t, 1, reports)
	require.Zero(t, backend.Refused(), "no lookup was refused")

	// Truncated to nothing and written again, as cp over it does: the
	// last entry of another file differs.
	db2, err := Open(path) // the short file is refused...
	require.Error(t, err)
	require.Nil(t, db2)
	require.NoError(t, os.WriteFile(path, good, 0o644))
	db3, err := Open(path, WithVerify())
	require.NoError(t, err)
	defer db3.Close()
	other := buildBytes(t, "+4915112345678,26201\n", "DE")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	require.NoError(t, err)
	_, err = f.Write(other)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.True(t, db3.Changed())
}

// A file replaced by rename while open: the open database keeps the old
// file and answers from it, right for the file it checked; the new file
// answers once opened and swapped in.
func TestReplacedByRename(t *testing.T) {
	t.Parallel()
	good, numbers, mccmncs := truncFixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "ported.db")
	require.NoError(t, os.WriteFile(path, good, 0o644))
	db, err := Open(path, WithVerify())
	require.NoError(t, err)
	h := NewHolder(db)
	defer h.Close()

	tmp := filepath.Join(dir, ".ported.db.tmp")
	require.NoError(t, os.WriteFile(tmp, buildBytes(t, "+"+numbers[0]+",26207\n", "DE"), 0o644))
	require.NoError(t, os.Rename(tmp, path))
	require.False(t, db.Changed())
	for k := 0; k < len(numbers); k += 97 {
		r := h.Lookup(numbers[k])
		require.NoError(t, r.Err())
		require.Equal(t, mccmncs[k], r.MCCMNC(), numbers[k])
	}
	db2, err := Open(path, WithVerify())
	require.NoError(t, err)
	h.Swap(db2)
	require.Equal(t, "26207", h.Lookup(numbers[0]).MCCMNC())
	require.False(t, h.Lookup(numbers[1]).Found())
}

// Only a fault at an address of the file is the file's: any other panic
// in a lookup is raised again.
func TestFaultIn(t *testing.T) {
	t.Parallel()
	data := faultInData
	base := uintptr(unsafe.Pointer(&data[0]))
	require.True(t, faultIn(addrPanic(base), data))
	require.True(t, faultIn(addrPanic(base+63), data))
	require.False(t, faultIn(addrPanic(base+64), data))
	require.False(t, faultIn(addrPanic(base-1), data))
	require.False(t, faultIn(addrPanic(base), nil))
	require.False(t, faultIn(errors.New("index out of range"), data))
	require.False(t, faultIn("boom", data))
}

type addrPanic uintptr

// faultInData is TestFaultIn's file, on the heap: a slice that does not
// escape lives on the goroutine's stack, which moves when it grows (as
// the test's calls may make it), so that the address taken of it would
// no longer be its own (it failed so in CI).
var faultInData = make([]byte, 64)

func (a addrPanic) Addr() uintptr { return uintptr(a) }

// TestTruncatedWhileOpenSweep truncates an open database file at many
// sizes (either side of every page boundary of its body, and at random
// places within pages) and looks up every 20th number and every 3rd range
// after each cut: a lookup answers ErrChanged, never wrong. (150 cuts,
// 162,800 lookups: before each lookup checked the file's last entry,
// 1,285 of them answered wrong, "not ported" for numbers in the zeroed
// rest of a page, and 75,616 answered from the file as it was.)
func TestTruncatedWhileOpenSweep(t *testing.T) {
	t.Parallel()
	good, numbers, mccmncs := truncFixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "ported.db")
	page := os.Getpagesize()
	h, err := parseHeader(good)
	require.NoError(t, err)
	var cuts []int
	for p := h.headerLen / page * page; p < len(good); p += page {
		cuts = append(cuts, p, p+8, p-8+page/2)
	}
	rnd := rand.New(rand.NewPCG(11, 30))
	for range 30 {
		cuts = append(cuts, h.headerLen+8*rnd.IntN((len(good)-h.headerLen)/8))
	}
	ranges := make([]string, 300)
	for i := range ranges {
		ranges[i] = "4917" + strconv.Itoa(1000+i) + "55555"
	}
	lookups, refused, wrong := 0, 0, 0
	for _, cut := range cuts {
		if cut <= h.headerLen || cut >= len(good) {
			continue
		}
		require.NoError(t, os.WriteFile(path, good, 0o644))
		db, err := Open(path, WithVerify())
		require.NoError(t, err)
		if db.unmap == nil {
			t.Skipf("files are read into memory, not mapped, on %s", runtime.GOOS)
		}
		require.NoError(t, os.Truncate(path, int64(cut)))
		check := func(digits, want string) {
			lookups++
			r := db.Lookup(digits)
			switch {
			case r.Err() != nil:
				require.ErrorIs(t, r.Err(), ErrChanged)
				refused++
			case r.MCCMNC() != want:
				wrong++
			}
		}
		for i := 0; i < len(numbers); i += 20 {
			check(numbers[i], mccmncs[i])
		}
		for i := 0; i < len(ranges); i += 3 {
			check(ranges[i], "26207")
		}
		require.True(t, db.Changed())
		require.NoError(t, db.Close())
	}
	t.Logf("%d cuts, %d lookups: %d refused (ErrChanged), %d wrong", len(cuts), lookups, refused, wrong)
	require.Zero(t, wrong, "wrong answers from a truncated file")
	require.Equal(t, lookups, refused, "a truncated file answers nothing")
}
