package data

import (
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	for _, name := range []string{"numbering/countries.tsv", "numbering/carrier_en.tsv.gz", "numbering/geocoding_en.tsv.gz", "numbering/timezones.tsv.gz"} {
		b, err := ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 1000 || !strings.Contains(string(b), "\t") {
			t.Errorf("%s: %d bytes, not a TSV table", name, len(b))
		}
	}
	if _, err := ReadFile("numbering/missing.tsv"); err == nil {
		t.Error("missing file read without error")
	}
}

func TestVersion(t *testing.T) {
	v := Version()
	if !strings.HasPrefix(v, "libphonenumber v") || !strings.Contains(v, "+ numen-data "+TablesDigest) {
		t.Errorf("Version() = %q", v)
	}
}
