package main

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/numenhq/numen/numbering/textfmt/jsonpos"
)

// This file reads a config file so that every problem in it is reported in
// one run with its place: a tree of the JSON with the offset of every key
// and value (jsonpos.Parse), then a decoder that fills serveConfig from it
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

// kindName names a JSON kind in messages (a config file's arrays are
// lists to its readers).
func kindName(k jsonpos.Kind) string {
	switch k {
	case jsonpos.Object:
		return "an object"
	case jsonpos.Array:
		return "a list"
	case jsonpos.String:
		return "a string"
	case jsonpos.Number:
		return "a number"
	case jsonpos.Bool:
		return "true or false"
	}
	return "null"
}

// readConfigJSON reads a config file's JSON; a file that is not JSON is its
// one problem, at its place.
func readConfigJSON(raw []byte) (jsonpos.Value, *configError) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return jsonpos.Value{}, &configError{Problems: []configProblem{{Line: 1, Col: 1, Msg: "the file is empty: want a JSON object ({...})"}}}
	}
	root, err := jsonpos.Parse(raw)
	if err != nil {
		var se *jsonpos.SyntaxError
		errors.As(err, &se) // Parse's errors are all *SyntaxError
		return jsonpos.Value{}, &configError{Problems: []configProblem{{Line: se.Line, Col: se.Col, Msg: se.Msg}}}
	}
	return root, nil
}

// configDecoder fills a value from a jsonpos tree like encoding/json with
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
func (d *configDecoder) decode(n *jsonpos.Value, path string, v reflect.Value) {
	if _, ok := d.places[path]; !ok {
		d.places[path] = n.Off
	}
	d.values[path] = n.Off
	if n.Kind == jsonpos.Null {
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
		if err := u.UnmarshalJSON(d.raw[n.Off:n.End]); err != nil {
			d.bad(n.Off, path, "%s", err)
		}
		return
	}
	if reflect.PointerTo(v.Type()).Implements(textUnmarshalerType) {
		if n.Kind != jsonpos.String {
			d.bad(n.Off, path, "want a string, got %s", kindName(n.Kind))
			return
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Text)); err != nil {
			d.bad(n.Off, path, "%s", err)
		}
		return
	}
	want := func(what string) { d.bad(n.Off, path, "want %s, got %s", what, kindName(n.Kind)) }
	switch v.Kind() {
	case reflect.Struct:
		if n.Kind != jsonpos.Object {
			want("an object ({...})")
			return
		}
		d.object(n, path, v)
	case reflect.Slice:
		if n.Kind != jsonpos.Array {
			want("a list ([...])")
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Values), len(n.Values))
		for i := range n.Values {
			d.decode(&n.Values[i], fmt.Sprintf("%s[%d]", path, i), s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		if n.Kind != jsonpos.Object {
			want("an object ({...})")
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.Keys))
		seen := map[string]bool{}
		for i, k := range n.Keys {
			at := mapKeyPath(path, k.Name)
			d.places[at] = k.Off
			if seen[k.Name] {
				d.bad(k.Off, at, "given twice")
				continue
			}
			seen[k.Name] = true
			e := reflect.New(v.Type().Elem()).Elem()
			d.decode(&n.Values[i], at, e)
			m.SetMapIndex(reflect.ValueOf(k.Name).Convert(v.Type().Key()), e)
		}
		v.Set(m)
	case reflect.String:
		if n.Kind != jsonpos.String {
			want("a string")
			return
		}
		v.SetString(n.Text)
	case reflect.Bool:
		if n.Kind != jsonpos.Bool {
			want("true or false")
			return
		}
		v.SetBool(n.Text == "true")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.Kind != jsonpos.Number {
			want("a whole number")
			return
		}
		x, err := strconv.ParseInt(n.Text, 10, v.Type().Bits())
		switch {
		case err == nil:
			v.SetInt(x)
		case strings.ContainsAny(n.Text, ".eE"):
			d.bad(n.Off, path, "want a whole number, got %s", n.Text)
		default:
			d.bad(n.Off, path, "%s is too large", n.Text)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Kind != jsonpos.Number {
			want("a whole number")
			return
		}
		x, err := strconv.ParseUint(n.Text, 10, v.Type().Bits())
		switch {
		case err == nil:
			v.SetUint(x)
		case strings.HasPrefix(n.Text, "-"):
			d.bad(n.Off, path, "%s: must not be negative", n.Text)
		case strings.ContainsAny(n.Text, ".eE"):
			d.bad(n.Off, path, "want a whole number, got %s", n.Text)
		default:
			d.bad(n.Off, path, "%s is too large", n.Text)
		}
	case reflect.Float32, reflect.Float64:
		if n.Kind != jsonpos.Number {
			want("a number")
			return
		}
		x, err := strconv.ParseFloat(n.Text, v.Type().Bits())
		if err != nil {
			d.bad(n.Off, path, "%s is too large", n.Text)
			return
		}
		v.SetFloat(x)
	default:
		d.bad(n.Off, path, "cannot be set from a config file") // no such field today
	}
}

// note records the places of the keys and elements below n (a value
// decoded whole, such as a routing map), for messages about them.
func (d *configDecoder) note(n *jsonpos.Value, path string) {
	for i := range n.Values {
		var at string
		if n.Kind == jsonpos.Object {
			at = mapKeyPath(path, n.Keys[i].Name)
			d.places[at] = n.Keys[i].Off
		} else {
			at = fmt.Sprintf("%s[%d]", path, i)
			d.places[at] = n.Values[i].Off
		}
		d.note(&n.Values[i], at)
	}
}

// object fills the struct v from the object n: every member must be one
// of its JSON fields, once.
func (d *configDecoder) object(n *jsonpos.Value, path string, v reflect.Value) {
	fields := jsonFields(v.Type())
	seen := map[string]bool{}
	for i, k := range n.Keys {
		at := k.Name
		if path != "" {
			at = path + "." + k.Name
		}
		d.places[at] = k.Off
		idx, ok := fields[k.Name]
		switch {
		case !ok:
			msg := "unknown setting"
			if near := nearest(k.Name, fields); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			d.bad(k.Off, at, "%s", msg)
			continue
		case seen[k.Name]:
			d.bad(k.Off, at, "given twice")
			continue
		}
		seen[k.Name] = true
		d.decode(&n.Values[i], at, v.Field(idx))
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
