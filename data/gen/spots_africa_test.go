package main

import (
	"strings"
	"testing"
)

// africaSpots are the decisions of 2026-11-27 for Africa and the Middle East (issue
// 35): a number of each decided carrier's ranges, the code it must answer
// ("-": none), the curated file holding the decision, and its source.
var africaSpots = []struct {
	region, number, want, file, source string
}{
	{"IL", "972515555555", "42509", africaAliases, "ITU OB No. 1122 (2017-04-15), E.212 amendment: ADD 425 09 Marathon 018 Xphone Ltd."},
	{"IL", "972541234567", "42501", africaAliases, "ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 425 01 Partner Communications Co. Ltd.; mcc-mnc-list 1.1.11: 425-01 Partner, \"Former Orange (until 2016)\""},
	{"IL", "972553212345", "42512", africaAliases, "ITU OB No. 1329 (2025-12-01), E.212 amendment: LIR 425 12 FREE TELECOM LTD"},
	{"KE", "254124123456", "63906", africaAliases, "ITU OB No. 1140 (2018-01-15), E.212 amendment: ADD 639 06 Finserve Africa Limited"},
	{"KE", "254744123456", "63909", africaAliases, "ITU OB No. 1140 (2018-01-15), E.212 amendment: ADD 639 09 Homeland Media Group Limited"},
	{"KE", "254121123456", "63912", africaAliases, "ITU OB No. 1207 (2020-11-01), E.212 amendment: ADD 639 12 Infura Limited"},
	{"KE", "254747123456", "63910", africaAliases, "ITU OB No. 1140 (2018-01-15), E.212 amendment: ADD 639 10 Jamii Telecommunications Limited"},
	{"GW", "245971234567", "63201", africaAliases, "ITU OB No. 1256 (2022-11-15), communication of the ARN (Guinea-Bissau) of 2022-10-29: 97 Guinétel; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 632 01 Guinétel S.A."},
	{"MW", "265111234567", "65003", africaAliases, "mcc-mnc-list 1.1.11: 650-03 MTL, Malawi Telecommunications Limited, Operational"},
	{"SD", "249951234567", "63405", africaAliases, "ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 634 05 Network of the World Ltd (NOW)"},
	{"ZM", "260981234567", "64504", africaNetworks, "ITU OB No. 1293 (2024-06-01), E.212 amendment: ADD 645 04 Beeline Telecoms Limited; ITU OB No. 1254 (2022-10-15), communication of ZICTA (Zambia): 98 Beeline Telecoms"},
	{"IQ", "9647701234567", "41805", africaAliases, "ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 418 05 Asia Cell; ITU OB No. 1320 (2025-07-15), communication of the CMC (Iraq) of 2025-06-26: 7700-7781 Asiacell"},
	{"IL", "972554312345", "42522", africaAliases, "ITU OB No. 1203 (2020-09-01), E.212 amendment: ADD 425 22 Maskyoo Telephonia Ltd."},
	{"SH", "29060123", "65801", africaRanges, "ITU OB No. 1339 (2026-05-01), communication of Sure South Atlantic of 2026-04-01: 5XXXX and 6XXXX mobile services"},
	{"SH", "29069999", "65801", africaRanges, "ITU OB No. 1339 (2026-05-01), communication of Sure South Atlantic of 2026-04-01: 5XXXX and 6XXXX mobile services"},
	{"TN", "21631112345", "60501", africaRanges, "ITU OB No. 1086 (2015-10-15), communication of the INT (Tunisia) of 2015-09-28: Orange Tunisie, restricted mobility, +216 31 100 000 to +216 31 409 999"},
	{"TN", "21636012345", "60503", africaRanges, "ITU OB No. 1086 (2015-10-15), communication of the INT (Tunisia) of 2015-09-28: Ooredoo Tunisie, restricted mobility, +216 36 000 000 to +216 36 499 999"},
	{"LR", "231330123456", "-", africaAliases, "ITU OB No. 1160 (2018-11-15), communication of the LTA (Liberia) of 2018-10-31: (33) 0XX XXXX, Fixed Wireless, West Africa Telecoms Incorporated (WAT)"},
	// Second round: networks.tsv adds a region to a code of another
	// (658-01) and confirms a code of unknown status (425-23).
	{"AC", "24741234", "65801", africaNetworks, "ITU OB No. 1078 (2015-06-15), E.212 amendment: ADD 658 01 Sure South Atlantic Ltd. (Ascension); ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: Sure South Atlantic Ltd. (Ascension) 658 01"},
	{"IL", "972550123456", "42523", africaNetworks, "ITU OB No. 1058 (2014-08-15), E.212 amendment: ADD 425 23 Beezz Communication Solutions Ltd.; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 425 23"},
	{"IL", "972510123456", "42509", africaAliases, "ITU OB No. 1309 (2025-02-01), E.212 amendment: SUP 425 09 Marathon 018 Xphone Ltd., ADD 425 09 Wecom Mobile Ltd."},
	{"ZA", "27819012345", "65525", africaAliases, "ITU OB No. 1010 (2012-08-15), E.212 amendment: ADD 655 25 WIRELS CONNECT; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 655 25 Wirels Connect"},
}

const (
	africaAliases  = "mccmnc_aliases.tsv"
	africaNetworks = "networks.tsv"
	africaRanges   = "ranges.tsv"
)

// TestAfricaSpots checks each spot against the committed tables (the
// reproducibility test proves them to be what the generator makes of the
// curated files): the number's longest carrier range answers the code, and
// the decision's line in its curated file names the code and cites the
// ITU's record where the spot's source does.
func TestAfricaSpots(t *testing.T) {
	t.Parallel()
	st := readSpotTables(t)
	carriers := st.carriers
	curated := map[string][]string{}
	for _, f := range []string{africaAliases, africaNetworks, africaRanges} {
		curated[f] = curatedSection(t, f, "Africa and the Middle East") // only this group's lines
	}
	regions := map[string]bool{}
	for _, s := range africaSpots {
		regions[s.region] = true
		if s.source == "" {
			t.Errorf("%s +%s: no source", s.region, s.number)
		}
		prefix := st.answers(t, s.region, s.number, s.want, s.source)
		if prefix == "" {
			continue
		}
		decided := false
		for _, l := range curated[s.file] {
			f := strings.Split(l, "\t")
			switch {
			case s.file == africaAliases && len(f) >= 4 && f[0] == s.region && f[1] == carriers[prefix] && f[2] == s.want:
				decided = true
			case s.file == africaNetworks && len(f) == 6 && f[0] == s.region && f[1]+f[2] == s.want:
				decided = true
			case s.file == africaRanges && len(f) >= 6 && f[0] == s.region && f[1] == prefix && f[3] == s.want:
				decided = f[4] != ""
			}
			if decided {
				// A range line cites the bulletin by its address.
				if strings.Contains(s.source, "ITU OB No. ") && !strings.Contains(l, "ITU OB No. ") && !strings.Contains(l, "https://www.itu.int/pub/T-SP-OB.") {
					t.Errorf("%s +%s: the line in %s cites no ITU Operational Bulletin", s.region, s.number, s.file)
				}
				break
			}
		}
		if !decided {
			t.Errorf("%s +%s: no line for %q = %s in the Africa and Middle East section of %s", s.region, s.number, carriers[prefix], s.want, s.file)
		}
	}
	if len(regions) < 8 {
		t.Errorf("spots in %d regions, want at least 8", len(regions))
	}
}
