package main

import (
	"strings"
	"testing"
)

// obRangeSpots are numbers of the ranges that curated/ranges.tsv takes from
// the regulators' numbering plan communications in the ITU Operational
// Bulletins (section "Numbering plans of the ITU Operational Bulletins"):
// the E.164 number, the code the committed tables must answer for it, the
// bulletin page the line cites, and what the communication says.
var obRangeSpots = []struct {
	region, number, want, url, source string
}{
	{"BW", "26779200123", "65202", "https://www.itu.int/pub/T-SP-OB.1314-2025", "ITU OB No. 1314 (2025-04-15), communication of BOCRA (Botswana) of 2025-03-27, Table 8: 79 200 000 - 79 209 999 Orange Botswana"},
	{"BW", "26779219999", "65204", "https://www.itu.int/pub/T-SP-OB.1314-2025", "ITU OB No. 1314 (2025-04-15), communication of BOCRA (Botswana) of 2025-03-27, Table 8: 79 210 000 - 79 219 999 Botswana Telecommunications Corporation Limited (BTCL)"},
	{"BW", "26779225555", "65202", "https://www.itu.int/pub/T-SP-OB.1314-2025", "ITU OB No. 1314 (2025-04-15), communication of BOCRA (Botswana) of 2025-03-27, Table 8: 79 220 000 - 79 229 999 Orange Botswana"},
	{"BW", "26779230000", "65201", "https://www.itu.int/pub/T-SP-OB.1314-2025", "ITU OB No. 1314 (2025-04-15), communication of BOCRA (Botswana) of 2025-03-27, Table 8: 79 230 000 - 79 279 999 Mascom Wireless"},
	{"BW", "26779279999", "65201", "https://www.itu.int/pub/T-SP-OB.1314-2025", "ITU OB No. 1314 (2025-04-15), communication of BOCRA (Botswana) of 2025-03-27, Table 8: 79 230 000 - 79 279 999 Mascom Wireless"},
	{"IL", "972555612345", "42516", "https://www.itu.int/pub/T-SP-OB.1203-2020", "ITU OB No. 1203 (2020-09-01), communication of the Ministry of Communications (Israel) of 2020-08-09: mobile +972-55-56XXXXX Rami Levi Ltd"},
	{"CN", "8616212345678", "46011", "https://www.itu.int/pub/T-SP-OB.1157-2018", "ITU OB No. 1157 (2018-10-01), communication of MIIT (China) of 2018-09-06: mobile NDCs 191 and 162, contact China Telecom Co., Ltd."},
	{"SX", "17215201234", "36251", "https://www.itu.int/pub/T-SP-OB.1004-2012", "ITU OB No. 1004 (2012-05-15), communication of the Ministry of Economic Affairs, Agriculture and Innovation (the Netherlands) of 2012-04-03, Sint Maarten's numbering plan: mobile 520-524, 526-529, 550, 556, 557, 559 Telcell"},
	{"SX", "17215599999", "36251", "https://www.itu.int/pub/T-SP-OB.1004-2012", "ITU OB No. 1004 (2012-05-15), communication of the Ministry of Economic Affairs, Agriculture and Innovation (the Netherlands) of 2012-04-03, Sint Maarten's numbering plan: mobile 520-524, 526-529, 550, 556, 557, 559 Telcell"},
	{"GD", "14734051234", "352110", "https://www.itu.int/pub/T-SP-OB.1050-2014", "ITU OB No. 1050 (2014-04-15), communication of ECTEL of 2014-03-14, Grenada's telephone number plan: Cable and Wireless Grenada, mobile 403-407, 409, 410, 458"},
	{"GD", "14734580000", "352110", "https://www.itu.int/pub/T-SP-OB.1050-2014", "ITU OB No. 1050 (2014-04-15), communication of ECTEL of 2014-03-14, Grenada's telephone number plan: Cable and Wireless Grenada, mobile 403-407, 409, 410, 458"},
	{"AW", "2979961234", "36301", "https://www.itu.int/pub/T-SP-OB.979-2011", "ITU OB No. 979 (2011-05-01), communication of the Directorate of Telecommunication Affairs (Aruba) of 2011-03-29: 995-998 mobile telephony, assigned to Setar N.V."},
	{"AW", "2979989999", "36301", "https://www.itu.int/pub/T-SP-OB.979-2011", "ITU OB No. 979 (2011-05-01), communication of the Directorate of Telecommunication Affairs (Aruba) of 2011-03-29: 995-998 mobile telephony, assigned to Setar N.V."},
}

// TestOBRangeSpots checks each spot against the committed tables (the
// number's longest carrier prefix answers the code; the reproducibility test
// proves the tables to be what the generator makes of the curated files) and
// that the curated line holding it cites the bulletin.
func TestOBRangeSpots(t *testing.T) {
	t.Parallel()
	st := readSpotTables(t)
	lines := map[string][]string{}
	for _, l := range curatedSection(t, "ranges.tsv", "Numbering plans of the ITU Operational Bulletins") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) < 6 {
			t.Fatalf("ranges.tsv: short line %q", l)
		}
		lines[f[1]] = f
	}
	regions := map[string]bool{}
	for _, s := range obRangeSpots {
		regions[s.region] = true
		prefix := st.answers(t, s.region, s.number, s.want, s.source)
		if prefix == "" {
			continue
		}
		f, ok := lines[prefix]
		if !ok {
			t.Errorf("%s +%s: range +%s is not a line of the ITU Operational Bulletins' section of ranges.tsv", s.region, s.number, prefix)
			continue
		}
		if f[0] != s.region || f[3] != s.want || f[4] != s.url {
			t.Errorf("%s +%s: line %q, want region %s, code %s, source %s", s.region, s.number, strings.Join(f, "\t"), s.region, s.want, s.url)
		}
	}
	// Every line of the section is a region with a spot test.
	for p, f := range lines {
		if !regions[f[0]] {
			t.Errorf("ranges.tsv +%s (%s): no spot test for the region", p, f[0])
		}
	}
}
