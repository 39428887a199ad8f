package portdb

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/numenhq/numen/numbering"
)

// BuildOptions configure a build.
type BuildOptions struct {
	// Plan maps regions to calling codes and checks that every number
	// starts with one. Nil loads the numbering plan (numbering.Load).
	Plan *numbering.Plan
	// Regions are the covered regions, ISO 3166-1 alpha-2 codes such as
	// "DE": every entry must be in the calling code of one of them. Empty
	// means the regions of the calling codes the entries are in, which
	// works only for calling codes of a single region (+49, not +1).
	Regions []string
	// Source describes the data, such as "BNetzA export 2025-06-01"; at
	// most 4096 bytes.
	Source string
	// Created is recorded as the build time, to the second. The zero Time
	// means the time in the environment variable SOURCE_DATE_EPOCH (Unix
	// seconds) when set, else none: the same input then always gives the
	// same file, byte for byte.
	Created time.Time
	// Name is the input's name in error messages, such as "ported.csv";
	// default "input".
	Name string
}

// BuildStats count what a build read and wrote.
type BuildStats struct {
	Rows     int      // data rows read (an identical repeated row counts each time)
	Numbers  int      // distinct numbers written
	Ranges   int      // distinct range prefixes written (a range "a-b" may give several)
	Networks int      // distinct networks
	Regions  []string // covered regions, sorted
	Bytes    int64    // size of the database file
}

// InputError reports a problem with one row of the input, by line.
type InputError struct {
	Name string // the input's name (BuildOptions.Name)
	Line int    // line number, from 1; for Builder.Add, the count of rows added
	Msg  string
}

func (e *InputError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg) }

// Build reads CSV rows from r and writes the database to w. Each row is
//
//	number_or_range,mccmnc[,network name]
//
// where number_or_range is an E.164 number (a leading "+" optional), a
// prefix ending in "*" for every number that starts with it ("+4915112*"),
// or a range of numbers of equal length ("+491511200000-+491511299999"),
// which becomes the fewest prefixes that cover it exactly. A header row
// starting with "number_or_range", lines starting with "#" and blank lines
// are skipped. Fields may be quoted as in RFC 4180.
//
// Build holds all entries in memory until the end, for the file is
// sorted: 16 bytes each, twice that while sorting. It returns an
// *InputError naming the line for bad rows, for an MCCMNC given two names
// and for a number or prefix given two networks.
func Build(w io.Writer, r io.Reader, opts BuildOptions) (BuildStats, error) {
	b, err := NewBuilder(opts)
	if err != nil {
		return BuildStats{}, err
	}
	if err := b.ReadCSV(r); err != nil {
		return BuildStats{}, err
	}
	if _, err := b.WriteTo(w); err != nil {
		return BuildStats{}, err
	}
	return b.Stats(), nil
}

// Builder collects entries and writes a database. It is not safe for
// concurrent use.
type Builder struct {
	name    string
	plan    *numbering.Plan
	source  string
	created int64

	infer bool        // no regions given: take them from the entries
	ccs   map[int]int // calling codes: covered, or (infer) seen, with the first line
	// The calling code of the last row, to skip splitting the next's.
	lastCC      string
	lastCCValue int
	regions     []region

	nets    map[uint32]int // netKey(MCCMNC) -> index in netList
	netList []buildNetwork

	numbers, ranges []entry
	shift           uint8 // log2 of the sample stride; tests make it small
	line            int
	rows            int
	stats           BuildStats
}

type buildNetwork struct {
	Network
	nameLine int // the line that gave the name
}

// entry is one row's entry while building: value<<netBits | network
// index, and the line it came from.
type entry struct {
	key  uint64
	line uint32
}

// NewBuilder returns a Builder. It fails for regions the plan does not
// know and for a Source too long or not UTF-8.
func NewBuilder(opts BuildOptions) (*Builder, error) {
	b := &Builder{
		name:   cmp.Or(opts.Name, "input"),
		plan:   opts.Plan,
		source: opts.Source,
		ccs:    map[int]int{},
		nets:   map[uint32]int{},
		shift:  defaultShift,
	}
	if b.plan == nil {
		p, err := numbering.Load()
		if err != nil {
			return nil, fmt.Errorf("portdb: loading the numbering plan: %w", err)
		}
		b.plan = p
	}
	if len(b.source) > maxSourceLen || !utf8.ValidString(b.source) {
		return nil, fmt.Errorf("portdb: source description must be UTF-8 of at most %d bytes", maxSourceLen)
	}
	switch {
	case !opts.Created.IsZero():
		b.created = opts.Created.Unix()
	case os.Getenv("SOURCE_DATE_EPOCH") != "":
		s := os.Getenv("SOURCE_DATE_EPOCH")
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil || sec < 0 {
			return nil, fmt.Errorf("portdb: SOURCE_DATE_EPOCH %q is not a number of seconds", s)
		}
		b.created = sec
	}
	b.infer = len(opts.Regions) == 0
	for _, r := range opts.Regions {
		code := strings.ToUpper(strings.TrimSpace(r))
		cc := b.plan.CallingCode(code)
		if len(code) != 2 || cc <= 0 || cc > 999 {
			return nil, fmt.Errorf("portdb: unknown region %q", r)
		}
		if !slices.ContainsFunc(b.regions, func(x region) bool { return x.code == code }) {
			b.regions = append(b.regions, region{code: code, cc: uint16(cc)})
		}
		b.ccs[cc] = 0
	}
	if len(b.regions) > maxRegions {
		return nil, fmt.Errorf("portdb: %d regions, at most %d", len(b.regions), maxRegions)
	}
	slices.SortFunc(b.regions, func(x, y region) int { return strings.Compare(x.code, y.code) })
	return b, nil
}

// ReadCSV adds the rows of a CSV input (see Build). Errors name the line.
func (b *Builder) ReadCSV(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	var fields [3]string
	first := true
	for line := 1; sc.Scan(); line++ {
		b.line = line
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\ufeff"))
		}
		text = bytes.TrimSpace(text)
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		var f []string
		if bytes.IndexByte(text, '"') < 0 {
			// The fields view the scanner's buffer, valid until the next
			// Scan: add copies what it keeps.
			f = splitComma(fields[:0], unsafe.String(&text[0], len(text)))
		} else {
			cr := csv.NewReader(bytes.NewReader(text))
			cr.FieldsPerRecord = -1
			rec, err := cr.Read()
			if err != nil {
				var pe *csv.ParseError
				if errors.As(err, &pe) {
					err = pe.Err
				}
				return b.errorf("%v", err)
			}
			f = rec
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		if first {
			first = false
			if strings.EqualFold(f[0], "number_or_range") {
				continue
			}
		}
		if len(f) < 2 || len(f) > 3 {
			return b.errorf("want 2 or 3 fields (number_or_range,mccmnc[,network name]), got %d", len(f))
		}
		name := ""
		if len(f) == 3 {
			name = f[2]
		}
		if err := b.add(f[0], f[1], name); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			b.line++
			return b.errorf("line longer than %d bytes", 64<<10)
		}
		return fmt.Errorf("portdb: reading %s: %w", b.name, err)
	}
	return nil
}

// splitComma splits s at commas into dst, which has room for the usual
// three fields.
func splitComma(dst []string, s string) []string {
	for {
		i := strings.IndexByte(s, ',')
		if i < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:i])
		s = s[i+1:]
	}
}

// Add adds one row: a number, prefix ("4915112*") or range
// ("491511200000-491511299999"), the MCCMNC of the network it is ported to
// and that network's name (may be empty). Errors name the row by its count.
func (b *Builder) Add(numberOrRange, mccmnc, network string) error {
	b.line++
	return b.add(strings.TrimSpace(numberOrRange), strings.TrimSpace(mccmnc), strings.TrimSpace(network))
}

func (b *Builder) errorf(format string, args ...any) error {
	return &InputError{Name: b.name, Line: b.line, Msg: fmt.Sprintf(format, args...)}
}

func (b *Builder) add(key, mccmnc, name string) error {
	if uint64(b.line) > math.MaxUint32 {
		return b.errorf("too many lines")
	}
	var one [1]uint64
	values, isRange := one[:0], false
	switch {
	case strings.HasSuffix(key, "*"):
		digits, err := b.digits(key[:len(key)-1], "prefix", key)
		if err != nil {
			return err
		}
		if _, _, err := b.callingCode(digits, key); err != nil {
			return err
		}
		values, isRange = append(values, mustUint(digits)), true
	case strings.Contains(key, "-"):
		prefixes, err := b.span(key)
		if err != nil {
			return err
		}
		for _, p := range prefixes {
			if _, _, err := b.callingCode(p, key); err != nil {
				return err
			}
			values = append(values, mustUint(p))
		}
		isRange = true
	default:
		digits, err := b.digits(key, "number", key)
		if err != nil {
			return err
		}
		cc, rest, err := b.callingCode(digits, key)
		if err != nil {
			return err
		}
		if rest == "" {
			return b.errorf("number %q is only the calling code +%d", key, cc)
		}
		values = append(values, mustUint(digits))
	}
	if len(mccmnc) < 5 || len(mccmnc) > 6 || !isDigits(mccmnc) {
		return b.errorf("mccmnc %q must be 5 or 6 digits", mccmnc)
	}
	if len(name) > maxNameLen || !utf8.ValidString(name) {
		return b.errorf("network name must be UTF-8 of at most %d bytes", maxNameLen)
	}
	net, err := b.network(mccmnc, name)
	if err != nil {
		return err
	}
	dst := &b.numbers
	if isRange {
		dst = &b.ranges
	}
	for _, v := range values {
		*dst = append(*dst, entry{key: v<<netBits | uint64(net), line: uint32(b.line)})
	}
	b.rows++
	return nil
}

// network returns the index of the network, adding it when new. mccmnc
// and name may view a buffer that changes: it copies what it keeps.
func (b *Builder) network(mccmnc, name string) (int, error) {
	key := netKey(mccmnc)
	if i, ok := b.nets[key]; ok {
		n := &b.netList[i]
		switch {
		case name == "" || name == n.Name:
		case n.Name == "":
			n.Name, n.nameLine = strings.Clone(name), b.line
		default:
			return 0, b.errorf("mccmnc %s is named %q here but %q on line %d", mccmnc, name, n.Name, n.nameLine)
		}
		return i, nil
	}
	if len(b.netList) == maxNetworks {
		return 0, b.errorf("more than %d networks", maxNetworks)
	}
	b.nets[key] = len(b.netList)
	b.netList = append(b.netList, buildNetwork{Network: Network{MCCMNC: strings.Clone(mccmnc), Name: strings.Clone(name)}, nameLine: b.line})
	return len(b.netList) - 1, nil
}

// netKey maps an MCCMNC of 5 or 6 digits to a small integer, one to one:
// a map keyed by it is faster than one keyed by the string.
func netKey(mccmnc string) uint32 {
	return uint32(mustUint(mccmnc))<<1 | uint32(len(mccmnc)-5)
}

// digits checks the digits of a number or prefix, "+" optional.
func (b *Builder) digits(s, what, key string) (string, error) {
	d := strings.TrimPrefix(s, "+")
	switch {
	case d == "":
		return "", b.errorf("%s %q has no digits", what, key)
	case !isDigits(d):
		return "", b.errorf("%s %q must be digits after an optional \"+\"", what, key)
	case len(d) > maxDigits:
		return "", b.errorf("%s %q has %d digits, E.164 allows at most %d", what, key, len(d), maxDigits)
	}
	return d, nil
}

// callingCode checks that digits start with a covered calling code.
func (b *Builder) callingCode(digits, key string) (cc int, rest string, err error) {
	// Calling codes are prefix-free: digits that start with the last
	// row's calling code are in it.
	if p := b.lastCC; p != "" && len(digits) >= len(p) && digits[:len(p)] == p {
		return b.lastCCValue, digits[len(p):], nil
	}
	cc, rest, ok := b.plan.SplitCallingCode(digits)
	if !ok {
		return 0, "", b.errorf("%q does not start with a country calling code", key)
	}
	if _, covered := b.ccs[cc]; !covered {
		if !b.infer {
			return 0, "", b.errorf("%q is in calling code +%d, which the covered regions (%s) do not have", key, cc, b.regionList())
		}
		b.ccs[cc] = b.line
	}
	b.lastCC, b.lastCCValue = strconv.Itoa(cc), cc
	return cc, rest, nil
}

func (b *Builder) regionList() string { return strings.Join(b.regionCodes(), ", ") }

func (b *Builder) regionCodes() []string {
	codes := make([]string, len(b.regions))
	for i, r := range b.regions {
		codes[i] = r.code
	}
	return codes
}

// span returns the prefixes of a range "first-last" of numbers of equal
// length: the fewest that cover exactly the numbers of that length from
// first to last. A prefix also matches longer numbers, as every range
// does.
func (b *Builder) span(key string) ([]string, error) {
	from, to, _ := strings.Cut(key, "-")
	lo, err := b.digits(strings.TrimSpace(from), "range start", key)
	if err != nil {
		return nil, err
	}
	hi, err := b.digits(strings.TrimSpace(to), "range end", key)
	if err != nil {
		return nil, err
	}
	if len(lo) != len(hi) {
		return nil, b.errorf("range %q: the ends have %d and %d digits; a range is of numbers of one length", key, len(lo), len(hi))
	}
	if lo > hi {
		return nil, b.errorf("range %q ends before it starts", key)
	}
	return prefixCover(lo, hi), nil
}

// prefixCover returns the fewest prefixes that cover exactly the numbers
// of len(lo) digits from lo to hi: at each step the largest block of
// numbers that starts at the cursor, ends within hi and shares a prefix.
func prefixCover(lo, hi string) []string {
	n := len(lo)
	x, end := mustUint(lo), mustUint(hi)
	var out []string
	for x <= end {
		k := 0 // the block is 10^k numbers: the prefix drops k digits
		for k < n-1 && x%pow10[k+1] == 0 && x+pow10[k+1]-1 <= end {
			k++
		}
		out = append(out, strconv.FormatUint(x/pow10[k], 10))
		x += pow10[k]
	}
	return out
}

func mustUint(digits string) uint64 {
	var v uint64
	for i := 0; i < len(digits); i++ {
		v = v*10 + uint64(digits[i]-'0')
	}
	return v
}

// Stats returns the counts of the last WriteTo.
func (b *Builder) Stats() BuildStats { return b.stats }

// WriteTo writes the database. It sorts the entries and fails with an
// *InputError when a number or prefix was given two networks; identical
// repeated rows are written once.
func (b *Builder) WriteTo(w io.Writer) (int64, error) {
	if b.infer {
		if err := b.inferRegions(); err != nil {
			return 0, err
		}
	}
	// Networks in MCCMNC order, for a file that depends only on the set
	// of rows, not on their order. The builder keeps the new order, so
	// that it can go on adding and writing.
	order := make([]int, len(b.netList))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return strings.Compare(b.netList[x].MCCMNC, b.netList[y].MCCMNC) })
	remap := make([]uint64, len(order))
	sorted := make([]buildNetwork, len(order))
	networks := make([]Network, len(order))
	for to, from := range order {
		remap[from] = uint64(to)
		sorted[to] = b.netList[from]
		networks[to] = b.netList[from].Network
		b.nets[netKey(networks[to].MCCMNC)] = to
	}
	b.netList = sorted
	nums, err := b.finish(b.numbers, remap, "number")
	if err != nil {
		return 0, err
	}
	b.numbers = nums
	rngs, err := b.finish(b.ranges, remap, "prefix")
	if err != nil {
		return 0, err
	}
	b.ranges = rngs

	h := &header{
		shift:    b.shift,
		created:  b.created,
		numbers:  len(nums),
		ranges:   len(rngs),
		regions:  b.regions,
		networks: networks,
		source:   b.source,
	}
	for _, e := range rngs {
		h.rangeMask |= 1 << numDigits(e.key>>netBits)
	}
	_, _, _, _, h.bodyLen = h.bodyLayout()
	crc := crc32.New(castagnoli())
	if err := writeBody(crc, h.shift, nums, rngs); err != nil {
		return 0, err
	}
	h.bodyCRC = crc.Sum32()
	hdr := encodeHeader(h)

	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	if _, err := bw.Write(hdr); err != nil {
		return cw.n, err
	}
	if err := writeBody(bw, h.shift, nums, rngs); err != nil {
		return cw.n, err
	}
	if err := bw.Flush(); err != nil {
		return cw.n, err
	}
	b.stats = BuildStats{
		Rows:     b.rows,
		Numbers:  len(nums),
		Ranges:   len(rngs),
		Networks: len(networks),
		Regions:  b.regionCodes(),
		Bytes:    cw.n,
	}
	return cw.n, nil
}

// inferRegions covers the regions of the calling codes seen, each of
// which must be a single region's.
func (b *Builder) inferRegions() error {
	ccs := make([]int, 0, len(b.ccs))
	for cc := range b.ccs {
		ccs = append(ccs, cc)
	}
	slices.Sort(ccs)
	b.regions = b.regions[:0]
	for _, cc := range ccs {
		regions := b.plan.Regions(cc)
		if len(regions) != 1 || len(regions[0]) != 2 || !isUpperASCII(regions[0]) {
			b.line = b.ccs[cc]
			if len(regions) > 1 {
				return b.errorf("calling code +%d is shared by %s: name the covered regions", cc, strings.Join(regions, ", "))
			}
			return b.errorf("calling code +%d is not a country's", cc)
		}
		b.regions = append(b.regions, region{code: regions[0], cc: uint16(cc)})
	}
	if len(b.regions) > maxRegions {
		return fmt.Errorf("portdb: %d regions, at most %d", len(b.regions), maxRegions)
	}
	slices.SortFunc(b.regions, func(x, y region) int { return strings.Compare(x.code, y.code) })
	return nil
}

// finish renumbers the networks of es, sorts them, drops repetitions and
// reports a value given two networks.
func (b *Builder) finish(es []entry, remap []uint64, what string) ([]entry, error) {
	for i := range es {
		es[i].key = es[i].key&^netMask | remap[es[i].key&netMask]
	}
	radixSort(es)
	out := es[:0]
	for i := 0; i < len(es); {
		j := i + 1
		v := es[i].key >> netBits
		for j < len(es) && es[j].key>>netBits == v {
			if es[j].key != es[i].key {
				// Two networks: the first line of each, the later one
				// reported. (The sort is stable: equal keys in the order
				// of their lines.)
				first, second := es[i], es[j]
				if second.line < first.line {
					first, second = second, first
				}
				plus := ""
				if what == "prefix" {
					plus = "*"
				}
				b.line = int(second.line)
				nets := b.sortedNetworks()
				return nil, b.errorf("%s +%d%s maps to %s here but to %s on line %d", what, v, plus,
					nets[second.key&netMask], nets[first.key&netMask], first.line)
			}
			j++
		}
		out = append(out, es[i])
		i = j
	}
	return out, nil
}

func (b *Builder) sortedNetworks() []string {
	codes := make([]string, len(b.netList))
	for i, n := range b.netList {
		codes[i] = n.MCCMNC
	}
	slices.Sort(codes)
	return codes
}

// radixSort sorts es by key, stably: a least-significant-digit radix sort,
// 11 bits at a time, skipping the digits all keys share. It is several
// times faster than a comparison sort of 10 million entries, for a buffer
// the size of es.
func radixSort(es []entry) {
	if len(es) < 2 {
		return
	}
	const bits = 11
	const passes = (64 + bits - 1) / bits
	var counts [passes][1 << bits]int
	for _, e := range es {
		for p := range passes {
			counts[p][e.key>>(p*bits)&(1<<bits-1)]++
		}
	}
	buf := make([]entry, len(es))
	src, dst := es, buf
	for p := range passes {
		c := &counts[p]
		if c[es[0].key>>(p*bits)&(1<<bits-1)] == len(es) {
			continue // every key has this digit
		}
		sum := 0
		for i := range c {
			c[i], sum = sum, sum+c[i]
		}
		for _, e := range src {
			d := e.key >> (p * bits) & (1<<bits - 1)
			dst[c[d]] = e
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &es[0] {
		copy(es, src)
	}
}

// writeBody writes the tables: the samples and entries of the numbers,
// then of the ranges.
func writeBody(w io.Writer, shift uint8, nums, rngs []entry) error {
	buf := make([]byte, 0, 64<<10)
	put := func(v uint64) error {
		buf = binary.LittleEndian.AppendUint64(buf, v)
		if len(buf) == cap(buf) {
			_, err := w.Write(buf)
			buf = buf[:0]
			return err
		}
		return nil
	}
	for _, es := range [][]entry{nums, rngs} {
		for i := 0; i < len(es); i += 1 << shift {
			if err := put(es[i].key); err != nil {
				return err
			}
		}
		for _, e := range es {
			if err := put(e.key); err != nil {
				return err
			}
		}
	}
	_, err := w.Write(buf)
	return err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
