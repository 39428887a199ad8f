// Package compile builds the binary numbering-plan file that package
// numbering reads in place: what numbering.Load once did at every start,
// done ahead of time. It compiles each region's number patterns (from
// libphonenumber's metadata) into digit automata with the number types at
// their accepting states, each national-prefix rule into a small program,
// the number formats into automata of their leading digits and layouts of
// their groups (format.go), and the generated prefix tables (networks by
// range, geocoding, time zones) and the MCC-MNC list into sorted key
// segments.
//
// The data generator (go run ./data/gen) is its one caller in the product;
// numbering's tests use it to compare the compiled plan with libphonenumber.
// Compiling is deterministic: the same inputs give the same bytes.
package compile

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/numenhq/numen/numbering/internal/planfmt"
	"github.com/nyaruka/phonenumbers/v2"
)

// Input is what a plan is compiled from. The tables are the data package's
// generated TSV files ("prefix<TAB>value" lines sorted by prefix, as data/gen
// writes them); a nil optional table leaves its section out.
type Input struct {
	// Metadata is libphonenumber's metadata (phonenumbers.MetadataCollection,
	// or data/gen's newer release laid over it).
	Metadata *phonenumbers.PhoneMetadataCollection
	// Libphonenumber is its release, such as "v9.0.43".
	Libphonenumber string
	// Countries lists calling codes, regions and names:
	// "callingcode<TAB>region<TAB>name" lines, main region of a code first
	// ("#" lines are comments). Required.
	Countries []byte
	// Carriers maps prefixes to original network names and MCCMNC to
	// MCCMNCs for the carrier prefixes whose network has one. Optional,
	// together.
	Carriers, MCCMNC []byte
	// Networks is the MCC-MNC list: "mccmnc<TAB>regions<TAB>brand<TAB>operator<TAB>status"
	// lines, sorted by MCCMNC, regions comma-separated, home first. Optional.
	Networks []byte
	// Geocoding maps prefixes to English descriptions. Optional.
	Geocoding []byte
	// Timezones maps prefixes to "&"-separated Olson names. Optional.
	Timezones []byte
	// ShortNumbers is libphonenumber's short-number metadata
	// (phonenumbers.ShortNumberMetadataCollection). Optional.
	ShortNumbers *phonenumbers.PhoneMetadataCollection
	// AlternateFormats is libphonenumber's alternate-formats metadata
	// (PhoneNumberAlternateFormats, by calling code), whose formats the
	// number matcher accepts too at its grouping leniencies. Optional.
	AlternateFormats *phonenumbers.PhoneMetadataCollection
}

// maxStates bounds the work on one automaton; the largest region needs a
// few hundred states.
const maxStates = planfmt.MaxStates - 1

// Plan compiles a plan file from in.
func Plan(in Input) ([]byte, error) {
	c := &compiler{strings: newStringPool(), altFormats: map[int32][]*phonenumbers.NumberFormat{}}
	if in.AlternateFormats != nil {
		for _, m := range in.AlternateFormats.GetMetadata() {
			c.altFormats[m.GetCountryCode()] = m.GetNumberFormat()
		}
	}
	if in.Metadata == nil || len(in.Countries) == 0 {
		return nil, fmt.Errorf("compile: metadata and countries are required")
	}
	codes, err := c.codes(in.Metadata, in.Countries)
	if err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	sections := []section{{planfmt.SecCodes, codes}}
	if in.Carriers != nil {
		b, err := c.ranges(in.Carriers, in.MCCMNC)
		if err != nil {
			return nil, fmt.Errorf("compile: network ranges: %w", err)
		}
		sections = append(sections, section{planfmt.SecRanges, b})
	}
	if in.Networks != nil {
		b, err := c.networks(in.Networks)
		if err != nil {
			return nil, fmt.Errorf("compile: networks: %w", err)
		}
		sections = append(sections, section{planfmt.SecNetworks, b})
	}
	if in.Geocoding != nil {
		b, err := c.stringTable(in.Geocoding)
		if err != nil {
			return nil, fmt.Errorf("compile: geocoding: %w", err)
		}
		sections = append(sections, section{planfmt.SecGeocoding, b})
	}
	if in.Timezones != nil {
		b, err := c.zoneTable(in.Timezones)
		if err != nil {
			return nil, fmt.Errorf("compile: time zones: %w", err)
		}
		sections = append(sections, section{planfmt.SecTimezones, b})
	}
	if in.ShortNumbers != nil {
		b, err := shortNumbers(in.ShortNumbers)
		if err != nil {
			return nil, fmt.Errorf("compile: %w", err)
		}
		sections = append(sections, section{planfmt.SecShortNumbers, b})
	}
	formats, err := c.formats()
	if err != nil {
		return nil, fmt.Errorf("compile: number formats: %w", err)
	}
	sections = append(sections,
		section{planfmt.SecFormats, formats},
		section{planfmt.SecStrings, c.strings.encode()},
		section{planfmt.SecAutomata, c.automata.b},
		section{planfmt.SecNationalPrefix, c.programs()},
		section{planfmt.SecDialling, c.dialling},
	)
	return assemble(in.Libphonenumber, sections)
}

type compiler struct {
	strings  *stringPool
	automata writer
	progs    []*program
	progAt   []uint32       // automaton offset of each program's quick automaton
	progBy   map[string]int // index of the program of each rule, by rule
	dialling []byte         // the Dialling section
	// The metadata formats come from: each calling code's main region's,
	// in the order of the Codes section, and each region's.
	codeMeta, regionMeta []*phonenumbers.PhoneMetadata
	// altFormats are the alternate formats of each calling code.
	altFormats map[int32][]*phonenumbers.NumberFormat
}

// program returns the index of the program of a rule (a pattern and its
// transform), compiling it the first time: regions share most rules.
func (c *compiler) program(pattern, transform string) (int, error) {
	key := pattern + "\n" + transform // a pattern has no newline (compileProgram)
	if i, ok := c.progBy[key]; ok {
		return i, nil
	}
	p, err := compileProgram(pattern, transform)
	if err != nil {
		return 0, err
	}
	if c.progBy == nil {
		c.progBy = map[string]int{}
	}
	c.progBy[key] = len(c.progs)
	c.progs = append(c.progs, p)
	return len(c.progs) - 1, nil
}

// automaton appends d to the automata section, in rows of one cache line
// each (see planfmt), and returns its offset.
func (c *compiler) automaton(d *digitDFA) (uint32, error) { return writeAutomaton(&c.automata, d) }

// writeAutomaton appends d to w, a section of automata, and returns its
// offset there.
func writeAutomaton(w *writer, d *digitDFA) (uint32, error) {
	states := len(d.accept)
	if states > maxStates {
		return 0, fmt.Errorf("automaton of %d states, at most %d", states, maxStates)
	}
	wide := states > planfmt.MaxNarrow
	row := planfmt.NarrowRow
	if wide {
		row = planfmt.WideRow
	}
	w.pad(planfmt.WideRow)
	off := uint32(len(w.b))
	if wide {
		w.u32(uint32(states) | planfmt.WideFlag)
	} else {
		w.u32(uint32(states))
	}
	w.pad(row) // the header takes a row, so that rows stay aligned
	runs, futures := d.runs(), d.futures()
	for s, a := range d.accept {
		start := len(w.b)
		w.u16(a | runs[s]<<planfmt.RunShift)
		for _, n := range d.next[s*10 : s*10+10] {
			switch {
			case wide && n == deadState:
				w.u16(planfmt.NoState)
			case wide:
				w.u16(uint16(n))
			case n == deadState:
				w.b = append(w.b, planfmt.NarrowDead)
			default:
				w.b = append(w.b, byte(n))
			}
		}
		if wide {
			w.u16(futures[s])
		} else {
			w.b = append(w.b, byte(futures[s]), byte(futures[s]>>8))
		}
		for len(w.b)-start < row {
			w.b = append(w.b, 0)
		}
	}
	return off, nil
}

// region is one region record in the making.
type regionRec struct {
	id, name         string
	flags            uint32
	types, leading   uint32
	localOnly        uint32
	possMin, possMax int8
	lengths          [planfmt.Descs]uint32
}

// codes builds the Codes section (and the automata and programs it refers
// to) from the countries table and the metadata.
func (c *compiler) codes(coll *phonenumbers.PhoneMetadataCollection, countries []byte) ([]byte, error) {
	type key struct {
		id string
		cc int32
	}
	meta := make(map[key]*phonenumbers.PhoneMetadata, len(coll.Metadata))
	for _, m := range coll.Metadata {
		meta[key{m.GetId(), m.GetCountryCode()}] = m
	}
	type code struct {
		cc      int
		regions []int
		program int
	}
	var (
		codeList []*code
		byCC     [planfmt.MaxCallingCode]*code
		regions  []regionRec
		dfas     []*digitDFA // each region's types automaton
		leads    []*digitDFA // and its leading digits', or nil
		dialling [][2]int    // each region's international and national prefix programs
		seen     = map[string]bool{}
	)
	for n, line := range strings.Split(strings.TrimSpace(string(countries)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("countries line %d: want 3 fields, have %d", n+1, len(f))
		}
		cc, err := strconv.Atoi(f[0])
		if err != nil || cc <= 0 || cc >= planfmt.MaxCallingCode {
			return nil, fmt.Errorf("countries line %d: bad calling code %q", n+1, f[0])
		}
		m := meta[key{f[1], int32(cc)}]
		if m == nil {
			return nil, fmt.Errorf("countries line %d: no metadata for %s +%d", n+1, f[1], cc)
		}
		if f[1] != "001" && seen[f[1]] {
			return nil, fmt.Errorf("countries line %d: region %s given twice", n+1, f[1])
		}
		seen[f[1]] = true
		cd := byCC[cc]
		if cd == nil {
			cd = &code{cc: cc, program: planfmt.NoIndex}
			byCC[cc] = cd
			codeList = append(codeList, cd)
			c.codeMeta = append(c.codeMeta, m)
			// The main region decides national prefixes written after
			// the calling code.
			if npfp := m.GetNationalPrefixForParsing(); npfp != "" {
				if cd.program, err = c.program(npfp, m.GetNationalPrefixTransformRule()); err != nil {
					return nil, fmt.Errorf("region %s: %w", f[1], err)
				}
			}
		}
		r, dfa, lead, err := c.region(f[1], f[2], m)
		if err != nil {
			return nil, fmt.Errorf("region %s: %w", f[1], err)
		}
		// Every region's own rules read national input (numbering's
		// ParseIn): its international prefix and its national prefix.
		rules := [2]int{planfmt.NoIndex, planfmt.NoIndex}
		if f[1] != "001" {
			if idd := m.GetInternationalPrefix(); idd != "" {
				if rules[0], err = c.program(idd, ""); err != nil {
					return nil, fmt.Errorf("region %s: international prefix: %w", f[1], err)
				}
			}
			if npfp := m.GetNationalPrefixForParsing(); npfp != "" {
				if rules[1], err = c.program(npfp, m.GetNationalPrefixTransformRule()); err != nil {
					return nil, fmt.Errorf("region %s: %w", f[1], err)
				}
			}
		}
		dialling = append(dialling, rules)
		dfas, leads = append(dfas, dfa), append(leads, lead)
		cd.regions = append(cd.regions, len(regions))
		regions = append(regions, r)
		c.regionMeta = append(c.regionMeta, m)
	}
	if len(regions) >= planfmt.NoIndex || len(codeList) >= planfmt.NoIndex || len(c.progs) >= planfmt.NoIndex {
		return nil, fmt.Errorf("%d regions, %d calling codes, %d programs: too many", len(regions), len(codeList), len(c.progs))
	}
	var d writer
	d.u32(uint32(len(regions)))
	for _, rules := range dialling {
		d.u16(uint16(rules[0]))
		d.u16(uint16(rules[1]))
	}
	d.pad(4)
	c.dialling = d.b
	for _, p := range c.progs {
		off, err := c.automaton(p.quick)
		if err != nil {
			return nil, err
		}
		c.progAt = append(c.progAt, off)
	}

	var w writer
	index := map[*code]int{}
	for i, cd := range codeList {
		index[cd] = i
	}
	for cc := range planfmt.MaxCallingCode {
		if cd := byCC[cc]; cd != nil {
			w.u16(uint16(index[cd]))
		} else {
			w.u16(planfmt.NoIndex)
		}
	}
	w.u32(uint32(len(codeList)))
	w.u32(uint32(len(regions)))
	codesAt := len(w.b)
	order := 0
	for _, cd := range codeList {
		w.u16(uint16(cd.cc))
		w.u16(uint16(order))
		w.u16(uint16(len(cd.regions)))
		w.u16(uint16(cd.program))
		w.u32(c.strings.id("+" + strconv.Itoa(cd.cc)))
		w.u32(0)
		order += len(cd.regions)
	}
	for _, r := range regions {
		w.u32(c.strings.id(r.id))
		w.u32(c.strings.id(r.name))
		w.u32(r.flags)
		w.u32(r.types)
		w.u32(r.leading)
		w.u32(r.localOnly)
		w.b = append(w.b, byte(r.possMin), byte(r.possMax))
		w.u16(0)
		for _, l := range r.lengths {
			w.u32(l)
		}
	}
	for _, cd := range codeList {
		for _, r := range cd.regions {
			w.u16(uint16(r))
		}
	}
	w.pad(4)
	for i, cd := range codeList {
		if len(cd.regions) < 2 {
			continue
		}
		if len(cd.regions) > planfmt.MaxSharedRegions {
			return nil, fmt.Errorf("+%d: %d regions, at most %d", cd.cc, len(cd.regions), planfmt.MaxSharedRegions)
		}
		putAt(w.b, codesAt+i*planfmt.CodeSize+planfmt.CodeDispatch, uint32(len(w.b)))
		for p := range planfmt.DispatchSize {
			digits := fmt.Sprintf("%0*d", planfmt.DispatchDigits, p)
			var mask uint32
			for j, ri := range cd.regions {
				if dfas[ri].candidate(digits, leads[ri]) {
					mask |= 1 << j
				}
			}
			w.u32(mask)
		}
	}
	return w.b, nil
}

// region compiles one region's patterns and lengths.
func (c *compiler) region(id, name string, m *phonenumbers.PhoneMetadata) (r regionRec, types, leading *digitDFA, err error) {
	r = regionRec{id: id, name: name, leading: planfmt.NoOffset}
	if m.GetMobileNumberPortableRegion() {
		r.flags |= planfmt.FlagMNP
	}
	if m.GetSameMobileAndFixedLinePattern() {
		r.flags |= planfmt.FlagSameMobileAndFixed
	}
	descs := [planfmt.Descs]*phonenumbers.PhoneNumberDesc{
		m.GetGeneralDesc(), m.GetFixedLine(), m.GetMobile(), m.GetTollFree(), m.GetPremiumRate(),
		m.GetSharedCost(), m.GetPersonalNumber(), m.GetVoip(), m.GetPager(), m.GetUan(), m.GetVoicemail(),
	}
	patterns := make([]string, planfmt.Descs)
	for d, desc := range descs {
		patterns[d] = desc.GetNationalNumberPattern()
		r.lengths[d] = ^uint32(0)
		if desc != nil && len(desc.PossibleLength) > 0 {
			r.lengths[d] = lengthMask(desc.PossibleLength)
		}
	}
	if types, err = compileDFA(patterns, maxStates); err != nil {
		return r, nil, nil, err
	}
	if r.types, err = c.automaton(types); err != nil {
		return r, nil, nil, err
	}
	general := m.GetGeneralDesc()
	possible := general.GetPossibleLength()
	switch {
	case len(possible) == 0 || possible[0] == -1:
		r.possMin, r.possMax = -1, -1
	case !slices.IsSorted(possible) || possible[len(possible)-1] > 127:
		return r, nil, nil, fmt.Errorf("possible lengths %v: not ascending small numbers", possible)
	default:
		r.possMin, r.possMax = int8(possible[0]), int8(possible[len(possible)-1])
	}
	r.localOnly = lengthMask(general.GetPossibleLengthLocalOnly())
	if ld := m.GetLeadingDigits(); ld != "" {
		if leading, err = compileDFA([]string{ld}, maxStates); err != nil {
			return r, nil, nil, fmt.Errorf("leading digits: %w", err)
		}
		if r.leading, err = c.automaton(leading); err != nil {
			return r, nil, nil, err
		}
	}
	return r, types, leading, nil
}

// lengthMask sets bit l for every length l in lengths (-1, "no numbers of
// this type", sets nothing).
func lengthMask(lengths []int32) uint32 {
	var m uint32
	for _, l := range lengths {
		if l >= 0 && l < 32 {
			m |= 1 << l
		}
	}
	return m
}

// programs builds the NationalPrefix section.
func (c *compiler) programs() []byte {
	var w writer
	w.u32(uint32(len(c.progs)))
	offsets := len(w.b)
	for range c.progs {
		w.u32(0)
	}
	for i, p := range c.progs {
		w.pad(4)
		putAt(w.b, offsets+4*i, uint32(len(w.b)))
		w.u32(c.progAt[i])
		var flags uint32
		if p.always {
			flags |= planfmt.ProgAlways
		}
		w.u32(flags)
		w.u32(uint32(p.slots))
		w.u32(uint32(len(p.insts) / planfmt.InstSize))
		w.u32(uint32(len(p.transform)))
		w.bytes(p.insts)
		w.bytes(p.transform)
	}
	w.pad(4)
	return w.b
}

func putAt(b []byte, off int, v uint32) {
	b[off], b[off+1], b[off+2], b[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// tsvLines calls f for each "prefix<TAB>value" line of a generated table.
func tsvLines(tsv []byte, f func(n int, prefix, value string) error) error {
	n := 0
	for line := range bytes.Lines(tsv) {
		n++
		line = bytes.TrimSuffix(line, []byte{'\n'})
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		prefix, value, ok := bytes.Cut(line, []byte{'\t'})
		if !ok {
			return fmt.Errorf("line %d: no tab", n)
		}
		if err := f(n, string(prefix), string(value)); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return nil
}

// ranges builds the Ranges section: every carrier prefix with its network
// name and its own MCCMNC, if it has one. An MCCMNC line whose prefix is
// not a carrier range is an error, so that a code never stands without its
// network.
func (c *compiler) ranges(carriers, mccmnc []byte) ([]byte, error) {
	codes := map[string]string{}
	if err := tsvLines(mccmnc, func(_ int, prefix, value string) error {
		if len(value) < 5 || len(value) > 6 || strings.Trim(value, "0123456789") != "" {
			return fmt.Errorf("MCCMNC %q is not 5 or 6 digits", value)
		}
		codes[prefix] = value
		return nil
	}); err != nil {
		return nil, fmt.Errorf("MCCMNC table %w", err)
	}
	type pair struct{ name, mccmnc uint32 }
	index := map[pair]uint16{}
	var pairs []pair
	var entries []entry
	err := tsvLines(carriers, func(_ int, prefix, name string) error {
		p := pair{c.strings.id(name), planfmt.NoString}
		if code, ok := codes[prefix]; ok {
			p.mccmnc = c.strings.id(code)
			delete(codes, prefix)
		}
		v, ok := index[p]
		if !ok {
			if len(pairs) >= planfmt.NoValue {
				return fmt.Errorf("more than %d networks", planfmt.NoValue)
			}
			v = uint16(len(pairs))
			index[p] = v
			pairs = append(pairs, p)
		}
		entries = append(entries, entry{prefix, v})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("carrier table %w", err)
	}
	if len(codes) > 0 {
		return nil, fmt.Errorf("MCCMNC table: prefix %s has an MCCMNC but no carrier range", slices.Sorted(maps.Keys(codes))[0])
	}
	t, err := flatten(entries)
	if err != nil {
		return nil, err
	}
	var w writer
	t.encode(&w, len(pairs))
	for _, p := range pairs {
		w.u32(p.name)
		w.u32(p.mccmnc)
	}
	return w.b, nil
}

// internTable reads a "prefix<TAB>value" table and numbers its distinct
// values in the order of first use.
func internTable(tsv []byte) (entries []entry, values []string, err error) {
	index := map[string]uint16{}
	err = tsvLines(tsv, func(_ int, prefix, value string) error {
		v, ok := index[value]
		if !ok {
			if len(values) >= planfmt.NoValue {
				return fmt.Errorf("more than %d distinct values", planfmt.NoValue)
			}
			v = uint16(len(values))
			index[value] = v
			values = append(values, value)
		}
		entries = append(entries, entry{prefix, v})
		return nil
	})
	return entries, values, err
}

// stringTable builds a table whose values are strings (Geocoding), with a
// string pool of its own, so that a plan without the section has none of
// its strings either.
func (c *compiler) stringTable(tsv []byte) ([]byte, error) {
	entries, values, err := internTable(tsv)
	if err != nil {
		return nil, err
	}
	t, err := flatten(entries)
	if err != nil {
		return nil, err
	}
	pool := newStringPool()
	var w writer
	t.encode(&w, len(values))
	for _, v := range values {
		w.u32(pool.id(v))
	}
	w.bytes(pool.encode())
	return w.b, nil
}

// zoneTable builds the Timezones section: values are lists of zone names
// ("&"-separated in the table), from a string pool of the section's own.
func (c *compiler) zoneTable(tsv []byte) ([]byte, error) {
	entries, values, err := internTable(tsv)
	if err != nil {
		return nil, err
	}
	t, err := flatten(entries)
	if err != nil {
		return nil, err
	}
	pool := newStringPool()
	var list []uint32
	var w writer
	t.encode(&w, len(values))
	for _, v := range values {
		w.u32(uint32(len(list)))
		zones := strings.Split(v, "&")
		w.u32(uint32(len(zones)))
		for _, z := range zones {
			if z == "" {
				return nil, fmt.Errorf("empty zone name in %q", v)
			}
			list = append(list, pool.id(z))
		}
	}
	w.u32(uint32(len(list)))
	for _, z := range list {
		w.u32(z)
	}
	w.bytes(pool.encode())
	return w.b, nil
}

// networks builds the Networks section from networks.tsv, with the home
// region of each MCC (the region most of its networks belong to) and a
// string pool of its own.
func (c *compiler) networks(tsv []byte) ([]byte, error) {
	type network struct {
		mccmnc, brand, operator string
		regions                 []string
		operational             bool
	}
	var list []network
	for n, line := range strings.Split(string(tsv), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 || len(f[0]) < 5 || len(f[0]) > 6 || strings.Trim(f[0], "0123456789") != "" || f[1] == "" {
			return nil, fmt.Errorf("line %d: want mccmnc, regions, brand, operator, status", n+1)
		}
		if k := len(list); k > 0 && list[k-1].mccmnc >= f[0] {
			return nil, fmt.Errorf("line %d: %s out of order", n+1, f[0])
		}
		list = append(list, network{f[0], f[2], f[3], strings.Split(f[1], ","), f[4] == "Operational"})
	}
	mccCount := map[string]map[string]int{}
	for _, nw := range list {
		mcc := nw.mccmnc[:3]
		if mccCount[mcc] == nil {
			mccCount[mcc] = map[string]int{}
		}
		mccCount[mcc][nw.regions[0]]++
	}
	pool := newStringPool() // the section's own: a plan without it is without its strings
	var w writer
	w.u32(uint32(len(list)))
	at := 0
	for _, nw := range list {
		w.u32(pool.id(nw.mccmnc))
		w.u32(pool.id(nw.brand))
		w.u32(pool.id(nw.operator))
		w.u32(uint32(at))
		w.u32(uint32(len(nw.regions)))
		var flags uint32
		if nw.operational {
			flags |= planfmt.NetworkOperational
		}
		w.u32(flags)
		at += len(nw.regions)
	}
	w.u32(uint32(at))
	for _, nw := range list {
		for _, r := range nw.regions {
			w.u32(pool.id(r))
		}
	}
	mccs := slices.Sorted(maps.Keys(mccCount))
	w.u32(uint32(len(mccs)))
	for _, mcc := range mccs {
		best := ""
		for r, n := range mccCount[mcc] {
			if best == "" || n > mccCount[mcc][best] || n == mccCount[mcc][best] && r < best {
				best = r
			}
		}
		v, _ := strconv.Atoi(mcc)
		w.u32(uint32(v))
		w.u32(pool.id(best))
	}
	w.bytes(pool.encode())
	return w.b, nil
}
