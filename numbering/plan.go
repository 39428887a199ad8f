package numbering

import (
	"io"
	"strconv"

	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// Plan is the world's numbering plan: every calling code and region with
// its number ranges compiled into digit automata, and the prefix tables for
// original networks, geographic regions and time zones. It is read in place
// from a compiled plan file (see Open). Load it once and share it; it is
// immutable and safe for concurrent use.
type Plan struct {
	file     []byte // the plan file; strings and tables point into it
	strings  stringPool
	byCC     [planfmt.MaxCallingCode]int16 // calling code -> index into codes, -1 when unassigned
	codes    []callingCode
	regions  []region
	byRegion [26 * 26]int16 // ISO code (two letters) -> index into regions + 1; 0 when none
	// ranges maps a number to the original network of its longest
	// assigned range: name and MCCMNC come from that one range, so that
	// an answer never pairs one operator's name with another's code.
	ranges    prefixTable
	rangeNets []byte // by ranges value: uint32 name and MCCMNC strings (rangeNetwork)
	geo       prefixTable
	places    places // geocoding descriptions, by geo value
	zones     prefixTable
	zoneSets  [][]string // time-zone lists, by zones value
	networks  networkList
	formats   formats      // number formats; empty without the section
	short     shortNumbers // libphonenumber's short numbers; zero without the section
	overlay   *overlay     // nil without overlays
	version   Version
	dialling  bool     // the plan has the Dialling section: ParseIn can read national input
	origin    string   // the digest of the whole plan the file was cut from
	packs     int      // packs taken (WithPack)
	deferred  deferred // sections Load reads on first use
	trusted   bool     // read by Load, with the checks that read every byte skipped
}

// Version identifies the numbering data a Plan was loaded from.
type Version struct {
	Libphonenumber string // release of the core metadata (types, lengths, formats), such as "v9.0.43"
	Tables         string // the first 12 hex digits of the plan file's digest
	// Overlay names the overlays compiled over the plan (WithOverlay), each
	// as "name (N lines, crc32c XXXXXXXX)", the last the CRC-32C of its
	// text; "" without overlays.
	Overlay string
}

// String returns "libphonenumber v9.0.43 + numen-data <digest>", followed by
// " + overlay <Overlay>" when overlays apply.
func (v Version) String() string {
	s := "libphonenumber " + v.Libphonenumber + " + numen-data " + v.Tables
	if v.Overlay != "" {
		s += " + overlay " + v.Overlay
	}
	return s
}

// Version returns the version of the data the plan was loaded from: the
// plan file's, and the overlays' when there are any.
func (p *Plan) Version() Version { return p.version }

type callingCode struct {
	code    int
	prefix  string   // "+49"
	regions []int    // indexes into Plan.regions, main region first
	ids     []string // their codes, in the same order
	strip   *nationalPrefix
	// dispatch narrows a shared code's regions by the first national
	// digits (planfmt.DispatchDigits): a uint32 mask of candidate regions
	// (bit j for regions[j]) for each; nil for a code of one region.
	dispatch []byte
	// minLength is the shortest possible length of a national number of
	// any of its regions; -1 when none has one.
	minLength int
	// zones are the time zones of the calling code as a whole, which
	// non-geographic numbers take; nil when unknown.
	zones []string
}

// Number-type descriptions in the order of the bits of regionAutomata.types.
const (
	descGeneral = iota
	descFixed
	descMobile
	descTollFree
	descPremium
	descShared
	descPersonal
	descVoIP
	descPager
	descUAN
	descVoicemail
	descCount
)

type region struct {
	id       string // ISO 3166-1 alpha-2, or "001" for a non-geographic calling code
	name     string // English name
	nameList []string
	cc       int
	mnp      bool
	sameMF   bool              // same_mobile_and_fixed_line_pattern
	aut      regionAutomata    // through automata(): Load reads them at first use
	lazy     *lazyAutomata     // for Load, until the region's first use; else nil
	lengths  [descCount]uint32 // bit l: length l possible; all ones when unrestricted
	possMin  int               // shortest possible length of the general desc; -1 when none
	possMax  int               // longest
	local    uint32            // general desc local-only lengths
	hasLead  bool              // the region has leading digits (regionAutomata.leading)
	// idd and natPrefix read national input in the region (ParseIn): its
	// international prefix and its national prefix for parsing with its
	// transform rule; nil when it has none, or the plan no Dialling section.
	idd, natPrefix *nationalPrefix
}

// The automata's patterns are planfmt's descs, in its order.
var _ [descCount - planfmt.Descs]struct{}
var _ [planfmt.Descs - descCount]struct{}

// rangeNetwork is the network a number range was originally assigned to.
type rangeNetwork struct {
	name   string // "" when the range has no name (a hole in a named range)
	mccmnc string // "" when the name resolved to no single MCCMNC
}

// Option configures Load, Open and OpenBytes.
type Option func(*options)

type options struct {
	overlays []overlaySource
	packs    [][]byte
	// apply is Plan.applyOverlays, set by the overlay options only, so
	// that a program that never gives an overlay (the WebAssembly module)
	// links none of its code: 111 KB of the module, 20 KB with Brotli.
	apply func(*Plan, []overlaySource) error
}

type overlaySource struct {
	name string
	r    io.Reader // nil: open the file name
}

// WithOverlay compiles an overlay over the plan: corrections and new ranges
// in the text format of the package documentation (# Overlays), read from
// r when the plan loads. Numbers in its prefixes are answered by it, and
// Plan.Version names it. A line that cannot be compiled (a bad field, an
// unknown calling code, a prefix given twice) fails the load with an
// *OverlayError naming the line. The option may be given more than once.
func WithOverlay(r io.Reader) Option {
	return func(o *options) {
		o.overlays = append(o.overlays, overlaySource{name: "overlay", r: r})
		o.apply = (*Plan).applyOverlays
	}
}

// WithPack adds a pack's sections to the plan: optional sections (network
// ranges, the MCC-MNC list, geocoding, time zones, short numbers) cut with
// compile.Pack (go run ./data/gen -pack) from the whole plan that the plan
// itself was cut from, so that a web page loads only the data it shows. A
// pack of another generation, a section the plan already has and a damaged
// pack give a *FormatError. b must not be modified afterwards. The option
// may be given more than once.
func WithPack(b []byte) Option {
	return func(o *options) { o.packs = append(o.packs, b) }
}

// WithOverlayFile is WithOverlay for a file; its path names the overlay in
// Plan.Version and in errors.
func WithOverlayFile(path string) Option {
	return func(o *options) {
		o.overlays = append(o.overlays, overlaySource{name: path})
		o.apply = (*Plan).applyOverlays
	}
}

// Load opens the plan compiled into the binary (package data): a few
// milliseconds, with under a megabyte allocated (see the package
// documentation). Do it once and share the Plan. The plan's bytes are part
// of the executable, checked in full by the repository's tests: Load checks
// their header, not every byte, so that a short-lived program pages in only
// the parts of the plan it uses (Open and OpenBytes check every byte;
// Plan.Verify checks a loaded plan as Open does and more).
func Load(opts ...Option) (*Plan, error) {
	return openBytes(data.Plan(), true, opts)
}

// Open reads a plan file, such as one written by go run ./data/gen from
// newer libphonenumber metadata, so that a program can use newer data
// without being rebuilt. A file that is not a plan file, is damaged
// (checksums) or is of another format version gives a *FormatError.
func Open(path string, opts ...Option) (*Plan, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, &fileError{err: err}
	}
	p, err := OpenBytes(b, opts...)
	if err != nil {
		return nil, &fileError{path: path, err: err}
	}
	return p, nil
}

// fileError is an error of Open: the file's, or the plan's with the path.
type fileError struct {
	path string // "" when err names the file itself
	err  error
}

func (e *fileError) Error() string {
	if e.path == "" {
		return "numbering: " + e.err.Error()
	}
	return e.err.Error() + " (" + e.path + ")"
}

func (e *fileError) Unwrap() error { return e.err }

// OpenBytes reads a plan from the bytes of a plan file, in place: the Plan
// keeps b and its strings and tables point into it, so b must not be
// modified afterwards. It checks the header, the checksum of the whole file
// and the structure every lookup relies on; Verify checks more.
func OpenBytes(b []byte, opts ...Option) (*Plan, error) {
	return openBytes(b, false, opts)
}

// openBytes is OpenBytes, with the checks that read every byte of the plan
// skipped when it is trusted (Load); packs and overlays are checked as ever.
func openBytes(b []byte, trusted bool, opts []Option) (*Plan, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	raw, err := readHeader(b, false, trusted)
	if err != nil {
		return nil, err
	}
	p := &Plan{file: b, version: raw.version, origin: raw.origin, trusted: trusted}
	if err := p.read(raw, trusted); err != nil {
		return nil, err
	}
	for i, pack := range o.packs {
		if err := p.readPack(pack); err != nil {
			return nil, &packError{n: i + 1, err: err}
		}
	}
	if len(o.overlays) > 0 {
		if err := o.apply(p, o.overlays); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *Plan) read(raw *rawPlan, trusted bool) error {
	sec := func(id uint32) *reader {
		s, ok := raw.sections[id]
		if !ok {
			return nil
		}
		return &reader{name: planfmt.SectionName(id) + " section", base: s.off, b: s.of(raw.file), trusted: trusted}
	}
	strs := sec(planfmt.SecStrings)
	p.strings = readStrings(strs)
	if strs.err != nil {
		return strs.err
	}
	automata := sec(planfmt.SecAutomata)
	np := sec(planfmt.SecNationalPrefix)
	progs := readPrograms(np, automata)
	if err := firstErr(np.err, automata.err); err != nil {
		return err
	}
	codes := sec(planfmt.SecCodes)
	p.readCodes(codes, automata, progs)
	if err := firstErr(codes.err, automata.err); err != nil {
		return err
	}
	if d := sec(planfmt.SecDialling); d != nil {
		if p.readDialling(d, progs); d.err != nil {
			return d.err
		}
	}
	for _, id := range optionalSections {
		if r := sec(id); r != nil {
			switch {
			case trusted && id == planfmt.SecNetworks: // read on first use (deferred.go)
				p.deferred.networks.r = r
				continue
			case trusted && id == planfmt.SecShortNumbers:
				p.deferred.short.r = r
				continue
			case trusted && id == planfmt.SecGeocoding:
				p.deferred.geo.r = r
				continue
			}
			if err := p.readOptional(id, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// readOptional reads one optional section, of the plan or of a pack.
func (p *Plan) readOptional(id uint32, r *reader) error {
	switch id {
	case planfmt.SecRanges:
		p.readRanges(r)
	case planfmt.SecGeocoding:
		p.readGeocoding(r)
	case planfmt.SecTimezones:
		p.readZones(r)
		for i := range p.codes {
			var digits [maxCallingCodeDigits]byte
			cc := p.codes[i].prefix[1:]
			copy(digits[:], cc)
			if z := p.zones.lookup(planfmt.Key(digits[:len(cc)])); z >= 0 {
				p.codes[i].zones = p.zoneSets[z]
			}
		}
	case planfmt.SecNetworks:
		p.networks.read(r)
	case planfmt.SecShortNumbers:
		p.readShortNumbers(r)
	case planfmt.SecFormats:
		p.readFormats(r)
	}
	return r.err
}

// optionalSections are the sections a plan may do without, which packs
// may bring.
var optionalSections = [...]uint32{planfmt.SecRanges, planfmt.SecGeocoding, planfmt.SecTimezones, planfmt.SecNetworks, planfmt.SecFormats, planfmt.SecShortNumbers}

// has reports whether the plan holds an optional section.
func (p *Plan) has(id uint32) bool {
	switch id {
	case planfmt.SecRanges:
		return p.ranges.n > 0
	case planfmt.SecGeocoding:
		return p.geo.n > 0 || p.deferred.geo.r != nil
	case planfmt.SecTimezones:
		return p.zones.n > 0
	case planfmt.SecNetworks:
		return p.networks.records != nil || p.deferred.networks.r != nil
	case planfmt.SecShortNumbers:
		return p.short.regions != nil || p.deferred.short.r != nil
	case planfmt.SecFormats:
		return p.formats.codes != nil
	}
	return false
}

// readPack adds a pack's sections to the plan.
func (p *Plan) readPack(b []byte) error {
	raw, err := readHeader(b, true, false)
	if err != nil {
		return err
	}
	if raw.origin != p.origin || raw.version.Libphonenumber != p.version.Libphonenumber {
		return formatErr("origin section", raw.sections[planfmt.SecOrigin].off, "the pack is of libphonenumber %s + numen-data %s, the plan of %s + %s",
			raw.version.Libphonenumber, raw.version.Tables, p.version.Libphonenumber, p.version.Tables)
	}
	for _, id := range optionalSections {
		s, ok := raw.sections[id]
		if !ok {
			continue
		}
		if p.has(id) {
			return formatErr("directory", planfmt.HeaderSize, "the plan already has a %s section", planfmt.SectionName(id))
		}
		if err := p.readOptional(id, &reader{name: planfmt.SectionName(id) + " section", base: s.off, b: s.of(b)}); err != nil {
			return err
		}
	}
	p.packs++
	return nil
}

// packError names the pack an error is about.
type packError struct {
	n   int
	err error
}

func (e *packError) Error() string { return e.err.Error() + " (pack " + strconv.Itoa(e.n) + ")" }
func (e *packError) Unwrap() error { return e.err }

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// readCodes decodes the small directory of calling codes and regions; the
// automata stay in the file.
func (p *Plan) readCodes(r *reader, automata *reader, progs []nationalPrefix) {
	for cc := range p.byCC {
		v := r.u16(2 * cc)
		p.byCC[cc] = -1
		if v != planfmt.NoIndex {
			p.byCC[cc] = int16(v)
		}
	}
	off := 2 * planfmt.MaxCallingCode
	nCodes, nRegions := int(r.u32(off)), int(r.u32(off+4))
	off += 8
	if r.err != nil {
		return
	}
	if nCodes > planfmt.MaxCallingCode || nRegions >= planfmt.NoIndex {
		r.fail(off-8, "%d calling codes and %d regions: impossible", nCodes, nRegions)
		return
	}
	codesAt := off
	regionsAt := codesAt + nCodes*planfmt.CodeSize
	orderAt := regionsAt + nRegions*planfmt.RegionSize
	p.regions = make([]region, nRegions)
	names := make([]string, nRegions)
	for i := range p.regions {
		at := regionsAt + i*planfmt.RegionSize
		rg := &p.regions[i]
		rg.id = r.str(&p.strings, at+planfmt.RegionID)
		rg.name = r.str(&p.strings, at+planfmt.RegionName)
		names[i] = rg.name
		rg.nameList = names[i : i+1 : i+1]
		flags := r.u32(at + planfmt.RegionFlags)
		rg.mnp, rg.sameMF = flags&planfmt.FlagMNP != 0, flags&planfmt.FlagSameMobileAndFixed != 0
		types, lead := r.u32(at+planfmt.RegionTypes), r.u32(at+planfmt.RegionLeading)
		rg.hasLead = lead != planfmt.NoOffset
		if automata.trusted { // read at the region's first use (deferred.go)
			rg.lazy = &lazyAutomata{r: automata, types: types, leading: lead}
		} else {
			rg.aut = readRegionAutomata(automata, rg.id, types, lead)
		}
		rg.local = r.u32(at + planfmt.RegionLocalOnly)
		if s := r.slice(at+planfmt.RegionPossibleMin, 2); s != nil {
			rg.possMin, rg.possMax = int(int8(s[0])), int(int8(s[1]))
			if rg.possMin > rg.possMax || rg.possMin < -1 {
				r.fail(at+planfmt.RegionPossibleMin, "region %s: possible lengths %d to %d", rg.id, rg.possMin, rg.possMax)
			}
		}
		for d := range rg.lengths {
			rg.lengths[d] = r.u32(at + planfmt.RegionLengths + 4*d)
		}
		if r.err != nil || automata.err != nil {
			return
		}
		if len(rg.id) == 2 && rg.id[0] >= 'A' && rg.id[0] <= 'Z' && rg.id[1] >= 'A' && rg.id[1] <= 'Z' {
			p.byRegion[regionKey(rg.id)] = int16(i) + 1 // + 1: the zero value means none
		} else if rg.id != nonGeoRegion {
			r.fail(at+planfmt.RegionID, "region code %q", rg.id)
			return
		}
	}
	order := make([]int, 0, nRegions)
	ids := make([]string, 0, nRegions)
	p.codes = make([]callingCode, nCodes)
	for i := range p.codes {
		at := codesAt + i*planfmt.CodeSize
		c := &p.codes[i]
		c.code = int(r.u16(at + planfmt.CodeCC))
		first, count, prog := int(r.u16(at+planfmt.CodeFirstRegion)), int(r.u16(at+planfmt.CodeRegionCount)), int(r.u16(at+planfmt.CodeProgram))
		c.prefix = r.str(&p.strings, at+planfmt.CodePrefixString)
		if r.err != nil {
			return
		}
		if c.code <= 0 || c.code >= planfmt.MaxCallingCode || int(p.byCC[c.code]) != i || count == 0 || first != len(order) || first+count > nRegions || c.prefix != "+"+strconv.Itoa(c.code) {
			r.fail(at, "calling code record %d (+%d) is inconsistent with the index", i, c.code)
			return
		}
		if prog != planfmt.NoIndex {
			if prog >= len(progs) {
				r.fail(at+planfmt.CodeProgram, "+%d: national prefix program %d of %d", c.code, prog, len(progs))
				return
			}
			c.strip = &progs[prog]
		}
		start := len(order)
		for j := range count {
			ri := int(r.u16(orderAt + 2*(first+j)))
			if r.err != nil {
				return
			}
			if ri >= nRegions || p.regions[ri].cc != 0 {
				r.fail(orderAt+2*(first+j), "+%d: region %d listed twice or out of range", c.code, ri)
				return
			}
			p.regions[ri].cc = c.code
			order = append(order, ri)
			ids = append(ids, p.regions[ri].id)
		}
		c.regions, c.ids = order[start:len(order):len(order)], ids[start:len(ids):len(ids)]
		c.minLength = -1
		for _, ri := range c.regions {
			if l := p.regions[ri].possMin; l >= 0 && (c.minLength < 0 || l < c.minLength) {
				c.minLength = l
			}
		}
		if at := int(r.u32(at + planfmt.CodeDispatch)); at != 0 || count > 1 {
			if count == 1 || count > planfmt.MaxSharedRegions || at%4 != 0 {
				r.fail(at, "+%d: dispatch table at %d for %d regions", c.code, at, count)
				return
			}
			c.dispatch = r.slice(at, 4*planfmt.DispatchSize)
			for k := 0; r.err == nil && k < planfmt.DispatchSize; k++ {
				if m := planfmt.U32(c.dispatch, 4*k); count < 32 && m>>count != 0 {
					r.fail(at+4*k, "+%d: dispatch mask %#x names regions beyond its %d", c.code, m, count)
				}
			}
			if r.err != nil {
				return
			}
		}
	}
	for cc, v := range p.byCC {
		if v >= int16(nCodes) {
			r.fail(2*cc, "+%d: code record %d of %d", cc, v, nCodes)
			return
		}
	}
	if len(order) != nRegions {
		r.fail(orderAt, "%d regions, %d in calling codes", nRegions, len(order))
	}
}

// readDialling reads the Dialling section: each region's international
// and national prefix programs.
func (p *Plan) readDialling(r *reader, progs []nationalPrefix) {
	if n := int(r.u32(0)); r.err == nil && n != len(p.regions) {
		r.fail(0, "%d regions, the calling codes section has %d", n, len(p.regions))
		return
	}
	for i := range p.regions {
		rg := &p.regions[i]
		for j, dst := range [2]**nationalPrefix{&rg.idd, &rg.natPrefix} {
			prog := int(r.u16(4 + 4*i + 2*j))
			if r.err != nil {
				return
			}
			if prog == planfmt.NoIndex {
				continue
			}
			if prog >= len(progs) {
				r.fail(4+4*i+2*j, "region %s: program %d of %d", rg.id, prog, len(progs))
				return
			}
			*dst = &progs[prog]
		}
	}
	p.dialling = true
}

func regionKey(id string) int { return int(id[0]-'A')*26 + int(id[1]-'A') }

// regionIndex returns the index of a region by its ISO code in either case,
// or -1: the region codes of ParseIn, the formatting methods and
// ShortNumber.
func (p *Plan) regionIndex(id string) int {
	if len(id) != 2 {
		return -1
	}
	a, b := id[0]&^0x20, id[1]&^0x20 // upper case for letters
	if a < 'A' || a > 'Z' || b < 'A' || b > 'Z' {
		return -1
	}
	return int(p.byRegion[int(a-'A')*26+int(b-'A')]) - 1
}

// regionByID returns the region with an ISO code, or nil.
func (p *Plan) regionByID(id string) *region {
	if len(id) != 2 || id[0] < 'A' || id[0] > 'Z' || id[1] < 'A' || id[1] > 'Z' {
		return nil
	}
	if i := p.byRegion[regionKey(id)]; i > 0 {
		return &p.regions[i-1]
	}
	return nil
}

func (p *Plan) readRanges(r *reader) {
	t, values, at := readTable(r)
	if r.err != nil {
		return
	}
	nets := r.slice(at, 8*values)
	if r.err != nil {
		return
	}
	if !r.trusted {
		for i := range values {
			name, mccmnc := planfmt.U32(nets, 8*i), planfmt.U32(nets, 8*i+4)
			if !p.strings.valid(name) || mccmnc != planfmt.NoString && !p.strings.valid(mccmnc) {
				r.fail(at+8*i, "network %d: strings %d and %d; there are %d", i, name, mccmnc, p.strings.count)
				return
			}
		}
	}
	p.rangeNets, p.ranges = nets, t
}

// rangeNetwork returns the network of value i of the Ranges table, read
// from the file on each lookup (two string ids): the strings share the
// file's bytes, so that Load decodes none of the 29,000 ranges' networks.
func (p *Plan) rangeNetwork(i int) rangeNetwork {
	nw := rangeNetwork{name: p.strings.get(planfmt.U32(p.rangeNets, 8*i))}
	if id := planfmt.U32(p.rangeNets, 8*i+4); id != planfmt.NoString {
		nw.mccmnc = p.strings.get(id)
	}
	return nw
}

func (p *Plan) readGeocoding(r *reader) {
	t, values, at := readTable(r)
	if r.err != nil {
		return
	}
	pool := r.sub(at + 4*values)
	strs := readStrings(pool)
	if pool.err != nil {
		r.err = pool.err
		return
	}
	ids := r.slice(at, 4*values)
	if r.err != nil {
		return
	}
	if !r.trusted {
		for i := range values {
			if id := planfmt.U32(ids, 4*i); !strs.valid(id) {
				r.fail(at+4*i, "string %d: there are %d", id, strs.count)
				return
			}
		}
	}
	p.places = newPlaces(ids, strs, values)
	p.geo = t
}

func (p *Plan) readZones(r *reader) {
	t, values, at := readTable(r)
	if r.err != nil {
		return
	}
	listAt := at + 8*values + 4
	total := int(r.u32(at + 8*values))
	if r.err != nil {
		return
	}
	if total > len(r.b)/4 {
		r.fail(at+8*values, "%d zone names cannot fit", total)
		return
	}
	pool := r.sub(listAt + 4*total)
	strs := readStrings(pool)
	if pool.err != nil {
		r.err = pool.err
		return
	}
	names := make([]string, total)
	for i := range names {
		names[i] = r.str(&strs, listAt+4*i)
	}
	p.zoneSets = make([][]string, values)
	for i := range p.zoneSets {
		first, n := int(r.u32(at+8*i)), int(r.u32(at+8*i+4))
		if first > total || n > total-first || n == 0 {
			r.fail(at+8*i, "zone list %d: %d names at %d of %d", i, n, first, total)
			return
		}
		p.zoneSets[i] = names[first : first+n : first+n]
	}
	p.zones = t
}

// Regions returns the codes of the regions that share calling code cc, main
// region first: ISO 3166-1 alpha-2 codes, or "001" for a non-geographic
// service such as +800. It returns nil for an unassigned calling code. The
// slice is shared: do not modify it.
func (p *Plan) Regions(cc int) []string {
	if cc <= 0 || cc >= len(p.byCC) || p.byCC[cc] < 0 {
		return nil
	}
	return p.codes[p.byCC[cc]].ids
}

// CallingCode returns the country calling code of an ISO 3166-1 alpha-2
// region code (upper case), or 0 when the plan has no such region.
func (p *Plan) CallingCode(region string) int {
	if r := p.regionByID(region); r != nil {
		return r.cc
	}
	return 0
}

// SplitCallingCode splits a digit string in international form (no plus
// sign) into its calling code and the rest. ok is false when the digits do
// not start with an assigned calling code.
func (p *Plan) SplitCallingCode(digits string) (cc int, rest string, ok bool) {
	code := 0
	for l := 1; l <= maxCallingCodeDigits && l <= len(digits); l++ {
		c := digits[l-1]
		if c < '0' || c > '9' || (l == 1 && c == '0') {
			return 0, "", false
		}
		code = code*10 + int(c-'0')
		if p.byCC[code] >= 0 {
			return code, digits[l:], true
		}
	}
	return 0, "", false
}
