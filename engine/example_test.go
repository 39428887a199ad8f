package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
)

// registerOf is a stand-in HLR backend for the example: every number is
// connected to its original network.
type registerOf struct{}

func (registerOf) HLR(ctx context.Context, q mnp.Query) (mnp.HLRAnswer, error) {
	return mnp.HLRAnswer{Status: mnp.Completed, Connectivity: mnp.Connected, MCCMNC: q.MCCMNC, Ported: mnp.False, Roaming: mnp.False}, nil
}

// portDB is a stand-in portability backend: no number is ported.
type portDB struct{}

func (portDB) Portability(ctx context.Context, q mnp.Query) (mnp.PortAnswer, error) {
	return mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: q.MCCMNC}}, nil
}

func newEngine() (*engine.Engine, *engine.Profile) {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	hlr := []engine.HLR{{Name: "example register", Backend: registerOf{}}}
	eng, err := engine.New(engine.Options{
		Plan: plan,
		Backends: []engine.RouteBackends{
			{Route: "DS7", HLR: hlr}, {Route: "GT1", HLR: hlr}, {Route: "GT2", HLR: hlr},
			{Route: "MP1", Portability: []engine.Portability{{Name: "example database", Backend: portDB{}}}},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	prof, err := eng.NewProfile(engine.ProfileOptions{Key: "example"})
	if err != nil {
		log.Fatal(err)
	}
	return eng, prof
}

// ExampleNew builds the smallest engine that answers HLR lookups, as the
// package documentation shows it: one backend, on route GT1 of the
// built-in coverage. The other illustrative routes (DS7, GT2 and MP1) have
// no backend, so they are not served: every HLR lookup takes GT1, the
// route list names only it, and MNP lookups need a portability backend.
func ExampleNew() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	eng, err := engine.New(engine.Options{
		Plan:     plan,
		Backends: []engine.RouteBackends{{Route: "GT1", HLR: []engine.HLR{{Name: "provider-a", Backend: registerOf{}}}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	prof, err := eng.NewProfile(engine.ProfileOptions{Key: "demo"})
	if err != nil {
		log.Fatal(err)
	}
	ans, err := eng.HLRLookup(context.Background(), prof, engine.Request{Number: "+4915112345678"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ans.Result.ConnectivityStatus, ans.Result.RoutingInstruction)
	fmt.Println(eng.Routes().Routes.HLR)
	// Output:
	// CONNECTED AUTO:GT1:SCORE
	// [GT1]
}

func ExampleEngine_HLRLookup() {
	eng, acct := newEngine()
	ans, err := eng.HLRLookup(context.Background(), acct, engine.Request{Number: "+49 151 23456789"})
	if err != nil {
		log.Fatal(err)
	}
	res := ans.Result
	fmt.Println(res.MSISDN, res.ConnectivityStatus, *res.MCCMNC, *res.OriginalNetworkName)
	fmt.Println(res.ProcessingStatus, *res.Cost, res.RoutingInstruction, res.DataSource)
	// Output:
	// +4915123456789 CONNECTED 26201 T-Mobile
	// COMPLETED 0.0100 AUTO:DS7:SCORE LIVE_HLR
}

func ExampleEngine_HLRLookup_invalid() {
	eng, acct := newEngine()
	ans, err := eng.HLRLookup(context.Background(), acct, engine.Request{Number: "+49 151 2"})
	if err != nil {
		log.Fatal(err)
	}
	res := ans.Result
	fmt.Println(res.ConnectivityStatus, res.ProcessingStatus, *res.ErrorCode, *res.ErrorDescription, *res.Cost)
	// Output: INVALID_MSISDN REJECTED 1 number is not a valid phone number: invalid prefix 0.0000
}

func ExampleEngine_MNPLookup() {
	eng, acct := newEngine()
	ans, err := eng.MNPLookup(context.Background(), acct, engine.Request{Number: "+31 6 12345678"})
	if err != nil {
		log.Fatal(err)
	}
	res := ans.Result
	fmt.Println(res.MSISDN, *res.IsPorted, *res.MCCMNC, *res.Route, *res.Cost)
	// Output: +31612345678 false 20408 MP1 0.0050
}

func ExampleEngine_NTLookup() {
	eng, acct := newEngine()
	ans, err := eng.NTLookup(context.Background(), acct, engine.Request{Number: "+44 20 7946 0000"})
	if err != nil {
		log.Fatal(err)
	}
	res := ans.Result
	fmt.Println(res.NumberType, *res.IsValid, *res.OriginalCountryCode, *res.Route, *res.Cost)
	// Output: LANDLINE true GB NT1 0.0010
}

// An HTTP adapter asks for the result's JSON (Request.Encode) and answers
// with those bytes: the engine encodes each result once, for the caller
// and its sink alike.
func ExampleEngine_NTLookup_encoded() {
	eng, acct := newEngine()
	ans, err := eng.NTLookup(context.Background(), acct, engine.Request{Number: "+44 20 7946 0000", Encode: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ans.Result.Product(), json.Valid(ans.JSON), bytes.Contains(ans.JSON, []byte(`"number_type":"LANDLINE"`)))
	// Output: NT true true
}

func ExampleEngine_Route() {
	eng, acct := newEngine()
	d, err := eng.Route(acct, engine.Request{Number: "+1 650 253 0000"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Route, d.ConfidenceLevel, d.Origin)
	// Output: GT2 HIGH CUSTOM_GLOBAL_COUNTRY
}

func ExampleEngine_Routes() {
	eng, _ := newEngine()
	r := eng.Routes().Routes
	fmt.Println(r.HLR, r.MNP, r.NT)
	// Output: [DS7 GT1 GT2] [MP1] [NT1]
}

// A bulk submission admits each number before queuing it: whether it is
// usable for the product, the route it will most likely take and its
// price.
func ExampleEngine_Admit() {
	eng, prof := newEngine()
	for _, n := range []string{"+49 151 23456789", "+49 30 1234567"} {
		ad, err := eng.Admit(prof, engine.ProductHLR, engine.Request{Number: n})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(ad.Number, ad.Accepted, ad.Route, ad.Cost)
	}
	// Output:
	// +4915123456789 true DS7 0.0100
	// +49301234567 false  0.0000
}

// downHLR is a stand-in HLR backend that is down: no connection.
type downHLR struct{}

func (downHLR) HLR(ctx context.Context, q mnp.Query) (mnp.HLRAnswer, error) {
	return mnp.HLRAnswer{}, mnp.Unavailable("provider-a", mnp.CodeNetworkUnreachable, errors.New("connection refused"))
}

// A route's first provider is down: after two failures its circuit opens
// and the next lookups skip it; Backends shows its state and counters.
func ExampleEngine_Backends() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	eng, err := engine.New(engine.Options{
		Plan: plan,
		Backends: []engine.RouteBackends{
			{Route: "GT1", HLR: []engine.HLR{{Name: "provider-a", Backend: downHLR{}, Type: "remote"}, {Name: "provider-b", Backend: registerOf{}, Type: "remote"}}},
			{Route: "GT2", HLR: []engine.HLR{{Name: "register", Backend: registerOf{}}}},
			{Route: "DS7", HLR: []engine.HLR{{Name: "register", Backend: registerOf{}}}},
			{Route: "MP1", Portability: []engine.Portability{{Name: "portdb", Backend: portDB{}}}},
		},
		Circuit: engine.CircuitOptions{Failures: 2},
		Logger:  slog.New(slog.DiscardHandler), // by default slog.Default()
	})
	if err != nil {
		log.Fatal(err)
	}
	prof, err := eng.NewProfile(engine.ProfileOptions{Key: "demo"})
	if err != nil {
		log.Fatal(err)
	}
	for range 5 {
		ans, err := eng.HLRLookup(context.Background(), prof, engine.Request{Number: "+4915123456789", Route: "GT1"})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(ans.Result.RoutingInstruction)
	}
	for _, b := range eng.Backends() {
		if b.Route == "GT1" {
			fmt.Printf("%s %s %s: requests %d, refused %d, skipped %d, failovers %d\n",
				b.Label, b.Name, b.State, b.Requests, b.Errors[engine.ErrorRefused], b.Skipped, b.Failovers)
		}
	}
	// Output:
	// STATIC:GT1:FAILOVER-2
	// STATIC:GT1:FAILOVER-2
	// STATIC:GT1:FAILOVER-2
	// STATIC:GT1:FAILOVER-2
	// STATIC:GT1:FAILOVER-2
	// remote#1 provider-a open: requests 2, refused 2, skipped 3, failovers 5
	// remote#2 provider-b ok: requests 5, refused 0, skipped 0, failovers 0
}
