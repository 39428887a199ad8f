// Package data holds the numbering and routing data shipped with Numen,
// embedded into every binary with go:embed, and the provenance of each table.
//
// numbering/plan.bin is the compiled numbering plan that package numbering
// reads in place (numbering.Load); numbering/plan-core.bin is the same
// without its optional sections, for the browser module. They and the TSV
// tables beside them, which are their readable sources, are generated: run
//
//	go run ./data/gen
//
// from the repository root to rebuild them from their sources (see README.md
// in this directory). Never edit them by hand; the generator's tests fail
// when the committed files differ from what it produces.
package data

import "embed"

//go:generate go run ./gen -o .

//go:embed routing/*.json
var files embed.FS

// Plan returns the compiled numbering plan file: numbering/plan.bin, or in
// a build for the browser (GOOS=js) numbering/plan-core.bin, the same plan
// without its optional sections (networks, geocoding, time zones), which a
// page loads as packs when it shows them. The bytes are shared and must not
// be modified.
func Plan() []byte { return plan }

// Version describes the data generation: the libphonenumber metadata release
// plus a digest of the compiled plan.
func Version() string {
	return "libphonenumber " + LibphonenumberVersion + " + numen-data " + TablesDigest
}

// ReadFile returns the contents of an embedded routing file, such as
// "routing/coverage.json" (the name is relative to this directory).
func ReadFile(name string) ([]byte, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return nil, &dataError{err}
	}
	return b, nil
}

// dataError prefixes an error with the package's name, without package fmt
// (which the browser module, built on package numbering, does without).
type dataError struct{ err error }

func (e *dataError) Error() string { return "data: " + e.err.Error() }
func (e *dataError) Unwrap() error { return e.err }
