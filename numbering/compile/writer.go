package compile

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// writer builds one section's bytes.
type writer struct{ b []byte }

func (w *writer) u16(v uint16) { w.b = binary.LittleEndian.AppendUint16(w.b, v) }
func (w *writer) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *writer) bytes(b []byte) {
	w.b = append(w.b, b...)
}

// pad appends zeros up to a multiple of n.
func (w *writer) pad(n int) {
	for len(w.b)%n != 0 {
		w.b = append(w.b, 0)
	}
}

// strings is the plan's string pool: each distinct string once, in the
// order of first use, so that the output depends on the input alone.
type stringPool struct {
	index map[string]uint32
	list  []string
}

func newStringPool() *stringPool { return &stringPool{index: map[string]uint32{}} }

func (p *stringPool) id(s string) uint32 {
	if i, ok := p.index[s]; ok {
		return i
	}
	i := uint32(len(p.list))
	p.index[s] = i
	p.list = append(p.list, s)
	return i
}

func (p *stringPool) encode() []byte {
	var w writer
	w.u32(uint32(len(p.list)))
	off := uint32(0)
	for _, s := range p.list {
		w.u32(off)
		off += uint32(len(s))
	}
	w.u32(off)
	for _, s := range p.list {
		w.b = append(w.b, s...)
	}
	return w.b
}

// section is one section of a plan file.
type section struct {
	id   uint32
	data []byte
}

// assemble writes a plan file: header, directory and sections (in
// ascending id order, each at a multiple of planfmt.SectionAlign), with the
// digest and the checksums filled in.
func assemble(libphonenumber string, sections []section) ([]byte, error) {
	if len(libphonenumber) > 16 {
		return nil, fmt.Errorf("libphonenumber version %q: longer than 16 bytes", libphonenumber)
	}
	slices.SortFunc(sections, func(a, b section) int { return int(a.id) - int(b.id) })
	const align = planfmt.SectionAlign
	size := planfmt.HeaderSize + planfmt.DirEntrySize*len(sections)
	size = (size + align - 1) &^ (align - 1)
	dir := make([]byte, 0, planfmt.DirEntrySize*len(sections))
	for _, s := range sections {
		dir = binary.LittleEndian.AppendUint32(dir, s.id)
		dir = binary.LittleEndian.AppendUint32(dir, uint32(size))
		dir = binary.LittleEndian.AppendUint32(dir, uint32(len(s.data)))
		dir = binary.LittleEndian.AppendUint32(dir, 0)
		size += (len(s.data) + align - 1) &^ (align - 1)
	}
	if size > 1<<31 {
		return nil, fmt.Errorf("plan of %d bytes: too large", size)
	}
	out := make([]byte, planfmt.HeaderSize, size)
	out = append(out, dir...)
	for len(out)%align != 0 {
		out = append(out, 0)
	}
	for _, s := range sections {
		out = append(out, s.data...)
		for len(out)%align != 0 {
			out = append(out, 0)
		}
	}
	copy(out, planfmt.Magic)
	binary.LittleEndian.PutUint16(out[planfmt.OffVersion:], planfmt.Version)
	binary.LittleEndian.PutUint16(out[planfmt.OffSections:], uint16(len(sections)))
	binary.LittleEndian.PutUint32(out[planfmt.OffLength:], uint32(len(out)))
	copy(out[planfmt.OffLibphonenumber:planfmt.OffLibphonenumber+16], libphonenumber)
	body := out[planfmt.HeaderSize:]
	sum := sha256.Sum256(body)
	copy(out[planfmt.OffDigest:planfmt.OffDigest+16], sum[:16])
	binary.LittleEndian.PutUint32(out[planfmt.OffBodyCRC:], planfmt.Checksum(body))
	binary.LittleEndian.PutUint32(out[planfmt.OffHeaderCRC:], planfmt.Checksum(out[:planfmt.OffHeaderCRC]))
	return out, nil
}

// Section names an optional part of a plan file: a plan does without it,
// answering the fields it feeds as unknown.
type Section uint32

// The optional sections.
const (
	Ranges    Section = planfmt.SecRanges    // original networks and their MCCMNCs by range
	Networks  Section = planfmt.SecNetworks  // the MCC-MNC list (Plan.Network)
	Geocoding Section = planfmt.SecGeocoding // geographic descriptions (Result.Regions of geographic numbers)
	Timezones Section = planfmt.SecTimezones // time zones
	Formats   Section = planfmt.SecFormats   // number formats (Plan.AppendFormat in styles other than E.164)
	// ShortNumbers is libphonenumber's short-number metadata
	// (Plan.ShortNumber): valid short numbers, emergency numbers, costs.
	ShortNumbers Section = planfmt.SecShortNumbers
)

// Strip returns a copy of a plan file without the given optional sections,
// with a new digest and checksums: a smaller plan, such as one for a web
// page that shows no geography. It keeps the digest of the whole plan in an
// Origin section, so that numbering names the same data version for both,
// and takes the packs cut from the same plan (Pack). The plan's checksums
// must be right.
func Strip(plan []byte, drop ...Section) ([]byte, error) {
	sections, lpn, origin, err := splitPlan(plan)
	if err != nil {
		return nil, err
	}
	for _, d := range drop {
		if !optional(d) {
			return nil, fmt.Errorf("compile: section %d is not optional", d)
		}
	}
	var keep []section
	for _, s := range sections {
		if !slices.Contains(drop, Section(s.id)) && s.id != planfmt.SecOrigin {
			keep = append(keep, s)
		}
	}
	return assemble(lpn, append(keep, section{planfmt.SecOrigin, origin}))
}

// Pack returns the given optional sections of a plan file as a pack: a
// file a plan cut from the same whole plan takes with numbering.WithPack,
// such as the geocoding a web page loads only when it shows places.
func Pack(plan []byte, sections ...Section) ([]byte, error) {
	all, lpn, origin, err := splitPlan(plan)
	if err != nil {
		return nil, err
	}
	if len(sections) == 0 {
		return nil, fmt.Errorf("compile: a pack needs at least one section")
	}
	var keep []section
	for _, want := range sections {
		if !optional(want) {
			return nil, fmt.Errorf("compile: section %d is not optional", want)
		}
		i := slices.IndexFunc(all, func(s section) bool { return s.id == uint32(want) })
		if i < 0 {
			return nil, fmt.Errorf("compile: the plan has no %s section", planfmt.SectionName(uint32(want)))
		}
		keep = append(keep, all[i])
	}
	return assemble(lpn, append(keep, section{planfmt.SecOrigin, origin}))
}

func optional(s Section) bool {
	return s == Ranges || s == Networks || s == Geocoding || s == Timezones || s == ShortNumbers || s == Formats
}

// splitPlan returns an intact plan file's sections, its libphonenumber
// release and its origin: its Origin section, or its own digest.
func splitPlan(plan []byte) (sections []section, lpn string, origin []byte, err error) {
	if len(plan) < planfmt.HeaderSize || string(plan[:len(planfmt.Magic)]) != planfmt.Magic ||
		planfmt.U16(plan, planfmt.OffVersion) != planfmt.Version || int(planfmt.U32(plan, planfmt.OffLength)) != len(plan) ||
		planfmt.Checksum(plan[planfmt.HeaderSize:]) != planfmt.U32(plan, planfmt.OffBodyCRC) {
		return nil, "", nil, fmt.Errorf("compile: not an intact plan file of format version %d", planfmt.Version)
	}
	lpn = string(plan[planfmt.OffLibphonenumber : planfmt.OffLibphonenumber+16])
	if i := strings.IndexByte(lpn, 0); i >= 0 {
		lpn = lpn[:i]
	}
	origin = plan[planfmt.OffDigest : planfmt.OffDigest+planfmt.OriginSize]
	for i := range int(planfmt.U16(plan, planfmt.OffSections)) {
		at := planfmt.HeaderSize + i*planfmt.DirEntrySize
		if at+planfmt.DirEntrySize > len(plan) {
			return nil, "", nil, fmt.Errorf("compile: section directory beyond the file")
		}
		id, off, n := planfmt.U32(plan, at), int(planfmt.U32(plan, at+4)), int(planfmt.U32(plan, at+8))
		if off > len(plan) || n > len(plan)-off {
			return nil, "", nil, fmt.Errorf("compile: section %d beyond the file", id)
		}
		if id == planfmt.SecOrigin && n == planfmt.OriginSize {
			origin = plan[off : off+n]
		}
		sections = append(sections, section{id, plan[off : off+n]})
	}
	return sections, lpn, slices.Clone(origin), nil
}
