// Package textfmt formats messages without package fmt, which would add
// about 90 KB (gzip) to the browser module built on numbering and routing
// (go run ./wasm/build prints its size; benchmarks/README.md). It knows
// the few verbs their messages use: %s and %v (strings, errors, types with
// a String method; integers for %v), %d (integers), %q (strings; see
// AppendQuote), %x with an optional # or 0-padded width (integers); %%
// is a percent sign. Anything else prints as "%!" and the verb, which the
// packages' tests (textfmt.Verbs) keep out of their messages.
package textfmt

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sprintf formats like fmt.Sprintf, for the verbs of the package
// documentation.
func Sprintf(format string, args ...any) string {
	b := make([]byte, 0, len(format)+32)
	next := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b = append(b, c)
			continue
		}
		i++
		if format[i] == '%' {
			b = append(b, '%')
			continue
		}
		sharp, width := false, 0
		if format[i] == '#' {
			sharp, i = true, i+1
		}
		for i < len(format) && format[i] >= '0' && format[i] <= '9' {
			width, i = width*10+int(format[i]-'0'), i+1
		}
		if i == len(format) {
			return string(append(b, "%!(bad format)"...))
		}
		var arg any
		if next < len(args) {
			arg = args[next]
		}
		next++
		switch verb := format[i]; verb {
		case 's':
			b = appendString(b, arg)
		case 'v':
			if v, ok := argInt(arg); ok {
				b = strconv.AppendInt(b, v, 10)
			} else {
				b = appendString(b, arg)
			}
		case 'q':
			b = AppendQuote(b, argString(arg))
		case 'd':
			if v, ok := argInt(arg); ok {
				b = strconv.AppendInt(b, v, 10)
			} else {
				b = append(b, "%!d"...)
			}
		case 'x':
			v, ok := argInt(arg)
			if !ok {
				b = append(b, "%!x"...)
				break
			}
			if sharp {
				b = append(b, "0x"...)
			}
			h := strconv.FormatUint(uint64(v), 16)
			for n := len(h); n < width; n++ {
				b = append(b, '0')
			}
			b = append(b, h...)
		default:
			b = append(b, '%', '!', verb)
		}
	}
	return string(b)
}

// Errorf is errors.New(Sprintf(format, args...)), with an error argument
// of %w wrapped as fmt.Errorf would.
func Errorf(format string, args ...any) error {
	msg := Sprintf(strings.ReplaceAll(format, "%w", "%s"), args...)
	if !strings.Contains(format, "%w") {
		return errors.New(msg)
	}
	var wrapped []error
	for _, a := range args {
		if err, ok := a.(error); ok {
			wrapped = append(wrapped, err)
		}
	}
	return &wrapError{msg: msg, errs: wrapped}
}

type wrapError struct {
	msg  string
	errs []error
}

func (e *wrapError) Error() string   { return e.msg }
func (e *wrapError) Unwrap() []error { return e.errs }

func appendString(b []byte, arg any) []byte { return append(b, argString(arg)...) }

func argString(arg any) string {
	switch v := arg.(type) {
	case string:
		return v
	case error:
		return v.Error()
	case interface{ String() string }:
		return v.String()
	}
	return "%!s"
}

func argInt(arg any) (int64, bool) {
	switch v := arg.(type) {
	case int:
		return int64(v), true
	case int8:
		return int64(v), true
	case int16:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case uint8:
		return int64(v), true
	case uint16:
		return int64(v), true
	case uint32:
		return int64(v), true
	}
	return 0, false
}

// AppendQuote appends s in double quotes, as Go would write it for the
// characters it has: printable ASCII as is (with \" and \\), other ASCII
// and bytes that are not UTF-8 as \xNN, the characters Invisible names as
// \uNNNN (\UNNNNNNNN beyond U+FFFF), the rest of UTF-8 as is. It stands
// in for strconv.Quote, whose tables of printable runes the browser module
// does without.
func AppendQuote(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20 && c < 0x7f:
			b = append(b, c)
		case c < utf8.RuneSelf:
			b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
			case Invisible(r) != "" && r > 0xffff:
				b = append(b, '\\', 'U')
				for shift := 28; shift >= 0; shift -= 4 {
					b = append(b, hex[r>>shift&15])
				}
			case Invisible(r) != "":
				b = append(b, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
			default:
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		i++
	}
	return append(b, '"')
}

// Invisible says what r is when it is a character that text shown to
// people should not hold, and returns "" for any other: control
// characters (Unicode Cc: NUL, escape, DEL, the C1 controls), which break
// the logs and files text goes to; the bidirectional formatting characters
// (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), which
// reorder the text around them where it is shown, so that it reads other
// than it is; every other invisible format character (Unicode Cf:
// zero-width space, soft hyphen, byte order mark, tags...), which makes
// texts that look the same differ; and the line and paragraph separators
// U+2028 and U+2029. The zero-width non-joiner and joiner (U+200C,
// U+200D) are not: Persian and Indic names are spelt with them.
func Invisible(r rune) string {
	switch {
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return "a control character"
	case r < 0xa0 || r == 0x200c || r == 0x200d:
		return ""
	case r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
		return "a bidirectional formatting character"
	case r == 0x2028 || r == 0x2029:
		return "a line or paragraph separator"
	case unicode.Is(unicode.Cf, r):
		return "an invisible formatting character"
	}
	return ""
}

// Verbs returns the verbs of a format string that Sprintf does not know,
// for tests that keep a package's messages within them.
func Verbs(format string) []string {
	var bad []string
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("#+- 0123456789.", format[j]) >= 0 {
			j++
		}
		if j == len(format) {
			break
		}
		verb := format[i : j+1]
		switch flags := verb[1 : len(verb)-1]; {
		case format[j] == '%' && flags == "":
		case strings.IndexByte("sdqvw", format[j]) >= 0 && flags == "":
		case format[j] == 'x' && strings.Trim(flags, "#0123456789") == "":
		default:
			bad = append(bad, verb)
		}
		i = j
	}
	return bad
}
