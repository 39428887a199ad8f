package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/numenhq/numen/wasm/webpkg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pageResult is what testdata/page/check.mjs writes.
type pageResult struct {
	Format, Check, Network, Route string
	Error                         string
	Added                         []string
	NodeEnv                       any
	NodeEnvError                  string
	SameProcess                   bool
	Violations                    []string
}

// encodings records the Accept-Encoding a browser sent for each file of
// the package and the Content-Encoding it got.
type encodings struct {
	mu   sync.Mutex
	sent map[string][2]string // path -> {Accept-Encoding, Content-Encoding}
}

func (e *encodings) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		e.mu.Lock()
		if _, ok := e.sent[r.URL.Path]; !ok { // the first answer: later ones may be 304, without a Content-Encoding
			e.sent[r.URL.Path] = [2]string{r.Header.Get("Accept-Encoding"), w.Header().Get("Content-Encoding")}
		}
		e.mu.Unlock()
	})
}

// TestNoGlobalsUnderCSP loads Numen into a page of headless Chromium served
// with the strict Content-Security-Policy of the README,
//
//	default-src 'self'; script-src 'self' 'wasm-unsafe-eval'
//
// and checks that it loads and answers, that loading added no own property
// to window (Go's loader keeps Go, fs, process and path in numen.mjs), and
// that the process.env.NODE_ENV check other libraries make does not throw.
// The same page with a process shim of its own keeps it; the same page
// without 'wasm-unsafe-eval' cannot compile the module, and Numen.load
// says so: the policy is what the README says it must be.
func TestNoGlobalsUnderCSP(t *testing.T) {
	t.Parallel()
	ctx := chromium(t)
	errs := watch(t, ctx)
	p, err := webpkg.Open(dist)
	require.NoError(t, err)
	enc := &encodings{sent: map[string][2]string{}}
	mux := http.NewServeMux()
	mux.Handle("/wasm/", enc.wrap(http.StripPrefix("/wasm", p)))
	page := http.FileServer(http.Dir("testdata/page"))
	for prefix, policy := range map[string]string{
		"/strict/": webpkg.CSP,
		"/nowasm/": "default-src 'self'; script-src 'self'",
		"/plain/":  "",
	} {
		mux.Handle(prefix, http.StripPrefix(strings.TrimSuffix(prefix, "/"), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if policy != "" {
				w.Header().Set("Content-Security-Policy", policy)
			}
			w.Header().Set("Cache-Control", "no-store")
			page.ServeHTTP(w, r)
		})))
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()

	load := func(path string) pageResult {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+path)))
		js, err := chromedp.Run(ctx, chromedp.Poll[string](`document.body.dataset.result`, chromedp.WithPollingTimeout(60*time.Second)))
		require.NoError(t, err, path)
		var r pageResult
		require.NoError(t, json.Unmarshal([]byte(js), &r), js)
		return r
	}
	for _, path := range []string{"/strict/", "/plain/", "/strict/?shim"} {
		r := load(path)
		assert.Empty(t, r.Error, path)
		assert.Equal(t, "+49 1512 3456789", r.Format, path)
		assert.Equal(t, "incomplete", r.Check, path)
		assert.Equal(t, "T-Mobile", r.Network, path)
		assert.Equal(t, "GT2", r.Route, path)
		assert.Empty(t, r.Added, "%s: loading Numen added these to window", path)
		assert.Empty(t, r.NodeEnvError, path)
		assert.True(t, r.SameProcess, path)
		assert.Empty(t, r.Violations, path)
		if strings.Contains(path, "shim") {
			assert.Equal(t, "production", r.NodeEnv, "the page's own process is kept")
		} else {
			assert.Equal(t, false, r.NodeEnv, "%s: no process", path)
		}
	}
	r := load("/nowasm/")
	assert.True(t, strings.HasPrefix(r.Error, "Error: numen: loading the module /wasm/numen.wasm: "), "without 'wasm-unsafe-eval': %q", r.Error)
	assert.Contains(t, r.Error, "Content Security")
	assert.Empty(t, r.Added)

	// What Chromium asked for over plain HTTP from loopback, and got:
	// Brotli, which it asks for from loopback (from other hosts, over
	// HTTPS only).
	enc.mu.Lock()
	for path, e := range enc.sent {
		t.Logf("%s: Accept-Encoding %q, sent %q", path, e[0], e[1])
	}
	wasm := enc.sent["/wasm/numen.wasm"]
	enc.mu.Unlock()
	if webpkg.AcceptsBrotli([]string{wasm[0]}) {
		assert.Equal(t, "br", wasm[1])
	} else {
		assert.Equal(t, "gzip", wasm[1])
	}
	errs.check(t)
}
