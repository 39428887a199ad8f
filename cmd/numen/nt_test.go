package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ntResult is the part of a JSON result the tests look at.
type ntResult struct {
	Number         string   `json:"number"`
	Type           string   `json:"number_type"`
	Status         string   `json:"query_status"`
	Valid          bool     `json:"is_valid"`
	Reason         *string  `json:"invalid_reason"`
	Vanity         *bool    `json:"is_vanity_number"`
	QualifiesHLR   *bool    `json:"qualifies_for_hlr_lookup"`
	Network        *string  `json:"original_network_name"`
	CountryCode    *string  `json:"original_country_code"`
	CountryPrefix  *string  `json:"original_country_prefix"`
	Regions        []string `json:"regions"`
	Timezones      []string `json:"timezones"`
	PossiblyPorted *bool    `json:"is_possibly_ported"`
}

// decodeJSONLines decodes JSON Lines strictly: one object per line.
func decodeJSONLines(t *testing.T, out string) []ntResult {
	t.Helper()
	var results []ntResult
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r ntResult
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "line %d: %s", len(results)+1, sc.Text())
		results = append(results, r)
	}
	require.NoError(t, sc.Err())
	return results
}

func ptr[T any](v T) *T { return &v }

// realNumbers are the numbers most tests classify, with what they are.
var realNumbers = []string{"+49 151 23456789", "+44 20 7946 0000", "+1 800 FLOWERS", "hello"}

func TestNTJSON(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, nil, append([]string{"nt"}, realNumbers...)...)
	require.Equal(t, exitOK, code, errOut)
	require.Empty(t, errOut)
	got := decodeJSONLines(t, out)
	require.Len(t, got, 4)

	de := got[0]
	require.Equal(t, "+4915123456789", de.Number)
	require.Equal(t, "MOBILE", de.Type)
	require.Equal(t, "OK", de.Status)
	require.True(t, de.Valid)
	require.Nil(t, de.Reason)
	require.Equal(t, ptr("DE"), de.CountryCode)
	require.Equal(t, ptr("+49"), de.CountryPrefix)
	require.Equal(t, ptr(true), de.QualifiesHLR)
	require.Equal(t, []string{"Europe/Berlin"}, de.Timezones)

	gb := got[1]
	require.Equal(t, "+442079460000", gb.Number)
	require.Equal(t, "LANDLINE", gb.Type)
	require.True(t, gb.Valid)
	require.Equal(t, ptr("GB"), gb.CountryCode)
	require.Equal(t, ptr(false), gb.QualifiesHLR)

	us := got[2]
	require.Equal(t, "+18003569377", us.Number)
	require.Equal(t, "TOLL_FREE", us.Type)
	require.True(t, us.Valid)
	require.Equal(t, ptr(true), us.Vanity)
	require.Equal(t, ptr("US"), us.CountryCode)

	bad := got[3]
	require.Equal(t, "hello", bad.Number, "input that does not parse is echoed")
	require.Equal(t, "FAILED", bad.Status)
	require.False(t, bad.Valid)
	require.NotNil(t, bad.Reason)
	require.Nil(t, bad.CountryCode)
	require.Nil(t, bad.Vanity)
}

// TestNTJSONIsAppendJSON checks that a JSON line is exactly the library's
// rendering of the result, nothing added or lost.
func TestNTJSONIsAppendJSON(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, nil, append([]string{"nt"}, realNumbers...)...)
	require.Equal(t, exitOK, code)
	var want []byte
	for _, s := range realNumbers {
		res := testPlan(t).ClassifyString(s)
		want = append(res.AppendJSON(want), '\n')
	}
	require.Equal(t, string(want), out)
}

func TestNTFlagsAnywhere(t *testing.T) {
	t.Parallel()
	_, before, _ := runCLI(t, nil, "nt", "--format", "csv", "+4915123456789", "hello")
	_, after, _ := runCLI(t, nil, "nt", "+4915123456789", "hello", "--format", "csv")
	_, middle, _ := runCLI(t, nil, "nt", "+4915123456789", "-format=csv", "hello")
	require.True(t, strings.HasPrefix(before, "number,number_type,"), before)
	require.Equal(t, before, after)
	require.Equal(t, before, middle)

	// "--" ends the flags: what follows is a number, even if it looks like a flag.
	code, out, errOut := runCLI(t, nil, "nt", "--format", "csv", "--", "-x", "--format")
	require.Equal(t, exitOK, code, errOut)
	rows := readCSV(t, out)
	require.Len(t, rows, 3)
	require.Equal(t, "-x", rows[1][0])
	require.Equal(t, "--format", rows[2][0])
}

func readCSV(t *testing.T, out string) [][]string {
	t.Helper()
	r := csv.NewReader(strings.NewReader(out))
	r.FieldsPerRecord = len(csvColumns) // every row has every column
	rows, err := r.ReadAll()
	require.NoError(t, err)
	return rows
}

// variedNumbers cover the shapes of result: valid of several types, invalid
// with a country, failed, vanity, non-geographic, many time zones, quotes
// and commas in the input.
var variedNumbers = []string{
	"+49 151 23456789", "+44 20 7946 0000", "+1 800 FLOWERS", "hello",
	"+1 212 555 0100", "+800 1234 5678", "+61 2 9999 9999", "+4930",
	"+49 1", "+999 123", "0151 23456789", `"+49, 151"`, "", "+44 (0)20 7946 0000",
	"+33 6 12 34 56 78", "+81 90 1234 5678", "+7 912 345 67 89",
}

func TestNTCSV(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, nil, append([]string{"nt", "--format", "csv"}, variedNumbers...)...)
	require.Equal(t, exitOK, code, errOut)
	rows := readCSV(t, out)
	require.Len(t, rows, 1+len(variedNumbers))
	require.Equal(t, csvColumns[:], rows[0])
	require.Equal(t, []string{"+4915123456789", "MOBILE", "OK", "true"}, rows[1][:4])
	require.Equal(t, "DE", rows[1][13])
}

// TestCSVMatchesJSON holds the CSV format to the JSON one: the header is
// the JSON keys in their order, and each cell is the JSON value with null
// empty and lists joined with "|".
func TestCSVMatchesJSON(t *testing.T) {
	t.Parallel()
	_, jsonOut, _ := runCLI(t, nil, append([]string{"nt"}, variedNumbers...)...)
	_, csvOut, _ := runCLI(t, nil, append([]string{"nt", "--format=csv"}, variedNumbers...)...)
	rows := readCSV(t, csvOut)
	lines := strings.Split(strings.TrimSuffix(jsonOut, "\n"), "\n")
	require.Len(t, lines, len(rows)-1)
	for i, line := range lines {
		keys, values := jsonObject(t, line)
		require.Equal(t, rows[0], keys, "CSV header and JSON keys of %q", variedNumbers[i])
		require.Equal(t, values, rows[i+1], "CSV row and JSON values of %q", variedNumbers[i])
	}
}

// jsonObject returns the keys of a flat JSON object in order, and its
// values as CSV cells.
func jsonObject(t *testing.T, line string) (keys, cells []string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, tok.(string))
		var v any
		require.NoError(t, dec.Decode(&v))
		switch v := v.(type) {
		case nil:
			cells = append(cells, "")
		case string:
			cells = append(cells, v)
		case bool:
			cells = append(cells, fmt.Sprint(v))
		case []any:
			items := make([]string, len(v))
			for i, item := range v {
				items[i] = item.(string)
			}
			cells = append(cells, strings.Join(items, "|"))
		default:
			t.Fatalf("unexpected JSON value %#v in %s", v, line)
		}
	}
	return keys, cells
}

func TestNTTable(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, nil, "nt", "--format", "table",
		"+49 151 23456789", "+44 20 7946 0000", "+1 800 FLOWERS", "hel\tlo\x1b[2J")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 5)
	require.Equal(t, []string{"NUMBER", "TYPE", "VALID", "REASON", "COUNTRY", "NETWORK", "REGIONS", "TIME", "ZONES"}, strings.Fields(lines[0]))
	require.Equal(t, []string{"+4915123456789", "MOBILE", "yes", "-", "DE"}, strings.Fields(lines[1])[:5])
	require.Equal(t, []string{"+442079460000", "LANDLINE", "yes", "-", "GB"}, strings.Fields(lines[2])[:5])
	require.Contains(t, lines[3], "+40 more", "long lists are shortened")
	require.Contains(t, lines[4], `"hel\tlo\x1b[2J"`, "control characters are quoted")
	// Aligned: every column starts at the same offset in every line.
	col := strings.Index(lines[0], "TYPE")
	for _, line := range lines[1:] {
		require.Equal(t, "  ", line[col-2:col], line)
		require.NotEqual(t, ' ', line[col], line)
	}
}

// numberLines makes n lines of German mobile numbers in assorted shapes,
// with blank lines and CRLF endings among them, and the E.164 numbers the
// results must show, in order.
func numberLines(n int) (input string, want []string) {
	var b strings.Builder
	for i := range n {
		e164 := fmt.Sprintf("+49151%08d", i)
		want = append(want, e164)
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "%s\n", e164)
		case 1:
			fmt.Fprintf(&b, "49151%08d\r\n", i) // MSISDN, CRLF
		case 2:
			fmt.Fprintf(&b, "\n  +49 151 %08d  \n\r\n", i) // blank lines around
		case 3:
			fmt.Fprintf(&b, "0049-151-%08d\n", i)
		case 4:
			fmt.Fprintf(&b, "+49 (151) %08d", i) // the last line may have no newline
			if i != n-1 {
				b.WriteString("\n")
			}
		}
	}
	return b.String(), want
}

func TestNTStdinStreaming(t *testing.T) {
	t.Parallel()
	input, want := numberLines(5000)
	code, out, errOut := runCLI(t, strings.NewReader(input), "nt")
	require.Equal(t, exitOK, code, errOut)
	require.Empty(t, errOut)
	got := decodeJSONLines(t, out)
	require.Len(t, got, len(want), "one result per non-blank line")
	for i, r := range got {
		require.Equal(t, want[i], r.Number, "result %d", i)
		require.Equal(t, "MOBILE", r.Type, "result %d", i)
	}

	code, out, _ = runCLI(t, strings.NewReader(input), "nt", "--format", "csv")
	require.Equal(t, exitOK, code)
	rows := readCSV(t, out)
	require.Len(t, rows, 1+len(want))
	for i, row := range rows[1:] {
		require.Equal(t, want[i], row[0])
	}

	code, out, _ = runCLI(t, strings.NewReader(input), "nt", "--format", "table")
	require.Equal(t, exitOK, code)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 1+len(want))
	for i, line := range lines[1:] {
		require.True(t, strings.HasPrefix(line, want[i]+" "), "row %d: %q", i, line)
	}
}

func TestNTStdinLongLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("1", 100_000)
	medium := "+49" + strings.Repeat("1", 300) // over ClassifyString's limit, under the line limit
	blankThenJunk := strings.Repeat(" ", 2*maxLineLength) + "x"
	input := "+4915123456789\n" + long + "\n" + medium + "\r\n" + blankThenJunk + "\n" +
		"+442079460000\n" + long // last, without a newline
	code, out, errOut := runCLI(t, strings.NewReader(input), "nt")
	require.Equal(t, exitOK, code, errOut)
	got := decodeJSONLines(t, out)
	require.Len(t, got, 6)
	require.Equal(t, "+4915123456789", got[0].Number)
	require.Equal(t, "+442079460000", got[4].Number)
	for _, i := range []int{1, 2, 3, 5} {
		require.Equal(t, "FAILED", got[i].Status, "line %d", i+1)
		require.Equal(t, ptr("too long"), got[i].Reason, "line %d", i+1)
	}
	require.Equal(t, strings.Repeat("1", tooLongEcho)+"…", got[1].Number, "an over-long line is echoed shortened")
	require.Equal(t, medium, got[2].Number)
	require.Equal(t, "…", got[3].Number)
}

// TestTooLongLikeClassifyString holds the result made up for an over-long
// line to what the library says about any input over its limit.
func TestTooLongLikeClassifyString(t *testing.T) {
	t.Parallel()
	for _, s := range []string{strings.Repeat("1", maxLineLength+1), "+49" + strings.Repeat("5", maxLineLength)} {
		want := testPlan(t).ClassifyString(s)
		got := tooLong([]byte(s))
		want.Input, got.Input = "", ""
		require.Equal(t, want, got)
	}
	// The echo is cut at a character boundary.
	got := tooLong([]byte(strings.Repeat("ä", tooLongEcho)))
	require.Equal(t, strings.Repeat("ä", tooLongEcho/2)+"…", got.Input)
	got = tooLong([]byte("x" + strings.Repeat("ä", tooLongEcho)))
	require.Equal(t, "x"+strings.Repeat("ä", tooLongEcho/2-1)+"…", got.Input)
}

func TestNTStdinBOMAndEmpty(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, strings.NewReader("\ufeff+4915123456789\n"), "nt")
	require.Equal(t, exitOK, code)
	got := decodeJSONLines(t, out)
	require.Len(t, got, 1)
	require.True(t, got[0].Valid, "a byte order mark is not part of the first number")

	for _, input := range []string{"", "\n", " \r\n\n\t\n"} {
		code, out, errOut := runCLI(t, strings.NewReader(input), "nt")
		require.Equal(t, exitOK, code)
		require.Empty(t, out, "%q", input)
		require.Empty(t, errOut)
		code, out, _ = runCLI(t, strings.NewReader(input), "nt", "--format", "csv")
		require.Equal(t, exitOK, code)
		require.Equal(t, strings.Join(csvColumns[:], ",")+"\n", out, "the header is written even without rows")
	}
}

// failingReader returns its data, then an error.
type failingReader struct {
	data string
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestNTStdinReadError(t *testing.T) {
	t.Parallel()
	in := &failingReader{data: "+4915123456789\n+442079460000\n", err: errors.New("disk on fire")}
	code, out, errOut := runCLI(t, in, "nt")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "reading standard input: disk on fire")
	require.Len(t, decodeJSONLines(t, out), 2, "results read before the error are written")
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

func TestNTWriteError(t *testing.T) {
	t.Parallel()
	input, _ := numberLines(20_000) // more than the output buffer holds
	for _, format := range formatNames {
		for _, stdin := range []io.Reader{strings.NewReader(input), strings.NewReader("")} {
			args := []string{"nt", "--format", format}
			if stdin.(*strings.Reader).Len() == 0 {
				args = append(args, "+4915123456789")
			}
			var errOut bytes.Buffer
			c := &cli{stdin: stdin, stdout: failingWriter{}, stderr: &errOut, loadPlan: sharedPlan}
			require.Equal(t, exitError, c.run(args), "%v", args)
			require.Contains(t, errOut.String(), "writing output: no space left on device")
		}
	}
}

func TestLineSplitter(t *testing.T) {
	t.Parallel()
	const max = 8
	tests := []struct {
		input string
		lines []string // truncated lines end in "~"
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\nb\n", []string{"a", "b"}},
		{"a\r\nb\r\n\r\n", []string{"a", "b", ""}},
		{"12345678\n", []string{"12345678"}},
		{"123456789\nb", []string{"12345678~", "b"}},
		{"123456789", []string{"12345678~"}},
		{"a\n" + strings.Repeat("x", 100) + "\nb\n", []string{"a", "xxxxxxxx~", "b"}},
		{strings.Repeat("x", 100), []string{"xxxxxxxx~"}},
		{strings.Repeat("x", 100) + "\n" + strings.Repeat("y", 9) + "\n\n", []string{"xxxxxxxx~", "yyyyyyyy~", ""}},
		{"a\r", []string{"a"}},
	}
	for _, tt := range tests {
		for _, bufSize := range []int{max + 1, max + 3, 64} {
			// A reader that returns a byte at a time tests every split point.
			for _, in := range []io.Reader{strings.NewReader(tt.input), &oneByteReader{s: tt.input}} {
				s := lineSplitter{max: max}
				sc := bufio.NewScanner(in)
				sc.Buffer(make([]byte, bufSize), bufSize)
				sc.Split(s.split)
				var lines []string
				for sc.Scan() {
					line := sc.Text()
					if s.truncated {
						line += "~"
					}
					lines = append(lines, line)
				}
				require.NoError(t, sc.Err(), "%q", tt.input)
				require.Equal(t, tt.lines, lines, "%q buffer %d", tt.input, bufSize)
				require.Equal(t, int64(len(tt.input)), s.consumed, "%q buffer %d", tt.input, bufSize)
			}
		}
	}
}

type oneByteReader struct{ s string }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.s[0]
	r.s = r.s[1:]
	return 1, nil
}

// TestClassifyLineNoAllocs checks that the standard input loop adds no
// allocation per number to the library's in the JSON format. (ClassifyString
// itself allocates nothing for most numbers; that is tested in numbering.)
func TestClassifyLineNoAllocs(t *testing.T) {
	// Not parallel: testing.AllocsPerRun counts the whole process's
	// allocations.
	plan := testPlan(t)
	out := bufio.NewWriter(io.Discard)
	lc := lineClassifier{plan: plan, w: newResultWriter(formatJSON, out)}
	lines := []string{
		"+4915123456789", " +44 20 7946 0000\r", "+1 800 FLOWERS", "hello", "+800 1234 5678",
		"+1 212 555 0100 and then a good deal more text, more than fits in a small buffer",
	}
	for _, s := range lines {
		line := []byte(s)
		trimmed := strings.TrimSpace(s)
		library := testing.AllocsPerRun(100, func() { _ = plan.ClassifyString(trimmed) })
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := lc.classify(line, false); err != nil {
				t.Fatal(err)
			}
		})
		require.Equal(t, library, allocs, "%q: allocations of the loop beyond ClassifyString's", s)
	}
}

func BenchmarkClassifyLine(b *testing.B) {
	input, _ := numberLines(1000)
	lines := bytes.Split([]byte(input), []byte("\n"))
	for _, format := range []outputFormat{formatJSON, formatCSV, formatTable} {
		b.Run(format.String(), func(b *testing.B) {
			lc := lineClassifier{plan: testPlan(b), w: newResultWriter(format, bufio.NewWriter(io.Discard))}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := lc.classify(lines[i%len(lines)], false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestIsTerminal(t *testing.T) {
	t.Parallel()
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	require.False(t, isTerminal(null), "the null device is a character device but no terminal")

	file := filepath.Join(t.TempDir(), "numbers.txt")
	require.NoError(t, os.WriteFile(file, bytes.Repeat([]byte("+4915123456789\n"), progressMinSize/10), 0o644))
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	require.False(t, isTerminal(f))
	require.False(t, isTerminal(&bytes.Buffer{}))
	require.False(t, isTerminal((*os.File)(nil)))

	// A large file, but no one watching standard error: no progress bar.
	_, ok := progressWanted(f, &bytes.Buffer{}, null)
	require.False(t, ok)
	_, ok = progressWanted(strings.NewReader("x"), &bytes.Buffer{}, &bytes.Buffer{})
	require.False(t, ok)
}
