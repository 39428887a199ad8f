package numbering

import (
	"bytes"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering/prefixmap"
	"github.com/nyaruka/phonenumbers/v2"
)

// Plan is the world's numbering plan loaded into memory: every calling code
// and region with its number ranges compiled into digit automata, and the
// prefix tables for original networks, geographic regions and time zones.
// Load it once and share it; it is immutable and safe for concurrent use.
type Plan struct {
	byCC     [1000]int16 // calling code -> index into codes, -1 when unassigned
	codes    []callingCode
	byRegion map[string]int // ISO region code -> calling code (non-geographic "001" excluded)
	regions  []region
	// ranges maps a number to the original network of its longest
	// assigned range: name and MCCMNC come from that one range, so that
	// an answer never pairs one operator's name with another's code.
	ranges   prefixmap.Table[int32]
	rangeNet []rangeNetwork // by ranges value
	geo      prefixmap.Table[int32]
	places   [][]string // one-element slices of geocoding descriptions
	zones    prefixmap.Table[int32]
	zoneSets [][]string // time-zone lists, by zones value
	// The MCC-MNC list: networks by MCCMNC, operational networks by
	// region, and the home region of each MCC.
	networkList []Network
	networksOf  map[string][]Network
	mccRegion   map[string]string
	version     Version
}

// Version identifies the numbering data a Plan was loaded from.
type Version struct {
	Libphonenumber string // libphonenumber metadata release, such as "v9.0.38"
	Tables         string // digest of Numen's generated tables in package data
}

// String returns "libphonenumber v9.0.38 + numen-data <digest>".
func (v Version) String() string {
	return "libphonenumber " + v.Libphonenumber + " + numen-data " + v.Tables
}

// Version returns the version of the data the plan was loaded from; the API
// sends it with every answer.
func (p *Plan) Version() Version { return p.version }

type callingCode struct {
	code    int
	prefix  string   // "+49"
	regions []int    // indexes into Plan.regions, main region first
	ids     []string // their codes, in the same order
	strip   *nationalPrefix
}

// nationalPrefix strips a national (trunk) prefix written after the calling
// code, as in "+44 (0)20 7946 0000", exactly as libphonenumber's parser does
// with the main region's national_prefix_for_parsing.
type nationalPrefix struct {
	re        *regexp.Regexp // ^(?:national_prefix_for_parsing)
	transform string         // national_prefix_transform_rule in Go's ${n} syntax
	quick     *digitDFA      // over-approximates the non-empty prefix matches of re
	always    bool           // an empty match may capture: always run re
}

// Number-type descriptions in the order of the bits of region.types.
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
	id        string // ISO 3166-1 alpha-2, or "001" for a non-geographic calling code
	name      string // English name
	nameList  []string
	mnp       bool
	sameMF    bool              // same_mobile_and_fixed_line_pattern
	types     *digitDFA         // one pattern per desc
	lengths   [descCount]uint32 // bit l: length l possible; all ones when unrestricted
	possible  []int32           // general desc possible lengths, ascending
	localOnly uint32            // general desc local-only lengths
	leading   *digitDFA         // leading_digits, for calling codes shared by regions
}

// maxDFAStates bounds one automaton; the largest region needs a few thousand.
const maxDFAStates = 1 << 17

// Load builds a Plan from the data embedded in package data and the
// libphonenumber metadata of github.com/nyaruka/phonenumbers/v2. It takes
// about a fifth of a second (see the package documentation); do it once.
func Load() (*Plan, error) {
	p := &Plan{
		version:  Version{Libphonenumber: data.LibphonenumberVersion, Tables: data.TablesDigest},
		byRegion: make(map[string]int, 256),
	}
	for i := range p.byCC {
		p.byCC[i] = -1
	}
	if err := p.loadRegions(); err != nil {
		return nil, err
	}
	if err := p.loadTables(); err != nil {
		return nil, err
	}
	if err := p.loadNetworks(); err != nil {
		return nil, err
	}
	return p, nil
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
func (p *Plan) CallingCode(region string) int { return p.byRegion[region] }

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

func (p *Plan) loadRegions() error {
	countries, err := data.ReadFile("numbering/countries.tsv")
	if err != nil {
		return err
	}
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		return fmt.Errorf("numbering: libphonenumber metadata: %w", err)
	}
	type key struct {
		id string
		cc int32
	}
	meta := make(map[key]*phonenumbers.PhoneMetadata, len(coll.Metadata))
	for _, m := range coll.Metadata {
		meta[key{m.GetId(), m.GetCountryCode()}] = m
	}
	lines := strings.Split(strings.TrimSpace(string(countries)), "\n")
	p.regions = make([]region, 0, len(lines))
	for n, line := range lines {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return fmt.Errorf("numbering: countries.tsv line %d: want 3 fields, have %d", n+1, len(f))
		}
		cc, err := strconv.Atoi(f[0])
		if err != nil || cc <= 0 || cc >= len(p.byCC) {
			return fmt.Errorf("numbering: countries.tsv line %d: bad calling code %q", n+1, f[0])
		}
		m := meta[key{f[1], int32(cc)}]
		if m == nil {
			return fmt.Errorf("numbering: countries.tsv line %d: no metadata for %s +%d", n+1, f[1], cc)
		}
		if p.byCC[cc] < 0 {
			p.byCC[cc] = int16(len(p.codes))
			p.codes = append(p.codes, callingCode{code: cc, prefix: "+" + f[0]})
		}
		r, err := newRegion(f[1], f[2], m)
		if err != nil {
			return err
		}
		code := &p.codes[p.byCC[cc]]
		code.regions = append(code.regions, len(p.regions))
		code.ids = append(code.ids, f[1])
		if f[1] != nonGeoRegion {
			p.byRegion[f[1]] = cc
		}
		if len(code.regions) == 1 { // the main region decides national prefixes
			if code.strip, err = newNationalPrefix(m); err != nil {
				return fmt.Errorf("numbering: region %s: %w", f[1], err)
			}
		}
		p.regions = append(p.regions, r)
	}
	return nil
}

func newRegion(id, name string, m *phonenumbers.PhoneMetadata) (region, error) {
	r := region{id: id, name: name, nameList: []string{name}, mnp: m.GetMobileNumberPortableRegion(), sameMF: m.GetSameMobileAndFixedLinePattern()}
	descs := [descCount]*phonenumbers.PhoneNumberDesc{
		descGeneral: m.GetGeneralDesc(), descFixed: m.GetFixedLine(), descMobile: m.GetMobile(),
		descTollFree: m.GetTollFree(), descPremium: m.GetPremiumRate(), descShared: m.GetSharedCost(),
		descPersonal: m.GetPersonalNumber(), descVoIP: m.GetVoip(), descPager: m.GetPager(),
		descUAN: m.GetUan(), descVoicemail: m.GetVoicemail(),
	}
	patterns := make([]string, descCount)
	for d, desc := range descs {
		patterns[d] = desc.GetNationalNumberPattern()
		r.lengths[d] = ^uint32(0)
		if desc != nil && len(desc.PossibleLength) > 0 {
			r.lengths[d] = lengthMask(desc.PossibleLength)
		}
	}
	var err error
	if r.types, err = compileDFA(patterns, maxDFAStates); err != nil {
		return r, fmt.Errorf("numbering: region %s: %w", id, err)
	}
	general := m.GetGeneralDesc()
	r.possible = general.GetPossibleLength()
	r.localOnly = lengthMask(general.GetPossibleLengthLocalOnly())
	if ld := m.GetLeadingDigits(); ld != "" {
		if r.leading, err = compileDFA([]string{ld}, maxDFAStates); err != nil {
			return r, fmt.Errorf("numbering: region %s leading digits: %w", id, err)
		}
	}
	return r, nil
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

func newNationalPrefix(m *phonenumbers.PhoneMetadata) (*nationalPrefix, error) {
	npfp := m.GetNationalPrefixForParsing()
	if npfp == "" {
		return nil, nil
	}
	re, err := regexp.Compile("^(?:" + npfp + ")")
	if err != nil {
		return nil, fmt.Errorf("national prefix pattern %q: %w", npfp, err)
	}
	quick, err := compileDFA([]string{npfp}, maxDFAStates)
	if err != nil {
		return nil, err
	}
	np := &nationalPrefix{re: re, quick: quick}
	if rule := m.GetNationalPrefixTransformRule(); rule != "" {
		// Java's $1 becomes Go's ${1}, so that "$15" cannot read as group 15.
		np.transform = regexp.MustCompile(`\$(\d)`).ReplaceAllString(rule, "$${$1}")
		np.always = re.MatchString("")
	}
	return np, nil
}

// rangeNetwork is the network a number range was originally assigned to.
type rangeNetwork struct {
	name   string // "" when the range has no name (a hole in a named range)
	mccmnc string // "" when the name resolved to no single MCCMNC
}

func (p *Plan) loadTables() error {
	var err error
	if err = p.loadRanges(); err != nil {
		return err
	}
	var places []string
	if p.geo, places, err = loadPrefixFile("numbering/geocoding_en.tsv.gz"); err != nil {
		return err
	}
	p.places = make([][]string, len(places))
	for i := range places {
		p.places[i] = places[i : i+1 : i+1]
	}
	var zones []string
	if p.zones, zones, err = loadPrefixFile("numbering/timezones.tsv.gz"); err != nil {
		return err
	}
	p.zoneSets = make([][]string, len(zones))
	for i, z := range zones {
		p.zoneSets[i] = strings.Split(z, "&")
	}
	return nil
}

// loadRanges joins the carrier table (prefix -> network name) with the
// MCCMNC table (prefix -> MCCMNC, for the carrier prefixes whose name
// resolved to one network) into one table. The MCCMNC of a range is that
// of the range itself or none: a shorter range's code never shows through
// a longer range of another name. An MCCMNC line whose prefix is not a
// carrier range is an error, not a code without a name.
func (p *Plan) loadRanges() error {
	const mccmncFile = "numbering/mccmnc.tsv.gz"
	codes := map[string]string{}
	if err := readPrefixFile(mccmncFile, func(_ int, prefix, value []byte) error {
		if len(value) < 5 || len(value) > 6 || !isDigits(value) {
			return fmt.Errorf("MCCMNC %q is not 5 or 6 digits", value)
		}
		codes[string(prefix)] = string(value)
		return nil
	}); err != nil {
		return err
	}
	index := map[rangeNetwork]int32{}
	var entries []prefixmap.Entry[int32]
	err := readPrefixFile("numbering/carrier_en.tsv.gz", func(_ int, prefix, value []byte) error {
		pre, err := prefixmap.ParsePrefix(prefix)
		if err != nil {
			return err
		}
		nw := rangeNetwork{name: string(value), mccmnc: codes[string(prefix)]}
		delete(codes, string(prefix))
		v, ok := index[nw]
		if !ok {
			v = int32(len(p.rangeNet))
			p.rangeNet = append(p.rangeNet, nw)
			index[nw] = v
		}
		entries = append(entries, prefixmap.Entry[int32]{Prefix: pre, Value: v})
		return nil
	})
	if err != nil {
		return err
	}
	if len(codes) > 0 {
		return fmt.Errorf("numbering: %s: prefix %s has an MCCMNC but no carrier range", mccmncFile, slices.Min(slices.Collect(maps.Keys(codes))))
	}
	p.ranges = prefixmap.New(entries, prefixmap.None)
	return nil
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// loadPrefixFile reads a generated "prefix<TAB>value" file into a prefix
// table over interned values.
func loadPrefixFile(name string) (prefixmap.Table[int32], []string, error) {
	var (
		values  []string
		index   = map[string]int32{}
		entries []prefixmap.Entry[int32]
	)
	err := readPrefixFile(name, func(_ int, prefix, value []byte) error {
		v, ok := index[string(value)]
		if !ok {
			v = int32(len(values))
			values = append(values, string(value))
			index[values[v]] = v
		}
		pre, err := prefixmap.ParsePrefix(prefix)
		if err != nil {
			return err
		}
		entries = append(entries, prefixmap.Entry[int32]{Prefix: pre, Value: v})
		return nil
	})
	if err != nil {
		return prefixmap.Table[int32]{}, nil, err
	}
	return prefixmap.New(entries, prefixmap.None), values, nil
}

// readPrefixFile calls line for each "prefix<TAB>value" line of a generated
// file; an error names the file and line.
func readPrefixFile(name string, line func(n int, prefix, value []byte) error) error {
	raw, err := data.ReadFile(name)
	if err != nil {
		return err
	}
	for n := 1; len(raw) > 0; n++ {
		var text []byte
		text, raw, _ = bytes.Cut(raw, []byte{'\n'})
		prefix, value, ok := bytes.Cut(text, []byte{'\t'})
		if !ok {
			return fmt.Errorf("numbering: %s line %d: no tab", name, n)
		}
		if err := line(n, prefix, value); err != nil {
			return fmt.Errorf("numbering: %s line %d: %w", name, n, err)
		}
	}
	return nil
}
