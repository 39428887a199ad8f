package numbering_test

import (
	"errors"
	"fmt"
	"log"
	"strings"

	"github.com/numenhq/numen/numbering"
)

func ExampleLoad() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(plan.Version().Libphonenumber)
	// Output: v9.0.43
}

func ExamplePlan_Parse() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	for _, in := range []string{"+44 (0)20 7946 0000", "0049 151 2345-6789", "+1-800-FLOWERS", "030 1234567"} {
		n, err := plan.Parse(in)
		var perr *numbering.ParseError
		switch {
		case errors.As(err, &perr):
			fmt.Printf("%-20s error: %s\n", in, perr.Reason)
		default:
			fmt.Printf("%-20s %s (calling code %d, national %s, vanity %v)\n", in, n, n.CountryCode(), n.NationalNumber(), n.IsVanity())
		}
	}
	// Output:
	// +44 (0)20 7946 0000  +442079460000 (calling code 44, national 2079460000, vanity false)
	// 0049 151 2345-6789   +4915123456789 (calling code 49, national 15123456789, vanity false)
	// +1-800-FLOWERS       +18003569377 (calling code 1, national 8003569377, vanity true)
	// 030 1234567          error: missing country code
}

func ExamplePlan_Classify() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	n, err := plan.Parse("+49 151 23456789")
	if err != nil {
		log.Fatal(err)
	}
	res := plan.Classify(n)
	fmt.Println(res.Type, res.Valid, res.CountryCode, res.CountryName, res.Network, res.Timezones)
	fmt.Println("HLR lookup:", res.QualifiesForHLR, "possibly ported:", res.PossiblyPorted)
	// Output:
	// MOBILE true DE Germany T-Mobile [Europe/Berlin]
	// HLR lookup: true possibly ported: true
}

func ExamplePlan_ClassifyString() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	for _, in := range []string{"+44 20 7946 0000", "+33 6 12", "+999 1234", "+1 800 234 5678"} {
		res := plan.ClassifyString(in)
		switch {
		case res.Valid:
			fmt.Printf("%s: %s in %s %v\n", res.Number, res.Type, res.CountryCode, res.Regions)
		case res.Reason == numbering.TooShort:
			fmt.Printf("%s: too short for %s\n", in, res.CountryName)
		default:
			fmt.Printf("%s: %s, %s\n", in, res.Status, res.Reason)
		}
	}
	// Output:
	// +442079460000: LANDLINE in GB [London]
	// +33 6 12: too short for France
	// +999 1234: FAILED, invalid country code
	// +18002345678: TOLL_FREE in US [United States]
}

func ExampleResult_AppendJSON() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	res := plan.ClassifyString("+31 6 12345678")
	fmt.Println(string(res.AppendJSON(nil)))
	// Output:
	// {"number":"+31612345678","number_type":"MOBILE","query_status":"OK","is_valid":true,"invalid_reason":null,"is_possibly_ported":true,"is_vanity_number":false,"qualifies_for_hlr_lookup":true,"mccmnc":"20408","mcc":"204","mnc":"08","original_network_name":"KPN","original_country_name":"Netherlands","original_country_code":"NL","original_country_prefix":"+31","regions":["Netherlands"],"timezones":["Europe/Amsterdam"],"info_text":null,"international_format":"+31 6 12345678","national_format":"06 12345678"}
}

// A portability answer names the network a number moved to by its MCCMNC;
// the plan gives its name and country.
func ExamplePlan_Network() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	nw, ok := plan.Network("26203")
	if !ok {
		log.Fatal("unknown network")
	}
	country, _ := plan.Country(nw.Region)
	fmt.Println(nw.Name(), nw.MCC(), nw.MNC(), country.Name, country.Prefix)
	// Output: O2 262 03 Germany +49
}

// An overlay adds a range libphonenumber does not know yet and corrects a
// network's code, without a new plan file.
func ExampleWithOverlay() {
	overlay := strings.Join([]string{
		"# prefix\ttype\tnetwork\tMCCMNC\tnote",
		"+49 1540\tMOBILE\tExample Mobil\t26299\tallocated 2026-10",
		"+992 93\t-\tTcell\t43601\tTcell's code from Somoncom; 436-02 is Indigo's",
	}, "\n")
	plan, err := numbering.Load(numbering.WithOverlay(strings.NewReader(overlay)))
	if err != nil {
		log.Fatal(err)
	}
	for _, in := range []string{"+49 1540 1234567", "+992 93 1234567"} {
		res := plan.ClassifyString(in)
		fmt.Println(res.Number, res.Valid, res.Type, res.Network, res.MCCMNC)
	}
	fmt.Println(strings.HasPrefix(plan.Version().Overlay, "overlay (2 lines, "))
	// Output:
	// +4915401234567 true MOBILE Example Mobil 26299
	// +992931234567 true MOBILE Tcell 43601
	// true
}

// Open reads a plan file from disk, such as one generated from newer
// libphonenumber metadata; a damaged file is an error, never wrong answers.
func ExampleOpen() {
	_, err := numbering.Open("testdata/not-a-plan.bin")
	fmt.Println(errors.Is(err, numbering.ErrFormat))
	// Output: true
}

// Validate answers validity, type and country alone, for forms and
// routers that need no more, faster than ClassifyString.
func ExamplePlan_Validate() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	for _, in := range []string{"+49 151 23456789", "+33 6 12", "+800 1234 5678"} {
		v := plan.Validate(in)
		fmt.Printf("%s: valid=%v type=%v region=%q reason=%q\n", in, v.Valid, v.Type, v.Region, v.Reason)
	}
	// Output:
	// +49 151 23456789: valid=true type=MOBILE region="DE" reason=""
	// +33 6 12: valid=false type=UNKNOWN region="FR" reason="too short"
	// +800 1234 5678: valid=true type=TOLL_FREE region="" reason=""
}

// Check follows input as it is typed: what it can still become, and why
// not when it cannot.
func ExamplePlan_Check() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	for _, in := range []string{"+4", "+49 15", "+49 151 2345678", "+49 151 23456789", "+44 (0)20 79", "+999"} {
		pr := plan.Check(in)
		fmt.Printf("%-18s %-10v types=%v regions=%v reason=%q\n", in, pr.State, pr.Types, pr.Regions(), pr.Reason)
	}
	// Output:
	// +4                 incomplete types= regions=[] reason=""
	// +49 15             incomplete types=MOBILE|VOICEMAIL regions=[DE] reason=""
	// +49 151 2345678    incomplete types=MOBILE regions=[DE] reason=""
	// +49 151 23456789   valid      types=MOBILE regions=[DE] reason=""
	// +44 (0)20 79       incomplete types=LANDLINE regions=[GB] reason=""
	// +999               impossible types= regions=[] reason="invalid country code"
}

func ExamplePlan_CheckIn() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	// A German sign-up form, as the user types.
	for _, in := range []string{"0", "0151 2", "0151 23456789", "0151 234567890", "00 44 20 79", "+33 6 12"} {
		pr, err := plan.CheckIn(in, "DE")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-16s %-10v types=%v regions=%v reason=%q\n", in, pr.State, pr.Types, pr.Regions(), pr.Reason)
	}
	// Output:
	// 0                incomplete types= regions=[] reason=""
	// 0151 2           incomplete types=MOBILE regions=[DE] reason=""
	// 0151 23456789    valid      types=MOBILE regions=[DE] reason=""
	// 0151 234567890   impossible types= regions=[] reason="invalid prefix"
	// 00 44 20 79      incomplete types=LANDLINE regions=[GB] reason=""
	// +33 6 12         incomplete types=MOBILE regions=[FR] reason=""
}

func ExamplePlan_ParseIn() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	for _, in := range [][2]string{
		{"0151 23456789", "DE"},       // national format with the trunk prefix
		{"(201) 555-0123", "US"},      // national format without one
		{"011 44 20 7946 0000", "US"}, // the US international prefix
		{"011 15 2345-6789", "AR"},    // Argentina's mobile form: 0 + area code, 15 + subscriber
		{"+33 6 12 34 56 78", "US"},   // international format: the region does not matter
		{"030", "DE"},                 // three digits: a possible length for nothing but themselves
		{"0 1", "DE"},
		{"0151 23456789", "XY"},
	} {
		n, err := plan.ParseIn(in[0], in[1])
		var perr *numbering.ParseError
		switch {
		case errors.As(err, &perr):
			fmt.Printf("%-20s in %s: error: %s\n", in[0], in[1], perr.Reason)
		case errors.Is(err, numbering.ErrUnknownRegion):
			fmt.Printf("%-20s in %s: %v\n", in[0], in[1], err)
		default:
			fmt.Printf("%-20s in %s: %s\n", in[0], in[1], n)
		}
	}
	// Output:
	// 0151 23456789        in DE: +4915123456789
	// (201) 555-0123       in US: +12015550123
	// 011 44 20 7946 0000  in US: +442079460000
	// 011 15 2345-6789     in AR: +5491123456789
	// +33 6 12 34 56 78    in US: +33612345678
	// 030                  in DE: +49030
	// 0 1                  in DE: error: not a number
	// 0151 23456789        in XY: numbering: unknown region "XY": want an ISO 3166-1 alpha-2 code of a region with a calling code, such as "DE"
}

func ExamplePlan_ClassifyIn() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	// Bare digits are national input in DE, as libphonenumber reads them:
	// 4915123456789 is a valid German landline number (area code 4915).
	for _, in := range []string{"0151 23456789", "00 44 20 7946 0000", "0151 234", "4915123456789"} {
		res, err := plan.ClassifyIn(in, "DE")
		if err != nil {
			log.Fatal(err)
		}
		if res.Valid {
			fmt.Printf("%-18s %s %s in %s\n", in, res.Number, res.Type, res.CountryCode)
		} else {
			fmt.Printf("%-18s %s: %s\n", in, res.Number, res.Reason)
		}
	}
	// Output:
	// 0151 23456789      +4915123456789 MOBILE in DE
	// 00 44 20 7946 0000 +442079460000 LANDLINE in GB
	// 0151 234           +49151234: invalid prefix
	// 4915123456789      +494915123456789 LANDLINE in DE
}

func ExamplePlan_ValidateIn() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	v, err := plan.ValidateIn("06 12 34 56 78", "FR")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v.Number, v.Valid, v.Type, v.Region)
	_, err = plan.ValidateIn("06 12 34 56 78", "France")
	fmt.Println(errors.Is(err, numbering.ErrUnknownRegion))
	// Output:
	// +33612345678 true MOBILE FR
	// true
}
