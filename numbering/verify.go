package numbering

import (
	"slices"
	"unicode/utf8"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// Verify checks the plan file beyond what Open does: that sections do not
// overlap, that every string is valid UTF-8, that region codes are unique,
// that every MCCMNC is 5 or 6 digits and that each national-prefix program
// can match. Open already rejects damaged files (the CRC-32C checksums of
// header and body) and any structure a lookup could trip on; Verify is for
// files from elsewhere, before they are put to use (numen plan verify).
// On a plan from Load, which checks the built-in plan's header only, it
// first makes every check of Open.
// (The header's SHA-256 digest names the data, in Version; it is no
// protection beyond the checksums, as whoever can change a file can
// recompute either.) It returns a *FormatError.
func (p *Plan) Verify() error {
	raw, err := readHeader(p.file, false, false)
	if err != nil {
		return err
	}
	if p.trusted {
		// Load skipped the checks that read every table and automaton:
		// make them, as Open does.
		if _, err := OpenBytes(p.file); err != nil {
			return err
		}
	}
	spans := make([]span, 0, len(raw.sections))
	for _, s := range raw.sections {
		spans = append(spans, s)
	}
	slices.SortFunc(spans, func(a, b span) int { return a.off - b.off })
	for i := 1; i < len(spans); i++ {
		if spans[i].off < spans[i-1].off+spans[i-1].n {
			return formatErr("directory", planfmt.HeaderSize, "sections at %d and %d overlap", spans[i-1].off, spans[i].off)
		}
	}
	for i := range p.strings.count {
		if s := p.strings.get(uint32(i)); !utf8.ValidString(s) {
			return formatErr("strings section", raw.sections[planfmt.SecStrings].off, "string %d (%q) is not valid UTF-8", i, s)
		}
	}
	_, places := p.geocoding()
	for i := range places.n {
		if s := places.get(i)[0]; !utf8.ValidString(s) {
			return formatErr("geocoding section", raw.sections[planfmt.SecGeocoding].off, "description %d (%q) is not valid UTF-8", i, s)
		}
	}
	for _, set := range p.zoneSets {
		for _, z := range set {
			if !utf8.ValidString(z) || z == "" {
				return formatErr("time zones section", raw.sections[planfmt.SecTimezones].off, "zone name %q", z)
			}
		}
	}
	seen := map[string]bool{}
	for _, r := range p.regions {
		if r.id != nonGeoRegion && seen[r.id] {
			return formatErr("calling codes section", raw.sections[planfmt.SecCodes].off, "region %s listed twice", r.id)
		}
		seen[r.id] = true
		if r.possMax >= 32 {
			return formatErr("calling codes section", raw.sections[planfmt.SecCodes].off, "region %s: possible length %d", r.id, r.possMax)
		}
	}
	cannotMatch := func(np *nationalPrefix) bool {
		for pc := 0; pc < len(np.insts); pc += planfmt.InstSize {
			if np.insts[pc+planfmt.InstOp] == planfmt.OpMatch {
				return false
			}
		}
		return true
	}
	for _, c := range p.codes {
		if c.strip != nil && cannotMatch(c.strip) {
			return formatErr("national prefixes section", raw.sections[planfmt.SecNationalPrefix].off, "+%d: the program cannot match", c.code)
		}
	}
	for _, r := range p.regions {
		if r.idd != nil && cannotMatch(r.idd) || r.natPrefix != nil && cannotMatch(r.natPrefix) {
			return formatErr("dialling section", raw.sections[planfmt.SecDialling].off, "region %s: a program that cannot match", r.id)
		}
	}
	p.networkList()
	if err := p.shortNumbers(); err != nil {
		return err
	}
	for i := range p.networks.pool.count {
		if s := p.networks.pool.get(uint32(i)); !utf8.ValidString(s) {
			return formatErr("networks section", raw.sections[planfmt.SecNetworks].off, "string %d (%q) is not valid UTF-8", i, s)
		}
	}
	if p.networks.n > 0 {
		for i := range p.networks.n {
			if code := p.networks.code(i); len(code) < 5 || len(code) > 6 || !isDigits(code) {
				return formatErr("networks section", raw.sections[planfmt.SecNetworks].off, "network %d: MCCMNC %q", i, code)
			}
		}
	}
	for i := range len(p.rangeNets) / 8 {
		nw := p.rangeNetwork(i)
		if nw.mccmnc != "" && (len(nw.mccmnc) < 5 || len(nw.mccmnc) > 6 || !isDigits(nw.mccmnc)) {
			return formatErr("network ranges section", raw.sections[planfmt.SecRanges].off, "network %q: MCCMNC %q", nw.name, nw.mccmnc)
		}
	}
	return nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

// PlanInfo describes a loaded plan.
type PlanInfo struct {
	Bytes        int    // size of the plan file
	Packs        int    // packs taken (WithPack)
	Sections     string // the sections it holds, packs' included, such as "strings, calling codes, ..."
	CallingCodes int
	Regions      int
}

// Info describes the plan: its file, packs and sections.
func (p *Plan) Info() PlanInfo {
	info := PlanInfo{Bytes: len(p.file), Packs: p.packs, CallingCodes: len(p.codes), Regions: len(p.regions),
		Sections: "strings, calling codes, automata, national prefixes"}
	if p.dialling {
		info.Sections += ", dialling"
	}
	for _, id := range []uint32{planfmt.SecRanges, planfmt.SecNetworks, planfmt.SecGeocoding, planfmt.SecTimezones, planfmt.SecFormats, planfmt.SecShortNumbers} {
		if p.has(id) {
			info.Sections += ", " + planfmt.SectionName(id)
		}
	}
	return info
}
