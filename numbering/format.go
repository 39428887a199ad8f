package numbering

import (
	"errors"
	"strconv"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// Style is a way of writing a number, as libphonenumber's
// PhoneNumberFormat.
type Style uint8

// The styles, for +49 151 23456789 (a German mobile number).
const (
	E164          Style = iota // +4915123456789
	International              // +49 151 23456789
	National                   // 0151 23456789
	RFC3966                    // tel:+49-151-23456789
)

// String returns "E164", "INTERNATIONAL", "NATIONAL" or "RFC3966",
// libphonenumber's names.
func (s Style) String() string {
	switch s {
	case E164:
		return "E164"
	case International:
		return "INTERNATIONAL"
	case National:
		return "NATIONAL"
	case RFC3966:
		return "RFC3966"
	}
	return "Style(" + strconv.Itoa(int(s)) + ")"
}

// ErrNoFormats is returned by the formatting methods for a style other than
// E164 when the plan has no number formats (a plan file compiled without
// them).
var ErrNoFormats = errors.New("numbering: the plan has no number formats section: only E.164 can be written")

// ErrUnknownRegion is matched (errors.Is) by every error for a region code
// the plan does not have, a *RegionError, from ParseIn, ClassifyIn,
// ValidateIn, the formatting methods and ShortNumber. Region codes are read
// in either case.
var ErrUnknownRegion = errors.New("numbering: unknown region")

// RegionError reports a region code that names no region of the plan.
type RegionError struct {
	Region string // as given
}

func (e *RegionError) Error() string {
	return "numbering: unknown region " + strconv.Quote(e.Region) + ": want an ISO 3166-1 alpha-2 code of a region with a calling code, such as \"DE\""
}

// Unwrap returns ErrUnknownRegion.
func (e *RegionError) Unwrap() error { return ErrUnknownRegion }

// styleError reports a Style that is not one of the four.
type styleError struct{ style Style }

func (e *styleError) Error() string { return "numbering: unknown format style " + e.style.String() }

// Format returns n written in style: AppendFormat into a new string.
func (p *Plan) Format(n Number, style Style) (string, error) {
	var buf [64]byte
	b, err := p.AppendFormat(buf[:0], n, style)
	return string(b), err
}

// AppendFormat appends n written in style to dst and returns the extended
// buffer, exactly as libphonenumber's format: with the number formats of
// the number's calling code (its main region's: for +1, the United
// States'), the first whose leading digits and pattern fit the national
// significant number. A number no format fits, which includes many that are
// not valid, is written as its national significant number with the calling
// code before it in the international styles, as libphonenumber does;
// libphonenumber formats numbers that are not valid as well, and so does
// AppendFormat. In the national style the national (trunk) prefix comes
// where the region writes it ("030 123456", "(0)..."), not at all where the
// region has none. The zero Number appends nothing.
//
// Without number formats in the plan, styles other than E164 give
// ErrNoFormats. AppendFormat does not allocate.
func (p *Plan) AppendFormat(dst []byte, n Number, style Style) ([]byte, error) {
	if n.n == 0 {
		return dst, nil
	}
	switch style {
	case E164:
		return n.AppendTo(dst), nil
	case International, National, RFC3966:
	default:
		return dst, &styleError{style}
	}
	if p.formats.codes == nil {
		return dst, ErrNoFormats
	}
	cc := n.digits[:n.ccLen]
	nsn := n.national()
	ci := p.byCC[n.CountryCode()]
	if ci < 0 {
		// libphonenumber writes a number of an unknown calling code as
		// its national significant number; Parse makes none.
		return append(dst, nsn...), nil
	}
	f := &p.formats.codes[ci]
	switch style {
	case International:
		dst = append(dst, '+')
		dst = append(dst, cc...)
		dst = append(dst, ' ')
		return p.formats.appendNSN(dst, nsn, &f.intl, planfmt.FmtPlain, ""), nil
	case National:
		return p.formats.appendNSN(dst, nsn, &f.national, planfmt.FmtNational, ""), nil
	default: // RFC3966
		dst = append(dst, "tel:+"...)
		dst = append(dst, cc...)
		dst = append(dst, '-')
		start := len(dst)
		dst = p.formats.appendNSN(dst, nsn, &f.intl, planfmt.FmtPlain, "")
		return dst[:start+rfc3966Separators(dst[start:])], nil
	}
}

// AppendFormat appends the result's number in style (Plan.AppendFormat)
// and reports true when the result is a valid number and its plan has
// number formats; otherwise it appends nothing and reports false. It is
// what the NT result's international_format and national_format show
// (null for a number that is not valid), and it does not allocate.
func (r *Result) AppendFormat(dst []byte, style Style) ([]byte, bool) {
	if r.plan == nil || !r.Valid {
		return dst, false
	}
	out, err := r.plan.AppendFormat(dst, r.Number, style)
	if err != nil {
		return dst, false
	}
	return out, true
}

// FormatFrom returns n as dialled from region: AppendFormatFrom into a new
// string.
func (p *Plan) FormatFrom(n Number, region string) (string, error) {
	var buf [64]byte
	b, err := p.AppendFormatFrom(buf[:0], n, region)
	return string(b), err
}

// AppendFormatFrom appends n as dialled from region (ISO 3166-1 alpha-2,
// either case) to dst and returns the extended buffer, exactly as
// libphonenumber's formatOutOfCountryCallingNumber: in the national style
// from a region of the same calling code ("030 123456" from DE, also
// between Russia and Kazakhstan), "1 " and the national style within the
// North American Numbering Plan, and otherwise in the international style
// with the region's international prefix for "+" ("00 49 30 123456" from
// FR, "011 49 30 123456" from US, its preferred one where it has several,
// "+49 30 123456" where it has several and no preferred one). A region the
// plan does not have is an error wrapping ErrUnknownRegion. Without number
// formats in the plan it gives ErrNoFormats. The zero Number appends
// nothing. It does not allocate, except for the error of an unknown region.
func (p *Plan) AppendFormatFrom(dst []byte, n Number, region string) ([]byte, error) {
	ri := p.regionIndex(region)
	if ri < 0 {
		return dst, &RegionError{Region: region}
	}
	if n.n == 0 {
		return dst, nil
	}
	if p.formats.codes == nil {
		return dst, ErrNoFormats
	}
	code, from := n.CountryCode(), p.regions[ri].cc
	switch {
	case code == 1 && from == 1:
		dst = append(dst, "1 "...)
		return p.AppendFormat(dst, n, National)
	case code == from:
		return p.AppendFormat(dst, n, National)
	}
	idd := p.formats.idd[ri*planfmt.FmtRegionSize : (ri+1)*planfmt.FmtRegionSize]
	for len(idd) > 0 && idd[len(idd)-1] == 0 {
		idd = idd[:len(idd)-1]
	}
	if len(idd) == 0 {
		return p.AppendFormat(dst, n, International)
	}
	ci := p.byCC[code]
	if ci < 0 {
		return append(dst, n.national()...), nil
	}
	dst = append(dst, idd...)
	dst = append(dst, ' ')
	dst = append(dst, n.digits[:n.ccLen]...)
	dst = append(dst, ' ')
	return p.formats.appendNSN(dst, n.national(), &p.formats.codes[ci].intl, planfmt.FmtPlain, ""), nil
}

// AppendNationalWithCarrier appends n in the national style with a
// domestic carrier code, as libphonenumber's
// formatNationalNumberWithCarrierCode: where the number's format has a
// carrier-code rule (Brazil's "0 15 11 ...", Colombia's, Argentina's), the
// carrier code is written where the rule puts it; elsewhere, or with an
// empty carrier, the number is written in the national style. Numbers of
// calling codes other than their main region's are written as national
// significant numbers. It does not allocate.
func (p *Plan) AppendNationalWithCarrier(dst []byte, n Number, carrier string) ([]byte, error) {
	if n.n == 0 {
		return dst, nil
	}
	if p.formats.codes == nil {
		return dst, ErrNoFormats
	}
	ci := p.byCC[n.CountryCode()]
	if ci < 0 {
		return append(dst, n.national()...), nil
	}
	which := planfmt.FmtNational
	if carrier != "" {
		which = planfmt.FmtCarrier
	}
	return p.formats.appendNSN(dst, n.national(), &p.formats.codes[ci].national, which, carrier), nil
}

// formats is the Formats section (see planfmt), read in place.
type formats struct {
	codes     []codeFormats // by calling-code index; nil without the section
	idd       []byte        // planfmt.FmtRegionSize bytes per region
	records   []byte        // planfmt.FmtRecordSize bytes per format
	section   []byte        // layouts lie at offsets in it
	templates []byte
	ayt       []byte // planfmt.FmtAYTRecordSize bytes per format; nil without the as-you-type table
}

type codeFormats struct{ national, intl formatList }

// formatList is a calling code's national or international formats.
type formatList struct {
	first, count int
	chunks       []automaton // per planfmt.FmtChunk formats; the zero automaton for a chunk without leading digits
	// levels and aytChunks are the as-you-type leading digits (see
	// planfmt): levels times the chunks, level major.
	levels    int
	aytChunks []automaton
	leading   uint64   // bit i: format i has leading digits
	early     []uint64 // per level k, bit i: format i has more than k+1 patterns
}

// readFormats reads the Formats section and checks every offset, layout
// and automaton in it, so that formatting stays within the section.
func (p *Plan) readFormats(r *reader) {
	nCodes, nRegions, nRecords := int(r.u32(0)), int(r.u32(4)), int(r.u32(8))
	tplAt, tplLen, autoAt, autoLen := int(r.u32(12)), int(r.u32(16)), int(r.u32(20)), int(r.u32(24))
	if r.err != nil {
		return
	}
	if nCodes != len(p.codes) || nRegions != len(p.regions) {
		r.fail(0, "%d calling codes and %d regions; the plan has %d and %d", nCodes, nRegions, len(p.codes), len(p.regions))
		return
	}
	f := formats{section: r.b}
	codesAt := planfmt.FmtHeaderSize
	iddAt := codesAt + nCodes*planfmt.FmtCodeSize
	recordsAt := iddAt + nRegions*planfmt.FmtRegionSize
	f.idd = r.slice(iddAt, nRegions*planfmt.FmtRegionSize)
	f.records = r.slice(recordsAt, nRecords*planfmt.FmtRecordSize)
	f.templates = r.slice(tplAt, tplLen)
	autos := &reader{name: r.name, base: r.base + autoAt, b: r.slice(autoAt, autoLen)}
	if r.err != nil {
		return
	}
	if autoAt%planfmt.WideRow != 0 {
		r.fail(20, "automata at %d: not aligned", autoAt)
		return
	}
	for i := range nRecords {
		at := recordsAt + i*planfmt.FmtRecordSize
		rec := f.records[i*planfmt.FmtRecordSize:]
		off := int(planfmt.U32(rec, planfmt.FmtLayout))
		head := r.slice(off, planfmt.FmtLayoutHead)
		if r.err != nil {
			return
		}
		atoms, groups, fixed, variable := int(head[0]), int(head[1]), int(head[2]), int(head[3])
		body := r.slice(off+planfmt.FmtLayoutHead, atoms*planfmt.FmtAtomSize+2*groups)
		if r.err != nil {
			return
		}
		if msg := checkLayout(body, atoms, groups, fixed, variable); msg != "" {
			r.fail(off, "format %d: layout: %s", i, msg)
			return
		}
		least, most := fixed, fixed
		if variable != planfmt.NoAtom {
			least, most = fixed+int(body[variable*planfmt.FmtAtomSize+2]), min(fixed+int(body[variable*planfmt.FmtAtomSize+3]), 255)
		}
		if int(rec[planfmt.FmtMinDigits]) != least || int(rec[planfmt.FmtMaxDigits]) != most {
			r.fail(at+planfmt.FmtMinDigits, "format %d: %d to %d digits; its layout matches %d to %d", i, rec[planfmt.FmtMinDigits], rec[planfmt.FmtMaxDigits], least, most)
			return
		}
		for k, field := range []int{planfmt.FmtPlain, planfmt.FmtNational, planfmt.FmtCarrier} {
			off, n := int(planfmt.U16(rec, field)), int(rec[field+2])
			if off+n > len(f.templates) || n == 0 && k < 2 {
				r.fail(at+field, "format %d: template of %d bytes at %d, beyond the %d bytes of templates", i, n, off, len(f.templates))
				return
			}
			for _, c := range f.templates[off : off+n] {
				if c == planfmt.TemplateCarrier || c&planfmt.TemplateGroup == 0 {
					continue
				}
				if g := int(c &^ planfmt.TemplateGroup); g == 0 || g > groups {
					r.fail(at+field, "format %d: template names group %d of %d", i, g, groups)
					return
				}
			}
		}
	}
	f.codes = make([]codeFormats, nCodes)
	// One array holds every list's chunk automata: one allocation.
	total := 0
	for i := range 2 * nCodes {
		total += (int(r.u16(codesAt+8*i+2)) + planfmt.FmtChunk - 1) / planfmt.FmtChunk
	}
	if r.err != nil {
		return
	}
	all := make([]automaton, total)
	for i := range f.codes {
		at := codesAt + i*planfmt.FmtCodeSize
		for j, l := range []*formatList{&f.codes[i].national, &f.codes[i].intl} {
			l.first, l.count = int(r.u16(at+8*j)), int(r.u16(at+8*j+2))
			chunks := int(r.u32(at + 8*j + 4))
			if r.err != nil {
				return
			}
			if l.first+l.count > nRecords {
				r.fail(at+8*j, "calling code %d: formats %d to %d of %d", i, l.first, l.first+l.count, nRecords)
				return
			}
			n := (l.count + planfmt.FmtChunk - 1) / planfmt.FmtChunk
			l.chunks, all = all[:n:n], all[n:]
			for k := range l.chunks {
				if off := r.u32(chunks + 4*k); off != planfmt.NoOffset {
					l.chunks[k] = readAutomaton(autos, off, "leading digits")
				}
			}
			if r.err != nil || autos.err != nil {
				r.err = firstErr(r.err, autos.err)
				return
			}
		}
	}
	if aytAt := int(r.u32(planfmt.FmtAYT)); aytAt != 0 && r.err == nil {
		f.readAsYouType(r, autos, aytAt, nRecords)
		if r.err != nil || autos.err != nil {
			r.err = firstErr(r.err, autos.err)
			return
		}
	}
	p.formats = f
}

// readAsYouType reads the as-you-type table at aytAt (see planfmt) into f,
// checking its templates and automata.
func (f *formats) readAsYouType(r, autos *reader, aytAt, nRecords int) {
	f.ayt = r.slice(aytAt, nRecords*planfmt.FmtAYTRecordSize)
	if r.err != nil {
		return
	}
	for i := range nRecords {
		rec := f.ayt[i*planfmt.FmtAYTRecordSize:]
		off, n := int(planfmt.U16(rec, 0)), int(rec[2])
		if off+n > len(f.templates) {
			r.fail(aytAt+i*planfmt.FmtAYTRecordSize, "format %d: as-you-type template of %d bytes at %d, beyond the %d bytes of templates", i, n, off, len(f.templates))
			return
		}
		for _, c := range f.templates[off : off+n] {
			if c != planfmt.TemplateDigit && !isPunctuation(c) {
				r.fail(aytAt+i*planfmt.FmtAYTRecordSize, "format %d: as-you-type template byte %#x", i, c)
				return
			}
		}
	}
	codesAt := aytAt + nRecords*planfmt.FmtAYTRecordSize
	total := 0
	for i := range f.codes {
		for j, l := range []*formatList{&f.codes[i].national, &f.codes[i].intl} {
			at := codesAt + i*planfmt.FmtAYTCodeSize + 8*j
			l.levels = int(r.u32(at))
			if r.err != nil {
				return
			}
			if l.count > planfmt.AYTMaxFormats || l.levels > planfmt.AYTMaxLevels {
				r.fail(at, "calling code %d: %d formats, %d levels of leading digits", i, l.count, l.levels)
				return
			}
			total += l.levels * len(l.chunks)
			l.early = make([]uint64, l.levels)
			for k := range l.count {
				if f.records[(l.first+k)*planfmt.FmtRecordSize+planfmt.FmtPlain+3]&planfmt.FmtLeading != 0 {
					l.leading |= 1 << k
				}
				n := int(f.ayt[(l.first+k)*planfmt.FmtAYTRecordSize+5])
				for level := range min(n-1, l.levels) {
					l.early[level] |= 1 << k
				}
			}
		}
	}
	all := make([]automaton, total)
	for i := range f.codes {
		for j, l := range []*formatList{&f.codes[i].national, &f.codes[i].intl} {
			at := codesAt + i*planfmt.FmtAYTCodeSize + 8*j
			table := int(r.u32(at + 4))
			n := l.levels * len(l.chunks)
			l.aytChunks, all = all[:n:n], all[n:]
			for k := range l.aytChunks {
				if off := r.u32(table + 4*k); off != planfmt.NoOffset {
					l.aytChunks[k] = readAutomaton(autos, off, "leading digits")
				}
			}
			if r.err != nil || autos.err != nil {
				return
			}
		}
	}
}

// appendNSN appends the national significant number nsn formatted with the
// first format of the list that fits it, with the template which (one of
// planfmt.FmtPlain, FmtNational, FmtCarrier; a format without a carrier
// template uses its national one), as libphonenumber's
// chooseFormattingPatternForNumber and formatNsnUsingPattern; nsn as it is
// when none fits.
func (f *formats) appendNSN(dst, nsn []byte, l *formatList, which int, carrier string) []byte {
	var bounds [planfmt.MaxAtoms + 1]uint8
	rec, layout := f.choose(nsn, l, &bounds)
	if rec == nil {
		return append(dst, nsn...)
	}
	return appendTemplate(dst, f.template(rec, which), layout, nsn, &bounds, carrier)
}

// choose returns the record and layout of the first format of the list
// that fits nsn (libphonenumber's chooseFormattingPatternForNumber), with
// bounds set as matchLayout sets them; nil when none fits.
func (f *formats) choose(nsn []byte, l *formatList, bounds *[planfmt.MaxAtoms + 1]uint8) (rec, layout []byte) {
	mask, chunk := uint16(0), -1
	for i := range l.count {
		rec := f.records[(l.first+i)*planfmt.FmtRecordSize : (l.first+i+1)*planfmt.FmtRecordSize]
		if len(nsn) < int(rec[planfmt.FmtMinDigits]) || len(nsn) > int(rec[planfmt.FmtMaxDigits]) {
			continue // the layout would refuse it: not read at all
		}
		if rec[planfmt.FmtPlain+3]&planfmt.FmtLeading != 0 {
			if c := i / planfmt.FmtChunk; c != chunk {
				chunk, mask = c, l.chunks[c].prefixMatches(nsn)
			}
			if mask&(1<<(i%planfmt.FmtChunk)) == 0 {
				continue
			}
		}
		layout := f.section[planfmt.U32(rec, planfmt.FmtLayout):]
		if matchLayout(layout, nsn, bounds) {
			return rec, layout
		}
	}
	return nil, nil
}

// appendTemplate appends nsn written with a template, its groups where
// matchLayout found layout's atoms (bounds).
func appendTemplate(dst, template, layout, nsn []byte, bounds *[planfmt.MaxAtoms + 1]uint8, carrier string) []byte {
	atoms := int(layout[0])
	spans := layout[planfmt.FmtLayoutHead+atoms*planfmt.FmtAtomSize:]
	for _, c := range template {
		switch {
		case c == planfmt.TemplateCarrier:
			dst = append(dst, carrier...)
		case c&planfmt.TemplateGroup != 0:
			g := 2 * int(c&^planfmt.TemplateGroup-1)
			first, n := int(spans[g]), int(spans[g+1])
			dst = append(dst, nsn[bounds[first]:bounds[first+n]]...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// matchLayout reports whether nsn matches a format's layout (see planfmt)
// and sets bounds[i] to where its atom i starts, bounds[atoms] to its end.
func matchLayout(layout, nsn []byte, bounds *[planfmt.MaxAtoms + 1]uint8) bool {
	atoms, fixed, variable := int(layout[0]), int(layout[2]), int(layout[3])
	free := len(nsn) - fixed // the variable atom's digits
	if variable == planfmt.NoAtom {
		if free != 0 {
			return false
		}
	} else if a := layout[planfmt.FmtLayoutHead+variable*planfmt.FmtAtomSize:]; free < int(a[2]) || free > int(a[3]) {
		return false
	}
	pos := 0
	for i := range atoms {
		a := layout[planfmt.FmtLayoutHead+i*planfmt.FmtAtomSize:]
		digits, n := planfmt.U16(a, 0), int(a[2])
		if i == variable {
			n = free
		}
		bounds[i] = uint8(pos)
		for _, c := range nsn[pos : pos+n] {
			if digits&(1<<(c-'0')) == 0 {
				return false
			}
		}
		pos += n
	}
	bounds[atoms] = uint8(pos)
	return true
}

// checkLayout checks a layout's atoms and groups (body: what follows its
// header), so that matchLayout and the templates stay within it; it
// returns what is wrong, or "".
func checkLayout(body []byte, atoms, groups, fixed, variable int) string {
	if atoms == 0 || atoms > planfmt.MaxAtoms || groups == 0 || groups > planfmt.MaxGroups || variable != planfmt.NoAtom && variable >= atoms {
		return sprintf("%d atoms, %d groups, variable atom %d", atoms, groups, variable)
	}
	sum := 0
	for i := range atoms {
		a := body[i*planfmt.FmtAtomSize:]
		if a[2] > a[3] || i != variable && a[2] != a[3] {
			return sprintf("atom %d repeats %d to %d times", i, a[2], a[3])
		}
		if i != variable {
			sum += int(a[2])
		}
	}
	if sum != fixed {
		return sprintf("fixed atoms of %d digits, not %d", sum, fixed)
	}
	for g := range groups {
		first, n := int(body[atoms*planfmt.FmtAtomSize+2*g]), int(body[atoms*planfmt.FmtAtomSize+2*g+1])
		if first+n > atoms {
			return sprintf("group %d spans atoms %d to %d of %d", g+1, first, first+n, atoms)
		}
	}
	return ""
}

func (f *formats) template(rec []byte, which int) []byte {
	if which == planfmt.FmtCarrier && rec[planfmt.FmtCarrier+2] == 0 {
		which = planfmt.FmtNational
	}
	off, n := int(planfmt.U16(rec, which)), int(rec[which+2])
	return f.templates[off : off+n]
}

// rfc3966Separators rewrites a formatted national number for RFC 3966 in
// place, as libphonenumber does: punctuation at the start dropped, every
// other run of it one "-". It returns the new length.
func rfc3966Separators(b []byte) int {
	n, sep := 0, false
	for _, c := range b {
		if isPunctuation(c) {
			sep = n > 0
			continue
		}
		if sep {
			b[n] = '-'
			n++
			sep = false
		}
		b[n] = c
		n++
	}
	if sep {
		b[n] = '-' // Java keeps a run at the end as "-"
		n++
	}
	return n
}

// isPunctuation reports whether c is ASCII punctuation of libphonenumber's
// VALID_PUNCTUATION (the templates are ASCII).
func isPunctuation(c byte) bool {
	switch c {
	case '-', 'x', ' ', '(', ')', '.', '[', ']', '/', '~':
		return true
	}
	return false
}

// prefixMatches walks digits and returns the patterns that match some
// prefix of them: the patterns of every accepting state the walk passes,
// the start included.
func (a *automaton) prefixMatches(digits []byte) uint16 {
	if a.count == 0 {
		return 0
	}
	s := 0
	mask := a.acceptOf(0)
	for _, c := range digits {
		if s = a.step(s, int(c-'0')); s < 0 {
			break
		}
		mask |= a.acceptOf(s)
	}
	return mask
}
