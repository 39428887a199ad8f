package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/numenhq/numen/numbering"
)

const formatUsage = `Usage: numen format [--country CC] [--style e164|international|national|rfc3966] [--from CC] [NUMBER...]

Writes each NUMBER as people write it, exactly as libphonenumber does: one
line per number, in the order of the input, or "error: REASON" for input
that cannot be read as a number. Numbers that are not valid are formatted
too, as libphonenumber formats them. The exit status is 0 when all input
was processed.

Without NUMBER arguments, numen format reads numbers from standard input,
one per line, and streams one line out per line in; blank lines are
skipped:

  numen format --style national < numbers.txt > national.txt

Flags (before or after the numbers; "--" ends them):
  --style international   +49 30 1234567 (default)
  --style national        030 1234567
  --style e164            +49301234567
  --style rfc3966         tel:+49-30-1234567
  --from CC               as dialled from region CC (ISO 3166-1 alpha-2):
                          "00 49 30 1234567" from FR, "011 49 30 1234567"
                          from US, the national style from DE; overrides
                          --style
  --country CC            the region numbers are written or dialled in:
                          national format ("030 1234567" in DE), the
                          region's international prefix ("011 49 ..." in
                          US); numbers with "+" are read whatever the region
`

// numberStyle returns the style of a value of --style (any case).
func numberStyle(name string) (numbering.Style, bool) {
	switch strings.ToLower(name) {
	case "e164":
		return numbering.E164, true
	case "international":
		return numbering.International, true
	case "national":
		return numbering.National, true
	case "rfc3966":
		return numbering.RFC3966, true
	}
	return 0, false
}

func (c *cli) format(args []string) int {
	fs := newFlagSet("format")
	styleName := fs.String("style", "international", "")
	from := fs.String("from", "", "")
	country := fs.String("country", "", "")
	numbers, code, ok := c.parseInterleaved(fs, "format", formatUsage, args)
	if !ok {
		return code
	}
	style, ok := numberStyle(*styleName)
	if !ok {
		return c.usageError("format", "unknown --style %q: want e164, international, national or rfc3966", *styleName)
	}
	plan, err := c.plan("")
	if err != nil {
		fmt.Fprintf(c.stderr, "numen format: loading numbering data: %v\n", err)
		return exitError
	}
	for _, flag := range []struct{ name, value string }{{"from", *from}, {"country", *country}} {
		if flag.value != "" && plan.CallingCode(strings.ToUpper(flag.value)) == 0 {
			return c.usageError("format", "--%s %q: not a region of the numbering plan (want an ISO 3166-1 alpha-2 code such as DE)", flag.name, flag.value)
		}
	}
	f := &numberFormatter{plan: plan, style: style, from: strings.ToUpper(*from), country: strings.ToUpper(*country)}
	out := bufio.NewWriterSize(c.stdout, 64<<10)
	if len(numbers) > 0 {
		for _, s := range numbers {
			if err := f.line(out, s); err != nil {
				return c.formatFailed(writeError(err))
			}
		}
		if err := out.Flush(); err != nil {
			return c.formatFailed(writeError(err))
		}
		return exitOK
	}
	interactive := isTerminal(c.stdin)
	if interactive {
		fmt.Fprintln(c.stderr, "numen format: reading numbers from standard input, one per line (end with Ctrl-D)")
	}
	err = eachLine(c.stdin, func(line []byte, truncated bool, _ int64) error {
		line = bytes.TrimSpace(line)
		var err error
		switch {
		case truncated:
			_, err = fmt.Fprintf(out, "error: %s\n", numbering.InputTooLong)
		case len(line) == 0:
			return nil
		default:
			// The string shares the scanner's buffer, which the next Scan
			// overwrites: line writes it out before then and keeps nothing.
			err = f.line(out, unsafe.String(&line[0], len(line)))
		}
		if err == nil && interactive {
			err = out.Flush()
		}
		if err != nil {
			return writeError(err)
		}
		return nil
	})
	var input *inputError
	if err != nil && !errors.As(err, &input) {
		return c.formatFailed(err)
	}
	if err := out.Flush(); err != nil {
		return c.formatFailed(writeError(err))
	}
	if err != nil {
		return c.formatFailed(err)
	}
	return exitOK
}

func (c *cli) formatFailed(err error) int {
	fmt.Fprintf(c.stderr, "numen format: %v\n", err)
	return exitError
}

// numberFormatter writes numbers in one style, or as dialled from one
// region, into a buffer it reuses.
type numberFormatter struct {
	plan    *numbering.Plan
	style   numbering.Style
	from    string // "" for the style
	country string // the default region (--country), "" for none
	buf     []byte
}

// line writes the line for input s: the number formatted, or the reason it
// cannot be read.
func (f *numberFormatter) line(w io.Writer, s string) error {
	n, err := f.parse(s)
	if err == nil {
		if f.from != "" {
			f.buf, err = f.plan.AppendFormatFrom(f.buf[:0], n, f.from)
		} else {
			f.buf, err = f.plan.AppendFormat(f.buf[:0], n, f.style)
		}
	}
	if err != nil {
		f.buf = append(f.buf[:0], "error: "...)
		var perr *numbering.ParseError
		if errors.As(err, &perr) {
			f.buf = append(f.buf, perr.Reason.String()...)
		} else {
			f.buf = append(f.buf, err.Error()...)
		}
	}
	f.buf = append(f.buf, '\n')
	_, err = w.Write(f.buf)
	return err
}

// parse reads one input: in international format, or, with --country, as
// libphonenumber reads input with a default region (Plan.ParseIn: national
// format, the region's international prefix, or "+" whatever the region).
func (f *numberFormatter) parse(s string) (numbering.Number, error) {
	if f.country == "" {
		return f.plan.Parse(s)
	}
	return f.plan.ParseIn(s, f.country)
}
