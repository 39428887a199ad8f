package browser

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/numenhq/numen/benchmarks"
	"github.com/numenhq/numen/wasm/jstest"
	"github.com/numenhq/numen/wasm/webpkg"
)

// libphonenumber-js, pinned by version and tarball integrity; its UMD
// bundle with the full metadata ("max") is what the page loads.
var libPin = jstest.Pin{
	Name:      "libphonenumber-js",
	Version:   "1.13.16",
	Integrity: "sha512-tIOCM9yx2Go6d5/ZANe0K+G4AZek1Ymx81HxQpf19Sri4zMP95eQbKdnUGHAvFQ4nx0PeLhFqvAfisTADXj3tQ==",
}

const libBundle = "bundle/libphonenumber-max.js"

var wasmOpt = flag.Bool("wasm-opt", false, "build numen.wasm with wasm-opt -O1 (Debian's binaryen)")

// libs are the libraries compared, as the page names them.
var libs = []string{"numen", "libphonenumber-js"}

// env is what every benchmark shares: the page's server and a Chromium.
type env struct {
	url  string
	ctx  context.Context
	stop func()
}

var (
	once     sync.Once
	shared   *env
	setupErr error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.stop()
	}
	os.Exit(code)
}

// setup builds the browser package, fetches libphonenumber-js, serves both
// and the page from a loopback server and starts headless Chromium, once.
func setup(tb testing.TB) *env {
	tb.Helper()
	once.Do(func() { shared, setupErr = newEnv() })
	if setupErr != nil {
		tb.Fatal(setupErr)
	}
	return shared
}

func newEnv() (*env, error) {
	if _, err := jstest.ChromiumPath(); err != nil { // before the build, which takes a while
		return nil, err
	}
	dist, err := os.MkdirTemp("", "numen-bench-")
	if err != nil {
		return nil, err
	}
	args := []string{"run", "./wasm/build", "-o", dist, "-version", "bench"}
	if !*wasmOpt {
		args = append(args, "-no-wasm-opt")
	}
	build := exec.Command("go", args...)
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(dist)
		return nil, fmt.Errorf("go run ./wasm/build: %v\n%s", err, out)
	}
	pkg, err := webpkg.Open(dist)
	os.RemoveAll(dist) // Open read it all
	if err != nil {
		return nil, err
	}
	bundle, err := libBundleJS()
	if err != nil {
		return nil, err
	}
	// libphonenumber-js is served as Numen's package is: Brotli to
	// browsers that take it, else gzip.
	zipped, brotlied := gzipBytes(bundle), brotliBytes(bundle)
	mux := http.NewServeMux()
	mux.Handle("/wasm/", http.StripPrefix("/wasm", pkg))
	mux.HandleFunc("/lib/libphonenumber-max.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("Vary", "Accept-Encoding")
		switch accept := r.Header.Values("Accept-Encoding"); {
		case webpkg.AcceptsBrotli(accept):
			w.Header().Set("Content-Encoding", "br")
			w.Write(brotlied)
		case webpkg.AcceptsGzip(accept):
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(zipped)
		default:
			w.Write(bundle)
		}
	})
	mux.Handle("/", http.FileServer(http.Dir("page")))
	srv := httptest.NewServer(mux)

	ctx, stopChromium, err := jstest.Start(context.Background(),
		chromedp.Flag("enable-precise-memory-info", true),
		chromedp.Flag("js-flags", "--expose-gc"),
	)
	if err != nil {
		srv.Close()
		return nil, err
	}
	e := &env{url: srv.URL + "/", ctx: ctx, stop: func() {
		stopChromium()
		srv.Close()
	}}
	if err := e.cache(true); err != nil {
		e.stop()
		return nil, err
	}
	return e, nil
}

// cache turns Chromium's HTTP cache (and with it V8's cache of compiled
// code) on or off for the pages loaded next.
func (e *env) cache(on bool) error {
	return chromedp.Do(e.ctx, func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
			return chromedp.Void{}, err
		}
		_, err := cdp.Call(ctx, t, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: !on})
		return chromedp.Void{}, err
	})
}

// open loads the page afresh and waits until it is ready.
func (e *env) open(tb testing.TB) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(e.url), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`))); err != nil {
		tb.Fatal(err)
	}
}

// call runs a function of the page's bench object with JSON arguments.
func call[T any](tb testing.TB, e *env, fn string, args ...any) T {
	tb.Helper()
	js := "globalThis.bench." + fn + "("
	for i, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			tb.Fatal(err)
		}
		if i > 0 {
			js += ","
		}
		js += string(b)
	}
	v, err := chromedp.Run(e.ctx, chromedp.Evaluate[T](js+")", chromedp.EvalAwaitPromise))
	if err != nil {
		tb.Fatalf("%s: %v", fn, err)
	}
	return v
}

type readyResult struct {
	MS        float64 `json:"ms"`
	WasmMiB   float64 `json:"wasmMiB"`
	JSHeapMiB float64 `json:"jsHeapMiB"`
}

type loopResult struct {
	NS  float64 `json:"ns"`
	Sum float64 `json:"sum"`
}

// corpus is the benchmark corpus in "+" form, which both libraries read.
func corpus() []string {
	c := benchmarks.Corpus()
	for i, s := range c {
		c[i] = benchmarks.PlusForm(s)
	}
	return c
}

// BenchmarkReady: from the start of loading a library (its code, and for
// Numen the module and the core plan, gzip-compressed from a loopback
// server) to its first answer: with the cache off, a first visit's; with
// it on, a later visit's, which revalidates every file (304) and takes the
// compiled code from the cache. Besides ns/op it reports the module's
// memory (wasm-MiB: Numen's WebAssembly memory) and the page's JavaScript
// heap after a collection (jsheap-MiB).
func BenchmarkReady(b *testing.B) {
	e := setup(b)
	for _, cache := range []string{"off", "on"} {
		for _, lib := range libs {
			b.Run("cache="+cache+"/lib="+lib, func(b *testing.B) {
				if err := e.cache(cache == "on"); err != nil {
					b.Fatal(err)
				}
				defer e.cache(true)
				if cache == "on" { // a first visit fills the cache
					e.open(b)
					call[readyResult](b, e, "ready", lib)
				}
				var total, wasm, heap float64
				for range b.N {
					e.open(b)
					r := call[readyResult](b, e, "ready", lib)
					total += r.MS
					wasm, heap = r.WasmMiB, r.JSHeapMiB
				}
				b.ReportMetric(total*1e6/float64(b.N), "ns/op")
				b.ReportMetric(wasm, "wasm-MiB")
				b.ReportMetric(heap, "jsheap-MiB")
			})
		}
	}
}

// BenchmarkClassify: one number of the corpus classified: Numen's
// classify (the whole NT result object), libphonenumber-js's
// parsePhoneNumberFromString with isValid, getType and country.
func BenchmarkClassify(b *testing.B) {
	loop(b, "classify")
}

// BenchmarkCheck: one input being typed, every beginning of the corpus's
// numbers in turn: Numen's check, libphonenumber-js's
// validatePhoneNumberLength.
func BenchmarkCheck(b *testing.B) {
	loop(b, "check")
}

// BenchmarkAsYouType: one key typed into a phone field (the corpus'
// numbers, "+" and digits, one after the other): Numen's
// asYouType().input, libphonenumber-js's AsYouType.input, which both
// return the field's text.
func BenchmarkAsYouType(b *testing.B) {
	loop(b, "asYouType")
}

// BenchmarkFind: the numbers of a page of text (about 4 KB, 80 numbers
// among dates, prices and order numbers) found: Numen's find (with every
// match's classify fields), libphonenumber-js's findPhoneNumbersInText.
func BenchmarkFind(b *testing.B) {
	e := setup(b)
	numbers := corpus()
	for _, lib := range libs {
		b.Run("lib="+lib, func(b *testing.B) {
			b.StopTimer()
			e.open(b)
			call[readyResult](b, e, "ready", lib)
			call[int](b, e, "setCorpus", numbers)
			b.SetBytes(int64(call[int](b, e, "pageLength"))) // characters, all ASCII: MB/s
			call[loopResult](b, e, "find", lib, 20)          // warm-up
			b.StartTimer()
			r := call[loopResult](b, e, "find", lib, b.N)
			b.StopTimer()
			b.ReportMetric(r.NS, "ns/op")
		})
	}
}

func loop(b *testing.B, fn string) {
	e := setup(b)
	numbers := corpus()
	for _, lib := range libs {
		b.Run("lib="+lib, func(b *testing.B) {
			b.StopTimer() // the framework sizes b.N by the loop alone
			e.open(b)
			call[readyResult](b, e, "ready", lib)
			typed := call[int](b, e, "setCorpus", numbers)
			// Warm-up: the JIT's tiers, and every input once (Numen
			// decodes each string of its answers once).
			warm := 5 * len(numbers)
			if fn == "check" || fn == "asYouType" {
				warm = 2 * typed
			}
			call[loopResult](b, e, fn, lib, warm)
			b.StartTimer()
			r := call[loopResult](b, e, fn, lib, b.N)
			b.StopTimer()
			b.ReportMetric(r.NS, "ns/op")
		})
	}
}

// TestPage runs every function of the benchmark page once for each
// library: the benchmarks' setup works, and both libraries answer.
func TestPage(t *testing.T) {
	e := setup(t)
	numbers := corpus()[:2000]
	for _, lib := range libs {
		e.open(t)
		r := call[readyResult](t, e, "ready", lib)
		if r.MS <= 0 || r.JSHeapMiB <= 0 {
			t.Errorf("%s: ready %+v", lib, r)
		}
		if (lib == "numen") != (r.WasmMiB > 0) {
			t.Errorf("%s: wasm memory %v MiB", lib, r.WasmMiB)
		}
		if n := call[int](t, e, "setCorpus", numbers); n < 10*len(numbers) {
			t.Errorf("%d typed inputs from %d numbers", n, len(numbers))
		}
		for _, fn := range []string{"classify", "check", "asYouType"} {
			if r := call[loopResult](t, e, fn, lib, len(numbers)); r.Sum < float64(len(numbers)) || r.NS <= 0 {
				t.Errorf("%s %s: %+v", lib, fn, r)
			}
		}
		found := call[loopResult](t, e, "find", lib, 1)
		if found.Sum < 40 || found.NS <= 0 {
			t.Errorf("%s find: %+v", lib, found)
		}
		t.Logf("%s: %v numbers found in a page of %d characters", lib, found.Sum, call[int](t, e, "pageLength"))
	}
}

// libBundleJS returns libphonenumber-js's max bundle, from the pinned
// tarball.
func libBundleJS() ([]byte, error) {
	tgz, err := libPin.Tarball()
	if err != nil {
		return nil, err
	}
	return jstest.File(tgz, libBundle)
}

func brotliBytes(b []byte) []byte {
	var out bytes.Buffer
	bw := brotli.NewWriterOptions(&out, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: 24})
	bw.Write(b)
	bw.Close()
	return out.Bytes()
}

func gzipBytes(b []byte) []byte {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}
