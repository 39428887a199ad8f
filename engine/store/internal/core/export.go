package core

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
)

// Exporter writes the results of one report as a CSV or JSON download
// (store.Store's Export), in the format store.Format describes. The
// drivers stream their rows through it, so every driver writes the same
// bytes.
type Exporter struct {
	format store.Format
	bw     *bufio.Writer
	n      int

	// CSV only.
	cw    *csv.Writer
	table *store.Table
}

// NewExporter starts a download of a report holding results of products
// (at least one) in format, writing to w. Call Write for each result, then
// Close.
func NewExporter(w io.Writer, format store.Format, products []engine.Product) (*Exporter, error) {
	if _, err := store.ParseFormat(string(format)); err != nil {
		return nil, err
	}
	e := &Exporter{format: format, bw: bufio.NewWriterSize(w, 32<<10)}
	if format == store.JSON {
		_, err := e.bw.WriteString("[")
		return e, err
	}
	t, err := store.NewTable(products)
	if err != nil {
		return nil, err
	}
	e.table = t
	e.cw = csv.NewWriter(e.bw)
	e.cw.UseCRLF = true
	return e, e.cw.Write(t.Header())
}

// Write adds one result of product: its object as the API wrote it.
func (e *Exporter) Write(product engine.Product, result []byte) error {
	e.n++
	if e.format == store.JSON {
		sep := ",\n"
		if e.n == 1 {
			sep = "\n"
		}
		e.bw.WriteString(sep)
		_, err := e.bw.Write(result)
		return err
	}
	cells, err := e.table.Row(product, result)
	if err != nil {
		return fmt.Errorf("result %d: %w", e.n, err)
	}
	for i, c := range cells {
		cells[i] = Neutralise(c)
	}
	return e.cw.Write(cells)
}

// Close ends the download and flushes it to the writer.
func (e *Exporter) Close() error {
	if e.format == store.JSON {
		end := "\n]\n"
		if e.n == 0 {
			end = "]\n"
		}
		e.bw.WriteString(end)
	} else {
		e.cw.Flush()
		if err := e.cw.Error(); err != nil {
			return err
		}
	}
	return e.bw.Flush()
}

// Neutralise returns a CSV cell that spreadsheets do not run: text
// starting with "=", "+", "-", "@", a tab or a carriage return (which
// Excel, LibreOffice and Google Sheets read as the start of a formula, so
// that a number such as =HYPERLINK("http://evil.example/","click") would
// be a link, or worse) gets a leading apostrophe, which spreadsheets show
// as text and do not display. Other text is unchanged. This is OWASP's
// advice for CSV injection; a program reading the file as data sees the
// apostrophe and may strip it.
func Neutralise(cell string) string {
	if cell == "" {
		return cell
	}
	switch cell[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + cell
	}
	return cell
}
