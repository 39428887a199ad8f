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
	{"TG", "22897", "TOGOCEL", "Moov", "61503", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 9.0.25; mcc-mnc-list 1.1.11: 615-03 Moov; 615 03 is not in ITU OB No. 1280's annexed E.212 list (2023-11-15); ITU OB No. 1213 (2021-02-01), communication of Togo's regulator of 2021-01-11: 96-99 mobile, Atlantique Telecom Togo (Moov), 90-93 Togo Cellulaire"},
	{"LR", "231555", "Novafone", "Lonestar Cell", "61801", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.12.0; mcc-mnc-list 1.1.11: 618-01 Lonestar Cell MTN; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 618 04 Comium Liberia (Novafone's former name); 618 01 not notified"},
	{"GH", "23320", "Vodafone", "Telecel", "62002", "Telecel Group completed its purchase of Vodafone Ghana 2023-02-21 (https://newsghana.com.gh/telecel-now-owns-majority-shares-in-vodafone-ghana/) and renamed it Telecel 2024-03 (https://aviationghana.com/ghana-vodafone-rebrands-to-telecel-2/); mcc-mnc-list 1.1.11: 620-02 Vodafone, Operational; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 620 02 Ghana Telecom Mobile (Vodafone Ghana's former name)"},
	{"GH", "23323", "Globacom (Zain)", "at", "62007", "mcc-mnc-list 1.1.11: 620-07 Globacom, Operational; 620 07 is not in ITU OB No. 1280's annexed E.212 list (2023-11-15)"},
	{"CF", "23670", "TC", "A-Cell", "62301", "ITU OB No. 1330 (2025-12-15), communication of the ARCEP (Central African Rep.) of 2025-11-14, national numbering plan: 70 mobile, Moov Africa Centrafrique; 72-74 Orange Centrafrique; 75-76 Telecel; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 623 01 Centrafrique Telecom Plus (CTP), 623 02 Telecel Centrafrique (TC); mcc-mnc-list 1.1.11: 623-01 Moov, Atlantique Telecom Centrafrique SA, note \"Former Centrafrique Telecom Plus, Etisalat\", Operational"},
	{"GQ", "2405", "Orange GQ", "Muni", "62703", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.12.13; mcc-mnc-list 1.1.11: 627-03 Muni; 627 03 is not in ITU OB No. 1280's annexed E.212 list (2023-11-15)"},
	{"CG", "24205", "Celtel", "Airtel", "62901", "mcc-mnc-list 1.1.11: 629-01 Airtel, Celtel Congo, note \"Former Zain and Celtel brand\"; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 629 01 Celtel"},
	{"CD", "24380", "Supercell", "Orange", "63005", "mcc-mnc-list 1.1.11: 630-05 Supercell SPRL, Operational; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 630 05 Supercell Sprl, not withdrawn in OB 1281-1341 (no OB records the range passing)"},
	{"TZ", "25566", "SMILE", "Airtel", "-", "ITU OB No. 1304 (2024-11-15), communication of the TCRA (Tanzania) of 2024-11-01, national numbering plan: 66 mobile, Vodacom Tanzania Public Limited Company (68, 69, 78 Airtel Tanzania); libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 9.0.22; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 640 11 Smile Communications Tanzania Ltd; mcc-mnc-list 1.1.11: 640-04 Vodacom, 640-05 Airtel, 640-11 SmileCom"},
	{"TZ", "25577", "Zantel", "Yas", "64003", "mcc-mnc-list 1.1.11: 640-03 Zantel, Zanzibar Telecom Ltd, Operational; ITU OB No. 1106 (2016-08-15), E.212 amendment: LIR 640 03 Zanzibar Telecom Limited (Zantel); ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 640 03 Zantel, not withdrawn in OB 1281-1341; ITU OB No. 1304 (2024-11-15), communication of the TCRA of 2024-11-01: 77 mobile, Honora Tanzania Public Limited Company (Yas), the absorbing operator"},
	{"UG", "25670", "Warid", "Airtel", "64122", "mcc-mnc-list 1.1.11: 641-22 Airtel, note \"Former Warid Telecom\"; ITU OB No. 1114 (2016-12-15), E.212 amendment: LIR 641 22 Airtel Uganda Limited, the buyer holding Warid's code; ITU OB No. 1304 (2024-11-15), communication of the UCC (Uganda) of 2024-11-01: 700-709 mobile, Airtel Uganda Limited"},
	{"UG", "256726", "Tangerine", "LycaMobile", "64104", "Lycamobile's acquisition of Tangerine and its NTO licence of 2021-03-24 (https://africa.businessinsider.com/local/markets/uganda-gets-new-national-telecommunications-operator/cks1p34); mcc-mnc-list 1.1.11: 641-04 Tangerine Uganda Limited, Operational; ITU OB No. 1114 (2016-12-15), E.212 amendment: ADD 641 04 Tangerine Uganda Limited; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 641 04 Tangerine Uganda Limited; ITU OB No. 1304 (2024-11-15), communication of the UCC (Uganda) of 2024-11-01: 726-727 mobile, Tangerine Limited"},
	{"RE", "26263903", "Only", "Telco OI", "64702", "mcc-mnc-list 1.1.11: 647-02 Only, Telco OI, note \"Mayotte\"; ITU OB No. 1087 (2015-11-01), E.212 amendment: SUP 647 02 Outremer Telecom, ADD 647 02 Telco OI"},
	{"BE", "32456", "Mobile Vikings/JIM Mobile", "Proximus", "20630", "mcc-mnc-list 1.1.11: 206-30 Mobile Vikings, Unleashed NV, \"Uses Proximus network\"; Proximus press release on the acquisition of Mobile Vikings (2021); ITU OB No. 1142 (2018-02-15), E.212 amendment: ADD 206 30 Unleashed; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 206 30 Unleashed"},
	{"BE", "324802", "BASE", "TISMI BV", "-", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.9.14; BIPT numbering database (holder per block); ITU OB No. 1210 (2020-12-15), E.212 amendment: ADD 206 29 TISMI, which the list has Not operational, MNC withdrawn"},
	{"FR", "337590", "Vectone mobile", "Free Mobile", "20815", "Arcep MAJNUM (sources/arcep-MAJNUM-mobile.csv.gz): 07590, 07591, 07595, 07596, 075970-075975 FRMO; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 208 15 Free Mobile"},
	{"FR", "337592", "Vectone mobile", "Lycamobile", "20825", "Arcep MAJNUM (sources/arcep-MAJNUM-mobile.csv.gz): 07592-07594, 07598 LYCA; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 208 25 Lycamobile"},
	{"ES", "34644", "Simyo", "Orange", "21419", "mcc-mnc-list 1.1.11: 214-19 Simyo, Orange España Virtual, note \"Acquired by Orange\"; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 214 19 E-Plus Móviles, SL (Simyo's company), not withdrawn in OB 1281-1341"},
	{"ES", "346989", "Eroski movil", "Vodafone", "21424", "mcc-mnc-list 1.1.11: 214-24 Vodafone España, note \"Former Eroski Móvil España, acquired by Vodafone in Feb 2018\"; ITU OB No. 1175 (2019-07-01), E.212 amendment: LIR 214 24 VODAFONE ESPAÑA, S.A.U., the buyer holding Eroski Móvil's code"},
	{"AL", "35567", "ALBtelecom", "One", "27603", "mcc-mnc-list 1.1.11: 276-03 ALBtelecom, Operational; 4iG announcements of the acquisitions (2022); ITU OB No. 1224 (2021-07-15), E.212 amendment: LIR 276 03 ALBTELECOM sh.a. (276 04 suppressed); ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 276 03 ALBTELECOM sh.a., after the 4iG purchases, not withdrawn in OB 1281-1341"},
	{"CY", "357940", "Lemontel", "Cablenet", "-", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 9.0.23; mcc-mnc-list 1.1.11 (no Cablenet network in CY); ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: no Cypriot code of Cablenet; ITU OB No. 1223 (2021-07-01), communication of the OCECPR (Cyprus) of 2021-06-07, national numbering plan: 94XXXXXX CABLENET Communication Systems PLC, 96XXXXXX MTN (Epic)"},
	{"CY", "357942", "Lemontel", "Epic", "28010", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 9.0.23; mcc-mnc-list 1.1.11: 280-10 Epic; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 280 10 Scancom (Cyprus) Ltd. (MTN Cyprus, renamed Epic); ITU OB No. 1223 (2021-07-01), communication of the OCECPR (Cyprus) of 2021-06-07, national numbering plan: 94XXXXXX CABLENET Communication Systems PLC, 96XXXXXX MTN (Epic) (libphonenumber 9.0.23 gives 942, 943 and 946 to Epic since)"},
	{"BG", "3599960", "Bulsatcom", "A1", "28401", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.13.0; mcc-mnc-list 1.1.11: 284-01; ITU OB No. 1017 (2012-12-01), E.212 amendment: 284 01 Mobiltel EAD (A1 Bulgaria's company)"},
	{"BG", "3599964", "Bulsatcom", "Yettel", "28405", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.13.0; mcc-mnc-list 1.1.11: 284-05; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 284 05 Globul (Yettel Bulgaria's former name)"},
	{"HU", "3631770", "UPC", "One", "21671", "mcc-mnc-list 1.1.11: 216-71 upc, Vodafone Magyarország Zrt.; ITU OB No. 1022 (2013-02-15), E.212 amendment: ADD 216 71 UPC Hungary; ITU OB No. 1196 (2020-05-15): LIR 216 71 Vodafone Hungary Ltd; ITU OB No. 1314 (2025-04-15): LIR 216 71 One Hungary Ltd., the buyer holding UPC's code"},
	{"HU", "36501", "DIGI", "One", "21603", "mcc-mnc-list 1.1.11: 216-03 DIGI Telecommunication Ltd., Operational; ITU OB No. 1109 (2016-10-01), E.212 amendment: ADD 216 03 DIGI Telecommunication Ltd.; ITU OB No. 1326 (2025-10-15): LIR 216 03 One Hungary Ltd., the buyer holding DIGI's code"},
	{"RS", "381676", "GLOBALTEL", "Telekom Srbija a.d.", "22011", "mcc-mnc-list 1.1.11: 220-11 Globaltel, \"Uses A1\"; ITU OB No. 1106 (2016-08-15), E.212 amendment: ADD 220 11 GLOBALTEL d.o.o.; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 220 11 GLOBALTEL d.o.o., not withdrawn in OB 1281-1341 (no OB records the range passing)"},
	{"SI", "38671", "Mobitel", "Telemach", "29370", "ITU OB No. 1154 (2018-08-15), communication of AKOS (Slovenia) of 2018-07-18, national numbering plan: 70 Telemach d.o.o., 71 free, 31, 41, 51 Telekom Slovenije d.d.; libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.8.9 (Mobitel -> Telemach), 8.11.0 (Telekom Slovenije -> Telemach); ITU OB No. 1154 (2018-08-15), E.212 amendment: LIR 293 41 Telekom Slovenije d.d.; mcc-mnc-list 1.1.11: 293-70 Telemach, Tušmobil d.o.o., Operational"},
	{"MK", "389733", "Telekom", "A1", "29403", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.12.0; mcc-mnc-list 1.1.11: 294-03 A1 MK; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 294 03 Nov Operator (VIP, now A1 Makedonija)"},
	{"CH", "41770", "Tele4u", "Swisscom", "22801", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; OFCOM (BAKOM) allocation of 077 numbers; mcc-mnc-list 1.1.11: 228-01; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 228 01 Swisscom Schweiz AG"},
	{"CH", "41772", "Tele4u", "Sunrise", "22802", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; OFCOM (BAKOM) allocation of 077 numbers; mcc-mnc-list 1.1.11: 228-02; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 228 02 Sunrise Communications AG"},
	{"AT", "43650", "tele.ring", "T-Mobile AT", "23203", "mcc-mnc-list 1.1.11: 232-07 Hofer Telekom, note \"former tele.ring\"; 232-03 Magenta (T-Mobile Austria); ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 232 03 and 232 07 both T-Mobile Austria GmbH"},
	{"GB", "4473896", "Hanhaa", "Gamma Telecom", "-", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 9.0.25; Ofcom numbering data S7; ITU OB No. 1094 (2016-02-15), E.212 amendment: ADD 234 39 Gamma Telecom Holdings Ltd, which the list has with status Unknown, not Operational"},
	{"DK", "458199", "Banedanmark", "telenor", "23802", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; mcc-mnc-list 1.1.11: 238-23 GSM-R DK, 238-02 Telenor; ITU OB No. 1153 (2018-08-01), E.212 amendment: ADD 238 23 Banedanmark, LIR 238 02 Telenor"},
	{"NO", "47463", "Telenor", "telia", "24202", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; Nkom number register; mcc-mnc-list 1.1.11: 242-02 Telia; ITU OB No. 1111 (2016-11-01), E.212 amendment: LIR 242 02 Telia Norge AS"},
	{"NO", "479042", "Telenor", "svea billing services", "-", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; Nkom number register; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: no Norwegian code of Svea"},
	{"CL", "569510", "Tribe", "Movistar", "73013", "mcc-mnc-list 1.1.11: 730-13 Virgin Mobile, Tribe Mobile Chile SPA, \"Uses Movistar\"; ITU OB No. 999 (2012-03-01), E.212 amendment: ADD 730 13 TRIBE Mobile Chile SPA; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 730 13 TRIBE Mobile Chile SPA, not withdrawn in OB 1281-1341"},
	{"CL", "569510", "Virgin Mobile", "Movistar", "73013", "mcc-mnc-list 1.1.11: 730-13 Virgin Mobile, Tribe Mobile Chile SPA, \"Uses Movistar\"; ITU OB No. 999 (2012-03-01), E.212 amendment: ADD 730 13 TRIBE Mobile Chile SPA; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 730 13 TRIBE Mobile Chile SPA, not withdrawn in OB 1281-1341"},
	{"CO", "5730410", "Une", "Tigo", "732103", "ITU OB No. 1311 (2025-03-01), E.212 amendment: SUP 732 020 Emtelsa (withdrawn), LIR 732 103 and 732 111 COLOMBIA MOVIL S A E S P; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 732 020 Emtelsa; mcc-mnc-list 1.1.11: 732-020 Tigo, Une EPM, note \"Former Une-EPM; Former Emtelsa; merged with Tigo\", 732-103 Tigo, Colombia Móvil"},
	{"CO", "573192", "Virgin Mobile", "Movistar", "732154", "mcc-mnc-list 1.1.11: 732-154 Virgin Mobile Colombia S.A.S., \"Uses Movistar\"; ITU OB No. 1311 (2025-03-01), E.212 amendment: ADD 732 154 VIRGIN MOBILE COLOMBIA S.A.S."},
	{"EC", "5939586", "Movistar", "Tigo", "74000", "Millicom's completion of the acquisition of Telefónica Ecuador (Otecel S.A.), 2025-10-30 (https://www.teleamazonas.com/actualidad/noticias/economia/tigo-adquirio-telefonica-ecuador-maneja-movistar-380-millones-dolares-105496/); mcc-mnc-list 1.1.11: 740-00 Movistar, Otecel S.A., Operational; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 740 00 Otecel S.A. - Bellsouth"},
	{"BQ", "59977", "Telbo N.V.", "Kla", "36278", "mcc-mnc-list 1.1.11: 362-78 Telbo, Telefonia Bonairiano N.V., note \"Bonaire\"; 362 78 is not in ITU OB No. 1280's annexed E.212 list (2023-11-15)"},
	{"MY", "601142", "Telekomunikasi Indonesia", "U Mobile", "502157", "mcc-mnc-list 1.1.11: 502-157 Telin, \"Uses U Mobile\"; 502 157 is not in ITU OB No. 1280's annexed E.212 list (2023-11-15)"},
	{"MY", "60182", "TM Homeline", "U Mobile", "50218", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 7.0.6-8.12.0; mcc-mnc-list 1.1.11: 502-18 U Mobile; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 502 18 U Mobile Sdn. Bhd."},
	{"ID", "62896", "3", "Indosat Ooredoo Hutchison", "51089", "Ooredoo and CK Hutchison completed the merger into Indosat Ooredoo Hutchison 2022-01-04 (https://www.zawya.com/en/markets/qatars-ooredoo-ck-hutchison-complete-6bln-merger-of-indonesian-units-lbe7fdr2); mcc-mnc-list 1.1.11: 510-89 3, note \"Merged with Indosat (MNC 01)\"; 510 89 is not in ITU OB No. 1280's annexed E.212 list (2023-11-15)"},
	{"SG", "658921", "Liberty Wireless", "M1", "52509", "mcc-mnc-list 1.1.11: 525-09 Circles.Life, Liberty Wireless Pte Ltd; ITU OB No. 1128 (2017-07-15), E.212 amendment: ADD 525 09 Liberty Wireless Pte Ltd; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 525 09 Liberty Wireless Pte Ltd, not withdrawn in OB 1281-1341"},
	{"TH", "6693", "True Move/AIS", "AIS", "52001", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; NBTC numbering allocations; mcc-mnc-list 1.1.11: 520-01; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 520 01 AIS GSM"},
	{"TH", "6694", "True Move/DTAC", "DTAC", "52018", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; NBTC numbering allocations; mcc-mnc-list 1.1.11: 520-18; ITU OB No. 1029 (2013-06-01), E.212 amendment: ADD 520 18 Total Access Communications Public Company Limited (DTAC)"},
	{"TH", "66974", "True Move/AIS", "TOT Mobile", "52015", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.11.0; NBTC numbering allocations; ITU OB No. 1029 (2013-06-01), E.212 amendment: LIR 520 15 TOT Public Company Limited; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 520 15 TOT Public Company Limited; mcc-mnc-list 1.1.11: 520-15 AIS-T / NT Mobile, National Telecom, note \"Former ... TOT Public Company Limited; used for NT Mobile\", Operational"},
	{"BN", "67381", "Progresif Cellular", "UNN", "52802", "mcc-mnc-list 1.1.11: 528-02 PCSB, Operational; 528-03 UNN, status Unknown; ITU OB No. 1181 (2019-10-01), E.212 amendment: ADD 528 02 Progresif Cellular Sdn Bhd (PCSB) and 528 03 Unified National Networks Sdn Bhd (UNN), two codes"},
	{"PG", "67577", "Telikom", "bmobile", "53701", "ITU OB No. 1218 (2021-04-15), communication of NICTA (Papua New Guinea) of 2021-03-26: 77000000-77999999 re-assigned or transferred to Bemobile from Telikom PNG Limited (GSM mobile service), Bemobile having taken over the number resources once held by Telikom PNG; the Prime Minister's announcement of the merger into Telikom Ltd, 2021-09-19 (https://www.looppng.com/png-news/telikom-and-bmobile-union-104636); mcc-mnc-list 1.1.11: 537-02 citifon, Telikom PNG Ltd.; ITU OB No. 1053 (2014-06-01), E.212 amendment: ADD 537 02 Telikom PNG Ltd (replacing Greencom); ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 537 02 Telikom PNG Ltd, not withdrawn in OB 1281-1341; mcc-mnc-list 1.1.11: 537-01 bmobile, Bemobile Limited, Operational"},
	{"TO", "67654", "U-Call", "Toko Wireless", "-", "ITU OB No. 1283 (2024-01-01), communication of Tonga's regulator of 2023-12-12 (Numbering Plan 2018 as amended): 540-556 assigned to Toko Wireless Limited (VoLTE, VoIP, mobile service), 720-780 mobile Tonga Communications Corporation; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 539 01 Tonga Communications Corporation, no code of Toko Wireless; mcc-mnc-list 1.1.11 (no Toko network in TO)"},
	{"TO", "67668", "U-Call", "Digicel", "53988", "ITU OB No. 1283 (2024-01-01), communication of Tonga's regulator of 2023-12-12 (Numbering Plan 2018 as amended): 681, 685, 690 and 840-890 assigned to Digicel Tonga Limited, 720-780 mobile Tonga Communications Corporation; mcc-mnc-list 1.1.11: 539-88 Digicel, Digicel (Tonga) Limited, Operational"},
	{"KZ", "7700", "Altel", "Tele2", "40107", "mcc-mnc-list 1.1.11: 401-07 Altel, note \"acquired by Tele2\"; 401 07 is not in ITU OB No. 1280's annexed E.212 list (2023-11-15)"},
	{"VN", "8430", "Viettel Mobile", "MobiFone", "45201", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv) 8.13.25; mcc-mnc-list 1.1.11: 452-01 MobiFone; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 452 01 MobiFone"},
	{"HK", "852521", "1O1O / One2Free", "HKT", "45400", "mcc-mnc-list 1.1.11: 454-00 1O1O / One2Free / New World Mobility / SUNMobile, CSL Limited; HKT announcement of completing the CSL acquisition (2014-05-14); ITU OB No. 1077 (2015-06-01), E.212 amendment: LIR 454 00 Hong Kong Telecommunications (HKT) Ltd, the buyer holding CSL's code"},
	{"HK", "8525280", "Truphone", "HKT", "45408", "mcc-mnc-list 1.1.11: 454-08 Operational; ITU OB No. 1077 (2015-06-01), E.212 amendment: ADD 454 08 Truphone (Hong Kong) Ltd; ITU OB No. 1309 (2025-02-01): LIR 454 08 TP Hong Kong Operations Limited, still not HKT's"},
	{"KH", "85560", "Beeline", "Metfone", "45609", "mcc-mnc-list 1.1.11: 456-09 Metfone, Viettel, note \"Former Beeline\"; 456 09 is not in ITU OB No. 1280's annexed E.212 list (2023-11-15), which has Viettel's 456 08"},
	{"BD", "88016", "Airtel", "Robi", "47007", "mcc-mnc-list 1.1.11: 470-07 Airtel, note \"Currently merged with Robi keeping brand name Airtel\"; 470 07 is not in ITU OB No. 1280's annexed E.212 list (2023-11-15): never notified to the ITU"},
	{"TW", "886906", "Asia-Pacific Telecom", "FarEasTone", "46605", "Far EasTone's announcement of the merger with Asia Pacific Telecom, effective 2023-12 (https://www.feg.com.tw/en/news/news_detail.aspx?id=10790); mcc-mnc-list 1.1.11: 466-05 Gt, Asia Pacific Telecom, Operational; 466 05 is not in ITU OB No. 1280's annexed E.212 list (2023-11-15)"},
	{"PK", "9232", "Warid", "Jazz", "41007", "mcc-mnc-list 1.1.11: 410-07 Jazz, WaridTel, note \"Former Warid Pakistan\"; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 410 07 Warid Telecom"},
	{"AF", "9376", "MTN", "ATOMA", "41240", "MTN Group's sale of MTN Afghanistan to M1 New Ventures (announced with its Q3 results, 2022-11-04, https://www.itweb.co.za/content/PmxVEMKEEGmvQY85); the handover and new brand ATOMA (2025-04, https://meatechwatch.com/2025/04/23/mtn-exits-afghanistan-transfers-stake-to-m1-group-new-operator-atoma-takes-over); mcc-mnc-list 1.1.11: 412-40 MTN Group Afghanistan, Operational; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 412 40 Areeba Afghanistan (MTN Afghanistan's former name), not withdrawn in OB 1281-1341"},
	{"IL", "97256", "Wataniya", "Ooredoo", "42506", "mcc-mnc-list 1.1.11: 425-06 Ooredoo, note \"Former Wataniya\"; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 425 06 Wataniya"},
	{"IR", "98932", "Taliya", "IR-MCI", "43232", "mcc-mnc-list 1.1.11: 432-32 Taliya, Operational; ITU OB No. 1252 (2022-09-15), E.212 amendment: ADD 432 32 TCI (Telecommunication Company of Iran), Taliya's parent; MCI keeps 432 11"},
	{"IR", "98934", "TKC", "TeleKish", "43214", "mcc-mnc-list 1.1.11: 432-14 TKC/KFZO, Kish Free Zone Organization; ITU OB No. 1252 (2022-09-15), E.212 amendment: LIR 432 14 Kish Free Zone Organization"},
	{"GE", "995511", "Geocell", "MagtiCom", "28202", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv); ComCom (GNCC) numbering allocations; mcc-mnc-list 1.1.11: 282-02; ITU OB No. 1280 (2023-11-15), annexed E.212 MNC list: 282 02 Magti GSM Ltd.; ITU OB No. 1289 (2024-04-01), communication of the GNCC (Georgia) of 2024-03-11, national numbering plan: 551 and most of 511 (511000000-511009999, 511100000-511319999, ...) Magticom; parts of 511, 515, 517, 550 and 554 other holders' (Geo Cell, Global Cell, Servicebox), blocks finer than libphonenumber's prefixes"},
	{"GE", "99555055", "Geocell", "Globalcell", "28207", "libphonenumber carrier history (sources/libphonenumber-carrier-renames.tsv); ComCom (GNCC) numbering allocations; mcc-mnc-list 1.1.11: 282-07; ITU OB No. 1039 (2013-11-01), E.212 amendment: ADD 282 07 GLOBALCELL LTD; ITU OB No. 1289 (2024-04-01), communication of the GNCC (Georgia) of 2024-03-11, national numbering plan: 550555000-550559999, 559000000-559009999, 559995000-559999999 and 585555000-585559999 Global Cell"},
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
	// At least 40 spots in 25 regions rest on the ITU's record of the code
	// (an E.212 amendment in an Operational Bulletin, or its entry in the
	// list annexed to OB No. 1280) or of the range (a regulator's numbering
	// plan communication), not only on the code's absence from that list.
	obSpots, obRegions := 0, map[string]bool{}
	for _, s := range renameSpots {
		if citesOBRecord(s.source) {
			obSpots++
			obRegions[s.region] = true
		}
	}
	if obSpots < 40 || len(obRegions) < 25 {
		t.Errorf("%d spot tests in %d regions cite the ITU's record of the code or range, want at least 40 in 25", obSpots, len(obRegions))
	}
	// Every decision cites the ITU Operational Bulletins: the record of
	// the code, or that the code was never notified to the ITU.
	for _, d := range decisions {
		if !strings.Contains(d.source, "ITU OB No. ") {
			t.Errorf("%s line %d (%s %q -> %q): the source cites no ITU Operational Bulletin", renamesFile, d.line, d.region, d.old, d.new)
		}
	}
}

// citesOBRecord tells whether a source cites an ITU Operational Bulletin's
// record of a network code (an E.212 amendment or the annexed list's
// entry) or of the range (a regulator's numbering plan communication),
// beyond the code's absence from the list.
func citesOBRecord(source string) bool {
	return strings.Contains(source, "E.212 amendment") || strings.Contains(source, "annexed E.212 MNC list: ") ||
		strings.Contains(source, "), communication of ")
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

// TestRenameHistoryEditedFails: the history file as writeHistory writes it
// reads back, and a step deleted or edited by hand afterwards fails.
func TestRenameHistoryEditedFails(t *testing.T) {
	t.Parallel()
	releases := []release{{name: "9.0.16"}, {name: "9.0.38"}}
	steps := []renameStep{
		{release: "9.0.16", old: "Vodafone", new: "Telecel", prefixes: []string{"23320", "23350"}},
		{release: "9.0.38", old: "Tigo", new: "AirtelTigo", prefixes: []string{"23327"}},
	}
	var b bytes.Buffer
	writeHistory(&b, releases, steps, "3136745619aa6435")
	read := func(text string) error {
		_, err := readRenameHistory(fstest.MapFS{renameHistoryFile: {Data: []byte(text)}})
		return err
	}
	if err := read(b.String()); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string][2]string{
		"deleted": {"9.0.38\tTigo\tAirtelTigo\t23327\n", ""},
		"edited":  {"23320,23350", "23320"},
	} {
		if !strings.Contains(b.String(), edit[0]) {
			t.Fatalf("%s: %q not in the history", name, edit[0])
		}
		if err := read(strings.Replace(b.String(), edit[0], edit[1], 1)); err == nil || !strings.Contains(err.Error(), "edited or deleted by hand") {
			t.Errorf("a step %s by hand: %v", name, err)
		}
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
