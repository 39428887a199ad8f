package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedDataIsReproducible regenerates every table and requires the
// committed files to be byte-identical: nobody edited them by hand, and the
// generator is deterministic. After changing the generator, a curated file
// or the phonenumbers version, run `go run ./data/gen` and commit the result.
func TestCommittedDataIsReproducible(t *testing.T) {
	// Not parallel: the generator caches regular expressions in a
	// package-level map (leadingRE, mccmnc.go) without a lock.
	moduleDir, err := findModuleDir()
	if err != nil {
		t.Fatal(err)
	}
	list, err := mccmncList(filepath.Join("..", "..", mccmncListTarball)) // committed, checked against its integrity
	if err != nil {
		t.Fatal(err)
	}
	providersXML, err := os.ReadFile(filepath.Join("..", "..", providersFile)) // committed, checked against its digest
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(moduleDir, os.DirFS(filepath.Join("..", "curated")), os.DirFS(filepath.Join("..", "sources")), list, providersXML, os.DirFS(filepath.Join("..", "routing")))
	if err != nil {
		t.Fatal(err)
	}
	again, err := Generate(moduleDir, os.DirFS(filepath.Join("..", "curated")), os.DirFS(filepath.Join("..", "sources")), list, providersXML, os.DirFS(filepath.Join("..", "routing")))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("generated %d files", len(files))
	}
	for i, f := range files {
		if !bytes.Equal(f.Data, again[i].Data) {
			t.Errorf("%s: two runs differ: the generator is not deterministic", f.Name)
		}
		committed, err := os.ReadFile(filepath.Join("..", f.Name))
		if err != nil {
			t.Errorf("%s: %v (run go run ./data/gen)", f.Name, err)
			continue
		}
		if !bytes.Equal(committed, f.Data) {
			t.Errorf("%s differs from what go run ./data/gen generates now (%d bytes committed, %d generated)", f.Name, len(committed), len(f.Data))
		}
	}
}

func TestOverridesMustChangeSomething(t *testing.T) {
	t.Parallel()
	table := []byte("353\tEurope/London\n44\tEurope/London\n")
	dir := t.TempDir()
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "o.tsv"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("# comment\n353\tEurope/Dublin\n")
	out, err := applyOverrides(table, os.DirFS(dir), "o.tsv")
	if err != nil || string(out) != "353\tEurope/Dublin\n44\tEurope/London\n" {
		t.Fatalf("got %q, %v", out, err)
	}
	for _, bad := range []string{"44\tEurope/London\n", "999\tEurope/Dublin\n", "353\n"} {
		write(bad)
		if _, err := applyOverrides(table, os.DirFS(dir), "o.tsv"); err == nil {
			t.Errorf("override %q accepted", bad)
		}
	}
}
