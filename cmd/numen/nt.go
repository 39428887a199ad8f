package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
	"unsafe"

	"github.com/numenhq/numen/numbering"
	"golang.org/x/term"
)

const ntUsage = `Usage: numen nt [--format json|csv|table] [--country CC] [NUMBER...]

Classifies each NUMBER and prints one result per number: its type, validity
(and why not), country, original network, regions and time zones. Numbers are
in international format: +49 151 23456789, 004915123456789 or the MSISDN
4915123456789. With --country, numbers are read as written or dialled in
that country instead, as libphonenumber reads them: numen nt --country DE
"0151 23456789" "00 44 20 7946 0000" "+1 201 555 0123". Invalid numbers are
results too: the exit status is 0 when all input was processed.

Without NUMBER arguments, numen nt reads numbers from standard input, one per
line, and streams the results in the order of the input; blank lines are
skipped, every other line gives exactly one result:

  numen nt < numbers.txt > results.jsonl

Flags (before or after the numbers; "--" ends them):
  --format json    one JSON object per line (JSON Lines), with the lookup
                   API's NT attribute names; unknown values are null (default)
  --format csv     a header line, then one row per number; the columns are
                   the JSON attributes in the same order, lists joined with
                   "|", unknown values empty
  --format table   aligned columns for reading in a terminal
  --country CC     read national format, and CC's international prefixes, of
                   country CC (ISO 3166-1 alpha-2, such as DE or US); numbers
                   with "+" are international whatever CC is
`

const (
	// scanBufferSize is the input buffer of the standard input loop: the
	// most memory it holds, whatever the input.
	scanBufferSize = 64 << 10
	// maxLineLength is the longest input line classified as it is. A longer
	// line is cut short and reported as "too long", without reading the
	// rest of it into memory. It must be less than scanBufferSize.
	maxLineLength = 4 << 10
	// tooLongEcho is how much of an over-long line its result repeats.
	tooLongEcho = 64
	// progressMinSize is the smallest input file that gets a progress bar.
	progressMinSize = 1 << 20
)

func (c *cli) nt(args []string) int {
	fs := newFlagSet("nt")
	format := formatJSON
	fs.Var(&format, "format", "")
	country := fs.String("country", "", "")
	numbers, code, ok := c.parseInterleaved(fs, "nt", ntUsage, args)
	if !ok {
		return code
	}

	plan, err := c.plan("")
	if err != nil {
		fmt.Fprintf(c.stderr, "numen nt: loading numbering data: %v\n", err)
		return exitError
	}
	if err := checkCountry(plan, *country); err != nil {
		return c.usageError("nt", "--country %q: %v", *country, err)
	}
	out := bufio.NewWriterSize(c.stdout, 64<<10)
	w := newResultWriter(format, out)
	lc := lineClassifier{plan: plan, w: w, country: *country}
	if len(numbers) > 0 {
		err = classifyArgs(&lc, numbers)
	} else {
		err = c.classifyStdin(&lc)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "numen nt: %v\n", err)
		return exitError
	}
	return exitOK
}

func classifyArgs(lc *lineClassifier, numbers []string) error {
	w := lc.w
	if err := w.header(); err != nil {
		return writeError(err)
	}
	for _, s := range numbers {
		res := lc.result(s)
		if err := w.write(&res); err != nil {
			return writeError(err)
		}
	}
	if err := w.flush(); err != nil {
		return writeError(err)
	}
	return nil
}

func writeError(err error) error { return fmt.Errorf("writing output: %w", err) }

// classifyStdin streams standard input through the classifier in constant
// memory. Results already classified are written out even when reading
// fails part way.
func (c *cli) classifyStdin(lc *lineClassifier) error {
	w := lc.w
	interactive := isTerminal(c.stdin)
	if interactive {
		fmt.Fprintln(c.stderr, "numen nt: reading numbers from standard input, one per line (end with Ctrl-D)")
		w.flushEach = true
	}
	var prog *progress
	if total, ok := progressWanted(c.stdin, c.stdout, c.stderr); ok {
		prog = newProgress(c.stderr, total, time.Now)
	}

	if err := w.header(); err != nil {
		return writeError(err)
	}
	var count int64
	err := eachLine(c.stdin, func(line []byte, truncated bool, consumed int64) error {
		wrote, err := lc.classify(line, truncated)
		if err != nil {
			return writeError(err)
		}
		if wrote {
			count++
			prog.update(consumed, count)
		}
		return nil
	})
	prog.finish()
	var input *inputError
	if err != nil && !errors.As(err, &input) {
		return err
	}
	if err := w.flush(); err != nil {
		return writeError(err)
	}
	return err // nil, or the input's error after what was read is out
}

// inputError is a failure to read the input (eachLine), as opposed to one
// of writing the answers.
type inputError struct{ err error }

func (e *inputError) Error() string { return "reading standard input: " + e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// eachLine calls fn with each line of r, read in constant memory by a
// lineSplitter, as numen nt, format and short read their input: the first
// line without its byte-order mark; truncated reports the start of a line
// longer than maxLineLength (the rest is dropped); consumed counts the
// input's bytes so far. line shares the scanner's buffer until fn returns.
// An error of fn stops the reading and is returned; a failure to read is
// an *inputError.
func eachLine(r io.Reader, fn func(line []byte, truncated bool, consumed int64) error) error {
	split := lineSplitter{max: maxLineLength}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, scanBufferSize), scanBufferSize)
	sc.Split(split.split)
	for first := true; sc.Scan(); first = false {
		line := sc.Bytes()
		if first {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		if err := fn(line, split.truncated, split.consumed); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return &inputError{err}
	}
	return nil
}

var utf8BOM = []byte("\ufeff")

// lineClassifier classifies lines of input and writes their results.
type lineClassifier struct {
	plan    *numbering.Plan
	w       *resultWriter
	country string // the default region (--country), checked; "" for international input only
}

// result classifies one number, in the default region when there is one.
func (lc *lineClassifier) result(s string) numbering.Result {
	if lc.country == "" {
		return lc.plan.ClassifyString(s)
	}
	res, _ := lc.plan.ClassifyIn(s, lc.country) // the region was checked: no error
	return res
}

// checkCountry checks a --country flag: "" (none) or a region whose
// national input the plan reads; the error is ClassifyIn's.
func checkCountry(plan *numbering.Plan, country string) error {
	if country == "" {
		return nil
	}
	_, err := plan.ValidateIn("", country)
	return err
}

// classify classifies one line of input, without its line ending, and
// writes the result; it reports whether there was one (a blank line has
// none). truncated says the line is only the start of a longer line. In the
// JSON format it allocates nothing.
func (lc *lineClassifier) classify(line []byte, truncated bool) (wrote bool, err error) {
	var res numbering.Result
	if truncated {
		res = tooLong(bytes.TrimSpace(line))
	} else {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			return false, nil
		}
		// string(line) would copy every line to the heap, as the result
		// goes on to the writer. Instead the string shares the scanner's
		// buffer: res, and with it the string, is dropped before the next
		// Scan overwrites the buffer, and the writers copy what they keep.
		res = lc.result(unsafe.String(&line[0], len(line)))
	}
	return true, lc.w.write(&res)
}

// tooLong is the result of a line too long to read whole, which begins
// with start. It is what ClassifyString gives for any input over its
// length limit (the tests check that), except that the number echoed back
// is the start of the line marked with an ellipsis.
func tooLong(start []byte) numbering.Result {
	n := min(len(start), tooLongEcho)
	for n > 0 && n < len(start) && !utf8RuneStart(start[n]) {
		n--
	}
	return numbering.Result{
		Input:  string(start[:n]) + "…",
		Status: numbering.StatusFailed,
		Reason: numbering.InputTooLong,
	}
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// lineSplitter is a bufio.SplitFunc for lines of any length in bounded
// memory. Lines are split at "\n" with a "\r" before it dropped. A line
// longer than max gives a token of its first max bytes with truncated set,
// and the rest of it is skipped as it arrives, never held whole: no line
// is lost, and none stops the scan with bufio.ErrTooLong.
type lineSplitter struct {
	max int // longest line returned whole; less than the scanner's buffer size

	consumed  int64 // input bytes consumed so far, for progress
	truncated bool  // the last token is the start of an over-long line
	skipping  bool  // dropping the rest of an over-long line
}

func (s *lineSplitter) split(data []byte, atEOF bool) (advance int, token []byte, err error) {
	s.truncated = false
	skipped := 0
	if s.skipping {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			s.consumed += int64(len(data))
			return len(data), nil, nil
		}
		s.skipping = false
		skipped = i + 1
		data = data[skipped:]
	}
	i := bytes.IndexByte(data, '\n')
	switch {
	case i > s.max || i < 0 && len(data) > s.max:
		s.truncated = true
		token = data[:s.max]
		if i >= 0 {
			advance = skipped + i + 1
		} else {
			advance, s.skipping = skipped+len(data), !atEOF
		}
	case i >= 0:
		advance, token = skipped+i+1, dropCR(data[:i])
	case atEOF && len(data) > 0:
		advance, token = skipped+len(data), dropCR(data)
	default:
		advance = skipped // ask for more input
	}
	s.consumed += int64(advance)
	return advance, token, nil
}

func dropCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// progressWanted reports whether the standard input loop shows a progress
// bar, and the size of the input: only when someone watches (standard error
// is a terminal, standard output is not, or the bar and the results would
// mix) and the input is a file large enough to wait for.
func progressWanted(stdin io.Reader, stdout, stderr io.Writer) (total int64, ok bool) {
	f, isFile := stdin.(*os.File)
	if !isFile || !isTerminal(stderr) || isTerminal(stdout) {
		return 0, false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() <= progressMinSize {
		return 0, false
	}
	return st.Size(), true
}

// isTerminal reports whether v is a terminal: an *os.File that
// golang.org/x/term says is one (the null device, a file or a pipe is not).
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok || f == nil {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}
