package httpapi

import (
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/mnp/remote"
	"github.com/numenhq/numen/mnp/simnet"
	"github.com/stretchr/testify/require"
)

// TestBackendsInHealthAndMetrics runs a dead provider (a real remote
// client dialling a closed loopback port) ahead of a simulator on GT1,
// and alone on DS7: /metrics counts its calls, errors and skips, and
// /healthz lists its state, 200 "degraded" while GT1's simulator works,
// 503 once DS7 has no backend with a closed circuit.
func TestBackendsInHealthAndMetrics(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String() + "/api/v2"
	require.NoError(t, ln.Close())
	c, err := remote.New(dead, "key", "secret", remote.WithRetries(0), remote.WithName("provider-a"))
	require.NoError(t, err)
	plan := loadPlan(t)
	sim := simnet.New(plan, simnet.WithSeed(1))
	eng, err := engine.New(engine.Options{
		Plan: plan,
		Backends: []engine.RouteBackends{
			{Route: "GT1", HLR: []engine.HLR{{Name: "provider-a", Backend: c}, {Name: "simulator", Backend: sim}}},
			{Route: "DS7", HLR: []engine.HLR{{Name: "provider-a", Backend: c}}},
			{Route: "GT2", HLR: []engine.HLR{{Name: "simulator", Backend: sim}}},
			{Route: "MP1", Portability: []engine.Portability{{Name: "simulator", Backend: sim}}},
		},
		Circuit: engine.CircuitOptions{Failures: 2},
		Logger:  slog.New(slog.DiscardHandler),
	})
	require.NoError(t, err)
	prof, err := eng.NewProfile(engine.ProfileOptions{Key: key})
	require.NoError(t, err)
	h, err := New(Config{Engine: eng, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	get := func(path string) (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w.Code, w.Body.String()
	}
	lookup := func(route string) string {
		ans, err := eng.HLRLookup(t.Context(), prof, engine.Request{Number: "+4915123456789", Route: route})
		require.NoError(t, err)
		return ans.Result.ProcessingStatus
	}
	type state struct {
		Status   string   `json:"status"`
		Errors   []string `json:"errors"`
		Backends []struct {
			Route, Backend, Name, State string
			Failures                    int
			FailingSince                *string `json:"failing_since"`
			LastErrorKind               *string `json:"last_error_kind"`
		} `json:"backends"`
	}
	healthz := func(want int) state {
		t.Helper()
		code, body := get("/healthz")
		require.Equal(t, want, code, body)
		var s state
		require.NoError(t, json.Unmarshal([]byte(body), &s), body)
		return s
	}

	require.Equal(t, "ok", healthz(200).Status)
	for range 5 {
		require.Equal(t, "COMPLETED", lookup("GT1"))
	}
	s := healthz(200)
	require.Equal(t, "degraded", s.Status)
	require.Empty(t, s.Errors)
	require.Len(t, s.Backends, 5)
	gt1 := s.Backends[1] // sorted by route: DS7, GT1 (2), GT2, MP1
	require.Equal(t, "GT1", gt1.Route)
	require.Equal(t, "remote#1", gt1.Backend)
	require.Equal(t, "provider-a", gt1.Name)
	require.Equal(t, "open", gt1.State)
	require.Equal(t, 2, gt1.Failures)
	require.NotNil(t, gt1.FailingSince)
	require.Equal(t, "refused", *gt1.LastErrorKind)
	require.Equal(t, "ok", s.Backends[2].State, "GT1's simulator")
	// The public body names no upstream address: the error's message
	// ("dial tcp 127.0.0.1:...: connection refused") is in the log only.
	_, public := get("/healthz")
	require.NotContains(t, public, "127.0.0.1")
	require.NotContains(t, public, "connection refused")

	code, text := get("/metrics")
	require.Equal(t, 200, code)
	for _, want := range []string{
		`numen_backend_requests_total{backend="remote#1",route="GT1"} 2`,
		`numen_backend_errors_total{backend="remote#1",kind="refused",route="GT1"} 2`,
		`numen_backend_errors_total{backend="remote#1",kind="timeout",route="GT1"} 0`,
		`numen_backend_skipped_total{backend="remote#1",route="GT1"} 3`,
		`numen_backend_failovers_total{backend="remote#1",route="GT1"} 5`,
		`numen_backend_circuit_opened_total{backend="remote#1",route="GT1"} 1`,
		`numen_backend_state{backend="remote#1",route="GT1"} 2`,
		`numen_backend_state{backend="simnet#2",route="GT1"} 0`,
		`numen_backend_requests_total{backend="simnet#2",route="GT1"} 5`,
		`numen_backend_request_duration_seconds_count{backend="remote#1",route="GT1"} 2`,
		`numen_backend_request_duration_seconds_bucket{backend="simnet#2",route="GT1",le="+Inf"} 5`,
		`numen_backend_info{backend="remote#1",name="provider-a",route="GT1",type="remote"} 1`,
	} {
		require.Contains(t, text, want+"\n")
	}

	// DS7 has no other backend: once its circuit opens, /healthz is 503.
	require.Equal(t, "REJECTED", lookup("DS7"))
	require.Equal(t, "degraded", healthz(200).Status, "failing, not open yet")
	require.Equal(t, "REJECTED", lookup("DS7"))
	s = healthz(503)
	require.Equal(t, "unhealthy", s.Status)
	require.Equal(t, []string{"unhealthy: route DS7: every backend's circuit is open (remote#1); its lookups are REJECTED until a probe succeeds"}, s.Errors)
	require.Equal(t, "open", s.Backends[0].State)
	_, body := get("/healthz")
	require.Equal(t, []string{s.Errors[0]}, errorsOf(t, []byte(body)), "an ErrorBody as every non-200")
}
