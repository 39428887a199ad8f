package numbering

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// testPlan loads the plan once for all tests of the package.
var testPlan = sync.OnceValues(func() (*Plan, error) { return Load() })

func plan(t testing.TB) *Plan {
	t.Helper()
	p, err := testPlan()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p
}

// readGenerated returns one of the generated tables in ../data/numbering,
// gunzipped when its name ends in .gz: the plan's readable sources.
func readGenerated(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "data", "numbering", name))
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}
