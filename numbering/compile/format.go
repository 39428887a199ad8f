package compile

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/numenhq/numen/numbering/internal/planfmt"
	"github.com/nyaruka/phonenumbers/v2"
)

// nationalPrefix is libphonenumber's getNddPrefixForRegion(region, true)
// for the region of m: its national prefix without "~".
func nationalPrefix(m *phonenumbers.PhoneMetadata) string {
	return strings.ReplaceAll(m.GetNationalPrefix(), "~", "")
}

// firstGroupOnly is libphonenumber's FIRST_GROUP_ONLY_PREFIX_PATTERN: a
// national-prefix formatting rule that writes no national prefix.
var firstGroupOnly = regexp.MustCompile(`^\(?\$1\)?$`)

// uniqueIDD is libphonenumber's test for an international prefix that is
// one prefix, not a pattern of several ("00", "8~10"): only such a prefix
// is written before numbers dialled from the region.
var uniqueIDD = regexp.MustCompile("^(?:[\\d]+(?:[~\u2053\u223C\uFF5E][\\d]+)?)$")

// formats builds the Formats section (see planfmt) from the metadata of
// each calling code's main region, in the order of the Codes section, and
// each region's international prefix.
func (c *compiler) formats() ([]byte, error) {
	f := &formatCompiler{layoutAt: map[string]uint32{}, groups: map[string]int{}, digits: map[string][2]int{}, chunkAt: map[string]uint32{}, templateAt: map[string]uint32{}}
	type list struct {
		first, count int
		chunks       []uint32 // automaton offsets; NoOffset for a chunk without leading digits
		levels       int      // as-you-type levels of leading digits
		aytChunks    []uint32 // levels * chunks automaton offsets, level major
	}
	// alternate lists use the first leading-digits pattern, as the
	// matcher does; the others the last, the most detailed.
	addList := func(region string, formats []*phonenumbers.NumberFormat, alternate bool) (list, error) {
		l := list{first: len(f.records)}
		for i, nf := range formats {
			rec, err := f.record(nf)
			if err != nil {
				return l, fmt.Errorf("region %s format %d (%s): %w", region, i, nf.GetPattern(), err)
			}
			f.records = append(f.records, rec)
		}
		l.count = len(formats)
		var err error
		l.chunks, err = f.chunkAutomata(l.chunks, region, formats, func(ld []string) (string, bool) {
			if len(ld) == 0 {
				return "", false
			}
			if alternate {
				return ld[0], true
			}
			return ld[len(ld)-1], true
		})
		if err != nil {
			return l, err
		}
		// As you type, libphonenumber narrows the formats by their
		// leading-digits pattern number len(national)-3, or their last.
		if len(formats) > planfmt.AYTMaxFormats {
			return l, fmt.Errorf("region %s: %d formats, at most %d", region, len(formats), planfmt.AYTMaxFormats)
		}
		// The chunks' automata hold the last patterns; level k holds
		// pattern k of the formats that have more than k+1.
		for _, nf := range formats {
			l.levels = max(l.levels, len(nf.GetLeadingDigitsPattern())-1)
		}
		if l.levels > planfmt.AYTMaxLevels {
			return l, fmt.Errorf("region %s: %d leading-digits patterns, at most %d", region, l.levels+1, planfmt.AYTMaxLevels+1)
		}
		for k := range l.levels {
			l.aytChunks, err = f.chunkAutomata(l.aytChunks, region, formats, func(ld []string) (string, bool) {
				if len(ld) > k+1 {
					return ld[k], true
				}
				return "", false
			})
			if err != nil {
				return l, err
			}
		}
		return l, nil
	}
	var national, intl, alt []list
	for _, m := range c.codeMeta {
		n, err := addList(m.GetId(), m.GetNumberFormat(), false)
		if err != nil {
			return nil, err
		}
		i := n
		if len(m.GetIntlNumberFormat()) > 0 {
			if i, err = addList(m.GetId(), m.GetIntlNumberFormat(), false); err != nil {
				return nil, err
			}
		}
		a, err := addList(m.GetId()+" (alternate)", c.altFormats[m.GetCountryCode()], true)
		if err != nil {
			return nil, err
		}
		national, intl, alt = append(national, n), append(intl, i), append(alt, a)
	}
	if len(f.records) >= 1<<16 {
		return nil, fmt.Errorf("%d formats, at most %d", len(f.records), 1<<16-1)
	}

	var w writer
	w.u32(uint32(len(c.codeMeta)))
	w.u32(uint32(len(c.regionMeta)))
	w.u32(uint32(len(f.records)))
	header := len(w.b)
	for len(w.b) < planfmt.FmtCodeSizeWord {
		w.u32(0)
	}
	w.u32(planfmt.FmtCodeSize)
	w.u32(0) // FmtAYT, set below
	codesAt := len(w.b)
	for range c.codeMeta {
		w.bytes(make([]byte, planfmt.FmtCodeSize))
	}
	for _, m := range c.regionMeta {
		var idd [planfmt.FmtRegionSize]byte
		prefix := m.GetPreferredInternationalPrefix()
		if prefix == "" && uniqueIDD.MatchString(m.GetInternationalPrefix()) {
			prefix = m.GetInternationalPrefix()
		}
		if len(prefix) > len(idd) || strings.ContainsFunc(prefix, func(r rune) bool { return r < ' ' || r > '~' }) {
			return nil, fmt.Errorf("region %s: international prefix %q is not %d ASCII characters at most", m.GetId(), prefix, len(idd))
		}
		copy(idd[:], prefix)
		w.bytes(idd[:])
	}
	recordsAt := len(w.b)
	w.bytes(make([]byte, planfmt.FmtRecordSize*len(f.records)))
	for i := range c.codeMeta {
		if nationalPrefix(c.codeMeta[i]) != "" {
			putAt(w.b, codesAt+i*planfmt.FmtCodeSize+planfmt.FmtCodeFlags, planfmt.FmtCodeNDD)
		}
		for j, l := range []list{national[i], intl[i], alt[i]} {
			at := codesAt + i*planfmt.FmtCodeSize + 8*j
			w.b[at], w.b[at+1] = byte(l.first), byte(l.first>>8)
			w.b[at+2], w.b[at+3] = byte(l.count), byte(l.count>>8)
			putAt(w.b, at+4, uint32(len(w.b)))
			for _, ch := range l.chunks {
				w.u32(ch)
			}
		}
	}
	layoutBase := len(w.b)
	w.bytes(f.layouts.b)
	for i, r := range f.records {
		at := recordsAt + i*planfmt.FmtRecordSize
		putAt(w.b, at+planfmt.FmtLayout, uint32(layoutBase)+r.layout)
		for k, t := range r.templates {
			putAt(w.b, at+4+4*k, t)
		}
	}
	w.pad(4)
	putAt(w.b, header, uint32(len(w.b)))
	putAt(w.b, header+4, uint32(len(f.templates)))
	w.bytes(f.templates)
	w.pad(planfmt.WideRow)
	putAt(w.b, header+8, uint32(len(w.b)))
	putAt(w.b, header+12, uint32(len(f.automata.b)))
	w.bytes(f.automata.b)

	// The as-you-type table.
	w.pad(4)
	putAt(w.b, planfmt.FmtAYT, uint32(len(w.b)))
	for _, r := range f.records {
		w.b = append(w.b, byte(r.aytTemplate), byte(r.aytTemplate>>8), byte(r.aytTemplate>>16), byte(r.aytDigits), r.aytFlags, byte(r.aytLeading), 0, 0)
	}
	aytCodesAt := len(w.b)
	w.bytes(make([]byte, planfmt.FmtAYTCodeSize*len(c.codeMeta)))
	for i := range c.codeMeta {
		for j, l := range []list{national[i], intl[i]} {
			at := aytCodesAt + i*planfmt.FmtAYTCodeSize + 8*j
			putAt(w.b, at, uint32(l.levels))
			putAt(w.b, at+4, uint32(len(w.b)))
			for _, off := range l.aytChunks {
				w.u32(off)
			}
		}
	}
	return w.b, nil
}

// formatCompiler holds the layouts, templates and automata of the Formats
// section, each distinct one once.
type formatCompiler struct {
	records    []formatRecord
	layouts    writer
	layoutAt   map[string]uint32
	groups     map[string]int    // capture groups of each pattern
	digits     map[string][2]int // the fewest and most digits each pattern matches
	chunkAt    map[string]uint32
	templates  []byte
	templateAt map[string]uint32
	automata   writer
}

type formatRecord struct {
	layout    uint32    // offset in layouts
	digits    [2]int    // the fewest and most digits its layout matches
	templates [3]uint32 // uint16 offset | uint8 length << 16 | uint8 flags << 24
	// As you type (see planfmt): the formatting template (uint16 offset |
	// uint8 length << 16, 0 for none), the digits it holds, the flags.
	aytTemplate uint32
	aytDigits   int
	aytFlags    byte
	aytLeading  int // leading-digits patterns
}

func (f *formatCompiler) record(nf *phonenumbers.NumberFormat) (formatRecord, error) {
	var r formatRecord
	pattern := nf.GetPattern()
	off, ok := f.layoutAt[pattern]
	if !ok {
		l, groups, err := compileLayout(pattern)
		if err != nil {
			return r, err
		}
		off = uint32(len(f.layouts.b))
		f.layoutAt[pattern] = off
		f.groups[pattern] = groups
		f.digits[pattern] = layoutDigits(l)
		f.layouts.bytes(l)
	}
	r.digits = f.digits[pattern]
	r.layout = off
	groups := f.groups[pattern]
	format := nf.GetFormat()
	national := format
	if rule := nf.GetNationalPrefixFormattingRule(); rule != "" {
		national = replaceFirstGroup(format, rule)
	}
	carrier := ""
	if rule := nf.GetDomesticCarrierCodeFormattingRule(); rule != "" {
		carrier = replaceFirstGroup(format, strings.Replace(rule, "$CC", "\x00", 1))
	}
	var flags uint32
	if len(nf.GetLeadingDigitsPattern()) > 0 {
		flags |= planfmt.FmtLeading
	}
	if nf.GetNationalPrefixOptionalWhenFormatting() {
		flags |= planfmt.FmtNPOptional
	}
	if rule := nf.GetNationalPrefixFormattingRule(); rule != "" && !nf.GetNationalPrefixOptionalWhenFormatting() && !firstGroupOnly.MatchString(rule) {
		flags |= planfmt.FmtNPRequired
	}
	for k, text := range []string{format, national, carrier} {
		if k == 2 && text == "" {
			continue
		}
		t, err := f.template(text, groups)
		if err != nil {
			return r, err
		}
		r.templates[k] = t
	}
	r.templates[0] |= flags << 24
	r.templates[1] |= uint32(r.digits[0]) << 24
	r.templates[2] |= uint32(r.digits[1]) << 24
	if err := f.asYouType(&r, nf); err != nil {
		return r, err
	}
	return r, nil
}

// validPunctuation is libphonenumber's VALID_PUNCTUATION, as a character
// class body.
const validPunctuation = `-x\x{2010}-\x{2015}\x{2212}\x{30FC}\x{FF0D}-\x{FF0F} \x{00A0}\x{00AD}\x{200B}\x{2060}\x{3000}()\x{FF08}\x{FF09}\x{FF3B}\x{FF3D}.\[\]/~\x{2053}\x{223C}\x{FF5E}`

var (
	// eligibleFormat is libphonenumber's test of a format the
	// as-you-type formatter may use: groups separated by punctuation,
	// the first group first.
	eligibleFormat = regexp.MustCompile(`^(?:[` + validPunctuation + `]*\$1[` + validPunctuation + `]*(?:\$\d[` + validPunctuation + `]*)*)$`)
)

// longestNumber is what libphonenumber's as-you-type formatter matches a
// format's pattern against to make its template.
const longestNumber = "999999999999999"

// asYouType sets r's as-you-type fields for format nf: its flags, and the
// template libphonenumber's AsYouTypeFormatter.getFormattingTemplate makes,
// the format applied to the longest match of the pattern within
// longestNumber, computed here as libphonenumber computes it.
func (f *formatCompiler) asYouType(r *formatRecord, nf *phonenumbers.NumberFormat) error {
	r.aytLeading = len(nf.GetLeadingDigitsPattern())
	if r.aytLeading > 255 {
		return fmt.Errorf("%d leading-digits patterns", r.aytLeading)
	}
	rule := nf.GetNationalPrefixFormattingRule()
	if rule == "" || firstGroupOnly.MatchString(rule) {
		r.aytFlags |= planfmt.AYTFirstGroupOnly
	}
	if strings.ContainsAny(rule, "- ") {
		r.aytFlags |= planfmt.AYTSeparator
	}
	if !eligibleFormat.MatchString(nf.GetFormat()) {
		return nil // never used as you type: no template
	}
	r.aytFlags |= planfmt.AYTEligible
	re, err := regexp.Compile(nf.GetPattern())
	if err != nil {
		return err
	}
	number := re.FindString(longestNumber)
	if number == "" {
		return nil // no template: the pattern needs digits other than 9
	}
	text := re.ReplaceAllString(number, nf.GetFormat())
	var b []byte
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '9':
			b = append(b, planfmt.TemplateDigit)
		case c < ' ' || c > '~' || c >= '0' && c <= '9':
			return fmt.Errorf("as-you-type template %q of format %q: not ASCII punctuation", text, nf.GetFormat())
		default:
			b = append(b, c)
		}
	}
	at, err := f.intern(b, "as-you-type template", text)
	if err != nil {
		return err
	}
	r.aytTemplate = at
	r.aytDigits = len(number)
	return nil
}

// replaceFirstGroup replaces the first "$n" of format with rule, in which
// "$1" stands for that "$n": Java's FIRST_GROUP_PATTERN replaceFirst, as
// libphonenumber applies national-prefix and carrier-code rules.
func replaceFirstGroup(format, rule string) string {
	i := strings.IndexByte(format, '$')
	for i >= 0 && (i+1 >= len(format) || format[i+1] < '0' || format[i+1] > '9') {
		j := strings.IndexByte(format[i+1:], '$')
		if j < 0 {
			return format
		}
		i += 1 + j
	}
	if i < 0 {
		return format
	}
	token := format[i : i+2]
	return format[:i] + strings.ReplaceAll(rule, "$1", token) + format[i+2:]
}

// template encodes a replacement template: "$n" becomes TemplateGroup|n,
// NUL (the carrier code's place) TemplateCarrier. A "$n" followed by a
// letter, digit or underscore is refused: Java and Go read it differently.
func (f *formatCompiler) template(text string, groups int) (uint32, error) {
	var b []byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '$':
			if i+1 >= len(text) || text[i+1] < '1' || text[i+1] > '9' {
				return 0, fmt.Errorf("template %q: $ without a group", text)
			}
			n := int(text[i+1] - '0')
			if n > groups {
				return 0, fmt.Errorf("template %q: no group %d", text, n)
			}
			if i+2 < len(text) {
				if d := text[i+2]; d == '_' || d >= '0' && d <= '9' || d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z' {
					return 0, fmt.Errorf("template %q: $%d followed by %q", text, n, d)
				}
			}
			b = append(b, planfmt.TemplateGroup|byte(n))
			i++
		case c == 0:
			b = append(b, planfmt.TemplateCarrier)
		case c < ' ' || c > '~':
			return 0, fmt.Errorf("template %q: not ASCII", text)
		default:
			b = append(b, c)
		}
	}
	return f.intern(b, "template", text)
}

// intern adds the template b (written from text; what names it in an
// error) to the templates once, and returns its offset | its length<<16.
func (f *formatCompiler) intern(b []byte, what, text string) (uint32, error) {
	if len(b) == 0 || len(b) > 255 {
		return 0, fmt.Errorf("%s %q: %d bytes", what, text, len(b))
	}
	off, ok := f.templateAt[string(b)]
	if !ok {
		off = uint32(len(f.templates))
		f.templateAt[string(b)] = off
		f.templates = append(f.templates, b...)
	}
	if off >= 1<<16 {
		return 0, fmt.Errorf("templates beyond %d bytes", 1<<16)
	}
	return off | uint32(len(b))<<16, nil
}

// chunkAutomata appends to offs, for each chunk of FmtChunk formats, the
// offset of the automaton of the leading-digits patterns pick chooses
// (one per format; false for none), NoOffset for a chunk where it chooses
// none.
func (f *formatCompiler) chunkAutomata(offs []uint32, region string, formats []*phonenumbers.NumberFormat, pick func(ld []string) (string, bool)) ([]uint32, error) {
	for at := 0; at < len(formats); at += planfmt.FmtChunk {
		chunk := formats[at:min(at+planfmt.FmtChunk, len(formats))]
		patterns := make([]string, len(chunk))
		has := false
		for i, nf := range chunk {
			if p, ok := pick(nf.GetLeadingDigitsPattern()); ok {
				patterns[i], has = p, true
			}
		}
		if !has {
			offs = append(offs, planfmt.NoOffset)
			continue
		}
		off, err := f.automaton(patterns)
		if err != nil {
			return offs, fmt.Errorf("region %s leading digits: %w", region, err)
		}
		offs = append(offs, off)
	}
	return offs, nil
}

// automaton compiles one chunk's leading-digits patterns ("" for a format
// without) into one automaton, pattern i for the chunk's i-th format.
func (f *formatCompiler) automaton(patterns []string) (uint32, error) {
	key := strings.Join(patterns, "\n")
	if off, ok := f.chunkAt[key]; ok {
		return off, nil
	}
	d, err := compileDFA(patterns, maxStates)
	if err != nil {
		return 0, err
	}
	off, err := writeAutomaton(&f.automata, d)
	f.chunkAt[key] = off
	return off, err
}

// compileLayout compiles a format pattern into a layout (see planfmt):
// capture groups of digit classes and literal digits with counted
// repetitions, at most one of them of variable length. Every pattern of
// libphonenumber's metadata has this shape; another is refused, naming
// what is not supported, so that an upgrade that brings one fails here
// rather than formatting wrongly.
func compileLayout(pattern string) (layout []byte, groups int, err error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, 0, err
	}
	type atom struct {
		digits   uint16
		min, max int
	}
	var atoms []atom
	var spans [][2]int // first atom, atoms
	classOf := func(re *syntax.Regexp) (uint16, bool) {
		var set uint16
		switch re.Op {
		case syntax.OpLiteral:
			if len(re.Rune) != 1 || re.Flags&syntax.FoldCase != 0 && (re.Rune[0] < '0' || re.Rune[0] > '9') {
				return 0, false
			}
			fallthrough
		case syntax.OpCharClass:
			for d := range 10 {
				r := rune('0' + d)
				if re.Op == syntax.OpLiteral && re.Rune[0] == r {
					set |= 1 << d
				}
				for i := 0; re.Op == syntax.OpCharClass && i+1 < len(re.Rune); i += 2 {
					if re.Rune[i] <= r && r <= re.Rune[i+1] {
						set |= 1 << d
					}
				}
			}
			return set, true
		}
		return 0, false
	}
	var walk func(re *syntax.Regexp, inGroup bool) error
	walk = func(re *syntax.Regexp, inGroup bool) error {
		switch re.Op {
		case syntax.OpConcat:
			for _, sub := range re.Sub {
				if err := walk(sub, inGroup); err != nil {
					return err
				}
			}
			return nil
		case syntax.OpCapture:
			if inGroup {
				return fmt.Errorf("nested groups are not supported")
			}
			first := len(atoms)
			if err := walk(re.Sub[0], true); err != nil {
				return err
			}
			spans = append(spans, [2]int{first, len(atoms) - first})
			return nil
		case syntax.OpLiteral:
			for _, r := range re.Rune {
				set, _ := classOf(&syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{r}})
				atoms = append(atoms, atom{set, 1, 1})
			}
			return nil
		case syntax.OpCharClass:
			set, _ := classOf(re)
			atoms = append(atoms, atom{set, 1, 1})
			return nil
		case syntax.OpRepeat:
			set, ok := classOf(re.Sub[0])
			if !ok || re.Max < 0 || re.Max > 255 || re.Flags&syntax.NonGreedy != 0 {
				return fmt.Errorf("repetition %v is not supported", re)
			}
			atoms = append(atoms, atom{set, re.Min, re.Max})
			return nil
		}
		return fmt.Errorf("%v is not supported (only groups of digit classes with counted repetitions)", re)
	}
	if err := walk(re, false); err != nil {
		return nil, 0, err
	}
	fixed, variable := 0, planfmt.NoAtom
	for i, a := range atoms {
		switch {
		case a.min == a.max:
			fixed += a.min
		case variable != planfmt.NoAtom:
			return nil, 0, fmt.Errorf("more than one repetition of variable length")
		default:
			variable = i
		}
	}
	if len(atoms) == 0 || len(atoms) > planfmt.MaxAtoms || len(spans) == 0 || len(spans) > planfmt.MaxGroups || fixed > 255 {
		return nil, 0, fmt.Errorf("%d atoms, %d groups, %d fixed digits: out of bounds", len(atoms), len(spans), fixed)
	}
	if fixed == 0 && (variable == planfmt.NoAtom || atoms[variable].min == 0) {
		return nil, 0, fmt.Errorf("the pattern matches the empty string")
	}
	layout = []byte{byte(len(atoms)), byte(len(spans)), byte(fixed), byte(variable)}
	for _, a := range atoms {
		layout = append(layout, byte(a.digits), byte(a.digits>>8), byte(a.min), byte(a.max))
	}
	for _, s := range spans {
		layout = append(layout, byte(s[0]), byte(s[1]))
	}
	return layout, len(spans), nil
}

// layoutDigits returns the fewest and the most digits a layout matches,
// at most 255.
func layoutDigits(l []byte) [2]int {
	fixed, variable := int(l[2]), int(l[3])
	if variable == planfmt.NoAtom {
		return [2]int{fixed, fixed}
	}
	a := l[planfmt.FmtLayoutHead+variable*planfmt.FmtAtomSize:]
	return [2]int{fixed + int(a[2]), min(fixed+int(a[3]), 255)}
}
