package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestCoverPrefixes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lo, hi int64
		want   string
	}{
		{9100000000, 9199999999, "91"},
		{9000000000, 9000061999, "900000 900001 900002 900003 900004 900005 9000060 9000061"},
		{9160000000, 9160000000, "9160000000"},
		{9005000000, 9005999999, "9005"},
	} {
		got := coverPrefixes(tc.lo, tc.hi, 10)
		if want := strings.Fields(tc.want); !cmp.Equal(got, want) {
			t.Errorf("%d-%d: got %v, want %v", tc.lo, tc.hi, got, want)
		}
	}
}

// TestFillGaps: a curated range fills only what libphonenumber leaves to no
// carrier, unless it is a register's and the codes differ.
func TestFillGaps(t *testing.T) {
	t.Parallel()
	lib := []byte("7916\tMTS\n79161\tBeeline\n7917\tGLONASS\n79250\tMegaFon\n")
	libCodes := map[string]string{"7916": "25001", "79161": "25099", "79250": "25002"}
	prefixes := func(rs []curatedRange) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.prefix+"="+r.mccmnc)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		name string
		in   []curatedRange
		want string
	}{
		{"inside a carrier range: dropped", []curatedRange{{prefix: "791612", mccmnc: "25002"}}, ""},
		{"in a gap: kept", []curatedRange{{prefix: "7915", mccmnc: "25001"}}, "7915=25001"},
		{"around carrier ranges: split", []curatedRange{{prefix: "7925", mccmnc: "25002"}},
			"79251=25002 79252=25002 79253=25002 79254=25002 79255=25002 79256=25002 79257=25002 79258=25002 79259=25002"},
		{"a register that agrees: dropped", []curatedRange{{prefix: "79160", mccmnc: "25001", override: true}}, ""},
		{"a register that disagrees: stands", []curatedRange{{prefix: "79160", mccmnc: "25011", override: true}}, "79160=25011"},
		{"a register on the very prefix: replaces it", []curatedRange{{prefix: "79250", mccmnc: "25011", override: true}}, "79250=25011"},
		{"a prefix alias: not within another carrier's range", []curatedRange{{prefix: "7916", operator: "MTS", mccmnc: "25011", override: true, ownOnly: true}},
			"79160=25011 79162=25011 79163=25011 79164=25011 79165=25011 79166=25011 79167=25011 79168=25011 79169=25011"},
		{"a register over unresolved ranges: not over a resolved one", []curatedRange{{prefix: "79160", mccmnc: "25011", overUnresolved: true}}, ""},
		{"a register over unresolved ranges: over one without a code", []curatedRange{{prefix: "79170", mccmnc: "25011", overUnresolved: true}}, "79170=25011"},
		{"a register around a range it agrees with", []curatedRange{{prefix: "7916", mccmnc: "25099", override: true}},
			"79160=25099 79162=25099 79163=25099 79164=25099 79165=25099 79166=25099 79167=25099 79168=25099 79169=25099"},
	} {
		got, err := fillGaps(tc.in, lib, libCodes)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if p := prefixes(got); p != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, p, tc.want)
		}
	}
	if _, err := fillGaps([]curatedRange{{prefix: "7915"}, {prefix: "79151"}}, lib, libCodes); err == nil {
		t.Error("overlapping curated ranges accepted")
	}
	if _, err := fillGaps([]curatedRange{{prefix: "7915123456", where: "ranges.tsv line 9"}}, lib, libCodes); err == nil {
		t.Error("a hand-written range longer than the plan holds accepted")
	}
	// A hand-written line that libphonenumber now covers whole is dead; one
	// it covers in part keeps the rest.
	_, err := fillGaps([]curatedRange{{prefix: "791612", mccmnc: "25002", where: "ranges.tsv line 7", mustFill: true}}, lib, libCodes)
	if err == nil || !strings.Contains(err.Error(), "ranges.tsv line 7: libphonenumber names a carrier for all of +791612 now") {
		t.Errorf("a dead hand-written line accepted: %v", err)
	}
	if got, err := fillGaps([]curatedRange{{prefix: "7925", mccmnc: "25002", where: "ranges.tsv line 8", mustFill: true}}, lib, libCodes); err != nil || len(got) != 9 {
		t.Errorf("a hand-written line around a carrier range: %d ranges, %v", len(got), err)
	}
	// As read from ranges.tsv: a line stands over a carrier without a code
	// (GLONASS), not over one with another code unless marked override, and
	// is dead over a carrier with its own code even so.
	hand := func(prefix, mccmnc string, override bool) []curatedRange {
		return []curatedRange{{prefix: prefix, mccmnc: mccmnc, where: "ranges.tsv line 9", mustFill: true, overUnresolved: true, override: override}}
	}
	if got, err := fillGaps(hand("79170", "25011", false), lib, libCodes); err != nil || prefixes(got) != "79170=25011" {
		t.Errorf("a hand-written line over a carrier without a code: %q, %v", prefixes(got), err)
	}
	if _, err := fillGaps(hand("79160", "25011", false), lib, libCodes); err == nil {
		t.Error("a hand-written line over a carrier with another code stood without override")
	}
	if got, err := fillGaps(hand("79160", "25011", true), lib, libCodes); err != nil || prefixes(got) != "79160=25011" {
		t.Errorf("a hand-written override over a carrier with another code: %q, %v", prefixes(got), err)
	}
	if _, err := fillGaps(hand("79160", "25001", true), lib, libCodes); err == nil {
		t.Error("a hand-written override that agrees with libphonenumber accepted")
	}
	if _, err := fillGaps([]curatedRange{{prefix: "7915123456", where: "ranges.tsv line 9", mustFill: true, override: true}}, lib, libCodes); err == nil {
		t.Error("a hand-written override longer than the plan holds accepted")
	}
}

func TestReadRangesFileRejects(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		"IT\t39351\tIliad\t22250\thttps://example.org/iliad\n",                    // no date
		"IT\t39351\tIliad\t22250\tsomewhere\t2026-11-24\n",                        // source not a URL
		"IT\t39x51\tIliad\t22250\thttps://example.org/iliad\t2026-11-24\n",        // prefix not digits
		"IT\t39351\tIliad\t2225\thttps://example.org/iliad\t2026-11-24\n",         // MCCMNC too short
		"IT\t39351\tIliad\t22250\thttps://example.org/iliad\t24.11.2026\n",        // date format
		"IT\t39351\t\t22250\thttps://example.org/iliad\t2026-11-24\n",             // empty operator
		"IT\t39351\tIliad\t22250\thttps://example.org/iliad\t2026-11-24\tforce\n", // seventh field not override
		"IT\t39351\tIliad\t22250\thttps://example.org/iliad\t2026-11-24\toverride\tx\n",
	} {
		if _, err := readRangesFile(fstest.MapFS{"ranges.tsv": {Data: []byte(bad)}}); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	rs, err := readRangesFile(fstest.MapFS{"ranges.tsv": {Data: []byte("# comment\n\nIT\t39351\tIliad\t22250\thttps://example.org/iliad\t2026-11-24\n")}})
	if err != nil || len(rs) != 1 || rs[0].operator != "Iliad" || rs[0].override || !rs[0].overUnresolved {
		t.Fatalf("got %+v, %v", rs, err)
	}
	rs, err = readRangesFile(fstest.MapFS{"ranges.tsv": {Data: []byte("DK\t455561\t3\t23806\thttps://example.org/dk\t2026-11-27\toverride\n")}})
	if err != nil || len(rs) != 1 || !rs[0].override {
		t.Fatalf("got %+v, %v", rs, err)
	}
}

// TestCheckRanges: a curated range's MCCMNC must be an operational network
// of its region, and its prefix the region's.
func TestCheckRanges(t *testing.T) {
	t.Parallel()
	list := []mccEntry{
		{Type: "National", CountryCode: "IT", MCC: "222", MNC: "50", Status: "Operational"},
		{Type: "National", CountryCode: "IT", MCC: "222", MNC: "77", Status: "Not operational"},
	}
	if err := checkRanges([]curatedRange{{region: "IT", prefix: "39351", mccmnc: "22250"}}, list); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []curatedRange{
		{region: "IT", prefix: "39351", mccmnc: "22277"}, // not operational
		{region: "IT", prefix: "39351", mccmnc: "22299"}, // not in the list
		{region: "FR", prefix: "39351", mccmnc: "22250"}, // not France's prefix
	} {
		if err := checkRanges([]curatedRange{bad}, list); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

// TestRURegisterPinned: a register that is not the pinned one fails.
func TestRURegisterPinned(t *testing.T) {
	t.Parallel()
	curated := os.DirFS(filepath.Join("..", "curated"))
	gz := gzipBytes([]byte("АВС/ DEF;От;До;Емкость;Оператор;Регион;Территория ГАР;ИНН\n916;0000000;9999999;10000000;ПАО \"МТС\";Москва;Москва;7740000076\n"))
	if _, err := readRURegister(fstest.MapFS{ruRegisterFile: {Data: gz}}, curated); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("a different register accepted: %v", err)
	}
	ranges, err := readRURegister(os.DirFS(filepath.Join("..", "sources")), curated)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range ranges {
		if strings.HasPrefix("79161234567", r.prefix) {
			found = r.operator == "MTS" && r.mccmnc == "25001"
		}
	}
	if !found {
		t.Error("+7 916 123 45 67 is not in a range of MTS (25001) in the register")
	}
}

// TestPrefixAliasRanges: an alias limited to prefixes gives the carrier's
// own ranges under them its code, and fails when it covers none.
func TestPrefixAliasRanges(t *testing.T) {
	t.Parallel()
	carriers := [][2]string{{"26263903", "Telco OI"}, {"26269292", "Telco OI"}, {"26269200", "Orange"}}
	rs, err := prefixAliasRanges(carriers, []*alias{{region: "YT", carrier: "Telco OI", mccmnc: "64702", prefixes: []string{"262639"}, line: 1}})
	if err != nil || len(rs) != 1 || rs[0].prefix != "26263903" || rs[0].mccmnc != "64702" || !rs[0].ownOnly {
		t.Fatalf("got %+v, %v", rs, err)
	}
	if _, err := prefixAliasRanges(carriers, []*alias{{region: "YT", carrier: "Telco OI", mccmnc: "64702", prefixes: []string{"262700"}, line: 2}}); err == nil {
		t.Error("an alias over no range of its carrier accepted")
	}
}

// TestFRRegister: Arcep's registers are pinned, a curated code must be the
// holder's in Arcep's register of network codes, and a block of a holder
// curated with a code becomes its range.
func TestFRRegister(t *testing.T) {
	t.Parallel()
	sources := os.DirFS(filepath.Join("..", "sources"))
	curated := os.DirFS(filepath.Join("..", "curated"))
	gz := gzipBytes([]byte("EZABPQM;Tranche_Debut;Tranche_Fin;Mn\xe9mo;Territoire;Date_Attribution\n06012;0601200000;0601299999;SFR0;M\xe9tropole;08/12/2011\n"))
	if _, err := readFRRegister(fstest.MapFS{frRegisterFile: {Data: gz}, frMNCFile: {Data: must(fs.ReadFile(sources, frMNCFile))}}, curated); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("a different register accepted: %v", err)
	}
	ranges, err := readFRRegister(sources, curated)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range ranges {
		if strings.HasPrefix("33743041234", r.prefix) {
			found = r.operator == "Free Mobile" && r.mccmnc == "20815"
		}
		if r.mccmnc == "" || !strings.HasPrefix(r.prefix, "336") && !strings.HasPrefix(r.prefix, "337") {
			t.Errorf("range %+v", r)
		}
	}
	if !found {
		t.Error("+33 7 43 04 12 34 is not in a range of Free Mobile (20815) in the register")
	}
	// A code that MAJMNC gives to another holder is refused.
	ops := must(fs.ReadFile(curated, "fr_operators.tsv"))
	wrong := strings.Replace(string(ops), "LYCA\tLycamobile\t20825\tLYCA", "LYCA\tLycamobile\t20820\tLYCA", 1)
	if wrong == string(ops) {
		t.Fatal("fr_operators.tsv has no Lycamobile line to alter")
	}
	_, err = readFRRegister(sources, fstest.MapFS{"fr_operators.tsv": {Data: []byte(wrong)}})
	if err == nil || !strings.Contains(err.Error(), `gives 20820 to "BOUY", not "LYCA"`) {
		t.Errorf("a code of another holder accepted: %v", err)
	}
	// A holder with a network code of its own must be curated.
	without := strings.Replace(string(ops), "\nCEHI\t", "\n#CEHI\t", 1)
	_, err = readFRRegister(sources, fstest.MapFS{"fr_operators.tsv": {Data: []byte(without)}})
	if err == nil || !strings.Contains(err.Error(), "not curated: CEHI") {
		t.Errorf("a holder with a code left out silently: %v", err)
	}
	// A holder the register does not have is refused.
	extra := string(ops) + "ZZZZ\tNobody\t-\t-\tholds no block\n"
	_, err = readFRRegister(sources, fstest.MapFS{"fr_operators.tsv": {Data: []byte(extra)}})
	if err == nil || !strings.Contains(err.Error(), "holders without metropolitan mobile blocks in the register: line ") || !strings.Contains(err.Error(), "(ZZZZ)") {
		t.Errorf("a holder without blocks accepted: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
