package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/users"
	"github.com/numenhq/numen/mnp/simnet"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
)

const configUsage = `Usage: numen config check FILE

Checks a config file of numen serve --config without starting anything, and
reports every problem in one run, one per line, in the order of the file:

  FILE:LINE:COLUMN: SETTING: MESSAGE
  numen.json:14:9: routes[2].backends[0].type: "carrier-pigeon" is not remote, portdb, enum or simnet

SETTING is the key's path in the file. Checked: the JSON itself (a file cut
short says so), unknown settings (with the nearest known name), settings
given twice, values of the wrong kind or out of range, what the settings say
of each other (routes of the coverage data with backends of their kind,
routing maps naming only routes that have backends, prices of known routes,
accounts), the files and directories they name, and, with the numbering plan
(--plan, --overlay and the file's plan and overlays), the routing maps' rules
and the ENUM server's settings, as numen serve would build them. Nothing is
listened on, created or written; providers are not contacted and
environment variables (secrets_env, database_env) are not read.

Exit status 0 with a one-line summary when the file is good, 1 with its
problems on standard error otherwise, 2 for usage errors.
`

func (c *cli) config(args []string) int {
	if len(args) == 0 {
		return c.usageError("config", "missing subcommand: check")
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "check":
		return c.configCheck(rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(c.stdout, configUsage)
		return exitOK
	default:
		return c.usageError("config", "unknown subcommand %q: want check", sub)
	}
}

func (c *cli) configCheck(args []string) int {
	fs := newFlagSet("config check")
	rest, code, ok := c.parseInterleaved(fs, "config", configUsage, args)
	if !ok {
		return code
	}
	if len(rest) != 1 {
		return c.usageError("config", "check takes one FILE, not %d", len(rest))
	}
	path := rest[0]
	cfg, d, err := readConfig(path)
	if err == nil && len(d.problems) == 0 {
		// Only a file without other problems is built: the plan's
		// messages about rules would repeat them otherwise.
		c.checkBuild(cfg, d)
	}
	var ce *configError
	switch {
	case err == nil && len(d.problems) > 0:
		ce = d.err()
		ce.File = path
	case errors.As(err, &ce):
	case err != nil:
		fmt.Fprintf(c.stderr, "numen config check: %s\n", pathError(err))
		return exitError
	}
	if ce != nil {
		fmt.Fprintln(c.stderr, ce.Error())
		fmt.Fprintf(c.stderr, "numen config check: %s: "+plural(len(ce.Problems), "%d problem", "%d problems")+"\n", path, len(ce.Problems))
		return exitError
	}
	fmt.Fprintf(c.stdout, "%s: ok: %s\n", path, configSummary(cfg))
	return exitOK
}

// configSummary says in one line what a good config serves.
func configSummary(cfg *serveConfig) string {
	var routes []string
	for _, r := range cfg.Routes {
		routes = append(routes, r.Route)
	}
	parts := []string{fmt.Sprintf("listens on %s", cmpOr(cfg.Addr, "127.0.0.1:8080"))}
	if cfg.Enum != nil && cfg.Enum.Listen != "" {
		parts = append(parts, "ENUM on "+cfg.Enum.Listen)
	}
	switch {
	case cfg.Database != "":
		parts = append(parts, "results in "+redactURL(cfg.Database))
	case cfg.DatabaseEnv != "":
		parts = append(parts, "results in the database of $"+cfg.DatabaseEnv)
	default:
		parts = append(parts, "results in "+cmpOr(cfg.Data, "numen-data"))
	}
	if len(routes) > 0 {
		parts = append(parts, fmt.Sprintf(plural(len(routes), "%d route", "%d routes")+" with backends (%s)", len(routes), strings.Join(routes, ", ")))
	} else {
		parts = append(parts, "no route with backends (NT lookups only)")
	}
	if sim := simulatedRoutes(cfg); len(sim) > 0 {
		parts = append(parts, fmt.Sprintf("SIMULATOR on %s", strings.Join(sim, ", ")))
	}
	accounts := fmt.Sprintf(plural(len(cfg.Accounts), "%d account", "%d accounts"), len(cfg.Accounts))
	limited := 0
	for _, a := range cfg.Accounts {
		if !a.Balance.limits().None() {
			limited++
		}
	}
	if limited > 0 {
		accounts += fmt.Sprintf(" (%d with spending limits)", limited)
	}
	parts = append(parts, accounts)
	if d, err := configReportUsers(cfg); err == nil && d != nil {
		parts = append(parts, fmt.Sprintf(plural(d.Len(), "%d report user", "%d report users"), d.Len()))
	}
	return strings.Join(parts, "; ")
}

// configReportUsers reads the config's report users, the config's and its
// users file's, as numen serve does, against the config's API keys.
func configReportUsers(cfg *serveConfig) (*users.Directory, error) {
	keys := map[string]*account.Account{}
	for _, a := range cfg.Accounts {
		keys[a.Key] = &account.Account{Key: a.Key}
	}
	return reportUsersOf(cfg, keys)
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// checkBuild builds what numen serve builds from cfg with the numbering
// plan, without backends or sockets: the engine's routing (coverage,
// platform map, a stand-in backend for each configured route), each
// account's routing map, the ENUM server. Its problems go to d.
func (c *cli) checkBuild(cfg *serveConfig, d *configDecoder) {
	plan, err := c.plan(cfg.Plan, cfg.Overlays...)
	if err != nil {
		at := "plan"
		if cfg.Plan == "" && c.planFile == "" {
			at = "overlays"
		}
		d.report("%s: %v", at, err)
		return
	}
	checkWithPlan(cfg, plan, true, d.report)
}

// checkWithPlan is checkBuild's work with the plan loaded. openFiles says
// whether the ENUM server's portability database is opened too (numen
// config check), or only its settings are checked (numen serve, which
// opens it once, later). Routes that are not HLR or MNP routes of the
// coverage data are left to the checks that name them.
func checkWithPlan(cfg *serveConfig, plan *numbering.Plan, openFiles bool, report func(string, ...any)) {
	var err error
	if cfg.UsersFile != "" {
		// The users file, read as serve reads it: a file that cannot be
		// read or names an unknown account fails the start.
		if _, err := configReportUsers(cfg); err != nil {
			report("users_file: %v", err)
		}
	}
	opts := engine.Options{Plan: plan}
	if cfg.Coverage != "" {
		raw, err := os.ReadFile(cfg.Coverage)
		if err != nil {
			return // checkReferences reported it
		}
		if opts.Coverage, err = routing.ParseCoverage(raw); err != nil {
			return
		}
	} else if opts.Coverage, err = routing.DefaultCoverage(); err != nil {
		report("coverage: %v", err)
		return
	}
	products := map[string]routing.Product{}
	for _, r := range opts.Coverage.Routes {
		products[r.ID] = r.Product
	}
	if cfg.PlatformMap != "" {
		raw, err := os.ReadFile(cfg.PlatformMap)
		if err != nil {
			return
		}
		if opts.PlatformMap, err = routing.ParseMap(raw); err != nil {
			return
		}
	}
	// Every configured backend stands in as a simulator: never asked,
	// what matters is which routes have backends.
	standIn := simnet.New(plan)
	for _, r := range cfg.Routes {
		if p := products[r.Route]; p != routing.HLR && p != routing.MNP {
			continue
		}
		rb := engine.RouteBackends{Route: r.Route}
		for _, b := range r.Backends {
			if products[r.Route] == routing.MNP {
				rb.Portability = append(rb.Portability, engine.Portability{Name: b.Name, Backend: standIn})
			} else {
				rb.HLR = append(rb.HLR, engine.HLR{Name: b.Name, Backend: standIn})
			}
		}
		opts.Backends = append(opts.Backends, rb)
	}
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	eng, err := engine.New(opts)
	if err != nil {
		at := "routes"
		if cfg.PlatformMap != "" {
			at = "platform_map"
		}
		report("%s: %s", at, strings.TrimPrefix(err.Error(), "engine: "))
		return
	}
	for i, ac := range cfg.Accounts {
		at := fmt.Sprintf("accounts[%d]", i)
		var m *routing.Map
		switch {
		case len(ac.RoutingMap) > 0:
			m, _ = routing.ParseMap(ac.RoutingMap)
			at += ".routing_map"
		case ac.RoutingMapFile != "":
			raw, err := os.ReadFile(ac.RoutingMapFile)
			if err != nil {
				continue
			}
			m, _ = routing.ParseMap(raw)
			at += ".routing_map_file: " + ac.RoutingMapFile
		}
		if m == nil {
			continue
		}
		_, err := eng.NewProfile(engine.ProfileOptions{Key: ac.Key, Map: m})
		var me *routing.MapError
		switch {
		case errors.As(err, &me) && !strings.Contains(at, ":"):
			// Each rule's problem at the rule: "prefixes[0].cns "+49x": ...".
			for _, p := range me.Problems {
				rule, msg, _ := strings.Cut(p, " ")
				report("%s.%s: %s", at, rule, msg)
			}
		case errors.As(err, &me):
			for _, p := range me.Problems {
				report("%s: %s", at, p)
			}
		case err != nil:
			report("%s: %v", at, err)
		}
	}
	if cfg.Enum != nil {
		e := *cfg.Enum
		if !openFiles {
			e.Portdb, e.PortdbDeltas = "", ""
		}
		pd := &portdbSet{}
		_, closers, err := buildEnum(&e, plan, pd, opts.Logger)
		for _, c := range closers {
			_ = c()
		}
		if err != nil {
			report("%v", err)
		}
	}
}
