package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExampleConfigLoads(t *testing.T) {
	t.Parallel()
	cfg, err := loadConfig("numen.example.json")
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:8080", cfg.Addr)
	require.Equal(t, "numen-data", cfg.Data, "relative to the file's directory")
	require.Len(t, cfg.Routes, 4)
	require.Len(t, cfg.Accounts, 1)
	require.Equal(t, "0.0090", cfg.Accounts[0].Prices.HLR.String())
	require.Equal(t, "127.0.0.1:5353", cfg.Enum.Listen)
	require.Equal(t, "+491760", cfg.Enum.RN["26203"])
}

func TestConfigProblems(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ config, msg string }{
		{`{"adr": "x"}`, `unknown setting "adr"`},
		{`{"addr": 8080}`, "addr: want string, got number"},
		{`{"addr": "x",}`, "line 1: invalid character '}' looking for beginning of object key string"},
		{`{} {}`, "data after the JSON object"},
		{`{"request_timeout": "soon"}`, `"soon" is not a duration such as "30s" or "1h"`},
		{`{"trusted_proxies": ["10.0.0.0"]}`, `trusted_proxies[0]: "10.0.0.0" is not a CIDR such as 10.0.0.0/8`},
		{`{"routes": [{"route": "GT", "backends": []}]}`, `routes[0].route: "GT": a route is 3 characters; routes[0].backends: at least one backend is required`},
		{`{"routes": [{"route": "GT1", "backends": [{"type": "carrier-pigeon"}]}]}`, `routes[0].backends[0].type: "carrier-pigeon" is not remote, portdb, enum or simnet`},
		{`{"routes": [{"route": "GT1", "backends": [{}]}]}`, `routes[0].backends[0].type: is required (remote, portdb, enum or simnet)`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum"}]}]}`, `routes[0].backends[0].servers: at least one server (host:port) is required for an enum backend`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum", "servers": ["127.0.0.1:53", "127.0.0.1:"]}]}]}`, `routes[0].backends[0].servers[1]: "127.0.0.1:" is not host:port or host`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum", "servers": ["::1"], "suffix": "e164..arpa"}]}]}`, `routes[0].backends[0].suffix: suffix "e164..arpa" is not a domain name`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum", "servers": ["::1"], "udp_size": 100}]}]}`, `routes[0].backends[0].udp_size: UDP size 100 is not between 512 and 65535`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum", "servers": ["::1"], "routing_numbers": {"D262": "262"}}]}]}`, `routes[0].backends[0].routing_numbers: routing number "D262": MCCMNC "262" is not 5 or 6 digits`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum", "servers": ["::1"], "cache_entries": -1}]}]}`, `routes[0].backends[0].cache_entries: must not be negative`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "enum", "servers": ["::1"], "timeout": "-1s"}]}]}`, `"-1s" is not a duration`},
		{`{"routes": [{"route": "GT1", "backends": [{"type": "remote", "url": "ftp://x"}]}]}`, `routes[0].backends[0].url: "ftp://x" is not an http or https URL; routes[0].backends[0].key: is required for a remote backend; routes[0].backends[0]: give secret or secret_env (one of them) for a remote backend`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "portdb"}]}]}`, `routes[0].backends[0].file: is required for a portdb backend`},
		{`{"routes": [{"route": "MP1", "backends": [{"type": "portdb", "file": "p.db", "reload": "-1s"}]}]}`, `"-1s" is not a duration`},
		{`{"routes": [{"route": "GT1", "backends": [{"type": "simnet", "failure_rate": 2}]}]}`, `routes[0].backends[0].failure_rate: 2 is not between 0 and 1`},
		{`{"routes": [{"route": "GT1", "backends": [{"type": "simnet"}]}, {"route": "GT1", "backends": [{"type": "simnet"}]}]}`, `routes[1].route: GT1 is configured twice`},
		{`{"accounts": [{"secrets": ["0123456789abcdef"]}]}`, `accounts[0].key: is required`},
		{`{"accounts": [{"key": "a"}]}`, `accounts[0]: secrets or secrets_env: at least one secret is required`},
		{`{"accounts": [{"key": "a", "secrets": ["short"]}]}`, `accounts[0].secrets[0]: at least 16 characters`},
		{`{"accounts": [{"key": "a", "secrets": ["0123456789abcdef"]}, {"key": "a", "secrets": ["0123456789abcdef"]}]}`, `accounts[1].key: "a" is configured twice`},
		{`{"accounts": [{"key": "a", "secrets": ["0123456789abcdef"], "whitelist": ["localhost"]}]}`, `accounts[0].whitelist[0]: "localhost" is not an address or CIDR`},
		{`{"accounts": [{"key": "a", "secrets": ["0123456789abcdef"], "webhook_urls": ["127.0.0.1:9/x"]}]}`, `accounts[0].webhook_urls[0]: "127.0.0.1:9/x" is not an http or https URL`},
		{`{"accounts": [{"key": "a", "secrets": ["0123456789abcdef"], "routing_map": {}, "routing_map_file": "m.json"}]}`, `accounts[0]: routing_map and routing_map_file: give one, not both`},
		{`{"accounts": [{"key": "a", "secrets": ["0123456789abcdef"], "rate_limit": {"per_second": 0}}]}`, `accounts[0].rate_limit: per_second must be positive and burst not negative`},
		{`{"results_log_retention_bytes": -1}`, `results_log_retention_bytes: must not be negative`},
		{`{"max_connections_per_address": -1, "max_idle_connections_per_address": -2}`, `max_connections_per_address: must not be negative; max_idle_connections_per_address: must not be negative`},
		{`{"idle_timeout": "1s"}`, `idle_timeout_under_pressure: 5s is longer than idle_timeout (1s)`},
		{`{"idle_timeout_under_pressure": "3m"}`, `idle_timeout_under_pressure: 3m0s is longer than idle_timeout (2m0s)`},
		{`{"max_conections_per_address": 5}`, `unknown setting "max_conections_per_address"`},
		{`{"prices": {"HLR": "0.00001"}}`, `amount "0.00001": want a decimal such as 0.0125, with at most 4 decimals`},
	} {
		_, err := parseConfig([]byte(tc.config))
		require.Error(t, err, tc.config)
		require.Contains(t, err.Error(), tc.msg, tc.config)
	}
}

func TestLoadConfigNamesTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "numen.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"adr": 1}`), 0o600))
	_, err := loadConfig(path)
	require.Error(t, err)
	require.True(t, strings.HasPrefix(err.Error(), path+": "), err.Error())
}
