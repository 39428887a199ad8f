package numbering

import (
	"errors"
	"strings"
	"unsafe"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// ErrFormat is wrapped by every error about a plan file that is not one,
// is damaged or is of another format version.
var ErrFormat = errors.New("not a valid numbering plan file")

// FormatError reports a plan file that cannot be used: truncated, damaged
// (its checksum does not match), of another format version, or with a
// section whose contents are inconsistent. It wraps ErrFormat.
type FormatError struct {
	Section string // the section at fault, or "header"
	Offset  int    // byte offset in the file where the problem was found, -1 if none
	Msg     string
}

func (e *FormatError) Error() string {
	if e.Offset >= 0 {
		return sprintf("numbering: plan file: %s at byte %d: %s", e.Section, e.Offset, e.Msg)
	}
	return sprintf("numbering: plan file: %s: %s", e.Section, e.Msg)
}

func (e *FormatError) Unwrap() error { return ErrFormat }

func formatErr(section string, off int, format string, args ...any) error {
	return &FormatError{Section: section, Offset: off, Msg: sprintf(format, args...)}
}

// rawPlan is a plan file split into its sections, with the header checked.
type rawPlan struct {
	file     []byte
	sections map[uint32]span
	version  Version
	origin   string // the digest of the whole plan it comes from (16 bytes)
}

type span struct{ off, n int }

func (s span) of(b []byte) []byte { return b[s.off : s.off+s.n] }

// readHeader checks a plan file's header, checksums and section directory:
// a plan's, with the core sections, or (pack) a pack's, with optional
// sections and its origin only. It reads the header only; the body is only
// checksummed, unless trusted: the plan built into the binary (Load),
// whose bytes the repository's tests check in full.
func readHeader(b []byte, pack, trusted bool) (*rawPlan, error) {
	if len(b) < planfmt.HeaderSize {
		return nil, formatErr("header", -1, "%d bytes, shorter than the %d-byte header (truncated?)", len(b), planfmt.HeaderSize)
	}
	if string(b[:len(planfmt.Magic)]) != planfmt.Magic {
		return nil, formatErr("header", 0, "no %q signature: not a numbering plan file", planfmt.Magic)
	}
	if got, want := planfmt.Checksum(b[:planfmt.OffHeaderCRC]), planfmt.U32(b, planfmt.OffHeaderCRC); got != want {
		return nil, formatErr("header", planfmt.OffHeaderCRC, "checksum %08x, the header says %08x: the header is damaged", got, want)
	}
	if v := planfmt.U16(b, planfmt.OffVersion); v != planfmt.Version {
		return nil, formatErr("header", planfmt.OffVersion, "format version %d; this build of numbering reads version %d only", v, planfmt.Version)
	}
	if n := int(planfmt.U32(b, planfmt.OffLength)); n != len(b) {
		return nil, formatErr("header", planfmt.OffLength, "the header says %d bytes, the file has %d (truncated or extended)", n, len(b))
	}
	body := b[planfmt.HeaderSize:]
	if trusted {
		// Checksumming reads every byte: 3.4 MiB of the executable paged
		// in for one lookup that needs a few pages.
	} else if got, want := planfmt.Checksum(body), planfmt.U32(b, planfmt.OffBodyCRC); got != want {
		return nil, formatErr("body", planfmt.HeaderSize, "checksum %08x, the header says %08x: the file is damaged", got, want)
	}
	r := &rawPlan{file: b, sections: map[uint32]span{}}
	lpn := b[planfmt.OffLibphonenumber : planfmt.OffLibphonenumber+16]
	if i := strings.IndexByte(string(lpn), 0); i >= 0 {
		lpn = lpn[:i]
	}
	r.version.Libphonenumber = string(lpn)
	r.origin = string(b[planfmt.OffDigest : planfmt.OffDigest+planfmt.OriginSize])
	count := int(planfmt.U16(b, planfmt.OffSections))
	dirEnd := planfmt.HeaderSize + count*planfmt.DirEntrySize
	if dirEnd > len(b) {
		return nil, formatErr("directory", planfmt.HeaderSize, "%d sections do not fit in %d bytes", count, len(b))
	}
	prev := uint32(0)
	for i := range count {
		at := planfmt.HeaderSize + i*planfmt.DirEntrySize
		id, off, n := planfmt.U32(b, at), int(planfmt.U32(b, at+4)), int(planfmt.U32(b, at+8))
		if id <= prev {
			return nil, formatErr("directory", at, "section %d after section %d: out of order", id, prev)
		}
		prev = id
		if off < dirEnd || off%planfmt.SectionAlign != 0 || n > len(b)-off {
			return nil, formatErr("directory", at, "%s section at %d+%d lies outside the file", planfmt.SectionName(id), off, n)
		}
		r.sections[id] = span{off, n}
	}
	if o, ok := r.sections[planfmt.SecOrigin]; ok {
		if o.n != planfmt.OriginSize {
			return nil, formatErr("origin section", o.off, "%d bytes, not %d", o.n, planfmt.OriginSize)
		}
		r.origin = string(o.of(b))
	} else if pack {
		return nil, formatErr("directory", planfmt.HeaderSize, "no origin section: not a pack")
	}
	r.version.Tables = hexString([]byte(r.origin[:6]))
	optional := 0
	for _, id := range optionalSections {
		if _, ok := r.sections[id]; ok {
			optional++
		}
	}
	for _, id := range []uint32{planfmt.SecStrings, planfmt.SecCodes, planfmt.SecAutomata, planfmt.SecNationalPrefix} {
		_, ok := r.sections[id]
		switch {
		case !ok && !pack:
			return nil, formatErr("directory", planfmt.HeaderSize, "no %s section: a plan file needs one", planfmt.SectionName(id))
		case ok && pack:
			return nil, formatErr("directory", planfmt.HeaderSize, "a %s section: a plan file, not a pack", planfmt.SectionName(id))
		}
	}
	if pack && optional == 0 {
		return nil, formatErr("directory", planfmt.HeaderSize, "no section a pack brings")
	}
	return r, nil
}

// reader reads one section, turning every out-of-range access into an
// error that names the section and the offset, so that a damaged or
// crafted file cannot make numbering read outside it.
type reader struct {
	name string
	base int // offset of the section in the file, for messages
	b    []byte
	err  error
	// trusted skips the checks that read a whole table or automaton (the
	// order of every segment, the target of every transition): the plan
	// built into the binary (Load), which the tests check in full, so that
	// a lookup pages in only what it reads. Checks of sizes and offsets,
	// which read a few bytes, still run.
	trusted bool
}

func (r *reader) fail(off int, format string, args ...any) {
	if r.err == nil {
		r.err = formatErr(r.name, r.base+off, format, args...)
	}
}

// sub returns a reader of the rest of the section from off (empty when off
// is beyond it), whose errors name this section.
func (r *reader) sub(off int) *reader {
	if off < 0 || off > len(r.b) {
		off = len(r.b)
	}
	return &reader{name: r.name, base: r.base + off, b: r.b[off:], trusted: r.trusted}
}

// slice returns n bytes at off, or nil after recording an error.
func (r *reader) slice(off, n int) []byte {
	if off < 0 || n < 0 || off > len(r.b) || n > len(r.b)-off {
		r.fail(off, "%d bytes at %d: beyond the section's %d bytes", n, off, len(r.b))
		return nil
	}
	return r.b[off : off+n : off+n]
}

func (r *reader) u32(off int) uint32 {
	if s := r.slice(off, 4); s != nil {
		return planfmt.U32(s, 0)
	}
	return 0
}

func (r *reader) u16(off int) uint16 {
	if s := r.slice(off, 2); s != nil {
		return planfmt.U16(s, 0)
	}
	return 0
}

// stringPool is the Strings section read in place.
type stringPool struct {
	offsets []byte // uint32[count+1]
	text    []byte
	count   int
}

func readStrings(r *reader) stringPool {
	n := int(r.u32(0))
	if r.err != nil {
		return stringPool{}
	}
	if n > len(r.b)/4 {
		r.fail(0, "%d strings cannot fit in %d bytes", n, len(r.b))
		return stringPool{}
	}
	p := stringPool{offsets: r.slice(4, 4*(n+1)), count: n}
	if r.err != nil {
		return stringPool{}
	}
	p.text = r.b[4+4*(n+1):]
	if r.trusted {
		if int(planfmt.U32(p.offsets, 4*n)) > len(p.text) {
			r.fail(4+4*n, "strings end at %d, beyond the %d bytes of text", planfmt.U32(p.offsets, 4*n), len(p.text))
			return stringPool{}
		}
		return p
	}
	prev := uint32(0)
	for i := 0; i <= n; i++ {
		o := planfmt.U32(p.offsets, 4*i)
		if o < prev || int(o) > len(p.text) {
			r.fail(4+4*i, "string %d at %d: out of order or beyond the %d bytes of text", i, o, len(p.text))
			return stringPool{}
		}
		prev = o
	}
	return p
}

// get returns string id, sharing the file's bytes. Callers check ids with
// valid first.
func (p *stringPool) get(id uint32) string {
	lo, hi := planfmt.U32(p.offsets, 4*int(id)), planfmt.U32(p.offsets, 4*int(id)+4)
	if lo == hi {
		return ""
	}
	return unsafe.String(&p.text[lo], int(hi-lo))
}

func (p *stringPool) valid(id uint32) bool { return int64(id) < int64(p.count) }

// str reads a string id at off and returns the string; a bad id is an error.
func (r *reader) str(p *stringPool, off int) string {
	id := r.u32(off)
	if r.err != nil {
		return ""
	}
	if !p.valid(id) {
		r.fail(off, "string %d: there are %d", id, p.count)
		return ""
	}
	return p.get(id)
}

// automaton is a digit automaton read in place (see planfmt): one row per
// state, each within a cache line, so that a walk costs one memory access
// per digit, and none for the digits of a run.
type automaton struct {
	rows  []byte // planfmt.NarrowRow or WideRow bytes per state
	wide  bool   // uint16 state numbers; else uint8
	count int    // states
}

// readAutomaton reads the automaton at off in the Automata section and
// checks every transition and run, so that a walk stays within it.
func readAutomaton(r *reader, off uint32, what string) automaton {
	if off%planfmt.WideRow != 0 {
		r.fail(int(off), "%s automaton at %d: not aligned", what, off)
		return automaton{}
	}
	head := r.u32(int(off))
	states, wide := int(head&^planfmt.WideFlag), head&planfmt.WideFlag != 0
	row := planfmt.NarrowRow
	if wide {
		row = planfmt.WideRow
	}
	if states == 0 || states > planfmt.MaxStates || !wide && states > planfmt.MaxNarrow {
		r.fail(int(off), "%s automaton of %d states", what, states)
		return automaton{}
	}
	a := automaton{rows: r.slice(int(off)+row, row*states), wide: wide, count: states}
	if r.err != nil {
		return automaton{}
	}
	if r.trusted {
		return a
	}
	for st := 0; st < states; st++ {
		rec := a.rows[st*row : st*row+row]
		for d := 0; d < 10; d++ {
			n := int(rec[2+d])
			if n == planfmt.NarrowDead {
				n = -1
			}
			if wide {
				if n = int(planfmt.U16(rec, 2+2*d)); n == planfmt.NoState {
					n = -1
				}
			}
			if n >= states {
				r.fail(int(off)+row*(st+1), "%s automaton: state %d leads to state %d of %d", what, st, n, states)
				return automaton{}
			}
		}
		// A run promises the walk a chain of states, which it skips
		// without looking: every state of it must lead on to the next.
		run := int(a.word(st) >> planfmt.RunShift)
		if run == 0 {
			continue
		}
		ok := st+1 < states && int(a.word(st+1)>>planfmt.RunShift) >= run-1
		for d := 0; ok && d < 10; d++ {
			ok = a.step(st, d) == st+1
		}
		if !ok {
			r.fail(int(off)+row*(st+1), "%s automaton: state %d's run of %d is not a chain", what, st, run)
			return automaton{}
		}
	}
	return a
}

// word returns state s's accept word: patterns and run.
func (a *automaton) word(s int) uint16 {
	if a.wide {
		return planfmt.U16(a.rows, s*planfmt.WideRow)
	}
	return planfmt.U16(a.rows, s*planfmt.NarrowRow)
}

// match walks digits (ASCII '0'..'9') from the start state and returns the
// mask of patterns that match the whole input. Where a run of states
// follows whatever the digits (the \d{7} of most patterns), it jumps.
func (a *automaton) match(digits []byte) uint16 {
	if a.wide {
		return a.matchWide(digits)
	}
	rows := a.rows
	s, i := 0, 0
	for i < len(digits) {
		row := rows[s*planfmt.NarrowRow : s*planfmt.NarrowRow+planfmt.NarrowRow]
		if run := int(planfmt.U16(row, 0) >> planfmt.RunShift); run > 0 {
			run = min(run, len(digits)-i)
			s, i = s+run, i+run
			continue
		}
		next := row[2+(digits[i]-'0')%10]
		if next == planfmt.NarrowDead {
			return 0
		}
		s, i = int(next), i+1
	}
	return planfmt.U16(rows, s*planfmt.NarrowRow) & planfmt.PatternMask
}

func (a *automaton) matchWide(digits []byte) uint16 {
	rows := a.rows
	s, i := 0, 0
	for i < len(digits) {
		row := rows[s*planfmt.WideRow : s*planfmt.WideRow+planfmt.WideRow]
		if run := int(planfmt.U16(row, 0) >> planfmt.RunShift); run > 0 {
			run = min(run, len(digits)-i)
			s, i = s+run, i+run
			continue
		}
		next := planfmt.U16(row, 2+2*int((digits[i]-'0')%10))
		if next == planfmt.NoState {
			return 0
		}
		s, i = int(next), i+1
	}
	return planfmt.U16(rows, s*planfmt.WideRow) & planfmt.PatternMask
}

// longestPrefix walks digits and returns the length of the longest non-empty
// prefix that some pattern matches, or 0 when none does.
func (a *automaton) longestPrefix(digits []byte) int {
	s, n := 0, 0
	for i, c := range digits {
		if s = a.step(s, int(c-'0')); s < 0 {
			break
		}
		if a.acceptOf(s) != 0 {
			n = i + 1
		}
	}
	return n
}

// alive reports whether the walk over digits ends in a state from which
// some pattern can still match.
func (a *automaton) alive(digits []byte) bool {
	s := 0
	for _, c := range digits {
		if s = a.step(s, int(c-'0')); s < 0 {
			return false
		}
	}
	return true
}

// step returns the state after digit d (0-9) from state s, or -1.
func (a *automaton) step(s, d int) int {
	if a.wide {
		if n := planfmt.U16(a.rows, s*planfmt.WideRow+2+2*d); n != planfmt.NoState {
			return int(n)
		}
		return -1
	}
	if n := a.rows[s*planfmt.NarrowRow+2+d]; n != planfmt.NarrowDead {
		return int(n)
	}
	return -1
}

// future returns the patterns that match at some state reachable from s,
// s included: what input that reached s can still become.
func (a *automaton) future(s int) uint16 {
	if a.wide {
		return planfmt.U16(a.rows, s*planfmt.WideRow+planfmt.WideFuture)
	}
	return planfmt.U16(a.rows, s*planfmt.NarrowRow+planfmt.NarrowFuture)
}

// acceptOf returns the patterns that match on reaching state s.
func (a *automaton) acceptOf(s int) uint16 { return a.word(s) & planfmt.PatternMask }

// prefixTable is a prefix table read in place (see planfmt): a bucket
// index and a binary search over key segments.
type prefixTable struct {
	starts []byte // uint32 per segment
	values []byte // uint16 per segment
	first  []byte // uint32 per bucket, and one more
	shift  uint32 // keys per bucket
	n      int    // segments
}

// readTable reads a prefix table at the start of a section and returns it
// with the number of values and the offset of the values' payload. Values
// and segment order are checked, so that lookups stay within the table.
func readTable(r *reader) (t prefixTable, values, payload int) {
	n, buckets, values := int(r.u32(0)), int(r.u32(4)), int(r.u32(8))
	if r.err != nil {
		return prefixTable{}, 0, 0
	}
	if n == 0 || n > len(r.b)/6 || buckets > planfmt.MaxBucketDigits || values > planfmt.NoValue {
		r.fail(0, "table of %d segments, %d bucket digits, %d values: impossible", n, buckets, values)
		return prefixTable{}, 0, 0
	}
	nb := int(planfmt.Pow11(buckets))
	off := planfmt.TableHeaderSize
	t.starts = r.slice(off, 4*n)
	off += 4 * n
	t.values = r.slice(off, 2*n)
	off += (2*n + 3) &^ 3
	t.first = r.slice(off, 4*(nb+1))
	off += 4 * (nb + 1)
	if r.err != nil {
		return prefixTable{}, 0, 0
	}
	t.shift, t.n = planfmt.Pow11(planfmt.KeyDigits-buckets), n
	if r.trusted {
		return t, values, off
	}
	if planfmt.U32(t.starts, 0) != 0 {
		r.fail(planfmt.TableHeaderSize, "first segment starts at key %d, not 0", planfmt.U32(t.starts, 0))
	}
	// These loops run over every segment at each load: kept tight.
	prev := uint32(0)
	for off := 4; off+4 <= len(t.starts); off += 4 {
		s := planfmt.U32(t.starts, off)
		if s <= prev {
			r.fail(planfmt.TableHeaderSize+off, "segment %d starts at key %d: out of order", off/4, s)
			break
		}
		prev = s
	}
	if prev >= planfmt.KeySpan {
		r.fail(planfmt.TableHeaderSize+4*n-4, "last segment starts at key %d, beyond every key", prev)
	}
	for off := 0; off+2 <= len(t.values); off += 2 {
		if v := planfmt.U16(t.values, off); v != planfmt.NoValue && int(v) >= values {
			r.fail(planfmt.TableHeaderSize+4*n+off, "segment %d has value %d of %d", off/2, v, values)
			break
		}
	}
	// Each bucket must name the segment holding its first key, or a
	// lookup would search the wrong segments.
	for b := 0; b <= nb && r.err == nil; b++ {
		f := int(planfmt.U32(t.first, 4*b))
		switch {
		case f >= n || b == nb && f != n-1:
			r.fail(off-4*(nb+1-b), "bucket %d starts at segment %d of %d", b, f, n)
		case b < nb:
			key := uint32(b) * t.shift
			if planfmt.U32(t.starts, 4*f) > key || f+1 < n && planfmt.U32(t.starts, 4*f+4) <= key {
				r.fail(off-4*(nb+1-b), "bucket %d names segment %d, which does not hold its first key", b, f)
			}
		}
	}
	if r.err != nil {
		return prefixTable{}, 0, 0
	}
	return t, values, off
}

// lookup returns the value of the longest prefix of the digits with key k,
// or -1. The zero table has no prefixes.
func (t *prefixTable) lookup(k uint32) int {
	if t.n == 0 {
		return -1
	}
	// Division by a constant is a multiplication; by t.shift, a division.
	var b int
	switch t.shift {
	case 161051: // 11^5: four bucket digits
		b = int(k / 161051)
	case 1771561: // 11^6
		b = int(k / 1771561)
	default:
		b = int(k / t.shift)
	}
	lo := int(planfmt.U32(t.first, 4*b))
	n := int(planfmt.U32(t.first, 4*b+4)) + 1 - lo
	starts := t.starts
	for n > 1 {
		half := n >> 1
		if planfmt.U32(starts, 4*(lo+half)) <= k {
			lo += half
		}
		n -= half
	}
	if v := planfmt.U16(t.values, 2*lo); v != planfmt.NoValue {
		return int(v)
	}
	return -1
}

// hexString is hex.EncodeToString, without the package in the browser
// module.
func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 2*len(b))
	for i, c := range b {
		out[2*i], out[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(out)
}
