package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/bulk"
	"github.com/numenhq/numen/engine/enumserver"
	"github.com/numenhq/numen/engine/httpapi"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/sqlitestore"
	"github.com/numenhq/numen/engine/store/stores"
	"github.com/numenhq/numen/engine/webhook"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
	"github.com/numenhq/numen/wasm/webpkg"
)

// Limits of the HTTP server that the configuration does not set.
const (
	// defaultIdleTimeout is idle_timeout when the file does not set it.
	defaultIdleTimeout = 2 * time.Minute
	// maxHeaderBytes bounds a request's header: the API's credentials and
	// headers fit in a few hundred bytes.
	maxHeaderBytes = 64 << 10
)

const serveUsage = `Usage: numen serve [--config FILE | --demo [--webhook URL]] [--addr HOST:PORT] [--enum HOST:PORT [--enum-portdb FILE]] [--data DIR | --database URL] [--start-anyway] [--wasm DIR]

Serves the lookup API under /api/v2 (see GET /api/v2/openapi.json), with
/healthz and /metrics beside it. Every lookup result is stored in the
results database (SQLite under --data, or PostgreSQL at --database) before
it is answered.

  --config FILE   accounts, backends, prices and limits: see
                  cmd/numen/numen.example.json, which documents every setting
                  (and runs as it is, on the simulator); every problem of
                  the file is reported at once, as numen config check FILE
                  reports them without starting
  --demo          run without a config: embedded routing data, one account
                  with a generated key and secret (printed at start), and the
                  SIMULATOR (package mnp/simnet) answering every HLR and MNP
                  lookup with invented data. Never for real use.
  --webhook URL   with --demo: the demo account's webhook URL, where the
                  results of bulk lookups (POST /hlr-lookups, /nt-lookups)
                  are delivered
  --addr          listen address (default 127.0.0.1:8080, or the config's)
  --enum          also answer ENUM queries (DNS NAPTR, UDP and TCP) on this
                  address: each number's current network from the
                  portability database and the numbering plan (default:
                  the config's enum.listen; see its "enum" settings)
  --enum-portdb FILE
                  the portability database (numen portdb build) the ENUM
                  server answers from (default: the config's enum.portdb,
                  else the routes' first portdb backend; the demo has none)
  --data          directory of the results database (default ./numen-data,
                  or the config's); created on first start
  --database URL  a PostgreSQL database (postgres://user@host/db) instead:
                  results, reports and the bulk queue, shared by every
                  numen serve given the same URL (default: the config's
                  database or database_env)
  --start-anyway  start on a data directory whose numen.db does not match its
                  results log (missing or empty database beside a log, a
                  missing segment, a damaged record) as "numen data recover"
                  would, keeping what the log still has, instead of refusing
                  with the problem named (default: the config's start_anyway)
  --log           log format: text or json (default text)
  --wasm DIR      serve the browser package in DIR (go run ./wasm/build -o DIR)
                  at /wasm/: module, plan, packs and demo page, unauthenticated;
                  its numbering data must be the server's

Overlays of corrections and new ranges (numen --overlay FILE serve ..., and
the config's "overlays") are compiled over the numbering plan at start; every
API answer names the data that made it in its Numen-Data-Version header.

The server stops on SIGINT or SIGTERM after finishing the requests in flight
(at most 30 s). On SIGHUP it looks at once for new portability database files
(a file renamed over a portdb backend's, new delta files in its "deltas"
directory), as it does every "reload" (10 s).
`

func (c *cli) serve(args []string) int {
	fs := newFlagSet("serve")
	configPath := fs.String("config", "", "")
	demo := fs.Bool("demo", false, "")
	addr := fs.String("addr", "", "")
	enumAddr := fs.String("enum", "", "")
	enumPortdb := fs.String("enum-portdb", "", "")
	dataDir := fs.String("data", "", "")
	database := fs.String("database", "", "")
	logFormat := fs.String("log", "text", "")
	webhookURL := fs.String("webhook", "", "")
	wasmDir := fs.String("wasm", "", "")
	startAnyway := fs.Bool("start-anyway", false, "")
	if code, ok := c.parseFlags(fs, "serve", serveUsage, args); !ok {
		return code
	}
	switch {
	case fs.NArg() > 0:
		return c.usageError("serve", "unexpected argument %q", fs.Arg(0))
	case *demo == (*configPath != ""):
		return c.usageError("serve", "give --config FILE or --demo (one of them)")
	case *logFormat != "text" && *logFormat != "json":
		return c.usageError("serve", "--log %q: want text or json", *logFormat)
	case *database != "" && !stores.IsURL(*database):
		return c.usageError("serve", "--database %q: want a postgres:// or postgresql:// URL", redactURL(*database))
	case *webhookURL != "" && !*demo:
		return c.usageError("serve", "--webhook is for --demo; with --config, set the accounts' webhook_urls")
	}
	var logger *slog.Logger
	if *logFormat == "json" {
		logger = slog.New(slog.NewJSONHandler(c.stderr, nil))
	} else {
		logger = slog.New(slog.NewTextHandler(c.stderr, nil))
	}
	var cfg *serveConfig
	if *demo {
		cfg = &serveConfig{}
		if *webhookURL != "" {
			if u, err := url.Parse(*webhookURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return c.usageError("serve", "--webhook %q: want an http or https URL", *webhookURL)
			}
			cfg.demoWebhook = *webhookURL
		}
	} else {
		var err error
		if cfg, err = loadConfig(*configPath); err != nil {
			var ce *configError
			if errors.As(err, &ce) {
				// One problem a line, as numen config check writes them.
				fmt.Fprintln(c.stderr, ce.Error())
				fmt.Fprintf(c.stderr, "numen serve: %s: "+plural(len(ce.Problems), "%d problem", "%d problems")+"; nothing was started\n", *configPath, len(ce.Problems))
				return exitError
			}
			fmt.Fprintf(c.stderr, "numen serve: %v\n", err)
			return exitError
		}
	}
	if *addr != "" {
		cfg.Addr = *addr
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:8080"
	}
	if *enumAddr != "" {
		if _, _, err := net.SplitHostPort(*enumAddr); err != nil {
			return c.usageError("serve", "--enum %q: want an address such as 127.0.0.1:5353", *enumAddr)
		}
		if cfg.Enum == nil {
			cfg.Enum = &enumConfig{}
		}
		cfg.Enum.Listen = *enumAddr
	}
	if *enumPortdb != "" {
		if cfg.Enum == nil {
			return c.usageError("serve", "--enum-portdb is for the ENUM server: give --enum HOST:PORT too")
		}
		cfg.Enum.Portdb = *enumPortdb
	}
	if cfg.Enum != nil && cfg.Enum.Listen == "" {
		fmt.Fprintln(c.stderr, "numen serve: enum.listen: is required to serve ENUM (or --enum HOST:PORT)")
		return exitError
	}
	if *dataDir != "" {
		cfg.Data = *dataDir
	}
	if cfg.Data == "" {
		cfg.Data = "numen-data"
	}
	if *database != "" {
		cfg.Database, cfg.DatabaseEnv = *database, ""
	}
	if cfg.DatabaseEnv != "" {
		if cfg.Database = os.Getenv(cfg.DatabaseEnv); !stores.IsURL(cfg.Database) {
			fmt.Fprintf(c.stderr, "numen serve: database_env: $%s is not a postgres:// or postgresql:// URL\n", cfg.DatabaseEnv)
			return exitError
		}
	}
	if *wasmDir != "" {
		cfg.Wasm = *wasmDir
	}
	if *startAnyway {
		cfg.StartAnyway = true
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := c.runServer(ctx, cfg, *demo, logger, nil); err != nil {
		fmt.Fprintf(c.stderr, "numen serve: %v\n", err)
		return exitError
	}
	return exitOK
}

// runServer builds everything from cfg and serves until ctx ends. ready,
// when not nil, receives the listener's address once it accepts.
//
// A start that fails leaves no new files: the listen addresses are taken
// first (a bad or busy address fails before anything is written), the
// demo's credentials are written once everything is built, and a data
// directory this start created is removed when it fails before serving.
func (c *cli) runServer(ctx context.Context, cfg *serveConfig, demo bool, logger *slog.Logger, ready chan<- string) (err error) {
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	serving := false
	defer func() {
		if !serving {
			ln.Close()
		}
	}()
	var enumPC net.PacketConn
	var enumLn net.Listener
	if cfg.Enum != nil && cfg.Enum.Listen != "" {
		if enumPC, enumLn, err = enumserver.Listen(cfg.Enum.Listen); err != nil {
			return fmt.Errorf("enum: %w", err)
		}
		defer func() {
			if !serving {
				enumPC.Close()
				enumLn.Close()
			}
		}()
	}
	if _, statErr := os.Stat(cfg.Data); errors.Is(statErr, fs.ErrNotExist) {
		// Registered first, so run last: after the store is closed.
		defer func() {
			if err != nil && !serving {
				_ = os.RemoveAll(cfg.Data)
			}
		}()
	}
	plan, err := c.plan(cfg.Plan, cfg.Overlays...)
	if err != nil {
		return fmt.Errorf("loading numbering data: %w", err)
	}
	if !demo {
		// What the plan says of the routing maps and the ENUM settings,
		// before the store writes anything.
		var problems []string
		checkWithPlan(cfg, plan, false, func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) })
		if len(problems) > 0 {
			return errors.New(strings.Join(problems, "\n"))
		}
	}
	var browser *webpkg.Package
	if cfg.Wasm != "" {
		if browser, err = openBrowserPackage(cfg.Wasm, plan, logger); err != nil {
			return err
		}
	}
	setting := cfg.Data
	if cfg.Database != "" {
		setting = cfg.Database
	}
	db, err := openStore(setting, cfg, logger)
	if err != nil {
		return err
	}
	defer db.Close()
	var demoKey, demoSecret string
	var saveDemo func() error
	if demo {
		if demoKey, demoSecret, saveDemo, err = demoAccount(cfg); err != nil {
			return err
		}
		if err := setUpDemo(cfg, plan); err != nil {
			return err
		}
	}
	built, err := buildServer(cfg, plan, db, logger)
	if err != nil {
		return err
	}
	defer built.close()
	var enum *runningEnum
	if cfg.Enum != nil && cfg.Enum.Listen != "" {
		es, closers, err := buildEnum(cfg.Enum, plan, &built.portdbs, logger)
		if err != nil {
			return err
		}
		built.closers = append(built.closers, closers...)
		registerEnumMetrics(built.metrics, es)
		enum = startEnum(es, enumPC, enumLn)
		// Stopped before the databases it reads are closed (built.close).
		defer func() {
			if enum != nil {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				_ = enum.stop(ctx)
			}
		}()
		logger.Info("ENUM server listening", "addr", enum.addr.String(), "suffix", es.Suffix(), "portability_database", portdbSource(cfg.Enum, built.portdbs.holders))
	}
	// SIGHUP: every portability database file is looked at now.
	built.portdbs.watchers.register(built.metrics)
	defer built.portdbs.watchers.handleSIGHUP()()
	handler := built.handler
	if browser != nil {
		mux := http.NewServeMux()
		mux.Handle("/wasm/", http.StripPrefix("/wasm", browser))
		mux.Handle("/", handler)
		handler = mux
	}
	// The server's memory is bounded by connections and what each may hold
	// (headers up to MaxHeaderBytes, bodies by max_body_memory). Idle
	// connections make room for new ones, and connections beyond the limits
	// are refused at once rather than left in the listen backlog, where
	// they would wait behind whoever holds the connections
	// (httpapi.ConnLimiter).
	limiter := httpapi.NewConnLimiter(ln, httpapi.ConnLimits{
		Max: cfg.MaxConnections, PerAddress: cfg.MaxConnectionsPerAddress, IdlePerAddress: cfg.MaxIdleConnectionsPerAddress,
		PressureIdleTimeout: time.Duration(cfg.IdleTimeoutUnderPressure), Proxies: built.proxies,
	}, built.metrics)
	idleTimeout := time.Duration(cfg.IdleTimeout)
	if idleTimeout == 0 {
		idleTimeout = defaultIdleTimeout
	}
	srv := &http.Server{
		Handler:        handler,
		MaxHeaderBytes: maxHeaderBytes,
		// A request header arrives whole within 10 s of the connection's
		// accept (of its first byte on a kept-alive connection) or the
		// connection closes: a slow loris holds a connection no longer, and
		// less under pressure, where a connection sending a header counts
		// as idle.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       idleTimeout,
		ConnState:         limiter.ConnState,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	ln = limiter
	base := "http://" + ln.Addr().String() + "/api/v2"
	where := cfg.Data
	if cfg.Database != "" {
		where = redactURL(cfg.Database)
	}
	if demo {
		if err := saveDemo(); err != nil {
			return err
		}
		if err := writeDemoEnv(cfg.Data, base, demoKey, demoSecret); err != nil {
			return err
		}
		envFile := filepath.Join(cfg.Data, demoEnv)
		fmt.Fprintf(c.stdout, `numen %s: DEMO MODE. HLR and MNP lookups are answered by a SIMULATOR
(mnp/simnet, routes SIM and SMP): connectivity, porting and roaming are invented.
Numbering (NT) answers are real. Results are stored in %s.

API:     %s
key:     %s
secret:  %s          (kept in %s: the same at every start)
reports: http://%s/reports   (sign in with the API key and secret)

Try, in another shell:
    set -a; . %s; set +a      # NUMEN_URL, NUMEN_KEY, NUMEN_SECRET
    go run ./cmd/numen call POST /hlr-lookup '{"msisdn":"+4915123456789"}'
`, programVersion(), where, base, demoKey, demoSecret, filepath.Join(cfg.Data, demoCredentials), ln.Addr(), envFile)
		if cfg.demoWebhook != "" {
			fmt.Fprintf(c.stdout, `
Bulk lookups deliver their results to %s:
    go run ./cmd/numen call POST /nt-lookups '{"numbers":["+4915123456789","+442079460000"]}'
`, cfg.demoWebhook)
		}
	} else {
		fmt.Fprintf(c.stdout, "numen %s: serving %s (%d accounts), results in %s\n", programVersion(), base, len(cfg.Accounts), where)
		if sim := simulatedRoutes(cfg); len(sim) > 0 {
			fmt.Fprintf(c.stdout, "SIMULATOR: routes %s are answered by the simulator (mnp/simnet, backends of type simnet), with invented data: replace them with your providers before real use.\n", strings.Join(sim, ", "))
		}
	}
	if enum != nil {
		fmt.Fprintf(c.stdout, "\nENUM:    %s (UDP and TCP), NAPTR records under %s:\n    kdig @%s -p %s %s NAPTR\n",
			enum.addr, enum.server.Suffix(), hostOf(enum.addr), portOf(enum.addr), enumExample(enum.server.Suffix()))
	}
	if browser != nil {
		fmt.Fprintf(c.stdout, "\nBrowser package (%s): http://%s/wasm/ (demo page), http://%s/wasm/numen.mjs\n", cfg.Wasm, ln.Addr(), ln.Addr())
	}
	errc := make(chan error, 1)
	serving = true
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready <- ln.Addr().String()
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: finishing requests in flight")
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if enum != nil {
		err := enum.stop(sctx)
		enum = nil
		if err != nil {
			return err
		}
	}
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// simulatedRoutes are the routes of cfg that have a simulator backend.
func simulatedRoutes(cfg *serveConfig) []string {
	var routes []string
	for _, r := range cfg.Routes {
		for _, b := range r.Backends {
			if b.Type == "simnet" {
				routes = append(routes, r.Route)
				break
			}
		}
	}
	return routes
}

// openBrowserPackage opens the browser package of --wasm and checks that
// it holds the server's numbering data, so that pages get the answers the
// API gives.
func openBrowserPackage(dir string, plan *numbering.Plan, logger *slog.Logger) (*webpkg.Package, error) {
	browser, err := webpkg.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("--wasm: %w", err)
	}
	have, want := browser.Data(), plan.Version()
	if have.Libphonenumber != want.Libphonenumber || have.Tables != want.Tables {
		return nil, fmt.Errorf("--wasm %s: its numbering data is libphonenumber %s + numen-data %s, the server's libphonenumber %s + numen-data %s; rebuild it with go run ./wasm/build -o %s (--plan FILE for the server's --plan)",
			dir, have.Libphonenumber, have.Tables, want.Libphonenumber, want.Tables, dir)
	}
	if want.Overlay != "" {
		logger.Warn("the browser package at /wasm/ answers without the server's overlays", "overlays", want.Overlay)
	}
	return browser, nil
}

// server is what buildServer makes: the handler and what to close after.
// The bulk queue is the adapter's BulkHandler.
var _ httpapi.BulkHandler = (*bulk.Bulk)(nil)

type server struct {
	handler http.Handler
	metrics *httpapi.Metrics
	proxies []netip.Prefix // trusted_proxies
	closers []func() error
	// portdbs are the portability databases: the routes' portdb
	// backends', and the watchers of every file (the ENUM server's too).
	portdbs portdbSet
}

func (s *server) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		_ = s.closers[i]()
	}
}

// buildServer wires the engine, its backends, the accounts and the HTTP
// adapter from a checked config.
func buildServer(cfg *serveConfig, plan *numbering.Plan, db store.Database, logger *slog.Logger) (*server, error) {
	s := &server{}
	opts := engine.Options{Plan: plan, Sink: db, BackendTimeout: time.Duration(cfg.BackendTimeout)}
	opts.Circuit, opts.Logger = cfg.Circuit.options(), logger
	var err error
	if cfg.coverage != nil {
		opts.Coverage = cfg.coverage
	} else if cfg.Coverage != "" {
		raw, err := os.ReadFile(cfg.Coverage)
		if err != nil {
			return nil, err
		}
		if opts.Coverage, err = routing.ParseCoverage(raw); err != nil {
			return nil, fmt.Errorf("coverage %s: %w", cfg.Coverage, err)
		}
	}
	if opts.Coverage == nil {
		if opts.Coverage, err = routing.DefaultCoverage(); err != nil {
			return nil, err
		}
	}
	products := map[string]routing.Product{}
	for _, r := range opts.Coverage.Routes {
		products[r.ID] = r.Product
	}
	if cfg.platformMap != nil {
		opts.PlatformMap = cfg.platformMap
	} else if cfg.PlatformMap != "" {
		raw, err := os.ReadFile(cfg.PlatformMap)
		if err != nil {
			return nil, err
		}
		if opts.PlatformMap, err = routing.ParseMap(raw); err != nil {
			return nil, fmt.Errorf("platform_map %s: %w", cfg.PlatformMap, err)
		}
	}
	if cfg.Prices != nil {
		p := pricesOf(cfg.Prices, engine.DefaultPrices)
		opts.Prices = &p
	}
	if cfg.Cache != nil {
		opts.Cache = engine.CacheOptions{HLR: time.Duration(cfg.Cache.HLR), MNP: time.Duration(cfg.Cache.MNP), MaxEntries: cfg.Cache.MaxEntries}
	}
	for i, r := range cfg.Routes {
		rb, closers, err := buildBackends(plan, products, r, fmt.Sprintf("routes[%d]", i), opts.Cache.MNP, logger, &s.portdbs)
		s.closers = append(s.closers, closers...)
		if err != nil {
			s.close()
			return nil, err
		}
		applyCircuits(&rb, r.Backends)
		opts.Backends = append(opts.Backends, rb)
	}
	eng, err := engine.New(opts)
	if err != nil {
		s.close()
		return nil, err
	}
	var trusted []netip.Prefix
	for _, p := range cfg.TrustedProxies {
		trusted = append(trusted, netip.MustParsePrefix(p)) // checked by parseConfig
	}
	var accounts []*account.Account
	for i, ac := range cfg.Accounts {
		a, err := buildAccount(eng, ac, opts.Prices)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("accounts[%d] (%s): %w", i, ac.Key, err)
		}
		accounts = append(accounts, a)
	}
	metrics := httpapi.NewMetrics()
	balances, err := applyBalances(context.Background(), db, metrics, cfg.Accounts, accounts)
	if err != nil {
		s.close()
		return nil, err
	}
	health := portdbHealth(opts.Backends, metrics, db.Ping)
	byKey := map[string]*account.Account{}
	for _, a := range accounts {
		byKey[a.Key] = a
	}
	reportUsers, err := reportUsersOf(cfg, byKey)
	if err != nil {
		s.close()
		return nil, err
	}
	bo := bulk.Options{
		Engine: eng, Store: db, Metrics: metrics, Logger: logger,
		Account: func(key string) (*account.Account, bool) { a, ok := byKey[key]; return a, ok },
	}
	if bc := cfg.Bulk; bc != nil {
		bo.LookupWorkers, bo.Parallel, bo.DeliveryWorkers = bc.LookupWorkers, bc.Parallel, bc.DeliveryWorkers
		bo.RescueAfter, bo.PollInterval = time.Duration(bc.RescueAfter), time.Duration(bc.PollInterval)
		bo.Minute = time.Duration(bc.RetryMinute)
		bo.Sender = &webhook.Sender{Timeout: time.Duration(bc.DeliveryTimeout), UserAgent: "numen/" + programVersion()}
	}
	if bo.Sender == nil {
		bo.Sender = &webhook.Sender{UserAgent: "numen/" + programVersion()}
	}
	bk, err := bulk.Open(context.Background(), bo)
	if err != nil {
		s.close()
		return nil, err
	}
	s.closers = append(s.closers, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return bk.Close(ctx)
	})
	// On PostgreSQL the nodes share the memory of digest signatures, so
	// that a request replayed to another node is refused; on SQLite (one
	// node) the handler keeps it in memory.
	var replays auth.ReplayGuard
	if shared, ok := db.(replaySharer); ok {
		replays = shared.ReplayGuard(auth.DefaultMaxSkew)
	}
	h, err := httpapi.New(httpapi.Config{
		Engine: eng, Accounts: accounts, TrustedProxies: trusted,
		MaxBodyBytes: cfg.MaxBodyBytes, MaxBodyMemory: cfg.MaxBodyMemory,
		BodyTimeout: time.Duration(cfg.BodyTimeout), RequestTimeout: time.Duration(cfg.RequestTimeout),
		Logger: logger, Health: health, Bulk: bk, Metrics: metrics, Store: db, Replays: replays,
		Users: reportUsers, SecretSignin: cfg.ReportSecretSignin,
		Balances: balances,
	})
	if err != nil {
		s.close()
		return nil, err
	}
	s.handler, s.metrics, s.proxies = h, metrics, trusted
	return s, nil
}

func pricesOf(pc *priceConfig, base engine.Prices) engine.Prices {
	p := base
	if pc.HLR != nil {
		p.HLR = *pc.HLR
	}
	if pc.MNP != nil {
		p.MNP = *pc.MNP
	}
	if pc.NT != nil {
		p.NT = *pc.NT
	}
	if pc.Routes != nil {
		p.Routes = pc.Routes
	}
	return p
}

func buildAccount(eng *engine.Engine, ac accountConfig, defaults *engine.Prices) (*account.Account, error) {
	secrets := append([]string(nil), ac.Secrets...)
	for _, name := range ac.SecretsEnv {
		v := os.Getenv(name)
		if v == "" {
			return nil, fmt.Errorf("secrets_env: environment variable %s is empty or not set", name)
		}
		secrets = append(secrets, v)
	}
	var m *routing.Map
	var err error
	switch {
	case len(ac.RoutingMap) > 0:
		if m, err = routing.ParseMap(ac.RoutingMap); err != nil {
			return nil, fmt.Errorf("routing_map: %w", err)
		}
	case ac.RoutingMapFile != "":
		raw, err := os.ReadFile(ac.RoutingMapFile)
		if err != nil {
			return nil, err
		}
		if m, err = routing.ParseMap(raw); err != nil {
			return nil, fmt.Errorf("routing_map_file %s: %w", ac.RoutingMapFile, err)
		}
	}
	var prices *engine.Prices
	if ac.Prices != nil {
		base := engine.DefaultPrices
		if defaults != nil {
			base = *defaults
		}
		p := pricesOf(ac.Prices, base)
		prices = &p
	}
	ea, err := eng.NewProfile(engine.ProfileOptions{Key: ac.Key, Map: m, Prices: prices})
	if err != nil {
		return nil, err
	}
	a := &account.Account{Key: ac.Key, Secrets: secrets, Methods: ac.Methods, WebhookURLs: ac.WebhookURLs, LegacyNTKeys: ac.LegacyNTKeys, Profile: ea}
	for _, w := range ac.Whitelist {
		p, _ := parseAddrOrPrefix(w) // checked by parseConfig
		a.Whitelist = append(a.Whitelist, p)
	}
	if ac.RateLimit != nil {
		a.RateLimit, a.RateBurst = ac.RateLimit.PerSecond, ac.RateLimit.Burst
	}
	return a, nil
}

// demoCredentials is the file, in the data directory, that keeps the demo
// account's key and secret, so that a restarted demo answers with the same
// account and its earlier reports stay visible.
const demoCredentials = "demo-account.json"

// demoEnv is the file, in the data directory, that a shell reads to talk
// to the demo: NUMEN_URL, NUMEN_KEY and NUMEN_SECRET (numen call reads
// them).
const demoEnv = "demo.env"

// demoAccount adds the demo's account to cfg: the key and secret kept in
// the data directory, or, at the first start, a key and secret drawn at
// random (so that a demo reachable from elsewhere is not open to all),
// which save writes there, readable by the owner only, once the server
// is ready to serve (a start that fails draws no key that stays).
func demoAccount(cfg *serveConfig) (key, secret string, save func() error, err error) {
	path := filepath.Join(cfg.Data, demoCredentials)
	save = func() error { return nil }
	var saved struct {
		Key    string `json:"key"`
		Secret string `json:"secret"`
	}
	switch b, err := os.ReadFile(path); {
	case err == nil:
		if err := json.Unmarshal(b, &saved); err != nil || !strings.HasPrefix(saved.Key, "demo-") || len(saved.Secret) < 32 {
			return "", "", nil, fmt.Errorf("%s: not the demo's credentials (want {\"key\": \"demo-...\", \"secret\": \"...\"}); remove it to draw new ones", path)
		}
		key, secret = saved.Key, saved.Secret
	case errors.Is(err, fs.ErrNotExist):
		var b [20]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", "", nil, err
		}
		key = "demo-" + hex.EncodeToString(b[:4])
		secret = hex.EncodeToString(b[4:])
		saved.Key, saved.Secret = key, secret
		out, err := json.MarshalIndent(saved, "", "  ")
		if err != nil {
			return "", "", nil, err
		}
		save = func() error {
			// The data directory holds the demo's files even when the
			// results are in PostgreSQL.
			if err := os.MkdirAll(cfg.Data, 0o700); err != nil {
				return fmt.Errorf("keeping the demo's credentials: %w", err)
			}
			if err := os.WriteFile(path, append(out, '\n'), 0o600); err != nil {
				return fmt.Errorf("keeping the demo's credentials: %w", err)
			}
			return nil
		}
	default:
		return "", "", nil, err
	}
	ac := accountConfig{Key: key, Secrets: []string{secret}}
	if cfg.demoWebhook != "" {
		ac.WebhookURLs = []string{cfg.demoWebhook}
	}
	cfg.Accounts = append(cfg.Accounts, ac)
	return key, secret, save, nil
}

// writeDemoEnv writes demoEnv for the demo at base, readable by the owner
// only.
func writeDemoEnv(dir, base, key, secret string) error {
	env := fmt.Sprintf("NUMEN_URL=%s\nNUMEN_KEY=%s\nNUMEN_SECRET=%s\n", base, key, secret)
	return os.WriteFile(filepath.Join(dir, demoEnv), []byte(env), 0o600)
}

// openStore opens the results database with cfg's options for the embedded
// store, and logs what its Open found in the results log and did.
func openStore(setting string, cfg *serveConfig, logger *slog.Logger) (store.Database, error) {
	var opts []sqlitestore.Option
	if cfg.StartAnyway {
		opts = append(opts, sqlitestore.WithStartAnyway())
	}
	if cfg.ResultsLogRetention != nil {
		opts = append(opts, sqlitestore.WithLogRetention(time.Duration(*cfg.ResultsLogRetention)))
	}
	if cfg.ResultsLogRetentionBytes != nil {
		opts = append(opts, sqlitestore.WithLogRetentionBytes(*cfg.ResultsLogRetentionBytes))
	}
	db, err := stores.Open(context.Background(), setting, append([]stores.Option{stores.WithLogger(logger), stores.WithSQLite(opts...)}, cfg.BalanceLeases.options()...)...)
	if err != nil {
		return nil, err
	}
	if s, ok := db.(*sqlitestore.Store); ok {
		r := s.Recovery()
		if r.Replayed > 0 {
			logger.Info("results log: committed its results past the database's position", "results", r.Replayed)
		}
		for _, m := range r.Repaired {
			logger.Warn("results log: damaged record repaired", "record", m)
		}
		for _, m := range r.Unfinished {
			logger.Info("results log: unfinished write cleared", "record", m)
		}
		for _, m := range r.Problems {
			logger.Error("started anyway: results lost", "problem", m)
		}
	}
	return db, nil
}

// replaySharer is a store that keeps the digest signatures' memory for
// every node sharing it (pgstore.Store).
type replaySharer interface {
	ReplayGuard(window time.Duration) auth.ReplayGuard
}
