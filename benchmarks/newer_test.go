package benchmarks

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// newerMetadata are the calling codes whose core metadata in Numen's plan
// is of a newer libphonenumber release than phonenumbers'
// (data/numbering/core_changes.tsv): there the two libraries may answer
// differently by design, so the checks that the benchmarks compare like
// with like leave those numbers out (numbering's tests hold them to
// libphonenumber-js at the plan's release).
var newerMetadata = sync.OnceValue(func() map[int]bool {
	b, err := os.ReadFile(filepath.Join("..", "data", "numbering", "core_changes.tsv"))
	if err != nil {
		panic(err)
	}
	out := map[int]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(l, "\t")
		cc, err := strconv.Atoi(f[1])
		if err != nil {
			panic(l)
		}
		out[cc] = true
	}
	return out
})
