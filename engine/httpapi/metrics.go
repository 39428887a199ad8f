package httpapi

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Metrics are the sidecar's Prometheus metrics, written by GET /metrics in
// the text exposition format:
//
//	numen_http_requests_total{endpoint, code}           counter
//	numen_http_request_duration_seconds{endpoint}       histogram
//	numen_lookups_total{product, status}                counter
//	numen_auth_failures_total                           counter
//	numen_http_bodies_refused_total                     counter
//	numen_http_bodies_timed_out_total                   counter
//	numen_results_not_recorded_total                    counter
//
// plus the gauges and counters other parts register with Gauge and Counter
// (the webhook deliveries, for one). Safe for concurrent use.
type Metrics struct {
	mu           sync.Mutex
	requests     map[requestKey]*counter
	durations    map[string]*histogram  // endpoint
	lookups      map[[2]string]*counter // product, status
	authFailures counter
	// bodiesRefused counts the requests answered 503 because MaxBodyMemory
	// was reached; bodiesTimedOut those whose body exceeded BodyTimeout.
	bodiesRefused, bodiesTimedOut counter
	// notRecorded counts the lookups answered 503 because their result could
	// not be stored (their log lines are throttled).
	notRecorded counter
	extra       map[string]func() float64 // name{labels} -> value
	extraHelp   map[string]string
}

// requestKey is a series of numen_http_requests_total. The code is an int
// so that counting a request formats nothing.
type requestKey struct {
	endpoint string
	code     int
}

// durationBuckets are the upper bounds of the latency histogram, seconds.
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

type counter struct{ n atomic.Uint64 }

func (c *counter) add(n uint64) { c.n.Add(n) }

type histogram struct {
	mu     sync.Mutex
	counts []uint64 // per bucket, not cumulative
	sum    float64
	count  uint64
}

// NewMetrics returns empty metrics.
func NewMetrics() *Metrics {
	return &Metrics{
		requests: map[requestKey]*counter{}, durations: map[string]*histogram{},
		lookups: map[[2]string]*counter{}, extra: map[string]func() float64{}, extraHelp: map[string]string{},
	}
}

func (m *Metrics) observeRequest(endpoint string, status int, d time.Duration) {
	if status == 0 {
		status = http.StatusOK
	}
	k := requestKey{endpoint, status}
	m.mu.Lock()
	c := m.requests[k]
	if c == nil {
		c = &counter{}
		m.requests[k] = c
	}
	hist := m.durations[endpoint]
	if hist == nil {
		hist = &histogram{counts: make([]uint64, len(durationBuckets)+1)}
		m.durations[endpoint] = hist
	}
	m.mu.Unlock()
	c.add(1)
	s := d.Seconds()
	i := sort.SearchFloat64s(durationBuckets, s)
	hist.mu.Lock()
	hist.counts[i]++
	hist.sum += s
	hist.count++
	hist.mu.Unlock()
}

// ObserveLookup counts one lookup of a product ("HLR", "MNP", "NT") with
// its processing or query status.
func (m *Metrics) ObserveLookup(product, status string) { m.observeLookup(product, status) }

func (m *Metrics) observeLookup(product, status string) {
	k := [2]string{product, status}
	m.mu.Lock()
	c := m.lookups[k]
	if c == nil {
		c = &counter{}
		m.lookups[k] = c
	}
	m.mu.Unlock()
	c.add(1)
}

// Register adds a metric read at every scrape: name is the full series
// ("numen_webhook_deliveries_total{state=\"failed\"}"), family the metric
// name, kind "counter" or "gauge".
func (m *Metrics) Register(family, kind, help, series string, value func() float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.extra[series] = value
	m.extraHelp[family] = kind + "\x00" + help
}

func (h *Handler) serveMetrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	h.metrics.write(w)
}

// Write writes the metrics in the Prometheus text format, as GET /metrics
// does.
func (m *Metrics) Write(w io.Writer) { m.write(w) }

func (m *Metrics) write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintln(w, "# HELP numen_http_requests_total API requests by endpoint and HTTP status.")
	fmt.Fprintln(w, "# TYPE numen_http_requests_total counter")
	requests := make([]requestKey, 0, len(m.requests))
	for k := range m.requests {
		requests = append(requests, k)
	}
	sort.Slice(requests, func(i, j int) bool {
		if requests[i].endpoint != requests[j].endpoint {
			return requests[i].endpoint < requests[j].endpoint
		}
		return requests[i].code < requests[j].code // three digits: the order as strings too
	})
	for _, k := range requests {
		fmt.Fprintf(w, "numen_http_requests_total{endpoint=%q,code=%q} %d\n", k.endpoint, strconv.Itoa(k.code), m.requests[k].n.Load())
	}
	fmt.Fprintln(w, "# HELP numen_http_request_duration_seconds Time to answer API requests, by endpoint.")
	fmt.Fprintln(w, "# TYPE numen_http_request_duration_seconds histogram")
	endpoints := make([]string, 0, len(m.durations))
	for e := range m.durations {
		endpoints = append(endpoints, e)
	}
	sort.Strings(endpoints)
	for _, e := range endpoints {
		hist := m.durations[e]
		hist.mu.Lock()
		cum := uint64(0)
		for i, le := range durationBuckets {
			cum += hist.counts[i]
			fmt.Fprintf(w, "numen_http_request_duration_seconds_bucket{endpoint=%q,le=%q} %d\n", e, strconv.FormatFloat(le, 'g', -1, 64), cum)
		}
		cum += hist.counts[len(durationBuckets)]
		fmt.Fprintf(w, "numen_http_request_duration_seconds_bucket{endpoint=%q,le=\"+Inf\"} %d\n", e, cum)
		fmt.Fprintf(w, "numen_http_request_duration_seconds_sum{endpoint=%q} %s\n", e, strconv.FormatFloat(hist.sum, 'g', -1, 64))
		fmt.Fprintf(w, "numen_http_request_duration_seconds_count{endpoint=%q} %d\n", e, hist.count)
		hist.mu.Unlock()
	}
	fmt.Fprintln(w, "# HELP numen_lookups_total Lookups by product and processing status (NT: query status).")
	fmt.Fprintln(w, "# TYPE numen_lookups_total counter")
	for _, k := range sortedKeys(m.lookups) {
		fmt.Fprintf(w, "numen_lookups_total{product=%q,status=%q} %d\n", k[0], k[1], m.lookups[k].n.Load())
	}
	fmt.Fprintln(w, "# HELP numen_auth_failures_total Requests refused for failed authentication.")
	fmt.Fprintln(w, "# TYPE numen_auth_failures_total counter")
	fmt.Fprintf(w, "numen_auth_failures_total %d\n", m.authFailures.n.Load())
	fmt.Fprintln(w, "# HELP numen_http_bodies_refused_total Requests refused (503) because the request bodies being read reached their memory limit.")
	fmt.Fprintln(w, "# TYPE numen_http_bodies_refused_total counter")
	fmt.Fprintf(w, "numen_http_bodies_refused_total %d\n", m.bodiesRefused.n.Load())
	fmt.Fprintln(w, "# HELP numen_http_bodies_timed_out_total Requests whose body did not arrive within the body timeout (408).")
	fmt.Fprintln(w, "# TYPE numen_http_bodies_timed_out_total counter")
	fmt.Fprintf(w, "numen_http_bodies_timed_out_total %d\n", m.bodiesTimedOut.n.Load())
	fmt.Fprintln(w, "# HELP numen_results_not_recorded_total Lookups answered 503 because their result could not be stored.")
	fmt.Fprintln(w, "# TYPE numen_results_not_recorded_total counter")
	fmt.Fprintf(w, "numen_results_not_recorded_total %d\n", m.notRecorded.n.Load())
	families := make([]string, 0, len(m.extraHelp))
	for f := range m.extraHelp {
		families = append(families, f)
	}
	sort.Strings(families)
	series := make([]string, 0, len(m.extra))
	for s := range m.extra {
		series = append(series, s)
	}
	sort.Strings(series)
	for _, f := range families {
		kind, help, _ := cut(m.extraHelp[f])
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", f, help, f, kind)
		for _, s := range series {
			if s == f || len(s) > len(f) && s[:len(f)] == f && s[len(f)] == '{' {
				fmt.Fprintf(w, "%s %s\n", s, strconv.FormatFloat(m.extra[s](), 'g', -1, 64))
			}
		}
	}
}

func cut(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func sortedKeys(m map[[2]string]*counter) [][2]string {
	keys := make([][2]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	return keys
}
