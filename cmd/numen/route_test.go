package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type routeOut struct {
	Route       string          `json:"route"`
	Confidence  string          `json:"confidence_level"`
	MCCMNC      *string         `json:"mccmnc"`
	Origin      *string         `json:"origin"`
	Number      string          `json:"number"`
	Instruction string          `json:"routing_instruction"`
	Explain     json.RawMessage `json:"explain"`
}

func decodeRoutes(t *testing.T, out string) []routeOut {
	t.Helper()
	var res []routeOut
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r routeOut
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&r), line)
		res = append(res, r)
	}
	return res
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func TestRouteDefaults(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, nil, "route", "+49 151 23456789", "+1 650 253 0000", "+881 6 1234 5678", "+49 1")
	require.Equal(t, exitOK, code, errOut)
	got := decodeRoutes(t, out)
	require.Len(t, got, 4)
	// The embedded coverage's best route for Germany, the platform's rule for
	// the United States, its reject rule for Iridium, and an invalid number.
	require.Equal(t, "DS7", got[0].Route)
	require.Equal(t, "SCORE", *got[0].Origin)
	require.Equal(t, "AUTO:DS7:SCORE", got[0].Instruction)
	require.Equal(t, "+4915123456789", got[0].Number)
	require.Equal(t, "GT2", got[1].Route)
	require.Equal(t, "CUSTOM_GLOBAL_COUNTRY", *got[1].Origin)
	require.Equal(t, "REJECT", got[2].Route)
	require.Equal(t, "GLOBAL_REJECT", *got[2].Origin)
	require.Equal(t, "REJECT", *got[3].Origin)
	require.Equal(t, "+49 1", got[3].Number)
	require.Equal(t, "26201", *got[0].MCCMNC) // Telekom Deutschland, from the numbering data
}

func TestRouteWithMap(t *testing.T) {
	t.Parallel()
	m := writeTemp(t, "map.json", `{"routing": {"map": {"defaultRoute": "GT1", "mnpFallback": true,
		"prefixes": [{"cns": "+49151", "route": "GT2", "mccmnc": 26201}],
		"countries": [{"countrycode": "FR", "route": "DS7"}]}}}`)
	code, out, errOut := runCLI(t, strings.NewReader("+49 151 23456789\n\n+33 6 12 34 56 78\r\n"), "route", "--map", m, "--explain")
	require.Equal(t, exitOK, code, errOut)
	got := decodeRoutes(t, out)
	require.Len(t, got, 2)
	require.Equal(t, "GT2", got[0].Route)
	require.Equal(t, "CUSTOM_USER_PREFIX", *got[0].Origin)
	require.Equal(t, "26201", *got[0].MCCMNC)
	require.Equal(t, "LOW", got[0].Confidence) // GT2 does not reach Telekom Deutschland in the default coverage
	var e struct {
		AccountPrefixes []map[string]string `json:"account_prefixes"`
		Scores          []map[string]any    `json:"scores"`
	}
	require.NoError(t, json.Unmarshal(got[0].Explain, &e))
	require.Equal(t, []map[string]string{{"cns": "+49151", "route": "GT2", "mccmnc": "26201"}}, e.AccountPrefixes)
	require.Equal(t, "DS7", e.Scores[0]["route"])
	require.Equal(t, "DS7", got[1].Route)
	require.Equal(t, "CUSTOM_USER_COUNTRY", *got[1].Origin)
}

func TestRouteStatic(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, nil, "route", "--route", "GT2", "+49 151 23456789")
	require.Equal(t, exitOK, code, errOut)
	got := decodeRoutes(t, out)
	require.Equal(t, "STATIC:GT2", got[0].Instruction)
	require.Nil(t, got[0].Origin)

	code, _, errOut = runCLI(t, nil, "route", "--route", "ZZZ", "+49 151 23456789")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `--route "ZZZ": not a route of the coverage data (DS7, GT1, GT2, MP1)`)
}

func TestRouteBadInputs(t *testing.T) {
	t.Parallel()
	bad := writeTemp(t, "bad.json", `{"prefixes": [{"cns": "+4915", "route": "XYZ"}, {"cns": "+33", "route": "GT1", "countrycode": "DE"}],
		"countries": [{"countrycode": "FR", "route": "DS7"}, {"countrycode": "FR", "route": "GT1"}]}`)
	code, out, errOut := runCLI(t, nil, "route", "--map", bad, "+49 151 23456789")
	require.Equal(t, exitError, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "routing map: 3 problems:\n")
	require.Contains(t, errOut, `prefixes[0].route "XYZ": unknown route (known: REJECT, DS7, GT1, GT2, MP1)`)
	require.Contains(t, errOut, "prefixes[1]: countrycode DE contradicts cns +33")
	require.Contains(t, errOut, "countries[1]: FR routes to GT1, contradicting countries[0]")

	broken := writeTemp(t, "broken.json", "{\n \"defaultRoute\": \"GT1\",\n}")
	code, _, errOut = runCLI(t, nil, "route", "--map", broken, "1")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "broken.json: routing map: line 3")

	code, _, errOut = runCLI(t, nil, "route", "--coverage", filepath.Join(t.TempDir(), "missing.json"), "1")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "missing.json")

	cov := writeTemp(t, "cov.json", `{"routes": [{"id": "AB", "product": "HLR"}], "networks": [], "scores": []}`)
	code, _, errOut = runCLI(t, nil, "route", "--coverage", cov, "1")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, `coverage: routes[0].id "AB": want 3 characters, printable ASCII`)

	code, _, _ = runCLI(t, nil, "route", "--bogus")
	require.Equal(t, exitUsage, code)
}

// TestRouteLineAsMarshal: without --explain, numen route writes the number
// and the instruction by hand; the bytes are json.Marshal's, for inputs
// that are not numbers at all (<, >, &, quotes, control characters,
// U+2028, invalid UTF-8) as for numbers; and numen route's lines end so.
func TestRouteLineAsMarshal(t *testing.T) {
	t.Parallel()
	inputs := []string{"+4915123456789", "+49 1", `<a href="x">&amp;</a>`, "1\u2028\u2029", "\x01\x7f\t\\", "\xff\xfe+44", "é", ""}
	for _, number := range inputs {
		for _, instruction := range []string{"AUTO:DS7:SCORE", "STATIC:GT1", "<&>"} {
			line := routeLine{Number: number, Instruction: instruction}
			want, err := json.Marshal(line)
			require.NoError(t, err)
			require.Equal(t, string(want[1:]), string(appendPlainRouteLine(nil, &line)), "%q %q", number, instruction)
		}
	}
	code, out, errOut := runCLI(t, nil, "route", "+49 151 23456789", `<x>&"y"`)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, `,"number":"+4915123456789","routing_instruction":"AUTO:DS7:SCORE"}`+"\n")
	require.Contains(t, out, `,"number":"\u003cx\u003e\u0026\"y\"","routing_instruction":"AUTO:REJECT:REJECT"}`+"\n")
}
