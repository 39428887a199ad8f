package webpkg

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering/compile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writePackage writes a package as go run ./wasm/build lays it out, with
// the real core plan and packs; the module and scripts are placeholders
// (the package's own tests serve a built one).
func writePackage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	core, err := compile.Strip(data.Plan(), compile.Ranges, compile.Networks, compile.Geocoding, compile.Timezones, compile.ShortNumbers)
	require.NoError(t, err)
	networks, err := compile.Pack(data.Plan(), compile.Ranges, compile.Networks)
	require.NoError(t, err)
	timezones, err := compile.Pack(data.Plan(), compile.Timezones)
	require.NoError(t, err)
	files := map[string][]byte{
		"numen.wasm":          append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte{0}, 5000)...),
		"numen.mjs":           []byte("export class Numen {}\n"),
		"index.html":          []byte("<!doctype html><title>demo</title>\n"),
		"numen.d.ts":          []byte("export declare class Numen {}\n"),
		"numen-core.bin":      core,
		"numen-networks.bin":  networks,
		"numen-timezones.bin": timezones,
	}
	for name, b := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
		if name != "index.html" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name+".gz"), gz(b), 0o644))
		}
		if name != "index.html" && name != "numen.d.ts" { // numen.d.ts: a file with a gzip twin only
			require.NoError(t, os.WriteFile(filepath.Join(dir, name+".br"), br(b), 0o644))
		}
	}
	return dir
}

func gz(b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

func br(b []byte) []byte {
	var out bytes.Buffer
	bw := brotli.NewWriterLevel(&out, 4) // fast: the tests need valid twins, not small ones
	bw.Write(b)
	bw.Close()
	return out.Bytes()
}

func get(t *testing.T, h http.Handler, method, path string, header ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}

func TestServe(t *testing.T) {
	t.Parallel()
	dir := writePackage(t)
	p, err := Open(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"networks", "timezones"}, p.Packs())
	assert.NotContains(t, p.Files(), "numen.wasm.gz", "a twin is served in place of its file, not under its own name")
	assert.NotContains(t, p.Files(), "numen.wasm.br")
	assert.Contains(t, p.Files(), "numen.wasm")
	wasm, err := os.ReadFile(filepath.Join(dir, "numen.wasm"))
	require.NoError(t, err)

	// Brotli first, to any client that takes it, whatever the q values.
	var brTag string
	for _, accept := range []string{"gzip, deflate, br, zstd", "br", "gzip;q=1, br;q=0.1", "*"} {
		resp := get(t, p, "GET", "/numen.wasm", "Accept-Encoding", accept)
		assert.Equal(t, 200, resp.StatusCode)
		assert.Equal(t, "br", resp.Header.Get("Content-Encoding"), accept)
		assert.Equal(t, "Accept-Encoding", resp.Header.Get("Vary"))
		assert.Equal(t, "application/wasm", resp.Header.Get("Content-Type"))
		got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(body(t, resp))))
		require.NoError(t, err)
		assert.Equal(t, wasm, got)
		brTag = resp.Header.Get("Etag")
	}
	resp := get(t, p, "GET", "/numen.wasm", "Accept-Encoding", "br", "If-None-Match", brTag)
	assert.Equal(t, http.StatusNotModified, resp.StatusCode)
	// A file with a gzip twin only is sent gzip-compressed to a client that takes both.
	resp = get(t, p, "GET", "/numen.d.ts", "Accept-Encoding", "gzip, br")
	assert.Equal(t, "gzip", resp.Header.Get("Content-Encoding"))
	assert.Equal(t, "Accept-Encoding", resp.Header.Get("Vary"))

	resp = get(t, p, "GET", "/numen.wasm", "Accept-Encoding", "br;q=0, gzip;q=0.8")
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "application/wasm", resp.Header.Get("Content-Type"))
	assert.Equal(t, "gzip", resp.Header.Get("Content-Encoding"))
	assert.Equal(t, "Accept-Encoding", resp.Header.Get("Vary"))
	assert.Equal(t, "*", resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Equal(t, "no-cache", resp.Header.Get("Cache-Control"))
	zr, err := gzip.NewReader(bytes.NewReader(body(t, resp)))
	require.NoError(t, err)
	got, err := io.ReadAll(zr)
	require.NoError(t, err)
	assert.Equal(t, wasm, got)
	gzTag := resp.Header.Get("Etag")
	assert.NotEqual(t, brTag, gzTag)

	resp = get(t, p, "GET", "/numen.wasm")
	assert.Equal(t, "", resp.Header.Get("Content-Encoding"))
	assert.Equal(t, wasm, body(t, resp))
	tag := resp.Header.Get("Etag")
	assert.NotEqual(t, tag, gzTag, "each representation has its own strong ETag")

	resp = get(t, p, "GET", "/numen.wasm", "If-None-Match", tag)
	assert.Equal(t, http.StatusNotModified, resp.StatusCode)
	resp = get(t, p, "GET", "/numen.wasm", "Accept-Encoding", "gzip;q=0, br;q=0, *")
	assert.Equal(t, "", resp.Header.Get("Content-Encoding"), "gzip;q=0 refuses gzip, br;q=0 Brotli")
	resp = get(t, p, "GET", "/numen.wasm", "Accept-Encoding", "identity")
	assert.Equal(t, "", resp.Header.Get("Content-Encoding"))
	assert.Equal(t, "Accept-Encoding", resp.Header.Get("Vary"))
	resp = get(t, p, "GET", "/numen.wasm", "Range", "bytes=0-3")
	assert.Equal(t, http.StatusPartialContent, resp.StatusCode)
	assert.Equal(t, []byte("\x00asm"), body(t, resp))
	resp = get(t, p, "HEAD", "/numen.mjs")
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "text/javascript; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Empty(t, body(t, resp))

	resp = get(t, p, "GET", "/")
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Contains(t, string(body(t, resp)), "<title>demo</title>")
	assert.Empty(t, resp.Header.Get("Vary"), "index.html has no twin")
	assert.Equal(t, "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'", resp.Header.Get("Content-Security-Policy"), "the demo page runs under the strict policy")
	assert.Empty(t, get(t, p, "GET", "/numen.mjs").Header.Get("Content-Security-Policy"), "only pages have a policy")

	for _, path := range []string{"/nothing.js", "/numen.wasm/x", "/../go.mod", "/.hidden"} {
		resp = get(t, p, "GET", path)
		assert.Equal(t, 404, resp.StatusCode, path)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		assert.Contains(t, string(body(t, resp)), `{"errors":["no file`)
	}
	resp = get(t, p, "POST", "/numen.wasm")
	assert.Equal(t, 405, resp.StatusCode)
	assert.Equal(t, "GET, HEAD", resp.Header.Get("Allow"))
	assert.Contains(t, string(body(t, resp)), `"method POST not allowed`)
}

func TestServeUnderStripPrefix(t *testing.T) {
	t.Parallel()
	dir := writePackage(t)
	p, err := Open(dir)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/wasm/", http.StripPrefix("/wasm", p))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/wasm/numen-core.bin") // Go's client asks for gzip and decompresses
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.True(t, resp.Uncompressed, "sent compressed")
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	core, err := os.ReadFile(filepath.Join(dir, "numen-core.bin"))
	require.NoError(t, err)
	assert.Equal(t, core, got)
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		damage func(dir string)
		want   string
	}{
		{"no module", func(dir string) { os.Remove(filepath.Join(dir, "numen.wasm")) }, "has no numen.wasm: build one with go run ./wasm/build -o "},
		{"no plan", func(dir string) { os.Remove(filepath.Join(dir, "numen-core.bin")) }, "has no numen-core.bin"},
		{"not wasm", func(dir string) { write(dir, "numen.wasm", []byte("<html>")) }, "numen.wasm is not a WebAssembly module"},
		{"damaged plan", func(dir string) { flip(dir, "numen-core.bin", 3000) }, "numen-core.bin with the packs networks, timezones:"},
		{"damaged pack", func(dir string) { flip(dir, "numen-timezones.bin", 2000) }, "pack 2"},
		{"pack of another plan", func(dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, "numen-core.bin"))
			write(dir, "numen-regions.bin", b)
		}, "numen-core.bin with the packs networks, regions, timezones:"},
		{"twin of other bytes", func(dir string) { write(dir, "numen.mjs.gz", gz([]byte("export {};"))) }, "numen.mjs.gz is not numen.mjs compressed: it decompresses to other bytes"},
		{"twin not gzip", func(dir string) { write(dir, "numen.mjs.gz", []byte("plain")) }, "numen.mjs.gz is not numen.mjs compressed"},
		{"Brotli twin of other bytes", func(dir string) { write(dir, "numen.wasm.br", br([]byte("\x00asm"))) }, "numen.wasm.br is not numen.wasm compressed: it decompresses to other bytes"},
		{"Brotli twin not Brotli", func(dir string) { write(dir, "numen-core.bin.br", []byte("plain")) }, "numen-core.bin.br is not numen-core.bin compressed"},
		{"Brotli twin cut short", func(dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, "numen-core.bin.br"))
			write(dir, "numen-core.bin.br", b[:len(b)/2])
		}, "numen-core.bin.br is not numen-core.bin compressed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writePackage(t)
			tc.damage(dir)
			_, err := Open(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := Open(filepath.Join(t.TempDir(), "missing"))
	assert.ErrorContains(t, err, "browser package: open ")
}

func write(dir, name string, b []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		panic(err)
	}
}

func flip(dir, name string, at int) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		panic(err)
	}
	b[at] ^= 0x20
	write(dir, name, b)
	write(dir, name+".gz", gz(b)) // the twins match: the damage is in the plan
	write(dir, name+".br", br(b))
}

func TestAcceptsGzip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{"", false},
		{"gzip", true},
		{"GZip", true},
		{"x-gzip", true},
		{"gzip, deflate, br", true},
		{"br;q=1.0, gzip;q=0.8, *;q=0.1", true},
		{"deflate, br", false},
		{"*", true},
		{"*;q=0", false},
		{"gzip;q=0", false},
		{"gzip;q=0.000", false},
		{"gzip;q=0, *", false},
		{"*, gzip;q=0", false},
		{"gzip;q=bad", false},
		{"gzip;q=2", false},
		{"identity", false},
		{" gzip ; q=0.5 ", true},
		{"gzip;level=1", true},
	} {
		assert.Equal(t, tc.want, AcceptsGzip([]string{tc.header}), "%q", tc.header)
	}
	assert.True(t, AcceptsGzip([]string{"br", "gzip"}), "several header lines")
	assert.False(t, AcceptsGzip(nil))
}

// FuzzAcceptsGzip holds the header parser to two rules on any input: it
// does not panic, and an explicit gzip;q=0 at the end always refuses gzip.
func FuzzAcceptsGzip(f *testing.F) {
	for _, s := range []string{"gzip", "*;q=0.5", "gzip;q=0, *", "br;;q=,", ";;,,", "x-gzip;q=1e-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		AcceptsGzip([]string{header})
		if AcceptsGzip([]string{header + ", gzip;q=0"}) {
			t.Errorf("%q, gzip;q=0 admits gzip", header)
		}
		if strings.TrimSpace(header) == "" && AcceptsGzip([]string{header}) {
			t.Errorf("%q admits gzip", header)
		}
	})
}

func TestAcceptsBrotli(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{"", false},
		{"br", true},
		{"BR", true},
		{"gzip, deflate, br, zstd", true},
		{"gzip, deflate", false},
		{"br;q=0", false},
		{"br;q=0, *", false},
		{"*", true},
		{"*;q=0", false},
		{"gzip;q=0, *", true},
		{"brotli", false},
		{"x-br", false},
	} {
		assert.Equal(t, tc.want, AcceptsBrotli([]string{tc.header}), "%q", tc.header)
	}
}

// FuzzAcceptsBrotli: no panic, and an explicit br;q=0 at the end always
// refuses Brotli.
func FuzzAcceptsBrotli(f *testing.F) {
	for _, s := range []string{"br", "*;q=0.5", "br;q=0, *", "gzip, br;;q=,", ";;,,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		AcceptsBrotli([]string{header})
		if AcceptsBrotli([]string{header + ", br;q=0"}) {
			t.Errorf("%q, br;q=0 admits Brotli", header)
		}
	})
}
