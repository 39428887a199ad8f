package data

import (
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"routing/coverage.json", "routing/platform.json"} {
		b, err := ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 100 || b[0] != '{' {
			t.Errorf("%s: %d bytes, not a JSON object", name, len(b))
		}
	}
	if _, err := ReadFile("numbering/missing.tsv"); err == nil {
		t.Error("missing file read without error")
	}
}

func TestPlan(t *testing.T) {
	t.Parallel()
	if p := Plan(); len(p) < 1<<20 || string(p[:8]) != "NUMNPLAN" {
		t.Errorf("Plan(): %d bytes, not a plan file", len(p))
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	v := Version()
	if !strings.HasPrefix(v, "libphonenumber v") || !strings.Contains(v, "+ numen-data "+TablesDigest) {
		t.Errorf("Version() = %q", v)
	}
}
