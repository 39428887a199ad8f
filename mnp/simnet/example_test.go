package simnet_test

import (
	"context"
	"fmt"

	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/mnp/simnet"
	"github.com/numenhq/numen/numbering"
)

// query classifies a number as the engine does before it asks a backend.
func query(plan *numbering.Plan, number string) mnp.Query {
	res := plan.ClassifyString(number)
	return mnp.Query{Number: res.Number, Region: res.CountryCode, MCCMNC: res.MCCMNC, Route: simnet.Route}
}

// The same seed gives the same subscribers in every run: these four German
// numbers, all of Telekom's range (26201), are connected, unassigned,
// ported to 1&1 and roaming in Spain.
func Example() {
	plan, err := loadPlan() // numbering.Load(), once per test binary
	if err != nil {
		panic(err)
	}
	sim := simnet.New(plan, simnet.WithSeed(1))
	for _, number := range []string{"+4915123456700", "+4915123456702", "+4915123456721", "+4915123456793"} {
		a, err := sim.HLR(context.Background(), query(plan, number))
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s %s code=%d serving=%s ported=%v to=%q roaming=%v on=%q imsi=%q msin=%q msc=%q\n",
			number, a.Connectivity, a.Code, a.MCCMNC, a.Ported, a.PortedTo.Name, a.Roaming, a.RoamingOn.Name, a.IMSI, a.MSIN, a.MSC)
	}
	// Output:
	// +4915123456700 CONNECTED code=0 serving=26201 ported=false to="" roaming=false on="" imsi="26201*******419" msin="*******419" msc="SIMULATOR236"
	// +4915123456702 INVALID_MSISDN code=4 serving=26201 ported=false to="" roaming=null on="" imsi="" msin="" msc=""
	// +4915123456721 CONNECTED code=0 serving=26223 ported=true to="1&1" roaming=false on="" imsi="26223*******827" msin="*******827" msc="SIMULATOR120"
	// +4915123456793 CONNECTED code=0 serving=21427 ported=false to="" roaming=true on="Truphone" imsi="26201*******350" msin="*******350" msc="SIMULATOR468"
}

func ExampleNet_Portability() {
	plan, err := loadPlan() // numbering.Load(), once per test binary
	if err != nil {
		panic(err)
	}
	sim := simnet.New(plan, simnet.WithSeed(1))
	for _, number := range []string{"+4915123456700", "+4915123456721"} {
		a, err := sim.Portability(context.Background(), query(plan, number))
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s %s ported=%v network=%s (%s, %s)\n", number, a.Status, a.Ported, a.Network.MCCMNC, a.Network.Name, a.Network.Region)
	}
	// Output:
	// +4915123456700 COMPLETED ported=false network=26201 (Telekom, DE)
	// +4915123456721 COMPLETED ported=true network=26223 (1&1, DE)
}

// A load test with failures: they wrap mnp.ErrUnavailable, so the engine
// fails over to the route's next backend.
func ExampleWithFailureRate() {
	plan, err := loadPlan() // numbering.Load(), once per test binary
	if err != nil {
		panic(err)
	}
	sim := simnet.New(plan, simnet.WithSeed(1), simnet.WithFailureRate(0.25))
	q := query(plan, "+4915123456700")
	for range 1000 {
		_, err := sim.HLR(context.Background(), q)
		if err != nil && !mnp.Retryable(err) {
			panic(err)
		}
	}
	_, err = simnet.New(plan, simnet.WithFailureRate(1)).HLR(context.Background(), q)
	fmt.Println(err)
	fmt.Println(mnp.Retryable(err), mnp.CodeOf(err))
	fmt.Printf("%+v\n", sim.Stats())
	// Output:
	// simnet (simulator): network unreachable: no link to the subscriber's network: simulated failure
	// true 6
	// {Queries:1000 Failures:221 Canceled:0}
}
