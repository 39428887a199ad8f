// Package data holds the numbering and routing data shipped with Numen,
// embedded into every binary with go:embed, and the provenance of each table.
//
// numbering/plan.bin is the compiled numbering plan that package numbering
// reads in place (numbering.Load). It and the TSV tables beside it, which
// are its readable sources, routing.go and ../routing/builtin.go (the
// routing files as Go values) are generated: run
//
//	go run ./data/gen
//
// from the repository root to rebuild them from their sources (see README.md
// in this directory). Never edit them by hand; the generator's tests fail
// when the committed files differ from what it produces.
package data

import "errors"

//go:generate go run ./gen -o .

// Plan returns the compiled numbering plan file, numbering/plan.bin. The
// bytes are shared and must not be modified. A build for the browser
// (GOOS=js) has none built in (nil): the page fetches the plan it needs,
// which keeps the module small (numbering.OpenBytes, the wasm module).
func Plan() []byte { return plan }

// Version describes the data generation: the libphonenumber metadata release
// plus a digest of the compiled plan.
func Version() string {
	return "libphonenumber " + LibphonenumberVersion + " + numen-data " + TablesDigest
}

// ReadFile returns the contents of a routing file built in, such as
// "routing/coverage.json" (the name is relative to this directory; the
// generator copies the files into routing.go).
func ReadFile(name string) ([]byte, error) {
	s, ok := routingFile(name)
	if !ok {
		return nil, errors.New("data: no routing file " + name)
	}
	return []byte(s), nil
}
