// Command build writes Numen's browser package into a folder:
//
//	go run ./wasm/build -o dist/
//
// numen.wasm (package wasm built with GOOS=js GOARCH=wasm, optimized with
// wasm-opt when it is on PATH), the JavaScript module numen.mjs (with the
// Go distribution's wasm_exec.js inside, in the module's own scope: see
// inlineRuntime) and its TypeScript declarations, the core plan and the
// packs cut from data/numbering/plan.bin, and the demo page, each with a
// gzip twin (NAME.gz, smaller than gzip -9's: package deflate) and a Brotli twin
// (NAME.br, quality 11 with a 16 MiB window); it prints every file's raw,
// gzip and Brotli sizes. Its tests build the package and load it into
// Node and Chromium.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/compile"
	"github.com/numenhq/numen/wasm/build/internal/deflate"
)

// File is one file written, with its sizes.
type File struct {
	Name string // relative to the output folder
	// Size, GZip and Brotli are the file's bytes, and its twins'.
	Size, GZip, Brotli int
	// Unoptimized, UnoptimizedGZip and UnoptimizedBrotli are numen.wasm's
	// sizes before wasm-opt; 0 when wasm-opt did not run.
	Unoptimized, UnoptimizedGZip, UnoptimizedBrotli int
}

// Options configure Build.
type Options struct {
	// Root is the repository's root (where go.mod is).
	Root string
	// Out is the output folder, created when missing.
	Out string
	// Plan is the whole numbering plan file the core plan and packs are cut
	// from; "" for the repository's data/numbering/plan.bin. A server run
	// with --plan FILE serves a package built with the same file.
	Plan string
	// Version is stamped into numen.wasm (main.version); "" for "devel".
	Version string
	// WasmOpt runs wasm-opt -O1 on numen.wasm when it is on PATH (Debian's
	// binaryen); the sizes before and after are both reported. Measured on
	// Go 1.26's module (binaryen 108), -O1 gives the smallest twins: 1%
	// smaller with Brotli and 0.8% with gzip than none, where -Oz, the
	// smallest raw module, makes the Brotli twin 0.6% larger.
	WasmOpt bool
	// Log receives the go command's output; nil discards it.
	Log io.Writer
}

// coreFiles are what a page loads before it classifies: the module, the
// core plan and numen.mjs (which carries wasm_exec.js).
var coreFiles = map[string]bool{"numen.wasm": true, "numen-core.bin": true, "numen.mjs": true}

// packs are the optional parts a page loads when it shows them, and the
// plan sections each brings.
var packs = []struct {
	name     string
	sections []compile.Section
}{
	{"networks", []compile.Section{compile.Ranges, compile.Networks}},
	{"regions", []compile.Section{compile.Geocoding}},
	{"timezones", []compile.Section{compile.Timezones}},
}

// Build writes the package into o.Out and returns its files. Every file
// gets a gzip twin (NAME.gz) and a Brotli twin (NAME.br), which numen
// serve --wasm sends to browsers that take them (Brotli first).
func Build(o Options) ([]File, error) {
	if o.Root == "" || o.Out == "" {
		return nil, errors.New("build: Root and Out are required")
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	var files []File
	contents := map[string][]byte{}
	write := func(name string, b []byte) error {
		path := filepath.Join(o.Out, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
		files = append(files, File{Name: name, Size: len(b)})
		contents[name] = b
		return nil
	}

	// The whole plan the core and packs are cut from, checked first.
	planPath := o.Plan
	if planPath == "" {
		planPath = filepath.Join(o.Root, "data", "numbering", "plan.bin")
	}
	plan, err := os.ReadFile(planPath)
	if err != nil {
		return nil, fmt.Errorf("build: plan: %w", err)
	}
	if _, err := numbering.OpenBytes(plan); err != nil {
		return nil, fmt.Errorf("build: plan %s: %w", planPath, err)
	}

	// numen.wasm.
	version := o.Version
	if version == "" {
		version = "devel"
	}
	wasmPath := filepath.Join(o.Out, "numen.wasm")
	// The Go runtime is built without inlining (-gcflags=runtime=-l): its
	// code is most of the module, and inlined copies of its helpers
	// compress badly. Measured with as-you-type and find in the module,
	// it makes numen.wasm 27 KB smaller with Brotli (-4%) and 19 KB with
	// gzip; what a page does per number allocates nothing and does not
	// move (classify, check, as-you-type: the same CPU time in Node),
	// loading a plan neither, and the first route() (the routing platform
	// built, allocation-heavy) takes about 2 ms more.
	cmd := exec.Command("go", "build", "-trimpath", "-gcflags=runtime=-l", "-ldflags", "-s -w -X main.version="+version, "-o", wasmPath, "./wasm")
	cmd.Dir = o.Root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("build: GOOS=js GOARCH=wasm go build ./wasm: %w", err)
	}
	module, err := os.ReadFile(wasmPath)
	if err != nil {
		return nil, err
	}
	var unoptimized []byte // numen.wasm before wasm-opt
	if o.WasmOpt {
		if path, err := exec.LookPath("wasm-opt"); err == nil {
			optimized := wasmPath + ".opt"
			// Go's code uses these features; wasm-opt must keep them.
			cmd := exec.Command(path, "-O1", "--enable-bulk-memory", "--enable-sign-ext", "--enable-nontrapping-float-to-int", "--enable-mutable-globals", wasmPath, "-o", optimized)
			cmd.Stdout, cmd.Stderr = log, log
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("build: wasm-opt: %w", err)
			}
			defer os.Remove(optimized)
			unoptimized = module
			if module, err = os.ReadFile(optimized); err != nil {
				return nil, err
			}
		}
	}
	if err := write("numen.wasm", module); err != nil {
		return nil, err
	}

	// wasm_exec.js, from the toolchain that built numen.wasm: it goes into
	// numen.mjs, not into the package, since a page that loaded it as a
	// script would get its globals.
	runtimeJS, err := goRuntimeJS()
	if err != nil {
		return nil, err
	}

	// The plan: the core, and the packs. Short numbers stay out of both:
	// the module does not answer them, and their 26 KB gzip would take
	// the core's room under the size budget.
	core, err := compile.Strip(plan, compile.Ranges, compile.Networks, compile.Geocoding, compile.Timezones, compile.ShortNumbers)
	if err != nil {
		return nil, err
	}
	if err := write("numen-core.bin", core); err != nil {
		return nil, err
	}
	for _, p := range packs {
		b, err := compile.Pack(plan, p.sections...)
		if err != nil {
			return nil, err
		}
		if err := write("numen-"+p.name+".bin", b); err != nil {
			return nil, err
		}
	}

	// The JavaScript package and the demo, as they are in wasm/, but for
	// numen.mjs, which takes wasm_exec.js in.
	for _, name := range []string{"numen.mjs", "numen.d.ts", "package.json", "README.md", "web/index.html", "web/demo.mjs", "web/demo.css", "web/snippet.html"} {
		b, err := os.ReadFile(filepath.Join(o.Root, "wasm", name))
		if err != nil {
			return nil, err
		}
		if name == "numen.mjs" {
			if b, err = inlineRuntime(b, runtimeJS); err != nil {
				return nil, err
			}
		}
		if err := write(strings.TrimPrefix(name, "web/"), b); err != nil {
			return nil, err
		}
	}

	// The twins, compressed on every core: Brotli at its best quality
	// takes seconds for the large files.
	type job struct {
		file  *File
		raw   []byte
		name  string // the twins' base path; "" for sizes only
		unopt bool   // the sizes of numen.wasm before wasm-opt
	}
	var jobs []job
	for i := range files {
		f := &files[i]
		jobs = append(jobs, job{f, contents[f.Name], filepath.Join(o.Out, f.Name), false})
		if f.Name == "numen.wasm" && unoptimized != nil {
			f.Unoptimized = len(unoptimized)
			jobs = append(jobs, job{f, unoptimized, "", true})
		}
	}
	// The largest first, so that the cores finish together.
	slices.SortStableFunc(jobs, func(a, b job) int { return len(b.raw) - len(a.raw) })
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			for i := range next {
				j := jobs[i]
				z, br := gzipBytes(j.raw), brotliBytes(j.raw)
				if j.unopt {
					j.file.UnoptimizedGZip, j.file.UnoptimizedBrotli = len(z), len(br)
					continue
				}
				j.file.GZip, j.file.Brotli = len(z), len(br)
				if err := os.WriteFile(j.name+".gz", z, 0o644); err != nil {
					errs[i] = err
				} else if err := os.WriteFile(j.name+".br", br, 0o644); err != nil {
					errs[i] = err
				}
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return files, nil
}

// goRuntimeJS returns the Go distribution's wasm_exec.js.
func goRuntimeJS() ([]byte, error) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("build: go env GOROOT: %w", err)
	}
	var runtimeJS []byte
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if runtimeJS, err = os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), p)); err == nil {
			return runtimeJS, nil
		}
	}
	return nil, fmt.Errorf("build: wasm_exec.js of the Go distribution: %w", err)
}

// runtimeImport is the line of numen.mjs that inlineRuntime replaces.
const runtimeImport = `import { Go } from "./wasm_exec.js";`

// inlineRuntime replaces numen.mjs's import of wasm_exec.js with the
// script itself, run in a function whose globalThis is a scope object of
// the module's own: what wasm_exec.js defines (the Go class, and the fs,
// process and path it gives the Go runtime) goes there, not onto the
// page's window, and a page's own globals of those names (a bundler's
// process, say) are neither read nor changed. Everything else the Go
// runtime asks the scope for (Object, Uint8Array, Date, ...) comes from
// the real globalThis. The function's fs is the one wasm_exec.js names
// bare (fs.writeSync: the Go runtime's output, which goes to the console).
func inlineRuntime(module, runtimeJS []byte) ([]byte, error) {
	i := bytes.Index(module, []byte(runtimeImport))
	if i < 0 || (i > 0 && module[i-1] != '\n') {
		return nil, fmt.Errorf("build: wasm/numen.mjs has no line starting %s to put wasm_exec.js in place of", runtimeImport)
	}
	end := i + bytes.IndexByte(module[i:], '\n') + 1
	var out bytes.Buffer
	out.Write(module[:i])
	out.WriteString(runtimeStart)
	out.Write(runtimeJS)
	if !bytes.HasSuffix(runtimeJS, []byte("\n")) {
		out.WriteByte('\n')
	}
	out.WriteString(runtimeEnd)
	out.Write(module[end:])
	return out.Bytes(), nil
}

// runtimeStart and runtimeEnd go around wasm_exec.js in numen.mjs.
const (
	runtimeStart = `// The Go distribution's wasm_exec.js, which must match the toolchain that
// built numen.wasm, put here by go run ./wasm/build. It runs with a
// globalThis of this module's own, so that what it defines (Go, and the fs,
// process and path it gives the Go runtime) stays in this module: loading
// Numen adds nothing to the page's globals and reads none of its own.
const Go = ((globalThis) => {
let fs; // named bare by wasm_exec.js, which defines it below
// Start of wasm_exec.js.
`
	runtimeEnd = `// End of wasm_exec.js.
fs = globalThis.fs;
return globalThis.Go;
})(new Proxy({ fs: undefined, process: undefined, path: undefined, Go: undefined }, {
  get: (own, key) => (Object.hasOwn(own, key) ? own[key] : globalThis[key]),
  has: (own, key) => key in own || key in globalThis,
}));
`
)

// gzipBytes compresses b as gzip, at least as small as gzip -9 (zlib's
// best level) would: package deflate, since compress/gzip's best level
// makes the plan's packs up to a third larger.
func gzipBytes(b []byte) []byte { return deflate.Gzip(b) }

// brotliBytes compresses b with Brotli at its best quality (11) and its
// largest standard window (16 MiB, more than any file of the package), as
// brotli -q 11 --lgwin=24 does.
func brotliBytes(b []byte) []byte {
	var out bytes.Buffer
	bw := brotli.NewWriterOptions(&out, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: 24})
	bw.Write(b)
	bw.Close()
	return out.Bytes()
}
