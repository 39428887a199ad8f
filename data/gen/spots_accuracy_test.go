package main

import (
	"strings"
	"testing"
)

// accuracyLineSpots are the range lines of the accuracy check of
// 2026-11-27 (data/README.md, "Checked against the regulators' newest
// plans"): a number in each line's range, the code it must answer and the
// bulletin that settles it.
var accuracyLineSpots = []numberSpot{
	{"DK", "4535720000", "23806", "ITU OB No. 1237 (2022-02-01), communication of the Danish Energy Agency: assignment of 3572efgh and 3573efgh to Hi3G Denmark ApS, 2021-09-06"},
	{"DK", "4535739999", "23806", "ITU OB No. 1237 (2022-02-01), communication of the Danish Energy Agency: assignment of 3572efgh and 3573efgh to Hi3G Denmark ApS, 2021-09-06"},
	{"DK", "4535751234", "23806", "ITU OB No. 1255 (2022-11-01), communication of the Agency for Data Supply and Infrastructure: assignment of 3575efgh to Hi3G Denmark ApS, 2022-07-06"},
	{"DK", "4536201234", "23806", "ITU OB No. 1250 (2022-08-15), communication of the Agency for Data Supply and Infrastructure: assignment of 3620efgh to Hi3G Denmark ApS, 2022-05-18"},
	{"DK", "4536211234", "23806", "ITU OB No. 1309 (2025-02-01), communication of the Agency for Digital Government: assignment of 3621efgh to Hi3G Denmark ApS, 2024-07-26"},
	{"DK", "4549816123", "23842", "ITU OB No. 1237 (2022-02-01), communication of the Danish Energy Agency: assignment of 49816fgh to Greenwave Mobile IoT ApS, 2021-06-10"},
	{"DK", "4535741234", "23801", "ITU OB No. 1304 (2024-11-15), communication of the Agency for Digital Government: assignment of 5431efgh, 5432efgh and 3574efgh to Nuuday A/S, 2024-04-01"},
	{"DK", "4554311234", "23801", "ITU OB No. 1304 (2024-11-15), communication of the Agency for Digital Government: assignment of 5431efgh, 5432efgh and 3574efgh to Nuuday A/S, 2024-04-01"},
	{"DK", "4554329999", "23801", "ITU OB No. 1304 (2024-11-15), communication of the Agency for Digital Government: assignment of 5431efgh, 5432efgh and 3574efgh to Nuuday A/S, 2024-04-01"},
	{"DK", "4569301234", "23820", "ITU OB No. 1309 (2025-02-01), communication of the Agency for Digital Government: withdrawal of 6930efgh from Alka Fordele A/S (2024-10-31), assignment to Telia Mobil Danmark A/S (2024-11-01)"},
	{"MU", "23055551234", "61701", "ITU OB No. 1321 (2025-08-01), communication of the ICTA (Mauritius) of 2025-07-10: new mobile range +230 555X XXXX opened by Cellplus Mobile Communications Ltd"},
	{"OM", "96879712345", "42203", "ITU OB No. 1325 (2025-10-01), the TRA's (Oman) national numbering plan: 79XXXXXX mobile service, Ooredoo"},
	{"OM", "96879812345", "42203", "ITU OB No. 1325 (2025-10-01), the TRA's (Oman) national numbering plan: 79XXXXXX mobile service, Ooredoo"},
	{"OM", "96879999999", "42203", "ITU OB No. 1325 (2025-10-01), the TRA's (Oman) national numbering plan: 79XXXXXX mobile service, Ooredoo"},
}

// accuracyAgreeSpots are ranges of the same check on which Numen's answer
// agrees with the bulletin, two operators of each country at most: a
// regression check that a later libphonenumber release, alias or range
// line keeps them so. The numbers are the range's prefix padded with 5s.
var accuracyAgreeSpots = []numberSpot{
	{"MA", "212610555555", "60401", "ITU OB No. 1170 (2019-04-15), communication of Morocco of 2019-03-22: 610 mobile, Itissalat Al-Maghrib"},
	{"MA", "212612555555", "60400", "ITU OB No. 1170 (2019-04-15), communication of Morocco of 2019-03-22: 612 mobile, Médi Telecom"},
	{"GM", "2202055555", "60702", "ITU OB No. 1186 (2019-12-15), communication of Gambia of 2019-11-26: 20 mobile, AFRICELL"},
	{"GM", "2203055555", "60704", "ITU OB No. 1186 (2019-12-15), communication of Gambia of 2019-11-26: 30 mobile, QCELL"},
	{"SN", "221701155555", "60803", "ITU OB No. 1279 (2023-11-01), communication of Senegal of 2023-11-04: 7011 mobile, EXPRESSO SENEGAL"},
	{"SN", "221769355555", "60802", "ITU OB No. 1279 (2023-11-01), communication of Senegal of 2023-11-04: 7693 mobile, SAGA AFRICA HOLDINGS LIMITED"},
	{"GN", "224620555555", "61101", "ITU OB No. 1189 (2020-02-01), communication of Guinea of 2020-01-08: 620 mobile, ORANGE"},
	{"GN", "224653555555", "61105", "ITU OB No. 1189 (2020-02-01), communication of Guinea of 2020-01-08: 653 mobile, CELLCOM"},
	{"CI", "2250155555555", "61202", "ITU OB No. 1210 (2020-12-15), communication of Côte d'Ivoire of 2020-12-13: 01 mobile, Operator Atlantique Telecom CI"},
	{"CI", "2250555555555", "61205", "ITU OB No. 1210 (2020-12-15), communication of Côte d'Ivoire of 2020-12-13: 05 mobile, Operator MTN CI"},
	{"TG", "22870055555", "61501", "ITU OB No. 1213 (2021-02-01), communication of Togo of 2021-01-11: 700 mobile, TOGO CELLULAIRE"},
	{"TG", "22879355555", "61503", "ITU OB No. 1213 (2021-02-01), communication of Togo of 2021-01-11: 793 mobile, ATLANTIQUE TELECOM TOGO"},
	{"MU", "23052655555", "61701", "ITU OB No. 1204 (2020-09-15), communication of Mauritius of 2020-08-20: 526 mobile, Cellplus Mobile Communications Ltd"},
	{"MU", "23052755555", "61703", "ITU OB No. 1205 (2020-10-01), communication of Mauritius of 2020-09-15: 527 mobile, Mahanagar Telephone (Mauritius) Ltd"},
	{"LR", "231220555555", "61820", "ITU OB No. 1263 (2023-03-01), communication of Liberia of 2023-02-08: 220 mobile ((22) 0XX XXXX), Liberia Telecommunications Corporation"},
	{"LR", "231760555555", "61807", "ITU OB No. 1313 (2025-04-01), communication of Liberia of 2025-03-06: 760-761 mobile, Orange Liberia, Incorporated"},
	{"GH", "233256555555", "62001", "ITU OB No. 1222 (2021-06-15), communication of Ghana of 2021-05-19: 256 mobile, Scancom PLC (MTN Ghana)"},
	{"CF", "23670555555", "62301", "ITU OB No. 1330 (2025-12-15), communication of Central African Rep. of 2025-11-14: 70 mobile, Moov Africa Centrafrique"},
	{"CF", "23672555555", "62303", "ITU OB No. 1330 (2025-12-15), communication of Central African Rep. of 2025-11-14: 72 mobile, Orange Centrafrique"},
	{"CV", "2385155555", "62502", "ITU OB No. 1234 (2021-12-15), communication of Cabo Verde of 2021-11-19: 51 mobile, Unitel T+"},
	{"CV", "2385855555", "62501", "ITU OB No. 1234 (2021-12-15), communication of Cabo Verde of 2021-11-19: 58 mobile, CVMóvel"},
	{"SC", "2482555555", "63301", "ITU OB No. 1294 (2024-06-15), communication of Seychelles of 2024-05-23: 25 mobile, CWS"},
	{"SC", "2482755555", "63310", "ITU OB No. 1294 (2024-06-15), communication of Seychelles of 2024-05-23: 27 mobile, AIRTEL"},
	{"KE", "254100555555", "63903", "ITU OB No. 1207 (2020-11-01), communication of Kenya of 2020-10-14: 100 mobile, Airtel Networks Kenya Ltd"},
	{"KE", "254110555555", "63902", "ITU OB No. 1207 (2020-11-01), communication of Kenya of 2020-10-14: 110 mobile, Safaricom PLC"},
	{"TZ", "255615555555", "64009", "ITU OB No. 1304 (2024-11-15), communication of Tanzania of 2024-11-01: 61 mobile, Viettel Tanzania Public Limited Company"},
	{"TZ", "255655555555", "64002", "ITU OB No. 1304 (2024-11-15), communication of Tanzania of 2024-11-01: 65 mobile, Honora Tanzania Public Limited Company"},
	{"UG", "256720555555", "64133", "ITU OB No. 1278 (2023-10-15), communication of Uganda of 2023-09-26: 720 mobile, Smile Communications (U) Ltd"},
	{"UG", "256726555555", "64104", "ITU OB No. 1304 (2024-11-15), communication of Uganda of 2024-11-01: 726 mobile, Tangerine Limited"},
	{"BI", "25764055555", "64208", "ITU OB No. 1312 (2025-03-15), communication of Burundi of 2025-02-25: 640 mobile, VIETTEL BURUNDI S.A."},
	{"MT", "35672105555", "27821", "ITU OB No. 1341 (2026-06-01), communication of Malta of 2026-05-15: 7210 mobile, GO Mobile"},
	{"MT", "35677005555", "27877", "ITU OB No. 1341 (2026-06-01), communication of Malta of 2026-05-15: 7700 mobile, Melita Mobile"},
	{"AM", "37433555555", "28301", "ITU OB No. 1340 (2026-05-15), communication of Armenia of 2026-04-30: 33 mobile, Telecom Armenia (Team)"},
	{"AM", "37441555555", "28310", "ITU OB No. 1340 (2026-05-15), communication of Armenia of 2026-04-30: 41 mobile, Ucom (Ucom)"},
	{"UA", "380505555555", "25501", "ITU OB No. 1178 (2019-08-15), communication of Ukraine of 2019-07-29: 50 mobile, VF Ukraine PrJSC"},
	{"UA", "380635555555", "25506", "ITU OB No. 1178 (2019-08-15), communication of Ukraine of 2019-07-29: 63 mobile, lifecell LLC"},
	{"XK", "38343555555", "22102", "ITU OB No. 1188 (2020-01-15), communication of Kosovo of 2019-10-31: 43 mobile, IPKO Telecommunications LLC"},
	{"XK", "38344555555", "22101", "ITU OB No. 1188 (2020-01-15), communication of Kosovo of 2019-10-31: 44 mobile, Telecom of Kosovo* J.S.C."},
	{"MK", "38970555555", "29401", "ITU OB No. 1231 (2021-11-01), communication of North Macedonia of 2021-10-15: 70 mobile, Macedonia Telecom AD Skopje"},
	{"MK", "38973555555", "29403", "ITU OB No. 1231 (2021-11-01), communication of North Macedonia of 2021-10-15: 73 mobile, A1 Macedonia"},
	{"SK", "421901555555", "23102", "ITU OB No. 1270 (2023-06-15), communication of Slovakia of 2023-05-30: 901 mobile, Slovak Telekom mobile SN"},
	{"SK", "421905555555", "23101", "ITU OB No. 1270 (2023-06-15), communication of Slovakia of 2023-05-30: 905 mobile, Orange Slovensko, mobile SN"},
	{"GB", "447349055555", "23415", "ITU OB No. 1286 (2024-02-15), communication of United Kingdom of 2024-01-18: 73490 mobile, Vodafone Limited"},
	{"GB", "447356655555", "23418", "ITU OB No. 1286 (2024-02-15), communication of United Kingdom of 2024-01-18: 73566 mobile, WIRELESS LOGIC LIMITED"},
	{"DK", "4555615555", "23806", "ITU OB No. 1333 (2026-02-01), communication of Denmark of 2026-01-09: 5561 mobile, Hi3G Denmark ApS"},
	{"GY", "5925105555", "73801", "ITU OB No. 1336 (2026-03-15), communication of Guyana of 2026-02-26: 510 mobile, U-Mobile (Cellular) Inc."},
	{"BQ", "5997005555", "36276", "ITU OB No. 1188 (2020-01-15), communication of Bonaire, Sint Eustatius and Saba of 2019-09-03: 700 mobile, Antilliano Por N.V."},
	{"BQ", "5997705555", "36278", "ITU OB No. 1188 (2020-01-15), communication of Bonaire, Sint Eustatius and Saba of 2019-09-03: 770 mobile, Telbo N.V."},
	{"TO", "6767205555", "53901", "ITU OB No. 1283 (2024-01-01), communication of Tonga of 2023-12-12: 720 mobile, Tonga Communications Corporation"},
	{"TO", "6768405555", "53988", "ITU OB No. 1283 (2024-01-01), communication of Tonga of 2023-12-12: 840 mobile, Digicel Tonga Limited"},
	{"VU", "6785705555", "54105", "ITU OB No. 1232 (2021-11-15), communication of Vanuatu of 2021-10-19: 570 mobile, Digicel (Vanuatu) Limited"},
	{"VU", "6788055555", "54107", "ITU OB No. 1218 (2021-04-15), communication of Vanuatu of 2021-03-25: 80 mobile, WanTok Network Limited"},
	{"PW", "6804505555", "55299", "ITU OB No. 1205 (2020-10-01), communication of Palau of 2020-09-02: 450 mobile, PMCI"},
	{"PW", "6807705555", "55201", "ITU OB No. 1305 (2024-12-01), communication of Palau of 2024-11-12: 770 mobile, PNCC Wireless/Palau Cel"},
	{"PF", "68987555555", "54720", "ITU OB No. 1189 (2020-02-01), communication of French Polynesia of 2020-01-02: 87 mobile, VINI"},
	{"PF", "68988555555", "54705", "ITU OB No. 1189 (2020-02-01), communication of French Polynesia of 2020-01-02: 88 mobile, VITI"},
	{"CN", "8619055555555", "46011", "ITU OB No. 1205 (2020-10-01), communication of China of 2020-09-07: 190 mobile, China Telecom Co., Ltd."},
	{"CN", "8619655555555", "46001", "ITU OB No. 1205 (2020-10-01), communication of China of 2020-09-07: 196 mobile, China United Network Communications Group Co., Ltd."},
	{"MM", "959940555555", "41405", "ITU OB No. 1200 (2020-07-15), communication of Myanmar of 2020-06-24: 9940 mobile, Ooredoo Myanmar Limited"},
	{"JO", "962771555555", "41677", "ITU OB No. 1190 (2020-02-15), communication of Jordan of 2020-01-21: 771 mobile, Petra Jordanian Mobile Telecommunication Company – Orange Mobile"},
	{"JO", "962782555555", "41603", "ITU OB No. 1200 (2020-07-15), communication of Jordan of 2020-06-23: 782 mobile, Umniah Mobile Company"},
	{"IQ", "9647500555555", "41840", "ITU OB No. 1320 (2025-07-15), communication of Iraq of 2025-06-26: 7500 mobile, Korek Telecom – Range 1 (GSM/3G)"},
	{"IQ", "9647700555555", "41805", "ITU OB No. 1320 (2025-07-15), communication of Iraq of 2025-06-26: 7700 mobile, Asiacell – Range 1 (GSM/3G/4G)"},
	{"OM", "96871555555", "42202", "ITU OB No. 1325 (2025-10-01), communication of Oman of 2025-10-08: 71 mobile, Omantel Mobile"},
	{"OM", "96874555555", "42203", "ITU OB No. 1325 (2025-10-01), communication of Oman of 2025-10-08: 74 mobile, Ooredoo"},
	{"IL", "972555655555", "42516", "ITU OB No. 1203 (2020-09-01), communication of Israel of 2020-08-09: 5556 mobile, Rami Levi Ltd"},
	{"AZ", "994105555555", "40001", "ITU OB No. 1336 (2026-03-15), communication of Azerbaijan of 2026-02-25: 10 mobile, \"Azercell Telecom\" LLC"},
	{"AZ", "994405555555", "40003", "ITU OB No. 1226 (2021-08-15), communication of Azerbaijan of 2021-07-29: 40 mobile, Catel LLC"},
	{"GE", "995514555555", "28201", "ITU OB No. 1289 (2024-04-01), communication of Georgia of 2024-03-11: 514 mobile, Geo Cell"},
	{"GE", "995551555555", "28202", "ITU OB No. 1289 (2024-04-01), communication of Georgia of 2024-03-11: 551 mobile, Magticom"},
}

// TestAccuracySpots checks both lists against the committed tables (the
// reproducibility test proves them to be what the generator makes of the
// curated files): the number's longest carrier range answers the code; for
// the lines, a line of the accuracy section of curated/ranges.tsv also names
// the range and the code and cites the bulletin by its address.
func TestAccuracySpots(t *testing.T) {
	t.Parallel()
	st := readSpotTables(t)
	lines := curatedSection(t, "ranges.tsv", "Accuracy check of the bulletins")
	check := func(region, number, want, source string) string {
		if !strings.HasPrefix(source, "ITU OB No. ") {
			t.Errorf("%s +%s: the source cites no bulletin", region, number)
		}
		return st.answers(t, region, number, want, source)
	}
	regions := map[string]bool{}
	for _, s := range accuracyAgreeSpots {
		check(s.region, s.number, s.want, s.source)
		regions[s.region] = true
	}
	if len(accuracyAgreeSpots) < 60 || len(regions) < 30 {
		t.Errorf("%d agreeing spots in %d regions, want at least 60 in 30", len(accuracyAgreeSpots), len(regions))
	}
	for _, s := range accuracyLineSpots {
		prefix := check(s.region, s.number, s.want, s.source)
		if prefix == "" {
			continue
		}
		switch f := rangeLine(lines, s.region, prefix, s.want); {
		case f == nil:
			t.Errorf("%s +%s: no line for +%s = %s in the accuracy section", s.region, s.number, prefix, s.want)
		case !strings.HasPrefix(f[4], "https://www.itu.int/pub/T-SP-OB."):
			t.Errorf("%s +%s: the line cites %q, not an ITU Operational Bulletin", s.region, s.number, f[4])
		}
	}
}
