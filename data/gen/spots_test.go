package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The spot tests (spots_*_test.go) check decisions of the curated files
// against the committed tables, one number each: the number's longest
// carrier range answers the decided code (the reproducibility test proves
// the tables to be what the generator makes of the curated files).

// spotRange returns a number's longest carrier range in carriers (prefix
// → carrier name), or "" when no range holds it.
func spotRange(carriers map[string]string, number string) string {
	for n := len(number); n > 0; n-- {
		if _, ok := carriers[number[:n]]; ok {
			return number[:n]
		}
	}
	return ""
}

// curatedSection returns the lines of a curated file's marked section,
// from "# -- name --" to "# (end of name)".
func curatedSection(t *testing.T, file, name string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "curated", file))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(raw), "# -- "+name+" --\n")
	sec, _, ok2 := strings.Cut(sec, "# (end of "+name+")")
	if !ok || !ok2 {
		t.Fatalf("%s: no section %q", file, name)
	}
	return strings.Split(sec, "\n")
}

// numberSpot is a decision checked by one number: the number's region,
// the number, the code it must answer and the source that settles it.
type numberSpot struct{ region, number, want, source string }

// spotTables are the committed tables the spots are checked against:
// prefix → MCCMNC and prefix → carrier name.
type spotTables struct{ codes, carriers map[string]string }

func readSpotTables(t *testing.T) spotTables {
	t.Helper()
	return spotTables{
		codes:    readTable(t, filepath.Join("..", "numbering", "mccmnc.tsv.gz")),
		carriers: readTable(t, filepath.Join("..", "numbering", "carrier_en.tsv.gz")),
	}
}

// answers checks that number's longest carrier range answers want ("-":
// no code, a range left unresolved on purpose) and returns the range, or
// "" when no range holds the number (reported).
func (st spotTables) answers(t *testing.T, region, number, want, source string) string {
	t.Helper()
	prefix := spotRange(st.carriers, number)
	if prefix == "" {
		t.Errorf("%s +%s: no carrier range", region, number)
		return ""
	}
	code := want
	if code == "-" {
		code = ""
	}
	if got := st.codes[prefix]; got != code {
		t.Errorf("%s +%s (range +%s, %s): answers %q, want %q (%s)", region, number, prefix, st.carriers[prefix], got, want, source)
	}
	return prefix
}

// rangeLine returns the fields of the line of lines (a section of
// curated/ranges.tsv) that gives prefix of region the code, or nil.
func rangeLine(lines []string, region, prefix, code string) []string {
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) >= 6 && f[0] == region && f[1] == prefix && f[3] == code {
			return f
		}
	}
	return nil
}
