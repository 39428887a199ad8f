package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// registerSpots are range lines of 2026-11-27 from national numbering
// registers (issue 35, part 2): a number in each line's range, the code it
// must answer and the sources that settle the holder and its code.
var registerSpots = []struct {
	region, number, want, register, source string
}{
	// +47 464: libphonenumber's NetCom, a name of no network in the list.
	{"NO", "4746412345", "24202", "https://www.nkom.no/",
		"Nkom's register of number series (as copied on 2021-02-15): 46400000-46509999 Telia Norge AS, TILDELT, Landmobile tjenester; the MCC-MNC list: 242-02 Telia Norge AS, operational, notes \"Former NetCom\" (242-08, Telia's other operational code, is its virtual network, \"Former TDC\")"},
	{"NO", "4746499999", "24202", "https://www.nkom.no/",
		"Nkom's register of number series (as copied on 2021-02-15): 46400000-46509999 Telia Norge AS; NetCom renamed in place keeps 242-02"},
}

// TestRegisterSpots checks each spot against the committed tables (the
// reproducibility test proves them to be what the generator makes of the
// curated files): the number's longest carrier range answers the code, and
// a line of the registers' section of curated/ranges.tsv names the range
// and the code and cites the register by its address.
func TestRegisterSpots(t *testing.T) {
	t.Parallel()
	codes := readTable(t, filepath.Join("..", "numbering", "mccmnc.tsv.gz"))
	carriers := readTable(t, filepath.Join("..", "numbering", "carrier_en.tsv.gz"))
	lines := curatedSection(t, "ranges.tsv", "National numbering registers")
	for _, s := range registerSpots {
		if s.source == "" {
			t.Errorf("%s +%s: no source", s.region, s.number)
		}
		prefix := spotRange(carriers, s.number)
		if prefix == "" {
			t.Errorf("%s +%s: no carrier range", s.region, s.number)
			continue
		}
		if got := codes[prefix]; got != s.want {
			t.Errorf("%s +%s (range +%s, %s): answers %q, want %q", s.region, s.number, prefix, carriers[prefix], got, s.want)
		}
		decided := false
		for _, l := range lines {
			f := strings.Split(l, "\t")
			if len(f) >= 6 && f[0] == s.region && f[1] == prefix && f[3] == s.want {
				decided = true
				if !strings.HasPrefix(f[4], s.register) {
					t.Errorf("%s +%s: the line cites %q, not the register %s", s.region, s.number, f[4], s.register)
				}
				break
			}
		}
		if !decided {
			t.Errorf("%s +%s: no line for +%s = %s in the section of the registers", s.region, s.number, prefix, s.want)
		}
	}
}
