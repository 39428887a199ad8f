package apiv2_test

import (
	"encoding/json"
	"fmt"
	"log"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/numbering"
)

// NewNTResult builds the NT result object of a classification; the
// engine files it with the lookup's route, cost, time and report.
func ExampleNewNTResult() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	res := plan.ClassifyString("+44 20 7946 0000")
	r := apiv2.NewNTResult(&res, "2rx2qtkeyecr", apiv2.Filing{
		Route: "NT1", Cost: "0.0010", Timestamp: "2026-11-22 10:04:05.678+0100", Storage: "SYNC-API-NT-2026-11",
	})
	fmt.Println(r.Number, r.NumberType, *r.IsValid, *r.OriginalCountryCode, *r.NationalFormat, *r.Route)
	// Output: +442079460000 LANDLINE true GB 020 7946 0000 NT1
}

// Every result object is an apiv2.Result: its product and its JSON, the
// bytes json.Marshal writes.
func ExampleResult() {
	results := []apiv2.Result{
		&apiv2.HLRResult{ID: "a", MSISDN: "+4915123456789", ProcessingStatus: "COMPLETED"},
		&apiv2.MNPResult{ID: "b", MSISDN: "+31612345678", QueryStatus: "OK"},
		&apiv2.NTResult{ID: "c", Number: "+442079460000", QueryStatus: "OK"},
	}
	for _, r := range results {
		b := r.AppendJSON(nil)
		var back map[string]any
		if err := json.Unmarshal(b, &back); err != nil {
			log.Fatal(err)
		}
		fmt.Println(r.Product(), back["id"], back["cost"])
	}
	// Output:
	// HLR a <nil>
	// MNP b <nil>
	// NT c <nil>
}

// The network groups of HLR and MNP results (original_*, ported_*,
// roaming_*) are set from Network values.
func ExampleHLRResult_SetPorted() {
	var r apiv2.HLRResult
	r.SetMCCMNC("26203")
	r.SetPorted(apiv2.Network{Name: "Telefónica", CountryName: "Germany", CountryCode: "DE", CountryPrefix: "+49"})
	fmt.Println(*r.MCC, *r.MNC, *r.PortedNetworkName, *r.PortedCountryCode, r.RoamingNetworkName == nil)
	// Output: 262 03 Telefónica DE true
}
