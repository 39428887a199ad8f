package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestReadmesCarryTheCoverage: data/README.md carries the coverage report
// that go run ./data/gen -coverage prints now, and README.md its two
// counts, so that a curated line that moves a region cannot leave the
// documents behind. After such a change, paste the report into
// data/README.md (from "Of all valid mobile numbers" to the end of the
// overrides table) and correct the counts in README.md.
func TestReadmesCarryTheCoverage(t *testing.T) {
	// Not parallel: the generator caches regular expressions without a lock.
	var report bytes.Buffer
	if err := printCoverage(&report, io.Discard, "..", "", filepath.Join("..", "..", mccmncListTarball)); err != nil {
		t.Fatal(err)
	}
	dataReadme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(dataReadme, report.Bytes()) {
		first, _, _ := bytes.Cut(report.Bytes(), []byte("\n"))
		t.Errorf("data/README.md does not carry the coverage report printed now, which begins:\n%s\n(paste go run ./data/gen -coverage 2>/dev/null into it)", first)
	}
	m := regexp.MustCompile(`in (\d+) of the (\d+) regions with mobile numbers\. .* resolves in (\d+) of the (\d+) regions with carrier range data`).FindSubmatch(report.Bytes())
	if m == nil {
		t.Fatalf("no counts in the report's first line:\n%.300s", report.Bytes())
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("resolve to one MCCMNC in %s of %s regions (%s of %s over the space assigned to carriers)", m[1], m[2], m[3], m[4])
	if !bytes.Contains(readme, []byte(want)) {
		t.Errorf("README.md does not say %q", want)
	}
}
