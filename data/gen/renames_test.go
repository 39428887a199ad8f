package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// renameSpots are decisions of curated/renames.tsv checked against the
// committed tables: a prefix of each rename, the names before and now, the
// code the prefix must answer ("-": none), and the decision's source.
var renameSpots = []struct {
	region, prefix, old, new, want, source string
}{
	{"TG", "22897", "TOGOCEL", "Moov", "61503", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 9.0.25; mcc-mnc-list 1.1.11: 615-03 Moov"},
	{"LR", "231555", "Novafone", "Lonestar Cell", "61801", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.12.0; mcc-mnc-list 1.1.11: 618-01 Lonestar Cell MTN"},
	{"GH", "23320", "Vodafone", "Telecel", "62002", "Telecel Group completed its purchase of Vodafone Ghana 2023-02-21 (https://newsghana.com.gh/telecel-now-owns-majority-shares-in-vodafone-ghana/) and renamed it Telecel 2024-03 (https://aviationghana.com/ghana-vodafone-rebrands-to-telecel-2/); mcc-mnc-list 1.1.11: 620-02 Vodafone, Operational"},
	{"GH", "23323", "Globacom (Zain)", "at", "62007", "mcc-mnc-list 1.1.11: 620-07 Globacom, Operational"},
	{"CF", "23670", "TC", "A-Cell", "62302", "mcc-mnc-list 1.1.11: 623-02 TC, Telecel Centrafrique, Operational"},
	{"GQ", "2405", "Orange GQ", "Muni", "62703", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.12.13; mcc-mnc-list 1.1.11: 627-03 Muni"},
	{"CG", "24205", "Celtel", "Airtel", "62901", "mcc-mnc-list 1.1.11: 629-01 Airtel, Celtel Congo, note \"Former Zain and Celtel brand\""},
	{"CD", "24380", "Supercell", "Orange", "63005", "mcc-mnc-list 1.1.11: 630-05 Supercell SPRL, Operational"},
	{"TZ", "25566", "SMILE", "Airtel", "64011", "mcc-mnc-list 1.1.11: 640-11 SmileCom, Operational"},
	{"TZ", "25577", "Zantel", "Yas", "64003", "mcc-mnc-list 1.1.11: 640-03 Zantel, Zanzibar Telecom Ltd, Operational"},
	{"UG", "25670", "Warid", "Airtel", "64122", "mcc-mnc-list 1.1.11: 641-22 Airtel, note \"Former Warid Telecom\""},
	{"UG", "256726", "Tangerine", "LycaMobile", "64104", "Lycamobile's acquisition of Tangerine and its NTO licence of 2021-03-24 (https://africa.businessinsider.com/local/markets/uganda-gets-new-national-telecommunications-operator/cks1p34); mcc-mnc-list 1.1.11: 641-04 Tangerine Uganda Limited, Operational"},
	{"RE", "26263903", "Only", "Telco OI", "64702", "mcc-mnc-list 1.1.11: 647-02 Only, Telco OI, note \"Mayotte\""},
	{"BE", "32456", "Mobile Vikings/JIM Mobile", "Proximus", "20630", "mcc-mnc-list 1.1.11: 206-30 Mobile Vikings, Unleashed NV, \"Uses Proximus network\"; Proximus press release on the acquisition of Mobile Vikings (2021)"},
	{"BE", "324802", "BASE", "TISMI BV", "-", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.9.14; BIPT numbering database (holder per block)"},
	{"FR", "337590", "Vectone mobile", "Free Mobile", "20815", "Arcep MAJNUM (sources/arcep-MAJNUM-mobile.csv.gz): 07590, 07591, 07595, 07596, 075970-075975 FRMO"},
	{"FR", "337592", "Vectone mobile", "Lycamobile", "20825", "Arcep MAJNUM (sources/arcep-MAJNUM-mobile.csv.gz): 07592-07594, 07598 LYCA"},
	{"ES", "34644", "Simyo", "Orange", "21419", "mcc-mnc-list 1.1.11: 214-19 Simyo, Orange España Virtual, note \"Acquired by Orange\""},
	{"ES", "346989", "Eroski movil", "Vodafone", "21424", "mcc-mnc-list 1.1.11: 214-24 Vodafone España, note \"Former Eroski Móvil España, acquired by Vodafone in Feb 2018\""},
	{"AL", "35567", "ALBtelecom", "One", "27603", "mcc-mnc-list 1.1.11: 276-03 ALBtelecom, Operational; 4iG announcements of the acquisitions (2022)"},
	{"CY", "357940", "Lemontel", "Cablenet", "-", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 9.0.23; mcc-mnc-list 1.1.11 (no Cablenet network in CY)"},
	{"CY", "357942", "Lemontel", "Epic", "28010", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 9.0.23; mcc-mnc-list 1.1.11: 280-10 Epic"},
	{"BG", "3599960", "Bulsatcom", "A1", "28401", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.13.0; mcc-mnc-list 1.1.11: 284-01"},
	{"BG", "3599964", "Bulsatcom", "Yettel", "28405", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.13.0; mcc-mnc-list 1.1.11: 284-05"},
	{"HU", "3631770", "UPC", "One", "21671", "mcc-mnc-list 1.1.11: 216-71 upc, Vodafone Magyarország Zrt."},
	{"HU", "36501", "DIGI", "One", "21603", "mcc-mnc-list 1.1.11: 216-03 DIGI Telecommunication Ltd., Operational"},
	{"RS", "381676", "GLOBALTEL", "Telekom Srbija a.d.", "22011", "mcc-mnc-list 1.1.11: 220-11 Globaltel, \"Uses A1\""},
	{"SI", "38671", "Mobitel", "Telemach", "29341", "mcc-mnc-list 1.1.11: 293-41 Mobitel, Telekom Slovenije"},
	{"MK", "389733", "Telekom", "A1", "29403", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.12.0; mcc-mnc-list 1.1.11: 294-03 A1 MK"},
	{"CH", "41770", "Tele4u", "Swisscom", "22801", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; OFCOM (BAKOM) allocation of 077 numbers; mcc-mnc-list 1.1.11: 228-01"},
	{"CH", "41772", "Tele4u", "Sunrise", "22802", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; OFCOM (BAKOM) allocation of 077 numbers; mcc-mnc-list 1.1.11: 228-02"},
	{"AT", "43650", "tele.ring", "T-Mobile AT", "23203", "mcc-mnc-list 1.1.11: 232-07 Hofer Telekom, note \"former tele.ring\"; 232-03 Magenta (T-Mobile Austria)"},
	{"GB", "4473896", "Hanhaa", "Gamma Telecom", "-", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 9.0.25; Ofcom numbering data S7"},
	{"DK", "458199", "Banedanmark", "telenor", "23802", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; mcc-mnc-list 1.1.11: 238-23 GSM-R DK, 238-02 Telenor"},
	{"NO", "47463", "Telenor", "telia", "24202", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; Nkom number register; mcc-mnc-list 1.1.11: 242-02 Telia"},
	{"NO", "479042", "Telenor", "svea billing services", "-", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; Nkom number register"},
	{"CL", "569510", "Tribe", "Movistar", "73013", "mcc-mnc-list 1.1.11: 730-13 Virgin Mobile, Tribe Mobile Chile SPA, \"Uses Movistar\""},
	{"CL", "569510", "Virgin Mobile", "Movistar", "73013", "mcc-mnc-list 1.1.11: 730-13 Virgin Mobile, Tribe Mobile Chile SPA, \"Uses Movistar\""},
	{"CO", "5730410", "Une", "Tigo", "732020", "mcc-mnc-list 1.1.11: 732-020 Tigo, Une EPM Telecomunicaciones, note \"Former Une-EPM; merged with Tigo\""},
	{"CO", "573192", "Virgin Mobile", "Movistar", "732154", "mcc-mnc-list 1.1.11: 732-154 Virgin Mobile Colombia S.A.S., \"Uses Movistar\""},
	{"EC", "5939586", "Movistar", "Tigo", "74000", "Millicom's completion of the acquisition of Telefónica Ecuador (Otecel S.A.), 2025-10-30 (https://www.teleamazonas.com/actualidad/noticias/economia/tigo-adquirio-telefonica-ecuador-maneja-movistar-380-millones-dolares-105496/); mcc-mnc-list 1.1.11: 740-00 Movistar, Otecel S.A., Operational"},
	{"BQ", "59977", "Telbo N.V.", "Kla", "36278", "mcc-mnc-list 1.1.11: 362-78 Telbo, Telefonia Bonairiano N.V., note \"Bonaire\""},
	{"MY", "601142", "Telekomunikasi Indonesia", "U Mobile", "502157", "mcc-mnc-list 1.1.11: 502-157 Telin, \"Uses U Mobile\""},
	{"MY", "60182", "TM Homeline", "U Mobile", "50218", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 7.0.6-8.12.0; mcc-mnc-list 1.1.11: 502-18 U Mobile"},
	{"ID", "62896", "3", "Indosat Ooredoo Hutchison", "51089", "Ooredoo and CK Hutchison completed the merger into Indosat Ooredoo Hutchison 2022-01-04 (https://www.zawya.com/en/markets/qatars-ooredoo-ck-hutchison-complete-6bln-merger-of-indonesian-units-lbe7fdr2); mcc-mnc-list 1.1.11: 510-89 3, note \"Merged with Indosat (MNC 01)\""},
	{"SG", "658921", "Liberty Wireless", "M1", "52509", "mcc-mnc-list 1.1.11: 525-09 Circles.Life, Liberty Wireless Pte Ltd"},
	{"TH", "6693", "True Move/AIS", "AIS", "52001", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; NBTC numbering allocations; mcc-mnc-list 1.1.11: 520-01"},
	{"TH", "6694", "True Move/DTAC", "DTAC", "52018", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; NBTC numbering allocations; mcc-mnc-list 1.1.11: 520-18"},
	{"BN", "67381", "Progresif Cellular", "UNN", "52802", "mcc-mnc-list 1.1.11: 528-02 PCSB, Operational; 528-03 UNN, status Unknown"},
	{"PG", "67577", "Telikom", "bmobile", "53702", "the Prime Minister's announcement of the merger into Telikom Ltd, 2021-09-19 (https://www.looppng.com/png-news/telikom-and-bmobile-union-104636); mcc-mnc-list 1.1.11: 537-02 citifon, Telikom PNG Ltd."},
	{"TO", "67654", "U-Call", "Toko Wireless", "53901", "mcc-mnc-list 1.1.11: 539-01 U-Call, Tonga Communications Corporation"},
	{"TO", "67668", "U-Call", "Digicel", "53901", "mcc-mnc-list 1.1.11: 539-01 U-Call"},
	{"KZ", "7700", "Altel", "Tele2", "40107", "mcc-mnc-list 1.1.11: 401-07 Altel, note \"acquired by Tele2\""},
	{"VN", "8430", "Viettel Mobile", "MobiFone", "45201", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.13.25; mcc-mnc-list 1.1.11: 452-01 MobiFone"},
	{"HK", "852521", "1O1O / One2Free", "HKT", "45400", "mcc-mnc-list 1.1.11: 454-00 1O1O / One2Free / New World Mobility / SUNMobile, CSL Limited; HKT announcement of completing the CSL acquisition (2014-05-14)"},
	{"HK", "8525280", "Truphone", "HKT", "45408", "mcc-mnc-list 1.1.11: 454-08 Operational"},
	{"KH", "85560", "Beeline", "Metfone", "45609", "mcc-mnc-list 1.1.11: 456-09 Metfone, Viettel, note \"Former Beeline\""},
	{"BD", "88016", "Airtel", "Robi", "47007", "mcc-mnc-list 1.1.11: 470-07 Airtel, note \"Currently merged with Robi keeping brand name Airtel\""},
	{"TW", "886906", "Asia-Pacific Telecom", "FarEasTone", "46605", "Far EasTone's announcement of the merger with Asia Pacific Telecom, effective 2023-12 (https://www.feg.com.tw/en/news/news_detail.aspx?id=10790); mcc-mnc-list 1.1.11: 466-05 Gt, Asia Pacific Telecom, Operational"},
	{"PK", "9232", "Warid", "Jazz", "41007", "mcc-mnc-list 1.1.11: 410-07 Jazz, WaridTel, note \"Former Warid Pakistan\""},
	{"AF", "9376", "MTN", "ATOMA", "41240", "MTN Group's sale of MTN Afghanistan to M1 New Ventures (announced with its Q3 results, 2022-11-04, https://www.itweb.co.za/content/PmxVEMKEEGmvQY85); the handover and new brand ATOMA (2025-04, https://meatechwatch.com/2025/04/23/mtn-exits-afghanistan-transfers-stake-to-m1-group-new-operator-atoma-takes-over); mcc-mnc-list 1.1.11: 412-40 MTN Group Afghanistan, Operational"},
	{"IL", "97256", "Wataniya", "Ooredoo", "42506", "mcc-mnc-list 1.1.11: 425-06 Ooredoo, note \"Former Wataniya\""},
	{"IR", "98932", "Taliya", "IR-MCI", "43232", "mcc-mnc-list 1.1.11: 432-32 Taliya, Operational"},
	{"IR", "98934", "TKC", "TeleKish", "43214", "mcc-mnc-list 1.1.11: 432-14 TKC/KFZO, Kish Free Zone Organization"},
	{"GE", "995511", "Geocell", "MagtiCom", "28202", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv); ComCom (GNCC) numbering allocations; mcc-mnc-list 1.1.11: 282-02"},
	{"GE", "99555055", "Geocell", "Globalcell", "28207", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv); ComCom (GNCC) numbering allocations; mcc-mnc-list 1.1.11: 282-07"},
}

func readTable(t *testing.T, path string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	out := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		p, v, _ := strings.Cut(l, "\t")
		out[p] = v
	}
	return out
}

// TestRenameDecisions checks each spot: the history has the rename, the
// curated file decides it with the code and source, and the committed
// tables answer that code for the prefix (the reproducibility test proves
// them to be what the generator makes of these inputs).
func TestRenameDecisions(t *testing.T) {
	t.Parallel()
	codes := readTable(t, filepath.Join("..", "numbering", "mccmnc.tsv.gz"))
	carriers := readTable(t, filepath.Join("..", "numbering", "carrier_en.tsv.gz"))
	h, err := readRenameHistory(os.DirFS(filepath.Join("..", "sources")))
	if err != nil {
		t.Fatal(err)
	}
	decisions, err := readRenameDecisions(os.DirFS(filepath.Join("..", "curated")))
	if err != nil {
		t.Fatal(err)
	}
	regions := map[string]bool{}
	for _, s := range renameSpots {
		regions[s.region] = true
		if s.source == "" {
			t.Errorf("%s +%s: no source", s.region, s.prefix)
		}
		renamed := false
		for _, st := range h.steps {
			if slices.Contains(st.prefixes, s.prefix) && (st.old == s.old || st.new == s.new) {
				renamed = true
			}
		}
		if !renamed {
			t.Errorf("%s +%s: the history has no rename %q -> %q", s.region, s.prefix, s.old, s.new)
		}
		if got := carriers[s.prefix]; got != s.new {
			t.Errorf("%s +%s: carrier %q, want %q", s.region, s.prefix, got, s.new)
		}
		decided := false
		for _, d := range decisions {
			if d.region == s.region && d.old == s.old && d.new == s.new && d.mccmnc == s.want && d.source == s.source {
				decided = true
			}
		}
		if !decided {
			t.Errorf("%s +%s: no decision %q -> %q = %s citing %q in %s", s.region, s.prefix, s.old, s.new, s.want, s.source, renamesFile)
		}
		want := s.want
		if want == "-" {
			want = ""
		}
		if got := codes[s.prefix]; got != want {
			t.Errorf("%s +%s (%s -> %s): answers %q, want %q", s.region, s.prefix, s.old, s.new, got, want)
		}
	}
	if len(renameSpots) < 40 || len(regions) < 25 {
		t.Errorf("%d spot tests in %d regions, want at least 40 in 25", len(renameSpots), len(regions))
	}
}

// TestFindRenames follows prefixes back through synthetic releases: a
// coarse prefix split later, a rename, a name that disappears for a
// release, and a spelling change.
func TestFindRenames(t *testing.T) {
	t.Parallel()
	rel := func(name string, kv ...string) release {
		r := release{name: name, names: map[string]string{}}
		for i := 0; i < len(kv); i += 2 {
			r.names[kv[i]] = kv[i+1]
		}
		return r
	}
	releases := []release{
		rel("8.0.0", "4477", "Tele2", "4478", "Orange"),
		rel("8.1.0", "4477", "Tele2", "4478", "Orange"),
		rel("8.2.0", "44770", "Swisscom", "44771", "Tele2", "4478", "EE"),
		rel("8.3.0", "44770", "Swisscom", "44771", "Tele2"),
		rel("9.0.0", "44770", "Swisscom", "44771", "Tele2", "4478", "EE Ltd"),
	}
	got := findRenames(releases)
	want := []renameStep{
		{release: "8.2.0", old: "Tele2", new: "Swisscom", prefixes: []string{"44770"}},
		{release: "8.2.0", old: "Orange", new: "EE", prefixes: []string{"4478"}},
		{release: "9.0.0", old: "EE", new: "EE Ltd", prefixes: []string{"4478"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].release != want[i].release || got[i].old != want[i].old || got[i].new != want[i].new || !slices.Equal(got[i].prefixes, want[i].prefixes) {
			t.Errorf("step %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseReleaseTag(t *testing.T) {
	t.Parallel()
	for tag, ok := range map[string]bool{"v8.12.0": true, "libphonenumber-7.0.2": true, "v9.0": false, "vx.1.2": false, "release-1.2.3": false} {
		if _, got := parseReleaseTag(tag); got != ok {
			t.Errorf("%s: %v, want %v", tag, got, ok)
		}
	}
	if !releaseLess("8.9.16", "8.10.0") || releaseLess("9.0.38", "9.0.4") {
		t.Error("releases must compare as numbers")
	}
}

// TestDecideRenames: an undecided rename, a stale decision, a decision
// for a rename that needs none, two that disagree and a code that is no
// operational network of the region all fail generation.
func TestDecideRenames(t *testing.T) {
	t.Parallel()
	list := []mccEntry{
		{Type: "National", CountryCode: "GH", MCC: "620", MNC: "02", Status: "Operational"},
		{Type: "National", CountryCode: "GH", MCC: "620", MNC: "03", Status: "Operational"},
		{Type: "National", CountryCode: "GH", MCC: "620", MNC: "04", Status: "Not operational"},
	}
	pair := func(class string) []*renamePair {
		return []*renamePair{{key: "GH", region: "GH", old: "Vodafone", new: "Telecel", prefixes: []string{"23320", "23350"}, oldCode: "62002", class: class}}
	}
	decide := func(lines string) ([]*renameDecision, error) {
		return readRenameDecisions(fstest.MapFS{renamesFile: {Data: []byte("# decisions\n" + lines)}})
	}
	ok, err := decide("GH\t*\tVodafone\tTelecel\t62002\trenamed in place\tthe list\thigh\n")
	if err != nil {
		t.Fatal(err)
	}
	got, err := decideRenames(pair("decide"), ok, list)
	if err != nil || len(got) != 2 || got["23320"].mccmnc != "62002" {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := decideRenames(pair("decide"), nil, list); err == nil || !strings.Contains(err.Error(), "Vodafone") {
		t.Errorf("undecided rename: %v", err)
	}
	part, err := decide("GH\t23320\tVodafone\tTelecel\t62002\tr\ts\thigh\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decideRenames(pair("decide"), part, list); err == nil {
		t.Error("a rename decided for some of its prefixes only was accepted")
	}
	if _, err := decideRenames(pair("same network"), ok, list); err == nil {
		t.Error("a decision for a rename that needs none was accepted")
	}
	for name, lines := range map[string]string{
		"stale":           "GH\t*\tVodafone\tTelecel\t62002\tr\ts\thigh\nGH\t*\tAirtel\tat\t62003\tr\ts\thigh\n",
		"not operational": "GH\t*\tVodafone\tTelecel\t62004\tr\ts\thigh\n",
		"other region":    "NG\t*\tVodafone\tTelecel\t62002\tr\ts\thigh\n",
		"disagree":        "GH\t*\tVodafone\tTelecel\t62002\tr\ts\thigh\nGH\t23320\tVodafone\tTelecel\t62003\tr\ts\thigh\n",
	} {
		d, err := decide(lines)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := decideRenames(pair("decide"), d, list); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for _, bad := range []string{
		"GH\t*\tVodafone\tTelecel\t62002\tr\ts\n",
		"GH\t*\tVodafone\tTelecel\t620\tr\ts\thigh\n",
		"GH\t233x\tVodafone\tTelecel\t62002\tr\ts\thigh\n",
		"GH\t*\tVodafone\tTelecel\t62002\tr\ts\tsure\n",
	} {
		if _, err := decide(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestRenameHistoryMustMatchCarrierTable: a history of other carrier
// data fails generation.
func TestRenameHistoryMustMatchCarrierTable(t *testing.T) {
	t.Parallel()
	carrier := []byte("23320\tTelecel\n")
	h := &renameHistory{last: "9.0.38", digest: carrierDigest(carrier), steps: []renameStep{{release: "9.0.16", old: "Vodafone", new: "Telecel", prefixes: []string{"23320"}}}}
	if pairs, err := renamePairs(h, carrier); err != nil || len(pairs) != 1 || pairs[0].old != "Vodafone" {
		t.Fatalf("got %v, %v", pairs, err)
	}
	if _, err := renamePairs(h, []byte("23320\tTelecel Ghana\n")); err == nil {
		t.Error("a history of other carrier data was accepted")
	}
}

// FuzzParseCarrierFile: libphonenumber's prefix files, as read from a
// clone, never make the parser panic, and what it accepts is digits and
// names.
func FuzzParseCarrierFile(f *testing.F) {
	f.Add([]byte("# comment\n23320|Telecel\n23324|MTN\n"))
	f.Add([]byte("1|\n\n|x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseCarrierFile(b)
		if err != nil {
			return
		}
		for p, n := range m {
			if !allDigits(p) || n == "" {
				t.Fatalf("%q -> %q", p, n)
			}
		}
	})
}
