package main

import (
	"fmt"

	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
)

// Demo routes: the simulator's, named so that every result, route list
// and coverage answer says what answered.
const (
	demoHLRRoute = "SIM" // simnet.Route
	demoMNPRoute = "SMP"
)

// setUpDemo gives cfg the demo's routing: the embedded coverage's networks,
// served by two simulator routes (HLR and MNP) plus the numbering plan's NT
// route, and a platform map that sends everything to the simulator but
// keeps the embedded map's rejections.
func setUpDemo(cfg *serveConfig, plan *numbering.Plan) error {
	base, err := routing.DefaultCoverage()
	if err != nil {
		return err
	}
	cov := &routing.Coverage{
		About: "DEMO: every HLR and MNP answer comes from the simulator (mnp/simnet) and is invented; the networks are real.",
		Routes: []routing.Route{
			{ID: demoHLRRoute, Product: routing.HLR, Name: "SIMULATOR (mnp/simnet): invented HLR answers"},
			{ID: demoMNPRoute, Product: routing.MNP, Name: "SIMULATOR (mnp/simnet): invented portability answers"},
		},
		Networks: base.Networks,
	}
	for _, r := range base.Routes {
		if r.Product == routing.NT {
			cov.Routes = append(cov.Routes, r)
		}
	}
	for _, n := range base.Networks {
		cov.Scores = append(cov.Scores,
			routing.Score{Route: demoHLRRoute, MCCMNC: n.MCCMNC, Score: 90},
			routing.Score{Route: demoMNPRoute, MCCMNC: n.MCCMNC, Score: 90})
	}
	platform, err := routing.DefaultPlatformMap()
	if err != nil {
		return err
	}
	demoMap := &routing.Map{DefaultRoute: demoHLRRoute}
	for _, p := range platform.Prefixes {
		if p.Route == routing.RejectRoute {
			demoMap.Prefixes = append(demoMap.Prefixes, p)
		}
	}
	cfg.coverage, cfg.platformMap = cov, demoMap
	cfg.Routes = []routeConfig{
		{Route: demoHLRRoute, Backends: []backendConfig{{Type: "simnet", Seed: 1}}},
		{Route: demoMNPRoute, Backends: []backendConfig{{Type: "simnet", Seed: 1}}},
	}
	if len(cfg.Accounts) == 0 {
		return fmt.Errorf("demo: no account")
	}
	return nil
}
