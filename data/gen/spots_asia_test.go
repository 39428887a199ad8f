package main

import (
	"testing"
)

// asiaSpots are decisions of issue 35 for Asia and the Pacific (aliases,
// networks the list lacks and range lines in the sections "Asia and the
// Pacific" of the curated files), checked against the committed tables: a
// number of the range, the carrier name the range data gives it, the code
// it must answer ("-": none, a service without a network code), and the
// source that settles it.
var asiaSpots = []struct {
	region, number, carrier, want, source string
}{
	{"KI", "68673012345", "ATHKL", "54501", "ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 545 01 ATHKL, its only code; mcc-mnc-list 1.1.11: 545-01 Kiribati - ATH, note \"Former Telecom Services Kiribati Ltd (TSKL)\""},
	{"KI", "68670123456", "ATHKL", "54501", "ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 545 01 ATHKL"},
	{"KI", "68663012345", "Ocean Link", "54502", "ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 545 02 OceanLink, its only code"},
	{"PG", "67584123456", "Vodafone", "53704", "ITU OB No. 1322 (2025-08-15), NICTA's communication: 84000000-84999999 assigned to Digitec Communications Limited (GSM mobile); ITU OB No. 1227 (2021-09-01), E.212 amendment: ADD 537 04 Digitec Communication Limited"},
	{"PG", "67581123456", "Vodafone", "53704", "Vodafone PNG, Digitec's network (ITU OB No. 1322 (2025-08-15)); ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 537 04 Digitec Communication Limited"},
	{"FM", "6919601234", "BOOM!", "55002", "ITU OB No. 1297 (2024-08-01), E.212 amendment: ADD 550 02 Boom! Inc.; ITU OB No. 1311 (2025-03-01), the TRA's numbering plan: 960 (Yap, fixed and mobile) Boom! Inc"},
	{"GE", "995500310000", "Unicell Mobile", "28216", "ITU OB No. 1288 (2024-03-15), E.212 amendment: ADD 282 16 \"Unicell Mobile\" LTD; ITU OB No. 1289 (2024-04-01), the GNCC's numbering plan: 500305000-500329999 Unicell Mobile"},
	{"GE", "995552001234", "Premium Net International SRL", "28210", "ITU OB No. 1150 (2018-06-15), E.212 amendment: ADD 282 10 Premium Net International SRL LTD, in ITU OB No. 1280 (2023-11-15)'s annexed list; ITU OB No. 1289 (2024-04-01), the GNCC's numbering plan: 552000000-552009999 Premium Net International SRL, MVNO mobile operator"},
	{"GE", "995500021234", "Icell Telecom", "28266", "ITU OB No. 1289 (2024-04-01): the GNCC's numbering plan, 500020000-500029999 Icell Telecom, MVNO mobile operator, and the E.212 amendment ADD 282 66 Icecell Telecom LLC; ITU OB No. 1297 (2024-08-01), ISPC amendment: Icecell Telecom LTD, Tbilisi, MVNO mobile operator"},
	{"GE", "995559995123", "Globalcell", "28207", "ITU OB No. 1232 (2021-11-15) and No. 1289 (2024-04-01), the GNCC's numbering plans: 559995000-559999999 Global Cell (Datahouse global's in OB No. 1192, 2020)"},
	{"GE", "995575001234", "MagtiCom", "28202", "ITU OB No. 1217 (2021-04-01), No. 1232 (2021-11-15) and No. 1289 (2024-04-01), the GNCC's numbering plans: 575000000-575004999 Magticom (Asanet's in OB No. 1178 and 1192)"},
	{"GE", "995575007654", "Asanet", "-", "no holder of 575005000-575009999 in the GNCC's plans (ITU OB No. 1178 to 1289), and none of Asanet's since ITU OB No. 1232 (2021-11-15)"},
	{"MN", "97672412345", "Lime", "-", "ITU OB No. 1334 (2026-02-15), the CRC's communication: 72x40000-72x49999 \"VoIP Service Operator: ONLIME NETWORK\"; no Mongolian code of Onlime in ITU OB No. 1280 (2023-11-15)'s annexed E.212 MNC list"},
	{"AZ", "994601234567", "Azercell", "40001", "ITU OB No. 1336 (2026-03-15), the ministry's numbering plan (2026-02-25): NDC 60 \"Azercell Telecom\" LLC; Naxtel (400-06) ceased on 2025-12-19"},
}

// TestAsiaSpots checks each spot against the committed tables: the number's
// longest carrier range has the carrier name and answers the code (the
// reproducibility test proves the tables to be what the generator makes of
// the curated files).
func TestAsiaSpots(t *testing.T) {
	t.Parallel()
	st := readSpotTables(t)
	for _, s := range asiaSpots {
		if s.source == "" {
			t.Errorf("%s %s: no source", s.region, s.number)
		}
		prefix := st.answers(t, s.region, s.number, s.want, s.source)
		if got := st.carriers[prefix]; prefix != "" && got != s.carrier {
			t.Errorf("%s %s (range %s): carrier %q, want %q", s.region, s.number, prefix, got, s.carrier)
		}
	}
}
