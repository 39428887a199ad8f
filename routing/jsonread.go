package routing

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/numenhq/numen/numbering/textfmt"
)

// The routing maps and coverage are read with this small JSON reader
// rather than encoding/json, whose reflection would add about 270 KB
// (gzip) to the browser module (wasm/). It reads RFC 8259 JSON
// into a tree of values that keep their offsets, so that every error names
// its line and column; FuzzJSONReader holds it to encoding/json's verdicts.

// jsonKind is the kind of a JSON value.
type jsonKind byte

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

var jsonKindNames = [...]string{jsonNull: "null", jsonBool: "a boolean", jsonNumber: "a number", jsonString: "a string", jsonArray: "an array", jsonObject: "an object"}

// jsonValue is one parsed value. Objects keep their keys in order.
type jsonValue struct {
	kind   jsonKind
	off    int    // offset of the value in the input
	text   string // a string's value, a number's text; "true" or "false"
	keys   []jsonKey
	values []jsonValue // an array's elements, an object's values (by keys)
}

type jsonKey struct {
	name string
	off  int
}

// jsonError is a syntax or type error at an offset of the input.
type jsonError struct {
	line, col int
	msg       string
}

func (e *jsonError) Error() string {
	return "line " + strconv.Itoa(e.line) + ", column " + strconv.Itoa(e.col) + ": " + e.msg
}

// errorAt returns an error at offset off of data.
func errorAt(data []byte, off int, msg string) error {
	off = min(off, len(data))
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &jsonError{line: line, col: col, msg: msg}
}

// maxJSONDepth bounds nesting, so that hostile input cannot exhaust the
// stack.
const maxJSONDepth = 64

// parseJSON reads one JSON value, with nothing but white space after it.
func parseJSON(data []byte) (jsonValue, error) {
	p := jsonParser{data: data}
	p.space()
	if p.i == len(data) {
		return jsonValue{}, errorAt(data, p.i, "no JSON value (empty input)")
	}
	v, err := p.value(0)
	if err != nil {
		return jsonValue{}, err
	}
	p.space()
	if p.i != len(data) {
		return jsonValue{}, errorAt(data, p.i, "invalid character "+textfmt.Sprintf("%q", string(data[p.i:p.i+1]))+" after top-level value")
	}
	return v, nil
}

type jsonParser struct {
	data []byte
	i    int
	// The keys and values of the objects and arrays being read, innermost
	// last: each container's are copied out once it ends, into slices of
	// their exact size, instead of growing a slice of its own by appends
	// (which made the reading of the built-in routing data allocate twice
	// what it keeps: numen route's peak memory).
	keys []jsonKey
	vals []jsonValue
}

// take returns the keys and values read since key and val, copied, and
// drops them from the parser's stacks.
func (p *jsonParser) take(key, val int) ([]jsonKey, []jsonValue) {
	var keys []jsonKey
	if len(p.keys) > key {
		keys = append([]jsonKey(nil), p.keys[key:]...)
	}
	vals := append([]jsonValue(nil), p.vals[val:]...)
	clear(p.vals[val:]) // no references kept from the stack
	p.keys, p.vals = p.keys[:key], p.vals[:val]
	return keys, vals
}

func (p *jsonParser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) fail(msg string) error { return errorAt(p.data, p.i, msg) }

func (p *jsonParser) unexpected(what string) error {
	if p.i >= len(p.data) {
		return p.fail("unexpected end of JSON input, " + what)
	}
	return p.fail("invalid character " + textfmt.Sprintf("%q", string(p.data[p.i:p.i+1])) + ", " + what)
}

func (p *jsonParser) value(depth int) (jsonValue, error) {
	if depth > maxJSONDepth {
		return jsonValue{}, p.fail("nested more than 64 levels deep")
	}
	if p.i >= len(p.data) {
		return jsonValue{}, p.unexpected("looking for a value")
	}
	start := p.i
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		return jsonValue{kind: jsonString, off: start, text: s}, err
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case p.literal("true"):
		return jsonValue{kind: jsonBool, off: start, text: "true"}, nil
	case p.literal("false"):
		return jsonValue{kind: jsonBool, off: start, text: "false"}, nil
	case p.literal("null"):
		return jsonValue{kind: jsonNull, off: start}, nil
	}
	return jsonValue{}, p.unexpected("looking for a value")
}

func (p *jsonParser) literal(word string) bool {
	if len(p.data)-p.i >= len(word) && string(p.data[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		return true
	}
	return false
}

func (p *jsonParser) object(depth int) (jsonValue, error) {
	v := jsonValue{kind: jsonObject, off: p.i}
	p.i++ // {
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return v, nil
	}
	key0, val0 := len(p.keys), len(p.vals)
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return jsonValue{}, p.unexpected("looking for the beginning of an object key")
		}
		keyAt := p.i
		name, err := p.str()
		if err != nil {
			return jsonValue{}, err
		}
		for _, k := range p.keys[key0:] {
			if k.name == name {
				return jsonValue{}, errorAt(p.data, keyAt, textfmt.Sprintf("key %q given twice", name))
			}
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return jsonValue{}, p.unexpected("after an object key")
		}
		p.i++
		p.space()
		val, err := p.value(depth + 1)
		if err != nil {
			return jsonValue{}, err
		}
		p.keys = append(p.keys, jsonKey{name, keyAt})
		p.vals = append(p.vals, val)
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == '}' {
			p.i++
			v.keys, v.values = p.take(key0, val0)
			return v, nil
		}
		return jsonValue{}, p.unexpected("after an object key:value pair")
	}
}

func (p *jsonParser) array(depth int) (jsonValue, error) {
	v := jsonValue{kind: jsonArray, off: p.i}
	p.i++ // [
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return v, nil
	}
	val0 := len(p.vals)
	for {
		p.space()
		val, err := p.value(depth + 1)
		if err != nil {
			return jsonValue{}, err
		}
		p.vals = append(p.vals, val)
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.i++
			_, v.values = p.take(len(p.keys), val0)
			return v, nil
		}
		return jsonValue{}, p.unexpected("after an array element")
	}
}

// number reads a number as RFC 8259 writes them, keeping its text.
func (p *jsonParser) number() (jsonValue, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
			p.i, n = p.i+1, n+1
		}
		return n
	}
	if p.data[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.data) && p.data[p.i] == '0':
		p.i++
	case digits() == 0:
		return jsonValue{}, p.unexpected("in numeric literal")
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return jsonValue{}, p.unexpected("after decimal point in numeric literal")
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return jsonValue{}, p.unexpected("in exponent of numeric literal")
		}
	}
	return jsonValue{kind: jsonNumber, off: start, text: string(p.data[start:p.i])}, nil
}

// str reads a string, unescaping it; invalid UTF-8 becomes U+FFFD, as
// encoding/json does.
func (p *jsonParser) str() (string, error) {
	p.i++ // "
	// Most strings are plain ASCII: one allocation, the string itself.
	start := p.i
	for p.i < len(p.data) && p.data[p.i] >= 0x20 && p.data[p.i] < utf8.RuneSelf && p.data[p.i] != '"' && p.data[p.i] != '\\' {
		p.i++
	}
	if p.i < len(p.data) && p.data[p.i] == '"' {
		p.i++
		return string(p.data[start : p.i-1]), nil
	}
	var b []byte
	if p.i > start {
		b = append(b, p.data[start:p.i]...)
	}
	for {
		if p.i >= len(p.data) {
			return "", p.fail("unexpected end of JSON input, in string literal")
		}
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b), nil
		case c < 0x20:
			return "", p.unexpected("in string literal")
		case c == '\\':
			if p.i+1 >= len(p.data) {
				return "", p.fail("unexpected end of JSON input, in string escape code")
			}
			e := p.data[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.unexpected("in \\u hexadecimal character escape")
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if p.i+1 < len(p.data) && p.data[p.i] == '\\' && p.data[p.i+1] == 'u' {
						save := p.i
						p.i += 2
						var ok2 bool
						if r2, ok2 = p.hex4(); !ok2 {
							return "", p.unexpected("in \\u hexadecimal character escape")
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							r, r2 = dec, -1
						} else {
							p.i = save // the second escape stands alone
							r2 = -1
							r = utf8.RuneError
						}
					} else {
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
			default:
				p.i--
				return "", p.unexpected("in string escape code")
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.data[p.i:])
			b = utf8.AppendRune(b, r) // RuneError for invalid UTF-8
			p.i += size
		}
	}
}

func (p *jsonParser) hex4() (rune, bool) {
	if len(p.data)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r*16 + rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r*16 + rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r*16 + rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}
