package textfmt

import "unicode/utf8"

// jsonSafe marks the ASCII bytes encoding/json writes as they are: not
// control characters, quote and backslash, nor <, > and &, which it
// escapes so that JSON can be embedded in HTML. DEL is written as is.
var jsonSafe = func() (safe [utf8.RuneSelf]bool) {
	for c := byte(' '); c < utf8.RuneSelf; c++ {
		safe[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return safe
}()

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a quoted JSON string to b and returns the
// extended buffer: the very bytes json.Marshal writes for the string (with
// its default HTML escaping): ", \ and the control characters \b, \f, \n,
// \r, \t by their short escapes, other control characters and <, >, & as
// \u00XX, U+2028 and U+2029 as \u2028 and \u2029 (they end lines in
// JavaScript), and each byte of invalid UTF-8 as \ufffd. So any input,
// however broken, yields valid JSON that decodes to s where s is valid
// UTF-8. It allocates nothing when b has room.
//
// It is Numen's one JSON string encoder: the numbering results, the
// routing map, the API's wire types and the browser module all write their
// strings with it (FuzzAppendJSONString holds it to encoding/json).
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0 // s[start:i] is pending, to be copied as is
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
