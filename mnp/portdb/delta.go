package portdb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"iter"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The delta file format; the package documentation describes it.
const (
	deltaMagic   = "numen-portdb-delta"
	deltaVersion = 1
	// deltaTime is the layout of a delta's time stamps: RFC 3339 in UTC,
	// to the second.
	deltaTime = "2006-01-02T15:04:05Z"
	// returnedNet is the overlay's network index of a returned number.
	returnedNet = netMask
	// maxDeltaLine bounds a line of a delta file: a network line is the
	// longest (a name of at most maxNameLen bytes).
	maxDeltaLine = 512
)

// ErrDeltaBase is wrapped by the error of a delta applied to another base
// database than the one it was made for.
var ErrDeltaBase = errors.New("portdb: delta for another base database")

// DeltaError reports a problem in a delta file, by line.
type DeltaError struct {
	Name string // the file's name ("delta" when not known)
	Line int    // line number, from 1; 0 for the file as a whole
	Msg  string
}

func (e *DeltaError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Name, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg)
}

// Delta is a set of changes to one base database: numbers ported or moved
// to a network, and numbers returned, each with the time of the change.
// Read one with ReadDelta or ReadDeltaFile, make one with Diff or NewDelta
// and Add, and write it with WriteTo. Apply deltas at open (WithDeltas)
// or through a Holder (Holder.ReloadWithDeltas); Compact writes the
// result as a new base.
type Delta struct {
	// Name names the delta in errors: its file's path when read by
	// ReadDeltaFile.
	Name string
	// Base is the Identity of the database the delta applies to.
	Base uint64
	// Created is when the delta was made, to the second.
	Created time.Time

	entries []deltaEntry
	nets    []Network // the networks entries name, sorted by MCCMNC
}

// deltaEntry is one change: the number's value, the index of its network
// in Delta.nets (returnedNet: returned) and its time, Unix seconds.
type deltaEntry struct {
	v   uint64
	net uint16
	t   int64
}

// DeltaEntry is one change of a Delta.
type DeltaEntry struct {
	Number   string    // E.164 digits without "+"
	Returned bool      // the number's own entry is removed
	Network  Network   // the network it is ported to; zero when Returned
	Time     time.Time // when the change happened, UTC
}

// NewDelta returns an empty delta for the database whose Identity is base.
func NewDelta(base uint64, created time.Time) *Delta {
	return &Delta{Name: "delta", Base: base, Created: created.UTC().Truncate(time.Second)}
}

// Len returns the number of entries.
func (d *Delta) Len() int { return len(d.entries) }

// Entries yields the entries, sorted by number.
func (d *Delta) Entries() iter.Seq[DeltaEntry] {
	return func(yield func(DeltaEntry) bool) {
		for _, e := range d.entries {
			de := DeltaEntry{Number: strconv.FormatUint(e.v, 10), Time: time.Unix(e.t, 0).UTC()}
			if e.net == returnedNet {
				de.Returned = true
			} else {
				de.Network = d.nets[e.net]
			}
			if !yield(de) {
				return
			}
		}
	}
}

// Add adds a change: number (E.164 digits, a leading "+" allowed) ported
// or moved to the network mccmnc (named name, which may be ""), or, with
// mccmnc "", returned: its own entry removed, so that it answers as the
// base's ranges say (not ported, the range's own network, when none
// covers it). A number may appear once in a delta.
func (d *Delta) Add(number, mccmnc, name string, at time.Time) error {
	v, err := deltaNumber(number)
	if err != nil {
		return err
	}
	net := uint16(returnedNet)
	if mccmnc != "" {
		i, err := d.network(mccmnc, name)
		if err != nil {
			return err
		}
		net = uint16(i)
	}
	d.entries = append(d.entries, deltaEntry{v: v, net: net, t: at.Unix()})
	return nil
}

// network returns the index of a network in d.nets, adding it. Indexes of
// entries already added stay valid: networks are sorted when written.
func (d *Delta) network(mccmnc, name string) (int, error) {
	if len(mccmnc) < 5 || len(mccmnc) > 6 || !isDigits(mccmnc) {
		return 0, fmt.Errorf("mccmnc %q must be 5 or 6 digits", mccmnc)
	}
	if len(name) > maxNameLen || !utf8.ValidString(name) || strings.ContainsAny(name, "\r\n") {
		return 0, fmt.Errorf("network name must be one line of UTF-8 of at most %d bytes", maxNameLen)
	}
	for i, n := range d.nets {
		if n.MCCMNC == mccmnc {
			if name != "" && n.Name != name {
				if n.Name != "" {
					return 0, fmt.Errorf("network %s named %q and %q", mccmnc, n.Name, name)
				}
				d.nets[i].Name = name
			}
			return i, nil
		}
	}
	if len(d.nets) >= returnedNet {
		return 0, fmt.Errorf("more than %d networks", returnedNet)
	}
	d.nets = append(d.nets, Network{MCCMNC: mccmnc, Name: name})
	return len(d.nets) - 1, nil
}

// parseNumber reads 1 to 15 digits, the first not 0.
func parseNumber(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > maxDigits || b[0] == '0' {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// parseDeltaTime reads a time stamp laid out as deltaTime, to Unix
// seconds, without the allocations of time.Parse.
func parseDeltaTime(b []byte) (int64, bool) {
	if len(b) != len(deltaTime) || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[19] != 'Z' {
		return 0, false
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range b[i : i+n] {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	y, mo, d, h, mi, sec := num(0, 4), num(5, 2), num(8, 2), num(11, 2), num(14, 2), num(17, 2)
	if y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59 {
		return 0, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, 0, time.UTC)
	if t.Day() != d { // February 30th
		return 0, false
	}
	return t.Unix(), true
}

func deltaNumber(s string) (uint64, error) {
	digits := strings.TrimPrefix(s, "+")
	if len(digits) == 0 || len(digits) > maxDigits || digits[0] == '0' || !isDigits(digits) {
		return 0, fmt.Errorf("number %q is not 1 to 15 digits (E.164)", s)
	}
	return mustUint(digits), nil
}

// sort orders the entries by number and the networks by MCCMNC, and
// fails for a number given twice.
func (d *Delta) sort() error {
	order := make([]int, len(d.nets))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(d.nets[a].MCCMNC, d.nets[b].MCCMNC) })
	remap := make([]uint16, len(order))
	nets := make([]Network, len(order))
	for to, from := range order {
		remap[from] = uint16(to)
		nets[to] = d.nets[from]
	}
	d.nets = nets
	for i := range d.entries {
		if e := &d.entries[i]; e.net != returnedNet {
			e.net = remap[e.net]
		}
	}
	slices.SortStableFunc(d.entries, func(a, b deltaEntry) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	for i := 1; i < len(d.entries); i++ {
		if d.entries[i].v == d.entries[i-1].v {
			return fmt.Errorf("number +%d appears twice", d.entries[i].v)
		}
	}
	return nil
}

// WriteTo writes the delta in its file format (see the package
// documentation), entries sorted by number. It fails for a number that
// appears twice.
func (d *Delta) WriteTo(w io.Writer) (int64, error) {
	if err := d.sort(); err != nil {
		return 0, &DeltaError{Name: d.Name, Msg: err.Error()}
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s %d\nbase %016x\ncreated %s\n", deltaMagic, deltaVersion, d.Base, d.Created.UTC().Format(deltaTime))
	for _, n := range d.nets {
		fmt.Fprintf(&buf, "network %s %s\n", n.MCCMNC, n.Name)
	}
	line := make([]byte, 0, 64)
	for _, e := range d.entries {
		line = append(line[:0], '+')
		line = strconv.AppendUint(line, e.v, 10)
		line = append(line, ' ')
		if e.net == returnedNet {
			line = append(line, "returned"...)
		} else {
			line = append(line, d.nets[e.net].MCCMNC...)
		}
		line = append(line, ' ')
		line = time.Unix(e.t, 0).UTC().AppendFormat(line, deltaTime)
		line = append(line, '\n')
		buf.Write(line)
	}
	crc := crc32.Checksum(buf.Bytes(), castagnoli())
	fmt.Fprintf(&buf, "end %d %08x\n", len(d.entries), crc)
	n, err := w.Write(buf.Bytes())
	return int64(n), err
}

// ReadDeltaFile reads the delta file at path (see ReadDelta); its Name is
// path.
func ReadDeltaFile(path string) (*Delta, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadDelta(f, path)
}

// ReadDelta reads a delta in its file format (see the package
// documentation), checking all of it: a problem is a *DeltaError naming
// name and the line. A delta cut short fails its checksum or misses its
// end line.
func ReadDelta(r io.Reader, name string) (*Delta, error) {
	if name == "" {
		name = "delta"
	}
	d := &Delta{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, maxDeltaLine), maxDeltaLine)
	crc := crc32.New(castagnoli())
	line := 0
	bad := func(format string, args ...any) error {
		return &DeltaError{Name: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	// next returns the next line, without its newline, and adds it to the
	// checksum unless it is the end line.
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		line++
		return sc.Text(), true
	}
	sum := func(s string) {
		crc.Write([]byte(s))
		crc.Write([]byte{'\n'})
	}
	s, ok := next()
	if !ok {
		if err := sc.Err(); err != nil {
			return nil, bad("%v", err)
		}
		return nil, &DeltaError{Name: name, Msg: "empty: not a delta file"}
	}
	if v, found := strings.CutPrefix(s, deltaMagic+" "); !found {
		return nil, bad("not a delta file (want %q first)", deltaMagic+" "+strconv.Itoa(deltaVersion))
	} else if v != strconv.Itoa(deltaVersion) {
		return nil, bad("delta format version %q, this program reads %d", v, deltaVersion)
	}
	sum(s)
	if s, ok = next(); !ok || !strings.HasPrefix(s, "base ") {
		return nil, bad("want \"base\" and the base database's identity (16 hex digits)")
	}
	id := s[len("base "):]
	base, err := strconv.ParseUint(id, 16, 64)
	if err != nil || len(id) != 16 {
		return nil, bad("base identity %q is not 16 hex digits", id)
	}
	d.Base = base
	sum(s)
	if s, ok = next(); !ok || !strings.HasPrefix(s, "created ") {
		return nil, bad("want \"created\" and a time (%s)", deltaTime)
	}
	created, ok := parseDeltaTime([]byte(s[len("created "):]))
	if !ok {
		return nil, bad("created: %q is not a time like %s", s[len("created "):], deltaTime)
	}
	d.Created = time.Unix(created, 0).UTC()
	sum(s)
	var netIndex map[string]uint16
	var prev uint64
	newline := []byte{'\n'}
	// The entries, read from the scanner's buffer without a copy: no
	// allocation per entry but the slice's growth.
	for {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return nil, bad("%v", err)
			}
			return nil, &DeltaError{Name: name, Line: line, Msg: "no end line: the file is cut short"}
		}
		line++
		b := sc.Bytes()
		if rest, found := bytes.CutPrefix(b, []byte("end ")); found {
			var n int
			var c uint32
			if k, err := fmt.Sscanf(string(rest), "%d %08x", &n, &c); err != nil || k != 2 || string(rest) != fmt.Sprintf("%d %08x", n, c) {
				return nil, bad("end line %q: want \"end\", the count of entries and the checksum (8 hex digits)", b)
			}
			if n != len(d.entries) {
				return nil, bad("end line counts %d entries, the file has %d", n, len(d.entries))
			}
			if got := crc.Sum32(); got != c {
				return nil, bad("checksum %08x, computed %08x: the file is damaged", c, got)
			}
			break
		}
		crc.Write(b)
		crc.Write(newline)
		if rest, found := bytes.CutPrefix(b, []byte("network ")); found {
			if len(d.entries) > 0 {
				return nil, bad("network lines come before the entries")
			}
			mccmnc, netName, _ := strings.Cut(string(rest), " ")
			if i := len(d.nets); i > 0 && d.nets[i-1].MCCMNC >= mccmnc {
				return nil, bad("network %s: networks must be sorted by MCCMNC, each once", mccmnc)
			}
			if _, err := d.network(mccmnc, netName); err != nil {
				return nil, bad("%v", err)
			}
			continue
		}
		if netIndex == nil {
			netIndex = make(map[string]uint16, len(d.nets))
			for i, n := range d.nets {
				netIndex[n.MCCMNC] = uint16(i)
			}
		}
		f1, rest, ok1 := bytes.Cut(b, []byte(" "))
		f2, f3, ok2 := bytes.Cut(rest, []byte(" "))
		if !ok1 || !ok2 || len(f1) == 0 || f1[0] != '+' {
			return nil, bad("want \"+NUMBER MCCMNC|returned TIME\", got %q", b)
		}
		v, ok := parseNumber(f1[1:])
		if !ok {
			return nil, bad("number %q is not 1 to 15 digits (E.164)", f1)
		}
		if len(d.entries) > 0 && v <= prev {
			return nil, bad("number %s: entries must be sorted by number, each once", f1)
		}
		prev = v
		net := uint16(returnedNet)
		if string(f2) != "returned" {
			i, found := netIndex[string(f2)]
			if !found {
				return nil, bad("network %q has no network line (or is not \"returned\")", f2)
			}
			net = i
		}
		t, ok := parseDeltaTime(f3)
		if !ok {
			return nil, bad("time %q is not like %s", f3, deltaTime)
		}
		d.entries = append(d.entries, deltaEntry{v: v, net: net, t: t})
	}
	if sc.Scan() {
		line++
		return nil, bad("text after the end line")
	}
	if err := sc.Err(); err != nil {
		return nil, bad("%v", err)
	}
	return d, nil
}

// Identity returns the database's identity, which a delta names as its
// base: the checksums of its body and of its header (CRC-32C each), which
// differ for any two databases of different data, sources or build times.
func (db *DB) Identity() uint64 {
	return uint64(db.h.bodyCRC)<<32 | uint64(db.h.headerCRC)
}

// Diff returns the delta that turns old into new: each number of new
// whose entry is not in old, or names another network, ported at time at;
// each number of old that new does not have, returned at at. Deltas carry
// numbers, not ranges: old and new must have the same ranges and cover
// the same regions (rebuild the base otherwise). Both must be databases
// without deltas.
func Diff(old, new *DB, at time.Time) (*Delta, error) {
	if old.ov != nil || new.ov != nil {
		return nil, errors.New("portdb: Diff of a database with deltas: compact it first")
	}
	if !slices.Equal(old.Regions(), new.Regions()) {
		return nil, fmt.Errorf("portdb: the databases cover other regions (%s and %s): a delta cannot change coverage; rebuild the base",
			strings.Join(old.Regions(), ","), strings.Join(new.Regions(), ","))
	}
	if !slices.EqualFunc(old.ranges.keys, new.ranges.keys, func(a, b uint64) bool {
		return a>>netBits == b>>netBits && old.h.networks[a&netMask].MCCMNC == new.h.networks[b&netMask].MCCMNC
	}) {
		return nil, errors.New("portdb: the databases have other ranges: a delta carries numbers only; rebuild the base")
	}
	d := NewDelta(old.Identity(), at)
	t := at.Unix()
	add := func(v uint64, net int) error {
		e := deltaEntry{v: v, net: returnedNet, t: t}
		if net >= 0 {
			n := new.h.networks[net]
			i, err := d.network(n.MCCMNC, n.Name)
			if err != nil {
				return err
			}
			e.net = uint16(i)
		}
		d.entries = append(d.entries, e)
		return nil
	}
	a, b := old.nums.keys, new.nums.keys
	for len(a) > 0 || len(b) > 0 {
		var err error
		switch {
		case len(b) == 0 || len(a) > 0 && a[0]>>netBits < b[0]>>netBits:
			err = add(a[0]>>netBits, -1)
			a = a[1:]
		case len(a) == 0 || b[0]>>netBits < a[0]>>netBits:
			err = add(b[0]>>netBits, int(b[0]&netMask))
			b = b[1:]
		default:
			if old.h.networks[a[0]&netMask] != new.h.networks[b[0]&netMask] {
				err = add(b[0]>>netBits, int(b[0]&netMask))
			}
			a, b = a[1:], b[1:]
		}
		if err != nil {
			return nil, err
		}
	}
	return d, d.sort()
}
