package main

import (
	"strings"
	"testing"
)

// twoCodesSpots are decisions of issue 35 for operators with two codes (the
// section "Operators with two codes" of curated/mccmnc_aliases.tsv), checked
// against the committed tables: a number of the range, the carrier name the
// range data gives it, the code it must answer ("-": none, a range left
// unresolved on purpose because no source says which of the operator's codes
// its SIM cards carry), and the source that settles it.
var twoCodesSpots = []struct {
	region, number, carrier, want, source string
}{
	// Uzbekistan: UzMobile's 434-08 (GSM, UMTS, LTE, 5G) against 434-03 (CDMA 450).
	{"UZ", "998771234567", "Uzbektelecom", "43408", "ITU OB No. 1263 (2023-02-10), the numbering plan of Uzbekistan: NDC 77 \"mobile, GSM\", UZMOBILE; mcc-mnc-list 1.1.11: 434-08 UzMobile GSM/UMTS/LTE/5G, 434-03 UzMobile CDMA 450"},
	{"UZ", "998991234567", "Uzbektelecom", "43408", "ITU OB No. 1263 (2023-02-10): NDC 99 \"mobile, GSM\", UZMOBILE; mcc-mnc-list 1.1.11: 434-08 is UzMobile's GSM network"},
	{"UZ", "998331234567", "HUMANS", "43408", "ITU OB No. 1263 (2023-02-10): NDC 33 \"mobile, GSM\", HUMANS; a virtual network on Uzbektelecom's network since 2020 (Daryo, 2025-06-05), without a code of its own in ITU OB No. 1280 (2023-11-15)'s annexed E.212 list"},
	{"UZ", "998951234567", "Uzbektelecom", "-", "ITU OB No. 1263 (2023-02-10): NDC 95 \"mobile, CDMA & GSM\", UZMOBILE: either of 434-03 and 434-08, left unresolved"},
	{"UZ", "998701234567", "Uzbektelecom", "-", "ITU OB No. 1263 (2023-02-10): NDC 70 is geographic (PSTN, Tashkent region), not UzMobile's: left unresolved"},
	// Hong Kong: HKT's CSL network, 454-00, for New World Mobility's and SUN Mobile's ranges.
	{"HK", "85254012345", "HKT", "45400", "history: New World Mobility (to 8.8.10), Sun Mobile (to 8.13.25), HKT; mcc-mnc-list 1.1.11: 454-00 \"1O1O / One2Free / New World Mobility / SUNMobile\", 454-10 not operational, combined with 454-00; ITU OB No. 1077 (2015-06-01), E.212 amendment: LIR 454 00 and 454 10 HKT"},
	{"HK", "85251112345", "HKT", "45400", "history: New World Mobility, Sun Mobile, HKT; mcc-mnc-list 1.1.11: 454-00's brands include New World Mobility and SUNMobile; ITU OB No. 1280 (2023-11-15), annexed E.212 list: 454 00 HKT"},
	{"HK", "85246101234", "HKT", "45400", "history: Sun Mobile (to 8.13.25), HKT; mcc-mnc-list 1.1.11: 454-00's brands include SUNMobile"},
	{"HK", "85292911234", "HKT", "45400", "history: China Unicom, Sun Mobile (8.12.42), HKT (8.13.25); mcc-mnc-list 1.1.11: 454-00's brands include SUNMobile"},
	{"HK", "85251412345", "HKT", "-", "history: PCCW Mobile (to 8.8.10), HKT: PCCW's network has 454-16, 19, 20 and 29 operational in mcc-mnc-list 1.1.11, all HKT's in ITU OB No. 1280 (2023-11-15), and serviceproviders.xml names 454-16 and 454-19 for PCCW's SIM cards: left unresolved"},
	// Left: both codes operational, no source ties a range to one.
	{"SL", "23277123456", "Africell", "-", "ITU OB No. 1280 (2023-11-15), annexed E.212 list: 619 03 Africell and 619 05 Lintel (Sierra Leone) Ltd., both operational as Africell in mcc-mnc-list 1.1.11; NATCOM's plan (ITU OB No. 1009, 2012-06-11) names Africell for 30, 77 and 88 without a network code: left unresolved"},
	{"YE", "967771234567", "Yemen Mobile", "-", "mcc-mnc-list 1.1.11: 421-03 (CDMA 850) and 421-11 (LTE), neither in ITU OB No. 1280 (2023-11-15)'s annexed E.212 list, no plan of Yemen in the bulletins since 2010: left unresolved"},
	{"MO", "85366123456", "CTM", "-", "ITU OB No. 1280 (2023-11-15), annexed E.212 list: 455 01 and 455 04 Companhia de Telecomunicações de Macau; serviceproviders.xml names both for CTM's SIM cards: left unresolved"},
}

// TestTwoCodesSpots checks each spot against the committed tables: the
// number's longest carrier range has the carrier name and answers the code
// (the reproducibility test proves the tables to be what the generator makes
// of the curated files). Every alias of the section has a spot.
func TestTwoCodesSpots(t *testing.T) {
	t.Parallel()
	st := readSpotTables(t)
	spotted := map[string]bool{}
	for _, s := range twoCodesSpots {
		if s.source == "" {
			t.Errorf("%s %s: no source", s.region, s.number)
		}
		prefix := st.answers(t, s.region, s.number, s.want, s.source)
		if got := st.carriers[prefix]; prefix != "" && got != s.carrier {
			t.Errorf("%s %s (range %s): carrier %q, want %q", s.region, s.number, prefix, got, s.carrier)
		}
		if s.want != "-" {
			spotted[s.region+"\t"+s.carrier+"\t"+s.want] = true
		}
	}
	n := 0
	for _, line := range curatedSection(t, "mccmnc_aliases.tsv", "Operators with two codes") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 4 {
			t.Errorf("mccmnc_aliases.tsv: short line %q", line)
			continue
		}
		n++
		if !spotted[f[0]+"\t"+f[1]+"\t"+f[2]] {
			t.Errorf("mccmnc_aliases.tsv: %s %s → %s has no spot", f[0], f[1], f[2])
		}
	}
	if n == 0 {
		t.Error("mccmnc_aliases.tsv: no line in the section \"Operators with two codes\"")
	}
}
