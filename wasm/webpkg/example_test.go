package webpkg_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering/compile"
	"github.com/numenhq/numen/wasm/webpkg"
)

// A package is served under /wasm/ beside an application's own handlers;
// a browser that accepts gzip gets the compressed twin of each file.
func ExamplePackage_ServeHTTP() {
	dir, err := os.MkdirTemp("", "numen-webpkg-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	writeMinimalPackage(dir) // go run ./wasm/build -o DIR writes the real one

	pkg, err := webpkg.Open(dir)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/wasm/", http.StripPrefix("/wasm", pkg))

	for _, path := range []string{"/wasm/numen.wasm", "/wasm/numen-core.bin", "/wasm/nothing.js"} {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Accept-Encoding", "gzip, br")
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		fmt.Printf("%s %d %s encoding=%q\n", path, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Content-Encoding"))
	}
	fmt.Println("packs:", pkg.Packs())
	// Output:
	// /wasm/numen.wasm 200 application/wasm encoding="gzip"
	// /wasm/numen-core.bin 200 application/octet-stream encoding="gzip"
	// /wasm/nothing.js 404 application/json encoding=""
	// packs: [networks]
}

// Browsers send Accept-Encoding with quality values; q=0 refuses.
func ExampleAcceptsGzip() {
	fmt.Println(webpkg.AcceptsGzip([]string{"gzip, deflate, br"}))
	fmt.Println(webpkg.AcceptsGzip([]string{"br;q=1.0, gzip;q=0"}))
	fmt.Println(webpkg.AcceptsGzip([]string{"*"}))
	// Output:
	// true
	// false
	// true
}

// writeMinimalPackage lays out the files Open requires: the core plan and
// the networks pack cut from the embedded plan, placeholders for the module
// and scripts that go run ./wasm/build would compile, and gzip twins.
func writeMinimalPackage(dir string) {
	core, err := compile.Strip(data.Plan(), compile.Ranges, compile.Networks, compile.Geocoding, compile.Timezones, compile.ShortNumbers)
	if err != nil {
		log.Fatal(err)
	}
	networks, err := compile.Pack(data.Plan(), compile.Ranges, compile.Networks)
	if err != nil {
		log.Fatal(err)
	}
	files := map[string][]byte{
		"numen.wasm":         []byte("\x00asm\x01\x00\x00\x00"),
		"numen.mjs":          []byte("export class Numen {}\n"),
		"numen-core.bin":     core,
		"numen-networks.bin": networks,
	}
	for name, b := range files {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(b)
		zw.Close()
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".gz"), z.Bytes(), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
