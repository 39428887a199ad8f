package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNTCountry: with --country, national format and the country's
// international prefix are read; "+" numbers stay international; the
// results are ClassifyIn's, from arguments and from standard input alike.
func TestNTCountry(t *testing.T) {
	t.Parallel()
	numbers := []string{"0151 23456789", "00 44 20 7946 0000", "+1 201 555 0123", "0151 234", "hello"}
	code, out, errOut := runCLI(t, nil, append([]string{"nt", "--country", "DE"}, numbers...)...)
	require.Equal(t, exitOK, code, errOut)
	got := decodeJSONLines(t, out)
	require.Len(t, got, 5)
	require.Equal(t, "+4915123456789", got[0].Number)
	require.Equal(t, "MOBILE", got[0].Type)
	require.Equal(t, ptr("DE"), got[0].CountryCode)
	require.Equal(t, "+442079460000", got[1].Number)
	require.Equal(t, ptr("GB"), got[1].CountryCode)
	require.Equal(t, "+12015550123", got[2].Number)
	require.Equal(t, ptr("US"), got[2].CountryCode)
	require.False(t, got[3].Valid)
	require.Equal(t, ptr("DE"), got[3].CountryCode, "a German number that is not valid still names its country")
	require.Equal(t, "FAILED", got[4].Status)

	var want []byte
	for _, s := range numbers {
		res, err := testPlan(t).ClassifyIn(s, "DE")
		require.NoError(t, err)
		want = append(res.AppendJSON(want), '\n')
	}
	require.Equal(t, string(want), out)

	// Standard input, lower-case country, flag after the numbers: the same.
	code, stdinOut, errOut := runCLI(t, strings.NewReader(strings.Join(numbers, "\n")+"\n"), "nt", "--country=de")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, out, stdinOut)

	// Without --country, national format is refused as before.
	_, out, _ = runCLI(t, nil, "nt", "0151 23456789")
	require.Equal(t, ptr("missing country code"), decodeJSONLines(t, out)[0].Reason)
}

func TestNTCountryUnknown(t *testing.T) {
	t.Parallel()
	for _, cc := range []string{"XY", "DEU", "001"} {
		code, out, errOut := runCLI(t, nil, "nt", "--country", cc, "0151 23456789")
		require.Equal(t, exitUsage, code)
		require.Empty(t, out)
		require.Contains(t, errOut, `numen nt: --country "`+cc+`": numbering: unknown region "`+cc+`"`)
	}
}

func TestRouteCountry(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, nil, "route", "--country", "US", "(650) 253-0000", "011 49 151 23456789")
	require.Equal(t, exitOK, code, errOut)
	got := decodeRoutes(t, out)
	require.Len(t, got, 2)
	require.Equal(t, "+16502530000", got[0].Number)
	require.Equal(t, "GT2", got[0].Route)
	require.Equal(t, "CUSTOM_GLOBAL_COUNTRY", *got[0].Origin)
	require.Equal(t, "+4915123456789", got[1].Number)
	require.Equal(t, "DS7", got[1].Route)

	code, _, errOut = runCLI(t, nil, "route", "--country", "ZZ", "(650) 253-0000")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `--country "ZZ": numbering: unknown region "ZZ"`)
}
