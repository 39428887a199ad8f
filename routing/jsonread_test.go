package routing

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// toAny turns a parsed value into what encoding/json decodes into any.
func toAny(v *jsonValue) any {
	switch v.kind {
	case jsonBool:
		return v.text == "true"
	case jsonNumber:
		f, _ := strconv.ParseFloat(v.text, 64)
		return f
	case jsonString:
		return v.text
	case jsonArray:
		out := make([]any, len(v.values))
		for i := range v.values {
			out[i] = toAny(&v.values[i])
		}
		return out
	case jsonObject:
		out := map[string]any{}
		for i, k := range v.keys {
			out[k.name] = toAny(&v.values[i])
		}
		return out
	}
	return nil
}

// hasDuplicateKeys reports whether some object of valid JSON repeats a
// key, which the reader refuses and encoding/json allows.
func hasDuplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []map[string]bool
	expectKey := []bool{}
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, map[string]bool{})
				expectKey = append(expectKey, true)
				continue
			case '[':
				stack = append(stack, nil)
				expectKey = append(expectKey, false)
				continue
			default:
				stack, expectKey = stack[:len(stack)-1], expectKey[:len(expectKey)-1]
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1] != nil && expectKey[n-1] {
				if stack[n-1][t] {
					return true
				}
				stack[n-1][t] = true
				expectKey[n-1] = false
				continue
			}
		}
		if n := len(stack); n > 0 && stack[n-1] != nil {
			expectKey[n-1] = true
		}
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

// FuzzJSONReader holds the reader to encoding/json: the same verdict on
// every input (but for repeated keys, which it refuses, and nesting past
// 64 levels) and the same values.
func FuzzJSONReader(f *testing.F) {
	for _, s := range []string{
		`{"defaultRoute": "HA1", "mnpFallback": true, "mccmncs": [{"mccmnc": 26201, "route": "HB1"}]}`,
		`[1, -0.5e+3, "a\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t", true, false, null, {}]`,
		`"\ud800"`, `"\udc00\ud800"`, `"\ud800\u0041"`, "\"\xff\"", `{"a":1,"a":2}`, `01`, `1.`, `-`, `[1,]`, `{"a" 1}`, ``, ` `, `nul`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		v, err := parseJSON(data)
		valid := json.Valid(data)
		switch {
		case err != nil && valid && !hasDuplicateKeys(data) && depth(data) <= maxJSONDepth:
			t.Fatalf("%q: encoding/json takes it, the reader says %v", s, err)
		case err == nil && !valid:
			t.Fatalf("%q: encoding/json refuses it, the reader takes it", s)
		case err == nil:
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

func TestJSONReaderErrors(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                      "line 1, column 1: no JSON value",
		"{\n  \"a\": tru\n}":    "line 2, column 8: invalid character",
		`{"a": 1, "a": 2}`:      `line 1, column 10: key "a" given twice`,
		`[1, 2`:                 "unexpected end of JSON input",
		`"\x"`:                  "in string escape code",
		strings.Repeat("[", 70): "nested more than 64 levels deep",
		`{"a": 1} x`:            "after top-level value",
		"\"tab\tinside\"":       "in string literal",
		`{"a": 01}`:             "after an object key:value pair",
		`{"a": -}`:              "in numeric literal",
	} {
		_, err := parseJSON([]byte(in))
		require.ErrorContains(t, err, want, in)
	}
}

// TestMapJSONAgainstEncodingJSON: a map written by MarshalJSON is what
// encoding/json reads back into the same values.
func TestMapJSONAgainstEncodingJSON(t *testing.T) {
	t.Parallel()
	m := &Map{DefaultRoute: "HA1", MNPFallback: true,
		MCCMNCs:   []MCCMNCRule{{MCCMNC: "26201", Route: "HB1", MNO: "Telekom <Deutschland> & Co"}, {MCCMNC: "00101", Route: "HA1", CountryCode: "DE"}},
		Prefixes:  []PrefixRule{{CNS: "+49151", Route: "HB1", MCCMNC: "26201", MNO: "é\u2028"}},
		Countries: []CountryRule{{CountryCode: "DE", Route: "HC1"}},
	}
	b, err := m.MarshalJSON()
	require.NoError(t, err)
	require.True(t, json.Valid(b), "%s", b)
	var generic map[string]any
	require.NoError(t, json.Unmarshal(b, &generic))
	require.Equal(t, float64(26201), generic["mccmncs"].([]any)[0].(map[string]any)["mccmnc"])
	require.Equal(t, "00101", generic["mccmncs"].([]any)[1].(map[string]any)["mccmnc"])
	require.Equal(t, "Telekom <Deutschland> & Co", generic["mccmncs"].([]any)[0].(map[string]any)["mno"])
	back, err := ParseMap(b)
	require.NoError(t, err)
	require.Equal(t, m, back)
}
