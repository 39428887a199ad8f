// Package jsonpos reads JSON (RFC 8259) into a tree of values that keep
// their place in the input, so that whoever checks the values can name the
// line and column of each problem: the routing maps and coverage
// (package routing) and the sidecar's config file (cmd/numen) are read
// with it.
//
// It accepts exactly what encoding/json accepts (FuzzParse holds it to
// encoding/json's verdicts and values), keeps numbers as their text and
// duplicate keys as they come (the caller decides about both), and says
// what is wrong in words: a file cut short names the bracket left open
// and where it was opened. It does not use encoding/json, whose
// reflection would add about 270 KB (gzip) to the browser module.
package jsonpos

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/numenhq/numen/numbering/textfmt"
)

// Kind is the kind of a JSON value.
type Kind byte

// The kinds of JSON values.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Value is one parsed value.
type Value struct {
	Kind Kind
	Off  int    // offset of the value's first byte in the input
	End  int    // offset just after its last byte
	Text string // a string's value, a number's literal, "true" or "false"
	// An object's keys, in order, duplicates kept, and its values by
	// Keys; an array's elements in Values.
	Keys   []Key
	Values []Value
}

// Key is an object's key and the offset of its opening quote.
type Key struct {
	Name string
	Off  int
}

// SyntaxError is where and why the input is not JSON.
type SyntaxError struct {
	Off       int // offset in the input
	Line, Col int // from 1; the column counts characters
	Msg       string
	// Cut reports an input that ends before its JSON does.
	Cut bool
}

func (e *SyntaxError) Error() string {
	return "line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Col) + ": " + e.Msg
}

// Position returns the line and column (from 1; the column in
// characters) of an offset of data.
func Position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line = 1
	lineStart := 0
	for i, c := range data[:off] {
		if c == '\n' {
			line, lineStart = line+1, i+1
		}
	}
	return line, 1 + utf8.RuneCount(data[lineStart:off])
}

// MaxDepth bounds nesting, so that hostile input cannot exhaust the stack.
const MaxDepth = 64

// Parse reads one JSON value, with nothing but white space after it. Its
// error is a *SyntaxError.
func Parse(data []byte) (Value, error) {
	p := parser{data: data}
	p.space()
	if p.i == len(data) {
		return Value{}, p.errorAt(p.i, "no JSON value: the input is empty")
	}
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.space()
	if p.i != len(data) {
		return Value{}, p.errorAt(p.i, "data after the JSON value")
	}
	return v, nil
}

type parser struct {
	data []byte
	i    int
	open []int // offsets of the objects and arrays not yet closed
	// The keys and values of the objects and arrays being read, innermost
	// last: each container's are copied out once it ends, into slices of
	// their exact size, instead of growing a slice of its own by appends
	// (which made the reading of the built-in routing data allocate twice
	// what it keeps: numen route's peak memory).
	keys []Key
	vals []Value
}

func (p *parser) errorAt(off int, msg string) *SyntaxError {
	line, col := Position(p.data, off)
	return &SyntaxError{Off: off, Line: line, Col: col, Msg: msg}
}

// take returns the keys and values read since key and val, copied, and
// drops them from the parser's stacks.
func (p *parser) take(key, val int) ([]Key, []Value) {
	var keys []Key
	if len(p.keys) > key {
		keys = append([]Key(nil), p.keys[key:]...)
	}
	vals := append([]Value(nil), p.vals[val:]...)
	clear(p.vals[val:]) // no references kept from the stack
	p.keys, p.vals = p.keys[:key], p.vals[:val]
	return keys, vals
}

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// cut is the error of an input that ends before its JSON does.
func (p *parser) cut() *SyntaxError {
	msg := "the JSON ends in the middle of a value: it is cut short"
	if n := len(p.open); n > 0 {
		at := p.open[n-1]
		line, col := Position(p.data, at)
		msg = "the JSON ends before the '" + string(p.data[at]) + "' at line " + strconv.Itoa(line) +
			", column " + strconv.Itoa(col) + " is closed: it is cut short"
	}
	e := p.errorAt(len(p.data), msg)
	e.Cut = true
	return e
}

// unexpected is the error of the character at p.i, where want was
// wanted.
func (p *parser) unexpected(want string) *SyntaxError {
	if p.i >= len(p.data) {
		return p.cut()
	}
	r, _ := utf8.DecodeRune(p.data[p.i:])
	return p.errorAt(p.i, "unexpected "+strconv.QuoteRune(r)+": want "+want)
}

func (p *parser) value(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, p.errorAt(p.i, "nested more than "+strconv.Itoa(MaxDepth)+" deep")
	}
	if p.i >= len(p.data) {
		return Value{}, p.cut()
	}
	start := p.i
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return Value{}, err
		}
		return Value{Kind: String, Off: start, End: p.i, Text: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, w := range [...]string{"true", "false", "null"} {
		rest := p.data[p.i:]
		if len(rest) >= len(w) && string(rest[:len(w)]) == w {
			p.i += len(w)
			v := Value{Kind: Bool, Off: start, End: p.i, Text: w}
			if w == "null" {
				v.Kind, v.Text = Null, ""
			}
			return v, nil
		}
		if len(rest) < len(w) && string(rest) == w[:len(rest)] {
			return Value{}, p.cut()
		}
	}
	return Value{}, p.unexpected("a value (object, array, string, number, true, false or null)")
}

func (p *parser) object(depth int) (Value, error) {
	v := Value{Kind: Object}
	if p.begin(&v, '}') {
		return v, nil
	}
	key0, val0 := len(p.keys), len(p.vals)
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return Value{}, p.unexpected(`a key in quotes ("name")`)
		}
		keyAt := p.i
		name, err := p.str()
		if err != nil {
			return Value{}, err
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return Value{}, p.unexpected("':' after the key " + textfmt.Sprintf("%q", name))
		}
		p.i++
		p.space()
		val, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		p.keys = append(p.keys, Key{name, keyAt})
		p.vals = append(p.vals, val)
		if done, err := p.next('}', "member", "',' or '}' after an object member"); err != nil || !done {
			if err != nil {
				return Value{}, err
			}
			continue
		}
		v.End = p.i
		v.Keys, v.Values = p.take(key0, val0)
		return v, nil
	}
}

func (p *parser) array(depth int) (Value, error) {
	v := Value{Kind: Array}
	if p.begin(&v, ']') {
		return v, nil
	}
	val0 := len(p.vals)
	for {
		p.space()
		val, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		p.vals = append(p.vals, val)
		if done, err := p.next(']', "element", "',' or ']' after an array element"); err != nil || !done {
			if err != nil {
				return Value{}, err
			}
			continue
		}
		v.End = p.i
		_, v.Values = p.take(len(p.keys), val0)
		return v, nil
	}
}

// begin opens the object or array at p.i, which closes with end, and
// reports whether it is empty (then closed, v.End set).
func (p *parser) begin(v *Value, end byte) bool {
	v.Off = p.i
	p.open = append(p.open, p.i)
	p.i++
	p.space()
	if p.i < len(p.data) && p.data[p.i] == end {
		p.i++
		v.End = p.i
		p.open = p.open[:len(p.open)-1]
		return true
	}
	return false
}

// next reads what follows a member or element of an object or array that
// closes with end: a comma (another one follows) or end (done, and the
// container is no longer open); what names the member or element, want
// what is wanted after it.
func (p *parser) next(end byte, what, want string) (done bool, err error) {
	p.space()
	if p.i >= len(p.data) {
		return false, p.cut()
	}
	switch p.data[p.i] {
	case ',':
		p.i++
		p.space()
		if p.i < len(p.data) && p.data[p.i] == end {
			return false, p.errorAt(p.i, "a comma before '"+string(end)+"': remove the comma after the last "+what)
		}
		return false, nil
	case end:
		p.i++
		p.open = p.open[:len(p.open)-1]
		return true, nil
	}
	return false, p.unexpected(want)
}

// number reads a number as RFC 8259 writes them, keeping its text; a
// malformed one is an error naming the whole literal.
func (p *parser) number() (Value, error) {
	start := p.i
	end := start
	for end < len(p.data) && isNumberByte(p.data[end]) {
		end++
	}
	digits := func() int {
		n := 0
		for p.i < end && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
			p.i, n = p.i+1, n+1
		}
		return n
	}
	ok := true
	if p.data[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < end && p.data[p.i] == '0':
		p.i++
	case digits() == 0:
		ok = false
	}
	if ok && p.i < end && p.data[p.i] == '.' {
		p.i++
		ok = digits() > 0
	}
	if ok && p.i < end && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < end && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		ok = digits() > 0
	}
	if !ok || p.i != end {
		if !ok && p.i == len(p.data) {
			return Value{}, p.cut() // "-", "1." or "1e" at the end: more was to come
		}
		p.i = end
		return Value{}, p.errorAt(start, string(p.data[start:end])+" is not a number")
	}
	return Value{Kind: Number, Off: start, End: end, Text: string(p.data[start:end])}, nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// str reads a string at p.i (its opening quote), unescaping it; invalid
// UTF-8 becomes U+FFFD, as encoding/json does.
func (p *parser) str() (string, error) {
	open := p.i
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
			return "", p.cut()
		}
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b), nil
		case c == '\n' || c == '\r':
			return "", p.errorAt(open, "a string that does not end on its line (a missing '\"'?)")
		case c < 0x20:
			return "", p.errorAt(p.i, "a control character in a string: write it escaped (\\t, \\u0001)")
		case c == '\\':
			if p.i+1 >= len(p.data) {
				return "", p.cut()
			}
			var err error
			if b, err = p.escape(b); err != nil {
				return "", err
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

// escape appends to b the character of the escape at p.i (its
// backslash).
func (p *parser) escape(b []byte) ([]byte, error) {
	at := p.i
	e := p.data[p.i+1]
	p.i += 2
	switch e {
	case '"', '\\', '/':
		return append(b, e), nil
	case 'b':
		return append(b, '\b'), nil
	case 'f':
		return append(b, '\f'), nil
	case 'n':
		return append(b, '\n'), nil
	case 'r':
		return append(b, '\r'), nil
	case 't':
		return append(b, '\t'), nil
	case 'u':
	default:
		r, _ := utf8.DecodeRune(p.data[at+1:])
		return nil, p.errorAt(at, "a bad escape \\"+string(r)+" in a string (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
	}
	r, ok := p.hex4()
	if !ok {
		return nil, p.badU(at)
	}
	if utf16.IsSurrogate(r) {
		if p.i+1 < len(p.data) && p.data[p.i] == '\\' && p.data[p.i+1] == 'u' {
			save := p.i
			p.i += 2
			r2, ok := p.hex4()
			if !ok {
				return nil, p.badU(save)
			}
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				r = dec
			} else {
				p.i = save // the second escape stands alone
				r = utf8.RuneError
			}
		} else {
			r = utf8.RuneError
		}
	}
	return utf8.AppendRune(b, r), nil
}

func (p *parser) badU(at int) error {
	if len(p.data)-p.i < 4 && allHex(p.data[p.i:]) {
		return p.cut()
	}
	return p.errorAt(at, "a bad \\u escape in a string: want four hexadecimal digits")
}

func allHex(b []byte) bool {
	for _, c := range b {
		if _, ok := hexValue(c); !ok {
			return false
		}
	}
	return true
}

func hexValue(c byte) (rune, bool) {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0'), true
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10), true
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10), true
	}
	return 0, false
}

func (p *parser) hex4() (rune, bool) {
	if len(p.data)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.i : p.i+4] {
		d, ok := hexValue(c)
		if !ok {
			return 0, false
		}
		r = r*16 + d
	}
	p.i += 4
	return r, true
}
