package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// listJSON is a small MCC-MNC list in the package's form.
const listJSON = `[
 {"type":"National","countryName":"Ethiopia","countryCode":"ET","mcc":"636","mnc":"01","brand":"Ethio Telecom","operator":"Ethio Telecom","status":"Operational","bands":null,"notes":null},
 {"type":"National","countryName":"Kenya","countryCode":"KE","mcc":"639","mnc":"02","brand":"Safaricom","operator":"Safaricom Limited","status":"Operational","bands":null,"notes":null},
 {"type":"National","countryName":"Kenya","countryCode":"KE","mcc":"639","mnc":"05","brand":"Yu","operator":"Essar Telecom Kenya","status":"Not operational","bands":null,"notes":null},
 {"type":"National","countryName":"Georgia","countryCode":"GE","mcc":"282","mnc":"13","brand":null,"operator":"Asanet Ltd","status":"Unknown","bands":"Unknown","notes":null}
]`

const cite = "ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list"

func networksFS(lines ...string) fstest.MapFS {
	return fstest.MapFS{curatedNetworksFile: {Data: []byte("# header\n\n" + strings.Join(lines, "\n") + "\n")}}
}

func TestCuratedNetworksAdded(t *testing.T) {
	t.Parallel()
	list, err := readNetworkList([]byte(listJSON), networksFS("ET\t636\t07\tSafaricom\tSafaricom Telecommunications Ethiopia PLC\t"+cite))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 5 {
		t.Fatalf("%d entries, want the list's 4 and 1 added", len(list))
	}
	e := list[4]
	if e.CountryCode != "ET" || e.CountryName != "Ethiopia" || e.mccmnc() != "63607" || deref(e.Brand) != "Safaricom" ||
		deref(e.Operator) != "Safaricom Telecommunications Ethiopia PLC" || e.Status != "Operational" || e.Type != "National" ||
		!strings.HasPrefix(deref(e.Notes), curatedNetworkNote+"ITU OB No. 1280") {
		t.Errorf("added entry %+v (brand %q, operator %q, notes %q)", e, deref(e.Brand), deref(e.Operator), deref(e.Notes))
	}
	// Without the file, the list is the list.
	list, err = readNetworkList([]byte(listJSON), fstest.MapFS{})
	if err != nil || len(list) != 4 || list[3].Status != "Unknown" {
		t.Errorf("without the file: %d entries, %v", len(list), err)
	}
}

// A line for a code of unknown status in the list confirms it as
// operational, where the list has it, with the list's names.
func TestCuratedNetworkConfirmsUnknown(t *testing.T) {
	t.Parallel()
	list, err := readNetworkList([]byte(listJSON), networksFS("GE\t282\t13\tAsanet\tAsanet Ltd\t"+cite))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 4 {
		t.Fatalf("%d entries, want the list's 4", len(list))
	}
	e := list[3]
	if e.mccmnc() != "28213" || e.Status != "Operational" || deref(e.Operator) != "Asanet Ltd" || e.Brand != nil ||
		!strings.HasPrefix(deref(e.Notes), curatedNetworkNote+"ITU OB No. 1280") {
		t.Errorf("confirmed entry %+v (notes %q)", e, deref(e.Notes))
	}
	// Another region's line for that code fails.
	if _, err := readNetworkList([]byte(listJSON), networksFS("AM\t282\t13\tAsanet\tAsanet Ltd\t"+cite)); err == nil || !strings.Contains(err.Error(), "28213 is in the MCC-MNC list already (GE, Asanet Ltd, Unknown)") {
		t.Errorf("a code of unknown status in another region: %v", err)
	}
}

// A line for an operational code of another region adds its region to the
// network, with the list's names.
func TestCuratedNetworkAddsRegion(t *testing.T) {
	t.Parallel()
	list, err := readNetworkList([]byte(listJSON), networksFS("ET\t639\t02\tSafaricom\tSafaricom\t"+cite))
	if err != nil {
		t.Fatal(err)
	}
	e := list[len(list)-1]
	if len(list) != 5 || e.CountryCode != "ET" || e.CountryName != "Ethiopia" || e.mccmnc() != "63902" || e.Status != "Operational" ||
		deref(e.Operator) != "Safaricom Limited" || !strings.HasPrefix(deref(e.Notes), curatedNetworkNote) || list[1].CountryCode != "KE" {
		t.Errorf("%d entries, added %+v (operator %q)", len(list), e, deref(e.Operator))
	}
	var b bytes.Buffer
	writeNetworks(&b, list)
	if !strings.Contains(b.String(), "\n63902\tKE,ET\tSafaricom\tSafaricom Limited\tOperational\n") {
		t.Errorf("networks.tsv:\n%s", b.String())
	}
	// Not for a code that is not operational where the list has it.
	if _, err := readNetworkList([]byte(listJSON), networksFS("ET\t639\t05\tYu\tYu\t"+cite)); err == nil || !strings.Contains(err.Error(), "63905 is in the MCC-MNC list already (KE, Yu, Not operational)") {
		t.Errorf("a code not operational in its region: %v", err)
	}
}

// A carrier name matches an added network as it matches the list's own,
// and an alias may name it.
func TestCuratedNetworkMatchesCarriers(t *testing.T) {
	// Not parallel: the generator caches regular expressions in a
	// package-level map (leadingRE, mccmnc.go) without a lock.
	list, err := readNetworkList([]byte(listJSON), networksFS("ET\t636\t07\tSafaricom\tSafaricom Telecommunications Ethiopia PLC\t"+cite))
	if err != nil {
		t.Fatal(err)
	}
	carriers := [][2]string{{"25170", "Safaricom"}, {"25191", "Ethio Telecom"}}
	m, err := matchCarriers(carriers, list, map[[2]string]*alias{}, providers{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m[matchKey("25170", "Safaricom")]; got.mccmnc != "63607" || got.how != "name" {
		t.Errorf("Safaricom in Ethiopia: %q (%s), want 63607 by name", got.mccmnc, got.how)
	}
	aliases := map[[2]string]*alias{{"ET", "Safaricom"}: {region: "ET", carrier: "Safaricom", mccmnc: "63607", line: 1}}
	m, err = matchCarriers(carriers[:1], list, aliases, providers{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m[matchKey("25170", "Safaricom")]; got.mccmnc != "63607" || got.how != "alias" {
		t.Errorf("alias to an added network: %q (%s)", got.mccmnc, got.how)
	}
}

func TestCuratedNetworksRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ line, want string }{
		{"ET\t636\t07\tSafaricom\t" + cite, "5 fields, want region"},
		{"XX\t636\t07\tSafaricom\tS\t" + cite, `region "XX"`},
		{"ET\t63\t07\tSafaricom\tS\t" + cite, `MCC "63"`},
		{"ET\t636\t7\tSafaricom\tS\t" + cite, `MNC "7"`},
		{"ET\t636\t07\t \t\t" + cite, "brand, the operator"},
		{"ET\t636\t07\tSafaricom\tS\thttps://en.wikipedia.org/wiki/Safaricom", "cite the ITU"},
		{"ET\t636\t07\tSafaricom\tS\tITU OB No. 1280", "cite the ITU"},
		{"KE\t639\t02\tSafaricom\tS\t" + cite, "63902 is in the MCC-MNC list already (KE, Safaricom, Operational)"},
		{"KE\t639\t05\tYu\tS\t" + cite, "63905 is in the MCC-MNC list already (KE, Yu, Not operational)"},
	} {
		_, err := readNetworkList([]byte(listJSON), networksFS(tc.line))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "networks.tsv line 3") {
			t.Errorf("%q: %v, want an error on line 3 naming %q", tc.line, err, tc.want)
		}
	}
	twice := "ET\t636\t07\tSafaricom\tS\t" + cite
	if _, err := readNetworkList([]byte(listJSON), networksFS(twice, twice)); err == nil || !strings.Contains(err.Error(), "line 4: 63607 is given on line 3 already") {
		t.Errorf("a code twice: %v", err)
	}
}

// The committed file reads against the pinned list, and every network it
// adds is in the generated networks.tsv as operational.
func TestCommittedCuratedNetworks(t *testing.T) {
	t.Parallel()
	listJSON, err := mccmncList(filepath.Join("..", "..", mccmncListTarball))
	if err != nil {
		t.Fatal(err)
	}
	curated := os.DirFS(filepath.Join("..", "curated"))
	added, err := curatedNetworks(curated, mustParse(t, listJSON))
	if err != nil {
		t.Fatal(err)
	}
	networks, err := os.ReadFile(filepath.Join("..", "numbering", "networks.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	// A network's line lists its regions, home first and comma-separated:
	// a line that adds a region to a network of another is found there.
	regions := map[string][]string{}
	for _, l := range strings.Split(string(networks), "\n") {
		if f := strings.Split(l, "\t"); len(f) >= 2 {
			regions[f[0]] = strings.Split(f[1], ",")
		}
	}
	for _, e := range added {
		if !slices.Contains(regions[e.mccmnc()], e.CountryCode) {
			t.Errorf("%s (%s) is not in numbering/networks.tsv: run go run ./data/gen", e.mccmnc(), e.CountryCode)
		}
	}
}

func mustParse(t *testing.T, listJSON []byte) []mccEntry {
	t.Helper()
	list, err := parseMCCMNCList(listJSON)
	if err != nil {
		t.Fatal(err)
	}
	return list
}
