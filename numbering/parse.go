package numbering

import (
	"strings"
	"unicode/utf8"
)

// Parse reads a phone number in international format: a leading "+" or "00"
// and the country calling code, or the bare digits of an MSISDN (which start
// with the calling code too). Input without "+" or "00" is an MSISDN only as
// a plain digit string: written with separators or letters ("(201)
// 555-0123") it is national format, and fails with MissingCountryCode, as
// does a leading 0. Spaces, dashes, dots, slashes and parentheses
// are ignored, a "tel:" scheme is allowed, and full-width and Arabic-Indic
// digits are read as digits. Letters after the first three digits are vanity
// letters and become their telephone keypad digits (Number.IsVanity). A
// national (trunk) prefix after the calling code, as in "+44 (0)20 7946 0000",
// is removed where libphonenumber would remove it.
//
// Input that is not a number in international format returns a *ParseError
// whose Reason says why. Parse does not check that the number is valid for
// its country: Classify does.
func (p *Plan) Parse(s string) (Number, error) {
	var n Number
	_, reason, off := p.parse(s, &n)
	if reason != NoReason {
		return Number{}, &ParseError{Input: s, Reason: reason, Offset: off}
	}
	return n, nil
}

// keypad maps ASCII letters to their telephone keypad digits.
var keypad = [26]byte{
	'2', '2', '2', '3', '3', '3', '4', '4', '4', '5', '5', '5', '6',
	'6', '6', '7', '7', '7', '7', '8', '8', '8', '9', '9', '9', '9',
}

// zeroDigits are the code points of digit zero in the scripts whose digits
// libphonenumber accepts: ASCII, Arabic-Indic, Extended Arabic-Indic, full width.
var zeroDigits = [...]rune{'0', '\u0660', '\u06F0', '\uFF10'}

func digitValue(r rune) (byte, bool) {
	for _, z := range zeroDigits {
		if r >= z && r <= z+9 {
			return byte('0' + r - z), true
		}
	}
	return 0, false
}

// isSeparator reports whether r is punctuation that people write inside
// phone numbers (libphonenumber's VALID_PUNCTUATION, less the letter x and
// the tildes, which libphonenumber reads as extension marks).
func isSeparator(r rune) bool {
	switch r {
	case ' ', '-', '.', '(', ')', '/', '[', ']',
		'\u00A0', '\u00AD', '\u200B', '\u2060', '\u3000', // no-break, soft hyphen, zero-width, ideographic spaces
		'\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\u30FC', // dashes and minus
		'\uFF0D', '\uFF0F', '\uFF08', '\uFF09', '\uFF3B', '\uFF3D', '\uFF0E':
		return true
	}
	return false
}

// simpleByte marks the bytes that the common input is made of: ASCII
// digits, the plus sign, the space and the ASCII separators. Input of these
// bytes only can have no extension, letters, "tel:" or other white space, so
// parse reads it in one pass.
var simpleByte = func() (t [256]bool) {
	for _, c := range []byte("0123456789+ -.()/[]") {
		t[c] = true
	}
	return t
}()

// parse is Parse without allocation, into n. For failures it returns the
// reason and, where a single character is at fault, its byte offset (else
// -1). The calling code is returned whenever it could be read, even on
// failure, so that results can still name the country.
func (p *Plan) parse(s string, n *Number) (cc *callingCode, reason Reason, offset int) {
	// readDigits, written out: this is the hot path of ClassifyString.
	var buf [maxDialled]byte
	var letters bool
	nd, plus, simple := collectSimple(s, &buf)
	if !simple {
		nd, plus, letters, reason, offset = collect(s, &buf)
		if reason != NoReason {
			return nil, reason, offset
		}
	}
	if nd > maxDigits+4 {
		return nil, InputTooLong, -1
	}
	digits := buf[:nd]
	if !plus {
		switch {
		case len(digits) >= 2 && digits[0] == '0' && digits[1] == '0':
			digits = digits[2:]
		case digits[0] == '0' || formatted(s):
			return nil, MissingCountryCode, -1
		}
	}
	cc, reason = p.international(n, digits, letters)
	return cc, reason, -1
}

// maxDialled bounds the digits read from input: a national significant
// number of the longest length with its calling code and the longest
// international prefix before them (Australia's 14xx0011).
const maxDialled = maxDigits + 12

// readDigits reads the digits of input into buf (counting those that do
// not fit), or says why it is not a number. The common case is one pass
// over simple bytes; anything else, and any failure, takes the general
// path, which decides every case.
func readDigits(s string, buf *[maxDialled]byte) (nd int, plus, letters bool, reason Reason, offset int) {
	nd, plus, simple := collectSimple(s, buf)
	if !simple {
		nd, plus, letters, reason, offset = collect(s, buf)
		if reason != NoReason {
			return 0, false, false, reason, offset
		}
	}
	if nd > len(buf) {
		return 0, false, false, InputTooLong, -1
	}
	return nd, plus, letters, NoReason, -1
}

// international reads digits in international form into n, calling code
// first, as libphonenumber does after a "+" or an international prefix:
// the calling code, then the national number, without a national (trunk)
// prefix where the calling code's main region has one to strip.
func (p *Plan) international(n *Number, digits []byte, letters bool) (cc *callingCode, reason Reason) {
	if len(digits) == 0 {
		return nil, NotANumber
	}
	cc, ccLen := p.callingCodeOf(digits)
	if cc == nil {
		return nil, InvalidCountryCode
	}
	return cc, p.national(n, cc, digits[ccLen:], &p.regions[cc.regions[0]], cc.strip, letters)
}

// callingCodeOf returns the calling code that digits start with and its
// length; nil when none does (a calling code never starts with 0).
func (p *Plan) callingCodeOf(digits []byte) (*callingCode, int) {
	if len(digits) == 0 || digits[0] == '0' {
		return nil, 0
	}
	code := 0
	for l := 1; l <= maxCallingCodeDigits && l <= len(digits); l++ {
		code = code*10 + int(digits[l-1]-'0')
		if i := p.byCC[code]; i >= 0 {
			return &p.codes[i], l
		}
	}
	return nil, 0
}

// national ends libphonenumber's parse, into n, once the calling code cc is known:
// the national number, at least 2 digits, loses its national prefix by rule
// np of region rg where the rest has a possible length there, and may then
// have at most 17 digits.
func (p *Plan) national(n *Number, cc *callingCode, national []byte, rg *region, np *nationalPrefix, letters bool) Reason {
	if len(national) < minNationalDigits {
		return TooShort
	}
	if np != nil && np.mayMatch(national) {
		var stripped [maxStripped]byte // zeroed only here: most numbers have no prefix
		if nsn, ok := stripNationalPrefix(rg, np, national, &stripped); ok {
			national = nsn
			if len(national) < minNationalDigits {
				return TooShort
			}
		}
	}
	if len(national) > maxNationalDigits {
		return TooLong
	}
	code := cc.prefix[1:]
	copy(n.digits[:], code)
	copy(n.digits[len(code):], national)
	n.n = uint8(len(code) + len(national))
	n.ccLen = uint8(len(code))
	n.vanity = letters
	return NoReason
}

// formatted reports whether input without "+" or "00" is written as more
// than a plain digit string (white space around it aside): "(201) 555-0123"
// is how a number is written in national format, where its digits do not
// start with the calling code, while "12015550123" is an MSISDN, which does.
// Parse takes bare digits only as an MSISDN; reading formatted input as one
// would answer another country's number (+20 1 5550123 in Egypt).
func formatted(s string) bool {
	s = strings.TrimFunc(s, isSpace)
	for _, r := range s {
		if _, ok := digitValue(r); !ok {
			return true
		}
	}
	return false
}

// collectSimple is the fast path of parse: it reads the digits of input
// made of simple bytes only, with at most one plus sign before them, into
// buf; ok is false for any other input, which collect then reads. For the
// input it takes, it returns what collect would.
func collectSimple(s string, buf *[maxDialled]byte) (nd int, plus, ok bool) {
	if len(s) > maxInputLength {
		return 0, false, false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			if nd < len(buf) {
				buf[nd] = c
			}
			nd++
		case c == '+':
			if nd > 0 || plus {
				return 0, false, false
			}
			plus = true
		case !simpleByte[c]:
			return 0, false, false
		}
	}
	return nd, plus, nd > 0
}

// collect is the general path of parse: it reads the digits of any input
// into buf (counting those that do not fit) or says why it is not a number.
func collect(s string, buf *[maxDialled]byte) (nd int, plus, letters bool, reason Reason, offset int) {
	start := len(s) - len(strings.TrimLeftFunc(s, isSpace))
	s = strings.TrimRightFunc(s, isSpace)
	if start >= len(s) {
		return 0, false, false, Empty, -1
	}
	if len(s) > maxInputLength {
		return 0, false, false, InputTooLong, -1
	}
	if len(s)-start >= 4 && asciiEqualFold(s[start:start+4], "tel:") {
		start += 4
	}
	if hasExtension(s[start:]) {
		return 0, false, false, ExtensionUnsupported, -1
	}
	real := 0 // digits written as digits
	for i := start; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '+' || r == '\uFF0B':
			if nd > 0 || plus {
				return 0, false, false, NotANumber, i
			}
			plus = true
		case r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z':
			if real < 3 { // libphonenumber: vanity letters follow at least three digits
				return 0, false, false, NotANumber, i
			}
			letters = true
			if nd < len(buf) {
				buf[nd] = keypad[(r|0x20)-'a']
			}
			nd++
		default:
			if d, ok := digitValue(r); ok {
				if nd < len(buf) {
					buf[nd] = d
				}
				nd++
				real++
			} else if !isSeparator(r) {
				return 0, false, false, InvalidCharacter, i
			}
		}
		i += size
	}
	if nd == 0 {
		return 0, false, false, NotANumber, -1
	}
	return nd, plus, letters, NoReason, -1
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' || r == '\u00A0' || r == '\u3000' || r == '\uFEFF'
}

// hasExtension reports whether s has an extension: ";ext=123", "ext. 123",
// "extension 123", "#123", "~123" (libphonenumber's extension marks), or
// "x123" when x is the only letter.
func hasExtension(s string) bool {
	if strings.ContainsAny(s, "#~\uFF03\uFF5E\u2053\u223C") {
		return true
	}
	for i := strings.IndexByte(s, ';'); i >= 0 && i+5 <= len(s); i++ {
		if s[i] == ';' && asciiEqualFold(s[i:i+5], ";ext=") {
			return true
		}
	}
	// Walk back over the trailing digits and spaces to the word before them.
	end := len(s)
	for end > 0 && (s[end-1] >= '0' && s[end-1] <= '9' || s[end-1] == ' ') {
		end--
	}
	if end == len(s) || end == 0 {
		return false
	}
	word := end
	for word > 0 && (s[word-1]|0x20 >= 'a' && s[word-1]|0x20 <= 'z' || s[word-1] == '.') {
		word--
	}
	w := strings.TrimSpace(strings.TrimSuffix(s[word:end], "."))
	if word > 0 && s[word-1] != ' ' && (s[word-1] < '0' || s[word-1] > '9') {
		return false
	}
	switch {
	case asciiEqualFold(w, "ext"), asciiEqualFold(w, "extn"), asciiEqualFold(w, "extension"):
		return true
	case asciiEqualFold(w, "x"):
		return countLetters(s) == 1
	}
	return false
}

func countLetters(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			n++
		}
	}
	return n
}

// testLength ports libphonenumber's testNumberLength for the general
// description: NoReason when the length is possible.
func (r *region) testLength(l int) Reason {
	if r.possMin < 0 {
		return InvalidLength
	}
	if l < 32 && r.local&(1<<l) != 0 {
		return LocalOnly
	}
	switch {
	case l < r.possMin:
		return TooShort
	case l > r.possMax:
		return TooLong
	case l < 32 && r.lengths[descGeneral]&(1<<l) != 0:
		return NoReason
	}
	return InvalidLength
}

// asciiEqualFold is strings.EqualFold for ASCII letters only: the keywords
// it compares ("tel:", "ext", ...) are ASCII, and a Unicode fold would take
// the long s of "extenſion" for an s (libphonenumber's patterns ignore
// ASCII case only), besides costing the browser module Unicode's tables.
func asciiEqualFold(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		a, b := s[i], t[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}
