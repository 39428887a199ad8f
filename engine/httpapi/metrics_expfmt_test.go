package httpapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
)

// TestMetricsFamilies reads the whole output with expfmt's parser (the
// reference, imported by tests only) and checks that every family the
// Prometheus client wrote (testdata/metrics_families.txt, scraped from
// d5766a7) is there with the same type, label names and help.
func TestMetricsFamilies(t *testing.T) {
	t.Parallel()
	m := NewMetrics()
	// What engine/bulk and cmd/numen register.
	for _, outcome := range []string{"delivered", "failed"} {
		m.Register("numen_webhook_deliveries_total", "counter", "Webhook deliveries by outcome: delivered, or failed after the last retry.",
			`numen_webhook_deliveries_total{outcome="`+outcome+`"}`, func() float64 { return 0 })
	}
	m.Register("numen_webhook_attempts_total", "counter", "Webhook delivery attempts, successful or not.",
		"numen_webhook_attempts_total", func() float64 { return 12 })
	m.Register("numen_portdb_refused_lookups_total", "counter",
		"Lookups a portability database refused because its file changed underneath while serving (asked of the route's next backend).",
		"numen_portdb_refused_lookups_total", func() float64 { return 0 })
	m.Register("numen_portdb_damaged", "gauge",
		"Portability databases whose file has been found changed underneath while serving.",
		"numen_portdb_damaged", func() float64 { return 0 })
	m.Register("numen_portdb_reload_refused_total", "counter",
		"New portability database files refused (damaged, truncated or not a database; the current one keeps answering), by file.",
		`numen_portdb_reload_refused_total{file="/var/lib/numen/ported.db"}`, func() float64 { return 1 })
	// What cmd/numen registers for the ENUM server (cmd/numen/enum.go).
	m.Register("numen_enum_queries_total", "counter", "ENUM queries answered, by query type (NAPTR, SOA, NS, ANY, AXFR, IXFR, other; none when the question was unreadable) and response code.",
		`numen_enum_queries_total{rcode="NOERROR",type="NAPTR"}`, func() float64 { return 3 })
	m.Register("numen_enum_rate_limited_total", "counter", "ENUM UDP queries over their client's rate limit, by action: dropped, or slipped (answered truncated).",
		`numen_enum_rate_limited_total{action="dropped"}`, func() float64 { return 0 })
	m.Register("numen_enum_errors_total", "counter", "ENUM server errors by kind: malformed (packets dropped unanswered), read and write (socket errors), tcp_refused (connections beyond max_connections).",
		`numen_enum_errors_total{kind="malformed"}`, func() float64 { return 0 })
	// What the handler registers for the engine's backends (backends.go).
	hlr := []engine.HLR{{Name: "test", Backend: connectedHLR{}}}
	eng, err := engine.New(engine.Options{Plan: loadPlan(t), Backends: []engine.RouteBackends{
		{Route: "DS7", HLR: hlr}, {Route: "GT1", HLR: hlr}, {Route: "GT2", HLR: hlr},
		{Route: "MP1", Portability: []engine.Portability{{Name: "test", Backend: notPorted{}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	m.watchBackends(eng)
	// What cmd/numen registers for accounts with limits (balancemetrics.go).
	capped := engine.Money(100)
	mem := &memBalances{cap: capped}
	m.CountBudget("team-a", mem)
	m.WatchBalances(leaseBalances{mem}, []*account.Account{{Key: "team-a", Limits: engine.Limits{MonthlyCap: &capped}}})
	m.observeRequest("/nt-lookup", 200, 2*time.Millisecond)
	m.observeRequest("/hlr-lookup", 401, 300*time.Microsecond)
	m.observeRequest("/hlr-lookup", 0, 700*time.Microsecond)
	m.ObserveLookup("NT", "OK")
	m.observeLookup("HLR", "COMPLETED")

	var out bytes.Buffer
	if err := m.Write(&out); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatalf("expfmt: %v\n%s", err, out.String())
	}
	data, err := os.ReadFile("testdata/metrics_families.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		name, kind, labels, help := f[0], f[1], f[2], f[3]
		if strings.HasPrefix(name, "process_") && runtime.GOOS != "linux" {
			continue
		}
		n++
		got := fams[name]
		if got == nil {
			t.Errorf("%s: missing", name)
			continue
		}
		if k := strings.ToLower(got.GetType().String()); k != kind {
			t.Errorf("%s: type %s, want %s", name, k, kind)
		}
		if got.GetHelp() != help {
			t.Errorf("%s: help %q, want %q", name, got.GetHelp(), help)
		}
		if l := labelNames(got); l != labels {
			t.Errorf("%s: labels %s, want %s", name, l, labels)
		}
	}
	if n < 50 {
		t.Errorf("checked %d families", n)
	}
	// The whole text is sorted by family name, as the client wrote it.
	var names []string
	for line := range strings.Lines(out.String()) {
		if name, ok := strings.CutPrefix(line, "# TYPE "); ok {
			names = append(names, strings.Fields(name)[0])
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("families not sorted: %q", names)
	}
	for _, want := range []string{
		`numen_http_requests_total{code="200",endpoint="/hlr-lookup"} 1`,
		`numen_http_request_duration_seconds_bucket{endpoint="/hlr-lookup",le="0.0005"} 1`,
		`numen_http_request_duration_seconds_bucket{endpoint="/hlr-lookup",le="0.001"} 2`,
		`numen_http_request_duration_seconds_sum{endpoint="/hlr-lookup"} 0.001`,
		`numen_webhook_attempts_total 12`,
		`go_info{version="` + runtime.Version() + `"} 1`,
	} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("missing %s", want)
		}
	}
}

// labelNames returns a family's label names as the test data lists them.
func labelNames(f *dto.MetricFamily) string {
	var names []string
	for _, m := range f.Metric {
		for _, l := range m.Label {
			if !slices.Contains(names, l.GetName()) {
				names = append(names, l.GetName())
			}
		}
	}
	if len(names) == 0 {
		return "-"
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// GET /metrics is the text format 0.0.4, gzip-compressed when accepted.
func TestServeMetrics(t *testing.T) {
	t.Parallel()
	h := &Handler{metrics: NewMetrics()}
	for enc, want := range map[string]bool{"": false, "gzip": true, "deflate, gzip;q=1.0, *;q=0.5": true, "gzip;q=0": false, "br": false} {
		req := httptest.NewRequest("GET", "/metrics", nil)
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		rec := httptest.NewRecorder()
		h.serveMetrics(rec, req)
		if ct := rec.Header().Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
			t.Errorf("%q: Content-Type %q", enc, ct)
		}
		body := io.Reader(rec.Body)
		gz := rec.Header().Get("Content-Encoding") == "gzip"
		if gz != want {
			t.Errorf("%q: gzip %v, want %v", enc, gz, want)
		}
		if gz {
			zr, err := gzip.NewReader(body)
			if err != nil {
				t.Fatal(err)
			}
			body = zr
		}
		text, err := io.ReadAll(body)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), "\nnumen_http_connections_open 0\n") {
			t.Errorf("%q: got %.200s", enc, text)
		}
	}
}

func TestRegisterMisuse(t *testing.T) {
	t.Parallel()
	for _, c := range [][3]string{
		{"numen_x_total", "counter", `numen_y_total`},
		{"numen_x_total", "counter", `numen_x_total{a=1}`},
		{"numen_x_total", "histogram", `numen_x_total`},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q): no panic", c)
				}
			}()
			NewMetrics().Register(c[0], c[1], "Help.", c[2], func() float64 { return 0 })
		}()
	}
	// Series of one family with their labels in another order.
	m := NewMetrics()
	m.Register("numen_x_total", "counter", "X.", `numen_x_total{a="1",b="2"}`, func() float64 { return 1 })
	m.Register("numen_x_total", "counter", "X.", `numen_x_total{b="3",a="4"}`, func() float64 { return 2 })
	var out bytes.Buffer
	if err := m.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`numen_x_total{a="1",b="2"} 1`, `numen_x_total{a="4",b="3"} 2`} {
		if !strings.Contains(out.String(), want+"\n") {
			t.Errorf("missing %s", want)
		}
	}
}

// Counting a request allocates nothing once its series exist.
func TestObserveRequestAllocs(t *testing.T) {
	m := NewMetrics()
	m.observeRequest("/nt-lookup", 200, time.Millisecond)
	if n := testing.AllocsPerRun(100, func() { m.observeRequest("/nt-lookup", 200, time.Millisecond) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

// TestNoPrometheusClient keeps Prometheus's client and the protobuf
// runtime (whose package initialisation every numen command paid for) out
// of the sidecar and the command: only tests import expfmt.
func TestNoPrometheusClient(t *testing.T) {
	t.Parallel()
	for _, pkg := range []string{"github.com/numenhq/numen/engine/httpapi", "github.com/numenhq/numen/cmd/numen"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/prometheus/") || strings.HasPrefix(dep, "google.golang.org/protobuf") {
				t.Errorf("%s imports %s", pkg, dep)
			}
		}
	}
}
