package numbering_test

import (
	"fmt"
	"log"

	"github.com/numenhq/numen/numbering"
)

func ExamplePlan_Find() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	text := "Call 030 1234567 or +44 20 7946 0000 (office), not 3/10/2011; mobile 0151 23456789 ext. 12."
	matches, err := plan.Find(text, "DE", numbering.LeniencyValid)
	if err != nil {
		log.Fatal(err)
	}
	for m := range matches {
		fmt.Printf("%d-%d %q %s %s\n", m.Start, m.End, m.Raw, m.Result.Number, m.Result.Type)
	}
	// Output:
	// 5-16 "030 1234567" +49301234567 LANDLINE
	// 20-36 "+44 20 7946 0000" +442079460000 LANDLINE
	// 69-90 "0151 23456789 ext. 12" +4915123456789 MOBILE
}

func ExampleParseLeniency() {
	l, err := numbering.ParseLeniency("strict-grouping")
	fmt.Println(l, err)
	_, err = numbering.ParseLeniency("loose")
	fmt.Println(err)
	// Output:
	// STRICT_GROUPING <nil>
	// numbering: unknown leniency "loose": want POSSIBLE, VALID, STRICT_GROUPING or EXACT_GROUPING
}
