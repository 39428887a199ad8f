package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/numenhq/numen/routing"
)

// checkReferences checks what a config's settings say of each other and of
// the files they name, after its paths are made relative to its
// directory: the files exist, the routes are routes of the coverage data
// with backends of their product, the routing maps (inline and files)
// read and name only routes that have backends, prices name known routes.
// Each problem goes to bad as "PATH: MESSAGE", as checkConfig's.
func checkReferences(cfg *serveConfig, d *configDecoder, bad func(string, ...any)) {
	exists := func(at, path string, dir bool) bool {
		if path == "" {
			return false
		}
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			bad("%s: %s", at, pathError(err))
			return false
		case dir && !fi.IsDir():
			bad("%s: %s is not a directory", at, path)
			return false
		case !dir && fi.IsDir():
			bad("%s: %s is a directory, not a file", at, path)
			return false
		}
		return true
	}
	exists("plan", cfg.Plan, false)
	for i, o := range cfg.Overlays {
		exists(fmt.Sprintf("overlays[%d]", i), o, false)
	}
	exists("wasm", cfg.Wasm, true)
	if cfg.Enum != nil {
		exists("enum.portdb", cfg.Enum.Portdb, false)
		exists("enum.portdb_deltas", cfg.Enum.PortdbDeltas, true)
	}

	cov, err := routing.DefaultCoverage()
	if cfg.Coverage != "" && exists("coverage", cfg.Coverage, false) {
		raw, rerr := os.ReadFile(cfg.Coverage)
		if rerr == nil {
			cov, err = routing.ParseCoverage(raw)
		} else {
			err = rerr
		}
		if err != nil {
			bad("coverage: %s: %v", cfg.Coverage, err)
		}
	}
	if err != nil || cov == nil {
		return // the routes cannot be checked without the coverage data
	}
	products := map[string]routing.Product{}
	var names []string
	for _, r := range cov.Routes {
		products[r.ID] = r.Product
		names = append(names, r.ID)
	}
	known := strings.Join(names, ", ")
	served := map[string]bool{}
	for i, r := range cfg.Routes {
		at := fmt.Sprintf("routes[%d]", i)
		product, ok := products[r.Route]
		switch {
		case len(r.Route) != 3:
			continue // checkConfig's
		case !ok:
			bad("%s.route: %q is not a route of the coverage data (%s)", at, r.Route, known)
			continue
		case product == routing.NT:
			bad("%s.route: %s is an NT route, which the numbering plan answers; it takes no backends", at, r.Route)
			continue
		}
		for j, b := range r.Backends {
			if (b.Type == "portdb" || b.Type == "enum") && product != routing.MNP {
				bad("%s.backends[%d].type: a %s backend answers MNP routes; %s is an %s route", at, j, b.Type, r.Route, product)
			}
			if b.Type == "portdb" {
				exists(fmt.Sprintf("%s.backends[%d].file", at, j), b.File, false)
				exists(fmt.Sprintf("%s.backends[%d].deltas", at, j), b.Deltas, true)
			}
		}
		if len(r.Backends) > 0 {
			served[r.Route] = true
		}
	}
	// A rule's route: a route of the coverage data with backends, or
	// REJECT. emit gets the rule's path in the map and the problem.
	checkMap := func(m *routing.Map, emit func(rule, msg string)) {
		rule := func(at, route string) {
			product, ok := products[route]
			switch {
			case route == "" || route == routing.RejectRoute:
			case !ok:
				emit(at, fmt.Sprintf("%q is not a route of the coverage data (%s)", route, known))
			case product != routing.NT && !served[route]:
				emit(at, fmt.Sprintf("%q: the %s route has no backend (add it to routes, or route elsewhere)", route, product))
			}
		}
		rule("defaultRoute", m.DefaultRoute)
		for i, r := range m.MCCMNCs {
			rule(fmt.Sprintf("mccmncs[%d].route", i), r.Route)
		}
		for i, r := range m.Prefixes {
			rule(fmt.Sprintf("prefixes[%d].route", i), r.Route)
		}
		for i, r := range m.Countries {
			rule(fmt.Sprintf("countries[%d].route", i), r.Route)
		}
		if m.MNPFallback && !slices.ContainsFunc(cfg.Routes, func(r routeConfig) bool { return served[r.Route] && products[r.Route] == routing.MNP }) {
			emit("mnpFallback", "no MNP route has a backend to fall back to")
		}
	}
	// A map in a file: its problems are the setting's, naming the file
	// and the rule (ParseMap names lines and columns of the file).
	checkMapFile := func(at, path string) {
		if !exists(at, path, false) {
			return
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			bad("%s: %s", at, pathError(err))
			return
		}
		m, err := routing.ParseMap(raw)
		if err != nil {
			bad("%s: %s: %v", at, path, err)
			return
		}
		checkMap(m, func(rule, msg string) { bad("%s: %s: %s: %s", at, path, rule, msg) })
	}
	checkMapFile("platform_map", cfg.PlatformMap)
	for i, a := range cfg.Accounts {
		at := fmt.Sprintf("accounts[%d]", i)
		switch {
		case len(a.RoutingMap) > 0:
			m, err := routing.ParseMap(a.RoutingMap)
			if err != nil {
				// ParseMap counts lines and columns from the map's
				// opening brace: make them the file's.
				off, msg := d.placeOf(at+".routing_map"), strings.TrimPrefix(err.Error(), "routing map: ")
				if m := regexp.MustCompile(mapErrorPlace).FindStringSubmatch(msg); m != nil {
					line, _ := strconv.Atoi(m[1])
					col, _ := strconv.Atoi(m[2])
					off, msg = offsetAt(d.raw, d.values[at+".routing_map"], line, col), strings.TrimPrefix(msg, m[0])
				}
				d.problems = append(d.problems, pathProblem{off, at + ".routing_map", msg})
				continue
			}
			checkMap(m, func(rule, msg string) { bad("%s.routing_map.%s: %s", at, rule, msg) })
		case a.RoutingMapFile != "":
			checkMapFile(at+".routing_map_file", a.RoutingMapFile)
		}
		if a.Prices != nil {
			for route := range a.Prices.Routes {
				if _, ok := products[route]; !ok {
					bad("%s.prices.routes.%s: %q is not a route of the coverage data (%s)", at, route, route, known)
				}
			}
		}
	}
	if cfg.Prices != nil {
		for route := range cfg.Prices.Routes {
			if _, ok := products[route]; !ok {
				bad("prices.routes.%s: %q is not a route of the coverage data (%s)", route, route, known)
			}
		}
	}
}

// mapErrorPlace matches the place routing.ParseMap names in its errors
// (compiled where a map has an error, not at every command's start).
const mapErrorPlace = `^line (\d+), column (\d+): `

// offsetAt returns the offset of line and column (from 1, in bytes) of
// the text that starts at off in raw.
func offsetAt(raw []byte, off, line, col int) int {
	for line > 1 && off < len(raw) {
		if raw[off] == '\n' {
			line--
		}
		off++
	}
	return min(off+col-1, len(raw))
}

// pathError is a file's error without Go's "stat " or "open " prefix.
func pathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}
