package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// shortGoldenInput is what TestShortGolden answers: a region's emergency
// and other short numbers, numbers that only start with an emergency
// number (Brazil's must be exact), written forms, "+" input, vanity
// letters, input that is no number.
var shortGoldenInput = []struct {
	country string
	numbers []string
}{
	{"DE", []string{"112", "110", "116 000", "116117", "1121234", "+49 112", "+44 112", "0800", "112a", "116ABC", "hello", ""}},
	{"US", []string{"911", "9116666666", "+1 911", "24280", "23333", "211", "33669"}},
	{"BR", []string{"190", "19012345", "190 123"}},
	{"FR", []string{"15", "1000", "611", "224", "114", "3010"}},
	{"GB", []string{"999", "112", "118 500", "999/ x1", "١١٢"}},
	{"AT", []string{"133", "13TAXI"}},
}

// TestShortGolden runs numen short over the inputs above, with the
// numbers as arguments, and compares the output with
// testdata/short.golden (go test ./cmd/numen -update rewrites it).
func TestShortGolden(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for _, in := range shortGoldenInput {
		code, out, errOut := runCLI(t, nil, append([]string{"short", "--country", in.country}, in.numbers...)...)
		require.Equal(t, exitOK, code, errOut)
		require.Empty(t, errOut)
		all.WriteString(out)
	}
	golden(t, "short.golden", all.String())
	for line := range strings.Lines(all.String()) {
		var a shortAnswer
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&a), line)
		require.Contains(t, []string{"TOLL_FREE", "STANDARD_RATE", "PREMIUM_RATE", "UNKNOWN_COST"}, a.Cost, line)
	}
	// The members the command promises come first, in this order.
	_, out, _ := runCLI(t, nil, "short", "--country", "DE", "112")
	require.True(t, strings.HasPrefix(out, `{"number":"112","region":"DE","valid":true,"emergency":true,"cost":"TOLL_FREE",`), out)
}

// TestShortStdin: without arguments, one answer per line of standard input,
// in order, blank lines skipped, the same answers as with arguments.
func TestShortStdin(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, strings.NewReader("\ufeff112\r\n\n  911  \n116 000\n"+strings.Repeat("1", maxLineLength+10)+"\n110"), "short", "--country", "DE")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 5)
	_, args, _ := runCLI(t, nil, "short", "--country", "DE", "112", "911", "116 000")
	require.Equal(t, args, strings.Join(lines[:3], "\n")+"\n")
	var long shortAnswer
	require.NoError(t, json.Unmarshal([]byte(lines[3]), &long))
	require.Equal(t, shortAnswer{Number: strings.Repeat("1", tooLongEcho) + "…", Region: "DE", Cost: "UNKNOWN_COST"}, long)
	require.Contains(t, lines[4], `"number":"110"`)
}

// TestShortErrors: a missing or unknown --country is a usage error naming
// it; a plan without short numbers is an error.
func TestShortErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"short", "112"}, "--country is required"},
		{[]string{"short", "--country", "XX", "112"}, `unknown --country "XX"`},
		{[]string{"short", "--country=D1", "112"}, `unknown --country "D1"`},
		{[]string{"short", "--country"}, "--country needs a value"},
		{[]string{"short", "--region", "DE"}, "unknown flag --region"},
	} {
		code, out, errOut := runCLI(t, nil, tc.args...)
		require.Equal(t, exitUsage, code, tc.args)
		require.Empty(t, out)
		require.Contains(t, errOut, tc.want)
		require.Contains(t, errOut, `Run "numen help short" for usage.`)
	}
	code, out, _ := runCLI(t, nil, "help", "short")
	require.Equal(t, exitOK, code)
	require.Equal(t, shortUsage, out)
	code, out, _ = runCLI(t, nil, "short", "-h")
	require.Equal(t, exitOK, code)
	require.Equal(t, shortUsage, out)
}
