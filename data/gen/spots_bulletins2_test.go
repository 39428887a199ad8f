package main

import (
	"strings"
	"testing"
)

// bulletin2Spots are range lines of 2026-11-27 from the numbering plan
// communications of the ITU Operational Bulletins for a second set of
// countries (issue 35, part 2): a number in each line's range, the code it
// must answer and the source that settles it.
var bulletin2Spots = []numberSpot{
	// +241 02 XX XX XX: the eight-digit form of 2012-2024.
	{"GA", "24102123456", "62801", "ITU OB No. 1002 (2012-04-15), communication of the ARCEP (Gabon) of 2012-03-28: AB = 02 assigned to the mobile service of Libertis Gabon, +241 02 XX XX XX; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 628 01 LIBERTIS"},
	{"GA", "24102987654", "62801", "ITU OB No. 1174 (2019-06-15), communication of the ARCEP (Gabon) of 2019-05-21: Libertis's 02 PQ MC DU become 062 PQ MC DU (Gabon Télécom's mobile network)"},
	// +241 2 XX XX XX: the same numbers without the 0, as announced for 2012.
	{"GA", "2412812345", "62801", "ITU OB No. 1007 (2012-07-01), communication of the ARCEP (Gabon) of 2012-05-08: A = 2 GSM network of LIBERTIS, 02 XX XX XX dialled +241 2 XX XX XX"},
	{"GA", "2412998765", "62801", "ITU OB No. 1007 (2012-07-01), communication of the ARCEP (Gabon) of 2012-05-08: A = 2 GSM network of LIBERTIS, 02 XX XX XX dialled +241 2 XX XX XX"},
}

// TestBulletin2Spots checks each spot against the committed tables (the
// reproducibility test proves them to be what the generator makes of the
// curated files): the number's longest carrier range answers the code, and
// a line of the second bulletins' section of curated/ranges.tsv names the
// range and the code and cites the bulletin by its address.
func TestBulletin2Spots(t *testing.T) {
	t.Parallel()
	st := readSpotTables(t)
	lines := curatedSection(t, "ranges.tsv", "Numbering plans of the ITU Operational Bulletins (2)")
	for _, s := range bulletin2Spots {
		if !strings.Contains(s.source, "ITU OB No. ") {
			t.Errorf("%s +%s: the source cites no bulletin", s.region, s.number)
		}
		prefix := st.answers(t, s.region, s.number, s.want, s.source)
		if prefix == "" {
			continue
		}
		switch f := rangeLine(lines, s.region, prefix, s.want); {
		case f == nil:
			t.Errorf("%s +%s: no line for +%s = %s in the section of the bulletins (2)", s.region, s.number, prefix, s.want)
		case !strings.HasPrefix(f[4], "https://www.itu.int/pub/T-SP-OB."):
			t.Errorf("%s +%s: the line cites %q, not an ITU Operational Bulletin", s.region, s.number, f[4])
		}
	}
}
