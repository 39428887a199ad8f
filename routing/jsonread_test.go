package routing

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Errors of the routing files name their line and column: the reader's
// syntax errors (jsonpos) and the decoder's own.
func TestJSONErrors(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                              "line 1, column 1: no JSON value",
		"{\n  \"defaultRoute\": tru\n}": "line 2, column 19: unexpected 't'",
		`{"defaultRoute": "A", "defaultRoute": "B"}`:                     `line 1, column 23: key "defaultRoute" given twice`,
		`{"mccmncs": [{"mccmnc": "26201", "route": "X", "route": "Y"}]}`: `line 1, column 48: mccmncs[0]: key "route" given twice`,
		`{"mccmncs": [1, 2`:      "the JSON ends before the '[' at line 1, column 13 is closed: it is cut short",
		`{"defaultRoute": 5}`:    "line 1, column 18: defaultRoute: want a string, have a number",
		`{"mccmncs": {}}`:        "line 1, column 13: mccmncs: want an array, have an object",
		`{"defaultRoute": "A",}`: "a comma before '}'",
		`{"colour": "A"}`:        `line 1, column 2: unknown field "colour"`,
	} {
		_, err := ParseMap([]byte(in))
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
