package main

import (
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The rename audit.
//
// libphonenumber renames a range's carrier when its network is bought,
// merged or rebranded. Matched by name, the new name may give the range
// the buyer's code, or no code, where the range's subscribers still carry
// SIM cards of the network the range was allocated to. The audit follows
// every prefix of today's carrier table back through the releases of the
// committed history (history.go) and, for each earlier name of its
// numbers, compares the network the earlier name resolves to with the one
// the current name resolves to:
//
//   - the same code, or the same name spelled otherwise: a brand renamed in
//     place, nothing to decide;
//   - the earlier name resolves to no network of the list (its network is
//     gone from it, or never was in it): the current name's code stands;
//   - neither resolves: nothing to answer either way;
//   - the earlier name still holds other ranges of the regions today: the
//     range was reassigned (by the regulator, or libphonenumber corrected
//     its holder), and its current holder's code stands;
//   - the earlier name, gone from the regions' ranges, resolves to a code
//     and the current one to another, or to none: a decision in curated/renames.tsv, with its reason and
//     source, says which code the range answers. The generator fails while
//     such a rename is undecided, and on a decision no rename needs.
//
// A decision's code must be an operational network of its region in the
// MCC-MNC list; "-" leaves the ranges without a code, with the reason. A
// network absorbed by a buyer keeps its own code while the list has it
// operational and the ITU records no withdrawal of it (the E.212
// amendments of its Operational Bulletins, cited in each decision's
// source); it takes the buyer's when the code was withdrawn or reused.

// renamePair is one earlier name of the numbers of some of today's
// prefixes that all have one current name, within the regions of a
// calling code.
type renamePair struct {
	key      string // matchKey's regions, joined
	region   string // the region of the current name's match, else the first of key
	old, new string
	releases []string // releases in which the numbers took a new name, in order
	prefixes []string // today's prefixes, sorted
	oldCode  string   // what the earlier name resolves to ("" none, "-" excluded)
	newCode  string
	class    string // "respelled", "same network", "old name gone", "neither resolves", "reassigned", "decide"
	decision *renameDecision
}

// renameHistory is the committed history file: the last release it read
// and its rename steps.
type renameHistory struct {
	last, digest, stepsDigest string
	steps                     []renameStep
}

func readRenameHistory(sources fs.FS) (*renameHistory, error) {
	lines, err := readCurated(sources, renameHistoryFile)
	if err != nil {
		return nil, err
	}
	h := &renameHistory{}
	for _, l := range lines {
		f := l.f
		if len(f) == 4 && f[0] == "last" {
			h.last, h.digest, h.stepsDigest = f[1], f[2], f[3]
			continue
		}
		if len(f) != 4 || f[1] == "" || f[2] == "" {
			return nil, fmt.Errorf("%s line %d: want release<TAB>old<TAB>new<TAB>prefixes", renameHistoryFile, l.n)
		}
		s := renameStep{release: f[0], old: f[1], new: f[2], prefixes: strings.Split(f[3], ",")}
		for _, p := range s.prefixes {
			if !allDigits(p) {
				return nil, fmt.Errorf("%s line %d: prefix %q", renameHistoryFile, l.n, p)
			}
		}
		h.steps = append(h.steps, s)
	}
	if h.last == "" {
		return nil, fmt.Errorf("%s: no \"last\" line (last<TAB>release<TAB>carrier digest<TAB>steps digest)", renameHistoryFile)
	}
	if d := stepsDigest(h.steps); d != h.stepsDigest {
		return nil, fmt.Errorf("%s: its steps have digest %s, not the %s it was written with: a step was edited or deleted by hand; regenerate it with go run ./data/gen -rename-history GITDIR", renameHistoryFile, d, h.stepsDigest)
	}
	return h, nil
}

// renamePairs groups the history's steps by today's prefixes: for each
// prefix of carrierTSV, every earlier name its numbers had (other than the
// current one) is a pair (earlier name, current name). A step whose prefix
// now has a name other than the step's new name and that is no earlier name
// of it is stale history: an error (the history is older than the carrier
// table; regenerate it).
func renamePairs(h *renameHistory, carrierTSV []byte) ([]*renamePair, error) {
	if d := carrierDigest(carrierTSV); d != h.digest {
		return nil, fmt.Errorf("%s: the history ends with the carrier table of libphonenumber %s (digest %s), not the one read now (%s): run go run ./data/gen -rename-history GITDIR (a clone of github.com/google/libphonenumber with its release tags), then decide the new renames", renameHistoryFile, h.last, h.digest, d)
	}
	current := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(carrierTSV), "\n"), "\n") {
		if p, n, ok := strings.Cut(l, "\t"); ok {
			current[p] = n
		}
	}
	type earlier struct {
		names    map[string][]string // earlier name -> releases that renamed it
		lastName string
		last     string // the release of lastName
	}
	byPrefix := map[string]*earlier{}
	for _, s := range h.steps {
		for _, p := range s.prefixes {
			cur, ok := current[p]
			if !ok {
				return nil, fmt.Errorf("%s: prefix %s (%s -> %s, %s) is not in the carrier table: the history is not of the carrier data read now; run go run ./data/gen -rename-history GITDIR", renameHistoryFile, p, s.old, s.new, s.release)
			}
			e := byPrefix[p]
			if e == nil {
				e = &earlier{names: map[string][]string{}}
				byPrefix[p] = e
			}
			if s.old != cur {
				e.names[s.old] = append(e.names[s.old], s.release)
			}
			if e.last == "" || releaseLess(e.last, s.release) {
				e.lastName, e.last = s.new, s.release
			}
		}
	}
	pairs := map[[3]string]*renamePair{}
	for p, e := range byPrefix {
		cur := current[p]
		if e.lastName != cur {
			return nil, fmt.Errorf("%s: the last name of +%s is %q, the carrier table's %q: run go run ./data/gen -rename-history GITDIR", renameHistoryFile, p, e.lastName, cur)
		}
		mk := matchKey(p, cur)
		for old, releases := range e.names {
			k := [3]string{mk[0], old, cur}
			rp := pairs[k]
			if rp == nil {
				rp = &renamePair{key: mk[0], old: old, new: cur}
				pairs[k] = rp
			}
			rp.prefixes = append(rp.prefixes, p)
			for _, r := range releases {
				if !slices.Contains(rp.releases, r) {
					rp.releases = append(rp.releases, r)
				}
			}
		}
	}
	out := make([]*renamePair, 0, len(pairs))
	for _, rp := range pairs {
		slices.Sort(rp.prefixes)
		sort.Slice(rp.releases, func(i, j int) bool { return releaseLess(rp.releases[i], rp.releases[j]) })
		rp.region, _, _ = strings.Cut(rp.key, ",")
		out = append(out, rp)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.prefixes[0] != b.prefixes[0] {
			return a.prefixes[0] < b.prefixes[0]
		}
		return a.old < b.old
	})
	return out, nil
}

func releaseLess(a, b string) bool {
	va, _ := parseReleaseTag("v" + strings.TrimPrefix(a, "v"))
	vb, _ := parseReleaseTag("v" + strings.TrimPrefix(b, "v"))
	return slices.Compare(va[:], vb[:]) < 0
}

// classifyRenames resolves each pair's earlier name as the generator
// resolves carrier names (matchCarriers, with the current names, so that
// the second source's rule sees the same carriers) and classifies it.
// current are the matches of today's carrier names.
func classifyRenames(pairs []*renamePair, carrierTSV []byte, list []mccEntry, curated fs.FS, second providers, current map[[2]string]*carrierMatch) error {
	var carriers [][2]string
	for _, l := range strings.Split(strings.TrimSuffix(string(carrierTSV), "\n"), "\n") {
		prefix, name, _ := strings.Cut(l, "\t")
		carriers = append(carriers, [2]string{prefix, name})
	}
	holds := map[string]bool{} // matchKey regions + normalized name: a current carrier
	for _, pc := range carriers {
		holds[matchKey(pc[0], pc[1])[0]+" "+normName(pc[1])] = true
	}
	for _, rp := range pairs {
		carriers = append(carriers, [2]string{rp.prefixes[0], rp.old})
	}
	aliases, err := readAliases(curated)
	if err != nil {
		return err
	}
	all, err := matchCarriers(carriers, list, aliases, second)
	if err != nil {
		return err
	}
	code := func(m *carrierMatch) string {
		switch {
		case m == nil:
			return ""
		case m.how == "excluded":
			return "-"
		}
		return m.mccmnc
	}
	for _, rp := range pairs {
		nm := current[matchKey(rp.prefixes[0], rp.new)]
		rp.newCode = code(nm)
		if nm != nil && nm.mccmnc != "" {
			rp.region = nm.region
		}
		rp.oldCode = code(all[matchKey(rp.prefixes[0], rp.old)])
		switch {
		case normName(rp.old) == normName(rp.new):
			rp.class = "respelled"
		case rp.oldCode == rp.newCode && rp.oldCode != "":
			rp.class = "same network"
		case rp.oldCode == "" && rp.newCode == "":
			rp.class = "neither resolves"
		case rp.oldCode == "" || rp.oldCode == "-":
			rp.class = "old name gone"
		case holds[rp.key+" "+normName(rp.old)]:
			rp.class = "reassigned"
		default:
			rp.class = "decide"
		}
	}
	return nil
}

// renameDecision is a line of curated/renames.tsv.
type renameDecision struct {
	region, old, new string
	prefixes         []string // empty: all the pair's prefixes
	mccmnc           string   // or "-"
	reason, source   string
	confidence       string
	line             int
	used             bool
}

const renamesFile = "renames.tsv"

func readRenameDecisions(curated fs.FS) ([]*renameDecision, error) {
	lines, err := readCurated(curated, renamesFile)
	if err != nil {
		return nil, err
	}
	var out []*renameDecision
	for _, l := range lines {
		f := l.f
		where := fmt.Sprintf("%s line %d", renamesFile, l.n)
		if len(f) != 8 || slices.Contains(f, "") {
			return nil, fmt.Errorf("%s: want region<TAB>prefixes or *<TAB>old name<TAB>new name<TAB>MCCMNC or -<TAB>reason<TAB>source<TAB>confidence, all given", where)
		}
		d := &renameDecision{region: f[0], old: f[2], new: f[3], mccmnc: f[4], reason: f[5], source: f[6], confidence: f[7], line: l.n}
		if f[1] != "*" {
			for _, p := range strings.Split(f[1], ",") {
				if !allDigits(p) {
					return nil, fmt.Errorf("%s: prefix %q is not digits", where, p)
				}
				d.prefixes = append(d.prefixes, p)
			}
		}
		if d.mccmnc != "-" && (!allDigits(d.mccmnc) || len(d.mccmnc) < 5 || len(d.mccmnc) > 6) {
			return nil, fmt.Errorf("%s: MCCMNC %q is not 5 or 6 digits or -", where, d.mccmnc)
		}
		switch d.confidence {
		case "high", "medium", "low":
		default:
			return nil, fmt.Errorf("%s: confidence %q is not high, medium or low", where, d.confidence)
		}
		out = append(out, d)
	}
	return out, nil
}

// decideRenames attaches each pair to its decision, checks the decisions
// and returns prefix -> decided code ("-" for none) for the pairs decided.
// It fails on a pair of class "decide" without a decision, on a decision
// that matches no pair (stale: the rename is gone from the data, or no
// longer needs deciding), on two decisions for one prefix that disagree,
// and on a code that is not an operational network of the region.
func decideRenames(pairs []*renamePair, decisions []*renameDecision, list []mccEntry) (map[string]*renameDecision, error) {
	operational := map[string]bool{}
	for _, e := range list {
		if e.Status == "Operational" && e.Type == "National" {
			operational[e.CountryCode+" "+e.mccmnc()] = true
		}
	}
	for _, d := range decisions {
		if d.mccmnc != "-" && !operational[d.region+" "+d.mccmnc] {
			return nil, fmt.Errorf("%s line %d: %s is not an operational network of %s in the MCC-MNC list", renamesFile, d.line, d.mccmnc, d.region)
		}
	}
	out := map[string]*renameDecision{}
	var undecided []string
	for _, rp := range pairs {
		covered := 0
		for _, d := range decisions {
			if d.old != rp.old || d.new != rp.new || !strings.Contains(","+rp.key+",", ","+d.region+",") {
				continue
			}
			var prefixes []string
			if len(d.prefixes) == 0 {
				prefixes = rp.prefixes
			} else {
				for _, p := range rp.prefixes {
					if slices.ContainsFunc(d.prefixes, func(q string) bool { return strings.HasPrefix(p, q) }) {
						prefixes = append(prefixes, p)
					}
				}
			}
			if len(prefixes) == 0 {
				continue
			}
			d.used = true
			if rp.class != "decide" {
				return nil, fmt.Errorf("%s line %d: %s %q -> %q needs no decision (%s: %s and %s); remove the line", renamesFile, d.line, d.region, d.old, d.new, rp.class, orNone(rp.oldCode), orNone(rp.newCode))
			}
			rp.decision = d
			covered += len(prefixes)
			for _, p := range prefixes {
				if o, ok := out[p]; ok && o.mccmnc != d.mccmnc {
					return nil, fmt.Errorf("%s lines %d and %d disagree on +%s (%s, %s)", renamesFile, o.line, d.line, p, o.mccmnc, d.mccmnc)
				}
				out[p] = d
			}
		}
		if rp.class == "decide" && covered < len(rp.prefixes) {
			undecided = append(undecided, fmt.Sprintf("\t%s\t%s\t%s\t%s (%s) -> %s (%s), releases %s", rp.region, compactPrefixes(rp.prefixes), rp.old, rp.new, rp.oldCode, rp.new, orNone(rp.newCode), strings.Join(rp.releases, ",")))
		}
	}
	var stale []string
	for _, d := range decisions {
		if !d.used {
			stale = append(stale, fmt.Sprintf("line %d (%s %q -> %q)", d.line, d.region, d.old, d.new))
		}
	}
	if len(stale) > 0 {
		return nil, fmt.Errorf("%s: decisions that match no rename of the history: %s", renamesFile, strings.Join(stale, ", "))
	}
	if len(undecided) > 0 {
		return nil, fmt.Errorf("%d renames of libphonenumber's carrier data change the network a range resolves to; decide each in curated/%s, with the reason and source:\n%s", len(undecided), renamesFile, strings.Join(undecided, "\n"))
	}
	return out, nil
}

func orNone(code string) string {
	if code == "" {
		return "none"
	}
	return code
}

// compactPrefixes shows at most a few prefixes.
func compactPrefixes(ps []string) string {
	if len(ps) <= 4 {
		return strings.Join(ps, ",")
	}
	return strings.Join(ps[:4], ",") + ",+" + strconv.Itoa(len(ps)-4)
}

// renameAudit is the audit's result.
type renameAudit struct {
	mccmnc  []byte        // the prefix -> MCCMNC table with the decisions applied
	pairs   []*renamePair // every earlier name of today's ranges, classified
	decided []curatedRange
}

// auditRenames runs the audit over the carrier table and returns the
// prefix -> MCCMNC table with the decisions applied (a decided "-" drops
// the prefix's code), the pairs, for reports, and the decided prefixes as
// ranges (for the coverage report; they are no curated ranges).
func auditRenames(carrierTSV, mccmncTSV []byte, list []mccEntry, second providers, curated, sources fs.FS, current map[[2]string]*carrierMatch) (*renameAudit, error) {
	h, err := readRenameHistory(sources)
	if err != nil {
		return nil, err
	}
	pairs, err := renamePairs(h, carrierTSV)
	if err != nil {
		return nil, err
	}
	if err := classifyRenames(pairs, carrierTSV, list, curated, second, current); err != nil {
		return nil, err
	}
	decisions, err := readRenameDecisions(curated)
	if err != nil {
		return nil, err
	}
	decided, err := decideRenames(pairs, decisions, list)
	if err != nil {
		return &renameAudit{pairs: pairs}, err
	}
	codes := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(mccmncTSV), "\n"), "\n") {
		if p, c, ok := strings.Cut(l, "\t"); ok {
			codes[p] = c
		}
	}
	a := &renameAudit{pairs: pairs}
	for _, p := range slices.Sorted(maps.Keys(decided)) {
		d := decided[p]
		r := curatedRange{region: d.region, prefix: p, operator: d.new, source: renamesFile, where: fmt.Sprintf("%s line %d", renamesFile, d.line)}
		if d.mccmnc == "-" {
			delete(codes, p)
		} else {
			codes[p], r.mccmnc = d.mccmnc, d.mccmnc
		}
		a.decided = append(a.decided, r)
	}
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(codes)) {
		b.WriteString(p + "\t" + codes[p] + "\n")
	}
	a.mccmnc = []byte(b.String())
	return a, nil
}

// writeRenames prints every rename pair with its class and decision
// (go run ./data/gen -renames).
func writeRenames(w io.Writer, pairs []*renamePair) {
	count := map[string]int{}
	for _, rp := range pairs {
		count[rp.class]++
		d := ""
		if rp.decision != nil {
			d = fmt.Sprintf("decided %s (%s line %d, %s)", rp.decision.mccmnc, renamesFile, rp.decision.line, rp.decision.confidence)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", rp.region, compactPrefixes(rp.prefixes), rp.old, rp.new, strings.Join(rp.releases, ","), orNone(rp.oldCode), orNone(rp.newCode), rp.class, d)
	}
	classes := slices.Sorted(maps.Keys(count))
	for _, c := range classes {
		fmt.Fprintf(w, "# %s: %d\n", c, count[c])
	}
}

// printRenames is -renames: the audit's pairs, printed even when some are
// undecided (the error follows them).
func printRenames(out, moduleDir, tarball string) error {
	moduleDir, listJSON, providersXML, err := inputs(out, moduleDir, tarball)
	if err != nil {
		return err
	}
	carrier, err := readPrefixMap(filepath.Join(moduleDir, "carrier", "data", "en.txt.gz"), false)
	if err != nil {
		return err
	}
	curated, sources := os.DirFS(filepath.Join(out, "curated")), os.DirFS(filepath.Join(out, "sources"))
	mccmnc, _, matches, err := mccmncTables(carrier, listJSON, providersXML, curated)
	if err != nil {
		return err
	}
	list, err := readNetworkList(listJSON, curated)
	if err != nil {
		return err
	}
	second, err := readProviders(providersXML)
	if err != nil {
		return err
	}
	a, err := auditRenames(carrier, mccmnc, list, second, curated, sources, matches)
	if a != nil {
		writeRenames(os.Stdout, a.pairs)
	}
	writeOtherNames(os.Stdout, matches, list)
	return err
}

// writeOtherNames prints today's carrier names that resolve to a network
// the list names otherwise (by a curated alias, with its reason, or by the
// second source's name for it), the other half of the audit: those
// decisions are the alias file's lines and the second source's rule
// (mccmnc.go), not lines of renames.tsv.
func writeOtherNames(w io.Writer, matches map[[2]string]*carrierMatch, list []mccEntry) {
	names := map[string][]string{} // region and MCCMNC -> the list's normalized names
	listed := map[string]string{}
	for _, e := range list {
		k := e.CountryCode + " " + e.mccmnc()
		names[k] = append(names[k], normName(deref(e.Brand)), normName(deref(e.Operator)))
		if listed[k] == "" {
			listed[k] = strings.TrimSpace(deref(e.Brand) + " / " + deref(e.Operator))
		}
	}
	var lines []string
	count := map[string]int{}
	for _, m := range matches {
		if m.mccmnc == "" || m.how == "name" {
			continue
		}
		want := normName(m.carrier)
		if slices.ContainsFunc(names[m.region+" "+m.mccmnc], func(n string) bool {
			return n != "" && (n == want || strings.HasPrefix(n, want) || strings.HasPrefix(want, n))
		}) {
			continue
		}
		count[m.how]++
		lines = append(lines, fmt.Sprintf("%s\t%s\t%s\t%s\tby %s", m.region, m.carrier, m.mccmnc, listed[m.region+" "+m.mccmnc], m.how))
	}
	slices.Sort(lines)
	fmt.Fprintln(w, "# Current names that resolve to a network the list names otherwise:")
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	for _, how := range slices.Sorted(maps.Keys(count)) {
		fmt.Fprintf(w, "# by %s: %d\n", how, count[how])
	}
}
