package main

// The package's tests build the browser package once (TestMain), check
// what was built, then load it from a loopback server, as numen serve
// --wasm serves it, into Node (node_test.go) and headless Chromium
// (browser_test.go), and compare every answer with package numbering's
// and package routing's. Node and Chromium come from .ci/deps; a test
// that cannot find them fails, naming what is missing.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/numenhq/numen/benchmarks"
	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
	"github.com/numenhq/numen/wasm/webpkg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dist is the package TestMain built, and built its files.
var (
	dist  string
	built []File
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "numen-wasm-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err == nil {
		// No wasm-opt: the tests test what go build makes, on any machine.
		built, err = Build(Options{Root: root, Out: dir, Version: "test", Log: os.Stderr})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	dist = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sizeBudget is the gzip size limit of numen.wasm, and of what a page
// loads before it classifies (the module, the core plan and numen.mjs):
// validity, type, country and formatting in a page for less than a
// megabyte; brotliBudget is the same files' limit as Brotli twins, which
// browsers take over HTTPS (and from loopback).
const (
	sizeBudget   = 1_000_000
	brotliBudget = 750_000
)

func TestBuild(t *testing.T) {
	t.Parallel()
	var names []string
	for _, f := range built {
		names = append(names, f.Name)
		raw, err := os.ReadFile(filepath.Join(dist, f.Name))
		require.NoError(t, err)
		assert.Len(t, raw, f.Size, f.Name)
		z, err := os.ReadFile(filepath.Join(dist, f.Name+".gz"))
		require.NoError(t, err)
		assert.Len(t, z, f.GZip, f.Name)
		zr, err := gzip.NewReader(strings.NewReader(string(z)))
		require.NoError(t, err)
		unz, err := io.ReadAll(zr)
		require.NoError(t, err)
		assert.Equal(t, raw, unz, "%s.gz holds %s", f.Name, f.Name)
		br, err := os.ReadFile(filepath.Join(dist, f.Name+".br"))
		require.NoError(t, err)
		assert.Len(t, br, f.Brotli, f.Name)
		unbr, err := io.ReadAll(brotli.NewReader(bytes.NewReader(br)))
		require.NoError(t, err)
		assert.Equal(t, raw, unbr, "%s.br holds %s", f.Name, f.Name)
		if f.Size > 1000 {
			assert.Less(t, f.Brotli, f.GZip, "%s: Brotli is smaller than gzip", f.Name)
		}
		assert.Zero(t, f.Unoptimized, "no wasm-opt was asked for")
	}
	assert.ElementsMatch(t, []string{
		"numen.wasm", "numen-core.bin", "numen-networks.bin", "numen-regions.bin", "numen-timezones.bin",
		"numen.mjs", "numen.d.ts", "package.json", "README.md", "index.html", "demo.mjs", "demo.css", "snippet.html",
	}, names)
	wasm := built[0]
	require.Equal(t, "numen.wasm", wasm.Name)
	assert.LessOrEqual(t, wasm.GZip, sizeBudget, "numen.wasm is %d bytes gzip", wasm.GZip)
	// What a page loads before it can classify: the module, the core plan
	// and numen.mjs (which carries wasm_exec.js), within the budget too.
	page, pageBrotli := 0, 0
	for _, f := range built {
		if coreFiles[f.Name] {
			page += f.GZip
			pageBrotli += f.Brotli
		}
	}
	assert.LessOrEqual(t, page, sizeBudget, "numen.wasm, numen-core.bin and numen.mjs are %d bytes gzip", page)
	assert.LessOrEqual(t, pageBrotli, brotliBudget, "numen.wasm, numen-core.bin and numen.mjs are %d bytes Brotli", pageBrotli)
	t.Logf("numen.wasm %d bytes gzip, %d Brotli; with numen-core.bin and numen.mjs %d gzip, %d Brotli", wasm.GZip, wasm.Brotli, page, pageBrotli)

	// The module never gives an overlay, so none of numbering's overlay
	// reader is linked (111 KB of it): its messages are not in the module.
	module, err := os.ReadFile(filepath.Join(dist, "numen.wasm"))
	require.NoError(t, err)
	for _, msg := range []string{"an overlay needs at least one", "one line per prefix"} {
		assert.NotContains(t, string(module), msg, "numen.wasm links numbering's overlay code")
	}

	// numen.mjs carries wasm_exec.js in place of its import, in its own
	// scope; the package has no wasm_exec.js of its own.
	mjs, err := os.ReadFile(filepath.Join(dist, "numen.mjs"))
	require.NoError(t, err)
	runtimeJS, err := goRuntimeJS()
	require.NoError(t, err)
	assert.Contains(t, string(mjs), runtimeStart+string(runtimeJS))
	assert.NotContains(t, string(mjs), runtimeImport)
	assert.NoFileExists(t, filepath.Join(dist, "wasm_exec.js"))
	_, err = inlineRuntime([]byte("export const x = 1;\n"), runtimeJS)
	assert.ErrorContains(t, err, "wasm/numen.mjs has no line starting "+runtimeImport)

	// The package opens as numen serve --wasm opens it, with the data the
	// server has built in.
	p, err := webpkg.Open(dist)
	require.NoError(t, err)
	assert.Equal(t, []string{"networks", "regions", "timezones"}, p.Packs())
	assert.Equal(t, data.Version(), p.Data().String())

	// package.json lists what the package holds.
	var pkg struct {
		Files []string `json:"files"`
		Types string   `json:"types"`
	}
	b, err := os.ReadFile(filepath.Join(dist, "package.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &pkg))
	for _, name := range pkg.Files {
		assert.Contains(t, names, name, "package.json lists %s", name)
	}
	assert.Contains(t, pkg.Files, strings.TrimPrefix(pkg.Types, "./"))
}

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	_, err := Build(Options{Out: t.TempDir()})
	assert.ErrorContains(t, err, "Root and Out are required")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	bad := filepath.Join(t.TempDir(), "plan.bin")
	require.NoError(t, os.WriteFile(bad, []byte("not a plan"), 0o644))
	_, err = Build(Options{Root: root, Out: t.TempDir(), Plan: bad})
	assert.ErrorContains(t, err, "build: plan "+bad+": ")
}

// serve serves the package in dist at /wasm/ of a loopback server, with the
// handler of numen serve --wasm, and returns the server's URL.
func serve(t *testing.T, dist string) string {
	t.Helper()
	p, err := webpkg.Open(dist)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/wasm/", http.StripPrefix("/wasm", p))
	// A module of bad bytes, served as WebAssembly: Numen.load must say so.
	mux.HandleFunc("/bad/numen.wasm", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/wasm")
		w.Write([]byte("\x00asm\x01\x00\x00\x00\xffnot a section"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// closedURL returns the URL of a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	return url
}

// expect holds the Go answers the module's are compared with.
type expect struct {
	core, full *numbering.Plan // the core plan; with every pack
	platform   *routing.Platform
}

func newExpect(t *testing.T, dist string) *expect {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dist, name))
		require.NoError(t, err)
		return b
	}
	core, err := numbering.OpenBytes(read("numen-core.bin"))
	require.NoError(t, err)
	full, err := numbering.OpenBytes(read("numen-core.bin"),
		numbering.WithPack(read("numen-networks.bin")), numbering.WithPack(read("numen-regions.bin")), numbering.WithPack(read("numen-timezones.bin")))
	require.NoError(t, err)
	pf, err := routing.NewPlatform(full, nil, nil)
	require.NoError(t, err)
	return &expect{core: core, full: full, platform: pf}
}

// classify is the NT result of package numbering as JSON values.
func classify(p *numbering.Plan, text string) map[string]any {
	r := p.ClassifyString(text)
	var m map[string]any
	if err := json.Unmarshal(r.AppendJSON(nil), &m); err != nil {
		panic(err)
	}
	return m
}

// classifyIn is numen.classify's object with a country, for package
// numbering's ClassifyIn.
func classifyIn(p *numbering.Plan, text, country string) map[string]any {
	r, err := p.ClassifyIn(text, country)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(r.AppendJSON(nil), &m); err != nil {
		panic(err)
	}
	return m
}

// check is numen.check's object for package numbering's Check.
func check(p *numbering.Plan, text string) map[string]any { return progress(p.Check(text)) }

// checkIn is numen.check's object with a country, for CheckIn.
func checkIn(p *numbering.Plan, text, country string) map[string]any {
	pr, err := p.CheckIn(text, country)
	if err != nil {
		panic(err)
	}
	return progress(pr)
}

// progress is numen.check's object for a Progress.
func progress(pr numbering.Progress) map[string]any {
	types := []any{}
	for _, ty := range pr.Types.Types() {
		types = append(types, ty.String())
	}
	countries := []any{}
	for _, r := range pr.Regions() {
		countries = append(countries, r)
	}
	var reason, code any
	if pr.Reason != 0 {
		reason = pr.Reason.String()
	}
	if pr.CallingCode != 0 {
		code = float64(pr.CallingCode)
	}
	return map[string]any{"state": pr.State.String(), "types": types, "countries": countries,
		"calling_code": code, "longer": pr.Longer, "reason": reason}
}

// route is GET /route's decision of package routing as JSON values.
func (e *expect) route(t *testing.T, mapJSON, text string) map[string]any {
	m, err := routing.ParseMap([]byte(mapJSON))
	require.NoError(t, err)
	r, err := e.platform.Resolver(m)
	require.NoError(t, err)
	res := e.full.ClassifyString(text)
	var d map[string]any
	require.NoError(t, json.Unmarshal(r.Resolve(&res).AppendJSON(nil), &d))
	return d
}

// routingMaps are the maps the tests route with: default route only,
// prefixes, countries, and network rules (which need the networks pack).
var routingMaps = []string{
	`{"defaultRoute": "GT1"}`,
	`{"defaultRoute": "GT1", "mnpFallback": true, "prefixes": [{"cns": "+4917", "route": "GT2"}, {"cns": "+44", "route": "DS7"}]}`,
	`{"countries": [{"countrycode": "DE", "route": "GT2"}, {"countrycode": "US", "route": "DS7"}]}`,
	`{"defaultRoute": "GT2", "mccmncs": [{"mccmnc": 26201, "route": "DS7"}, {"mccmnc": "23430", "route": "GT1"}]}`,
}

// corpus is the benchmark corpus: about 12,000 numbers of every country
// and type, one in seven invalid.
func corpus() []string { return benchmarks.Corpus() }

// prefixes are the inputs of numen.check: every beginning of some corpus
// numbers, as they are typed.
func prefixes(numbers []string) []string {
	var out []string
	for _, n := range numbers {
		for i := 1; i <= len(n); i++ {
			out = append(out, n[:i])
		}
	}
	return out
}

// diff compares the module's answers with Go's, field by field, and fails
// with the first few differences and their count.
func diff(t *testing.T, what string, inputs []string, got []map[string]any, want func(string) map[string]any) {
	t.Helper()
	require.Len(t, got, len(inputs), what)
	bad := 0
	for i, in := range inputs {
		w := want(in)
		g := got[i]
		delete(g, "packs")
		for k, wv := range w {
			if gv, ok := g[k]; !ok || !equalJSON(gv, wv) {
				if bad++; bad <= 5 {
					t.Errorf("%s %q: %s = %v, Go says %v", what, in, k, gv, wv)
				}
			}
		}
		if len(g) != len(w) {
			if bad++; bad <= 5 {
				t.Errorf("%s %q: fields %v, Go's %v", what, in, keys(g), keys(w))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d differences in %d answers", what, bad, len(inputs))
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
