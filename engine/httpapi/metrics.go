package httpapi

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/httpapi/internal/promtext"
)

// Metrics are the sidecar's Prometheus metrics, which GET /metrics writes
// in the Prometheus text exposition format 0.0.4 (gzip-compressed when the
// scraper accepts it):
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
//	numen_backend_*{route, backend}                     (see watchBackends)
//	numen_balance_*{account, ...}                       (see CountBudget, WatchBalances)
//
// The connection metrics are a ConnLimiter's (conns.go): connections open
// and idle, connections refused (reason max_connections: the limit reached
// and none idle; per_address: the client address's limit), and idle
// connections closed early (reason max_connections: to make room for a new
// one; idle_per_address: the address had too many idle; pressure: idle too
// long while half of the limit or more was open).
//
// with the Go runtime's go_* and the process's process_* metrics (named as
// Prometheus's Go client names them; process_* on Linux only, read from
// /proc), and the counters and gauges other parts register (the webhook
// deliveries, for one). Counting a request takes no lock shared by all
// requests: each endpoint and status has its counter, found without a map
// lookup once made. Safe for concurrent use.
//
// The metrics are kept and written by our own code (package
// engine/httpapi/internal/promtext), not Prometheus's client library, whose
// package initialisation (with the protobuf runtime's) cost every numen
// command 2.3 MiB of peak memory. The output is the client's, family for
// family (testdata/metrics_families.txt); a scraper asking for the
// protobuf format gets the text format.
type Metrics struct {
	reg       promtext.Registry
	requests  *promtext.Family
	durations *promtext.Family
	lookups   *promtext.Family
	// refusedLookups and refusedSubmissions count the refusals of the
	// accounts' limits (balancemetrics.go).
	refusedLookups, refusedSubmissions *promtext.Family
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
	connsOpen, connsIdle *promtext.Gauge
	connsRefused         [refusedReasons]counter
	connsClosedIdle      [closedReasons]counter
	endpoints            sync.Map // endpoint -> *endpointMetrics
	// The engine whose backends are counted (backends.go).
	backendsMu sync.Mutex
	backendsOf *engine.Engine
}

// counter counts whole numbers.
type counter struct{ c *promtext.Counter }

func (c counter) add(n uint64) { c.c.Add(n) }

// endpointMetrics are one endpoint's series: its latency histogram, and
// its request counters by status code (100-599), made at first use.
type endpointMetrics struct {
	endpoint string
	duration *promtext.Histogram
	codes    [500]atomic.Pointer[promtext.Counter]
}

// durationBuckets are the upper bounds of the latency histogram, seconds.
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// NewMetrics returns metrics with every series at zero.
func NewMetrics() *Metrics {
	m := &Metrics{}
	m.requests = m.reg.Family("numen_http_requests_total", "API requests by endpoint and HTTP status.",
		promtext.KindCounter, "endpoint", "code")
	m.durations = m.reg.HistogramFamily("numen_http_request_duration_seconds", "Time to answer API requests, by endpoint.",
		durationBuckets, "endpoint")
	m.lookups = m.reg.Family("numen_lookups_total", "Lookups by product and processing status (NT: query status).",
		promtext.KindCounter, "product", "status")
	newCounter := func(name, help string) counter {
		return counter{m.reg.Family(name, help, promtext.KindCounter).Counter()}
	}
	m.authFailures = newCounter("numen_auth_failures_total", "Requests refused for failed authentication.")
	m.signinFailures = newCounter("numen_report_signin_failures_total", "Failed sign-ins on the report pages (wrong key or secret, address not whitelisted, expired or foreign form).")
	m.bodiesRefused = newCounter("numen_http_bodies_refused_total", "Requests refused (503) because the request bodies being read reached their memory limit.")
	m.bodiesTimedOut = newCounter("numen_http_bodies_timed_out_total", "Requests whose body did not arrive within the body timeout (408).")
	m.notRecorded = newCounter("numen_results_not_recorded_total", "Lookups answered 503 because their result could not be stored.")
	m.connsOpen = m.reg.Family("numen_http_connections_open", "Client connections open.", promtext.KindGauge).Gauge()
	m.connsIdle = m.reg.Family("numen_http_connections_idle", "Open client connections without a request in progress: new, between requests, or sending a request's header.", promtext.KindGauge).Gauge()
	refused := m.reg.Family("numen_http_connections_refused_total", "Client connections refused (503 and closed) by reason: max_connections (the limit reached, none idle) or per_address (the client address's limit).",
		promtext.KindCounter, "reason")
	for i, reason := range refusedLabels {
		m.connsRefused[i] = counter{refused.Counter(reason)}
	}
	closed := m.reg.Family("numen_http_connections_closed_idle_total", "Idle client connections closed early by reason: max_connections (room for a new one), idle_per_address (too many idle from its address) or pressure (idle too long while half of the limit or more was open).",
		promtext.KindCounter, "reason")
	for i, reason := range closedLabels {
		m.connsClosedIdle[i] = counter{closed.Counter(reason)}
	}
	m.balanceFamilies()
	promtext.RegisterGo(&m.reg)
	promtext.RegisterProcess(&m.reg)
	return m
}

// forEndpoint returns an endpoint's series.
func (m *Metrics) forEndpoint(endpoint string) *endpointMetrics {
	if v, ok := m.endpoints.Load(endpoint); ok {
		return v.(*endpointMetrics)
	}
	v, _ := m.endpoints.LoadOrStore(endpoint, &endpointMetrics{endpoint: endpoint, duration: m.durations.Histogram(endpoint)})
	return v.(*endpointMetrics)
}

func (m *Metrics) observeRequest(endpoint string, status int, d time.Duration) {
	if status == 0 {
		status = http.StatusOK
	}
	e := m.forEndpoint(endpoint)
	e.duration.Observe(d.Seconds())
	if status < 100 || status > 599 {
		m.requests.Counter(endpoint, strconv.Itoa(status)).Inc()
		return
	}
	slot := &e.codes[status-100]
	c := slot.Load()
	if c == nil {
		slot.CompareAndSwap(nil, m.requests.Counter(endpoint, strconv.Itoa(status)))
		c = slot.Load()
	}
	c.Inc()
}

// ObserveLookup counts one lookup of a product ("HLR", "MNP", "NT") with
// its processing or query status.
func (m *Metrics) ObserveLookup(product, status string) { m.observeLookup(product, status) }

func (m *Metrics) observeLookup(product, status string) {
	m.lookups.Counter(product, status).Inc()
}

// Register adds a metric read at every scrape: series is the full series
// ("numen_webhook_deliveries_total{state=\"failed\"}", labels in double
// quotes without escapes), family its metric name, kind "counter" or
// "gauge". Series of one family share its help and label names. It panics
// on a series it cannot read or register, which is a program's error.
func (m *Metrics) Register(family, kind, help, series string, value func() float64) {
	name, labels, err := promtext.ParseSeries(series)
	if err == nil && name != family {
		err = fmt.Errorf("not of the family")
	}
	if err != nil {
		panic(fmt.Sprintf("httpapi: Metrics.Register: series %q of family %q: %v", series, family, err))
	}
	var k promtext.Kind
	switch kind {
	case "counter":
		k = promtext.KindCounter
	case "gauge":
		k = promtext.KindGauge
	default:
		panic(fmt.Sprintf("httpapi: Metrics.Register: kind %q of %s: want counter or gauge", kind, family))
	}
	names := make([]string, len(labels))
	for i, l := range labels {
		names[i] = l.Name
	}
	f := m.reg.Family(name, help, k, names...)
	values := make([]string, len(labels))
	for i, n := range f.LabelNames() {
		for _, l := range labels {
			if l.Name == n {
				values[i] = l.Value
			}
		}
	}
	f.Func(value, values...)
}

// serveMetrics writes the metrics, gzip-compressed when the request
// accepts it (as Prometheus's scrapers do).
func (h *Handler) serveMetrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", promtext.ContentType)
	w.Header().Add("Vary", "Accept-Encoding")
	if !acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.metrics.Write(w) //nolint:errcheck // the client went away
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(w)
	if h.metrics.Write(zw) == nil {
		zw.Close()
	}
	gzipWriters.Put(zw)
}

var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// acceptsGzip reports whether an Accept-Encoding header lists gzip without
// q=0.
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
			return !ok || strings.Trim(q, "0.") != ""
		}
	}
	return false
}

// Write writes the metrics in the Prometheus text format, as GET /metrics
// does.
func (m *Metrics) Write(w io.Writer) error { return m.reg.Write(w) }
