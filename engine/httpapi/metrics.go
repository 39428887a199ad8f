package httpapi

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"
)

// Metrics are the sidecar's Prometheus metrics (github.com/prometheus/
// client_golang), in a registry of their own (not the package's global
// one), which GET /metrics writes in the text exposition format:
//
//	numen_http_requests_total{endpoint, code}           counter
//	numen_http_request_duration_seconds{endpoint}       histogram
//	numen_lookups_total{product, status}                counter
//	numen_auth_failures_total                           counter
//	numen_report_signin_failures_total                  counter
//	numen_http_bodies_refused_total                     counter
//	numen_http_bodies_timed_out_total                   counter
//	numen_results_not_recorded_total                    counter
//	numen_http_connections_open                         gauge
//	numen_http_connections_idle                         gauge
//	numen_http_connections_refused_total{reason}        counter
//	numen_http_connections_closed_idle_total{reason}    counter
//
// The connection metrics are a ConnLimiter's (conns.go): connections open
// and idle, connections refused (reason max_connections: the limit reached
// and none idle; per_address: the client address's limit), and idle
// connections closed early (reason max_connections: to make room for a new
// one; idle_per_address: the address had too many idle; pressure: idle too
// long while half of the limit or more was open).
//
// with the Go runtime's go_* and the process's process_* metrics, and the
// counters and gauges other parts register (the webhook deliveries, for
// one). Counting a request takes no lock shared by all requests: each
// endpoint and status has its counter, found without a map lookup once
// made. Safe for concurrent use.
type Metrics struct {
	reg       *prometheus.Registry
	handler   http.Handler
	requests  *prometheus.CounterVec
	durations *prometheus.HistogramVec
	lookups   *prometheus.CounterVec
	// authFailures counts the requests refused for failed authentication.
	authFailures counter
	// signinFailures counts the failed sign-ins of the report pages (also
	// counted in authFailures).
	signinFailures counter
	// bodiesRefused counts the requests answered 503 because MaxBodyMemory
	// was reached; bodiesTimedOut those whose body exceeded BodyTimeout.
	bodiesRefused, bodiesTimedOut counter
	// notRecorded counts the lookups answered 503 because their result could
	// not be stored (their log lines are throttled).
	notRecorded counter
	// The connection metrics (ConnLimiter).
	connsOpen, connsIdle prometheus.Gauge
	connsRefused         [refusedReasons]counter
	connsClosedIdle      [closedReasons]counter
	endpoints            sync.Map // endpoint -> *endpointMetrics
}

// counter is a prometheus.Counter that counts whole numbers.
type counter struct{ c prometheus.Counter }

func (c counter) add(n uint64) { c.c.Add(float64(n)) }

// endpointMetrics are one endpoint's series: its latency histogram, and
// its request counters by status code (100-599), made at first use.
type endpointMetrics struct {
	endpoint string
	duration prometheus.Observer
	codes    [500]atomic.Pointer[prometheus.Counter]
}

// durationBuckets are the upper bounds of the latency histogram, seconds.
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// NewMetrics returns metrics with every series at zero.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "numen_http_requests_total", Help: "API requests by endpoint and HTTP status.",
	}, []string{"endpoint", "code"})
	m.durations = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "numen_http_request_duration_seconds", Help: "Time to answer API requests, by endpoint.", Buckets: durationBuckets,
	}, []string{"endpoint"})
	m.lookups = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "numen_lookups_total", Help: "Lookups by product and processing status (NT: query status).",
	}, []string{"product", "status"})
	newCounter := func(name, help string) counter {
		c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
		m.reg.MustRegister(c)
		return counter{c}
	}
	m.authFailures = newCounter("numen_auth_failures_total", "Requests refused for failed authentication.")
	m.signinFailures = newCounter("numen_report_signin_failures_total", "Failed sign-ins on the report pages (wrong key or secret, address not whitelisted, expired or foreign form).")
	m.bodiesRefused = newCounter("numen_http_bodies_refused_total", "Requests refused (503) because the request bodies being read reached their memory limit.")
	m.bodiesTimedOut = newCounter("numen_http_bodies_timed_out_total", "Requests whose body did not arrive within the body timeout (408).")
	m.notRecorded = newCounter("numen_results_not_recorded_total", "Lookups answered 503 because their result could not be stored.")
	m.connsOpen = prometheus.NewGauge(prometheus.GaugeOpts{Name: "numen_http_connections_open", Help: "Client connections open."})
	m.connsIdle = prometheus.NewGauge(prometheus.GaugeOpts{Name: "numen_http_connections_idle", Help: "Open client connections without a request in progress: new, between requests, or sending a request's header."})
	refused := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "numen_http_connections_refused_total", Help: "Client connections refused (503 and closed) by reason: max_connections (the limit reached, none idle) or per_address (the client address's limit).",
	}, []string{"reason"})
	for i, reason := range refusedLabels {
		m.connsRefused[i] = counter{refused.WithLabelValues(reason)}
	}
	closed := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "numen_http_connections_closed_idle_total", Help: "Idle client connections closed early by reason: max_connections (room for a new one), idle_per_address (too many idle from its address) or pressure (idle too long while half of the limit or more was open).",
	}, []string{"reason"})
	for i, reason := range closedLabels {
		m.connsClosedIdle[i] = counter{closed.WithLabelValues(reason)}
	}
	m.reg.MustRegister(m.connsOpen, m.connsIdle, refused, closed)
	m.reg.MustRegister(m.requests, m.durations, m.lookups,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return m
}

// forEndpoint returns an endpoint's series.
func (m *Metrics) forEndpoint(endpoint string) *endpointMetrics {
	if v, ok := m.endpoints.Load(endpoint); ok {
		return v.(*endpointMetrics)
	}
	v, _ := m.endpoints.LoadOrStore(endpoint, &endpointMetrics{endpoint: endpoint, duration: m.durations.WithLabelValues(endpoint)})
	return v.(*endpointMetrics)
}

func (m *Metrics) observeRequest(endpoint string, status int, d time.Duration) {
	if status == 0 {
		status = http.StatusOK
	}
	e := m.forEndpoint(endpoint)
	e.duration.Observe(d.Seconds())
	if status < 100 || status > 599 {
		m.requests.WithLabelValues(endpoint, strconv.Itoa(status)).Inc()
		return
	}
	slot := &e.codes[status-100]
	c := slot.Load()
	if c == nil {
		made := m.requests.WithLabelValues(endpoint, strconv.Itoa(status))
		slot.CompareAndSwap(nil, &made)
		c = slot.Load()
	}
	(*c).Inc()
}

// ObserveLookup counts one lookup of a product ("HLR", "MNP", "NT") with
// its processing or query status.
func (m *Metrics) ObserveLookup(product, status string) { m.observeLookup(product, status) }

func (m *Metrics) observeLookup(product, status string) {
	m.lookups.WithLabelValues(product, status).Inc()
}

// Register adds a metric read at every scrape: series is the full series
// ("numen_webhook_deliveries_total{state=\"failed\"}", labels in double
// quotes without escapes), family its metric name, kind "counter" or
// "gauge". Series of one family share its help and label names. It panics
// on a series it cannot read or register, which is a program's error.
func (m *Metrics) Register(family, kind, help, series string, value func() float64) {
	name, labels, err := parseSeries(series)
	if err != nil || name != family {
		panic(fmt.Sprintf("httpapi: Metrics.Register: series %q of family %q: %v", series, family, err))
	}
	opts := prometheus.Opts{Name: name, Help: help, ConstLabels: labels}
	var c prometheus.Collector
	switch kind {
	case "counter":
		c = prometheus.NewCounterFunc(prometheus.CounterOpts(opts), value)
	case "gauge":
		c = prometheus.NewGaugeFunc(prometheus.GaugeOpts(opts), value)
	default:
		panic(fmt.Sprintf("httpapi: Metrics.Register: kind %q of %s: want counter or gauge", kind, family))
	}
	m.reg.MustRegister(c)
}

// parseSeries reads name{k="v",...} (the values without escapes).
func parseSeries(s string) (string, prometheus.Labels, error) {
	name, rest, ok := strings.Cut(s, "{")
	if !ok {
		return s, nil, nil
	}
	body, ok := strings.CutSuffix(rest, "}")
	if !ok {
		return "", nil, fmt.Errorf("no closing brace")
	}
	labels := prometheus.Labels{}
	for pair := range strings.SplitSeq(body, ",") {
		k, v, ok := strings.Cut(pair, "=")
		if !ok || len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
			return "", nil, fmt.Errorf("label %q: want name=\"value\"", pair)
		}
		labels[k] = v[1 : len(v)-1]
	}
	return name, labels, nil
}

func (h *Handler) serveMetrics(w http.ResponseWriter, r *http.Request) {
	h.metrics.handler.ServeHTTP(w, r)
}

// Write writes the metrics in the Prometheus text format, as GET /metrics
// does.
func (m *Metrics) Write(w io.Writer) error {
	families, err := m.reg.Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			return err
		}
	}
	return nil
}
