package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/numenhq/numen/numbering"
)

const shortUsage = `Usage: numen short --country CC [NUMBER...]

Tells, for each NUMBER dialled in the region CC (ISO 3166-1 alpha-2, either
case, such as DE), what libphonenumber's short-number data says of it, as
one JSON object per line:

  {"number":"112","region":"DE","valid":true,"emergency":true,"cost":"TOLL_FREE",
   "possible":true,"connects_to_emergency":true,"carrier_specific":false,"sms":false}

  valid                  a short number of the region (libphonenumber's
                         isValidShortNumberForRegion)
  emergency              exactly an emergency number of the region
  cost                   TOLL_FREE, STANDARD_RATE, PREMIUM_RATE or UNKNOWN_COST
                         (emergency numbers are toll-free)
  possible               of a length the region's short numbers have
  connects_to_emergency  dialling it reaches the emergency services: an
                         emergency number, or one with more digits after it,
                         except in Brazil, Chile and Nicaragua
  carrier_specific       what it reaches depends on the caller's network
  sms                    an SMS service

The number is read as dialled in the region: its digits are the short
number (spaces and dashes allowed; three or more letters are vanity letters,
fewer are dropped, as libphonenumber reads them); with
"+" it is read in international form and must carry the region's calling
code. Without NUMBER arguments, numen short reads one number per line from
standard input and streams the answers in the order of the input; blank
lines are skipped, a line longer than 4 KB is answered as no number. The
exit status is 0 when all input was processed; a missing or unknown
--country is a usage error (2).

Flags (before or after the numbers; "--" ends them):
  --country CC     the region the numbers are dialled in (required)
`

// shortAnswer is one line of numen short's output, in the order of its
// members.
type shortAnswer struct {
	Number              string `json:"number"`
	Region              string `json:"region"`
	Valid               bool   `json:"valid"`
	Emergency           bool   `json:"emergency"`
	Cost                string `json:"cost"`
	Possible            bool   `json:"possible"`
	ConnectsToEmergency bool   `json:"connects_to_emergency"`
	CarrierSpecific     bool   `json:"carrier_specific"`
	SMS                 bool   `json:"sms"`
}

func (c *cli) short(args []string) int {
	fs := newFlagSet("short")
	country := fs.String("country", "", "")
	numbers, code, ok := c.parseInterleaved(fs, "short", shortUsage, args)
	if !ok {
		return code
	}
	if *country == "" {
		return c.usageError("short", "--country is required: the region the numbers are dialled in, such as DE")
	}
	plan, err := c.plan("")
	if err != nil {
		fmt.Fprintf(c.stderr, "numen short: loading numbering data: %v\n", err)
		return exitError
	}
	var regionErr *numbering.RegionError
	switch _, err := plan.ShortNumber("", *country); {
	case errors.As(err, &regionErr):
		return c.usageError("short", "unknown --country %q: want an ISO 3166-1 alpha-2 region code, such as DE", regionErr.Region)
	case err != nil:
		fmt.Fprintf(c.stderr, "numen short: %v\n", err)
		return exitError
	}
	out := bufio.NewWriterSize(c.stdout, 64<<10)
	sw := shortWriter{plan: plan, region: strings.ToUpper(*country), out: out, enc: json.NewEncoder(out)}
	sw.enc.SetEscapeHTML(false)
	if len(numbers) > 0 {
		for _, s := range numbers {
			if err = sw.write(s, false); err != nil {
				break
			}
		}
	} else {
		if isTerminal(c.stdin) {
			fmt.Fprintln(c.stderr, "numen short: reading numbers from standard input, one per line (end with Ctrl-D)")
			sw.flushEach = true
		}
		err = sw.stream(c.stdin)
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = writeError(ferr)
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "numen short: %v\n", err)
		return exitError
	}
	return exitOK
}

// shortWriter answers numbers and writes the answers.
type shortWriter struct {
	plan      *numbering.Plan
	region    string
	out       *bufio.Writer
	enc       *json.Encoder
	flushEach bool // flush after each answer (someone is typing)
}

// write answers s; truncated says s is only the start of a longer line,
// which is answered as no number.
func (sw *shortWriter) write(s string, truncated bool) error {
	a := shortAnswer{Number: s, Region: sw.region, Cost: numbering.UnknownCost.String()}
	if truncated {
		a.Number = tooLong([]byte(s)).Input
	} else {
		info, err := sw.plan.ShortNumber(s, sw.region)
		if err != nil {
			return err // the region was checked before: no error is expected
		}
		a.Valid, a.Emergency, a.Cost = info.Valid, info.Emergency, info.Cost.String()
		a.Possible, a.ConnectsToEmergency = info.Possible, info.ConnectsToEmergency
		a.CarrierSpecific, a.SMS = info.CarrierSpecific, info.SMS
	}
	if err := sw.enc.Encode(&a); err != nil {
		return writeError(err)
	}
	if sw.flushEach {
		if err := sw.out.Flush(); err != nil {
			return writeError(err)
		}
	}
	return nil
}

// stream answers standard input line by line in bounded memory, as numen
// nt reads it (lineSplitter).
func (sw *shortWriter) stream(in io.Reader) error {
	return eachLine(in, func(line []byte, truncated bool, _ int64) error {
		line = bytes.TrimSpace(line)
		if len(line) == 0 && !truncated {
			return nil
		}
		// The string shares the scanner's buffer, which the next Scan
		// overwrites: the answer is encoded before that.
		return sw.write(unsafe.String(unsafe.SliceData(line), len(line)), truncated)
	})
}
