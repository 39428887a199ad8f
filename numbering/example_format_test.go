package numbering_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/numenhq/numen/numbering"
)

func ExamplePlan_Format() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	n, err := plan.Parse("+49 15123456789")
	if err != nil {
		log.Fatal(err)
	}
	for _, style := range []numbering.Style{numbering.E164, numbering.International, numbering.National, numbering.RFC3966} {
		s, err := plan.Format(n, style)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-13s %s\n", style, s)
	}
	// Output:
	// E164          +4915123456789
	// INTERNATIONAL +49 1512 3456789
	// NATIONAL      01512 3456789
	// RFC3966       tel:+49-1512-3456789
}

func ExamplePlan_AppendFormat() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	buf := make([]byte, 0, 64) // reused: formatting allocates nothing
	// The last is too short for any of Germany's formats: as libphonenumber
	// does, it is written as its national significant number.
	for _, in := range []string{"+1 2015550123", "+39 0612345678", "+44 20 7946 0000", "+49 30 12"} {
		n, err := plan.Parse(in)
		if err != nil {
			log.Fatal(err)
		}
		if buf, err = plan.AppendFormat(buf[:0], n, numbering.National); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s\n", buf)
	}
	// Output:
	// (201) 555-0123
	// 06 1234 5678
	// 020 7946 0000
	// 3012
}

func ExamplePlan_FormatFrom() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	n, err := plan.Parse("+49 30 1234567")
	if err != nil {
		log.Fatal(err)
	}
	for _, from := range []string{"FR", "US", "DE", "AU", "ZZ"} {
		s, err := plan.FormatFrom(n, from)
		if errors.Is(err, numbering.ErrUnknownRegion) {
			fmt.Printf("from %s: %v\n", from, err)
			continue
		}
		fmt.Printf("from %s: %s\n", from, s)
	}
	// Output:
	// from FR: 00 49 30 1234567
	// from US: 011 49 30 1234567
	// from DE: 030 1234567
	// from AU: 0011 49 30 1234567
	// from ZZ: numbering: unknown region "ZZ": want an ISO 3166-1 alpha-2 code of a region with a calling code, such as "DE"
}

func ExamplePlan_AppendFormatFrom() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	n, err := plan.Parse("+1 201 555 0123")
	if err != nil {
		log.Fatal(err)
	}
	var buf []byte
	for _, from := range []string{"CA", "US", "GB"} {
		if buf, err = plan.AppendFormatFrom(buf[:0], n, from); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("from %s: %s\n", from, buf)
	}
	// Output:
	// from CA: 1 (201) 555-0123
	// from US: 1 (201) 555-0123
	// from GB: 00 1 201-555-0123
}

func ExamplePlan_AppendNationalWithCarrier() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	n, err := plan.Parse("+55 11 3333 4444")
	if err != nil {
		log.Fatal(err)
	}
	b, err := plan.AppendNationalWithCarrier(nil, n, "15") // São Paulo via carrier 15
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", b)
	// Output: 0 15 (11) 3333-4444
}

func ExampleStyle_String() {
	fmt.Println(numbering.International, numbering.RFC3966)
	// Output: INTERNATIONAL RFC3966
}

func ExampleResult_AppendFormat() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	for _, in := range []string{"+31 6 12345678", "+31 6 1234"} {
		res := plan.ClassifyString(in)
		b, ok := res.AppendFormat(nil, numbering.National)
		fmt.Printf("%s valid=%v: %q %v\n", in, res.Valid, b, ok)
	}
	// Output:
	// +31 6 12345678 valid=true: "06 12345678" true
	// +31 6 1234 valid=false: "" false
}
