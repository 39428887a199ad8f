package main

import (
	"strings"
	"testing"
)

// europeAmericasSpots are decisions of 2026-11-27 for Europe and the Americas (the
// "Europe and the Americas" sections of curated/mccmnc_aliases.tsv and
// curated/networks.tsv), checked against the committed tables: a prefix of
// libphonenumber's carrier data, the carrier it names there, the code the
// prefix must answer ("-": none) and the decision's source.
var europeAmericasSpots = []struct {
	region, prefix, carrier, want, source string
}{
	{"TC", "164943", "Islandcom", "376350", "IslandCom sold to LIME (Cable & Wireless, now FLOW) in 2015 (Turks & Caicos Sun, 2015-05-01); ITU OB No. 1190 (2020-02-15), E.212 amendment: SUP 376 352 and 376 360 IslandCom Communication Ltd."},
	{"BM", "144190", "Paradise Mobile", "350007", "ITU OB No. 1222 (2021-06-15), E.212 amendment: ADD 350 007 Paradise Mobile; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 350 007 Paradise Mobile"},
	{"BM", "144192", "Deltronics", "35011", "ITU OB No. 1136 (2017-11-15), E.212 amendment: ADD 350 11 Deltronics; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 350 11 Deltronics"},
	{"KY", "134541", "Paradise Mobile", "346007", "ITU OB No. 1295 (2024-07-01), E.212 amendment: ADD 346 007 Paradise Mobile Limited (curated/networks.tsv)"},
	{"LI", "4236610", "Dimoco", "29511", "ITU OB No. 1254 (2022-10-15), E.212 amendment: ADD 295 11 DIMOCO Messaging AG"},
	{"LI", "42374", "First Mobile", "-", "ITU OB No. 1254 (2022-10-15), E.212 amendment: SUP 295 07 First Mobile AG"},
	{"CW", "59996", "Digicel", "36269", "ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 362 69 CT GSM (Curaçao Telecom N.V., Digicel Curaçao)"},
	{"CW", "599951", "Chippie", "36291", "ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 362 91 SETEL GSM (UTS, whose mobile brand was Chippie, now FLOW); mcc-mnc-list 1.1.11: 362-91 FLOW, \"Curaçao; former Setel N.V., UTS\""},
	{"BQ", "59979", "Chippie", "36260", "commsupdate 2015-02-12: UTS's Chippie Bonaire, St Eustatius, Saba; mcc-mnc-list 1.1.11: 362-60 FLOW, \"Bonaire, Saba, Sint Eustatius, Sint Maarten; former Radcomm N.V., UTS\""},
	{"BQ", "599319", "Chippie", "36260", "commsupdate 2015-02-12: UTS's Chippie St Eustatius; mcc-mnc-list 1.1.11: 362-60 FLOW, \"Bonaire, Saba, Sint Eustatius, Sint Maarten; former Radcomm N.V., UTS\""},
	{"SX", "1721580", "Flow", "36260", "UTS Sint Maarten, FLOW since Liberty Latin America bought UTS (2019); mcc-mnc-list 1.1.11: 362-60 FLOW, \"Bonaire, Saba, Sint Eustatius, Sint Maarten; former Radcomm N.V., UTS\""},
	{"MD", "37367", "Moldtelecom", "25905", "ITU OB No. 967 (2010-11-01), E.212 amendment: ADD 259 05 J.S.C. Moldtelecom/3G UMTS (W-CDMA); ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 259 05"},
	{"PT", "3519282", "Digi Communications", "26802", "ITU OB No. 1293 (2024-06-01), E.212 amendment: ADD 268 02 Digi Portugal, Lda."},
	{"PT", "3519234", "G9 Telecom", "26813", "ITU OB No. 1122 (2017-04-15), E.212 amendment: ADD 268 13 G9Telecom, S.A.; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 268 13 G9Telecom, S.A."},
	{"PT", "3519295", "Sumamovil Portugal", "26807", "ITU OB No. 1293 (2024-06-01), E.212 amendment: ADD 268 07 Sumamovil Portugal, S.A."},
	// Second round: codes the list has with the status Unknown, confirmed in
	// curated/networks.tsv, and a second look at earlier lines.
	{"GF", "59469435", "Free Caraibe", "74204", "ITU OB No. 1243 (2022-05-01), E.212 amendment: French Guiana ADD 742 04 Free Caraïbe; ITU OB No. 1208 (2020-11-15), E.118 amendment: French Guiana, Free Caraïbe, 89 594 04; Arcep's MAJNUM: 069435 FRCA, Guyane"},
	{"GF", "59470930", "Free Caraibe", "74204", "ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: French Guiana, 742 04 Free Caraïbe; Arcep's MAJNUM: 070930 FRCA, Guyane"},
	{"GP", "5906912", "Free Caraïbe", "34009", "ITU OB No. 1146 (2018-04-15), E.212 amendment: Guadeloupe ADD 340 09 Free Caraïbe; ITU OB No. 1208 (2020-11-15), E.118 amendment: Guadeloupe, Free Caraïbe, 89 590 09; Arcep's MAJNUM: 069123-069128 FRCA"},
	{"GP", "59070900", "Free Caraïbe", "34009", "ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 340 09 Free Caraïbe, its only code under MCC 340; Arcep's MAJNUM: 070900 FRCA, \"Guadeloupe, St Martin et St Barthélemy\""},
	{"MK", "389737", "MTEL", "29412", "ITU OB No. 1251 (2022-09-01), E.212 amendment: North Macedonia ADD 294 12 MTEL DOOEL Skopje (curated/networks.tsv)"},
	{"SI", "386657", "Novatel", "29321", "ITU OB No. 1244 (2022-05-15), E.212 amendment: Slovenia ADD 293 21 Novatel d.o.o. (curated/networks.tsv)"},
	{"BB", "124669", "Ozone", "-", "ITU OB No. 1212 (2021-01-15), E.212 amendment: ADD 342 800 Ozone, but no network since July 2019 (Barbados Today, 2019-08-16; operatorwatch, 2023-09-29)"},
	{"BB", "124645", "Sunbeach Communications", "-", "ITU OB No. 1212 (2021-01-15), E.212 amendment: SUP 342 820 Sunbeach Communications, ADD 342 820 Neptune Communications Inc.; Sunbeach closed in 2013 (operatorwatch, 2023-09-29)"},
}

// TestEuropeAmericasSpots checks each spot: libphonenumber's carrier data names the
// carrier for the prefix, and the committed tables answer the decided code
// (the reproducibility test proves them to be what the generator makes of
// the curated files).
func TestEuropeAmericasSpots(t *testing.T) {
	t.Parallel()
	st := readSpotTables(t)
	codes, carriers := st.codes, st.carriers
	for _, s := range europeAmericasSpots {
		if !strings.Contains(s.source, "ITU OB No. ") && !strings.Contains(s.source, "mcc-mnc-list") {
			t.Errorf("%s +%s: the source cites neither the ITU nor the list", s.region, s.prefix)
		}
		if got := carriers[s.prefix]; got != s.carrier {
			t.Errorf("%s +%s: carrier %q, want %q", s.region, s.prefix, got, s.carrier)
		}
		want := s.want
		if want == "-" {
			want = ""
		}
		if got := codes[s.prefix]; got != want {
			t.Errorf("%s +%s (%s): answers %q, want %q (%s)", s.region, s.prefix, s.carrier, got, want, s.source)
		}
	}
}
