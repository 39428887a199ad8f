package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/httpapi"
	"github.com/numenhq/numen/engine/store/stores"
	"github.com/numenhq/numen/engine/users"
	"github.com/numenhq/numen/mnp/enum"
	"github.com/numenhq/numen/numbering/textfmt/jsonpos"
	"github.com/numenhq/numen/routing"
)

// serveConfig is the file numen serve --config reads (numen.example.json
// documents every field). Unknown fields are errors, so that a misspelt
// setting never passes silently.
type serveConfig struct {
	// Addr is the listen address; --addr overrides it.
	Addr string `json:"addr"`
	// Data is the directory of the results database; --data overrides it.
	Data string `json:"data"`
	// Database is a PostgreSQL URL (postgres://...): the database that
	// several sidecars share, holding the results, reports and queue
	// instead of Data; --database overrides it. DatabaseEnv names an
	// environment variable that holds it instead (a URL with a password
	// stays out of the file).
	Database    string `json:"database"`
	DatabaseEnv string `json:"database_env"`
	// StartAnyway starts on a data directory whose database does not
	// match its results log, as numen data recover would, instead of
	// refusing (--start-anyway).
	StartAnyway bool `json:"start_anyway"`
	// ResultsLogRetention is how long segments of the results log are kept
	// once their results are in the database (default 24h): a backup of
	// numen.db no older, restored, is caught up from them.
	ResultsLogRetention *duration `json:"results_log_retention"`
	// ResultsLogRetentionBytes bounds the segments kept for the retention
	// (default 4 GiB); past it the oldest go.
	ResultsLogRetentionBytes *int64 `json:"results_log_retention_bytes"`
	// TrustedProxies are the CIDRs whose X-Forwarded-For is believed.
	TrustedProxies []string `json:"trusted_proxies"`
	// MaxBodyBytes bounds request bodies.
	MaxBodyBytes int64 `json:"max_body_bytes"`
	// MaxBodyMemory bounds the buffers of all request bodies being read.
	MaxBodyMemory int64 `json:"max_body_memory"`
	// BodyTimeout bounds the time a request body takes to arrive.
	BodyTimeout duration `json:"body_timeout"`
	// MaxConnections bounds the open client connections: beyond it idle
	// ones are closed to make room, and when none is idle new ones are
	// refused. MaxConnectionsPerAddress and MaxIdleConnectionsPerAddress
	// bound one client address's (not a trusted proxy's), IdleTimeout how
	// long a connection may wait for its next request, and
	// IdleTimeoutUnderPressure the same while half or more of
	// MaxConnections are open (httpapi.ConnLimits).
	MaxConnections               int      `json:"max_connections"`
	MaxConnectionsPerAddress     int      `json:"max_connections_per_address"`
	MaxIdleConnectionsPerAddress int      `json:"max_idle_connections_per_address"`
	IdleTimeout                  duration `json:"idle_timeout"`
	IdleTimeoutUnderPressure     duration `json:"idle_timeout_under_pressure"`
	// RequestTimeout bounds one request, as a Go duration ("30s").
	RequestTimeout duration `json:"request_timeout"`
	// BackendTimeout bounds one backend call.
	BackendTimeout duration `json:"backend_timeout"`
	// Circuit is the circuit breaker of every backend (circuit.go).
	Circuit *circuitConfig `json:"circuit"`
	// Coverage and PlatformMap are files replacing the embedded routing data.
	Coverage    string `json:"coverage"`
	PlatformMap string `json:"platform_map"`
	// Plan is a numbering plan file to use instead of the built-in one
	// (numbering.Open); --plan overrides it.
	Plan string `json:"plan"`
	// Overlays are files of corrections and new ranges compiled over the
	// numbering plan (numbering.WithOverlayFile), after those of --overlay.
	Overlays []string `json:"overlays"`
	// Wasm is a browser package (go run ./wasm/build -o DIR) to serve at
	// /wasm/; --wasm overrides it.
	Wasm string `json:"wasm"`
	// Prices is the default price table.
	Prices *priceConfig `json:"prices"`
	// Cache sets the result cache lifetimes.
	Cache *cacheConfig `json:"cache"`
	// Routes lists the backends of each HLR and MNP route.
	Routes []routeConfig `json:"routes"`
	// Bulk tunes the bulk lookups and webhook deliveries.
	Bulk *bulkConfig `json:"bulk"`
	// Accounts are the API keys.
	Accounts []accountConfig `json:"accounts"`
	// Users, UsersFile and ReportSecretSignin are the report users
	// (users.go): those of the config (password hashes only), the users
	// file numen users writes, and whether the report pages still take
	// an API key and secret while there are users.
	Users              []users.User `json:"users"`
	UsersFile          string       `json:"users_file"`
	ReportSecretSignin bool         `json:"report_secret_signin"`
	// BalanceLeases sets the leases of the accounts' budgets on
	// PostgreSQL (balance.go, pgstore.WithLeases).
	BalanceLeases *balanceLeasesConfig `json:"balance_leases"`
	// Enum is the ENUM server (DNS NAPTR portability answers), run when
	// the section is present (its listen address, or --enum's, is then
	// required) or --enum is given.
	Enum *enumConfig `json:"enum"`

	// Set by --demo instead of files.
	coverage    *routing.Coverage
	platformMap *routing.Map
	demoWebhook string
}

type priceConfig struct {
	HLR    *engine.Money           `json:"HLR"`
	MNP    *engine.Money           `json:"MNP"`
	NT     *engine.Money           `json:"NT"`
	Routes map[string]engine.Money `json:"routes"`
}

type cacheConfig struct {
	HLR        duration `json:"hlr"`
	MNP        duration `json:"mnp"`
	MaxEntries int      `json:"max_entries"`
}

type routeConfig struct {
	Route    string          `json:"route"`
	Backends []backendConfig `json:"backends"`
}

// backendConfig is one backend of a route. Type selects the kind and which
// of the other fields apply.
type backendConfig struct {
	Type string `json:"type"` // "remote", "portdb", "enum" or "simnet"
	Name string `json:"name"`
	// Circuit overrides the top's circuit breaker for this backend.
	Circuit *circuitConfig `json:"circuit"`
	// remote: a provider speaking /api/v2
	URL           string `json:"url"`
	Key           string `json:"key"`
	Secret        string `json:"secret"`
	SecretEnv     string `json:"secret_env"`
	UpstreamRoute string `json:"upstream_route"`
	// portdb: a file built with numen portdb build, how often to look
	// for a new file renamed over it (default 10s), and a directory of
	// delta files (*.delta, numen portdb diff) applied on top of it
	File   string   `json:"file"`
	Reload duration `json:"reload"`
	Deltas string   `json:"deltas"`
	// enum: ENUM servers (DNS NAPTR, mnp/enum), asked in order; the tree
	// (default e164.arpa.), the timeout of one server (default 500ms), the
	// EDNS0 UDP size (default 1232), routing number prefix -> MCCMNC, and
	// the cache: entries (default 100000; 0 keeps none) and the longest
	// time an answer is kept (default and at most the engine's cache.mnp)
	Servers        []string          `json:"servers"`
	Suffix         string            `json:"suffix"`
	Timeout        duration          `json:"timeout"`
	UDPSize        int               `json:"udp_size"`
	RoutingNumbers map[string]string `json:"routing_numbers"`
	CacheEntries   *int              `json:"cache_entries"`
	MaxTTL         duration          `json:"max_ttl"`
	// simnet: the simulator
	Seed        uint64   `json:"seed"`
	Latency     duration `json:"latency"`
	FailureRate float64  `json:"failure_rate"`
}

type accountConfig struct {
	Key            string          `json:"key"`
	Secrets        []string        `json:"secrets"`
	SecretsEnv     []string        `json:"secrets_env"`
	Methods        []string        `json:"methods"`
	Whitelist      []string        `json:"whitelist"`
	WebhookURLs    []string        `json:"webhook_urls"`
	RoutingMap     json.RawMessage `json:"routing_map"`
	RoutingMapFile string          `json:"routing_map_file"`
	Prices         *priceConfig    `json:"prices"`
	RateLimit      *rateConfig     `json:"rate_limit"`
	LegacyNTKeys   bool            `json:"legacy_nt_keys"`
	Balance        *balanceConfig  `json:"balance"` // balance.go
}

type bulkConfig struct {
	LookupWorkers   int      `json:"lookup_workers"`
	Parallel        int      `json:"parallel"`
	DeliveryWorkers int      `json:"delivery_workers"`
	RescueAfter     duration `json:"rescue_after"`
	PollInterval    duration `json:"poll_interval"`
	DeliveryTimeout duration `json:"delivery_timeout"`
	// RetryMinute is the length of a "minute" of the retry schedule; only
	// for tests and demonstrations of the schedule (default 1m).
	RetryMinute duration `json:"retry_minute"`
}

type rateConfig struct {
	PerSecond float64 `json:"per_second"`
	Burst     int     `json:"burst"`
}

// duration reads a Go duration string such as "1h30m".
type duration time.Duration

// MarshalJSON writes the duration as UnmarshalJSON reads it.
func (d duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New(`want a duration string such as "30s"`)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not a duration such as \"30s\" or \"1h\"", s)
	}
	*d = duration(v)
	return nil
}

// loadConfig reads and checks a config file: every problem of the file
// (a *configError naming the file, each problem's line, column and key
// path), what its settings say of each other and of the files they name
// included (checkReferences). Relative paths in it are relative to the
// file's directory; a path starting with ~/ is in the home directory.
func loadConfig(path string) (*serveConfig, error) {
	cfg, d, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	if len(d.problems) > 0 {
		e := d.err()
		e.File = path
		return nil, e
	}
	return cfg, nil
}

// readConfig is loadConfig but for the problems it found, which are the
// decoder's.
func readConfig(path string) (*serveConfig, *configDecoder, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	cfg, d, cerr := decodeConfig(raw)
	if cerr != nil {
		cerr.File = path
		return nil, nil, cerr
	}
	dir := filepath.Dir(path)
	home, _ := os.UserHomeDir()
	rel := func(p *string) {
		switch {
		case *p == "":
		case home != "" && strings.HasPrefix(*p, "~/"):
			*p = filepath.Join(home, (*p)[2:])
		case !filepath.IsAbs(*p):
			*p = filepath.Join(dir, *p)
		}
	}
	rel(&cfg.Data)
	rel(&cfg.Coverage)
	rel(&cfg.PlatformMap)
	rel(&cfg.Plan)
	rel(&cfg.Wasm)
	for i := range cfg.Overlays {
		rel(&cfg.Overlays[i])
	}
	for i := range cfg.Routes {
		for j := range cfg.Routes[i].Backends {
			rel(&cfg.Routes[i].Backends[j].File)
			rel(&cfg.Routes[i].Backends[j].Deltas)
		}
	}
	for i := range cfg.Accounts {
		rel(&cfg.Accounts[i].RoutingMapFile)
	}
	rel(&cfg.UsersFile)
	if cfg.Enum != nil {
		rel(&cfg.Enum.Portdb)
		rel(&cfg.Enum.PortdbDeltas)
	}
	checkReferences(cfg, d, d.report)
	return cfg, d, nil
}

// parseConfig decodes a config strictly and checks what can be checked
// without loading data. Every problem is reported, each with its line,
// column and key path (a *configError); a file that is not JSON has one,
// where its JSON goes wrong.
func parseConfig(raw []byte) (*serveConfig, error) {
	cfg, d, cerr := decodeConfig(raw)
	if cerr != nil {
		return nil, cerr
	}
	if len(d.problems) > 0 {
		return nil, d.err()
	}
	return cfg, nil
}

// decodeConfig reads a config and checks its values (checkConfig). A file
// that is not JSON is an error; otherwise the decoder holds the problems
// found, and the config what could be read.
func decodeConfig(raw []byte) (*serveConfig, *configDecoder, *configError) {
	root, serr := readConfigJSON(raw)
	if serr != nil {
		return nil, nil, serr
	}
	d := &configDecoder{raw: raw, places: map[string]int{}, values: map[string]int{}}
	var cfg serveConfig
	if root.Kind != jsonpos.Object {
		d.bad(root.Off, "", "want a JSON object ({...}) at the top of the file, got %s", kindName(root.Kind))
	} else {
		d.decode(&root, "", reflect.ValueOf(&cfg).Elem())
	}
	// A setting of the wrong type is reported once, not again by the
	// checks of its (zero) value.
	d.typed = map[string]bool{}
	for _, p := range d.problems {
		d.typed[p.path] = true
	}
	checkConfig(&cfg, d.report)
	return &cfg, d, nil
}

// report records a problem of a check, "PATH: MESSAGE", at PATH's place
// in the file; not one at or below a setting of the wrong type.
func (d *configDecoder) report(format string, args ...any) {
	path, msg, ok := strings.Cut(fmt.Sprintf(format, args...), ": ")
	if !ok {
		path, msg = "", path
	}
	if !within(path, d.typed) {
		d.problems = append(d.problems, pathProblem{d.placeOf(path), path, msg})
	}
}

// err returns the decoder's problems in the order of the file.
func (d *configDecoder) err() *configError {
	slices.SortStableFunc(d.problems, func(a, b pathProblem) int { return cmp.Compare(a.off, b.off) })
	e := &configError{}
	for _, p := range d.problems {
		line, col := jsonpos.Position(d.raw, p.off)
		e.Problems = append(e.Problems, configProblem{Line: line, Col: col, Path: p.path, Msg: p.msg})
	}
	return e
}

// checkConfig checks the values of a decoded config that can be checked
// without loading data. Each problem goes to bad as "PATH: MESSAGE", PATH
// the setting's key path.
func checkConfig(cfg *serveConfig, bad func(string, ...any)) {
	for i, p := range cfg.TrustedProxies {
		if _, err := netip.ParsePrefix(p); err != nil {
			bad("trusted_proxies[%d]: %q is not a CIDR such as 10.0.0.0/8", i, p)
		}
	}
	if b := cfg.Bulk; b != nil && (b.LookupWorkers < 0 || b.Parallel < 0 || b.DeliveryWorkers < 0) {
		bad("bulk: worker counts must not be negative")
	}
	if cfg.MaxBodyBytes < 0 {
		bad("max_body_bytes: must not be negative")
	}
	if cfg.MaxBodyMemory < 0 {
		bad("max_body_memory: must not be negative")
	}
	if cfg.MaxBodyMemory > 0 && cfg.MaxBodyMemory < max(cfg.MaxBodyBytes, 1<<20) {
		bad("max_body_memory: %d bytes is less than one body of max_body_bytes (%d)", cfg.MaxBodyMemory, max(cfg.MaxBodyBytes, 1<<20))
	}
	if cfg.BodyTimeout < 0 {
		bad("body_timeout: must not be negative")
	}
	if cfg.ResultsLogRetentionBytes != nil && *cfg.ResultsLogRetentionBytes < 0 {
		bad("results_log_retention_bytes: must not be negative")
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"max_connections", cfg.MaxConnections}, {"max_connections_per_address", cfg.MaxConnectionsPerAddress}, {"max_idle_connections_per_address", cfg.MaxIdleConnectionsPerAddress}} {
		if c.n < 0 {
			bad("%s: must not be negative", c.name)
		}
	}
	if idle, pressure := cmp.Or(time.Duration(cfg.IdleTimeout), defaultIdleTimeout), cmp.Or(time.Duration(cfg.IdleTimeoutUnderPressure), httpapi.DefaultPressureIdleTimeout); pressure > idle {
		if cfg.IdleTimeoutUnderPressure == 0 {
			bad("idle_timeout: %v is shorter than idle_timeout_under_pressure (default %v)", idle, pressure)
		} else {
			bad("idle_timeout_under_pressure: %v is longer than idle_timeout (%v)", pressure, idle)
		}
	}
	switch {
	case cfg.Database != "" && cfg.DatabaseEnv != "":
		bad("database_env: give database or database_env, not both")
	case cfg.Database != "" && !stores.IsURL(cfg.Database):
		bad("database: %q is not a postgres:// or postgresql:// URL", redactURL(cfg.Database))
	}
	if cfg.Enum != nil {
		checkEnum(cfg.Enum, bad)
	}
	cfg.BalanceLeases.check(cmp.Or(time.Duration(cfg.RequestTimeout), 30*time.Second), time.Duration(cfg.BackendTimeout), bad)
	checkCircuit("circuit", cfg.Circuit, bad)
	seenRoute := map[string]bool{}
	for i, r := range cfg.Routes {
		at := fmt.Sprintf("routes[%d]", i)
		switch {
		case len(r.Route) != 3:
			bad("%s.route: %q: a route is 3 characters", at, r.Route)
		case seenRoute[r.Route]:
			bad("%s.route: %s is configured twice", at, r.Route)
		}
		seenRoute[r.Route] = true
		if len(r.Backends) == 0 {
			bad("%s.backends: at least one backend is required", at)
		}
		for j, b := range r.Backends {
			checkBackend(fmt.Sprintf("%s.backends[%d]", at, j), b, bad)
			checkCircuit(fmt.Sprintf("%s.backends[%d].circuit", at, j), b.Circuit, bad)
		}
	}
	seenKey := map[string]bool{}
	for i, a := range cfg.Accounts {
		at := fmt.Sprintf("accounts[%d]", i)
		switch {
		case a.Key == "":
			bad("%s.key: is required", at)
		case seenKey[a.Key]:
			bad("%s.key: %q is configured twice", at, a.Key)
		}
		seenKey[a.Key] = true
		if len(a.Secrets)+len(a.SecretsEnv) == 0 {
			bad("%s.secrets: at least one secret is required (secrets or secrets_env)", at)
		}
		for j, s := range a.Secrets {
			if len(s) < 16 {
				bad("%s.secrets[%d]: at least 16 characters", at, j)
			}
		}
		for j, cidr := range a.Whitelist {
			if _, err := parseAddrOrPrefix(cidr); err != nil {
				bad("%s.whitelist[%d]: %q is not an address or CIDR", at, j, cidr)
			}
		}
		for j, u := range a.WebhookURLs {
			if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
				bad("%s.webhook_urls[%d]: %q is not an http or https URL", at, j, u)
			}
		}
		if len(a.RoutingMap) > 0 && a.RoutingMapFile != "" {
			bad("%s.routing_map_file: give routing_map or routing_map_file, not both", at)
		}
		if a.RateLimit != nil {
			checkRate(at+".rate_limit", a.RateLimit.PerSecond, a.RateLimit.Burst, bad)
		}
	}
	for i, a := range cfg.Accounts {
		if err := a.Balance.check(); err != nil {
			// One problem per line, each at its own setting.
			errs := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap()
			}
			for _, e := range errs {
				bad("accounts[%d].balance.%v", i, e)
			}
		}
	}
	checkUsers(cfg, seenKey, bad)
}

func checkBackend(at string, b backendConfig, bad func(string, ...any)) {
	if b.Deltas != "" && b.Type != "portdb" {
		bad("%s.deltas: is for a portdb backend", at)
	}
	switch b.Type {
	case "remote":
		if p, err := url.Parse(b.URL); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			bad("%s.url: %q is not an http or https URL", at, b.URL)
		}
		if b.Key == "" {
			bad("%s.key: is required for a remote backend", at)
		}
		if (b.Secret == "") == (b.SecretEnv == "") {
			bad("%s.secret: give secret or secret_env (one of them) for a remote backend", at)
		}
	case "portdb":
		if b.File == "" {
			bad("%s.file: is required for a portdb backend", at)
		}
	case "enum":
		checkENUMBackend(at, b, bad)
	case "simnet":
		if b.FailureRate < 0 || b.FailureRate > 1 {
			bad("%s.failure_rate: %g is not between 0 and 1", at, b.FailureRate)
		}
	case "":
		bad("%s.type: is required (remote, portdb, enum or simnet)", at)
	default:
		bad("%s.type: %q is not remote, portdb, enum or simnet", at, b.Type)
	}
}

// checkENUMBackend checks the settings of an enum backend one by one,
// with enum.New, so that each problem names its field.
func checkENUMBackend(at string, b backendConfig, bad func(string, ...any)) {
	check := func(field string, opts ...enum.Option) {
		if _, err := enum.New([]string{"127.0.0.1"}, opts...); err != nil {
			bad("%s.%s: %s", at, field, strings.TrimPrefix(err.Error(), "enum: "))
		}
	}
	if len(b.Servers) == 0 {
		bad("%s.servers: at least one server (host:port) is required for an enum backend", at)
	}
	for i, server := range b.Servers {
		if _, err := enum.New([]string{server}); err != nil {
			bad("%s.servers[%d]: %s", at, i, strings.TrimPrefix(err.Error(), "enum: servers[0]: "))
		}
	}
	if b.Suffix != "" {
		check("suffix", enum.WithSuffix(b.Suffix))
	}
	if b.UDPSize != 0 {
		check("udp_size", enum.WithUDPSize(b.UDPSize))
	}
	if b.RoutingNumbers != nil {
		check("routing_numbers", enum.WithRoutingNumbers(b.RoutingNumbers))
	}
	if b.CacheEntries != nil && *b.CacheEntries < 0 {
		bad("%s.cache_entries: must not be negative", at)
	}
}

// checkRate checks a rate limit's settings at at.
func checkRate(at string, perSecond float64, burst int, bad func(string, ...any)) {
	if perSecond <= 0 {
		bad("%s.per_second: must be positive", at)
	}
	if burst < 0 {
		bad("%s.burst: must not be negative", at)
	}
}

// parseAddrOrPrefix reads "203.0.113.7" or "203.0.113.0/24".
func parseAddrOrPrefix(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		return p.Masked(), err
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// redactURL returns a database URL with its password replaced, for
// messages.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
