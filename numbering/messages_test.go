package numbering

import (
	"testing"

	"github.com/numenhq/numen/numbering/textfmt/verbscan"
)

// TestFormatVerbs keeps the package's messages (its string literals) to
// the verbs package textfmt knows.
func TestFormatVerbs(t *testing.T) {
	t.Parallel()
	bad, err := verbscan.Scan(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
}
