package numbering

import (
	"bytes"
	"errors"
	"iter"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// Leniency is how sure Find must be that text is a phone number before it
// reports it: libphonenumber's PhoneNumberUtil.Leniency, in increasing
// strictness.
type Leniency uint8

// The leniencies, as libphonenumber defines them.
const (
	// LeniencyPossible accepts numbers of a possible length for their country
	// (libphonenumber's isPossibleNumber), valid or not.
	LeniencyPossible Leniency = iota
	// LeniencyValid accepts valid numbers only; a number written in national
	// format must carry the national (trunk) prefix where its country
	// writes one ("030 123456" in DE, not "30 123456"), and a number may
	// not stand between Latin letters ("abc8005001234").
	LeniencyValid
	// LeniencyStrictGrouping is LeniencyValid, and the digits must be grouped as the
	// number's formats group them or more coarsely: "650 253 0000",
	// "650 2530000" and "6502530000" are found in US, "65 02 53 00 00"
	// is not; nor are numbers with more than one "/" in the national part.
	LeniencyStrictGrouping
	// LeniencyExactGrouping is LeniencyValid, and the digits must be grouped exactly as
	// one of the number's formats writes them, or not at all: "650 253
	// 0000" and "6502530000", not "650 2530000".
	LeniencyExactGrouping
)

var leniencyNames = [...]string{"POSSIBLE", "VALID", "STRICT_GROUPING", "EXACT_GROUPING"}

// String returns libphonenumber's name: "POSSIBLE", "VALID",
// "STRICT_GROUPING" or "EXACT_GROUPING".
func (l Leniency) String() string {
	if int(l) < len(leniencyNames) {
		return leniencyNames[l]
	}
	return "Leniency(" + strconv.Itoa(int(l)) + ")"
}

// ErrUnknownLeniency is matched (errors.Is) by the errors of ParseLeniency
// and Find for a leniency that is not one of the four.
var ErrUnknownLeniency = errors.New("numbering: unknown leniency")

// LeniencyError reports a leniency that is not one of the four.
type LeniencyError struct {
	Leniency string // as given
}

func (e *LeniencyError) Error() string {
	return "numbering: unknown leniency " + strconv.Quote(e.Leniency) + ": want POSSIBLE, VALID, STRICT_GROUPING or EXACT_GROUPING"
}

// Unwrap returns ErrUnknownLeniency.
func (e *LeniencyError) Unwrap() error { return ErrUnknownLeniency }

// ParseLeniency reads a leniency by its name in either case, with "_" or
// "-" between words: "VALID", "valid", "strict-grouping",
// "EXACT_GROUPING". Anything else is a *LeniencyError.
func ParseLeniency(s string) (Leniency, error) {
	for i, name := range leniencyNames {
		if len(s) != len(name) {
			continue
		}
		same := true
		for j := 0; j < len(s) && same; j++ {
			c := s[j]
			switch {
			case c >= 'a' && c <= 'z':
				c -= 'a' - 'A'
			case c == '-':
				c = '_'
			}
			same = c == name[j]
		}
		if same {
			return Leniency(i), nil
		}
	}
	return 0, &LeniencyError{Leniency: s}
}

// Match is a phone number found in text by Find.
type Match struct {
	// Start and End are the byte offsets of the number in the text:
	// text[Start:End] == Raw. They are the offsets libphonenumber's Go
	// port (phonenumbers) reports; its Java original counts UTF-16 units.
	Start, End int
	// Raw is the number as it is written in the text, an extension
	// ("ext. 12", " x 12") included.
	Raw string
	// Result is the number classified, as ClassifyIn classifies Raw in the
	// region given to Find, except that an extension is not refused: the
	// number is the one before it. Result.Input is Raw.
	Result Result
}

// Find returns the phone numbers in text, in order, as libphonenumber's
// PhoneNumberMatcher finds them (findNumbers(text, region, leniency,
// Long.MAX_VALUE)): every stretch of digits with the punctuation people
// write in numbers, an extension and a leading "+" or bracket is a
// candidate; dates ("3/10/2011"), times after a date ("2012-01-02 08:00"),
// page ranges of citations ("211-227 (2003)") and unbalanced brackets are
// passed over; a candidate that is not a number of the leniency is split
// where a second number may begin (at a "/", a bracket, a spaced dash, a
// full stop, a space) and its parts are tried. Numbers in national format
// are read in region, an ISO 3166-1 alpha-2 code in either case, exactly as
// ParseIn reads them; with region "" only numbers in international format
// with "+" are found. Matches never overlap. libphonenumber's maxTries, a
// bound on the candidates tried, is not needed: the work per candidate is
// bounded, and Find tries every candidate, as findNumbers does by default.
//
// The error is a *RegionError (ErrUnknownRegion) for an unknown region, a
// *LeniencyError for an unknown leniency, and ErrNoDialling for a plan file
// without the regions' dialling rules. Scanning allocates nothing; the
// returned iterator may be used any number of times, concurrently too.
func (p *Plan) Find(text, defaultRegion string, l Leniency) (iter.Seq[Match], error) {
	var rg *region
	if defaultRegion != "" {
		var err error
		if rg, err = p.dialRegion(defaultRegion); err != nil {
			return nil, err
		}
	} else if !p.dialling {
		return nil, ErrNoDialling
	}
	if l > LeniencyExactGrouping {
		return nil, &LeniencyError{Leniency: l.String()}
	}
	return func(yield func(Match) bool) {
		f := finder{p: p, text: text, rg: rg, l: l}
		for i := 0; i < len(text); {
			var m Match
			if !f.find(i, &m) || !yield(m) {
				return
			}
			i = m.End
		}
	}, nil
}

// finder is one scan of a text: libphonenumber's PhoneNumberMatcher.
type finder struct {
	p    *Plan
	text string
	rg   *region // nil: numbers with "+" only
	l    Leniency
}

// maxCandidate is the longest candidate that can be a number
// (libphonenumber's MAX_INPUT_STRING_LENGTH for parsing): longer ones are
// still split into parts, which may be.
const maxCandidate = maxInputLength

// find finds the first match at or after byte index into m.
func (f *finder) find(index int, m *Match) bool {
	for {
		start, end, ok := nextCandidate(f.text, index)
		if !ok {
			return false
		}
		cand := f.text[start:end]
		cand = cand[:secondNumberStart(cand)]
		if f.extractMatch(cand, start, m) {
			return true
		}
		index = start + len(cand)
	}
}

// scanByte marks the bytes a scan for digits stops at: ASCII digits and the
// first bytes of other characters, which may be digits of another script.
var scanByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = true
	}
	return t
}()

// nextCandidate finds, at or after index, the first stretch of text that
// libphonenumber's matcher pattern matches:
//
//	(?:[lead][punct]{0,4}){0,2} \d{1,20} (?:[punct]{0,4}\d{1,20}){0,20} (?:extension)?
//
// with lead the opening brackets and plus signs, punct VALID_PUNCTUATION
// (x and X included, the pattern ignoring case), \d any decimal digit, and
// the extension one of its extension patterns. Every quantifier is greedy
// and all that follows the first digits is optional, so the pattern's
// leftmost-first match is found without backtracking: the earliest start
// whose lead reaches the first digit, then each block as far as it goes.
func nextCandidate(text string, index int) (start, end int, ok bool) {
	d := -1
	for i := index; i < len(text); {
		for i < len(text) && !scanByte[text[i]] {
			i++
		}
		if i == len(text) {
			break
		}
		if c := text[i]; c < utf8.RuneSelf {
			d = i
			break
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsDigit(r) {
			d = i
			break
		}
		i += size
	}
	if d < 0 {
		return 0, 0, false
	}
	start = leadStart(text, index, d)
	pos := skipDigits(text, d, maxBlockDigits)
	for range maxBlocks {
		q := pos
		for k := 0; k < 4 && q < len(text); k++ {
			r, size := utf8.DecodeRuneInString(text[q:])
			if !isPunct(r) {
				break
			}
			q += size
		}
		if q == len(text) || !isDigitAt(text, q) {
			break
		}
		pos = skipDigits(text, q, maxBlockDigits)
	}
	if e := matchExtension(text, pos); e > pos {
		pos = e
	}
	return start, pos, true
}

// The matcher pattern's bounds: digits in a block (the longest national
// number and calling code), blocks after the first.
const (
	maxBlockDigits = maxNationalDigits + maxCallingCodeDigits
	maxBlocks      = maxBlockDigits
)

// leadStart returns the earliest start at or after index, at most two
// leads with their punctuation before the digit at d, of a match of
// (?:[lead][punct]{0,4}){0,2} that ends at d; d itself when none.
func leadStart(text string, index, d int) int {
	var at [10]int // rune starts before d, nearest first
	n := 0
	for i := d; n < len(at) && i > index; {
		r, size := utf8.DecodeLastRuneInString(text[index:i])
		if !isPunct(r) && !isLead(r) {
			break
		}
		i -= size
		at[n] = i
		n++
	}
	for k := n - 1; k >= 0; k-- {
		if leadOK(text[at[k]:d]) {
			return at[k]
		}
	}
	return d
}

// leadOK reports whether span, at most ten characters, is one or two leads
// each followed by at most four punctuation characters.
func leadOK(span string) bool {
	var rs [10]rune
	n := 0
	for _, r := range span {
		if n == len(rs) {
			return false
		}
		rs[n] = r
		n++
	}
	if n == 0 || !isLead(rs[0]) {
		return false
	}
	rest := rs[1:n]
	allPunct := func(s []rune) bool {
		for _, r := range s {
			if !isPunct(r) {
				return false
			}
		}
		return true
	}
	if len(rest) <= 4 && allPunct(rest) {
		return true
	}
	for k := 0; k <= 4 && k < len(rest); k++ {
		if isLead(rest[k]) && allPunct(rest[:k]) && len(rest)-k-1 <= 4 && allPunct(rest[k+1:]) {
			return true
		}
	}
	return false
}

// skipDigits returns the offset after at most max decimal digits from i.
func skipDigits(text string, i, max int) int {
	for k := 0; k < max && i < len(text); k++ {
		if c := text[i]; c < utf8.RuneSelf {
			if c < '0' || c > '9' {
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsDigit(r) {
			break
		}
		i += size
	}
	return i
}

// digitRun returns the number of decimal digits from i and the offset
// after them.
func digitRun(text string, i int) (n, end int) {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsDigit(r) {
			break
		}
		i += size
		n++
	}
	return n, i
}

func isDigitAt(text string, i int) bool {
	if c := text[i]; c < utf8.RuneSelf {
		return c >= '0' && c <= '9'
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsDigit(r)
}

// isPunct reports whether r is in libphonenumber's VALID_PUNCTUATION, which
// the matcher reads ignoring case (so X as well as x).
func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		switch r {
		case '-', 'x', 'X', ' ', '(', ')', '.', '[', ']', '/', '~':
			return true
		}
		return false
	}
	switch {
	case r >= 0x2010 && r <= 0x2015, r >= 0xFF0D && r <= 0xFF0F:
		return true
	}
	switch r {
	case 0x2212, 0x30FC, 0x00A0, 0x00AD, 0x200B, 0x2060, 0x3000, 0xFF08, 0xFF09, 0xFF3B, 0xFF3D, 0x2053, 0x223C, 0xFF5E:
		return true
	}
	return false
}

// isLead reports whether r may lead a number: an opening bracket or a plus.
func isLead(r rune) bool {
	switch r {
	case '(', '[', '+', 0xFF08, 0xFF3B, 0xFF0B:
		return true
	}
	return false
}

// isOpening and isClosing are the brackets of libphonenumber's
// MATCHING_BRACKETS.
func isOpening(r rune) bool { return r == '(' || r == '[' || r == 0xFF08 || r == 0xFF3B }
func isClosing(r rune) bool { return r == ')' || r == ']' || r == 0xFF09 || r == 0xFF3D }

// fold maps the letters of the extension labels to the one form the labels
// are written in here: lower case, as the patterns ignore case (Go's
// simple folding: ſ is an s).
func fold(r rune) rune {
	switch {
	case r >= 'A' && r <= 'Z':
		return r + 'a' - 'A'
	case r == 0x17F:
		return 's'
	case r == 0xD3: // Ó
		return 0xF3
	case r >= 0x410 && r <= 0x42F: // Cyrillic capitals
		return r + 0x20
	case r >= 0xFF21 && r <= 0xFF3A: // full-width capitals
		return r + 0x20
	}
	return r
}

// hasLabel returns the offset after label (lower case) at i in text, read
// ignoring case, or -1.
func hasLabel(text string, i int, label string) int {
	for _, want := range label {
		if i >= len(text) {
			return -1
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if fold(r) != want {
			return -1
		}
		i += size
	}
	return i
}

func runeAt(text string, i int) (rune, int) {
	if i >= len(text) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(text[i:])
}

// skipSet returns the offset after the run of characters of set from i.
func skipSet(text string, i int, in func(rune) bool) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !in(r) {
			break
		}
		i += size
	}
	return i
}

func isLabelSep(r rune) bool   { return r == ' ' || r == 0xA0 || r == '\t' || r == ',' }
func isAfterLabel(r rune) bool { return r == ' ' || r == 0xA0 || r == '\t' || r == ',' || r == '-' }
func isBlank(r rune) bool      { return r == ' ' || r == 0xA0 || r == '\t' }
func isLabelStop(r rune) bool  { return r == ':' || r == '.' || r == 0xFF0E }

// explicitLabelEnds lists, in the order the pattern tries them, the offsets where
// an explicit extension label (libphonenumber's EXPLICIT_EXT_LABELS) at i
// may end; n is how many.
func explicitLabelEnds(text string, i int, ends *[8]int) (n int) {
	add := func(e int) {
		if e >= 0 && n < len(ends) {
			ends[n] = e
			n++
		}
	}
	withN := func(e int) {
		add(hasLabel(text, e, "n"))
		add(e)
	}
	// e?xt(?:ensi(?:o\u0301?|ó))?n?
	base := hasLabel(text, i, "ext")
	if base < 0 {
		base = hasLabel(text, i, "xt")
	}
	if base >= 0 {
		if e := hasLabel(text, base, "ensi"); e >= 0 {
			if o := hasLabel(text, e, "o"); o >= 0 {
				if a := hasLabel(text, o, "\u0301"); a >= 0 {
					withN(a)
				}
				withN(o)
			}
			if o := hasLabel(text, e, "ó"); o >= 0 {
				withN(o)
			}
		}
		withN(base)
		return n
	}
	// ｅ?ｘｔｎ?
	base = hasLabel(text, i, "ｅｘｔ")
	if base < 0 {
		base = hasLabel(text, i, "ｘｔ")
	}
	if base >= 0 {
		withN(base)
		return n
	}
	add(hasLabel(text, i, "доб"))
	add(hasLabel(text, i, "anexo"))
	return n
}

// ambiguousLabelEnd returns the offset after an ambiguous extension label
// (x, #, ~, "int" and their full-width forms) at i, or -1.
func ambiguousLabelEnd(text string, i int) int {
	r, size := runeAt(text, i)
	switch fold(r) {
	case 'x', 'ｘ', '#', '＃', '~', '～':
		return i + size
	}
	if e := hasLabel(text, i, "int"); e >= 0 {
		return e
	}
	return hasLabel(text, i, "ｉｎｔ")
}

// extensionTail matches, at i, what follows an extension label:
// [:.．]?[ \u00A0\t,-]*(\d{1,max})#? — the offset after it, or -1. With
// whole it must end the text (the digits all of the last digits), as the
// parser's pattern must; otherwise the digits stop after max.
func extensionTail(text string, i, max int, whole bool) (end int) {
	if r, size := runeAt(text, i); isLabelStop(r) {
		i += size
	}
	i = skipSet(text, i, isAfterLabel)
	n, e := digitRun(text, i)
	if n == 0 {
		return -1
	}
	if !whole {
		e = skipDigits(text, i, max)
		if e < len(text) && text[e] == '#' {
			e++
		}
		return e
	}
	if n > max {
		return -1
	}
	if e < len(text) && text[e] == '#' {
		e++
	}
	if e != len(text) {
		return -1
	}
	return e
}

// matchExtension matches libphonenumber's extension patterns for matching
// at i, in their order, and returns the offset after the first that
// matches, or -1.
func matchExtension(text string, i int) int {
	return extension(text, i, false)
}

// extension is matchExtension (whole false), or, with whole, reports
// whether the parser's extension patterns (those for matching and the
// auto-dialling ",," and ";" forms) match all of text from i: the offset
// len(text) when one does.
func extension(text string, i int, whole bool) int {
	if i >= len(text) || !extensionStart[text[i]] {
		return -1
	}
	// ;ext=(\d{1,20})
	if e := hasLabel(text, i, ";ext="); e >= 0 {
		n, de := digitRun(text, e)
		switch {
		case n == 0:
		case !whole:
			return skipDigits(text, e, 20)
		case n <= 20 && de == len(text):
			return de
		}
	}
	// [ \u00A0\t,]* explicit label, then the tail of 20 digits.
	j := skipSet(text, i, isLabelSep)
	var ends [8]int
	for _, e := range ends[:explicitLabelEnds(text, j, &ends)] {
		if t := extensionTail(text, e, 20, whole); t >= 0 {
			return t
		}
	}
	// [ \u00A0\t,]* ambiguous label, then the tail of 9 digits.
	if e := ambiguousLabelEnd(text, j); e >= 0 {
		if t := extensionTail(text, e, 9, whole); t >= 0 {
			return t
		}
	}
	// [- ]+(\d{1,6})#
	if k := skipSet(text, i, func(r rune) bool { return r == '-' || r == ' ' }); k > i {
		if n, e := digitRun(text, k); n >= 1 && n <= 6 && e < len(text) && text[e] == '#' && (!whole || e+1 == len(text)) {
			return e + 1
		}
	}
	if !whole {
		return -1
	}
	// [ \u00A0\t]*(?:,{2}|;) tail of 15 digits; [ \u00A0\t]*,+ tail of 9.
	k := skipSet(text, i, isBlank)
	if strings.HasPrefix(text[k:], ",,") || strings.HasPrefix(text[k:], ";") {
		if t := extensionTail(text, k+1+boolInt(text[k] == ','), 15, true); t >= 0 {
			return t
		}
	}
	if strings.HasPrefix(text[k:], ",") {
		if t := extensionTail(text, skipSet(text, k, func(r rune) bool { return r == ',' }), 9, true); t >= 0 {
			return t
		}
	}
	return -1
}

// extensionStart marks the bytes an extension can start with: separators
// before a label, the labels' first letters and symbols, ";" and ",", and
// the first bytes of other characters (no-break space, full-width and
// Cyrillic labels).
var extensionStart = func() (t [256]bool) {
	for _, c := range []byte(" \t,;-#~eExXaAiI") {
		t[c] = true
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = true
	}
	return t
}()

// extensionChar marks the bytes of which an extension has at least one: a
// label's letters and symbols, ";", ",", and the bytes of other characters.
var extensionChar = func() (t [256]bool) {
	for _, c := range []byte("#~;,") {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] = true
	}
	return t
}()

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// secondNumberStart returns where candidate ends before libphonenumber's
// SECOND_NUMBER_START ([\\/] *x): a second extension, as in
// "(530) 583-6985 x302/x2303"; len(candidate) when it has none.
func secondNumberStart(cand string) int {
	for i := 0; i < len(cand); i++ {
		if cand[i] != '/' && cand[i] != '\\' {
			continue
		}
		j := i + 1
		for j < len(cand) && cand[j] == ' ' {
			j++
		}
		if j < len(cand) && cand[j] == 'x' {
			return i
		}
	}
	return len(cand)
}

// trimUnwantedEnd drops the characters at the end of s that are neither
// letters, nor numbers, nor "#" (libphonenumber's UNWANTED_END_CHARS).
func trimUnwantedEnd(s string) string {
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if r == '#' || unicode.IsLetter(r) || unicode.IsNumber(r) {
			break
		}
		s = s[:len(s)-size]
	}
	return s
}

// extractMatch is libphonenumber's extractMatch: the candidate cand at
// offset, or a number inside it.
func (f *finder) extractMatch(cand string, offset int, m *Match) bool {
	if slashDate(cand) {
		return false
	}
	if timeStamp(cand) {
		rest := f.text[offset+len(cand):]
		if len(rest) >= 3 && rest[0] == ':' && rest[1] >= '0' && rest[1] <= '5' && rest[2] >= '0' && rest[2] <= '9' {
			return false
		}
	}
	if f.parseAndVerify(cand, offset, m) {
		return true
	}
	return f.innerMatch(cand, offset, m)
}

func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

// slashDate reports whether s has a date with slashes, as libphonenumber's
// SLASH_SEPARATED_DATES finds one anywhere in it:
// (?:[0-3]?\d/[01]?\d|[01]?\d/[0-3]?\d)/(?:[12]\d)?\d{2}.
func slashDate(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] != '/' || !isASCIIDigit(s[i-1]) {
			continue
		}
		j := i + 1
		for j < len(s) && isASCIIDigit(s[j]) {
			j++
		}
		mid := j - i - 1
		if j >= len(s) || s[j] != '/' || mid == 0 || mid > 2 || mid == 2 && s[i+1] > '3' {
			continue
		}
		if j+2 < len(s) && isASCIIDigit(s[j+1]) && isASCIIDigit(s[j+2]) {
			return true
		}
	}
	return false
}

// timeStamp reports whether s ends in a date and an hour, as
// libphonenumber's TIME_STAMPS: [12]\d{3}[-/]?[01]\d[-/]?[0-3]\d +[0-2]\d$.
func timeStamp(s string) bool {
	i := len(s)
	digit := func(lo, hi byte) bool {
		if i == 0 || s[i-1] < lo || s[i-1] > hi {
			return false
		}
		i--
		return true
	}
	sep := func() {
		if i > 0 && (s[i-1] == '-' || s[i-1] == '/') {
			i--
		}
	}
	if !digit('0', '9') || !digit('0', '2') {
		return false
	}
	spaces := i
	for i > 0 && s[i-1] == ' ' {
		i--
	}
	if i == spaces || !digit('0', '9') || !digit('0', '3') {
		return false
	}
	sep()
	if !digit('0', '9') || !digit('0', '1') {
		return false
	}
	sep()
	for range 3 {
		if !digit('0', '9') {
			return false
		}
	}
	return digit('1', '2')
}

// matchingBrackets reports whether the brackets of s pair as
// libphonenumber's MATCHING_BRACKETS wants:
// ^[open]?(?:[^brackets]+[close])?[^brackets]+(?:[open][^brackets]+[close]){0,3}[^brackets]*$.
func matchingBrackets(s string) bool {
	const open, closing, other = 'O', 'C', 'N'
	var tok [15]byte
	n := 0
	for _, r := range s {
		t := byte(other)
		switch {
		case isOpening(r):
			t = open
		case isClosing(r):
			t = closing
		case n > 0 && tok[n-1] == other:
			continue
		}
		if n == len(tok) {
			return false
		}
		tok[n] = t
		n++
	}
	at := func(i int) byte {
		if i < n {
			return tok[i]
		}
		return 0
	}
	for _, lead := range [2]bool{true, false} {
		i := 0
		if lead {
			if at(0) != open {
				continue
			}
			i++
		}
		for _, closed := range [2]bool{true, false} {
			k := i
			if closed {
				if at(k) != other || at(k+1) != closing {
					continue
				}
				k += 2
			}
			if at(k) != other {
				continue
			}
			k++
			for g := 0; g < 3 && at(k) == open && at(k+1) == other && at(k+2) == closing; g++ {
				k += 3
			}
			if at(k) == other {
				k++
			}
			if k == n {
				return true
			}
		}
	}
	return false
}

// pubPages reports whether s has the page range of a citation, as
// libphonenumber's PUB_PAGES finds one anywhere in it:
// \d{1,5}-+\d{1,5}\s{0,4}\(\d{1,4}.
func pubPages(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] != '-' || s[i-1] == '-' || !isASCIIDigit(s[i-1]) {
			continue
		}
		j := i
		for j < len(s) && s[j] == '-' {
			j++
		}
		k := j
		for k < len(s) && isASCIIDigit(s[k]) {
			k++
		}
		if k == j || k-j > 5 {
			continue
		}
		w := k
		for w < len(s) && w-k <= 4 && (s[w] == ' ' || s[w] == '\t' || s[w] == '\n' || s[w] == '\f' || s[w] == '\r') {
			w++
		}
		if w-k <= 4 && w+1 < len(s) && s[w] == '(' && isASCIIDigit(s[w+1]) {
			return true
		}
	}
	return false
}

// isLatinLetter is libphonenumber's test for a letter of the Latin script or
// a combining mark, which a number may not touch at leniency Valid and above.
func isLatinLetter(r rune) bool {
	if !unicode.IsLetter(r) && !unicode.Is(unicode.Mn, r) {
		return false
	}
	return unicode.Is(unicode.Latin, r) || r >= 0x300 && r <= 0x36F
}

// isInvalidPunctuation is libphonenumber's test for "%" and currency
// symbols, which a number may not touch at leniency Valid and above.
func isInvalidPunctuation(r rune) bool { return r == '%' || unicode.Is(unicode.Sc, r) }

// innerMatch is libphonenumber's extractInnerMatch: the parts of a
// candidate that is not a number, split where a second number may begin,
// tried in the order of its INNER_MATCHES.
func (f *finder) innerMatch(cand string, offset int, m *Match) bool {
	for pattern := range 6 {
		first := true
		for at := 0; at <= len(cand); {
			mStart, gStart, gEnd, ok := innerAt(cand, pattern, at)
			if !ok {
				break
			}
			if first {
				if f.parseAndVerify(trimUnwantedEnd(cand[:mStart]), offset, m) {
					return true
				}
				first = false
			}
			if f.parseAndVerify(trimUnwantedEnd(cand[gStart:gEnd]), offset+gStart, m) {
				return true
			}
			if gEnd == at {
				break // an empty match would not move on; none of the patterns makes one
			}
			at = gEnd
		}
	}
	return false
}

func isZ(r rune) bool { return unicode.Is(unicode.Z, r) }

// innerAt finds the next match at or after at of inner pattern k:
//
//	0 /+(.*)
//	1 (\([^(]*)
//	2 (?:\p{Z}-|-\p{Z})\p{Z}*(.+)
//	3 [‒-―－]\p{Z}*(.+)
//	4 \.+\p{Z}*([^.]+)
//	5 \p{Z}+(\P{Z}+)
//
// returning where the match starts and where its group starts and ends.
func innerAt(s string, k, at int) (mStart, gStart, gEnd int, ok bool) {
	// rest returns the group of \p{Z}*(.+) after q: all that follows,
	// the spaces given back one when nothing else does.
	rest := func(q int) (int, bool) {
		r := skipSet(s, q, isZ)
		if r < len(s) {
			return r, true
		}
		if r > q {
			_, size := utf8.DecodeLastRuneInString(s)
			return len(s) - size, true
		}
		return 0, false
	}
	for i := at; i < len(s); {
		c, size := utf8.DecodeRuneInString(s[i:])
		switch k {
		case 0:
			if c == '/' {
				j := i
				for j < len(s) && s[j] == '/' {
					j++
				}
				return i, j, len(s), true
			}
		case 1:
			if c == '(' {
				j := strings.IndexByte(s[i+1:], '(')
				if j < 0 {
					return i, i, len(s), true
				}
				return i, i, i + 1 + j, true
			}
		case 2:
			next, nsize := runeAt(s, i+size)
			if isZ(c) && next == '-' || c == '-' && isZ(next) {
				if g, ok := rest(i + size + nsize); ok {
					return i, g, len(s), true
				}
			}
		case 3:
			if c >= 0x2012 && c <= 0x2015 || c == 0xFF0D {
				if g, ok := rest(i + size); ok {
					return i, g, len(s), true
				}
			}
		case 4:
			if c == '.' {
				j := i
				for j < len(s) && s[j] == '.' {
					j++
				}
				r := skipSet(s, j, isZ)
				e := r
				for e < len(s) && s[e] != '.' {
					e++
				}
				if e > r {
					return i, r, e, true
				}
				if r > j {
					_, zs := utf8.DecodeLastRuneInString(s[:r])
					return i, r - zs, r, true
				}
			}
		case 5:
			if isZ(c) {
				j := skipSet(s, i, isZ)
				e := skipSet(s, j, func(r rune) bool { return !isZ(r) })
				if e > j {
					return i, j, e, true
				}
				return 0, 0, 0, false
			}
		}
		i += size
	}
	return 0, 0, 0, false
}

// candidate is a candidate read as libphonenumber's parseAndKeepRawInput
// reads it.
type candidate struct {
	n   Number
	cc  *callingCode
	src ccSource
	ext string // the extension's digits as written; "" for none
}

// parseAndVerify is libphonenumber's parseAndVerify: cand at offset is a
// match when it parses and passes the leniency.
func (f *finder) parseAndVerify(cand string, offset int, m *Match) bool {
	if !matchingBrackets(cand) || pubPages(cand) {
		return false
	}
	if f.l >= LeniencyValid {
		if r, _ := utf8.DecodeRuneInString(cand); offset > 0 && !isLead(r) {
			prev, _ := utf8.DecodeLastRuneInString(f.text[:offset])
			if isInvalidPunctuation(prev) || isLatinLetter(prev) {
				return false
			}
		}
		if end := offset + len(cand); end < len(f.text) {
			next, _ := utf8.DecodeRuneInString(f.text[end:])
			if isInvalidPunctuation(next) || isLatinLetter(next) {
				return false
			}
		}
	}
	var c candidate
	if !f.p.parseCandidate(cand, f.rg, &c) || !f.verify(&c, cand) {
		return false
	}
	*m = Match{Start: offset, End: offset + len(cand), Raw: cand}
	f.p.classifyParsed(&m.Result, cand, &c.n, c.cc, NoReason)
	return true
}

// parseCandidate reads s in region rg (nil: "+" numbers only) as
// libphonenumber's parseHelper does: the possible number in it (from the
// first "+" or digit, without trailing punctuation or a second
// extension), which must look like a number; its extension; its digits in
// any script, or keypad letters where it has three letters; then ParseIn's
// rules. It reports whether s parses.
func (p *Plan) parseCandidate(s string, rg *region, c *candidate) bool {
	if len(s) == 0 || len(s) > maxCandidate {
		return false
	}
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '+' || r == 0xFF0B || unicode.IsDigit(r) {
			break
		}
		i += size
	}
	s = trimUnwantedEnd(s[i:])
	s = s[:secondNumberStart(s)]
	if !viable(s) {
		return false
	}
	if rg == nil && !strings.Contains(s, "+") && !strings.Contains(s, "\uFF0B") {
		return false
	}
	if e, g := leftmostExtension(s); e >= 0 && viable(s[:e]) {
		c.ext = s[g:]
		if c.ext[len(c.ext)-1] == '#' {
			c.ext = c.ext[:len(c.ext)-1]
		}
		s = s[:e]
	}
	plus := false
	for len(s) > 0 && (s[0] == '+' || strings.HasPrefix(s, "\uFF0B")) {
		plus = true
		if s[0] == '+' {
			s = s[1:]
		} else {
			s = s[len("\uFF0B"):]
		}
	}
	var buf [maxDialled]byte
	nd := 0
	letters := countASCIILetters(s) >= 3
	for _, r := range s {
		var d byte
		switch {
		case letters && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'):
			d = keypad[(r|0x20)-'a']
		case letters && r >= '0' && r <= '9':
			d = byte(r)
		case letters:
			continue
		default:
			v, ok := decimalDigit(r)
			if !ok {
				continue
			}
			d = v
		}
		if nd == len(buf) {
			return false // too long for any reading
		}
		buf[nd] = d
		nd++
	}
	cc, reason, src := p.parseDigits(&c.n, buf[:nd], plus, letters, rg)
	c.cc, c.src = cc, src
	return reason == NoReason && cc != nil
}

func countASCIILetters(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			n++
		}
	}
	return n
}

// isAlphaFold reports whether r is in [A-Za-z] read ignoring case, as
// Go's regexp reads it (with the long s and the Kelvin sign).
func isAlphaFold(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == 0x17F || r == 0x212A
}

// viable is libphonenumber's isViablePhoneNumber:
// ^(?:\d{2}|[+＋]*(?:[punct*]*\d){3,}[punct*alpha\d]*(?:extension)?)$.
func viable(s string) bool {
	if len(s) < 2 {
		return false
	}
	if n, e := digitRun(s, 0); n == 2 && e == len(s) {
		return true
	}
	i := skipSet(s, 0, func(r rune) bool { return r == '+' || r == 0xFF0B })
	digits := 0
	for digits < 3 && i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsDigit(r):
			digits++
		case !isPunct(r) && r != '*':
			return false
		}
		i += size
	}
	if digits < 3 {
		return false
	}
	body := skipSet(s, i, func(r rune) bool { return isPunct(r) || r == '*' || isAlphaFold(r) || unicode.IsDigit(r) })
	if body == len(s) {
		return true
	}
	for at := body; at >= i; at-- {
		if extension(s, at, true) == len(s) {
			return true
		}
	}
	return false
}

// leftmostExtension returns where the first match of libphonenumber's
// extension pattern for parsing, which must end s, starts, and where its
// digits start; -1 when s has none.
func leftmostExtension(s string) (start, digits int) {
	has := false
	for i := 0; i < len(s) && !has; i++ {
		has = extensionChar[s[i]]
	}
	if !has {
		return -1, -1 // the common case: digits and punctuation only
	}
	for i := 0; i < len(s); i++ {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		if extension(s, i, true) == len(s) {
			end := len(s)
			if s[end-1] == '#' {
				end--
			}
			d := end
			for d > 0 {
				r, size := utf8.DecodeLastRuneInString(s[:d])
				if !unicode.IsDigit(r) {
					break
				}
				d -= size
			}
			return i, d
		}
	}
	return -1, -1
}

// verify is libphonenumber's Leniency.verify for a parsed candidate.
func (f *finder) verify(c *candidate, cand string) bool {
	p := f.p
	main := &p.regions[c.cc.regions[0]]
	nsn := c.n.national()
	if f.l == LeniencyPossible {
		reason := main.testLength(len(nsn))
		return reason == NoReason || reason == LocalOnly
	}
	if _, t := p.regionAndType(c.cc, nsn); t == typeNone {
		return false
	}
	if !p.onlyValidXChars(c, cand) {
		return false
	}
	if f.l >= LeniencyStrictGrouping && moreThanOneSlash(c, cand) {
		return false
	}
	if !p.nationalPrefixPresentIfRequired(c, cand) {
		return false
	}
	if f.l >= LeniencyStrictGrouping {
		return p.groupingValid(c, cand, f.l == LeniencyExactGrouping)
	}
	return true
}

// onlyValidXChars is libphonenumber's containsOnlyValidXChars: an x in a
// candidate is a carrier code's ("xx" before the national number) or an
// extension's.
func (p *Plan) onlyValidXChars(c *candidate, cand string) bool {
	for i := 0; i < len(cand)-1; i++ {
		if cand[i] != 'x' && cand[i] != 'X' {
			continue
		}
		if cand[i+1] == 'x' || cand[i+1] == 'X' {
			i++
			if !p.sameNSN(c, cand[i:]) {
				return false
			}
		} else if !digitsEqual(cand[i:], c.ext) {
			return false
		}
	}
	return true
}

// digitsEqual reports whether the digits of s, in any script, are
// exactly the string want.
func digitsEqual(s, want string) bool {
	k := 0
	for _, r := range s {
		d, ok := decimalDigit(r)
		if !ok {
			continue
		}
		if k == len(want) || want[k] != d {
			return false
		}
		k++
	}
	return k == len(want)
}

// sameNSN is libphonenumber's isNumberMatch(number, s) == NSN_MATCH for
// the text after a carrier code's "xx": s read in the region of the
// number's calling code is the same number.
func (p *Plan) sameNSN(c *candidate, s string) bool {
	for _, r := range s {
		if r == '+' || r == 0xFF0B {
			return false // read with its calling code: an exact match at best
		}
	}
	var other candidate
	if !p.parseCandidate(s, &p.regions[c.cc.regions[0]], &other) {
		return false
	}
	return other.n.n == c.n.n && string(other.n.all()) == string(c.n.all()) && other.ext == c.ext
}

// moreThanOneSlash is libphonenumber's
// containsMoreThanOneSlashInNationalNumber.
func moreThanOneSlash(c *candidate, cand string) bool {
	first := strings.IndexByte(cand, '/')
	if first < 0 {
		return false
	}
	second := strings.IndexByte(cand[first+1:], '/')
	if second < 0 {
		return false
	}
	second += first + 1
	if c.src == fromPlus || c.src == fromWithoutPlus {
		code := c.n.digits[:c.n.ccLen]
		if digitsEqual(cand[:first], string(code)) {
			return strings.Contains(cand[second+1:], "/")
		}
	}
	return true
}

// nationalPrefixPresentIfRequired is libphonenumber's
// isNationalPrefixPresentIfRequired: a number in national format whose
// format writes a national prefix must have been written with it.
func (p *Plan) nationalPrefixPresentIfRequired(c *candidate, cand string) bool {
	if c.src != fromDefaultCountry || p.formats.codes == nil {
		return true
	}
	main := &p.regions[c.cc.regions[0]]
	if main.id == nonGeoRegion {
		return true
	}
	var bounds [planfmt.MaxAtoms + 1]uint8
	rec, _ := p.formats.choose(c.n.national(), &p.formats.codes[p.byCC[c.cc.code]].national, &bounds)
	if rec == nil || rec[planfmt.FmtPlain+3]&planfmt.FmtNPRequired == 0 {
		return true
	}
	var buf [maxCandidate]byte
	nd := 0
	for _, r := range cand {
		if d, ok := decimalDigit(r); ok && nd < len(buf) {
			buf[nd] = d
			nd++
		}
	}
	if main.natPrefix == nil || nd == 0 {
		return false
	}
	var stripped [maxStripped]byte
	_, ok := main.natPrefix.strip(main, buf[:nd], &stripped)
	return ok
}

// maxGroups bounds the digit groups of a candidate or a formatted number
// that the grouping checks read: a candidate has at most maxCandidate
// bytes.
const maxGroups = maxCandidate/2 + 1

// groupingValid is libphonenumber's checkNumberGroupingIsValid with
// allNumberGroupsRemainGrouped (strict grouping) or
// allNumberGroupsAreExactlyPresent (exact): the candidate's digit groups
// against those of the number's format.
func (p *Plan) groupingValid(c *candidate, cand string, exact bool) bool {
	var norm [maxCandidate]byte // the candidate with its digits in ASCII
	nn := 0
	for _, r := range cand {
		if d, ok := decimalDigit(r); ok {
			norm[nn] = d
			nn++
			continue
		}
		nn += utf8.EncodeRune(norm[nn:], r)
	}
	normalized := norm[:nn]
	// The number's groups: spans of text.
	var spans [maxGroups][2]uint16
	var ng int
	var tbuf [maxCandidate]byte
	var text []byte
	if allZeros(c.n.national()) {
		// libphonenumber formats a number whose national number is the
		// integer 0 as its raw input, the candidate: the groups are what
		// lies between its dashes after the first, up to a ";".
		raw := cand
		if i := strings.IndexByte(raw, ';'); i >= 0 {
			raw = raw[:i]
		}
		raw = raw[strings.IndexByte(raw, '-')+1:]
		text = tbuf[:copy(tbuf[:], raw)]
		ng = splitGroups(text, func(c byte) bool { return c == '-' }, false, &spans)
	} else {
		formatted, _ := p.AppendFormat(tbuf[:0], c.n, RFC3966)
		// "tel:+49-30-123456": the groups after the calling code.
		text = formatted[bytes.IndexByte(formatted, '-')+1:]
		ng = splitGroups(text, isPunctuation, true, &spans)
	}
	if p.grouped(c, normalized, text, spans[:ng], exact) {
		return true
	}
	// libphonenumber's alternate formats of the calling code: each whose
	// leading digits start the number, its pattern replacing every match
	// in the number (replaceAll).
	if p.formats.codes == nil {
		return false
	}
	l := &p.formats.codes[p.byCC[c.cc.code]].alt
	nsn := c.n.national()
	mask, chunk := uint16(0), -1
	for i := range l.count {
		rec := p.formats.records[(l.first+i)*planfmt.FmtRecordSize : (l.first+i+1)*planfmt.FmtRecordSize]
		if rec[planfmt.FmtPlain+3]&planfmt.FmtLeading != 0 {
			if k := i / planfmt.FmtChunk; k != chunk {
				chunk, mask = k, l.chunks[k].prefixMatches(nsn)
			}
			if mask&(1<<(i%planfmt.FmtChunk)) == 0 {
				continue
			}
		}
		alt := p.formats.appendReplaceAll(tbuf[:0], nsn, rec)
		for len(alt) > 0 && isPunctuation(alt[0]) {
			alt = alt[1:] // RFC 3966 drops punctuation at the start
		}
		ng = splitGroups(alt, isPunctuation, true, &spans)
		if p.grouped(c, normalized, alt, spans[:ng], exact) {
			return true
		}
	}
	return false
}

// splitGroups splits text at its separators into groups, written to
// spans, and returns how many: as strings.Split, or, with runs, at runs
// of separators, as RFC 3966 writes libphonenumber's separators ("-").
// The last group takes what is left when spans are full.
func splitGroups(text []byte, sep func(byte) bool, runs bool, spans *[maxGroups][2]uint16) int {
	n, from := 0, 0
	for i := 0; i < len(text) && n < len(spans)-1; i++ {
		if !sep(text[i]) {
			continue
		}
		spans[n] = [2]uint16{uint16(from), uint16(i)}
		n++
		for runs && i+1 < len(text) && sep(text[i+1]) {
			i++
		}
		from = i + 1
	}
	if runs && from == len(text) && n > 0 {
		return n // no empty group after separators at the end
	}
	spans[n] = [2]uint16{uint16(from), uint16(len(text))}
	return n + 1
}

// appendReplaceAll appends nsn with every match of the format's pattern
// replaced by its plain template, as Java's Matcher.replaceAll does: from
// the start, the leftmost match (the variable atom as long as it can be),
// digits between matches as they are.
func (f *formats) appendReplaceAll(dst, nsn, rec []byte) []byte {
	layout := f.section[planfmt.U32(rec, planfmt.FmtLayout):]
	atoms, fixed, variable := int(layout[0]), int(layout[2]), int(layout[3])
	spans := layout[planfmt.FmtLayoutHead+atoms*planfmt.FmtAtomSize:]
	tpl := f.template(rec, planfmt.FmtPlain)
	least, most := 0, 0
	if variable != planfmt.NoAtom {
		a := layout[planfmt.FmtLayoutHead+variable*planfmt.FmtAtomSize:]
		least, most = int(a[2]), int(a[3])
	}
	var bounds [planfmt.MaxAtoms + 1]uint8
	for s := 0; s < len(nsn); {
		matched := false
		for v := min(most, len(nsn)-s-fixed); v >= least; v-- {
			if matchLayout(layout, nsn[s:s+fixed+v], &bounds) {
				matched = true
				break
			}
		}
		if !matched {
			dst = append(dst, nsn[s])
			s++
			continue
		}
		for _, c := range tpl {
			switch {
			case c == planfmt.TemplateCarrier:
			case c&planfmt.TemplateGroup != 0:
				g := 2 * int(c&^planfmt.TemplateGroup-1)
				first, n := int(spans[g]), int(spans[g+1])
				dst = append(dst, nsn[s+int(bounds[first]):s+int(bounds[first+n])]...)
			default:
				dst = append(dst, c)
			}
		}
		s += int(bounds[atoms])
	}
	return dst
}

// grouped is exactlyPresent or remainGrouped for the number's groups, the
// spans of text.
func (p *Plan) grouped(c *candidate, norm, text []byte, groups [][2]uint16, exact bool) bool {
	if exact {
		return p.exactlyPresent(c, norm, text, groups)
	}
	return p.remainGrouped(c, norm, text, groups)
}

// remainGrouped is libphonenumber's allNumberGroupsRemainGrouped.
func (p *Plan) remainGrouped(c *candidate, norm, text []byte, groups [][2]uint16) bool {
	from := 0
	if c.src != fromDefaultCountry {
		code := c.n.digits[:c.n.ccLen]
		from = bytes.Index(norm, code) + len(code)
	}
	for i, sp := range groups {
		g := text[sp[0]:sp[1]]
		idx := bytes.Index(norm[from:], g)
		if idx < 0 {
			return false
		}
		from += idx + len(g)
		if i == 0 && from < len(norm) {
			r, _ := utf8.DecodeRune(norm[from:])
			if p.formats.codes[p.byCC[c.cc.code]].ndd && unicode.IsDigit(r) {
				return bytes.HasPrefix(norm[from-len(g):], c.n.national())
			}
		}
	}
	return bytes.Contains(norm[from:], []byte(c.ext))
}

// exactlyPresent is libphonenumber's allNumberGroupsAreExactlyPresent.
func (p *Plan) exactlyPresent(c *candidate, norm, text []byte, groups [][2]uint16) bool {
	// The candidate's groups of digits, as Java's split("\\D+"): an empty
	// first group when it starts with a non-digit, none at the end.
	var spans [maxGroups][2]int
	n := 0
	for i := 0; i < len(norm); {
		if !isASCIIDigit(norm[i]) {
			if i == 0 {
				spans[n] = [2]int{0, 0}
				n++
			}
			for i < len(norm) && !isASCIIDigit(norm[i]) {
				i++
			}
			continue
		}
		j := i
		for j < len(norm) && isASCIIDigit(norm[j]) {
			j++
		}
		if n < len(spans) {
			spans[n] = [2]int{i, j}
			n++
		}
		i = j
	}
	if n == 0 {
		spans[0] = [2]int{0, 0}
		n = 1
	}
	cgroup := func(i int) []byte { return norm[spans[i][0]:spans[i][1]] }
	group := func(i int) []byte { return text[groups[i][0]:groups[i][1]] }
	ci := n - 1
	if c.ext != "" {
		ci = n - 2
	}
	if n == 1 || ci >= 0 && bytes.Contains(cgroup(ci), c.n.national()) {
		return true
	}
	for fi := len(groups) - 1; fi > 0 && ci >= 0; fi-- {
		if !bytes.Equal(cgroup(ci), group(fi)) {
			return false
		}
		ci--
	}
	return ci >= 0 && bytes.HasSuffix(cgroup(ci), group(0))
}

func allZeros(b []byte) bool {
	for _, c := range b {
		if c != '0' {
			return false
		}
	}
	return true
}
