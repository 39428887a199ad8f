package portdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"unsafe"
)

// The file layout; the package documentation describes it in prose.
const (
	magic         = "NUMENPDB"
	formatVersion = 1

	fixedHeaderSize = 72 // bytes before the variable part of the header
	regionSize      = 4  // region code (2 bytes) and calling code (uint16)
	networkSize     = 8  // MCCMNC (6 bytes, NUL-padded) and name length (uint16)

	// Field offsets in the fixed header.
	offMagic      = 0
	offVersion    = 8
	offShift      = 10
	offHeaderLen  = 12
	offCreated    = 16
	offNumbers    = 24
	offRanges     = 32
	offBodyLen    = 40
	offBodyCRC    = 48
	offHeaderCRC  = 52
	offRangeMask  = 56
	offRegions    = 58
	offNetworks   = 60
	offSourceLen  = 64
	offNamesLen   = 68
	offReserved11 = 11
	offReserved62 = 62

	// An entry is one uint64: the number or prefix as a decimal integer
	// (at most 15 digits, so below 10^15 < 2^50) shifted left by netBits,
	// and the index of its network in the low netBits bits.
	netBits     = 14
	netMask     = 1<<netBits - 1
	maxNetworks = 1 << netBits

	maxDigits = 15 // E.164

	// defaultShift is log2 of the sample stride: every 256th entry is
	// repeated in the table's sample index (1/32 byte per entry).
	defaultShift = 8
	maxShift     = 16

	maxSourceLen = 4096
	maxNameLen   = 255
	maxRegions   = 1024
	// maxEntries keeps every size computation far from overflow; it is
	// 128 times the largest table the package is designed for.
	maxEntries = 1 << 34
)

// castagnoli returns the CRC-32C table, built at its first use rather than
// when the program starts.
func castagnoli() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// pow10[i] is 10^i.
var pow10 = [...]uint64{
	1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	1000000000, 10000000000, 100000000000, 1000000000000,
	10000000000000, 100000000000000, 1000000000000000,
}

// numDigits returns the number of decimal digits of v > 0.
func numDigits(v uint64) int {
	n := 1
	for n < len(pow10) && v >= pow10[n] {
		n++
	}
	return n
}

// ErrCorrupt is wrapped by every error about a file that is not a valid
// database: truncated, damaged, or not a portability database at all.
var ErrCorrupt = errors.New("portdb: corrupt database")

// ErrVersion is wrapped by the error about a database written in a format
// version this package does not read.
var ErrVersion = errors.New("portdb: unsupported format version")

// FormatError reports a database file that cannot be used, and where.
// It wraps ErrCorrupt, or ErrVersion for a file of another format version.
type FormatError struct {
	// Offset is the byte offset in the file of the problem, -1 when the
	// problem has no single place.
	Offset int64
	// What describes the problem.
	What string

	unsupported bool
}

func (e *FormatError) Error() string {
	if e.Offset < 0 {
		return "portdb: corrupt database: " + e.What
	}
	return fmt.Sprintf("portdb: corrupt database at offset %d: %s", e.Offset, e.What)
}

// Unwrap returns ErrCorrupt, or ErrVersion for an unsupported version.
func (e *FormatError) Unwrap() error {
	if e.unsupported {
		return ErrVersion
	}
	return ErrCorrupt
}

func formatErrorf(off int64, format string, args ...any) *FormatError {
	return &FormatError{Offset: off, What: fmt.Sprintf(format, args...)}
}

// header is the decoded header of a database.
type header struct {
	shift     uint8
	headerLen int
	created   int64
	numbers   int
	ranges    int
	bodyLen   int
	bodyCRC   uint32
	headerCRC uint32 // as read; encodeHeader computes it
	rangeMask uint16 // bit L set: some range prefix has L digits
	regions   []region
	networks  []Network
	source    string
}

type region struct {
	code string
	cc   uint16
}

// samplesFor returns the number of samples of a table of n entries.
func samplesFor(n int, shift uint8) int {
	return (n + 1<<shift - 1) >> shift
}

// bodyLayout returns the offsets, relative to the body, of the four
// arrays: number samples, numbers, range samples, ranges, and the body's
// length.
func (h *header) bodyLayout() (numSamples, nums, rangeSamples, rngs, end int) {
	numSamples = 0
	nums = numSamples + 8*samplesFor(h.numbers, h.shift)
	rangeSamples = nums + 8*h.numbers
	rngs = rangeSamples + 8*samplesFor(h.ranges, h.shift)
	end = rngs + 8*h.ranges
	return
}

// parseHeader decodes and checks the header of the file b: everything
// but the body's checksum and contents. It copies the strings it keeps, so
// they stay valid after the file is unmapped.
func parseHeader(b []byte) (*header, error) {
	le := binary.LittleEndian
	if len(b) < fixedHeaderSize {
		if len(b) >= len(magic) && string(b[:len(magic)]) != magic {
			return nil, formatErrorf(0, "not a portability database (bad magic)")
		}
		return nil, formatErrorf(int64(len(b)), "truncated header: file has %d bytes, the header alone %d", len(b), fixedHeaderSize)
	}
	if string(b[offMagic:offMagic+len(magic)]) != magic {
		return nil, formatErrorf(0, "not a portability database (bad magic)")
	}
	if v := le.Uint16(b[offVersion:]); v != formatVersion {
		return nil, &FormatError{Offset: offVersion, What: fmt.Sprintf("format version %d, this package reads version %d", v, formatVersion), unsupported: true}
	}
	h := &header{
		shift:     b[offShift],
		created:   int64(le.Uint64(b[offCreated:])),
		bodyCRC:   le.Uint32(b[offBodyCRC:]),
		headerCRC: le.Uint32(b[offHeaderCRC:]),
		rangeMask: le.Uint16(b[offRangeMask:]),
	}
	if h.shift > maxShift {
		return nil, formatErrorf(offShift, "sample stride 2^%d out of range", h.shift)
	}
	if b[offReserved11] != 0 || le.Uint16(b[offReserved62:]) != 0 {
		return nil, formatErrorf(offReserved11, "reserved header fields are not zero")
	}
	headerLen := le.Uint32(b[offHeaderLen:])
	if headerLen < fixedHeaderSize || headerLen%8 != 0 || uint64(headerLen) > uint64(len(b)) {
		return nil, formatErrorf(offHeaderLen, "header length %d does not fit a file of %d bytes", headerLen, len(b))
	}
	h.headerLen = int(headerLen)
	hdr := b[:h.headerLen]

	// The header's own checksum, over the header with the field zeroed.
	crc := crc32.Update(0, castagnoli(), hdr[:offHeaderCRC])
	crc = crc32.Update(crc, castagnoli(), []byte{0, 0, 0, 0})
	crc = crc32.Update(crc, castagnoli(), hdr[offHeaderCRC+4:])
	if want := le.Uint32(b[offHeaderCRC:]); crc != want {
		return nil, formatErrorf(offHeaderCRC, "header checksum %08x, computed %08x", want, crc)
	}

	numbers, ranges, bodyLen := le.Uint64(b[offNumbers:]), le.Uint64(b[offRanges:]), le.Uint64(b[offBodyLen:])
	if numbers > maxEntries || ranges > maxEntries || numbers > math.MaxInt/32 || ranges > math.MaxInt/32 {
		return nil, formatErrorf(offNumbers, "entry counts %d and %d out of range", numbers, ranges)
	}
	h.numbers, h.ranges = int(numbers), int(ranges)
	if _, _, _, _, end := h.bodyLayout(); uint64(end) != bodyLen {
		return nil, formatErrorf(offBodyLen, "body length %d, the entry counts need %d", bodyLen, end)
	}
	if have := uint64(len(b) - h.headerLen); have != bodyLen {
		return nil, formatErrorf(int64(len(b)), "body has %d bytes, the header says %d (truncated or padded file)", have, bodyLen)
	}
	h.bodyLen = int(bodyLen)
	if h.rangeMask&^(1<<(maxDigits+1)-2) != 0 {
		return nil, formatErrorf(offRangeMask, "range length mask %#x names lengths beyond 1-%d", h.rangeMask, maxDigits)
	}
	if (h.rangeMask == 0) != (h.ranges == 0) {
		return nil, formatErrorf(offRangeMask, "range length mask %#x does not fit %d ranges", h.rangeMask, h.ranges)
	}

	nRegions, nNetworks := int(le.Uint16(b[offRegions:])), int(le.Uint16(b[offNetworks:]))
	sourceLen, namesLen := le.Uint32(b[offSourceLen:]), le.Uint32(b[offNamesLen:])
	if nRegions > maxRegions || nNetworks > maxNetworks || sourceLen > maxSourceLen || namesLen > maxNetworks*maxNameLen {
		return nil, formatErrorf(offRegions, "header table sizes out of range")
	}
	if nNetworks == 0 && h.numbers+h.ranges > 0 {
		return nil, formatErrorf(offNetworks, "entries without networks")
	}
	varLen := nRegions*regionSize + nNetworks*networkSize + int(sourceLen) + int(namesLen)
	if want := (fixedHeaderSize + varLen + 7) &^ 7; want != h.headerLen {
		return nil, formatErrorf(offHeaderLen, "header length %d, its tables need %d", h.headerLen, want)
	}
	// One string holds the variable part; names, codes and the source are
	// substrings of it, on the heap, never in the mapped file.
	vs := string(hdr[fixedHeaderSize : fixedHeaderSize+varLen])
	pos := 0
	h.regions = make([]region, nRegions)
	for i := range h.regions {
		code := vs[pos : pos+2]
		if !isUpperASCII(code) || i > 0 && code <= h.regions[i-1].code {
			return nil, formatErrorf(int64(fixedHeaderSize+pos), "region %q invalid or out of order", code)
		}
		cc := le.Uint16(hdr[fixedHeaderSize+pos+2:])
		if cc == 0 || cc > 999 {
			return nil, formatErrorf(int64(fixedHeaderSize+pos+2), "calling code %d of region %s out of range", cc, code)
		}
		h.regions[i] = region{code: code, cc: cc}
		pos += regionSize
	}
	netTable := pos
	pos += nNetworks * networkSize
	h.source = vs[pos : pos+int(sourceLen)]
	pos += int(sourceLen)
	h.networks = make([]Network, nNetworks)
	for i := range h.networks {
		rec := netTable + i*networkSize
		code := vs[rec : rec+6]
		if code[5] == 0 {
			code = code[:5]
		}
		if !isDigits(code) || i > 0 && code <= h.networks[i-1].MCCMNC {
			return nil, formatErrorf(int64(fixedHeaderSize+rec), "MCCMNC %q invalid or out of order", code)
		}
		n := int(le.Uint16(hdr[fixedHeaderSize+rec+6:]))
		if pos+n > len(vs) {
			return nil, formatErrorf(int64(fixedHeaderSize+rec+6), "network name length %d overruns the header", n)
		}
		h.networks[i] = Network{MCCMNC: code, Name: vs[pos : pos+n]}
		pos += n
	}
	if pos != len(vs) {
		return nil, formatErrorf(offNamesLen, "network name lengths do not add up to %d bytes", namesLen)
	}
	for _, pad := range hdr[fixedHeaderSize+varLen:] {
		if pad != 0 {
			return nil, formatErrorf(int64(fixedHeaderSize+varLen), "header padding is not zero")
		}
	}
	return h, nil
}

// encodeHeader returns the header for h, checksums included.
func encodeHeader(h *header) []byte {
	le := binary.LittleEndian
	namesLen := 0
	for _, n := range h.networks {
		namesLen += len(n.Name)
	}
	varLen := len(h.regions)*regionSize + len(h.networks)*networkSize + len(h.source) + namesLen
	b := make([]byte, (fixedHeaderSize+varLen+7)&^7)
	copy(b[offMagic:], magic)
	le.PutUint16(b[offVersion:], formatVersion)
	b[offShift] = h.shift
	le.PutUint32(b[offHeaderLen:], uint32(len(b)))
	le.PutUint64(b[offCreated:], uint64(h.created))
	le.PutUint64(b[offNumbers:], uint64(h.numbers))
	le.PutUint64(b[offRanges:], uint64(h.ranges))
	le.PutUint64(b[offBodyLen:], uint64(h.bodyLen))
	le.PutUint32(b[offBodyCRC:], h.bodyCRC)
	le.PutUint16(b[offRangeMask:], h.rangeMask)
	le.PutUint16(b[offRegions:], uint16(len(h.regions)))
	le.PutUint16(b[offNetworks:], uint16(len(h.networks)))
	le.PutUint32(b[offSourceLen:], uint32(len(h.source)))
	le.PutUint32(b[offNamesLen:], uint32(namesLen))
	pos := fixedHeaderSize
	for _, r := range h.regions {
		copy(b[pos:], r.code)
		le.PutUint16(b[pos+2:], r.cc)
		pos += regionSize
	}
	for _, n := range h.networks {
		copy(b[pos:pos+6], n.MCCMNC)
		le.PutUint16(b[pos+6:], uint16(len(n.Name)))
		pos += networkSize
	}
	pos += copy(b[pos:], h.source)
	for _, n := range h.networks {
		pos += copy(b[pos:], n.Name)
	}
	le.PutUint32(b[offHeaderCRC:], crc32.Checksum(b, castagnoli()))
	return b
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return s != ""
}

// littleEndian reports whether the machine stores integers little-endian,
// as the file does: then the entries are read in place. A function, not a
// variable set at start: a package without initialisation code costs the
// commands that do not use it no page of code at start (issue 33).
func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// uint64s returns b as little-endian uint64s: b itself when the machine
// is little-endian and b is 8-byte aligned (a mapped file always is), else
// a decoded copy.
func uint64s(b []byte) []uint64 {
	n := len(b) / 8
	if n == 0 {
		return nil
	}
	if littleEndian() && uintptr(unsafe.Pointer(&b[0]))%8 == 0 {
		return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return out
}
