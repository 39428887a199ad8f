package routing_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
)

func Example() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	platformMap, err := routing.DefaultPlatformMap()
	if err != nil {
		log.Fatal(err)
	}
	platform, err := routing.NewPlatform(plan, nil, platformMap) // nil: the embedded coverage
	if err != nil {
		log.Fatal(err)
	}
	account, err := routing.ParseMap([]byte(`{"defaultRoute": "GT1", "prefixes": [{"cns": "+4917", "route": "GT2"}]}`))
	if err != nil {
		log.Fatal(err)
	}
	resolver, err := platform.Resolver(account)
	if err != nil {
		log.Fatal(err)
	}
	for _, number := range []string{"+49 151 23456789", "+49 172 3456789", "+1 650 253 0000", "+881 6 1234 5678"} {
		res := plan.ClassifyString(number)
		d := resolver.Resolve(&res)
		fmt.Println(d.Route, d.Confidence, d.Origin, d.Instruction())
	}
	// Output:
	// DS7 HIGH SCORE AUTO:DS7:SCORE
	// GT2 LOW CUSTOM_USER_PREFIX AUTO:GT2:CUSTOM_USER_PREFIX
	// GT2 HIGH CUSTOM_GLOBAL_COUNTRY AUTO:GT2:CUSTOM_GLOBAL_COUNTRY
	// REJECT LOW GLOBAL_REJECT AUTO:REJECT:GLOBAL_REJECT
}

func ExampleParseMap() {
	m, err := routing.ParseMap([]byte(`{"routing": {"map": {
		"default_route": "GT1", "mnpFallback": true,
		"mccmncs": [{"mccmnc": 26201, "route": "DS7"}],
		"countries": [{"countrycode": "FR", "route": "REJECT"}]}}}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.DefaultRoute, m.MNPFallback, m.MCCMNCs[0].MCCMNC, m.Countries[0])
	// Output: GT1 true 26201 {FR REJECT}
}

func ExampleMapError() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	platform, err := routing.NewPlatform(plan, nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	bad, err := routing.ParseMap([]byte(`{"defaultRoute": "GT", "prefixes": [{"cns": "+49151", "route": "GT1"}, {"cns": "+49151", "route": "DS7"}]}`))
	if err != nil {
		log.Fatal(err)
	}
	_, err = platform.Resolver(bad)
	var me *routing.MapError
	if errors.As(err, &me) {
		for _, p := range me.Problems {
			fmt.Println(p)
		}
	}
	// Output:
	// defaultRoute "GT": want a 3-character route or REJECT
	// prefixes[1]: +49151 routes to DS7, contradicting prefixes[0], which routes it to GT1
}

func ExampleRouter() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	platform, err := routing.NewPlatform(plan, nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	first, err := platform.Resolver(nil)
	if err != nil {
		log.Fatal(err)
	}
	var router routing.Router // share it between goroutines
	router.Store(first)
	res := plan.ClassifyString("+44 7400 123456")
	fmt.Println(router.Resolve(&res).Route)

	_ = router.Update(&routing.Map{Countries: []routing.CountryRule{{CountryCode: "GB", Route: "GT1"}}})
	fmt.Println(router.Resolve(&res).Route)

	err = router.Update(&routing.Map{Countries: []routing.CountryRule{{CountryCode: "GB", Route: "XX9"}}})
	fmt.Println(err != nil, router.Resolve(&res).Route) // a bad map leaves the good one in place
	// Output:
	// DS7
	// GT1
	// true GT1
}
