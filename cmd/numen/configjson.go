package main

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file reads a config file so that every problem in it is reported in
// one run with its place: a tree of the JSON with the offset of every key
// and value (configParse), then a decoder that fills serveConfig from it
// and carries on past a wrong value (configDecoder). encoding/json stops at
// the first problem, names Go types ("want []main.routeConfig") and says
// "unexpected EOF" for a file cut short.

// configProblem is one problem of a config file: where it is (line and
// column, from 1, of the key or value), the key's path
// (routes[2].backends[0].url) and what is wrong.
type configProblem struct {
	Line, Col int
	Path      string
	Msg       string
}

func (p configProblem) String() string {
	if p.Path == "" {
		return fmt.Sprintf("%d:%d: %s", p.Line, p.Col, p.Msg)
	}
	return fmt.Sprintf("%d:%d: %s: %s", p.Line, p.Col, p.Path, p.Msg)
}

// configError is every problem found in a config file, in the order of
// the file. Its message is one line per problem,
// FILE:LINE:COLUMN: PATH: MESSAGE.
type configError struct {
	File     string // "" when the bytes came from no file
	Problems []configProblem
}

func (e *configError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		if e.File != "" {
			b.WriteString(e.File + ":")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// jnode is one JSON value of a config file and where it starts and ends.
type jnode struct {
	kind  byte // '{', '[', '"', '0' (number), 't', 'f', 'n' (null)
	off   int
	end   int
	str   string // a string's value, a number's literal
	keys  []jkey // an object's members, in order
	elems []*jnode
}

type jkey struct {
	name string
	off  int
	val  *jnode
}

// kindName names a JSON kind in messages.
func (n *jnode) kindName() string {
	switch n.kind {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "true or false"
	}
	return "null"
}

// maxConfigDepth bounds nesting, so that a hostile file cannot exhaust
// the stack.
const maxConfigDepth = 64

// configSyntaxError is where and why a config file is not JSON.
type configSyntaxError struct {
	off int
	msg string
}

// jsonParser reads a config file into a jnode tree.
type jsonParser struct {
	data []byte
	i    int
	open []int // offsets of the objects and lists not yet closed
}

// configParse reads one JSON value with nothing but white space after it.
func configParse(data []byte) (*jnode, *configSyntaxError) {
	p := &jsonParser{data: data}
	p.space()
	if p.i == len(data) {
		return nil, &configSyntaxError{0, "the file is empty: want a JSON object ({...})"}
	}
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(data) {
		return nil, &configSyntaxError{p.i, "data after the JSON object (one object per file)"}
	}
	return n, nil
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

// cut is the error of a file that ends before its JSON does.
func (p *jsonParser) cut() *configSyntaxError {
	msg := "the file ends in the middle of the JSON: it is cut short"
	if n := len(p.open); n > 0 {
		what := "the object"
		if p.data[p.open[n-1]] == '[' {
			what = "the list"
		}
		line, col := lineCol(p.data, p.open[n-1])
		msg = fmt.Sprintf("the file ends before %s opened at line %d, column %d is closed: it is cut short", what, line, col)
	}
	return &configSyntaxError{len(p.data), msg}
}

func (p *jsonParser) unexpected(want string) *configSyntaxError {
	if p.i >= len(p.data) {
		return p.cut()
	}
	r, _ := utf8.DecodeRune(p.data[p.i:])
	return &configSyntaxError{p.i, fmt.Sprintf("unexpected %q: want %s", r, want)}
}

func (p *jsonParser) value(depth int) (*jnode, *configSyntaxError) {
	if depth > maxConfigDepth {
		return nil, &configSyntaxError{p.i, fmt.Sprintf("nested more than %d deep", maxConfigDepth)}
	}
	if p.i >= len(p.data) {
		return nil, p.cut()
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
			return nil, err
		}
		return &jnode{kind: '"', off: start, end: p.i, str: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		for p.i < len(p.data) && strings.IndexByte("+-0123456789.eE", p.data[p.i]) >= 0 {
			p.i++
		}
		lit := string(p.data[start:p.i])
		if !json.Valid(p.data[start:p.i]) {
			return nil, &configSyntaxError{start, fmt.Sprintf("%s is not a number", lit)}
		}
		return &jnode{kind: '0', off: start, end: p.i, str: lit}, nil
	default:
		for _, w := range []string{"true", "false", "null"} {
			if rest := p.data[p.i:]; len(rest) >= len(w) && string(rest[:len(w)]) == w {
				p.i += len(w)
				return &jnode{kind: w[0], off: start, end: p.i}, nil
			} else if len(rest) < len(w) && string(rest) == w[:len(rest)] {
				return nil, p.cut()
			}
		}
		return nil, p.unexpected("a value (object, list, string, number, true, false or null)")
	}
}

func (p *jsonParser) object(depth int) (*jnode, *configSyntaxError) {
	n := &jnode{kind: '{', off: p.i}
	p.open = append(p.open, p.i)
	p.i++
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		n.end = p.i
		p.open = p.open[:len(p.open)-1]
		return n, nil
	}
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, p.unexpected(`a key in quotes ("addr")`)
		}
		koff := p.i
		name, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, p.unexpected(fmt.Sprintf("':' after the key %q", name))
		}
		p.i++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, jkey{name: name, off: koff, val: v})
		p.space()
		if p.i >= len(p.data) {
			return nil, p.cut()
		}
		switch p.data[p.i] {
		case ',':
			p.i++
			p.space()
			if p.i < len(p.data) && p.data[p.i] == '}' {
				return nil, &configSyntaxError{p.i, "a comma before '}': remove the comma after the last member"}
			}
		case '}':
			p.i++
			n.end = p.i
			p.open = p.open[:len(p.open)-1]
			return n, nil
		default:
			return nil, p.unexpected("',' or '}' after an object member")
		}
	}
}

func (p *jsonParser) array(depth int) (*jnode, *configSyntaxError) {
	n := &jnode{kind: '[', off: p.i}
	p.open = append(p.open, p.i)
	p.i++
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		n.end = p.i
		p.open = p.open[:len(p.open)-1]
		return n, nil
	}
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.space()
		if p.i >= len(p.data) {
			return nil, p.cut()
		}
		switch p.data[p.i] {
		case ',':
			p.i++
			p.space()
			if p.i < len(p.data) && p.data[p.i] == ']' {
				return nil, &configSyntaxError{p.i, "a comma before ']': remove the comma after the last element"}
			}
		case ']':
			p.i++
			n.end = p.i
			p.open = p.open[:len(p.open)-1]
			return n, nil
		default:
			return nil, p.unexpected("',' or ']' after a list element")
		}
	}
}

// str reads a string at p.i (its opening quote).
func (p *jsonParser) str() (string, *configSyntaxError) {
	start := p.i
	p.i++
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case '\\':
			p.i += 2
			continue
		case '\n':
			return "", &configSyntaxError{start, "a string that does not end on its line (a missing '\"'?)"}
		case '"':
			p.i++
			var s string
			if err := json.Unmarshal(p.data[start:p.i], &s); err != nil {
				return "", &configSyntaxError{start, "not a valid string (a bad escape or control character)"}
			}
			return s, nil
		}
		p.i++
	}
	p.i = len(p.data)
	return "", p.cut()
}

// lineCol returns the line and column (from 1, in characters) of an
// offset of data.
func lineCol(data []byte, off int) (line, col int) {
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

// configDecoder fills a value from a jnode tree like encoding/json with
// DisallowUnknownFields, but records each problem and goes on.
type configDecoder struct {
	raw      []byte
	places   map[string]int // key path -> offset of its key (or value)
	problems []pathProblem
	typed    map[string]bool // the paths of values of the wrong type
	values   map[string]int  // key path -> offset of its value
}

// pathProblem is a problem before its place is turned into a line and
// column.
type pathProblem struct {
	off  int
	path string
	msg  string
}

func (d *configDecoder) bad(off int, path, format string, args ...any) {
	d.problems = append(d.problems, pathProblem{off, path, fmt.Sprintf(format, args...)})
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decode fills v (settable) from n, at path.
func (d *configDecoder) decode(n *jnode, path string, v reflect.Value) {
	if _, ok := d.places[path]; !ok {
		d.places[path] = n.off
	}
	d.values[path] = n.off
	if n.kind == 'n' {
		return // null leaves the setting as if absent
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, path, v.Elem())
		return
	}
	if reflect.PointerTo(v.Type()).Implements(unmarshalerType) {
		d.note(n, path)
		u := v.Addr().Interface().(json.Unmarshaler)
		if err := u.UnmarshalJSON(d.raw[n.off:n.end]); err != nil {
			d.bad(n.off, path, "%s", err)
		}
		return
	}
	if reflect.PointerTo(v.Type()).Implements(textUnmarshalerType) {
		if n.kind != '"' {
			d.bad(n.off, path, "want a string, got %s", n.kindName())
			return
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.str)); err != nil {
			d.bad(n.off, path, "%s", err)
		}
		return
	}
	want := func(what string) { d.bad(n.off, path, "want %s, got %s", what, n.kindName()) }
	switch v.Kind() {
	case reflect.Struct:
		if n.kind != '{' {
			want("an object ({...})")
			return
		}
		d.object(n, path, v)
	case reflect.Slice:
		if n.kind != '[' {
			want("a list ([...])")
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.elems), len(n.elems))
		for i, e := range n.elems {
			d.decode(e, fmt.Sprintf("%s[%d]", path, i), s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		if n.kind != '{' {
			want("an object ({...})")
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.keys))
		seen := map[string]bool{}
		for _, k := range n.keys {
			at := mapKeyPath(path, k.name)
			d.places[at] = k.off
			if seen[k.name] {
				d.bad(k.off, at, "given twice")
				continue
			}
			seen[k.name] = true
			e := reflect.New(v.Type().Elem()).Elem()
			d.decode(k.val, at, e)
			m.SetMapIndex(reflect.ValueOf(k.name).Convert(v.Type().Key()), e)
		}
		v.Set(m)
	case reflect.String:
		if n.kind != '"' {
			want("a string")
			return
		}
		v.SetString(n.str)
	case reflect.Bool:
		if n.kind != 't' && n.kind != 'f' {
			want("true or false")
			return
		}
		v.SetBool(n.kind == 't')
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.kind != '0' {
			want("a whole number")
			return
		}
		x, err := strconv.ParseInt(n.str, 10, v.Type().Bits())
		switch {
		case err == nil:
			v.SetInt(x)
		case strings.ContainsAny(n.str, ".eE"):
			d.bad(n.off, path, "want a whole number, got %s", n.str)
		default:
			d.bad(n.off, path, "%s is too large", n.str)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.kind != '0' {
			want("a whole number")
			return
		}
		x, err := strconv.ParseUint(n.str, 10, v.Type().Bits())
		switch {
		case err == nil:
			v.SetUint(x)
		case strings.HasPrefix(n.str, "-"):
			d.bad(n.off, path, "%s: must not be negative", n.str)
		case strings.ContainsAny(n.str, ".eE"):
			d.bad(n.off, path, "want a whole number, got %s", n.str)
		default:
			d.bad(n.off, path, "%s is too large", n.str)
		}
	case reflect.Float32, reflect.Float64:
		if n.kind != '0' {
			want("a number")
			return
		}
		x, err := strconv.ParseFloat(n.str, v.Type().Bits())
		if err != nil {
			d.bad(n.off, path, "%s is too large", n.str)
			return
		}
		v.SetFloat(x)
	default:
		d.bad(n.off, path, "cannot be set from a config file") // no such field today
	}
}

// note records the places of the keys and elements below n (a value
// decoded whole, such as a routing map), for messages about them.
func (d *configDecoder) note(n *jnode, path string) {
	for _, k := range n.keys {
		at := mapKeyPath(path, k.name)
		d.places[at] = k.off
		d.note(k.val, at)
	}
	for i, e := range n.elems {
		at := fmt.Sprintf("%s[%d]", path, i)
		d.places[at] = e.off
		d.note(e, at)
	}
}

// object fills the struct v from the object n: every member must be one
// of its JSON fields, once.
func (d *configDecoder) object(n *jnode, path string, v reflect.Value) {
	fields := jsonFields(v.Type())
	seen := map[string]bool{}
	for _, k := range n.keys {
		at := k.name
		if path != "" {
			at = path + "." + k.name
		}
		d.places[at] = k.off
		idx, ok := fields[k.name]
		switch {
		case !ok:
			msg := "unknown setting"
			if near := nearest(k.name, fields); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			d.bad(k.off, at, "%s", msg)
			continue
		case seen[k.name]:
			d.bad(k.off, at, "given twice")
			continue
		}
		seen[k.name] = true
		d.decode(k.val, at, v.Field(idx))
	}
}

// jsonFields maps the JSON names of a struct's exported fields to their
// indexes.
func jsonFields(t reflect.Type) map[string]int {
	m := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = i
	}
	return m
}

// nearest returns the field name closest to a misspelt one (at most two
// edits away, or the same but for case), or "".
func nearest(name string, fields map[string]int) string {
	best, bestD := "", 3
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	slices.Sort(names)
	for _, f := range names {
		if strings.EqualFold(f, name) {
			return f
		}
		if d := editDistance(strings.ToLower(name), f); d < bestD {
			best, bestD = f, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// mapKeyPath is the path of a map's member: path.key, or path["k.y"] for
// a key that is not a plain word.
func mapKeyPath(path, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || r == '-' || r == '+' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			plain = false
		}
	}
	if !plain {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// placeOf returns the offset of path's key in the file: its own, else its
// nearest enclosing key's, else the top object's (0).
func (d *configDecoder) placeOf(path string) int {
	for {
		if off, ok := d.places[path]; ok {
			return off
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			if off, ok := d.places[""]; ok {
				return off
			}
			return 0
		}
		path = path[:i]
	}
}

// within reports whether path is at or below one of the paths in set.
func within(path string, set map[string]bool) bool {
	for {
		if set[path] {
			return true
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			return false
		}
		path = path[:i]
	}
}
