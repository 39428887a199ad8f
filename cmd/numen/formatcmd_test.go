package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nyaruka/phonenumbers/v2"
	"github.com/stretchr/testify/require"
)

// formatInput is the input of the golden tests: valid and invalid numbers
// of many countries, in the forms people write them, and input that is
// not a number.
var formatInput = []string{
	"+49 151 23456789", "+44 20 7946 0000", "+1 201 555 0123", "+1-800-FLOWERS", "+39 06 1234 5678",
	"+54 9 11 2345 6789", "+55 11 3333 4444", "+7 912 345 67 89", "+81 3 1234 5678", "+61 4 1234 5678",
	"+86 138 0013 8000", "+800 1234 5678", "0049 30 1234567", "+49 30 12", "+49 1", "hello", "030 1234567",
}

func TestFormatGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"international", nil},
		{"national", []string{"--style", "national"}},
		{"e164", []string{"--style=e164"}},
		{"rfc3966", []string{"--style", "RFC3966"}},
		{"from-fr", []string{"--from", "FR"}},
		{"from-us", []string{"--from", "us", "--style", "national"}},
		{"from-de", []string{"--from", "DE"}},
		{"from-uz", []string{"--from", "UZ"}},
		{"country-de", []string{"--country", "DE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"format"}, tc.args...), formatInput...)
			code, out, errOut := runCLI(t, nil, args...)
			require.Equal(t, exitOK, code, errOut)
			require.Empty(t, errOut)
			require.Equal(t, len(formatInput), strings.Count(out, "\n"), "one line per number")
			golden(t, "format/"+tc.name+".txt", out)

			// The same from standard input, with blank lines, CRLF and a
			// byte-order mark, gives the same lines.
			stdin := "\ufeff" + strings.Join(formatInput, "\r\n\n") + "\n"
			code, fromStdin, errOut := runCLI(t, strings.NewReader(stdin), append([]string{"format"}, tc.args...)...)
			require.Equal(t, exitOK, code, errOut)
			require.Equal(t, out, fromStdin)
		})
	}
}

// TestFormatAgreesWithLibphonenumber checks the golden answers' source:
// for every input phonenumbers reads, the CLI's line is its answer.
func TestFormatAgreesWithLibphonenumber(t *testing.T) {
	t.Parallel()
	styles := map[string]phonenumbers.PhoneNumberFormat{
		"international": phonenumbers.INTERNATIONAL, "national": phonenumbers.NATIONAL,
		"e164": phonenumbers.E164, "rfc3966": phonenumbers.RFC3966,
	}
	for name, style := range styles {
		_, out, _ := runCLI(t, nil, append([]string{"format", "--style", name}, formatInput...)...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for i, in := range formatInput {
			lpnIn := in
			if rest, ok := strings.CutPrefix(in, "00"); ok {
				lpnIn = "+" + rest // libphonenumber reads "00" only with a region
			}
			num, err := phonenumbers.Parse(lpnIn, "ZZ")
			if err != nil || !strings.HasPrefix(lpnIn, "+") {
				require.True(t, strings.HasPrefix(lines[i], "error: "), "%s: %q", in, lines[i])
				continue
			}
			require.Equal(t, phonenumbers.Format(num, style), lines[i], "%s --style %s", in, name)
		}
	}
	_, out, _ := runCLI(t, nil, "format", "--from", "UZ", "+49 151 23456789")
	num, _ := phonenumbers.Parse("+49 151 23456789", "ZZ")
	require.Equal(t, phonenumbers.FormatOutOfCountryCallingNumber(num, "UZ")+"\n", out)
}

func TestFormatErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"format", "--style", "fancy", "+49 30 1234567"}, `unknown --style "fancy": want e164, international, national or rfc3966`},
		{[]string{"format", "--from", "XX", "+49 30 1234567"}, `--from "XX": not a region of the numbering plan`},
		{[]string{"format", "--from", "001", "+49 30 1234567"}, `--from "001": not a region`},
		{[]string{"format", "--country", "Germany", "+49 30 1234567"}, `--country "Germany": not a region`},
		{[]string{"format", "--bogus"}, "unknown flag --bogus"},
	} {
		code, out, errOut := runCLI(t, nil, tc.args...)
		require.Equal(t, exitUsage, code, "%v", tc.args)
		require.Empty(t, out)
		require.Contains(t, errOut, tc.want)
		require.Contains(t, errOut, `Run "numen help format" for usage.`)
	}
	code, out, _ := runCLI(t, nil, "help", "format")
	require.Equal(t, exitOK, code)
	require.Equal(t, formatUsage, out)
}

// TestFormatStreamsLongInput formats many lines from standard input, with
// an over-long one among them: one line out per line in, in order.
func TestFormatStreamsLongInput(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	var want []string
	for i := range 5000 {
		fmt.Fprintf(&in, "+49 30 %07d\n", i)
		want = append(want, fmt.Sprintf("030 %07d", i))
		if i == 2500 {
			in.WriteString("+" + strings.Repeat("1", maxLineLength+10) + "\n")
			want = append(want, "error: too long")
		}
	}
	code, out, errOut := runCLI(t, strings.NewReader(in.String()), "format", "--style", "national")
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, strings.Join(want, "\n")+"\n", out)
}
