package numbering_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/numenhq/numen/numbering"
)

func ExamplePlan_ShortNumber() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	for _, in := range []struct{ number, region string }{
		{"112", "DE"}, {"116 000", "FR"}, {"1000", "FR"}, {"911", "US"}, {"9116666666", "US"}, {"1901234", "BR"},
	} {
		info, err := plan.ShortNumber(in.number, in.region)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-10s %s valid=%-5v emergency=%-5v connects=%-5v cost=%s\n",
			in.number, in.region, info.Valid, info.Emergency, info.ConnectsToEmergency, info.Cost)
	}
	// Output:
	// 112        DE valid=true  emergency=true  connects=true  cost=TOLL_FREE
	// 116 000    FR valid=true  emergency=false connects=false cost=TOLL_FREE
	// 1000       FR valid=true  emergency=false connects=false cost=PREMIUM_RATE
	// 911        US valid=true  emergency=true  connects=true  cost=TOLL_FREE
	// 9116666666 US valid=false emergency=false connects=true  cost=UNKNOWN_COST
	// 1901234    BR valid=false emergency=false connects=false cost=UNKNOWN_COST
}

func ExampleShortCost_String() {
	for _, c := range []numbering.ShortCost{numbering.TollFreeCost, numbering.StandardRateCost, numbering.PremiumRateCost, numbering.UnknownCost} {
		fmt.Println(c)
	}
	// Output:
	// TOLL_FREE
	// STANDARD_RATE
	// PREMIUM_RATE
	// UNKNOWN_COST
}

func ExampleRegionError() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	_, err = plan.ShortNumber("112", "XX")
	var re *numbering.RegionError
	if errors.As(err, &re) {
		fmt.Println("unknown region:", re.Region)
	}
	// Output: unknown region: XX
}
