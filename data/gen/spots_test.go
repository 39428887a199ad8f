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
