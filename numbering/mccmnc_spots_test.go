package numbering

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMCCMNCSpots checks the original network and its MCCMNC of well-known
// mobile ranges in 78 countries, each with the public source of who holds
// the range and of the network's code. The codes are the ITU's (as the
// MCC-MNC list and mobile-broadband-provider-info give them); the range
// holders are named by the regulators' numbering plans, in libphonenumber's
// carrier data unless a comment says otherwise (data/README.md has the
// pipeline and the curated lines).
func TestMCCMNCSpots(t *testing.T) {
	t.Parallel()
	p := plan(t)
	for _, tc := range []struct{ number, network, mccmnc string }{
		// Germany: Bundesnetzagentur's mobile blocks (015x/016x/017x).
		{"+49 151 23456789", "T-Mobile", "26201"},            // Telekom Deutschland's 0151
		{"+49 160 1234567", "T-Mobile", "26201"},             // Telekom Deutschland's 0160
		{"+49 172 3456789", "Vodafone", "26202"},             // Vodafone D2's 0172
		{"+49 176 12345678", "O2", "26203"},                  // Telefónica's 0176; O2 and E-Plus share 262-03 since their merger
		{"+49 157 71234567", "Eplus", "26203"},               // E-Plus's 0157, now Telefónica's network
		{"+49 1521 1234567", "Vodafone/Lycamobile", "26243"}, // Lycamobile Europe's 01521 (BNetzA, 2025-07-10), on Vodafone's network
		{"+49 1570 1234567", "Eplus/Telogic", "26203"},       // 015700-015704: Telefónica's (BNetzA, 2025-07-10); Telogic went bankrupt in 2012
		// United Kingdom: Ofcom's numbering data (07 ranges by holder).
		{"+44 7400 123456", "Three", "23420"},    // Hutchison 3G UK's 07400
		{"+44 7528 123456", "Orange", "23433"},   // Orange UK's 07528, now EE's network
		{"+44 7310 123456", "Three", "23420"},    // Hutchison 3G's 07310 (Ofcom S7, 2017): no carrier in libphonenumber; data/curated/ranges.tsv
		{"+44 7338 123456", "Vodafone", "23415"}, // Vodafone's 07338 (Ofcom S7, 2025): data/curated/ranges.tsv
		{"+44 7355 123456", "O2", "23410"},       // Telefónica UK's 07355 (Ofcom S7, 2020): data/curated/ranges.tsv
		// France: ARCEP's MAJNUM (mobile blocks 06/07 by operator).
		{"+33 6 12 34 56 78", "SFR", "20810"},           // SFR's 0612
		{"+33 6 07 12 34 56", "Orange France", "20801"}, // Orange's 0607
		{"+33 6 52 12 34 56", "Free Mobile", "20815"},   // Free Mobile's 0652
		{"+33 7 81 12 34 56", "Free Mobile", "20815"},   // Free Mobile's 0781
		// Arcep's register (data/sources/arcep-MAJNUM-mobile.csv.gz) where libphonenumber names no carrier:
		{"+33 7 43 04 12 34", "Free Mobile", "20815"},      // Free Mobile's 074304 (attributed 2024)
		{"+33 7 43 27 12 34", "Bouygues", "20820"},         // Bouygues Telecom's 074327
		{"+33 6 41 80 12 34", "La poste telecom", "20810"}, // La Poste Telecom's 064180, on SFR's 208-10
		{"+33 7 43 22 01 23", "Cellhire", "20834"},         // Cellhire France's 0743220, its own 208-34 (MAJMNC)
		{"+33 7 44 30 12 34", "Onoff telecom", "20803"},    // libphonenumber's Onoff telecom 07443; 208-03 is Onoff's since 2025 (MAJMNC)
		// Italy: the operators' decades (AGCOM's numbering plan, 3xx).
		{"+39 333 123 4567", "TIM", "22201"},      // TIM's 333
		{"+39 347 123 4567", "Vodafone", "22210"}, // Vodafone (Omnitel)'s 347
		{"+39 320 123 4567", "WIND", "22288"},     // Wind's 320, now Wind Tre's 222-88
		{"+39 392 123 4567", "3 Italia", "22299"}, // H3G's 392, Wind Tre's 222-99
		{"+39 351 312 3456", "Iliad", "22250"},    // Iliad's 351 (curated: data/curated/ranges.tsv)
		{"+39 352 123 4567", "Iliad", "22250"},    // Iliad's 3520-3522 (curated: data/curated/ranges.tsv)
		// Spain: CNMC's numbering register.
		{"+34 690 123 456", "Movistar", "21407"},  // Telefónica's 690
		{"+34 622 123 456", "Yoigo", "21404"},     // Xfera (Yoigo)'s 622
		{"+34 600 123 456", "Vodafone", "21401"},  // Vodafone's 600
		{"+34 656 123 456", "Orange", "21403"},    // Orange's 656
		{"+34 623 212 345", "Yoigo", "21404"},     // Xfera's 6232 (2019): no carrier in libphonenumber; data/curated/ranges.tsv
		{"+34 742 012 345", "DigiMobil", "21422"}, // Digi Spain's 7420 (2025): data/curated/ranges.tsv
		// Netherlands: ACM's number register (06 blocks).
		{"+31 6 12345678", "KPN", "20408"},      // KPN's 0612
		{"+31 6 41234567", "T-Mobile", "20416"}, // T-Mobile NL's 0641: 204-16 (cross-checked; 204-20 was Orange NL's)
		{"+31 6 14123456", "T-Mobile", "20416"}, // T-Mobile NL's 0614
		// Poland: UKE's numbering plan.
		{"+48 512 345 678", "Orange", "26003"}, // Orange Polska's 512
		{"+48 601 234 567", "Plus", "26001"},   // Polkomtel (Plus)'s 601
		{"+48 790 123 456", "Play", "26006"},   // P4 (Play)'s 790
		{"+48 452 123 456", "Orange", "26003"}, // Orange Polska's 452 (2021): no carrier in libphonenumber; data/curated/ranges.tsv
		{"+48 780 412 345", "Play", "26006"},   // P4's 78041, the former UPC Polska's (2020): data/curated/ranges.tsv
		// Russia: the register of the Russian numbering system (DEF-9xx,
		// Ministry of Digital Development; data/sources).
		{"+7 903 123 45 67", "Beeline", "25099"}, // VimpelCom's 903
		{"+7 921 123 45 67", "MegaFon", "25002"}, // MegaFon's 921
		{"+7 916 123 45 67", "MTS", "25001"},     // MTS's 916: no carrier in libphonenumber; from the register
		{"+7 910 123 45 67", "MTS", "25001"},     // MTS's 910: from the register
		{"+7 977 123 45 67", "Tele2", "25020"},   // T2 Mobile's 977
		{"+7 999 123 45 67", "Yota", "25011"},    // Scartel (Yota)'s 999: from the register
		// Nigeria: NCC's number allocations.
		{"+234 803 123 4567", "MTN", "62130"},     // MTN Nigeria's 0803
		{"+234 805 123 4567", "Glo", "62150"},     // Globacom's 0805
		{"+234 802 123 4567", "Airtel", "62120"},  // Airtel Nigeria's 0802
		{"+234 809 123 4567", "9mobile", "62160"}, // 9mobile (former Etisalat)'s 0809
		// South Africa: ICASA's number allocations.
		{"+27 82 123 4567", "Vodacom", "65501"}, // Vodacom's 082
		{"+27 83 123 4567", "MTN", "65510"},     // MTN's 083
		{"+27 84 123 4567", "Cell C", "65507"},  // Cell C's 084
		// Saudi Arabia: CST's numbering plan.
		{"+966 50 123 4567", "STC", "42001"},    // STC's 050 (the list's brand "Al Jawal (STC )", resolved by mobile-broadband-provider-info)
		{"+966 56 123 4567", "Mobily", "42003"}, // Etihad Etisalat (Mobily)'s 056
		{"+966 59 123 4567", "Zain", "42004"},   // Zain KSA's 059
		// Indonesia: the operators' published prefixes.
		{"+62 811 1234 567", "Telkomsel", "51010"},  // Telkomsel's 0811
		{"+62 817 1234 567", "XL", "51011"},         // XL Axiata's 0817
		{"+62 831 1234 5678", "AXIS", "51011"},      // AXIS's 0831; AXIS merged into XL (the list: 510-08 no longer used)
		{"+62 881 1234 5678", "Smartfren", "51009"}, // Smartfren's 0881
		// Elsewhere.
		{"+61 412 345 678", "Optus", "50502"},                      // Australia: ACMA's register, Optus's 0412
		{"+385 91 234 5678", "A1 Telekom", "21910"},                // Croatia: HAKOM, A1 (former Vipnet)'s 091
		{"+353 87 123 4567", "Vodafone", "27201"},                  // Ireland: ComReg, Vodafone's 087
		{"+98 912 123 4567", "IR-MCI", "43211"},                    // Iran: MCI's 0912
		{"+41 79 123 45 67", "Swisscom", "22801"},                  // Switzerland: OFCOM/BAKOM, Swisscom's 079
		{"+90 532 123 45 67", "Turkcell", "28601"},                 // Turkey: BTK, Turkcell's 0532
		{"+254 712 345678", "Safaricom", "63902"},                  // Kenya: CA, Safaricom's 0712
		{"+86 138 0013 8000", "China Mobile", "46000"},             // China: MIIT, China Mobile's 138
		{"+1 809 310 1234", "Tricom", "37003"},                     // Dominican Republic: Tricom's range, now Altice's 370-03 ("Former Tricom")
		{"+94 77 123 4567", "Dialog", "41302"},                     // Sri Lanka: TRCSL, Dialog Axiata's 077 (its mobile code, not the fixed-wireless 413-11)
		{"+357 96 123456", "MTN", "28010"},                         // Cyprus: OCECPR, MTN Cyprus's 96, now Epic's 280-10 ("Former MTN")
		{"+421 903 123 456", "T-Mobile (Slovak Telekom)", "23102"}, // Slovakia: Slovak Telekom's 0903
		{"+421 940 123 456", "Telefonica O2", "23106"},             // Slovakia: O2 Slovakia's 0940
		{"+264 85 123 4567", "TN Mobile", "64903"},                 // Namibia: Telecom Namibia's mobile network (TN Mobile)
		{"+977 984 1234567", "Nepal Telecom", "42901"},             // Nepal: NTA, Nepal Telecom's 984
		{"+66 81 812 3456", "AIS", "52001"},                        // Thailand: NBTC, AIS's 081
		{"+389 70 123 456", "T-Mobile", "29401"},                   // North Macedonia: Makedonski Telekom's 070
		{"+375 44 123 45 67", "Velcom", "25701"},                   // Belarus: A1 (former Velcom)'s 044
		{"+965 5000 1234", "VIVA", "41904"},                        // Kuwait: stc (former VIVA)'s 5
		{"+855 12 345 678", "Cellcard", "45601"},                   // Cambodia: CamGSM (Cellcard)'s 012
		{"+43 664 1234567", "A1 TA", "23201"},                      // Austria: RTR, A1's 0664
		{"+32 475 12 34 56", "Proximus", "20601"},                  // Belgium: BIPT, Proximus's 0475
		{"+351 91 234 5678", "Vodafone", "26801"},                  // Portugal: ANACOM, Vodafone's 91
		{"+30 694 123 4567", "Vodafone", "20205"},                  // Greece: EETT, Vodafone's 694
		{"+358 40 123 4567", "Telia", "24491"},                     // Finland: Traficom, Telia's 040
		{"+40 722 123 456", "Vodafone", "22601"},                   // Romania: ANCOM, Vodafone's 0722
		{"+20 100 123 4567", "Vodafone", "60202"},                  // Egypt: NTRA, Vodafone's 010
		{"+212 661 234567", "Maroc Telecom", "60401"},              // Morocco: ANRT, Maroc Telecom's 0661
		{"+63 917 123 4567", "Globe", "51502"},                     // Philippines: NTC, Globe's 0917
		{"+60 12 345 6789", "Maxis", "50212"},                      // Malaysia: MCMC, Maxis's 012
		{"+84 91 234 56 78", "Vinaphone", "45202"},                 // Vietnam: Vinaphone's 091
		// Single-network countries and renamed operators (curated 2026-11-25).
		{"+53 5 123 4567", "etecsa", "36801"},                               // Cuba: ETECSA (Cubacel), the only operator
		{"+687 75 12 34", "OPT-NC", "54601"},                                // New Caledonia: OPT-NC (Mobilis), the only operator
		{"+299 22 12 34", "TELE Greenland A/S", "29001"},                    // Greenland: TELE Greenland, renamed Tusass in 2021
		{"+692 455 1234", "National Telecommunications Authority", "55101"}, // Marshall Islands: MINTA, the only operator
		{"+673 712 3456", "UNN", "52803"},                                   // Brunei: Unified National Networks, the wholesale network
		{"+1 649 231 1234", "C&W", "376350"},                                // Turks and Caicos: Cable & Wireless (FLOW)
		{"+262 693 05 12 34", "ZEOP Mobile", "64704"},                       // Réunion: ARCEP's MAJNUM, ZEOP's 0693 05
		{"+227 83 12 34 56", "Niger Telecoms", "61401"},                     // Niger: Niger Telecoms (SahelCom's network since 2016)
		{"+352 671 123 456", "JOIN", "27081"},                               // Luxembourg: ILR, JOIN's 671 (E-Lux Mobile's code)
		{"+223 65 01 23 45", "Sotelma", "61001"},                            // Mali: SOTELMA's Malitel
		{"+235 93 12 34 56", "Moov", "62203"},                               // Chad: Moov Africa Tchad, the former Tigo (Millicom)
		{"+374 91 123456", "Team Telecom Armenia", "28301"},                 // Armenia: the former Beeline's 091
		{"+250 77 123 4567", "KtRN", "63517"},                               // Rwanda: KT Rwanda Networks (olleh)
		{"+255 71 234 5678", "Yas", "64002"},                                // Tanzania: Yas, the former Tigo's 071
		{"+221 76 123 45 67", "Yas", "60802"},                               // Senegal: Yas, the former Free's 076
		{"+261 34 12 345 67", "Yas", "64604"},                               // Madagascar: Yas, the former Telma's 034
		{"+261 39 12 345 67", "Blueline", "64605"},                          // Madagascar: Gulfsat's Blueline 039
		{"+501 610 1234", "Belize Telemedia Ltd (Digi)", "70267"},           // Belize: BTL's DigiCell 610
		{"+501 650 1234", "Speednet (Smart)", "70269"},                      // Belize: Speednet's Smart 650
		{"+298 21 12 34", "Faroese Telecom", "28801"},                       // Faroe Islands: Føroya Tele's 21
		{"+298 71 12 34", "Vodafone", "28802"},                              // Faroe Islands: the former Vodafone (Hey, now Nema)'s 71
		{"+506 8312 3456", "Kolbi ICE", "71201"},                            // Costa Rica: SUTEL, ICE's Kölbi 83
		{"+506 6412 3456", "Movistar", "71204"},                             // Costa Rica: the former Movistar, Liberty's since 2020
		{"+505 8812 3456", "Movistar", "710300"},                            // Nicaragua: the former Movistar, Tigo's since 2019
		{"+995 555 12 34 56", "Silknet", "28201"},                           // Georgia: ComCom, Silknet's (the former Geocell's) 555
		{"+995 599 12 34 56", "MagtiCom", "28202"},                          // Georgia: ComCom, Magti's 599
		{"+1 876 210 1234", "Cable & Wireless", "338180"},                   // Jamaica: Cable & Wireless (FLOW)'s 876-210
		{"+855 10 123 456", "Smart", "45606"},                               // Cambodia: Smart Axiata's 010
		// Brazil: the operator's code in the licence region of the area code, by the ITU's names of
		// the codes ("VIVO REGIÃO I/II/III", "TIM REGIÃO I"; data/curated/mccmnc_aliases.tsv).
		{"+55 11 95472 1234", "Vivo", "72410"},       // São Paulo (Region III)
		{"+55 21 97112 3456", "Vivo", "72411"},       // Rio de Janeiro (Region I)
		{"+55 41 99101 2345", "Vivo", "72406"},       // Paraná (Region II)
		{"+55 21 98112 3456", "TIM", "72402"},        // Rio de Janeiro (Region I)
		{"+256 70 1234567", "Airtel", "64122"},       // Uganda: UCC, Airtel's 070, Warid's until Airtel bought it (2013): Warid's 641-22, operational in the list (data/curated/renames.tsv)
		{"+965 4123 4567", "Virgin mobile", "41904"}, // Kuwait: CITRA, Virgin Mobile's 4, on stc's network
		// Regulators' numbering plan communications in the ITU Operational Bulletin (OB),
		// written by hand into data/curated/ranges.tsv.
		{"+1 345 916 1234", "Cable & Wireless", "346140"},  // Cayman Islands: OfReg (OB 1333), Flow's 916: no carrier in libphonenumber
		{"+1 664 495 1234", "Cable & Wireless", "354860"},  // Montserrat: MICA (OB 1234), FLOW's 495
		{"+290 50123", "Sure South Atlantic Ltd", "65801"}, // Saint Helena: Sure South Atlantic (OB 1339), 5XXXX mobile
		{"+1 784 497 1234", "Cable & Wireless", "360110"},  // Saint Vincent: ECTEL (OB 1248), C&W's 497
		{"+1 784 430 1234", "Digicel", "360050"},           // Saint Vincent: ECTEL (OB 1248), Digicel's 430, libphonenumber's "AT&T" (no operational code)
		{"+680 775 1234", "PalauCel", "55201"},             // Palau: Bureau of Communications (OB 1305), PNCC Wireless/Palau Cel's 775
		{"+680 885 1234", "PalauTel", "55202"},             // Palau: PECI / PalauTel's 885
		{"+45 55 61 12 34", "3", "23806"},                  // Denmark: Hi3G's 5561 (OB 1333, 2025), inside libphonenumber's Telenor 55 (override)
		{"+45 55 66 12 34", "telenor", "23802"},            // Denmark: 5566 is not in Hi3G's assignment; libphonenumber's Telenor stands
		{"+995 515 555 123", "Globalcell", "28207"},        // Georgia: GNCC (OB 1289), Global Cell's 515555000-515559999 inside libphonenumber's MagtiCom 515 (override)
		{"+995 559 555 123", "Geocell", "28201"},           // Georgia: Geo Cell's 559555000-559559999 inside libphonenumber's Globalcell 559 (override)
		{"+995 559 001 234", "Globalcell", "28207"},        // Georgia: the rest of libphonenumber's 559 stays Globalcell's
		{"+973 3250 1234", "stc", "42604"},                 // Bahrain: TRA (OB 1283), stc's 32500000-32509999 inside libphonenumber's Batelco 32 (override)
		{"+252 67 1234567", "Telesom", "63701"},            // Somalia: NCA (OB 1307), Telesom's 67, libphonenumber's Nationlink (two codes)
		{"+252 68 1234567", "Hormuud", "63750"},            // Somalia: Hormuud's 68, libphonenumber's SomNet (override)
		{"+592 769 1234", "Digicel", "73801"},              // Guyana: Telecommunications Agency (OB 1336), U-Mobile's 769 (override of E-Networks)
		{"+383 45 012 345", "vala", "22101"},               // Kosovo: ARKEP (OB 1188), Telecom of Kosovo's 45: no carrier in libphonenumber for 450
		{"+599 701 1234", "Digicel", "36276"},              // Bonaire: ACM (OB 1188), Antilliano Por's 701, libphonenumber's Digicel (three codes)
		{"+211 12 123 4567", "Sudani", "65907"},            // South Sudan: Sudani's 12, E.212 659 07 (OB 1005); libphonenumber's "Sudatel Group"
	} {
		res := p.ClassifyString(tc.number)
		require.True(t, res.Valid, tc.number)
		require.Equal(t, tc.network, res.Network, tc.number)
		require.Equal(t, tc.mccmnc, res.MCCMNC, tc.number)
		require.Equal(t, tc.mccmnc[:3], res.MCC(), tc.number)
		require.Equal(t, tc.mccmnc[3:], res.MNC(), tc.number)
	}
	// Landlines have none; nor have ranges of carriers without one.
	require.Empty(t, p.ClassifyString("+49 30 1234567").MCCMNC)
	require.Empty(t, p.ClassifyString("+1 650 253 0000").MCCMNC)
	// ERA-GLONASS modules: a known carrier without an MCCMNC, on purpose.
	glonass := p.ClassifyString("+7 940 123 4567")
	require.Equal(t, "GLONASS", glonass.Network)
	require.Empty(t, glonass.MCCMNC)
	// TIM in São Paulo: the ITU names two codes for Region III, so none.
	tim := p.ClassifyString("+55 11 97011 1234")
	require.Equal(t, "TIM", tim.Network)
	require.Empty(t, tim.MCCMNC)
	// India: the carrier, but no code (one per licence circle; data/README.md).
	airtel := p.ClassifyString("+91 98100 12345")
	require.Equal(t, "Airtel", airtel.Network)
	require.Empty(t, airtel.MCCMNC)
}
