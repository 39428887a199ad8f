package numbering

import (
	"errors"
	"math/bits"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// ErrNoAsYouType is returned by NewAsYouType for a plan file compiled
// before its number formats carried what formatting as you type needs
// (or without number formats). Regenerate it with go run ./data/gen.
var ErrNoAsYouType = errors.New("numbering: the plan file has no as-you-type formatting data (regenerate it with go run ./data/gen)")

// AsYouType formats a phone number while it is being typed, one character
// at a time, as libphonenumber's AsYouTypeFormatter does, and checks the
// input so far as Plan.CheckIn does. Make one with Plan.NewAsYouType; it
// is not safe for concurrent use (make one per input field).
//
// It shows the texts libphonenumber shows for the same keys: the digits
// grouped by the region's formats once three digits of the national
// number are known ("030 123", "+49 30 123", "(650) 253-0"), the national
// prefix and the international prefix set apart ("00 49 30 123"), and the
// characters as typed when the person types separators of their own, or
// when no format fits the digits. Digits of other scripts are read as
// their ASCII digits.
type AsYouType struct {
	p  *Plan
	rg *region // the region national input is read in; nil for "+" input only
	// def is the calling code (an index into p.codes) whose formats the
	// formatter starts with, -1 for none; defMain is def when the region
	// is its code's main region, else -1: libphonenumber keeps the
	// formats it has when a calling code typed after "+" names the region
	// it was made for.
	def, defMain int
	cur          int // the calling code whose formats apply now, -1 for none
	// minValid is the fewest ASCII digits, typed without a prefix, that
	// can make a valid number in the region (see check); 0 for no bound.
	minValid int

	raw      []byte // what was typed (libphonenumber's accruedInput)
	rawRunes int
	acc      []byte // the digits typed, in ASCII, after a leading "+" (accruedInputWithoutFormatting)
	nn       []byte // the national number (nationalNumber)
	pre      []byte // what comes before it: international prefix, calling code, national prefix, formatted
	ndd      []byte // the national prefix taken off (extractedNationalPrefix)
	scratch  []byte
	tmpl     []byte // the formatting template, planfmt.TemplateDigit for digits to come
	out      []byte // the field's text
	last     int    // the template position of the last digit placed (lastMatchPosition)
	layout   uint32 // the layout of the template's format (currentFormattingPattern); noLayout for none
	list     *formatList
	possible uint64 // formats of list still possible (bit i: its i-th)

	ascii    bool // every key so far was an ASCII digit (or a "+" first)
	able     bool // formatting, not showing the input as typed (ableToFormat)
	typedFmt bool // the person typed separators (inputHasFormatting)
	complete bool // a national or international prefix says the number is complete (isCompleteNumber)
	expectCC bool // a calling code is to come (isExpectingCountryCallingCode)
	spaceNP  bool // a space goes after the national prefix (shouldAddSpaceAfterNationalPrefix)

	pr Progress
}

const noLayout = ^uint32(0)

// The formatter starts grouping once the national number has this many
// digits (libphonenumber's MIN_LEADING_DIGITS_LENGTH).
const minLeadingDigits = 3

// NewAsYouType returns a formatter for numbers typed in region, an ISO
// 3166-1 alpha-2 code such as "DE" (either case): national input
// ("030 123456"), the region's international prefix and a calling code
// ("00 44 20 ..."), or "+" and a calling code. With region "" it formats
// only input that starts with "+", and its Progress is Plan.Check's.
// Like libphonenumber, it formats with the formats of the region's calling
// code's main region (the United States' for Canada).
//
// An unknown region is a *RegionError (ErrUnknownRegion); a plan without
// the regions' dialling rules gives ErrNoDialling, one without as-you-type
// data ErrNoAsYouType. After NewAsYouType, Input allocates nothing for
// numbers of usual length.
func (p *Plan) NewAsYouType(region string) (*AsYouType, error) {
	if p.formats.ayt == nil {
		return nil, ErrNoAsYouType
	}
	f := &AsYouType{p: p, def: -1, defMain: -1}
	if region != "" {
		rg, err := p.dialRegion(region)
		if err != nil {
			return nil, err
		}
		f.rg = rg
		f.def = int(p.byCC[rg.cc])
		if &p.regions[p.codes[f.def].regions[0]] == rg {
			f.defMain = f.def
		}
		// A valid number has a national number of at least the calling
		// code's shortest length; national-prefix transforms may add
		// their digits to what was typed. An overlay may make shorter
		// numbers valid.
		if home := &p.codes[f.def]; p.overlay == nil && home.minLength > 0 {
			f.minValid = max(0, home.minLength-rg.natPrefix.addedDigits()-home.strip.addedDigits())
		}
	}
	const size = 32 // digits and characters of a long number, with room
	buf := make([]byte, 7*size+4*size)
	take := func(n int) []byte {
		b := buf[:0:n]
		buf = buf[n:]
		return b
	}
	f.raw, f.acc, f.nn, f.pre, f.ndd, f.scratch = take(2*size), take(size), take(size), take(size), take(size), take(size)
	f.tmpl, f.out = take(2*size), take(2*size)
	f.Reset()
	return f, nil
}

// Reset clears the input, for the next number.
func (f *AsYouType) Reset() {
	f.cur = f.def
	f.raw, f.rawRunes = f.raw[:0], 0
	f.acc, f.nn, f.pre, f.ndd = f.acc[:0], f.nn[:0], f.pre[:0], f.ndd[:0]
	f.tmpl, f.out, f.last, f.layout = f.tmpl[:0], f.out[:0], 0, noLayout
	f.list, f.possible = nil, 0
	f.able, f.typedFmt, f.complete, f.expectCC, f.spaceNP = true, false, false, false, false
	f.ascii = true
	f.pr = f.check() // of nothing typed: incomplete
}

// Input appends one typed character and returns the text the field shows
// and the check of the input so far (Progress). The text aliases the
// formatter's buffer: it is valid until the next call of Input or Reset.
// Input does not allocate for numbers of usual length.
func (f *AsYouType) Input(c rune) (text []byte, pr Progress) {
	f.raw = utf8.AppendRune(f.raw, c)
	f.rawRunes++
	f.ascii = f.ascii && (c >= '0' && c <= '9' || c == '+' && f.rawRunes == 1)
	f.input(c)
	f.pr = f.check()
	return f.out, f.pr
}

// Text returns the text the field shows: Input's last answer (empty after
// Reset). It aliases the formatter's buffer, as Input's answer does.
func (f *AsYouType) Text() []byte { return f.out }

// Progress returns the check of the input so far, as Plan.CheckIn (for
// the formatter's region) or Plan.Check (without one) answers for it.
func (f *AsYouType) Progress() Progress { return f.pr }

// Number returns the number typed so far and true when the input parses
// as a whole number (Plan.ParseIn in the formatter's region, Plan.Parse
// without one), else the zero Number and false. It does not allocate.
func (f *AsYouType) Number() (Number, bool) {
	s := f.rawString()
	var n Number
	var reason Reason
	if f.rg == nil {
		_, reason, _ = f.p.parse(s, &n)
	} else {
		_, reason, _ = f.p.parseIn(s, f.rg, &n)
	}
	if reason != NoReason || n.IsZero() {
		return Number{}, false
	}
	return n, true
}

// FormattedPos maps a caret after the first raw typed characters to its
// position in Text, in runes: after the same digit, as libphonenumber's
// GetRememberedPosition answers for the character remembered with
// InputDigitAndRememberPosition (a digit of another script shown as typed
// is that digit here; libphonenumber looks for its ASCII digit and finds
// none). raw is clamped to the characters typed.
// While the field shows the input as typed (after a separator typed by the
// person), the position is raw itself, as libphonenumber's.
func (f *AsYouType) FormattedPos(raw int) int {
	raw = max(0, min(raw, f.rawRunes))
	if !f.able {
		return raw
	}
	// Every character typed is in acc while formatting: walk the text to
	// just after the raw-th of them.
	ai, oi := 0, 0
	for b := f.out; ai < raw && len(b) > 0; oi++ {
		r, n := utf8.DecodeRune(b)
		b = b[n:]
		if sameKey(r, f.acc[ai]) {
			ai++
		}
	}
	return oi
}

// sameKey reports whether r in the text is the digit or plus sign c of
// the input: the text shows digits typed in other scripts as typed before
// it formats them.
func sameKey(r rune, c byte) bool {
	if r == rune(c) {
		return true
	}
	d, ok := typedDigit(r)
	return ok && d == c || r == '\uFF0B' && c == '+'
}

// RawPos maps a caret at position formatted of Text (in runes) to the
// number of typed characters before it: the inverse of FormattedPos, so
// that an edit in the middle of the field can be made to the raw input
// and typed again. formatted is clamped to Text.
func (f *AsYouType) RawPos(formatted int) int {
	formatted = max(0, formatted)
	if !f.able {
		return min(formatted, f.rawRunes)
	}
	ai := 0
	for b, oi := f.out, 0; oi < formatted && len(b) > 0; oi++ {
		r, n := utf8.DecodeRune(b)
		b = b[n:]
		if ai < len(f.acc) && sameKey(r, f.acc[ai]) {
			ai++
		}
	}
	return min(ai, f.rawRunes)
}

// rawString is the raw input as a string, without a copy: for the
// checks, which keep nothing of it.
func (f *AsYouType) rawString() string {
	if len(f.raw) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(f.raw), len(f.raw))
}

// check is CheckIn's answer for the input so far (Check's without a
// region). Digits too few to make a valid number in any reading of
// ParseIn's skip the reading of the input as a whole number, as Check
// skips it for short input (about a third of CheckIn's time, at most keys
// of a number): national digits fewer than minValid, with no
// international prefix at their start; after "+", a calling code and
// fewer national digits than any number of it has. The differential and
// fuzz tests compare the answers with CheckIn's at every key.
func (f *AsYouType) check() Progress {
	s := f.rawString()
	if f.rg == nil {
		return f.p.Check(s)
	}
	if f.ascii && len(f.raw) > 0 {
		if f.raw[0] == '+' {
			// With a calling code at the start (which never starts
			// with 0), ParseIn reads no other way than "+", calling
			// code, national number.
			if digits := f.raw[1:]; len(digits) > 0 && digits[0] != '0' {
				if code, _ := f.p.splitCode(digits); code != nil && !f.p.mayBeValid(digits, true) {
					return f.p.checkInPartial(s, f.rg)
				}
			}
		} else if len(f.raw) < f.minValid {
			if idd := f.rg.idd; idd == nil || !idd.mayMatch(f.raw) {
				return f.p.checkInPartial(s, f.rg)
			}
		}
	}
	return f.p.checkIn(s, f.rg)
}

// typedDigit returns the ASCII digit of a decimal digit of any script
// (Unicode category Nd, as libphonenumber reads typed digits).
func typedDigit(r rune) (byte, bool) {
	if d, ok := digitValue(r); ok {
		return d, true
	}
	if r < utf8.RuneSelf || !unicode.IsDigit(r) {
		return 0, false
	}
	// Unicode lays out every script's digits as runs of ten from zero.
	for _, rg := range unicode.Nd.R16 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi && rg.Stride == 1 {
			return byte('0' + (r-lo)%10), true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi && rg.Stride == 1 {
			return byte('0' + (r-lo)%10), true
		}
	}
	return 0, false
}

// input is libphonenumber's inputDigitWithOptionToRememberPosition: it
// leaves the field's text in f.out.
func (f *AsYouType) input(c rune) {
	d, digit := typedDigit(c)
	switch {
	case digit:
		f.acc = append(f.acc, d)
		f.nn = append(f.nn, d)
	case f.rawRunes == 1 && (c == '+' || c == '\uFF0B'):
		f.acc = append(f.acc, '+')
	default:
		f.able, f.typedFmt = false, true
	}
	if !f.able {
		// Formatting may resume after a long international or national
		// prefix is taken off.
		switch {
		case f.typedFmt:
		case f.extractIDD():
			if f.extractCallingCode() {
				f.choosePatternAfresh()
				return
			}
		case f.longerNationalPrefix():
			f.pre = append(f.pre, ' ')
			f.choosePatternAfresh()
			return
		}
		f.showRaw()
		return
	}
	switch len(f.acc) {
	case 0, 1, 2:
		f.showRaw()
		return
	case 3:
		if !f.extractIDD() {
			f.ndd = append(f.ndd[:0], f.removeNationalPrefix()...)
			f.choosePattern()
			return
		}
		f.expectCC = true
	}
	if f.expectCC {
		if f.extractCallingCode() {
			f.expectCC = false
		}
		f.out = append(append(f.out[:0], f.pre...), f.nn...)
		return
	}
	if f.possible == 0 {
		f.choosePattern()
		return
	}
	temp := f.placeDigit(d)
	if f.formatWhole() {
		return
	}
	f.narrow()
	switch {
	case f.newTemplate():
		f.placeNationalNumber()
	case f.able:
		f.appendNational(temp)
	default:
		f.showRaw()
	}
}

func (f *AsYouType) showRaw() { f.out = append(f.out[:0], f.raw...) }

// choosePatternAfresh is libphonenumber's
// attemptToChoosePatternWithPrefixExtracted.
func (f *AsYouType) choosePatternAfresh() {
	f.able, f.expectCC = true, false
	f.possible, f.list = 0, nil
	f.last, f.tmpl, f.layout = 0, f.tmpl[:0], noLayout
	f.choosePattern()
}

// choosePattern is libphonenumber's attemptToChooseFormattingPattern.
func (f *AsYouType) choosePattern() {
	if len(f.nn) < minLeadingDigits {
		f.appendNational(f.nn)
		return
	}
	f.availableFormats()
	switch {
	case f.formatWhole():
	case f.newTemplate():
		f.placeNationalNumber()
	default:
		f.showRaw()
	}
}

// availableFormats is libphonenumber's getAvailableFormats: the formats of
// the current calling code that suit the input, narrowed by the national
// number's leading digits.
func (f *AsYouType) availableFormats() {
	f.possible, f.list = 0, nil
	if f.cur < 0 {
		return
	}
	fm := &f.p.formats
	codes := &fm.codes[f.cur]
	l := &codes.national
	if f.complete && len(f.ndd) == 0 {
		l = &codes.intl // the national list again when the code has none
	}
	f.list = l
	for i := range l.count {
		rec := fm.records[(l.first+i)*planfmt.FmtRecordSize:]
		flags := fm.ayt[(l.first+i)*planfmt.FmtAYTRecordSize+4]
		optional := rec[planfmt.FmtPlain+3]&planfmt.FmtNPOptional != 0
		firstOnly := flags&planfmt.AYTFirstGroupOnly != 0
		switch {
		case len(f.ndd) > 0 && firstOnly && !optional && rec[planfmt.FmtCarrier+2] == 0:
			// Typed with a national prefix, which the format does not
			// write (unless the prefix was a carrier code).
			continue
		case len(f.ndd) == 0 && !f.complete && !firstOnly && !optional:
			// Typed without the national prefix the format writes.
			continue
		}
		if flags&planfmt.AYTEligible != 0 {
			f.possible |= 1 << i
		}
	}
	f.narrow()
}

// narrow is libphonenumber's narrowDownPossibleFormats: it keeps the
// formats whose leading-digits pattern for the national number's length
// matches its beginning.
func (f *AsYouType) narrow() {
	l := f.list
	if l == nil || l.leading == 0 {
		return
	}
	const chunkMask = 1<<planfmt.FmtChunk - 1
	level := max(len(f.nn)-minLeadingDigits, 0)
	for c := range l.chunks {
		shift := c * planfmt.FmtChunk
		lead := l.leading >> shift & chunkMask
		if f.possible>>shift&lead == 0 {
			continue
		}
		// The last patterns, and the earlier ones where a format has one
		// for this length.
		match := uint64(l.chunks[c].prefixMatches(f.nn))
		if level < l.levels {
			if early := l.early[level] >> shift & chunkMask; early != 0 {
				match = match&^early | uint64(l.aytChunks[level*len(l.chunks)+c].prefixMatches(f.nn))&early
			}
		}
		keep := match | ^lead&chunkMask
		f.possible &^= (^keep & chunkMask) << shift
	}
}

// formatWhole is libphonenumber's attemptToFormatAccruedDigits: the first
// possible format whose pattern matches the whole national number, when
// writing it keeps every digit typed. It reports whether it wrote f.out.
func (f *AsYouType) formatWhole() bool {
	fm := &f.p.formats
	var bounds [planfmt.MaxAtoms + 1]uint8
	for set := f.possible; set != 0; set &= set - 1 {
		i := f.list.first + bits.TrailingZeros64(set)
		rec := fm.records[i*planfmt.FmtRecordSize : (i+1)*planfmt.FmtRecordSize]
		if len(f.nn) < int(rec[planfmt.FmtMinDigits]) || len(f.nn) > int(rec[planfmt.FmtMaxDigits]) {
			continue
		}
		layout := fm.section[planfmt.U32(rec, planfmt.FmtLayout):]
		if !matchLayout(layout, f.nn, &bounds) {
			continue
		}
		f.spaceNP = fm.ayt[i*planfmt.FmtAYTRecordSize+4]&planfmt.AYTSeparator != 0
		f.out = f.appendPrefix(f.out[:0])
		f.out = appendTemplate(f.out, fm.template(rec, planfmt.FmtPlain), layout, f.nn, &bounds, "")
		if sameDigits(f.out, f.acc) {
			return true
		}
	}
	return false
}

// sameDigits reports whether the digits and plus signs of text are acc
// (libphonenumber's check that a format neither drops nor adds digits).
func sameDigits(text, acc []byte) bool {
	k := 0
	for _, c := range text {
		if c >= '0' && c <= '9' || c == '+' {
			if k == len(acc) || acc[k] != c {
				return false
			}
			k++
		}
	}
	return k == len(acc)
}

// newTemplate is libphonenumber's maybeCreateNewTemplate: it reports
// whether it made a template of the first possible format, dropping those
// that cannot make one, and false when the template in use is still the
// first's.
func (f *AsYouType) newTemplate() bool {
	fm := &f.p.formats
	for set := f.possible; set != 0; set &= set - 1 {
		bit := bits.TrailingZeros64(set)
		i := f.list.first + bit
		layout := planfmt.U32(fm.records[i*planfmt.FmtRecordSize:], planfmt.FmtLayout)
		if layout == f.layout {
			return false
		}
		ayt := fm.ayt[i*planfmt.FmtAYTRecordSize : (i+1)*planfmt.FmtAYTRecordSize]
		f.tmpl = f.tmpl[:0]
		if n := int(ayt[2]); n > 0 && int(ayt[3]) >= len(f.nn) {
			off := int(planfmt.U16(ayt, 0))
			f.tmpl = append(f.tmpl, fm.templates[off:off+n]...)
			f.layout = layout
			f.spaceNP = ayt[4]&planfmt.AYTSeparator != 0
			f.last = 0
			return true
		}
		f.possible &^= 1 << bit
	}
	f.able = false
	return false
}

// placeDigit is libphonenumber's inputDigitHelper: it puts digit d in the
// template's next free place and returns the template up to it, or the
// raw input when the template is full.
func (f *AsYouType) placeDigit(d byte) []byte {
	for i := f.last; i < len(f.tmpl); i++ {
		if f.tmpl[i] == planfmt.TemplateDigit {
			f.tmpl[i] = d
			f.last = i
			return f.tmpl[:i+1]
		}
	}
	if bits.OnesCount64(f.possible) == 1 {
		f.able = false // more digits than the one format left can take
	}
	f.layout = noLayout
	return f.raw
}

// placeNationalNumber is libphonenumber's inputAccruedNationalNumber: the
// national number placed in a new template.
func (f *AsYouType) placeNationalNumber() {
	if len(f.nn) == 0 {
		f.out = append(f.out[:0], f.pre...)
		return
	}
	var temp []byte
	for _, d := range f.nn {
		temp = f.placeDigit(d)
	}
	if f.able {
		f.appendNational(temp)
		return
	}
	f.showRaw()
}

// appendPrefix appends what goes before the national number, with the
// space libphonenumber's appendNationalNumber puts after it.
func (f *AsYouType) appendPrefix(dst []byte) []byte {
	dst = append(dst, f.pre...)
	if f.spaceNP && len(f.pre) > 0 && f.pre[len(f.pre)-1] != ' ' {
		dst = append(dst, ' ')
	}
	return dst
}

// appendNational sets the field's text to the prefix and national.
func (f *AsYouType) appendNational(national []byte) {
	f.out = append(f.appendPrefix(f.out[:0]), national...)
}

// extractIDD is libphonenumber's attemptToExtractIdd: after a "+" or the
// current calling code's international prefix, the rest of the input
// becomes the national number (a calling code first), and the prefix is
// set apart.
func (f *AsYouType) extractIDD() bool {
	if len(f.acc) == 0 {
		return false
	}
	end := -1
	switch {
	case f.acc[0] == '+':
		end = 1
	case f.cur < 0:
		// No region: only "+" starts a number.
	default:
		idd := f.p.regions[f.p.codes[f.cur].regions[0]].idd
		if idd == nil {
			end = 0 // non-geographic codes have an empty international prefix
		} else if n, ok := idd.prefixLen(f.acc); ok {
			end = n
		}
	}
	if end < 0 {
		return false
	}
	f.complete = true
	f.nn = append(f.nn[:0], f.acc[end:]...)
	f.pre = append(f.pre[:0], f.acc[:end]...)
	if f.acc[0] != '+' {
		f.pre = append(f.pre, ' ')
	}
	return true
}

// extractCallingCode is libphonenumber's attemptToExtractCountryCallingCode:
// a calling code at the start of the national number moves to the prefix,
// and its formats apply from then on.
func (f *AsYouType) extractCallingCode() bool {
	if len(f.nn) == 0 || f.nn[0] == '0' {
		return false
	}
	cc, n := 0, 0
	for l := 1; l <= maxCallingCodeDigits && l <= len(f.nn); l++ {
		cc = cc*10 + int(f.nn[l-1]-'0')
		if f.p.byCC[cc] >= 0 {
			n = l
			break
		}
	}
	if n == 0 {
		return false
	}
	f.pre = append(append(f.pre, f.nn[:n]...), ' ')
	f.nn = f.nn[:copy(f.nn, f.nn[n:])]
	ci := int(f.p.byCC[cc])
	if f.p.regions[f.p.codes[ci].regions[0]].id == nonGeoRegion || ci != f.defMain {
		f.cur = ci
	}
	f.ndd = f.ndd[:0]
	return true
}

// removeNationalPrefix is libphonenumber's
// removeNationalPrefixFromNationalNumber: it moves a national prefix at
// the start of the national number to the prefix and returns it (in
// f.scratch; empty for none).
func (f *AsYouType) removeNationalPrefix() []byte {
	start := 0
	if f.cur >= 0 {
		code := &f.p.codes[f.cur]
		switch {
		case code.code == 1 && len(f.nn) >= 2 && f.nn[0] == '1' && f.nn[1] != '0' && f.nn[1] != '1':
			// A NANP number after its national prefix 1 starts with 2-9.
			start = 1
			f.pre = append(f.pre, '1', ' ')
			f.complete = true
		case code.strip != nil:
			if n, ok := code.strip.prefixLen(f.nn); ok && n > 0 {
				start = n
				f.pre = append(f.pre, f.nn[:n]...)
				f.complete = true
			}
		}
	}
	f.scratch = append(f.scratch[:0], f.nn[:start]...)
	f.nn = f.nn[:copy(f.nn, f.nn[start:])]
	return f.scratch
}

// longerNationalPrefix is libphonenumber's ableToExtractLongerNdd: the
// national prefix taken off is put back and taken off again, and it
// reports whether that takes a different one. The national prefix
// remembered stays the first, as in libphonenumber.
func (f *AsYouType) longerNationalPrefix() bool {
	if len(f.ndd) > 0 {
		n := len(f.nn)
		f.nn = append(f.nn, f.ndd...)
		copy(f.nn[len(f.ndd):], f.nn[:n])
		copy(f.nn, f.ndd)
		// libphonenumber cuts the prefix at the national prefix's last
		// occurrence; where there is none, it fails (Java throws), and
		// the prefix stays as it is here.
		if i := lastIndex(f.pre, f.ndd); i >= 0 {
			f.pre = f.pre[:i]
		}
	}
	return string(f.ndd) != string(f.removeNationalPrefix())
}

// lastIndex is bytes.LastIndex for short slices.
func lastIndex(s, sep []byte) int {
	for i := len(s) - len(sep); i >= 0; i-- {
		if string(s[i:i+len(sep)]) == string(sep) {
			return i
		}
	}
	return -1
}
