package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Range data where libphonenumber has none.
//
// libphonenumber's carrier data leaves much of some regions' mobile space to
// no carrier (Russia's +7 910-919, the whole of MTS's oldest codes, among
// them). Two curated inputs fill such gaps, each range citing a public
// source:
//
//   - curated/ranges.tsv: hand-written lines (region, E.164 prefix,
//     operator, MCCMNC, source, date), each source a regulator's register or
//     an operator's published ranges;
//   - registers: official numbering registers committed under sources/ and
//     pinned by their SHA-256, with a curated file naming the MCCMNC of each
//     range holder (for Russia, the register of the Ministry of Digital
//     Development and curated/ru_operators.tsv).
//
// Curated ranges only fill gaps: a range inside a carrier prefix of
// libphonenumber is dropped, and a range with such prefixes inside it keeps
// only the numbers around them. libphonenumber stays the first source; where
// it names a carrier whose name resolves to an MCCMNC, its name stands. Where
// its carrier resolves to none, a register's range and a hand-written line
// (a regulator's allocation) stand; Russia's register stands against any
// other code (fillGaps).

// curatedRange is one range of the curated inputs, as a prefix.
type curatedRange struct {
	region, prefix, operator, mccmnc string
	source                           string // a URL, or a register's name
	date                             string // when the source was read (YYYY-MM-DD)
	where                            string // file and line, for errors
	override                         bool   // a register's, or a hand-written line marked override: stands against libphonenumber (fillGaps)
	ownOnly                          bool   // with override: only within ranges of its own carrier's name
	overUnresolved                   bool   // a register's or a hand-written line's: stands inside ranges whose carrier resolves to no MCCMNC (fillGaps)
	mustFill                         bool   // a hand-written line: an error when libphonenumber leaves it nothing to fill (fillGaps)
}

// readRangesFile reads curated/ranges.tsv.
func readRangesFile(curated fs.FS) ([]curatedRange, error) {
	lines, err := readCurated(curated, "ranges.tsv")
	if err != nil {
		return nil, err
	}
	var out []curatedRange
	for _, l := range lines {
		f := l.f
		where := fmt.Sprintf("ranges.tsv line %d", l.n)
		if len(f) < 6 || len(f) > 7 || slices.Contains(f, "") {
			return nil, fmt.Errorf("%s: want region<TAB>prefix<TAB>operator<TAB>MCCMNC<TAB>source<TAB>date, all given, and optionally override", where)
		}
		override := len(f) == 7
		if override && f[6] != "override" {
			return nil, fmt.Errorf("%s: seventh field %q is not override", where, f[6])
		}
		if !allDigits(f[1]) || len(f[1]) < 3 || len(f[1]) > 12 {
			return nil, fmt.Errorf("%s: prefix %q is not 3 to 12 digits of an E.164 number", where, f[1])
		}
		if !allDigits(f[3]) || len(f[3]) < 5 || len(f[3]) > 6 {
			return nil, fmt.Errorf("%s: MCCMNC %q is not 5 or 6 digits", where, f[3])
		}
		if !strings.HasPrefix(f[4], "https://") && !strings.HasPrefix(f[4], "http://") {
			return nil, fmt.Errorf("%s: source %q is not a URL", where, f[4])
		}
		if !isDate(f[5]) {
			return nil, fmt.Errorf("%s: date %q is not YYYY-MM-DD", where, f[5])
		}
		// A regulator's allocation stands where libphonenumber's carrier
		// resolves to no MCCMNC (a name without a network in the list), as
		// Arcep's register does; marked override, also against a carrier
		// with another code (a block the regulator allocated to another
		// operator inside a coarser prefix of libphonenumber), as Russia's
		// register does.
		out = append(out, curatedRange{region: f[0], prefix: f[1], operator: f[2], mccmnc: f[3], source: f[4], date: f[5], where: where,
			mustFill: true, overUnresolved: true, override: override})
	}
	return out, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isDate(s string) bool {
	return len(s) == 10 && allDigits(s[:4]) && s[4] == '-' && allDigits(s[5:7]) && s[7] == '-' && allDigits(s[8:])
}

// curatedLine is a line of a curated TSV file that is neither blank nor a
// comment: its number (from 1) and its tab-separated fields.
type curatedLine struct {
	n int
	f []string
}

// readCurated reads the lines of a curated TSV file that are neither
// blank nor comments.
func readCurated(curated fs.FS, name string) ([]curatedLine, error) {
	src, err := fs.ReadFile(curated, name)
	if err != nil {
		return nil, err
	}
	var out []curatedLine
	for n, l := range strings.Split(string(src), "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
			out = append(out, curatedLine{n + 1, strings.Split(l, "\t")})
		}
	}
	return out, nil
}

// checkUsed fails on the curated holders (by key) that a register does not
// have, naming their lines.
func checkUsed[T any](file, what string, holders map[string]T, used func(T) (ok bool, line int)) error {
	var unused []string
	for key, h := range holders {
		if ok, line := used(h); !ok {
			unused = append(unused, fmt.Sprintf("line %d (%s)", line, key))
		}
	}
	if len(unused) == 0 {
		return nil
	}
	sort.Strings(unused)
	return fmt.Errorf("%s: %s: %s", file, what, strings.Join(unused, ", "))
}

// holderSpan is a range of a register, national numbers from and to, with
// its holder.
type holderSpan[H comparable] struct {
	from, to int64
	holder   H
}

// mergeSpans sorts a register's ranges, fails on two that overlap, and
// calls emit once for each run of adjacent ranges of one holder (registers
// split a holder's block by region or by date), so that the prefixes are
// few.
func mergeSpans[H comparable](spans []holderSpan[H], file string, emit func(from, to int64, holder H)) error {
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	for i := 0; i < len(spans); {
		s := spans[i]
		if i > 0 && spans[i-1].to >= s.from {
			return fmt.Errorf("%s: ranges overlap at %d", file, s.from)
		}
		j := i + 1
		for ; j < len(spans) && spans[j].from == s.to+1 && spans[j].holder == s.holder; j++ {
			s.to = spans[j].to
		}
		emit(s.from, s.to, s.holder)
		i = j
	}
	return nil
}

// The Russian register: the extract of the register of the Russian
// numbering system for the mobile codes 9xx (DEF-9xx.csv), which the
// Ministry of Digital Development publishes as open data (formerly
// Rossvyaz). Official documents of state bodies are not subject to
// copyright in Russia (Civil Code, art. 1259 (6)). Committed gzipped,
// pinned by the SHA-256 of the CSV.
const (
	ruRegisterFile   = "rossvyaz-DEF-9xx.csv.gz"
	ruRegisterSHA256 = "67925c521c00b4be6d655e9f695b44e825eaf4fe16e3f34f860d69b3f2aa2dd7"
	ruRegisterName   = "Russian numbering register DEF-9xx (Ministry of Digital Development), as of 2026-04-20"
	ruRegisterDate   = "2026-04-20"
)

// ruOperator is a line of curated/ru_operators.tsv: a range holder of the
// register, by taxpayer number (INN, the register's stable key; names are
// spelt several ways), with its MCCMNC or "-".
type ruOperator struct {
	inn, name, mccmnc, reason string
	line                      int
	used                      bool
}

func readRUOperators(curated fs.FS) (map[string]*ruOperator, error) {
	lines, err := readCurated(curated, "ru_operators.tsv")
	if err != nil {
		return nil, err
	}
	out := map[string]*ruOperator{}
	for _, l := range lines {
		f, n := l.f, l.n
		if len(f) != 4 || slices.Contains(f, "") || !allDigits(f[0]) || (f[2] != "-" && !allDigits(f[2])) {
			return nil, fmt.Errorf("ru_operators.tsv line %d: want INN<TAB>name<TAB>MCCMNC or -<TAB>reason", n)
		}
		if out[f[0]] != nil {
			return nil, fmt.Errorf("ru_operators.tsv line %d: INN %s given twice", n, f[0])
		}
		out[f[0]] = &ruOperator{inn: f[0], name: f[1], mccmnc: f[2], reason: f[3], line: n}
	}
	return out, nil
}

// readRURegister checks the register against its pinned digest and turns
// the ranges of the holders curated with an MCCMNC into prefixes. Adjacent
// ranges of one holder merge first (the register splits a holder's block by
// region), so that the prefixes are few.
func readRURegister(sources fs.FS, curated fs.FS) ([]curatedRange, error) {
	raw, err := readPinned(sources, ruRegisterFile, ruRegisterSHA256)
	if err != nil {
		return nil, err
	}
	ops, err := readRUOperators(curated)
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(raw, []byte("\ufeff"))))
	r.Comma = ';'
	r.FieldsPerRecord = 8
	r.LazyQuotes = true
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ruRegisterFile, err)
	}
	if len(rows) < 1000 || rows[0][0] != "АВС/ DEF" || rows[0][7] != "ИНН" {
		return nil, fmt.Errorf("%s: not the DEF-9xx extract (header %q, %d rows)", ruRegisterFile, rows[0], len(rows))
	}
	var spans []holderSpan[*ruOperator] // national numbers, 10 digits
	for i, row := range rows[1:] {
		code, from, to := row[0], row[1], row[2]
		if len(code) != 3 || code[0] != '9' || len(from) != 7 || len(to) != 7 || !allDigits(code+from+to) || !utf8.ValidString(row[4]) {
			return nil, fmt.Errorf("%s row %d: malformed range %q", ruRegisterFile, i+2, row[:3])
		}
		lo, _ := strconv.ParseInt(code+from, 10, 64)
		hi, _ := strconv.ParseInt(code+to, 10, 64)
		if capacity, err := strconv.ParseInt(row[3], 10, 64); err != nil || hi < lo || capacity != hi-lo+1 {
			return nil, fmt.Errorf("%s row %d: range %s %s-%s does not hold its capacity %s", ruRegisterFile, i+2, code, from, to, row[3])
		}
		op := ops[row[7]]
		if op == nil {
			continue // a holder nobody curated: unknown, unmapped
		}
		op.used = true
		if op.mccmnc == "-" {
			continue
		}
		spans = append(spans, holderSpan[*ruOperator]{lo, hi, op})
	}
	if err := checkUsed("ru_operators.tsv", "holders the register does not have", ops, func(op *ruOperator) (bool, int) { return op.used, op.line }); err != nil {
		return nil, err
	}
	var out []curatedRange
	err = mergeSpans(spans, ruRegisterFile, func(from, to int64, op *ruOperator) {
		for _, p := range coverPrefixes(from, to, 10) {
			out = append(out, curatedRange{region: "RU", prefix: "7" + p, operator: op.name, mccmnc: op.mccmnc,
				source: ruRegisterName, date: ruRegisterDate, where: "ru_operators.tsv line " + strconv.Itoa(op.line), override: true})
		}
	})
	return out, err
}

// coverPrefixes returns the fewest prefixes (of numbers of digits digits)
// that cover exactly the numbers from lo to hi.
func coverPrefixes(lo, hi int64, digits int) []string {
	var out []string
	for lo <= hi {
		// The largest block 10^k aligned at lo that fits in [lo, hi].
		size, k := int64(1), 0
		for k < digits && lo%(size*10) == 0 && lo+size*10-1 <= hi {
			size *= 10
			k++
		}
		p := fmt.Sprintf("%0*d", digits, lo)
		out = append(out, p[:digits-k])
		lo += size
	}
	return out
}

// maxPrefixDigits is the longest prefix the plan file holds (its keys'
// digits, numbering/internal/planfmt.KeyDigits): 9 digits with the calling
// code. Blocks of a register finer than that (a Russian block of fewer than
// 100 numbers) are left out.
const maxPrefixDigits = 9

// fillGaps keeps of the curated ranges the numbers that no carrier prefix
// of libphonenumber holds: a range under such a prefix is dropped, and one
// with such prefixes inside it is split around them. A range of a register
// (override) also stands inside a carrier prefix of libphonenumber whose
// MCCMNC (libCodes; none when unresolved) is not the register's: the
// register is the regulator's current record, where libphonenumber's names
// can be years old (Yota's blocks inside ranges it still calls MegaFon's).
// A range with overUnresolved stands only inside carrier prefixes whose
// name resolves to no MCCMNC (Arcep's register: a block libphonenumber
// still gives a former holder, or a holder without a code of its own, now
// held by a network with one). Two curated ranges that overlap are an
// error, and so are a line of ranges.tsv longer than maxPrefixDigits and
// one (mustFill) that keeps nothing: once libphonenumber names a carrier
// for all of its range, the line is dead and must go, as an alias no
// carrier uses. It returns the ranges kept,
// sorted by prefix; a kept range may have the very prefix of a carrier
// range of libphonenumber, which it replaces.
func fillGaps(ranges []curatedRange, carrierTSV []byte, libCodes map[string]string) ([]curatedRange, error) {
	var lib []string
	libNames := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(carrierTSV), "\n"), "\n") {
		prefix, name, _ := strings.Cut(l, "\t")
		lib = append(lib, prefix)
		libNames[prefix] = name
	}
	slices.Sort(lib)
	libAbove := func(p string) (string, bool) { // the longest of libphonenumber's prefixes that p starts with
		for l := len(p); l > 0; l-- {
			if _, found := slices.BinarySearch(lib, p[:l]); found {
				return p[:l], true
			}
		}
		return "", false
	}
	holdsLib := func(p string) bool { // a longer prefix of libphonenumber starts with p
		i, _ := slices.BinarySearch(lib, p)
		if i < len(lib) && lib[i] == p {
			i++
		}
		return i < len(lib) && strings.HasPrefix(lib[i], p)
	}
	sort.SliceStable(ranges, func(i, j int) bool { return ranges[i].prefix < ranges[j].prefix })
	for i := 1; i < len(ranges); i++ {
		if strings.HasPrefix(ranges[i].prefix, ranges[i-1].prefix) {
			return nil, fmt.Errorf("curated ranges overlap: %s (%s) and %s (%s)", ranges[i-1].prefix, ranges[i-1].where, ranges[i].prefix, ranges[i].where)
		}
	}
	for _, r := range ranges {
		if len(r.prefix) > maxPrefixDigits && (!r.override || r.mustFill) {
			return nil, fmt.Errorf("%s: prefix %s is longer than %d digits, the longest the plan holds", r.where, r.prefix, maxPrefixDigits)
		}
	}
	var out []curatedRange
	var keep func(r curatedRange)
	keep = func(r curatedRange) {
		if above, ok := libAbove(r.prefix); ok {
			switch code := libCodes[above]; {
			case r.override && code != r.mccmnc && !(r.ownOnly && libNames[above] != r.operator):
			case r.overUnresolved && code == "":
			default:
				return
			}
		}
		switch {
		case len(r.prefix) > maxPrefixDigits:
		case holdsLib(r.prefix):
			if len(r.prefix) < maxPrefixDigits {
				for d := '0'; d <= '9'; d++ {
					c := r
					c.prefix += string(d)
					keep(c)
				}
			}
		default:
			out = append(out, r)
		}
	}
	for _, r := range ranges {
		n := len(out)
		keep(r)
		if r.mustFill && len(out) == n {
			return nil, fmt.Errorf("%s: libphonenumber names a carrier for all of +%s now; remove the line", r.where, r.prefix)
		}
	}
	return out, nil
}

// checkRanges requires each curated range's MCCMNC to be an operational
// network of its region in the MCC-MNC list, and its prefix to belong to
// the region.
func checkRanges(ranges []curatedRange, list []mccEntry) error {
	operational := map[string]bool{}
	for _, e := range list {
		if e.Status == "Operational" {
			operational[e.CountryCode+" "+e.mccmnc()] = true
		}
	}
	for _, r := range ranges {
		cc, ok := callingCodeOf(r.prefix)
		if !ok {
			return fmt.Errorf("%s: prefix %s has no calling code", r.where, r.prefix)
		}
		if !slices.Contains(regionsOfPrefix(cc, r.prefix[len(strconv.Itoa(cc)):]), r.region) {
			return fmt.Errorf("%s: prefix %s is not a prefix of %s", r.where, r.prefix, r.region)
		}
		if !operational[r.region+" "+r.mccmnc] {
			return fmt.Errorf("%s: %s is not an operational network of %s in the MCC-MNC list", r.where, r.mccmnc, r.region)
		}
	}
	return nil
}

// curatedRanges reads both curated inputs, adds more (the ranges of
// prefix-limited aliases), checks them and keeps the gaps they fill.
func curatedRanges(carrierTSV, mccmncTSV []byte, list []mccEntry, curated, sources fs.FS, more []curatedRange) ([]curatedRange, error) {
	hand, err := readRangesFile(curated)
	if err != nil {
		return nil, err
	}
	ru, err := readRURegister(sources, curated)
	if err != nil {
		return nil, err
	}
	fr, err := readFRRegister(sources, curated)
	if err != nil {
		return nil, err
	}
	all := append(append(append(hand, ru...), fr...), more...)
	if err := checkRanges(all, list); err != nil {
		return nil, err
	}
	libCodes := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(mccmncTSV), "\n"), "\n") {
		prefix, code, _ := strings.Cut(l, "\t")
		libCodes[prefix] = code
	}
	return fillGaps(all, carrierTSV, libCodes)
}

// rangesTSV is numbering/ranges.tsv.gz: the curated ranges kept, for
// readers and tests ("prefix<TAB>operator<TAB>MCCMNC<TAB>source").
func rangesTSV(ranges []curatedRange) []byte {
	var b bytes.Buffer
	for _, r := range ranges {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", r.prefix, r.operator, r.mccmnc, r.source)
	}
	return b.Bytes()
}

// withRanges merges "prefix<TAB>value" lines into a sorted table of such
// lines; a range with a prefix of the table replaces its line.
func withRanges(table []byte, ranges []curatedRange, value func(curatedRange) string) []byte {
	lines := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(table), "\n"), "\n") {
		prefix, v, _ := strings.Cut(l, "\t")
		lines[prefix] = v
	}
	for _, r := range ranges {
		lines[r.prefix] = value(r)
	}
	prefixes := slices.Sorted(maps.Keys(lines))
	var b bytes.Buffer
	for _, p := range prefixes {
		b.WriteString(p + "\t" + lines[p] + "\n")
	}
	return b.Bytes()
}
