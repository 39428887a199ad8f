package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/numenhq/numen/numbering"
	"github.com/stretchr/testify/require"
)

// findGoldenText is what TestFindGolden searches: numbers of several
// countries written nationally and internationally in prose and a table,
// with dates, times, prices, an extension and digits that are no number.
const findGoldenText = `Call 030 1234567 or +44 20 7946 0000 (office) before 3/10/2011.
Mobile: 0151 23456789 ext. 12 | fax (089) 1234-5678 | price €1,234.56, 15% off
Ada	+1 650-253-0000	2024-05-12 08:00
Alan	+33 6 12 34 56 78	ISBN 978-3-16-148410-0
pages 211-227 (2003); abc08912345678def; 0800 123 4567 free
`

// TestFindGolden runs numen find over findGoldenText at each leniency in
// DE and without a country, and compares the output with
// testdata/find.golden (go test ./cmd/numen -update rewrites it).
func TestFindGolden(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for _, country := range []string{"DE", ""} {
		for _, l := range []string{"possible", "valid", "strict-grouping", "exact-grouping"} {
			args := []string{"find", "--leniency", l}
			if country != "" {
				args = append(args, "--country", country)
			}
			code, out, errOut := runCLI(t, strings.NewReader(findGoldenText), args...)
			require.Equal(t, exitOK, code, errOut)
			require.Empty(t, errOut)
			fmt.Fprintf(&all, "# %s\n%s", strings.Join(args, " "), out)
		}
	}
	golden(t, "find.golden", all.String())

	// Every line is {"start","end","raw", then numen nt's members, as nt
	// writes them for the raw text.
	_, out, _ := runCLI(t, strings.NewReader(findGoldenText), "find", "--country", "DE")
	for line := range strings.Lines(out) {
		var m struct {
			Start, End int
			Raw        string
		}
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		require.Equal(t, findGoldenText[m.Start:m.End], m.Raw)
		require.True(t, strings.HasPrefix(line, fmt.Sprintf(`{"start":%d,"end":%d,"raw":`, m.Start, m.End)), line)
		_, nt, _ := runCLI(t, nil, "nt", "--country", "DE", m.Raw)
		if !strings.Contains(m.Raw, "ext") {
			require.True(t, strings.HasSuffix(line, nt[1:]), "find:\n%s\nnt:\n%s", line, nt)
		}
	}
}

// TestFindFiles: files are searched in turn, each line names its file,
// offsets count from the start of each file.
func TestFindFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	require.NoError(t, os.WriteFile(a, []byte("Call +49 30 1234567."), 0o644))
	require.NoError(t, os.WriteFile(b, []byte("x\n(030) 1234567"), 0o644))
	code, out, errOut := runCLI(t, nil, "find", "--country", "DE", a, b)
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 2)
	aj, _ := json.Marshal(a)
	bj, _ := json.Marshal(b)
	require.True(t, strings.HasPrefix(lines[0], `{"file":`+string(aj)+`,"start":5,"end":19,"raw":"+49 30 1234567","number":"+49301234567",`), lines[0])
	require.True(t, strings.HasPrefix(lines[1], `{"file":`+string(bj)+`,"start":2,"end":15,"raw":"(030) 1234567",`), lines[1])
}

// TestFindErrors: each error names its cause.
func TestFindErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"find", "--country", "XX"}, exitUsage, `numen find: --country "XX": numbering: unknown region "XX"`},
		{[]string{"find", "--leniency", "loose"}, exitUsage, `numen find: --leniency "loose": unknown leniency: want possible, valid, strict-grouping or exact-grouping`},
		{[]string{"find", "--colour", "red"}, exitUsage, "unknown flag --colour"},
		{[]string{"find", filepath.Join(t.TempDir(), "missing.txt")}, exitError, "missing.txt: no such file or directory"},
	} {
		code, out, errOut := runCLI(t, nil, tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, errOut)
		require.Empty(t, out)
		require.Contains(t, errOut, tc.want, "%v", tc.args)
	}
	code, out, _ := runCLI(t, nil, "help", "find")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "Usage: numen find")
}

// findStreamText generates text of about size bytes: lines of prose with
// numbers of several countries, dates, prices and other digits, and now and
// then a line longer than a chunk, cut only at "|" (a safe character).
func findStreamText(size int) string {
	rng := rand.New(rand.NewPCG(7, 7))
	parts := []string{
		"Call", "030 1234567", "+44 20 7946 0000", "(650) 253-0000", "0151 23456789 ext. 12", "on 3/10/2011",
		"at 2012-01-02 08:00", "$1,234.56", "15%", "+1 650 253 0000", "00 33 6 12 34 56 78", "abc", "ISBN 978-3-16-148410-0",
		"|", "|", "211-227 (2003)", "+49 (0) 89 1234-5678", "0800 123 4567", "١٢٣٤٥٦٧٨٩٠", "+٤٩ ٣٠ ١٢٣٤٥٦٧", "the", "and",
	}
	var b strings.Builder
	long := 0
	for b.Len() < size {
		b.WriteString(parts[rng.IntN(len(parts))])
		switch r := rng.IntN(12); {
		case long > 0:
			long--
			b.WriteByte(' ')
		case r == 0:
			b.WriteString("\r\n")
		case r == 1:
			b.WriteByte('\n')
			if rng.IntN(20) == 0 {
				long = findChunk / 8 // a line of about twice a chunk
			}
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// ragged reads at most a random few kilobytes at a time, as a pipe may.
type ragged struct {
	r   io.Reader
	rng *rand.Rand
}

func (r *ragged) Read(p []byte) (int, error) {
	return r.r.Read(p[:min(len(p), 1+r.rng.IntN(96<<10))])
}

// TestFindStreamsLikeWholeText: numen find reads its input in chunks, and
// finds exactly what Find finds in the whole text, at the same offsets,
// for text several chunks long with long lines, read in ragged pieces.
func TestFindStreamsLikeWholeText(t *testing.T) {
	t.Parallel()
	text, leniencies := findStreamText(4*findChunk), []numbering.Leniency{numbering.LeniencyPossible, numbering.LeniencyValid, numbering.LeniencyExactGrouping}
	if raceDetector {
		text, leniencies = text[:5*findChunk/2], leniencies[1:2]
	}
	p := testPlan(t)
	for _, l := range leniencies {
		seq, err := p.Find(text, "DE", l)
		require.NoError(t, err)
		var want []string
		for m := range seq {
			want = append(want, fmt.Sprintf("%d %d %q", m.Start, m.End, m.Raw))
		}
		require.NotEmpty(t, want)
		var out strings.Builder
		tf := &textFinder{plan: p, country: "DE", leniency: l, out: bufio.NewWriter(&out)}
		require.NoError(t, tf.search(&ragged{strings.NewReader(text), rand.New(rand.NewPCG(uint64(l), 1))}, ""))
		require.NoError(t, tf.out.Flush())
		var got []string
		for line := range strings.Lines(out.String()) {
			var m struct {
				Start, End int
				Raw        string
			}
			require.NoError(t, json.Unmarshal([]byte(line), &m))
			got = append(got, fmt.Sprintf("%d %d %q", m.Start, m.End, m.Raw))
		}
		require.Equal(t, len(want), len(got), "%v: matches", l)
		require.Equal(t, want, got, "%v", l)
	}
}

// endless yields n bytes of text made of one piece repeated, without
// holding them.
type endless struct {
	piece string
	n     int64
	at    int
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && e.n > 0 {
		c := copy(p[k:min(len(p), k+int(min(e.n, int64(len(p)))))], e.piece[e.at:])
		k += c
		e.n -= int64(c)
		e.at = (e.at + c) % len(e.piece)
	}
	return k, nil
}

// TestFindConstantMemory: 64 MiB of text (16 under the race detector) cost
// numen find its chunk buffer and a little per chunk, not memory in
// proportion to the input.
func TestFindConstantMemory(t *testing.T) {
	// Not parallel: it counts the whole process's allocations.
	if testing.Short() {
		t.Skip("64 MiB of text")
	}
	p := testPlan(t)
	tf := &textFinder{plan: p, country: "DE", leniency: numbering.LeniencyValid, out: bufio.NewWriter(io.Discard)}
	piece := "Call 030 1234567 or +44 20 7946 0000 (office), not 3/10/2011.\n"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	size := int64(64 << 20)
	if raceDetector {
		size = 16 << 20
	}
	require.NoError(t, tf.search(&endless{piece: piece, n: size}, ""))
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	require.Less(t, allocated, uint64(8<<20), "allocated %d bytes for %d MiB of text", allocated, size>>20)
}
