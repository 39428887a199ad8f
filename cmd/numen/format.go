package main

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/numenhq/numen/numbering"
)

// outputFormat is the value of nt's --format flag.
type outputFormat uint8

const (
	formatJSON outputFormat = iota
	formatCSV
	formatTable
)

var formatNames = [...]string{formatJSON: "json", formatCSV: "csv", formatTable: "table"}

func (f *outputFormat) String() string { return formatNames[*f] }

func (f *outputFormat) Set(s string) error {
	for i, name := range formatNames {
		if s == name {
			*f = outputFormat(i)
			return nil
		}
	}
	return fmt.Errorf("unknown format %q (want json, csv or table)", s)
}

// csvColumns are the CSV columns: the keys of Result.AppendJSON, in its
// order (a test holds the two together).
var csvColumns = [...]string{
	"number", "number_type", "query_status", "is_valid", "invalid_reason",
	"is_possibly_ported", "is_vanity_number", "qualifies_for_hlr_lookup",
	"mccmnc", "mcc", "mnc", "original_network_name", "original_country_name",
	"original_country_code", "original_country_prefix", "regions", "timezones",
	"info_text", "international_format", "national_format",
}

// tableFlushRows is how many table rows are aligned together: the table
// writer holds that many rows in memory before writing them out.
const tableFlushRows = 256

// resultWriter writes results in one output format to a buffered writer,
// reusing its buffers from one result to the next.
type resultWriter struct {
	format outputFormat
	out    *bufio.Writer
	// flushEach writes every result out at once, for someone typing
	// numbers in a terminal.
	flushEach bool

	buf    []byte // the JSON object or table row being built
	csv    *csv.Writer
	record [len(csvColumns)]string
	table  *tabwriter.Writer
	rows   int // table rows since the last flush
}

func newResultWriter(format outputFormat, out *bufio.Writer) *resultWriter {
	w := &resultWriter{format: format, out: out, buf: make([]byte, 0, 1024)}
	switch format {
	case formatCSV:
		w.csv = csv.NewWriter(out)
	case formatTable:
		w.table = tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
	}
	return w
}

// header writes what comes before the first result.
func (w *resultWriter) header() error {
	switch w.format {
	case formatCSV:
		return w.csv.Write(csvColumns[:])
	case formatTable:
		_, err := w.table.Write([]byte("NUMBER\tTYPE\tVALID\tREASON\tCOUNTRY\tNETWORK\tREGIONS\tTIME ZONES\n"))
		return err
	}
	return nil
}

func (w *resultWriter) write(res *numbering.Result) error {
	var err error
	switch w.format {
	case formatJSON:
		w.buf = append(res.AppendJSON(w.buf[:0]), '\n')
		_, err = w.out.Write(w.buf)
	case formatCSV:
		err = w.csv.Write(csvRecord(w.record[:0], res))
	case formatTable:
		w.buf = appendTableRow(w.buf[:0], res)
		_, err = w.table.Write(w.buf)
		if w.rows++; err == nil && w.rows >= tableFlushRows {
			w.rows = 0
			err = w.table.Flush()
		}
	}
	if err == nil && w.flushEach {
		err = w.flush()
	}
	return err
}

// flush writes out everything written so far.
func (w *resultWriter) flush() error {
	switch w.format {
	case formatCSV:
		w.csv.Flush()
		if err := w.csv.Error(); err != nil {
			return err
		}
	case formatTable:
		w.rows = 0
		if err := w.table.Flush(); err != nil {
			return err
		}
	}
	return w.out.Flush()
}

// csvRecord appends the CSV cells of res to rec: the values of AppendJSON,
// with lists joined by "|" and null as an empty cell. Which booleans are
// null follows AppendJSON: is_possibly_ported is known for valid numbers
// only, is_vanity_number and qualifies_for_hlr_lookup when the query status
// is OK.
func csvRecord(rec []string, res *numbering.Result) []string {
	number := res.Input
	if !res.Number.IsZero() {
		number = res.Number.String()
	}
	ok := res.Status == numbering.StatusOK
	return append(rec,
		number,
		res.Type.String(),
		res.Status.String(),
		strconv.FormatBool(res.Valid),
		res.Reason.String(),
		nullableBool(res.PossiblyPorted, res.Valid),
		nullableBool(res.Number.IsVanity(), ok),
		nullableBool(res.QualifiesForHLR, ok),
		res.MCCMNC,
		res.MCC(),
		res.MNC(),
		res.Network,
		res.CountryName,
		res.CountryCode,
		res.CountryPrefix,
		joinList(res.Regions, "|"),
		joinList(res.Timezones, "|"),
		res.Info,
		formatCell(res, numbering.International),
		formatCell(res, numbering.National),
	)
}

// formatCell is the number in style, "" for a number that is not valid.
func formatCell(res *numbering.Result, style numbering.Style) string {
	b, _ := res.AppendFormat(nil, style)
	return string(b)
}

func nullableBool(v, known bool) string {
	if !known {
		return ""
	}
	return strconv.FormatBool(v)
}

// joinList is strings.Join without the copy for the common single element.
func joinList(ss []string, sep string) string {
	if len(ss) == 1 {
		return ss[0]
	}
	return strings.Join(ss, sep)
}

// appendTableRow appends the table row of res, tab-terminated cells and a
// newline, with "-" for unknown values.
func appendTableRow(b []byte, res *numbering.Result) []byte {
	if res.Number.IsZero() {
		b = appendPrintable(b, res.Input)
	} else {
		b = res.Number.AppendTo(b)
	}
	b = append(b, '\t')
	b = append(b, res.Type.String()...)
	b = append(b, '\t')
	if res.Valid {
		b = append(b, "yes\t"...)
	} else {
		b = append(b, "no\t"...)
	}
	b = appendCell(b, res.Reason.String())
	b = appendCell(b, res.CountryCode)
	b = appendCell(b, res.Network)
	b = appendListCell(b, res.Regions, "; ")
	b = appendListCell(b, res.Timezones, ", ")
	b[len(b)-1] = '\n' // the last column is not aligned: end the row
	return b
}

func appendCell(b []byte, s string) []byte {
	if s == "" {
		return append(b, "-\t"...)
	}
	b = appendPrintable(b, s)
	return append(b, '\t')
}

// tableListItems is how many items of a list a table cell shows: a toll-free
// number of the North American plan has more than forty time zones.
const tableListItems = 3

func appendListCell(b []byte, ss []string, sep string) []byte {
	if len(ss) == 0 {
		return append(b, "-\t"...)
	}
	shown := ss
	if len(ss) > tableListItems {
		shown = ss[:tableListItems-1]
	}
	for i, s := range shown {
		if i > 0 {
			b = append(b, sep...)
		}
		b = appendPrintable(b, s)
	}
	if len(shown) < len(ss) {
		b = append(b, " +"...)
		b = strconv.AppendInt(b, int64(len(ss)-len(shown)), 10)
		b = append(b, " more"...)
	}
	return append(b, '\t')
}

// appendPrintable appends s as it is when it is printable text, else quoted
// with escapes, so that a tab or terminal control sequence in the input
// cannot break the table or the terminal.
func appendPrintable(b []byte, s string) []byte {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsGraphic(r) {
			return strconv.AppendQuoteToGraphic(b, s)
		}
	}
	return append(b, s...)
}
