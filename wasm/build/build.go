// Command build writes Numen's browser package into a folder:
//
//	go run ./wasm/build -o dist/
//
// numen.wasm (package wasm built with GOOS=js GOARCH=wasm, optimized with
// wasm-opt when it is on PATH), the Go distribution's wasm_exec.js, the
// JavaScript module numen.mjs (with wasm_exec.js inlined, so that a page
// makes one request less) and its TypeScript declarations, the core
// plan and the packs cut from data/numbering/plan.bin, and the demo page,
// each with a gzip -9 twin; it prints every file's raw and gzip sizes. Its
// tests build the package and load it into Node and Chromium.
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/compile"
)

// File is one file written, with its sizes.
type File struct {
	Name       string // relative to the output folder
	Size, GZip int    // bytes, and bytes after gzip -9
	// Unoptimized and UnoptimizedGZip are numen.wasm's sizes before
	// wasm-opt; 0 when wasm-opt did not run.
	Unoptimized, UnoptimizedGZip int
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
	// WasmOpt runs wasm-opt -Oz on numen.wasm when it is on PATH (Debian's
	// binaryen); the sizes before and after are both reported.
	WasmOpt bool
	// Log receives the go command's output; nil discards it.
	Log io.Writer
}

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
// gets a gzip -9 twin (NAME.gz), which numen serve --wasm sends to browsers
// that take gzip.
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
	write := func(name string, b []byte) error {
		path := filepath.Join(o.Out, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
		z := gzipBytes(b)
		if err := os.WriteFile(path+".gz", z, 0o644); err != nil {
			return err
		}
		files = append(files, File{Name: name, Size: len(b), GZip: len(z)})
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
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+version, "-o", wasmPath, "./wasm")
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
	unoptimized, unoptimizedGZip := 0, 0
	if o.WasmOpt {
		if path, err := exec.LookPath("wasm-opt"); err == nil {
			optimized := wasmPath + ".opt"
			// Go's code uses these features; wasm-opt must keep them.
			cmd := exec.Command(path, "-Oz", "--enable-bulk-memory", "--enable-sign-ext", "--enable-nontrapping-float-to-int", "--enable-mutable-globals", wasmPath, "-o", optimized)
			cmd.Stdout, cmd.Stderr = log, log
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("build: wasm-opt: %w", err)
			}
			defer os.Remove(optimized)
			unoptimized, unoptimizedGZip = len(module), len(gzipBytes(module))
			if module, err = os.ReadFile(optimized); err != nil {
				return nil, err
			}
		}
	}
	if err := write("numen.wasm", module); err != nil {
		return nil, err
	}
	files[len(files)-1].Unoptimized, files[len(files)-1].UnoptimizedGZip = unoptimized, unoptimizedGZip

	// wasm_exec.js, from the toolchain that built numen.wasm.
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("build: go env GOROOT: %w", err)
	}
	var runtimeJS []byte
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if runtimeJS, err = os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), p)); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("build: wasm_exec.js of the Go distribution: %w", err)
	}
	if err := write("wasm_exec.js", runtimeJS); err != nil {
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
	// numen.mjs, which takes wasm_exec.js in: a page loading it waits for
	// one request less.
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
	return files, nil
}

// runtimeImport is the line of numen.mjs that inlineRuntime replaces.
const runtimeImport = `import "./wasm_exec.js";`

// inlineRuntime replaces numen.mjs's import of wasm_exec.js with the
// script itself, which defines globalThis.Go as the import would.
func inlineRuntime(module, runtimeJS []byte) ([]byte, error) {
	i := bytes.Index(module, []byte(runtimeImport))
	if i < 0 || (i > 0 && module[i-1] != '\n') {
		return nil, fmt.Errorf("build: wasm/numen.mjs has no line starting %s to put wasm_exec.js in place of", runtimeImport)
	}
	end := i + bytes.IndexByte(module[i:], '\n') + 1
	var out bytes.Buffer
	out.Write(module[:i])
	out.WriteString("// wasm_exec.js of the Go distribution that built numen.wasm, put here by\n// go run ./wasm/build in place of its import; it defines globalThis.Go.\n")
	out.Write(runtimeJS)
	if !bytes.HasSuffix(runtimeJS, []byte("\n")) {
		out.WriteByte('\n')
	}
	out.WriteString("// End of wasm_exec.js.\n")
	out.Write(module[end:])
	return out.Bytes(), nil
}

// gzipBytes compresses b as gzip -9 would.
func gzipBytes(b []byte) []byte {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}
