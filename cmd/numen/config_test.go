package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/mnp/remote"
	"github.com/stretchr/testify/require"
)

func TestExampleConfigLoads(t *testing.T) {
	t.Parallel()
	cfg, err := loadConfig("numen.example.json")
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:8080", cfg.Addr)
	require.Len(t, cfg.Routes, 4)
	require.Len(t, cfg.Accounts, 1)
	require.Equal(t, "0.0090", cfg.Accounts[0].Prices.HLR.String())
	require.Equal(t, "250.0000", cfg.Accounts[0].Balance.MonthlyCap.String())
	require.True(t, cfg.Accounts[0].Balance.Prepaid)
	require.Equal(t, []topUpConfig{{ID: "example-welcome-credit", Amount: 1000000}}, cfg.Accounts[0].Balance.TopUps)
	require.Equal(t, &balanceLeasesConfig{Duration: duration(30 * time.Second), Grace: duration(2 * time.Minute)}, cfg.BalanceLeases)
	require.Equal(t, "127.0.0.1:8053", cfg.Enum.Listen)
	require.Equal(t, "+491760", cfg.Enum.RN["26203"])
}

// TestConfigProblems: each problem of a config is named with its line,
// column and key path, in words (never a Go type).
func TestConfigProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ config, msg string }{
		{`{"adr": "x"}`, `1:2: adr: unknown setting (did you mean "addr"?)`},
		{`{"addr": 8080}`, "1:10: addr: want a string, got a number"},
		{`{"routes": {"route": "GT1"}}`, "1:12: routes: want a list ([...]), got an object"},
		{`{"routes": ["GT1"]}`, "1:13: routes[0]: want an object ({...}), got a string"},
		{`{"max_connections": 1.5}`, "1:21: max_connections: want a whole number, got 1.5"},
		{`{"max_connections": 1e99}`, "1:21: max_connections: want a whole number, got 1e99"},
		{`{"max_body_bytes": 99999999999999999999}`, "1:20: max_body_bytes: 99999999999999999999 is too large"},
		{`{"routes": [{"route": "GT1", "backends": [{"type": "simnet", "seed": -1}]}]}`, "1:70: routes[0].backends[0].seed: -1: must not be negative"},
		{`{"start_anyway": "yes"}`, "1:18: start_anyway: want true or false, got a string"},
		{`{"addr": "x", "addr": "y"}`, "1:15: addr: given twice"},
		{`{"prices": {"routes": {"GT1": "1", "GT1": "2"}}}`, "1:36: prices.routes.GT1: given twice"},
		{`{"addr": "x",}`, "1:14: a comma before '}': remove the comma after the last member"},
		{`{"addr" "x"}`, `1:9: unexpected '"': want ':' after the key "addr"`},
		{`{addr: "x"}`, `1:2: unexpected 'a': want a key in quotes ("name")`},
		{`{"addr": "x"`, "1:13: the JSON ends before the '{' at line 1, column 1 is closed: it is cut short"},
		{"{\n  \"routes\": [\n    {\"route\": \"GT1\", \"backends\": [{\"type\": \"sim", "3:48: the JSON ends before the '{' at line 3, column 35 is closed: it is cut short"},
		{"{\n  \"trusted_proxies\": [\"10.0.0.0/8\",\n", "3:1: the JSON ends before the '[' at line 2, column 22 is closed: it is cut short"},
		{`{"start_anyway": tru`, "1:21: the JSON ends before the '{' at line 1, column 1 is closed: it is cut short"},
		{`nul`, "1:4: the JSON ends in the middle of a value: it is cut short"},
		{``, "1:1: the file is empty: want a JSON object ({...})"},
		{`[]`, "1:1: want a JSON object ({...}) at the top of the file, got a list"},
		{`{} {}`, "1:4: data after the JSON value"},
		{`{"request_timeout": "soon"}`, `1:21: request_timeout: "soon" is not a duration such as "30s" or "1h"`},
		{`{"request_timeout": 30}`, `1:21: request_timeout: want a duration string such as "30s"`},
		{`{"trusted_proxies": ["10.0.0.0"]}`, `1:22: trusted_proxies[0]: "10.0.0.0" is not a CIDR such as 10.0.0.0/8`},
		{`{"routes": [{"route": "GT", "backends": []}]}`, "1:14: routes[0].route: \"GT\": a route is 3 characters\n1:29: routes[0].backends: at least one backend is required"},
		{`{"routes": [{"route": "GT1", "backends": [{"type": "carrier-pigeon"}]}]}`, `1:44: routes[0].backends[0].type: "carrier-pigeon" is not remote, portdb, enum or simnet`},
		{`{"routes": [{"route": "GT1", "backends": [{}]}]}`, `1:43: routes[0].backends[0].type: is required (remote, portdb, enum or simnet)`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum"}]}]}`, `1:43: routes[0].backends[0].servers: at least one server (host:port) is required for an enum backend`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum", "servers": ["127.0.0.1:53", "127.0.0.1:"]}]}]}`, `1:88: routes[0].backends[0].servers[1]: "127.0.0.1:" is not host:port or host`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum", "servers": ["::1"], "suffix": "e164..arpa"}]}]}`, `1:80: routes[0].backends[0].suffix: suffix "e164..arpa" is not a domain name`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum", "servers": ["::1"], "udp_size": 100}]}]}`, `1:80: routes[0].backends[0].udp_size: UDP size 100 is not between 512 and 65535`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum", "servers": ["::1"], "routing_numbers": {"D262": "262"}}]}]}`, `1:80: routes[0].backends[0].routing_numbers: routing number "D262": MCCMNC "262" is not 5 or 6 digits`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum", "servers": ["::1"], "cache_entries": -1}]}]}`, `1:80: routes[0].backends[0].cache_entries: must not be negative`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum", "servers": ["::1"], "timeout": "-1s"}]}]}`, `1:91: routes[0].backends[0].timeout: "-1s" is not a duration such as "30s" or "1h"`},
		{`{"routes": [{"route": "GT1", "backends": [{"type": "remote", "url": "ftp://x"}]}]}`, "1:43: routes[0].backends[0].key: is required for a remote backend\n1:43: routes[0].backends[0].secret: give secret or secret_env (one of them) for a remote backend\n1:62: routes[0].backends[0].url: \"ftp://x\" is not an http or https URL"},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "portdb"}]}]}`, `1:43: routes[0].backends[0].file: is required for a portdb backend`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "portdb", "file": "p.db", "reload": "-1s"}]}]}`, `1:88: routes[0].backends[0].reload: "-1s" is not a duration such as "30s" or "1h"`},
		{`{"routes": [{"route": "GT1", "backends": [{"type": "simnet", "failure_rate": 2}]}]}`, `1:62: routes[0].backends[0].failure_rate: 2 is not between 0 and 1`},
		{`{"routes": [{"route": "GT1", "backends": [{"type": "simnet"}]}, {"route": "GT1", "backends": [{"type": "simnet"}]}]}`, `1:66: routes[1].route: GT1 is configured twice`},
		{`{"accounts": [{"secrets": ["0123456789abcdef"]}]}`, `1:15: accounts[0].key: is required`},
		{`{"accounts": [{"key": "a"}]}`, `1:15: accounts[0].secrets: at least one secret is required (secrets or secrets_env)`},
		{`{"accounts": [{"key": "a", "secrets": ["short"]}]}`, `1:40: accounts[0].secrets[0]: at least 16 characters`},
		{`{"accounts": [{"key": "a", "secrets": ["0123456789abcdef"]}, {"key": "a", "secrets": ["0123456789abcdef"]}]}`, `1:63: accounts[1].key: "a" is configured twice`},
		{`{"accounts": [{"key": "a", "secrets": ["0123456789abcdef"], "whitelist": ["localhost"]}]}`, `1:75: accounts[0].whitelist[0]: "localhost" is not an address or CIDR`},
		{`{"accounts": [{"key": "a", "secrets": ["0123456789abcdef"], "webhook_urls": ["127.0.0.1:9/x"]}]}`, `1:78: accounts[0].webhook_urls[0]: "127.0.0.1:9/x" is not an http or https URL`},
		{`{"accounts": [{"key": "a", "secrets": ["0123456789abcdef"], "routing_map": {}, "routing_map_file": "m.json"}]}`, `1:80: accounts[0].routing_map_file: give routing_map or routing_map_file, not both`},
		{`{"accounts": [{"key": "a", "secrets": ["0123456789abcdef"], "rate_limit": {"per_second": 0}}]}`, `1:76: accounts[0].rate_limit.per_second: must be positive`},
		{`{"results_log_retention_bytes": -1}`, `1:2: results_log_retention_bytes: must not be negative`},
		{`{"max_connections_per_address": -1, "max_idle_connections_per_address": -2}`, "1:2: max_connections_per_address: must not be negative\n1:37: max_idle_connections_per_address: must not be negative"},
		{`{"idle_timeout": "1s"}`, `1:2: idle_timeout: 1s is shorter than idle_timeout_under_pressure (default 5s)`},
		{`{"idle_timeout_under_pressure": "3m"}`, `1:2: idle_timeout_under_pressure: 3m0s is longer than idle_timeout (2m0s)`},
		{`{"database": "x", "database_env": "DB"}`, `1:19: database_env: give database or database_env, not both`},
		{`{"max_conections_per_address": 5}`, `1:2: max_conections_per_address: unknown setting (did you mean "max_connections_per_address"?)`},
		{`{"prices": {"HLR": "0.00001"}}`, `1:20: prices.HLR: amount "0.00001": 5 decimals: want at most 4, such as 0.0125`},
		{`{"prices": {"HLR": 0.01}}`, `1:20: prices.HLR: want a string, got a number`},
	} {
		_, err := parseConfig([]byte(tc.config))
		require.Error(t, err, tc.config)
		require.Equal(t, tc.msg, err.Error(), tc.config)
		require.NotContains(t, err.Error(), "main.", "a Go type in the message")
	}
}

// TestConfigAllProblemsAtOnce: a config with many mistakes gets them all in
// one run, in the order of the file, each with file, line, column and key
// path; a wrong type is reported once, not again by the checks of its value.
func TestConfigAllProblemsAtOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "config", "many-problems.json")
	_, err := loadConfig(path)
	require.Error(t, err)
	golden(t, "config/many-problems.golden", err.Error()+"\n")
}

func TestLoadConfigNamesTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "numen.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"adr": 1}`), 0o600))
	_, err := loadConfig(path)
	require.Error(t, err)
	require.Equal(t, path+`:1:2: adr: unknown setting (did you mean "addr"?)`, err.Error())
}

// TestConfigReferences: what settings say of each other and of the files
// they name is checked with the rest: routes of the coverage data with
// backends of their product, routing maps naming only routes with
// backends (a map's own mistakes at their place in the file), prices of
// known routes, files that exist.
func TestConfigReferences(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "config", "references.json")
	_, err := loadConfig(path)
	require.Error(t, err)
	golden(t, "config/references.golden", err.Error()+"\n")
}

// TestExampleConfigStarts: the example config starts as shipped (its enum
// and HTTP addresses aside, which the test takes free), every route
// answering from the simulator it names, with no failover and no warning;
// its data directory is outside the source tree.
func TestExampleConfigStarts(t *testing.T) {
	t.Parallel()
	cfg, err := loadConfig("numen.example.json")
	require.NoError(t, err)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	rel, err := filepath.Rel(root, cfg.Data)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(rel, ".."+string(filepath.Separator)), "data %s is in the source tree", cfg.Data)
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(home, ".local", "share", "numen", "example"), cfg.Data)

	cfg.Data, cfg.Addr, cfg.Enum.Listen = t.TempDir(), "127.0.0.1:0", "127.0.0.1:0"
	logs := &syncBuffer{}
	r := startServerLogging(t, cfg, false, logs)
	require.Contains(t, r.stdout.String(), "SIMULATOR: routes DS7, GT1, GT2, MP1 are answered by the simulator")
	c, err := remote.New(r.base, "acme", "acme-secret-0123456789")
	require.NoError(t, err)
	ctx := t.Context()
	for number, instruction := range map[string]string{
		"+4915123456789": "AUTO:DS7:CUSTOM_USER_PREFIX", // the account's +4915 rule
		"+16502530000":   "AUTO:GT2:CUSTOM_USER_COUNTRY",
	} {
		res, err := c.HLRLookup(ctx, number, nil)
		require.NoError(t, err)
		require.Equal(t, "COMPLETED", res.ProcessingStatus, number)
		require.Equal(t, instruction, res.RoutingInstruction, number)
	}
	res, err := c.MNPLookup(ctx, "+4915123456789", nil)
	require.NoError(t, err)
	require.Equal(t, "COMPLETED", res.ProcessingStatus)
	// The account's balance key: the welcome credit, less what the
	// lookups above were charged; its cap.
	code, body := signedCall(t, r.base, "acme", "acme-secret-0123456789", "GET", "/balance", "")
	require.Equal(t, 200, code, "%s", body)
	var b apiv2.Balance
	require.NoError(t, json.Unmarshal(body, &b))
	require.Equal(t, "250.0000", *b.MonthlyCap)
	spent, err := engine.ParseMoney(b.SpentThisMonth)
	require.NoError(t, err)
	require.Positive(t, spent)
	require.Equal(t, (1000000 - spent).String(), *b.Balance)
	require.NoError(t, r.stop())
	require.NotContains(t, logs.String(), "level=WARN")
	require.NotContains(t, logs.String(), "level=ERROR")
}
