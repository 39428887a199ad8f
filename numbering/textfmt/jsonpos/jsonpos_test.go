package jsonpos

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// toAny turns a parsed value into what encoding/json decodes into any
// (a repeated key: the last one's value, as encoding/json keeps).
func toAny(v *Value) any {
	switch v.Kind {
	case Bool:
		return v.Text == "true"
	case Number:
		f, _ := strconv.ParseFloat(v.Text, 64)
		return f
	case String:
		return v.Text
	case Array:
		out := make([]any, len(v.Values))
		for i := range v.Values {
			out[i] = toAny(&v.Values[i])
		}
		return out
	case Object:
		out := map[string]any{}
		for i, k := range v.Keys {
			out[k.Name] = toAny(&v.Values[i])
		}
		return out
	}
	return nil
}

// checkPlaces checks that every value's Off and End enclose its own JSON
// text, and every key's Off its quote.
func checkPlaces(t *testing.T, data []byte, v *Value) {
	t.Helper()
	text := data[v.Off:v.End]
	if !json.Valid(text) {
		t.Fatalf("value at %d-%d is %q, not JSON", v.Off, v.End, text)
	}
	for _, k := range v.Keys {
		if data[k.Off] != '"' {
			t.Fatalf("key %q at %d is at %q", k.Name, k.Off, data[k.Off:])
		}
	}
	for i := range v.Values {
		checkPlaces(t, data, &v.Values[i])
	}
}

func depth(data []byte) int {
	d, most := 0, 0
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == '{' || c == '['):
			d++
			most = max(most, d)
		case !inString && (c == '}' || c == ']'):
			d--
		}
	}
	return most
}

// FuzzParse holds the reader to encoding/json: the same verdict on every
// input (but for nesting past 64 levels) and the same values, with every
// value's place in the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"defaultRoute": "HA1", "mnpFallback": true, "mccmncs": [{"mccmnc": 26201, "route": "HB1"}]}`,
		`[1, -0.5e+3, "a\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t", true, false, null, {}]`,
		`"\ud800"`, `"\udc00\ud800"`, `"\ud800\u0041"`, "\"\xff\"", `{"a":1,"a":2}`, `01`, `1.`, `-`, `[1,]`, `{"a" 1}`, ``, ` `, `nul`,
		"\"a\nb\"", `"\u12`, `1e+`, `[1 2]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		v, err := Parse(data)
		valid := json.Valid(data)
		switch {
		case err != nil && valid && depth(data) <= MaxDepth:
			t.Fatalf("%q: encoding/json takes it, the reader says %v", s, err)
		case err == nil && !valid:
			t.Fatalf("%q: encoding/json refuses it, the reader takes it", s)
		case err != nil:
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			require.LessOrEqual(t, se.Off, len(data))
			if line, col := Position(data, se.Off); line != se.Line || col != se.Col {
				t.Fatalf("%q: error at %d says line %d, column %d; Position says %d, %d", s, se.Off, se.Line, se.Col, line, col)
			}
		default:
			checkPlaces(t, data, &v)
			var want any
			if err := json.Unmarshal(data, &want); err != nil {
				return // a number beyond float64 (1E700): the reader keeps numbers as text
			}
			if diff := cmp.Diff(want, toAny(&v), cmp.Comparer(func(a, b float64) bool {
				return a == b || math.IsNaN(a) && math.IsNaN(b)
			})); diff != "" {
				t.Fatalf("%q: (-encoding/json +reader)\n%s", s, diff)
			}
		}
	})
}

func TestErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
		cut      bool
	}{
		{"", "line 1, column 1: no JSON value: the input is empty", false},
		{" \n ", "line 2, column 2: no JSON value: the input is empty", false},
		{`{"a": 1} x`, "line 1, column 10: data after the JSON value", false},
		{`{} {}`, "line 1, column 4: data after the JSON value", false},
		{"{\n  \"a\": tru\n}", `line 2, column 8: unexpected 't': want a value (object, array, string, number, true, false or null)`, false},
		{`{"a": trux}`, `line 1, column 7: unexpected 't': want a value (object, array, string, number, true, false or null)`, false},
		{`{"a": 1,}`, "line 1, column 9: a comma before '}': remove the comma after the last member", false},
		{`[1, 2, ]`, "line 1, column 8: a comma before ']': remove the comma after the last element", false},
		{`{"a" 1}`, `line 1, column 6: unexpected '1': want ':' after the key "a"`, false},
		{`{a: 1}`, `line 1, column 2: unexpected 'a': want a key in quotes ("name")`, false},
		{`{"a": 1 "b": 2}`, `line 1, column 9: unexpected '"': want ',' or '}' after an object member`, false},
		{`[1 2]`, `line 1, column 4: unexpected '2': want ',' or ']' after an array element`, false},
		{`{"a": 01}`, "line 1, column 7: 01 is not a number", false},
		{`{"a": -}`, "line 1, column 7: - is not a number", false},
		{`[1.5.2]`, "line 1, column 2: 1.5.2 is not a number", false},
		{`"\x"`, `line 1, column 2: a bad escape \x in a string`, false},
		{`"\u12x4"`, `line 1, column 2: a bad \u escape in a string: want four hexadecimal digits`, false},
		{"\"tab\tinside\"", "line 1, column 5: a control character in a string", false},
		{"[\"é\nb\"]", `line 1, column 2: a string that does not end on its line (a missing '"'?)`, false},
		{strings.Repeat("[", 70), "nested more than 64 deep", false},
		{`[1, 2`, "line 1, column 6: the JSON ends before the '[' at line 1, column 1 is closed: it is cut short", true},
		{"{\n  \"r\": [\n    {\"a\": \"sim", "line 3, column 15: the JSON ends before the '{' at line 3, column 5 is closed: it is cut short", true},
		{"{\"é\": tru", "line 1, column 10: the JSON ends before the '{' at line 1, column 1 is closed: it is cut short", true},
		{`nul`, "line 1, column 4: the JSON ends in the middle of a value: it is cut short", true},
		{`[1.`, "the JSON ends before the '[' at line 1, column 1 is closed: it is cut short", true},
		{`["\u12`, "it is cut short", true},
		{`"abc`, "line 1, column 5: the JSON ends in the middle of a value: it is cut short", true},
	} {
		_, err := Parse([]byte(tc.in))
		require.ErrorContains(t, err, tc.want, "%q", tc.in)
		var se *SyntaxError
		require.ErrorAs(t, err, &se)
		require.Equal(t, tc.cut, se.Cut, "%q: Cut", tc.in)
	}
}

func TestPosition(t *testing.T) {
	t.Parallel()
	data := []byte("ab\nçé\r\nx")
	for off, want := range map[int][2]int{0: {1, 1}, 2: {1, 3}, 3: {2, 1}, 5: {2, 2}, 7: {2, 3}, 8: {2, 4}, 9: {3, 1}, 99: {3, 2}, -1: {1, 1}} {
		line, col := Position(data, off)
		require.Equal(t, want, [2]int{line, col}, "offset %d", off)
	}
}

// Repeated keys are kept, in order: the caller decides.
func TestDuplicateKeysKept(t *testing.T) {
	t.Parallel()
	v, err := Parse([]byte(`{"a": 1, "a": 2}`))
	require.NoError(t, err)
	require.Equal(t, []Key{{"a", 1}, {"a", 9}}, v.Keys)
	require.Equal(t, "2", v.Values[1].Text)
}

func ExampleParse() {
	data := []byte("{\n  \"route\": \"HB1\",\n  \"prefixes\": [\"+49151\", 26201]\n}")
	v, err := Parse(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, k := range v.Keys {
		line, col := Position(data, v.Values[i].Off)
		fmt.Printf("%s at line %d, column %d: %s\n", k.Name, line, col, data[v.Values[i].Off:v.Values[i].End])
	}
	_, err = Parse(data[:len(data)-12])
	fmt.Println(err)
	// Output:
	// route at line 2, column 12: "HB1"
	// prefixes at line 3, column 15: ["+49151", 26201]
	// line 3, column 22: the JSON ends before the '[' at line 3, column 15 is closed: it is cut short
}
