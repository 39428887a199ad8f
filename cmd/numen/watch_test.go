package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/numenhq/numen/mnp/remote"
	"github.com/stretchr/testify/require"
)

// TestServeWatchesBackends runs numen serve with a dead first provider
// on DS7 (a remote backend dialling a closed loopback port), as the
// example config has one, ahead of a simulator: the first lookup logs
// that it is failing, the circuit opens after the configured failures
// (logged once), /metrics counts it and /healthz lists it as open while
// the route still answers. A backend's own circuit setting overrides the
// top's: GT1's dead provider has the breaker off and is never skipped.
func TestServeWatchesBackends(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String() + "/api/v2"
	require.NoError(t, ln.Close())
	const secret = "watch-secret-0123456789"
	two, off := 2, 0
	logs := &syncBuffer{}
	r := startServerLogging(t, &serveConfig{
		Circuit: &circuitConfig{Failures: &two, CoolDown: duration(3600e9)},
		Routes: []routeConfig{
			{Route: "DS7", Backends: []backendConfig{
				{Type: "remote", Name: "upstream-numen", URL: dead, Key: "k", Secret: "s"},
				{Type: "simnet", Name: "simulator", Seed: 7},
			}},
			{Route: "GT1", Backends: []backendConfig{
				{Type: "remote", Name: "dead-no-breaker", URL: dead, Key: "k", Secret: "s", Circuit: &circuitConfig{Failures: &off}},
				{Type: "simnet"},
			}},
			{Route: "GT2", Backends: []backendConfig{{Type: "simnet"}}},
			{Route: "MP1", Backends: []backendConfig{{Type: "simnet"}}},
		},
		Accounts: []accountConfig{{Key: "acct", Secrets: []string{secret}}},
	}, false, logs)
	c, err := remote.New(r.base, "acct", secret)
	require.NoError(t, err)
	for _, route := range []string{"DS7", "GT1"} {
		for range 4 {
			res, err := c.HLRLookup(t.Context(), "+4915123456789", &remote.LookupOptions{Route: route})
			require.NoError(t, err)
			require.Equal(t, "COMPLETED", res.ProcessingStatus)
			require.True(t, strings.HasSuffix(res.RoutingInstruction, ":FAILOVER-2"), res.RoutingInstruction)
		}
	}
	get := func(path string) (int, string) {
		resp, err := http.Get(strings.TrimSuffix(r.base, "/api/v2") + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}

	failing := regexp.MustCompile(`(?m)^.*level=WARN msg="backend failing.*$`).FindAllString(logs.String(), -1)
	require.Len(t, failing, 2, "one per dead backend:\n%s", logs.String())
	require.Contains(t, failing[0], "route=DS7 backend=remote#1 name=upstream-numen kind=refused")
	require.Contains(t, failing[1], "route=GT1 backend=remote#1 name=dead-no-breaker kind=refused")
	open := regexp.MustCompile(`(?m)^.*level=WARN msg="backend circuit open.*$`).FindAllString(logs.String(), -1)
	require.Len(t, open, 1, logs.String())
	require.Contains(t, open[0], "route=DS7 backend=remote#1")
	require.Contains(t, open[0], "failures=2")

	status, text := get("/metrics")
	require.Equal(t, http.StatusOK, status)
	for _, want := range []string{
		`numen_backend_requests_total{backend="remote#1",route="DS7"} 2`,
		`numen_backend_errors_total{backend="remote#1",kind="refused",route="DS7"} 2`,
		`numen_backend_skipped_total{backend="remote#1",route="DS7"} 2`,
		`numen_backend_failovers_total{backend="remote#1",route="DS7"} 4`,
		`numen_backend_state{backend="remote#1",route="DS7"} 2`,
		`numen_backend_requests_total{backend="remote#1",route="GT1"} 4`,
		`numen_backend_state{backend="remote#1",route="GT1"} 1`,
		`numen_backend_requests_total{backend="simnet#2",route="DS7"} 4`,
		`numen_backend_info{backend="remote#1",name="upstream-numen",route="DS7",type="remote"} 1`,
	} {
		require.Contains(t, text, "\n"+want+"\n")
	}

	status, body := get("/healthz")
	require.Equal(t, http.StatusOK, status, body)
	var h struct {
		Status   string `json:"status"`
		Backends []struct {
			Route, Backend, State string
		} `json:"backends"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &h), body)
	require.Equal(t, "degraded", h.Status)
	states := map[string]string{}
	for _, b := range h.Backends {
		states[b.Route+" "+b.Backend] = b.State
	}
	require.Equal(t, map[string]string{
		"DS7 remote#1": "open", "DS7 simnet#2": "ok", "GT1 remote#1": "failing", "GT1 simnet#2": "ok",
		"GT2 simnet#1": "ok", "MP1 simnet#1": "ok",
	}, states)
}

func TestConfigCircuit(t *testing.T) {
	t.Parallel()
	_, err := parseConfig([]byte(`{"circuit": {"failures": -1}, "routes": [{"route": "GT1", "backends": [{"type": "simnet", "circuit": {"failures": -2, "cool_down": "1m"}}]}]}`))
	require.ErrorContains(t, err, "circuit.failures: -1: want a count of consecutive failures (0 turns the breaker off)")
	require.ErrorContains(t, err, "routes[0].backends[0].circuit.failures: -2")
	_, err = parseConfig([]byte(`{"circuit": {"failures": 3, "open_for": "1m"}}`))
	require.ErrorContains(t, err, "unknown setting")
	cfg, err := parseConfig([]byte(`{"circuit": {"failures": 0, "cool_down": "10s"}, "routes": [{"route": "GT1", "backends": [{"type": "simnet", "circuit": {"failures": 7}}]}]}`))
	require.NoError(t, err)
	require.Equal(t, -1, cfg.Circuit.options().Failures, "0 is off")
	require.Equal(t, 7, cfg.Routes[0].Backends[0].Circuit.options().Failures)
	require.Zero(t, cfg.Routes[0].Backends[0].Circuit.options().CoolDown, "the top's, filled in by the engine")
	require.Zero(t, (*circuitConfig)(nil).options().Failures, "the engine's default")
}
