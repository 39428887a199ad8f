package promtext

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parse reads text with expfmt's parser, the reference for the format
// (imported by tests only).
func parse(t testing.TB, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("expfmt: %v\n%s", err, text)
	}
	return fams
}

func write(t testing.TB, r *Registry) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWrite(t *testing.T) {
	t.Parallel()
	var r Registry
	req := r.Family("b_requests_total", "Requests by endpoint and code.", KindCounter, "endpoint", "code")
	req.Counter("/x", "200").Add(3)
	req.Counter("/a", "500").Inc()
	req.Counter("/a", "200").Add(1e6)
	g := r.Family("a_open", "Open.", KindGauge).Gauge()
	g.Add(5)
	g.Add(-7)
	h := r.HistogramFamily("c_seconds", "Time.", []float64{0.5, 1, 2.5}, "endpoint")
	for _, v := range []float64{0.1, 0.5, 0.75, 3} {
		h.Histogram("/a").Observe(v)
	}
	r.Family("d_func", `Read \ at "write".`+"\nSecond line.", KindGauge, "state").Func(func() float64 { return 1.5 }, "x\"y\\z\nw")
	r.Family("e_summary", "Pauses.", KindSummary).SummaryFunc(func() Summary {
		return Summary{Quantiles: []float64{0, 0.5, 1}, Values: []float64{0.001, 0.002, math.Inf(1)}, Sum: 0.25, Count: 7}
	})
	r.Family("f_empty_total", "No series yet.", KindCounter, "reason")
	want := `# HELP a_open Open.
# TYPE a_open gauge
a_open -2
# HELP b_requests_total Requests by endpoint and code.
# TYPE b_requests_total counter
b_requests_total{code="200",endpoint="/a"} 1e+06
b_requests_total{code="200",endpoint="/x"} 3
b_requests_total{code="500",endpoint="/a"} 1
# HELP c_seconds Time.
# TYPE c_seconds histogram
c_seconds_bucket{endpoint="/a",le="0.5"} 2
c_seconds_bucket{endpoint="/a",le="1"} 3
c_seconds_bucket{endpoint="/a",le="2.5"} 3
c_seconds_bucket{endpoint="/a",le="+Inf"} 4
c_seconds_sum{endpoint="/a"} 4.35
c_seconds_count{endpoint="/a"} 4
# HELP d_func Read \\ at "write".\nSecond line.
# TYPE d_func gauge
d_func{state="x\"y\\z\nw"} 1.5
# HELP e_summary Pauses.
# TYPE e_summary summary
e_summary{quantile="0"} 0.001
e_summary{quantile="0.5"} 0.002
e_summary{quantile="1"} +Inf
e_summary_sum 0.25
e_summary_count 7
# HELP f_empty_total No series yet.
# TYPE f_empty_total counter
`
	got := write(t, &r)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	fams := parse(t, got)
	if len(fams) != 5 { // f_empty_total, without series, is not one for expfmt
		t.Errorf("expfmt read %d families, want 5", len(fams))
	}
	d := fams["d_func"]
	if d.GetHelp() != `Read \ at "write".`+"\nSecond line." || d.Metric[0].Label[0].GetValue() != "x\"y\\z\nw" {
		t.Errorf("escapes read back as %q, %q", d.GetHelp(), d.Metric[0].Label[0].GetValue())
	}
	if c := fams["c_seconds"].Metric[0].Histogram; c.GetSampleCount() != 4 || c.Bucket[0].GetCumulativeCount() != 2 {
		t.Errorf("histogram read back as %v", c)
	}
}

func TestFloats(t *testing.T) {
	t.Parallel()
	for f, want := range map[float64]string{
		0: "0", 1: "1", -1: "-1", 0.0005: "0.0005", 2.5: "2.5", 1e6: "1e+06", 123456: "123456",
		math.Inf(1): "+Inf", math.Inf(-1): "-Inf", math.NaN(): "NaN", 9.223372036854776e+18: "9.223372036854776e+18",
	} {
		if got := string(appendFloat(nil, f)); got != want {
			t.Errorf("appendFloat(%v) = %s, want %s", f, got, want)
		}
	}
}

func TestMisuse(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func(r *Registry){
		"bad name":          func(r *Registry) { r.Family("1x", "", KindGauge) },
		"bad label":         func(r *Registry) { r.Family("x", "", KindGauge, "a-b") },
		"reserved label":    func(r *Registry) { r.Family("x", "", KindGauge, "__a") },
		"le on histogram":   func(r *Registry) { r.HistogramFamily("x", "", []float64{1}, "le") },
		"repeated label":    func(r *Registry) { r.Family("x", "", KindGauge, "a", "a") },
		"buckets unordered": func(r *Registry) { r.HistogramFamily("x", "", []float64{2, 1}) },
		"other help":        func(r *Registry) { r.Family("x", "a", KindGauge); r.Family("x", "b", KindGauge) },
		"other labels":      func(r *Registry) { r.Family("x", "a", KindGauge, "a"); r.Family("x", "a", KindGauge, "b") },
		"other kind":        func(r *Registry) { r.Family("x", "a", KindGauge).Counter() },
		"values":            func(r *Registry) { r.Family("x", "a", KindGauge, "a").Gauge() },
		"func twice": func(r *Registry) {
			r.Family("x", "a", KindGauge).Func(func() float64 { return 0 })
			r.Family("x", "a", KindGauge).Func(func() float64 { return 0 })
		},
		"func then gauge": func(r *Registry) {
			r.Family("x", "a", KindGauge).Func(func() float64 { return 0 })
			r.Family("x", "a", KindGauge).Gauge()
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f(new(Registry))
		}()
	}
	// The same family again is the family; label values in the order the
	// names were first given.
	var r Registry
	r.Family("x", "a", KindCounter, "b", "a").Counter("B", "A").Inc()
	f := r.Family("x", "a", KindCounter, "a", "b")
	if got := f.LabelNames(); !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("LabelNames() = %q", got)
	}
	f.Counter("B", "A").Inc()
	if got := write(t, &r); !strings.Contains(got, `x{a="A",b="B"} 2`+"\n") {
		t.Errorf("got %s", got)
	}
}

func TestConcurrent(t *testing.T) {
	t.Parallel()
	var r Registry
	f := r.HistogramFamily("h", "H.", []float64{1})
	c := r.Family("c_total", "C.", KindCounter, "k")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range 1000 {
				f.Histogram().Observe(0.5)
				c.Counter([]string{"a", "b"}[i%2]).Inc()
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			parse(t, write(t, &r))
		}
	})
	wg.Wait()
	got := write(t, &r)
	for _, want := range []string{`h_count 4000`, `h_sum 2000`, `c_total{k="a"} 2000`, `c_total{k="b"} 2000`} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("want %s in\n%s", want, got)
		}
	}
}

// Counting allocates nothing.
func TestAllocs(t *testing.T) {
	var r Registry
	h := r.HistogramFamily("h", "H.", []float64{1, 2}).Histogram()
	c := r.Family("c", "C.", KindCounter).Counter()
	g := r.Family("g", "G.", KindGauge).Gauge()
	if n := testing.AllocsPerRun(100, func() { h.Observe(1.5); c.Inc(); g.Add(-1) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func TestParseSeries(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`a`, `a:b_c{}`, `a{x="1"}`, `a{x="1",y=""}`, `a{x="1",}`, `a{x="a,b=c{}"}`} {
		if _, _, err := ParseSeries(s); err != nil {
			t.Errorf("ParseSeries(%q): %v", s, err)
		}
	}
	name, labels, _ := ParseSeries(`n_total{outcome="delivered",b="x y"}`)
	if name != "n_total" || len(labels) != 2 || labels[0] != (Label{"outcome", "delivered"}) || labels[1] != (Label{"b", "x y"}) {
		t.Errorf("got %s %v", name, labels)
	}
	for _, s := range []string{``, `1a`, `a-b`, `a{`, `a{x}`, `a{x=1}`, `a{x="1"`, `a{x="1"}b`, `a{x="1" y="2"}`,
		`a{x="1",x="2"}`, `a{__x="1"}`, `a{x="\n"}`, `a{,}`, `a{x="1"}}`} {
		if _, _, err := ParseSeries(s); err == nil {
			t.Errorf("ParseSeries(%q): no error", s)
		}
	}
}

// FuzzParseSeries: what ParseSeries accepts registers, and expfmt reads
// the written series back with the same name and labels.
func FuzzParseSeries(f *testing.F) {
	for _, s := range []string{`a`, `numen_webhook_deliveries_total{outcome="failed"}`, `a{x="1",y="",}`, `a{x="é\x00"}`, `a{x="1"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, labels, err := ParseSeries(s)
		if err != nil {
			return
		}
		names := make([]string, len(labels))
		values := make([]string, len(labels))
		for i, l := range labels {
			names[i], values[i] = l.Name, l.Value
		}
		var r Registry
		r.Family(name, "Help.", KindGauge, names...).Func(func() float64 { return 2 }, values...)
		fams := parse(t, write(t, &r))
		fam := fams[name]
		if len(fams) != 1 || fam == nil || len(fam.Metric) != 1 || fam.Metric[0].GetGauge().GetValue() != 2 {
			t.Fatalf("%q: read back %v", s, fams)
		}
		got := map[string]string{}
		for _, l := range fam.Metric[0].Label {
			got[l.GetName()] = l.GetValue()
		}
		if len(got) != len(labels) {
			t.Fatalf("%q: labels %v, read back %v", s, labels, got)
		}
		for _, l := range labels {
			if v, ok := got[l.Name]; !ok || v != l.Value {
				t.Fatalf("%q: label %s=%q read back as %q", s, l.Name, l.Value, v)
			}
		}
	})
}

func TestRuntimeAndProcess(t *testing.T) {
	t.Parallel()
	var r Registry
	RegisterGo(&r)
	RegisterProcess(&r)
	fams := parse(t, write(t, &r))
	for name, kind := range map[string]dto.MetricType{
		"go_goroutines": dto.MetricType_GAUGE, "go_threads": dto.MetricType_GAUGE, "go_info": dto.MetricType_GAUGE,
		"go_gc_duration_seconds": dto.MetricType_SUMMARY, "go_memstats_alloc_bytes": dto.MetricType_GAUGE,
		"go_memstats_heap_inuse_bytes": dto.MetricType_GAUGE, "go_memstats_sys_bytes": dto.MetricType_GAUGE,
		"go_memstats_mallocs_total": dto.MetricType_COUNTER, "go_sched_gomaxprocs_threads": dto.MetricType_GAUGE,
		"process_cpu_seconds_total": dto.MetricType_COUNTER, "process_resident_memory_bytes": dto.MetricType_GAUGE,
		"process_virtual_memory_bytes": dto.MetricType_GAUGE, "process_open_fds": dto.MetricType_GAUGE,
		"process_max_fds": dto.MetricType_GAUGE, "process_start_time_seconds": dto.MetricType_GAUGE,
	} {
		f := fams[name]
		if f == nil || f.GetType() != kind {
			t.Errorf("%s: %v, want a %v", name, f, kind)
			continue
		}
		m := f.Metric[0]
		v := m.GetGauge().GetValue() + m.GetCounter().GetValue() + float64(m.GetSummary().GetSampleCount())
		if (v <= 0 || math.IsNaN(v)) && name != "process_cpu_seconds_total" && name != "go_gc_duration_seconds" {
			t.Errorf("%s = %v", name, v)
		}
	}
	if v := fams["go_sched_gomaxprocs_threads"].Metric[0].GetGauge().GetValue(); v < 1 {
		t.Errorf("go_sched_gomaxprocs_threads = %v", v)
	}
}

func TestParseStat(t *testing.T) {
	t.Parallel()
	// A command name with ") " in it; fields 14, 15, 22, 23, 24.
	line := "4242 (a) b (c) S 1 4242 4242 0 -1 4194560 500 0 0 0 150 50 0 0 20 0 7 0 123456 1320308736 11067 18446744073709551615\n"
	st, ok := parseStat([]byte(line))
	if !ok || st != (procStat{utime: 150, stime: 50, start: 123456, vsize: 1320308736, rss: 11067}) {
		t.Errorf("parseStat: %+v %v", st, ok)
	}
	if _, ok := parseStat([]byte("4242 (a) S 1 2")); ok {
		t.Error("parseStat read a short line")
	}
	limits := "Limit                     Soft Limit           Hard Limit           Units     \n" +
		"Max open files            20000                1048576              files     \n" +
		"Max address space         unlimited            unlimited            bytes     \n"
	if n, ok := limit([]byte(limits), "Max open files"); !ok || n != 20000 {
		t.Errorf("open files: %v %v", n, ok)
	}
	if n, ok := limit([]byte(limits), "Max address space"); !ok || n != math.MaxUint64 {
		t.Errorf("address space: %v %v", n, ok)
	}
	netstat := "TcpExt: SyncookiesSent\nTcpExt: 0\nIpExt: InNoRoutes InOctets OutOctets\nIpExt: 0 2000 3000\n"
	if in, out := netOctets([]byte(netstat)); in != 2000 || out != 3000 {
		t.Errorf("netOctets: %v %v", in, out)
	}
}

// TestHistogramFunc: a histogram read from a function writes what the same
// observations counted by a Histogram write; counts beyond the buckets go
// to +Inf, missing ones are zero.
func TestHistogramFunc(t *testing.T) {
	t.Parallel()
	var counted, read Registry
	h := counted.HistogramFamily("h_seconds", "Time.", []float64{0.5, 1, 2.5}, "backend").Histogram("a#1")
	for _, v := range []float64{0.1, 0.5, 0.75, 3} {
		h.Observe(v)
	}
	f := read.HistogramFamily("h_seconds", "Time.", []float64{0.5, 1, 2.5}, "backend")
	f.HistogramFunc(func() HistogramValue { return HistogramValue{Counts: []uint64{2, 1, 0, 1}, Sum: 4.35} }, "a#1")
	if got, want := write(t, &read), write(t, &counted); got != want {
		t.Errorf("read:\n%s\nwant, as counted:\n%s", got, want)
	}
	var odd Registry
	g := odd.HistogramFamily("h_seconds", "Time.", []float64{0.5, 1})
	g.HistogramFunc(func() HistogramValue { return HistogramValue{Counts: []uint64{1, 0, 2, 3}, Sum: 9} })
	fams := parse(t, write(t, &odd))
	m := fams["h_seconds"].Metric[0].Histogram
	if m.GetSampleCount() != 6 || m.Bucket[0].GetCumulativeCount() != 1 || m.Bucket[1].GetCumulativeCount() != 1 {
		t.Errorf("extra counts: %v", m)
	}
	var short Registry
	short.HistogramFamily("h_seconds", "Time.", []float64{0.5, 1}).HistogramFunc(func() HistogramValue { return HistogramValue{Counts: []uint64{1}} })
	if m := parse(t, write(t, &short))["h_seconds"].Metric[0].Histogram; m.GetSampleCount() != 1 {
		t.Errorf("missing counts: %v", m)
	}
}
