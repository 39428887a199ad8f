package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

func main() {
	out := flag.String("o", "dist", "the output folder")
	version := flag.String("version", "", "version stamped into numen.wasm (default: git describe, else devel)")
	plan := flag.String("plan", "", "the whole numbering plan to cut the core plan and packs from (default: data/numbering/plan.bin)")
	noOpt := flag.Bool("no-wasm-opt", false, "do not run wasm-opt even when it is on PATH")
	flag.Parse()
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
	if *version == "" {
		if b, err := exec.Command("git", "-C", root, "describe", "--always", "--dirty").Output(); err == nil {
			*version = strings.TrimSpace(string(b))
		}
	}
	files, err := Build(Options{Root: root, Out: *out, Plan: *plan, Version: *version, WasmOpt: !*noOpt, Log: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "file\tbytes\tgzip\tbrotli\t\n")
	core := File{Name: "core: numen.wasm + numen-core.bin + numen.mjs"}
	for _, f := range files {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t\n", f.Name, f.Size, f.GZip, f.Brotli)
		if f.Unoptimized > 0 {
			fmt.Fprintf(w, "(numen.wasm before wasm-opt)\t%d\t%d\t%d\t\n", f.Unoptimized, f.UnoptimizedGZip, f.UnoptimizedBrotli)
		}
		if coreFiles[f.Name] {
			core.Size, core.GZip, core.Brotli = core.Size+f.Size, core.GZip+f.GZip, core.Brotli+f.Brotli
		}
	}
	fmt.Fprintf(w, "%s\t%d\t%d\t%d\t\n", core.Name, core.Size, core.GZip, core.Brotli)
	w.Flush()
	if _, err := exec.LookPath("wasm-opt"); err != nil && !*noOpt {
		fmt.Println("(wasm-opt is not on PATH: numen.wasm is as go build made it; Debian's binaryen has it)")
	}
	fmt.Printf("wrote %s\n", *out)
}

// repoRoot finds the module root: the folder of go.mod above the working
// directory.
func repoRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run it inside the numen repository")
	}
	return filepath.Dir(mod), nil
}
