package enum

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sync"

	"github.com/numenhq/numen/mnp"
)

// Errors of reading an answer; each is wrapped with the record that
// caused it.
var (
	// ErrBadRegexp: a NAPTR's substitution expression cannot be read.
	ErrBadRegexp = errors.New("unreadable NAPTR substitution expression")
	// ErrBadURI: the URI a NAPTR rewrites the number into, or one of its
	// parameters, cannot be read.
	ErrBadURI = errors.New("unreadable URI in NAPTR")
	// ErrUnknownRN: a routing number that the backend's table of routing
	// numbers does not map to a network.
	ErrUnknownRN = errors.New("routing number not in the table of routing numbers")
)

// maxURI bounds the URI a substitution makes: a DNS character-string is
// at most 255 bytes, and a replacement with backreferences to a number
// of at most 16 characters cannot grow much beyond.
const maxURI = 1024

// unescape turns a character-string as package dns presents it (a
// backslash before '"' and '\', \DDD for other bytes) back into its
// bytes. It returns s itself when there is nothing to undo, so that the
// common case allocates nothing.
func unescape(s string) (string, error) {
	if !containsByte(s, '\\') {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf("%w: character-string ends in a backslash", ErrBadRegexp)
		}
		if d := s[i+1]; d >= '0' && d <= '9' {
			if i+3 >= len(s) {
				return "", fmt.Errorf("%w: short \\DDD escape", ErrBadRegexp)
			}
			n := 0
			for _, x := range []byte(s[i+1 : i+4]) {
				if x < '0' || x > '9' {
					return "", fmt.Errorf("%w: bad \\DDD escape", ErrBadRegexp)
				}
				n = n*10 + int(x-'0')
			}
			if n > 255 {
				return "", fmt.Errorf("%w: \\DDD escape above 255", ErrBadRegexp)
			}
			b = append(b, byte(n))
			i += 3
			continue
		}
		b = append(b, s[i+1])
		i++
	}
	return string(b), nil
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// substExpr is a parsed RFC 3402 substitution expression,
// delim ERE delim replacement delim flags.
type substExpr struct {
	ere      string
	repl     string
	fold     bool // the "i" flag
	anything bool // the ERE is ^.*$, which matches every string whole
}

// parseSubst splits an RFC 3402 substitution expression. The delimiter
// is the first character: anything but a digit, a flag ("i") or a
// backslash; inside the ERE and the replacement a backslash escapes it.
// The only flag is "i" (case-insensitive). The parts are substrings of
// expr when they hold no escaped delimiter.
func parseSubst(expr string) (substExpr, error) {
	var e substExpr
	if expr == "" {
		return e, fmt.Errorf("%w: empty", ErrBadRegexp)
	}
	delim := expr[0]
	if delim >= '0' && delim <= '9' || delim == '\\' || delim == 'i' || delim == 'I' || delim >= 0x80 {
		return e, fmt.Errorf("%w: %q cannot be the delimiter", ErrBadRegexp, delim)
	}
	ere, rest, err := cutDelim(expr[1:], delim, true)
	if err != nil {
		return e, err
	}
	repl, flags, err := cutDelim(rest, delim, false)
	if err != nil {
		return e, err
	}
	switch flags {
	case "":
	case "i", "I":
		e.fold = true
	default:
		return e, fmt.Errorf("%w: flags %q (only \"i\" is defined)", ErrBadRegexp, clip(flags))
	}
	if ere == "" {
		return e, fmt.Errorf("%w: empty ERE", ErrBadRegexp)
	}
	e.ere, e.repl, e.anything = ere, repl, ere == "^.*$"
	return e, nil
}

// cutDelim returns s up to its first unescaped delim, with "\delim"
// turned into the delimiter (kept escaped in an ERE when the delimiter
// is punctuation, which Go's syntax reads as itself), and the rest after
// it.
func cutDelim(s string, delim byte, ere bool) (part, rest string, err error) {
	escaped := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) && s[i+1] == delim {
				escaped = true
			}
			i++
		case delim:
			if !escaped {
				return s[:i], s[i+1:], nil
			}
			return undelim(s[:i], delim, ere), s[i+1:], nil
		}
	}
	return "", "", fmt.Errorf("%w: %q lacks its delimiters (delim ERE delim replacement delim flags)", ErrBadRegexp, clip(s))
}

func undelim(s string, delim byte, ere bool) string {
	keep := ere && isPunct(delim)
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if s[i+1] == delim && !keep {
				b = append(b, delim)
			} else {
				b = append(b, s[i], s[i+1])
			}
			i++
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func isPunct(c byte) bool {
	return c > ' ' && c < 0x7f && !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
}

// regexps compiles the EREs of substitution expressions once: a supplier
// uses a handful. It holds at most maxRegexps; beyond, an ERE is compiled
// for each use.
type regexps struct {
	mu sync.RWMutex
	m  map[string]*regexp.Regexp
}

const maxRegexps = 256

func (c *regexps) get(ere string, fold bool) (*regexp.Regexp, error) {
	// As in POSIX, "." matches a newline too.
	key := "(?s)" + ere
	if fold {
		key = "(?is)" + ere
	}
	if c != nil {
		c.mu.RLock()
		re := c.m[key]
		c.mu.RUnlock()
		if re != nil {
			return re, nil
		}
	}
	re, err := regexp.Compile(key)
	if err != nil {
		return nil, fmt.Errorf("%w: ERE %q: %v", ErrBadRegexp, clip(ere), err)
	}
	// POSIX EREs match leftmost-longest.
	re.Longest()
	if c != nil {
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]*regexp.Regexp{}
		}
		if len(c.m) < maxRegexps {
			c.m[key] = re
		}
		c.mu.Unlock()
	}
	return re, nil
}

// apply rewrites the application unique string aus ("+4915112345678")
// with e, appending the result to dst. matched is false when the ERE
// does not match aus: the rule does not apply. \0 in the replacement is
// the whole match, \1 to \9 its groups (empty when a group did not take
// part); a backslash before any other character stands for that
// character. The ERE ^.*$ is applied without a regexp: with no
// allocation.
func (e *substExpr) apply(dst, aus []byte, res *regexps) (out []byte, matched bool, err error) {
	var groups [20]int
	var idx []int
	if e.anything {
		groups[0], groups[1] = 0, len(aus)
		idx = groups[:2]
	} else {
		re, err := res.get(e.ere, e.fold)
		if err != nil {
			return dst, false, err
		}
		// A copy, so that aus does not escape: the regexp path allocates
		// anyway, the common ^.*$ above does not.
		if idx = re.FindStringSubmatchIndex(string(aus)); idx == nil {
			return dst, false, nil
		}
	}
	r := e.repl
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		if i+1 >= len(r) {
			return dst, false, fmt.Errorf("%w: replacement ends in a backslash", ErrBadRegexp)
		}
		i++
		c = r[i]
		if c < '0' || c > '9' {
			dst = append(dst, c)
			continue
		}
		g := int(c - '0')
		if 2*g+1 >= len(idx) {
			return dst, false, fmt.Errorf("%w: backreference \\%d to a group the ERE %q does not have", ErrBadRegexp, g, clip(e.ere))
		}
		if lo, hi := idx[2*g], idx[2*g+1]; lo >= 0 {
			dst = append(dst, aus[lo:hi]...)
		}
		if len(dst) > maxURI {
			return dst, false, fmt.Errorf("%w: the rewritten URI is longer than %d bytes", ErrBadRegexp, maxURI)
		}
	}
	return dst, true, nil
}

// uriInfo is what a rewritten URI says about portability; its byte
// slices point into the URI.
type uriInfo struct {
	phone     bool // a telephone number: tel, or sip with user=phone
	npdi      bool
	rn        []byte
	rnContext []byte
	mcc, mnc  []byte
	ported    mnp.Bool
}

// parseURI reads a tel URI (RFC 3966) or the user part of a sip or sips
// URI with user=phone, and its RFC 4694 parameters npdi, rn and
// rn-context and the suppliers' mcc, mnc and ported. Parameter names
// are case-insensitive; other parameters are ignored. A sip URI without
// user=phone is not a telephone number: phone is false and nothing else
// is read.
func parseURI(uri []byte) (uriInfo, error) {
	var info uriInfo
	var params []byte
	switch {
	case hasPrefixFold(uri, "tel:"):
		params = uri[4:]
	case hasPrefixFold(uri, "sip:"), hasPrefixFold(uri, "sips:"):
		rest := uri[bytes.IndexByte(uri, ':')+1:]
		at := bytes.LastIndexByte(rest, '@')
		if at < 0 {
			return info, fmt.Errorf("%w: %q has no @host", ErrBadURI, clip(string(uri)))
		}
		host := rest[at+1:]
		if q := bytes.IndexByte(host, '?'); q >= 0 {
			host = host[:q]
		}
		phone := false
		for p, rest := nextParam(host); p != nil; p, rest = nextParam(rest) {
			if name, value := splitParam(p); equalFold(name, "user") && equalFold(value, "phone") {
				phone = true
			}
		}
		if !phone {
			return info, nil
		}
		params = rest[:at]
		if c := bytes.IndexByte(params, ':'); c >= 0 { // user:password
			params = params[:c]
		}
	default:
		return info, nil // another scheme (mailto:, http:): no number
	}
	semi := bytes.IndexByte(params, ';')
	number := params
	if semi >= 0 {
		number, params = params[:semi], params[semi:]
	} else {
		params = nil
	}
	if len(number) == 0 {
		return info, fmt.Errorf("%w: %q has no number", ErrBadURI, clip(string(uri)))
	}
	info.phone = true
	for p, rest := nextParam(params); p != nil; p, rest = nextParam(rest) {
		name, value := splitParam(p)
		switch {
		case equalFold(name, "npdi"):
			info.npdi = true
		case equalFold(name, "rn"):
			if len(value) == 0 {
				return info, fmt.Errorf("%w: empty rn in %q", ErrBadURI, clip(string(uri)))
			}
			if info.rn == nil {
				info.rn = value
			}
		case equalFold(name, "rn-context"):
			if info.rnContext == nil {
				info.rnContext = value
			}
		case equalFold(name, "mcc"):
			if len(value) != 3 || !allDigits(value) {
				return info, fmt.Errorf("%w: mcc %q is not 3 digits", ErrBadURI, clip(string(value)))
			}
			info.mcc = value
		case equalFold(name, "mnc"):
			if len(value) < 2 || len(value) > 3 || !allDigits(value) {
				return info, fmt.Errorf("%w: mnc %q is not 2 or 3 digits", ErrBadURI, clip(string(value)))
			}
			info.mnc = value
		case equalFold(name, "ported"):
			switch {
			case equalFold(value, "1"), equalFold(value, "yes"), equalFold(value, "true"):
				info.ported = mnp.True
			case equalFold(value, "0"), equalFold(value, "no"), equalFold(value, "false"):
				info.ported = mnp.False
			default:
				return info, fmt.Errorf("%w: ported=%q is not 1/0, yes/no or true/false", ErrBadURI, clip(string(value)))
			}
		}
	}
	if (info.mcc == nil) != (info.mnc == nil) {
		return info, fmt.Errorf("%w: mcc and mnc come together (%q)", ErrBadURI, clip(string(uri)))
	}
	return info, nil
}

// nextParam returns the first parameter of ";a=1;b" ("a=1") and the
// rest (";b"); empty parameters are skipped, and p is nil at the end. A
// loop over it, not an iterator, keeps the URI's buffer on the stack.
func nextParam(s []byte) (p, rest []byte) {
	for len(s) > 0 {
		if i := bytes.IndexByte(s, ';'); i >= 0 {
			p, s = s[:i], s[i+1:]
		} else {
			p, s = s, nil
		}
		if len(p) > 0 {
			return p, s
		}
	}
	return nil, nil
}

func splitParam(p []byte) (name, value []byte) {
	if i := bytes.IndexByte(p, '='); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, nil
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && equalFold(b[:len(prefix)], prefix)
}

// equalFold compares ASCII case-insensitively, without allocating.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if x >= 'A' && x <= 'Z' {
			x += 'a' - 'A'
		}
		if y >= 'A' && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// clip shortens outside text for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
