package numbering_test

import (
	"fmt"
	"log"

	"github.com/numenhq/numen/numbering"
)

func ExamplePlan_NewAsYouType() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	// A US sign-up form: the field shows what libphonenumber shows, and
	// the check of what the input can still become.
	f, err := plan.NewAsYouType("US")
	if err != nil {
		log.Fatal(err)
	}
	for _, key := range "6502530000" {
		text, pr := f.Input(key)
		fmt.Printf("%-16q %-10v %v %v\n", text, pr.State, pr.Types, pr.Regions())
	}
	if n, ok := f.Number(); ok {
		fmt.Println("E.164:", n)
	}
	// The caret after the third digit typed, and back.
	fmt.Println("caret:", f.FormattedPos(3), f.RawPos(f.FormattedPos(3)))

	// A number typed in international format, with no region.
	f, err = plan.NewAsYouType("")
	if err != nil {
		log.Fatal(err)
	}
	for _, key := range "+4915123456789" {
		f.Input(key)
	}
	fmt.Printf("%q %v\n", f.Text(), f.Progress().State)
	// Output:
	// "6"              incomplete UNKNOWN|LANDLINE|MOBILE|MOBILE_OR_LANDLINE|VOIP [US AS CA GU JM MP MS TC]
	// "65"             incomplete LANDLINE|MOBILE|MOBILE_OR_LANDLINE [US JM]
	// "650"            incomplete MOBILE_OR_LANDLINE [US]
	// "650-2"          incomplete MOBILE_OR_LANDLINE [US]
	// "650-25"         incomplete MOBILE_OR_LANDLINE [US]
	// "650-253"        incomplete MOBILE_OR_LANDLINE [US]
	// "650-2530"       incomplete MOBILE_OR_LANDLINE [US]
	// "(650) 253-00"   incomplete MOBILE_OR_LANDLINE [US]
	// "(650) 253-000"  incomplete MOBILE_OR_LANDLINE [US]
	// "(650) 253-0000" valid      MOBILE_OR_LANDLINE [US]
	// E.164: +16502530000
	// caret: 4 3
	// "+49 1512 3456789" valid
}
