// Package data holds the numbering and routing data shipped with Numen,
// embedded into every binary with go:embed, and the provenance of each table.
//
// The tables under numbering/ are generated: run
//
//	go run ./data/gen
//
// from the repository root to rebuild them from their sources (see README.md
// in this directory). Never edit them by hand; the package's tests fail when
// the committed files differ from what the generator produces.
package data

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/binary"
	"fmt"
	"strings"
)

//go:generate go run ./gen -o .

//go:embed numbering/*.gz numbering/*.tsv routing/*.json
var files embed.FS

// Version describes the data generation: the libphonenumber metadata release
// plus a digest of Numen's own generated tables.
func Version() string {
	return "libphonenumber " + LibphonenumberVersion + " + numen-data " + TablesDigest
}

// ReadFile returns the contents of an embedded data file, gunzipped when its
// name ends in .gz. The name is relative to this directory, for example
// "numbering/countries.tsv".
func ReadFile(name string) ([]byte, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if !strings.HasSuffix(name, ".gz") {
		return b, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("data: %s: %w", name, err)
	}
	var out bytes.Buffer
	if len(b) >= 4 { // gzip's trailer ends with the uncompressed size, mod 2^32
		out.Grow(int(binary.LittleEndian.Uint32(b[len(b)-4:])) + bytes.MinRead)
	}
	if _, err := out.ReadFrom(zr); err != nil {
		return nil, fmt.Errorf("data: %s: %w", name, err)
	}
	return out.Bytes(), nil
}
