package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// Without its curated decision, a carrier that the two sources give
// different codes fails the generation, named with both codes.
func TestCrossCheckFailsUndecided(t *testing.T) {
	// Not parallel: the generator caches regular expressions in a
	// package-level map (leadingRE, mccmnc.go) without a lock.
	moduleDir, err := findModuleDir()
	if err != nil {
		t.Fatal(err)
	}
	carrier, err := readPrefixMap(filepath.Join(moduleDir, "carrier", "data", "en.txt.gz"), false)
	if err != nil {
		t.Fatal(err)
	}
	list, err := mccmncList(filepath.Join("..", "..", mccmncListTarball))
	if err != nil {
		t.Fatal(err)
	}
	providersXML, err := os.ReadFile(filepath.Join("..", "..", providersFile))
	if err != nil {
		t.Fatal(err)
	}
	aliases, err := os.ReadFile(filepath.Join("..", "curated", "mccmnc_aliases.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := mccmncTables(carrier, list, providersXML, os.DirFS(filepath.Join("..", "curated"))); err != nil {
		t.Fatalf("with the curated decisions: %v", err)
	}
	var kept []string
	for l := range strings.SplitSeq(string(aliases), "\n") {
		if !strings.HasPrefix(l, "NL\tT-Mobile\t") {
			kept = append(kept, l)
		}
	}
	networks, err := os.ReadFile(filepath.Join("..", "curated", curatedNetworksFile))
	if err != nil {
		t.Fatal(err)
	}
	curated := fstest.MapFS{ // the curated networks too, which aliases may name
		"mccmnc_aliases.tsv": {Data: []byte(strings.Join(kept, "\n"))},
		curatedNetworksFile:  {Data: networks},
	}
	_, _, _, err = mccmncTables(carrier, list, providersXML, curated)
	if err == nil || !strings.Contains(err.Error(), "NL\tT-Mobile\t20420 by name in the MCC-MNC list; mobile-broadband-provider-info lists \"T-Mobile\" under 20416") {
		t.Fatalf("want the NL T-Mobile disagreement, got %v", err)
	}

	// A damaged or other version of the second source is refused.
	if _, err := readProviders(append(providersXML, ' ')); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("a changed serviceproviders.xml: %v", err)
	}
}
