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
// and bytes that are not UTF-8 as \xNN, the rest of UTF-8 as is. It stands
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
			if r == utf8.RuneError && size == 1 {
				b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		i++
	}
	return append(b, '"')
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
