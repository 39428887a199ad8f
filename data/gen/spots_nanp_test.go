package main

import (
	"strings"
	"testing"
)

// nanpSection is the curated files' section for the Caribbean regions of
// the North American numbering plan (+1).
const nanpSection = "North American numbering plan, Caribbean"

// nanpSpots are the decisions of 2026-11-27 for the Caribbean regions of +1
// (issue 35): a number of each decided NXX code or carrier, the code it must
// answer ("-": none), the curated file holding the decision, and its source.
// "LCG" is localcallingguide.com's listing of the NPA's prefixes, whose
// holder of each NXX code is that of the North American numbering plan's
// assignment records (data of 2023-03-07).
var nanpSpots = []struct {
	region, number, want, file, source string
}{
	{"AG", "12684641234", "344920", nanpRanges, "LCG, NPA 268: 464 CABLE & WIRELESS (AN); ITU OB No. 1007 (2012-07-01), E.212 amendment: 344 920 Cable & Wireless Antigua and Barbuda Limited"},
	{"AG", "12687641234", "344920", nanpRanges, "LCG, NPA 268: 764 CABLE & WIRELESS (AN)"},
	{"AG", "12687899876", "344920", nanpRanges, "LCG, NPA 268: 789 CABLE & WIRELESS (AN)"},
	{"AI", "12642351234", "365840", nanpRanges, "LCG, NPA 264: 235 CABLE & WIRELESS (AI); ITU OB No. 1007 (2012-07-01), E.212 amendment: 365 840 Cable and Wireless (Anguilla) Limited"},
	{"AI", "12644761234", "365840", nanpRanges, "LCG, NPA 264: 476 CABLE & WIRELESS (AI)"},
	{"MS", "16644921234", "354860", nanpRanges, "ITU OB No. 1234 (2021-12-15), communication of MICA (Montserrat) of 2021-11-18: 492 Post-Paid Cellular, FLOW; LCG, NPA 664: 492 CABLE & WIRELESS (RT)"},
	{"MS", "16644941234", "354860", nanpRanges, "ITU OB No. 1234 (2021-12-15), communication of MICA (Montserrat) of 2021-11-18: 494 Pre-paid Cellular Reserved, FLOW; LCG, NPA 664: 494 CABLE & WIRELESS (RT)"},
	{"TC", "16494421234", "376350", nanpRanges, "LCG, NPA 649: 441-443 CABLE & WIRELESS (TC)"},
	{"VG", "12843021234", "348770", nanpRanges, "LCG, NPA 284: 301-303 DIGICEL (BVI) LIMITED"},
	{"VG", "12844681234", "348570", nanpRanges, "LCG, NPA 284: 468 CARIBBEAN CELLULAR TELEPHONE DBA BOATPHONE"},
	{"VG", "12845431234", "348170", nanpRanges, "LCG, NPA 284: 540-545, 547 CABLE & WIRELESS (BV); ITU OB No. 1007 (2012-07-01), E.212 amendment: 348 170 Cable & Wireless (BVI)"},
	{"GD", "14734101234", "352110", nanpRanges, "ITU OB No. 1050 (2014-04-15), ECTEL's plan for Grenada of 2014-03-14: 410 Cable and Wireless Grenada, mobile; LCG, NPA 473: 410 GRENADA TELECOM LTD (GN)"},
	{"GD", "14735351234", "352030", nanpAliases, "ITU OB No. 1050 (2014-04-15), ECTEL's plan for Grenada of 2014-03-14: 533-538 AWS Grenada, mobile; LCG, NPA 473: 533-538 DIGICEL GRENADA LIMITED; Digicel's purchase of Cingular's Caribbean networks (Cayman Compass, 2005-08-29)"},
	{"KN", "18695561234", "-", nanpAliases, "ITU OB No. 1050 (2014-04-15), ECTEL's plan for Saint Kitts and Nevis of 2014-03-14: 556-558 CariGlobe St. Kitts; UTS's Saint Kitts unit defunct and in liquidation (CommsUpdate, 2019-02-22)"},
}

const (
	nanpAliases = "mccmnc_aliases.tsv"
	nanpRanges  = "ranges.tsv"
)

// TestNANPSpots checks each spot against the committed tables (the
// reproducibility test proves them to be what the generator makes of the
// curated files): the number's longest carrier range answers the code, and
// the decision's line is in the Caribbean section of its curated file, a
// range line citing its source by address.
func TestNANPSpots(t *testing.T) {
	t.Parallel()
	st := readSpotTables(t)
	carriers := st.carriers
	curated := map[string][]string{}
	for _, f := range []string{nanpAliases, nanpRanges} {
		curated[f] = curatedSection(t, f, nanpSection)
	}
	regions := map[string]bool{}
	for _, s := range nanpSpots {
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
			case s.file == nanpAliases && len(f) >= 4 && f[0] == s.region && f[1] == carriers[prefix] && f[2] == s.want:
				decided = true
			case s.file == nanpRanges && len(f) >= 6 && f[0] == s.region && strings.HasPrefix(prefix, f[1]) && f[3] == s.want:
				// The generator may split a line around a finer range of
				// libphonenumber's, so the number's range may be longer.
				decided = strings.HasPrefix(f[4], "https://")
				if namesPlan(s.source) && strings.HasPrefix(f[4], "https://www.localcallingguide.com/") {
					// A regulator's plan, where one names the block, is
					// the line's source; the holder record backs it.
					t.Errorf("%s +%s: the line cites %s, not the bulletin", s.region, s.number, f[4])
				}
			}
			if decided {
				break
			}
		}
		if !decided {
			t.Errorf("%s +%s: no line for %q = %s in the %s section of %s", s.region, s.number, carriers[prefix], s.want, nanpSection, s.file)
		}
	}
	if len(regions) < 7 {
		t.Errorf("spots in %d regions, want at least 7", len(regions))
	}
}

// namesPlan reports whether a spot's source is a regulator's numbering plan
// naming the block (as the ITU Operational Bulletin publishes it), which
// then must be the line's source.
func namesPlan(source string) bool {
	return strings.Contains(source, "communication of") || strings.Contains(source, "'s plan for")
}

// TestNANPRangeKeepsInnerCarrier checks that the line for +1 284 468 (CCT,
// from its NXX holder) keeps libphonenumber's own, finer CCT range 4689 and
// fills the rest of the NXX code with the same network's code.
func TestNANPRangeKeepsInnerCarrier(t *testing.T) {
	t.Parallel()
	st := readSpotTables(t)
	for _, n := range []string{"12844680000", "12844688999", "12844689123"} {
		st.answers(t, "VG", n, "348570", "the line for +1 284 468 around libphonenumber's CCT 4689")
	}
}
