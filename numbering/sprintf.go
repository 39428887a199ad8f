package numbering

import (
	"errors"
	"strconv"
	"unicode/utf8"
)

// sprintf formats the few verbs numbering's error messages use, without
// package fmt, which would add about 90 KB (gzip) to the browser module
// built on this package (its budget is a megabyte; benchmarks/wasm/run.sh
// measures it). Verbs: %s (strings, errors, types with a String method),
// %d (integers), %q (strings; see appendQuote), %x with an optional # or 0-padded width
// (integers); %% is a percent sign. Anything else prints as "%!" and the
// verb, which TestFormatVerbs keeps out of the package's messages.
func sprintf(format string, args ...any) string {
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
		case 'q':
			b = appendQuote(b, argString(arg))
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

// errorf is errors.New(sprintf(...)).
func errorf(format string, args ...any) error { return errors.New(sprintf(format, args...)) }

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

// appendQuote appends s in double quotes, as Go would write it for the
// characters it has: printable ASCII as is (with \" and \\), other ASCII
// and bytes that are not UTF-8 as \xNN, the rest of UTF-8 as is. It stands
// in for strconv.Quote, whose tables of printable runes the browser module
// does without.
func appendQuote(b []byte, s string) []byte {
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
