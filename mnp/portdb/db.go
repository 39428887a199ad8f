package portdb

import (
	"fmt"
	"hash/crc32"
	"math"
	"math/bits"
	"os"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"
)

// DB is an open portability database. Its methods are safe for concurrent
// use, except Close, which must not run while other methods do (a Holder
// closes a database only when no lookup uses it).
type DB struct {
	data   []byte             // the whole file
	unmap  func([]byte) error // releases data; nil when data is the caller's
	h      *header
	nums   table
	ranges table
	// rangeFilter answers most range lookups of prefixes the database
	// does not have without searching.
	rangeFilter filter
	// last points at the file's last 8 bytes, the last entry of the body
	// (nil when the body is empty), and lastEntry is what they held at
	// open: each lookup reads them again after its search, so that a file
	// truncated or rewritten in place is found even where the lookup's
	// own reads did not fault (see Lookup).
	last      *uint64
	lastEntry uint64
	// changed is set once a lookup or Changed found the file changed.
	changed atomic.Bool
	// file is the file Open opened (nil for OpenBytes), for Holder.Reload.
	file os.FileInfo
	// ov holds the deltas applied on top of the file (nil: none).
	ov *overlay
}

// Network is a mobile network: its MCCMNC, 5 or 6 digits, and its name
// ("" when the source did not give one).
type Network struct {
	MCCMNC string
	Name   string
}

// Option configures Open and OpenBytes.
type Option func(*options)

type options struct {
	verify   bool
	readFile bool
	deltas   []*Delta
}

// WithVerify makes Open run Verify before returning the database, for
// files from outside: a damaged file is then refused at open rather than
// found by a later Verify. It costs one pass over the file (some 30 ms
// for 10 million entries).
func WithVerify() Option { return func(o *options) { o.verify = true } }

// WithoutMmap makes Open read the file into memory instead of mapping it.
// Platforms without memory mapping (js, wasip1, windows) always do.
func WithoutMmap() Option { return func(o *options) { o.readFile = true } }

// Open opens the database file at path. On Unix it maps the file into
// memory read-only: opening costs the same for any size of file, and the
// operating system's page cache holds what lookups read. Open checks the
// header and the sizes of the tables, not the body's checksum; see Verify
// and WithVerify. The file must not be modified while it is open: replace
// it by rename (see the package documentation, Replacing the file).
func Open(path string, opts ...Option) (*DB, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size < fixedHeaderSize {
		// Read what there is, for the error's sake: a short file and a
		// file that is not a database at all are told apart.
		b := make([]byte, size)
		if _, err := f.ReadAt(b, 0); err != nil {
			return nil, fmt.Errorf("portdb: reading %s: %w", path, err)
		}
		_, err := parseHeader(b)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if size > math.MaxInt {
		return nil, fmt.Errorf("portdb: %s: %d bytes do not fit the address space", path, size)
	}
	var data []byte
	var unmap func([]byte) error
	if o.readFile {
		data, err = readAll(f, int(size))
	} else {
		data, unmap, err = mapFile(f, int(size))
	}
	if err != nil {
		return nil, fmt.Errorf("portdb: reading %s: %w", path, err)
	}
	db, err := newDB(data, unmap, &o)
	if err != nil {
		if unmap != nil {
			unmap(data)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	db.file = st
	return db, nil
}

// OpenBytes opens a database held in b, which must not be modified while
// the database is in use. Close then releases nothing.
func OpenBytes(b []byte, opts ...Option) (*DB, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return newDB(b, nil, &o)
}

func newDB(data []byte, unmap func([]byte) error, o *options) (*DB, error) {
	db, err := indexDB(data, unmap)
	if err != nil {
		return nil, err
	}
	if o.verify {
		if err := db.Verify(); err != nil {
			return nil, err
		}
	}
	if len(o.deltas) > 0 {
		if db.ov, err = newOverlay(db, o.deltas); err != nil {
			return nil, err
		}
	}
	return db, nil
}

// indexDB parses the header and makes the in-memory indexes, which read
// the samples and the range entries: a file truncated since its size was
// taken is ErrChanged, not a crash.
func indexDB(data []byte, unmap func([]byte) error) (db *DB, err error) {
	defer endRead(data, debug.SetPanicOnFault(true), &err)
	h, err := parseHeader(data)
	if err != nil {
		return nil, err
	}
	body := data[h.headerLen:]
	numSamples, nums, rangeSamples, rngs, end := h.bodyLayout()
	db = &DB{data: data, unmap: unmap, h: h}
	db.nums = newTable(uint64s(body[nums:rangeSamples]), uint64s(body[numSamples:nums]), h.shift)
	db.ranges = newTable(uint64s(body[rngs:end]), uint64s(body[rangeSamples:rngs]), h.shift)
	db.rangeFilter = newFilter(db.ranges.keys)
	if h.bodyLen > 0 {
		db.last = (*uint64)(unsafe.Pointer(&data[len(data)-8]))
		db.lastEntry = *db.last
	}
	return db, nil
}

// Close releases the memory mapping. Results already returned stay valid
// (they hold no pointer into the file), but the database must not be used
// after Close: lookups then find nothing. Closing twice does nothing.
func (db *DB) Close() error {
	data, unmap := db.data, db.unmap
	db.data, db.unmap = nil, nil
	db.nums, db.ranges, db.rangeFilter = table{}, table{}, filter{}
	db.last = nil
	db.ov = nil
	if unmap != nil && data != nil {
		return unmap(data)
	}
	return nil
}

// Result is the answer of a lookup: whether the number is ported, to
// which network, and whether by an entry for the number itself or for a
// range it is in. The zero Result is a miss. Results are small values
// that hold no pointer into the database file: they stay valid after the
// database is closed.
type Result struct {
	net    *Network
	digits string
	plen   uint8
	exact  bool
	state  resultState
}

// resultState tells a lookup that failed from a miss.
type resultState uint8

const (
	resultOK      resultState = iota
	resultCorrupt             // an entry no valid database holds
	resultChanged             // a read of the file faulted: it shrank underneath
)

// Found reports whether the database has the number, by itself or by a
// range.
func (r Result) Found() bool { return r.net != nil }

// MCCMNC returns the MCCMNC of the network the number is ported to, ""
// when not found.
func (r Result) MCCMNC() string {
	if r.net == nil {
		return ""
	}
	return r.net.MCCMNC
}

// Network returns the name of the network the number is ported to, ""
// when not found or when the database has no name for it.
func (r Result) Network() string {
	if r.net == nil {
		return ""
	}
	return r.net.Name
}

// Exact reports whether the entry found is for the number itself rather
// than for a range.
func (r Result) Exact() bool { return r.exact }

// Prefix returns the digits of the entry found: the whole number for an
// exact entry, the range's prefix (without "*") for a range, "" when not
// found.
func (r Result) Prefix() string { return r.digits[:r.plen] }

// Err reports a lookup that failed, and Found is then false: a
// *FormatError wrapping ErrCorrupt when it met an entry no valid database
// holds (the file is damaged; Verify says how), ErrChanged when a read of
// the file faulted because the file was truncated while open.
func (r Result) Err() error {
	switch r.state {
	case resultCorrupt:
		return &FormatError{Offset: -1, What: "an entry names a network the database does not have (run Verify)"}
	case resultChanged:
		return ErrChanged
	}
	return nil
}

// Lookup looks up a number given as its E.164 digits ("4915112345678"; a
// leading "+" is allowed): the entry for the number itself, else the
// entry for the longest range prefix the number starts with. Anything
// that is not 1 to 15 digits, the first not 0, is not found. Lookup
// allocates nothing.
//
// A file truncated while open makes the lookup's read of it fault: Lookup
// then returns a Result whose Err is ErrChanged, where the fault would
// otherwise kill the process. A read that does not fault may still be
// wrong: the rest of the page the new end falls in reads as zeros. So
// after its search each lookup reads the file's last entry again (one
// load of a line every lookup reads, so in the cache) and answers
// ErrChanged when it faults or differs from what it was at open: a file
// truncated, or truncated and written again (cp over it), never answers.
// Bytes changed in place short of the end are found by Verify only.
func (db *DB) Lookup(digits string) Result {
	if len(digits) > 0 && digits[0] == '+' {
		digits = digits[1:]
	}
	n := len(digits)
	if n == 0 || n > maxDigits || digits[0] == '0' {
		return Result{}
	}
	var v uint64
	for i := 0; i < n; i++ {
		d := digits[i] - '0'
		if d > 9 {
			return Result{}
		}
		v = v*10 + uint64(d)
	}
	rangesOnly := false
	if ov := db.ov; ov != nil {
		if e, ok := ov.find(v); ok {
			if i := e & netMask; i != returnedNet {
				return Result{net: &ov.nets[i], digits: digits, plen: uint8(n), exact: true}
			}
			rangesOnly = true // returned: the number's own entry is gone
		}
	}
	switch e, plen, st := db.search(v, n, rangesOnly); st {
	case foundNumber:
		return db.result(e, digits, n, true)
	case foundRange:
		return db.result(e, digits, plen, false)
	case searchFaulted:
		db.changed.Store(true)
		return Result{state: resultChanged}
	}
	return Result{}
}

// Changed reports whether the file was found changed underneath while
// open: a lookup found it so, or its last entry, read now, faults or
// differs from what it was at open (the file was truncated, or truncated
// and written again). Once found, it stays found: the database does not
// answer reliably until it is replaced (Holder.Swap). It reads one entry,
// cheap enough for every health check.
func (db *DB) Changed() (changed bool) {
	if db.changed.Load() {
		return true
	}
	if db.last == nil {
		return false
	}
	var err error
	func() {
		defer endRead(db.data, debug.SetPanicOnFault(true), &err)
		changed = *db.last != db.lastEntry
	}()
	if changed || err != nil {
		db.changed.Store(true)
		return true
	}
	return false
}

// searchState is the outcome of search.
type searchState uint8

const (
	foundNone     searchState = iota
	foundNumber               // an entry of the number itself
	foundRange                // an entry of a range prefix of plen digits
	searchFaulted             // a read of the file faulted, or its last entry changed: it shrank underneath
)

// search finds the entry for v, a number of n digits: the number's own,
// else the longest range prefix's. It is the part of a lookup that reads
// the file, and the part that runs with faults turned into panics; it
// ends by reading the file's last entry again (see Lookup). (Its results
// are scalars, which the deferred function sets in place: a Result set so
// would cost a lookup more, copied through memory.)
func (db *DB) search(v uint64, n int, rangesOnly bool) (e uint64, plen int, st searchState) {
	defer endSearch(db.data, debug.SetPanicOnFault(true), &st)
	e, plen, st = db.find(v, n, rangesOnly)
	if db.last != nil && *db.last != db.lastEntry {
		return 0, 0, searchFaulted
	}
	return e, plen, st
}

// find is the search of search, without the check of the file's end;
// rangesOnly skips the number's own entry.
func (db *DB) find(v uint64, n int, rangesOnly bool) (e uint64, plen int, st searchState) {
	if !rangesOnly {
		if e, ok := db.nums.find(v); ok {
			return e, n, foundNumber
		}
	}
	// Ranges, the longest prefix first, trying only the lengths the
	// database has.
	mask := db.h.rangeMask & (1<<(n+1) - 1)
	for mask != 0 {
		l := 15 - bits.LeadingZeros16(mask) // the longest length left
		mask &^= 1 << l
		p := v / pow10[n-l]
		if !db.rangeFilter.mayHave(p) {
			continue
		}
		if e, ok := db.ranges.find(p); ok {
			return e, l, foundRange
		}
	}
	return 0, 0, foundNone
}

func (db *DB) result(e uint64, digits string, plen int, exact bool) Result {
	i := int(e & netMask)
	if i >= len(db.h.networks) {
		return Result{state: resultCorrupt}
	}
	if db.ov != nil {
		// The same networks, with the names the deltas give.
		return Result{net: &db.ov.nets[i], digits: digits, plen: uint8(plen), exact: exact}
	}
	return Result{net: &db.h.networks[i], digits: digits, plen: uint8(plen), exact: exact}
}

// Covers reports whether the database covers the region, an ISO 3166-1
// alpha-2 code such as "DE": whether the absence of a number means it is
// not ported. Regions that share a calling code are covered one by one: a
// database of US numbers does not cover CA.
func (db *DB) Covers(region string) bool {
	for i := range db.h.regions {
		if db.h.regions[i].code == region {
			return true
		}
	}
	return false
}

// CoversCallingCode reports whether the database covers a region with the
// country calling code cc.
func (db *DB) CoversCallingCode(cc int) bool {
	for i := range db.h.regions {
		if int(db.h.regions[i].cc) == cc {
			return true
		}
	}
	return false
}

// Regions returns the covered regions, sorted.
func (db *DB) Regions() []string {
	out := make([]string, len(db.h.regions))
	for i, r := range db.h.regions {
		out[i] = r.code
	}
	return out
}

// Networks returns the networks numbers are ported to, sorted by MCCMNC.
func (db *DB) Networks() []Network { return slices.Clone(db.h.networks) }

// Info describes a database.
type Info struct {
	Version int       // format version
	Created time.Time // when the database was built; zero when not recorded
	Source  string    // description of the data, as given to the builder
	Regions []string  // covered regions, sorted
	Numbers int       // entries for single numbers
	Ranges  int       // entries for ranges (prefixes)
	// Networks is the number of distinct networks numbers are ported to.
	Networks int
	Size     int64 // bytes of the file
	// Deltas is the number of deltas applied on top of the file
	// (WithDeltas), DeltaNumbers the numbers they change and DeltaBytes
	// the memory they take.
	Deltas       int
	DeltaNumbers int
	DeltaBytes   int64
}

// Info returns the database's header information.
func (db *DB) Info() Info {
	info := Info{
		Version:  formatVersion,
		Source:   db.h.source,
		Regions:  db.Regions(),
		Numbers:  db.h.numbers,
		Ranges:   db.h.ranges,
		Networks: len(db.h.networks),
		Size:     int64(db.h.headerLen + db.h.bodyLen),
	}
	if db.h.created != 0 {
		info.Created = time.Unix(db.h.created, 0).UTC()
	}
	if ov := db.ov; ov != nil {
		info.Deltas, info.DeltaNumbers, info.DeltaBytes = ov.deltas, len(ov.keys), ov.bytes()
	}
	return info
}

// Verify checks the whole database: the body's checksum, and that each
// table is sorted without duplicates, its numbers are 1 to 15 digits in a
// covered calling code, its networks exist, its sample index is right and
// the range lengths are as the header says. It reads the whole file (some
// 30 ms for 10 million entries) and returns a *FormatError for the first
// problem, or ErrChanged when the file was truncated while open.
func (db *DB) Verify() (err error) {
	if db.data == nil {
		return fmt.Errorf("portdb: Verify after Close")
	}
	defer endRead(db.data, debug.SetPanicOnFault(true), &err)
	return db.verify()
}

func (db *DB) verify() error {
	h := db.h
	body := db.data[h.headerLen:]
	if crc := crc32.Checksum(body, castagnoli()); crc != h.bodyCRC {
		return formatErrorf(int64(h.headerLen), "body checksum %08x, computed %08x", h.bodyCRC, crc)
	}
	var covered [1000]bool
	for _, r := range h.regions {
		covered[r.cc] = true
	}
	_, nums, _, rngs, _ := h.bodyLayout()
	if err := db.verifyTable(&db.nums, int64(h.headerLen+nums), true, &covered); err != nil {
		return err
	}
	if err := db.verifyTable(&db.ranges, int64(h.headerLen+rngs), false, &covered); err != nil {
		return err
	}
	var mask uint16
	for _, e := range db.ranges.keys {
		mask |= 1 << numDigits(e>>netBits)
	}
	if mask != h.rangeMask {
		return formatErrorf(offRangeMask, "range length mask %#x, the ranges have %#x", h.rangeMask, mask)
	}
	return nil
}

func (db *DB) verifyTable(t *table, off int64, exact bool, covered *[1000]bool) error {
	what := "range"
	if exact {
		what = "number"
	}
	nets := uint64(len(db.h.networks))
	var prev uint64
	// [inLo, inHi) holds the values of one length in one covered calling
	// code, checked for the last entry: sorted entries mostly share it.
	var inLo, inHi uint64
	for i, e := range t.keys {
		at := off + 8*int64(i)
		v := e >> netBits
		if e&netMask >= nets {
			return formatErrorf(at, "%s entry %d: network index %d out of range (%d networks)", what, i, e&netMask, nets)
		}
		if i > 0 && v <= prev {
			return formatErrorf(at, "%s entry %d: %d is not above the previous entry %d (unsorted or duplicate)", what, i, v, prev)
		}
		prev = v
		if v >= inLo && v < inHi {
			continue
		}
		if v == 0 || v >= pow10[maxDigits] {
			return formatErrorf(at, "%s entry %d: value %d is not 1 to 15 digits", what, i, v)
		}
		d := numDigits(v)
		ccLen := 0
		for k := 1; k <= 3 && k <= d; k++ {
			if covered[v/pow10[d-k]] {
				ccLen = k
				break
			}
		}
		if ccLen == 0 || exact && d == ccLen {
			return formatErrorf(at, "%s entry %d: %d is not in a covered calling code", what, i, v)
		}
		cc := v / pow10[d-ccLen]
		inLo, inHi = cc*pow10[d-ccLen], (cc+1)*pow10[d-ccLen]
	}
	for i, s := range t.samples {
		if j := i << t.shift; s != t.keys[j] {
			return formatErrorf(off-8*int64(len(t.samples)-i), "%s sample %d is %#x, entry %d is %#x", what, i, s, j, t.keys[j])
		}
	}
	return nil
}
