package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"unsafe"

	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/textfmt"
)

const findUsage = `Usage: numen find [--country CC] [--leniency L] [FILE...]

Finds the phone numbers in text, as libphonenumber's findNumbers does, and
prints one JSON object per number found (JSON Lines): its byte offsets in
the input ("start", "end": the number is bytes start to end-1), the text
as written ("raw"), then the NT attributes of numen nt --format json:

  echo 'Call 030 1234567 or +44 20 7946 0000 today.' | numen find --country DE

Numbers in national format are read as written in country CC; without
--country only numbers in international format with "+" are found. With
FILE arguments each file is searched in turn and every object starts with
its "file"; without them, standard input is. Input of any size is searched
in constant memory.

Flags (before or after the files; "--" ends them):
  --country CC   the country whose national format the text is in
                 (ISO 3166-1 alpha-2, such as DE or US)
  --leniency L   how sure a number must be (libphonenumber's leniency):
                 possible       a number of a possible length
                 valid          a valid number; in national format with
                                the trunk prefix where one is written;
                                not touching Latin letters (default)
                 strict-grouping  valid, digits grouped as the number's
                                formats group them or more coarsely
                 exact-grouping valid, digits grouped exactly as a format
                                writes them, or not at all
`

// findChunk is the most text numen find holds: the input is searched in
// chunks of at most this many bytes, cut where no number can cross (see
// textFinder).
const findChunk = 1 << 20

func (c *cli) find(args []string) int {
	fs := newFlagSet("find")
	country := fs.String("country", "", "")
	leniencyName := fs.String("leniency", "valid", "")
	files, code, ok := c.parseInterleaved(fs, "find", findUsage, args)
	if !ok {
		return code
	}
	leniency, err := numbering.ParseLeniency(*leniencyName)
	if err != nil {
		return c.usageError("find", "--leniency %q: unknown leniency: want possible, valid, strict-grouping or exact-grouping", *leniencyName)
	}
	plan, err := c.plan("")
	if err != nil {
		fmt.Fprintf(c.stderr, "numen find: loading numbering data: %v\n", err)
		return exitError
	}
	if _, err := plan.Find("", *country, leniency); err != nil {
		return c.usageError("find", "--country %q: %v", *country, err)
	}
	out := bufio.NewWriterSize(c.stdout, 64<<10)
	tf := &textFinder{plan: plan, country: *country, leniency: leniency, out: out}
	if isTerminal(c.stdin) && len(files) == 0 {
		fmt.Fprintln(c.stderr, "numen find: reading text from standard input (end with Ctrl-D)")
		tf.flushEach = true
	}
	if len(files) == 0 {
		err = tf.search(c.stdin, "")
	}
	for _, name := range files {
		if err = c.findInFile(tf, name); err != nil {
			break
		}
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = writeError(ferr)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "numen find: %v\n", err)
		return exitError
	}
	return exitOK
}

func (c *cli) findInFile(tf *textFinder, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, unwrapPathError(err))
	}
	defer f.Close()
	return tf.search(f, name)
}

// unwrapPathError drops the *os.PathError's repetition of the file name.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// textFinder searches text read from a reader for phone numbers and writes
// one JSON line per number.
//
// The text is searched in chunks of at most findChunk bytes, each cut just
// after a line end, or, in a longer line, after a character that no number
// found can contain, start after or end before (cutSafe): libphonenumber's
// candidates are digits, their punctuation, leading brackets and plus
// signs and extensions, none of which spans a line end or such a
// character, and what it checks around a candidate (the characters just
// before and after it, a time after it) is the same whether that character
// or the chunk's edge stands there. So the matches are those of Find over
// the whole text, at the same offsets. A line longer than findChunk without
// any such character is cut where the chunk is full; numbers across that
// cut may be missed.
type textFinder struct {
	plan      *numbering.Plan
	country   string
	leniency  numbering.Leniency
	out       *bufio.Writer
	flushEach bool

	buf  []byte // the chunk being read; findChunk bytes once allocated
	line []byte // the JSON line being built
}

// search writes the numbers of r; file, when not "", names the input in
// the output.
func (tf *textFinder) search(r io.Reader, file string) error {
	if tf.buf == nil {
		tf.buf = make([]byte, 0, findChunk)
		tf.line = make([]byte, 0, 1024)
	}
	buf := tf.buf[:0]
	var base int64 // offset of buf[0] in the input
	for eof := false; !eof || len(buf) > 0; {
		if !eof {
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			switch {
			case err == io.EOF:
				eof = true
			case err != nil:
				name := "standard input"
				if file != "" {
					name = file
				}
				return fmt.Errorf("reading %s: %w", name, err)
			}
		}
		cut := len(buf)
		if !eof {
			if cut = lastCut(buf); cut == 0 && len(buf) < cap(buf) {
				continue // no place to cut yet: read on
			}
			if cut == 0 {
				cut = runeStartBefore(buf, len(buf)) // a full chunk without one
			}
		}
		if err := tf.chunk(buf[:cut], base, file); err != nil {
			return err
		}
		base += int64(cut)
		buf = buf[:copy(buf, buf[cut:])]
	}
	return nil
}

// runeStartBefore returns the start of the character at or before i,
// when it is one of the last few bytes.
func runeStartBefore(b []byte, i int) int {
	for k := i; k > 0 && k > i-4; k-- {
		if k < len(b) && utf8RuneStart(b[k]) {
			return k
		}
	}
	return i
}

// lastCut returns where to end the chunk buf: after its last line end, or
// after its last other safe character; 0 when it has none.
func lastCut(buf []byte) int {
	for i := len(buf) - 1; i >= 0; i-- {
		if buf[i] == '\n' {
			return i + 1
		}
	}
	for i := len(buf) - 1; i >= 0; i-- {
		if cutSafe[buf[i]] {
			return i + 1
		}
	}
	return 0
}

// cutSafe marks the ASCII characters after which text can be cut without
// changing the numbers found: none is in a candidate (digits, punctuation,
// brackets, plus signs, extension labels and their separators), none is a
// letter, "%" or a currency sign, which a number may not touch, and none
// is the ":" of a time after a candidate.
var cutSafe = func() (t [256]bool) {
	for _, c := range []byte("\n\r\v\f\x00!\"&'*<>?@^_`{|}") {
		t[c] = true
	}
	return t
}()

// chunk writes the numbers of one chunk of text, which starts at base.
func (tf *textFinder) chunk(b []byte, base int64, file string) error {
	if len(b) == 0 {
		return nil
	}
	// The text shares the read buffer: matches are written out before the
	// buffer is read into again.
	text := unsafe.String(&b[0], len(b))
	matches, err := tf.plan.Find(text, tf.country, tf.leniency)
	if err != nil {
		return err
	}
	for m := range matches {
		l := append(tf.line[:0], '{')
		if file != "" {
			l = append(l, `"file":`...)
			l = textfmt.AppendJSONString(l, file)
			l = append(l, ',')
		}
		l = append(l, `"start":`...)
		l = strconv.AppendInt(l, base+int64(m.Start), 10)
		l = append(l, `,"end":`...)
		l = strconv.AppendInt(l, base+int64(m.End), 10)
		l = append(l, `,"raw":`...)
		l = textfmt.AppendJSONString(l, m.Raw)
		l = append(l, ',')
		// The NT attributes, as numen nt writes them: Result.AppendJSON
		// without its opening brace.
		mark := len(l)
		l = m.Result.AppendJSON(l)
		l = append(l[:mark], l[mark+1:]...)
		l = append(l, '\n')
		tf.line = l
		if _, err := tf.out.Write(l); err != nil {
			return writeError(err)
		}
		if tf.flushEach {
			if err := tf.out.Flush(); err != nil {
				return writeError(err)
			}
		}
	}
	return nil
}
