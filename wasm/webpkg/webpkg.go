// Package webpkg serves Numen's browser package, the folder that
//
//	go run ./wasm/build -o DIR
//
// writes, over HTTP: numen serve --wasm DIR hands it out at /wasm/, so that
// pages load the module built from the data the server answers with.
//
// Open reads the whole folder into memory and checks it first: the module
// must be WebAssembly, the core plan and every pack must open together
// (numbering.OpenBytes with WithPack: a damaged or mismatched plan is an
// error, not wrong answers in a browser), and every compressed twin, Brotli
// (NAME.br) and gzip (NAME.gz), must decompress to its file. The handler
// then answers GET and HEAD with the right media types (application/wasm,
// text/javascript, ...); the Brotli twin to clients that accept br, else
// the gzip twin to clients that accept gzip (Content-Encoding, and Vary:
// Accept-Encoding on every file that has a twin); strong ETags, one per
// encoding, with Cache-Control: no-cache (the names carry no version, so
// browsers revalidate); Access-Control-Allow-Origin: * so that pages of
// other origins can import the module; and, on the demo page (index.html),
// the strict Content-Security-Policy the module works under (CSP). Unknown
// paths are 404 and other methods 405, each with a JSON body
// {"errors": ["..."]}.
package webpkg

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/textfmt"
)

// Limits of what Open reads: a built package is about 17 MB with its gzip
// twins, so these only stop a wrong folder from filling memory.
const (
	maxFile  = 64 << 20
	maxTotal = 256 << 20
	maxFiles = 256
)

// required are the files a page cannot do without.
var required = []string{"numen.wasm", "numen.mjs", "numen-core.bin"}

// CSP is the Content-Security-Policy of the demo page the handler serves:
// scripts of the package's own origin only, and WebAssembly compiled from
// bytes ('wasm-unsafe-eval', which WebAssembly.instantiateStreaming needs
// under any script-src; it allows no JavaScript eval). Numen's module works
// under it; the demo page is served with it.
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'"

// Package is a browser package read into memory, ready to serve. It is an
// http.Handler for paths relative to the package ("/numen.wasm"; "/" is
// index.html): mount it with http.StripPrefix.
type Package struct {
	files   map[string]*file
	data    numbering.Version
	packs   []string
	modTime time.Time
}

type file struct {
	name   string
	ctype  string
	raw    []byte
	gz     []byte // the gzip twin; nil without one
	br     []byte // the Brotli twin; nil without one
	etag   string
	gzEtag string
	brEtag string
}

// Open reads and checks the package in dir.
func Open(dir string) (*Package, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("browser package: %w", err)
	}
	if len(entries) > maxFiles {
		return nil, fmt.Errorf("browser package %s: %d entries; a built package has about 30", dir, len(entries))
	}
	p := &Package{files: map[string]*file{}}
	contents := map[string][]byte{}
	total := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !e.Type().IsRegular() {
			continue // dot-files, folders and links are not part of a package
		}
		info, err := e.Info()
		if err != nil {
			return nil, fmt.Errorf("browser package: %w", err)
		}
		if info.Size() > maxFile {
			return nil, fmt.Errorf("browser package: %s is %d bytes, more than a package file can be (%d)", filepath.Join(dir, name), info.Size(), maxFile)
		}
		if total += int(info.Size()); total > maxTotal {
			return nil, fmt.Errorf("browser package %s: more than %d bytes in all; is it a package built by go run ./wasm/build?", dir, maxTotal)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("browser package: %w", err)
		}
		contents[name] = b
		if info.ModTime().After(p.modTime) {
			p.modTime = info.ModTime()
		}
	}
	for _, name := range required {
		if _, ok := contents[name]; !ok {
			return nil, fmt.Errorf("browser package %s has no %s: build one with go run ./wasm/build -o %s", dir, name, dir)
		}
	}
	if !bytes.HasPrefix(contents["numen.wasm"], []byte("\x00asm")) {
		return nil, fmt.Errorf("browser package: %s is not a WebAssembly module", filepath.Join(dir, "numen.wasm"))
	}
	if err := p.checkPlan(dir, contents); err != nil {
		return nil, err
	}
	for name, b := range contents {
		if base, ext, ok := twinOf(name); ok {
			if raw, ok := contents[base]; ok {
				if err := sameAfterDecompressing(ext, b, raw); err != nil {
					return nil, fmt.Errorf("browser package: %s is not %s compressed: %w", filepath.Join(dir, name), base, err)
				}
				continue // served in place of base to clients that take its encoding
			}
		}
		f := &file{name: name, ctype: mediaType(name), raw: b, etag: etag(b, "")}
		if z, ok := contents[name+".gz"]; ok {
			f.gz, f.gzEtag = z, etag(b, "-gz")
		}
		if z, ok := contents[name+".br"]; ok {
			f.br, f.brEtag = z, etag(b, "-br")
		}
		p.files[name] = f
	}
	return p, nil
}

// checkPlan opens the core plan with every pack of the folder, as a page
// loading all of them would.
func (p *Package) checkPlan(dir string, contents map[string][]byte) error {
	for name := range contents {
		if strings.HasPrefix(name, "numen-") && strings.HasSuffix(name, ".bin") && name != "numen-core.bin" {
			p.packs = append(p.packs, strings.TrimSuffix(strings.TrimPrefix(name, "numen-"), ".bin"))
		}
	}
	// In name order, so that an error's "pack 2" means the same file every time.
	sort.Strings(p.packs)
	var opts []numbering.Option
	for _, name := range p.packs {
		opts = append(opts, numbering.WithPack(contents["numen-"+name+".bin"]))
	}
	plan, err := numbering.OpenBytes(contents["numen-core.bin"], opts...)
	if err != nil {
		what := "numen-core.bin"
		if len(p.packs) > 0 {
			what += " with the packs " + strings.Join(p.packs, ", ")
		}
		return fmt.Errorf("browser package %s: %s: %w", dir, what, err)
	}
	p.data = plan.Version()
	return nil
}

// Data is the version of the package's numbering plan.
func (p *Package) Data() numbering.Version { return p.data }

// Packs names the packs the package holds ("networks", ...), sorted.
func (p *Package) Packs() []string { return append([]string(nil), p.packs...) }

// Files names the files served, sorted.
func (p *Package) Files() []string {
	names := make([]string, 0, len(p.files))
	for name := range p.files {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// ServeHTTP serves the file the request's path names.
func (p *Package) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed: the browser package is read with GET or HEAD")
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" {
		name = "index.html"
	}
	f, ok := p.files[name]
	if !ok || strings.Contains(name, "/") {
		writeError(w, http.StatusNotFound, "no file "+strconv.Quote(name)+" in the browser package")
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Access-Control-Allow-Origin", "*")
	if name == "index.html" { // the demo page; other HTML files are fragments to copy
		h.Set("Content-Security-Policy", CSP)
	}
	body, tag := f.raw, f.etag
	if f.gz != nil || f.br != nil {
		h.Add("Vary", "Accept-Encoding")
		accept := r.Header.Values("Accept-Encoding")
		switch {
		case f.br != nil && AcceptsBrotli(accept):
			body, tag = f.br, f.brEtag
			h.Set("Content-Encoding", "br")
		case f.gz != nil && AcceptsGzip(accept):
			body, tag = f.gz, f.gzEtag
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("Etag", tag)
	http.ServeContent(w, r, name, p.modTime, bytes.NewReader(body))
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	b := textfmt.AppendJSONString([]byte(`{"errors":[`), msg)
	w.Write(append(b, "]}\n"...))
}

// AcceptsGzip reports whether Accept-Encoding header values admit gzip:
// gzip, x-gzip or * listed without q=0 (RFC 9110, section 12.5.3). An
// explicit gzip;q=0 refuses it even when * is admitted.
func AcceptsGzip(values []string) bool { return accepts(values, "gzip", "x-gzip") }

// AcceptsBrotli reports whether Accept-Encoding header values admit
// Brotli: br or * listed without q=0; an explicit br;q=0 refuses it even
// when * is admitted. Brotli is served before gzip whatever the q values
// say, being the smaller.
func AcceptsBrotli(values []string) bool { return accepts(values, "br") }

// accepts reports whether Accept-Encoding header values admit a coding,
// by any of its names.
func accepts(values []string, names ...string) bool {
	star, named := false, 0 // named: 0 not named, 1 admitted, -1 refused
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			coding, params, _ := strings.Cut(item, ";")
			coding = strings.ToLower(strings.TrimSpace(coding))
			ok := qualityAbove0(params)
			switch {
			case slices.Contains(names, coding):
				if ok {
					named = max(named, 1)
				} else {
					named = -1
				}
			case coding == "*":
				star = star || ok
			}
		}
	}
	return named == 1 || (named == 0 && star)
}

// qualityAbove0 reads the q parameter of an Accept-Encoding item: absent,
// or a number above zero. A malformed q counts as not acceptable.
func qualityAbove0(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(p, "=")
		if !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil && q > 0 && q <= 1
	}
	return true
}

func mediaType(name string) string {
	switch {
	case strings.HasSuffix(name, ".wasm"):
		return "application/wasm"
	case strings.HasSuffix(name, ".mjs"), strings.HasSuffix(name, ".js"):
		return "text/javascript; charset=utf-8"
	case strings.HasSuffix(name, ".d.ts"):
		return "text/plain; charset=utf-8"
	case strings.HasSuffix(name, ".html"):
		return "text/html; charset=utf-8"
	case strings.HasSuffix(name, ".css"):
		return "text/css; charset=utf-8"
	case strings.HasSuffix(name, ".json"):
		return "application/json"
	case strings.HasSuffix(name, ".md"):
		return "text/markdown; charset=utf-8"
	case strings.HasSuffix(name, ".gz"):
		return "application/gzip"
	case strings.HasSuffix(name, ".br"):
		return "application/x-brotli"
	}
	return "application/octet-stream"
}

func etag(b []byte, suffix string) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:12]) + suffix + `"`
}

// twinOf splits the name of a compressed twin ("numen.wasm.br") into its
// file's name and its extension (".br" or ".gz").
func twinOf(name string) (base, ext string, ok bool) {
	for _, ext := range []string{".gz", ".br"} {
		if base, ok := strings.CutSuffix(name, ext); ok {
			return base, ext, true
		}
	}
	return "", "", false
}

// sameAfterDecompressing checks that z, gzip (ext ".gz") or Brotli (".br"),
// decompresses to raw.
func sameAfterDecompressing(ext string, z, raw []byte) error {
	var zr io.Reader = brotli.NewReader(bytes.NewReader(z))
	if ext == ".gz" {
		r, err := gzip.NewReader(bytes.NewReader(z))
		if err != nil {
			return err
		}
		zr = r
	}
	got, err := io.ReadAll(io.LimitReader(zr, int64(len(raw))+1))
	if err != nil {
		return err
	}
	if !bytes.Equal(got, raw) {
		return errors.New("it decompresses to other bytes")
	}
	return nil
}
