// Package promtext keeps metrics and writes them in the Prometheus text
// exposition format, version 0.0.4 (ContentType): counters and gauges of
// whole numbers and histograms counted with atomics, series read from a
// function at every write, and summaries so read (the Go runtime's GC
// pauses). It replaces github.com/prometheus/client_golang in the sidecar,
// whose package initialisation (protobuf's registry among it) every numen
// command paid for; its output is what that client's registry wrote:
// families sorted by name, each with its HELP and TYPE lines, label names
// sorted, series sorted by their label values, numbers formatted as
// expfmt formats them.
//
// A Registry holds families; a family holds series, one per combination of
// label values. Adding to a counter, gauge or histogram takes no lock;
// making a series and writing take the family's.
package promtext

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// ContentType is the media type of what Registry.Write writes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Kind is a family's metric type, its TYPE line.
type Kind uint8

// The kinds of families.
const (
	KindCounter Kind = iota
	KindGauge
	KindHistogram
	KindSummary
)

var kindNames = [...]string{"counter", "gauge", "histogram", "summary"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A Counter counts up, by whole numbers.
type Counter struct{ n atomic.Uint64 }

// Add adds n.
func (c *Counter) Add(n uint64) { c.n.Add(n) }

// Inc adds 1.
func (c *Counter) Inc() { c.n.Add(1) }

// Value is the count.
func (c *Counter) Value() uint64 { return c.n.Load() }

// A Gauge is a whole number that goes up and down.
type Gauge struct{ n atomic.Int64 }

// Add adds n (negative to subtract).
func (g *Gauge) Add(n int64) { g.n.Add(n) }

// Set sets the value.
func (g *Gauge) Set(n int64) { g.n.Store(n) }

// Value is the value.
func (g *Gauge) Value() int64 { return g.n.Load() }

// A Histogram counts observations in buckets by upper bound (an
// observation v falls in the first bucket whose bound is >= v) and keeps
// their sum. Written while observations are added, its _count is the sum of
// the buckets' counts (so the +Inf bucket and _count agree), and its _sum
// may lack the newest observations.
type Histogram struct {
	bounds []float64       // ascending, without +Inf
	counts []atomic.Uint64 // per bucket, not cumulative; the last is +Inf's
	sum    atomic.Uint64   // float64 bits
}

// Observe adds one observation.
func (h *Histogram) Observe(v float64) {
	i := 0
	for i < len(h.bounds) && v > h.bounds[i] {
		i++
	}
	h.counts[i].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// A Summary is what a summary series reads at every write: quantiles (of
// Quantiles, ascending) with their values, the sum and the count of the
// observations.
type Summary struct {
	Quantiles []float64
	Values    []float64
	Sum       float64
	Count     uint64
}

// A HistogramValue is what a histogram series read from a function gives
// at every write: the count of each bucket of the family's bounds (not
// cumulative; one more than the bounds, the last +Inf's) and the sum.
type HistogramValue struct {
	Counts []uint64
	Sum    float64
}

// A Label is a label's name and value.
type Label struct{ Name, Value string }

// Registry is a set of families. Its zero value is empty and ready.
type Registry struct {
	mu       sync.Mutex
	families map[string]*Family
	before   []func()
}

// Family is one metric name: its help, kind, label names and series.
type Family struct {
	name, help string
	kind       Kind
	labels     []string  // names, sorted
	given      []string  // names, in the order given when made
	order      []int     // order[i]: the position in labels of given[i]
	buckets    []float64 // histograms'
	mu         sync.Mutex
	series     map[string]*series // by the label values in label order, each after its length
}

type series struct {
	values  []string // in f.labels' order
	counter *Counter
	gauge   *Gauge
	hist    *Histogram
	fn      func() float64
	summary func() Summary
	histFn  func() HistogramValue
}

// Family returns the family of that name, made with the help, kind and
// label names given when the registry has none; the label names may come
// in another order then, but series take their label values in the order
// of the first (LabelNames). It panics
// when the name or a label name is not valid in the format, a label name
// repeats, or the family exists with another help, kind or label names:
// a program's error.
func (r *Registry) Family(name, help string, kind Kind, labelNames ...string) *Family {
	return r.family(name, help, kind, nil, labelNames)
}

// HistogramFamily is Family for a histogram with these bucket bounds
// (ascending, finite; +Inf is added).
func (r *Registry) HistogramFamily(name, help string, buckets []float64, labelNames ...string) *Family {
	for i, b := range buckets {
		if math.IsNaN(b) || math.IsInf(b, 0) || i > 0 && b <= buckets[i-1] {
			panic(fmt.Sprintf("promtext: histogram %s: buckets %v: want ascending finite bounds", name, buckets))
		}
	}
	return r.family(name, help, KindHistogram, slices.Clone(buckets), labelNames)
}

func (r *Registry) family(name, help string, kind Kind, buckets []float64, labelNames []string) *Family {
	if !validName(name, true) {
		panic(fmt.Sprintf("promtext: metric name %q", name))
	}
	if int(kind) >= len(kindNames) {
		panic(fmt.Sprintf("promtext: %s: kind %v", name, kind))
	}
	sorted := slices.Clone(labelNames)
	slices.Sort(sorted)
	for i, l := range sorted {
		if !validName(l, false) || strings.HasPrefix(l, "__") || i > 0 && l == sorted[i-1] ||
			kind == KindHistogram && l == "le" || kind == KindSummary && l == "quantile" {
			panic(fmt.Sprintf("promtext: %s: label names %q", name, labelNames))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.families[name]; ok {
		if f.help != help || f.kind != kind || !slices.Equal(f.labels, sorted) || !slices.Equal(f.buckets, buckets) {
			panic(fmt.Sprintf("promtext: family %s registered twice, differently", name))
		}
		return f
	}
	f := &Family{name: name, help: help, kind: kind, labels: sorted, given: slices.Clone(labelNames), buckets: buckets, series: map[string]*series{}}
	for _, l := range labelNames {
		f.order = append(f.order, slices.Index(sorted, l))
	}
	if r.families == nil {
		r.families = map[string]*Family{}
	}
	r.families[name] = f
	return f
}

// LabelNames returns the family's label names in the order its series
// take their values.
func (f *Family) LabelNames() []string { return slices.Clone(f.given) }

// BeforeWrite has Write call fn before it reads any series, one write at a
// time: for series that read a snapshot fn takes.
func (r *Registry) BeforeWrite(fn func()) {
	r.mu.Lock()
	r.before = append(r.before, fn)
	r.mu.Unlock()
}

// get returns the series of these label values (in LabelNames' order;
// invalid UTF-8 replaced, as the format wants UTF-8), made by mk when new. It panics when the kind or the
// number of values is wrong, when fresh and the series exists, and when
// not fresh and the series exists read from a function.
func (f *Family) get(want Kind, fresh bool, values []string, mk func(*series)) *series {
	if f.kind != want {
		panic(fmt.Sprintf("promtext: %s is a %v", f.name, f.kind))
	}
	if len(values) != len(f.labels) {
		panic(fmt.Sprintf("promtext: %s: %d label values for %d labels", f.name, len(values), len(f.labels)))
	}
	v := make([]string, len(values))
	for i, x := range values {
		v[f.order[i]] = strings.ToValidUTF8(x, "\uFFFD")
	}
	var kb []byte
	for _, x := range v {
		kb = strconv.AppendInt(kb, int64(len(x)), 10)
		kb = append(kb, ':')
		kb = append(kb, x...)
	}
	key := string(kb)
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.series[key]
	switch {
	case ok && fresh:
		panic(fmt.Sprintf("promtext: %s%s registered twice", f.name, formatLabels(f.labels, v)))
	case ok && (s.fn != nil || s.summary != nil || s.histFn != nil):
		panic(fmt.Sprintf("promtext: %s%s is read from a function", f.name, formatLabels(f.labels, v)))
	case !ok:
		s = &series{values: v}
		mk(s)
		f.series[key] = s
	}
	return s
}

// Counter returns the counter of these label values (in LabelNames'
// order), made at zero the first time.
func (f *Family) Counter(values ...string) *Counter {
	return f.get(KindCounter, false, values, func(s *series) { s.counter = new(Counter) }).counter
}

// Gauge returns the gauge of these label values, made at zero the first
// time.
func (f *Family) Gauge(values ...string) *Gauge {
	return f.get(KindGauge, false, values, func(s *series) { s.gauge = new(Gauge) }).gauge
}

// Histogram returns the histogram of these label values, made empty the
// first time.
func (f *Family) Histogram(values ...string) *Histogram {
	return f.get(KindHistogram, false, values, func(s *series) {
		s.hist = &Histogram{bounds: f.buckets, counts: make([]atomic.Uint64, len(f.buckets)+1)}
	}).hist
}

// Func adds a series of a counter or gauge family read from fn at every
// write. It panics when the series exists.
func (f *Family) Func(fn func() float64, values ...string) {
	if f.kind != KindCounter && f.kind != KindGauge {
		panic(fmt.Sprintf("promtext: %s: Func on a %v", f.name, f.kind))
	}
	f.fresh(values, func(s *series) { s.fn = fn })
}

// SummaryFunc adds a series of a summary family read from fn at every
// write. It panics when the series exists.
func (f *Family) SummaryFunc(fn func() Summary, values ...string) {
	if f.kind != KindSummary {
		panic(fmt.Sprintf("promtext: %s: SummaryFunc on a %v", f.name, f.kind))
	}
	f.fresh(values, func(s *series) { s.summary = fn })
}

// HistogramFunc adds a series of a histogram family read from fn at every
// write: for histograms counted elsewhere. It panics when the series
// exists. Counts beyond the family's buckets are added to +Inf's; missing
// ones are zero.
func (f *Family) HistogramFunc(fn func() HistogramValue, values ...string) {
	if f.kind != KindHistogram {
		panic(fmt.Sprintf("promtext: %s: HistogramFunc on a %v", f.name, f.kind))
	}
	f.fresh(values, func(s *series) { s.histFn = fn })
}

func (f *Family) fresh(values []string, mk func(*series)) { f.get(f.kind, true, values, mk) }

// Write writes every family in the text format, sorted by name. Families
// without series are written with their HELP and TYPE lines only.
func (r *Registry) Write(w io.Writer) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, fn := range r.before {
		fn()
	}
	names := make([]string, 0, len(r.families))
	for name := range r.families {
		names = append(names, name)
	}
	slices.Sort(names)
	bw := bufio.NewWriterSize(w, 16<<10)
	var b []byte
	for _, name := range names {
		b = r.families[name].appendTo(b[:0])
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func (f *Family) appendTo(b []byte) []byte {
	b = append(b, "# HELP "...)
	b = append(b, f.name...)
	b = append(b, ' ')
	b = appendEscaped(b, f.help, false)
	b = append(b, "\n# TYPE "...)
	b = append(b, f.name...)
	b = append(b, ' ')
	b = append(b, f.kind.String()...)
	b = append(b, '\n')
	f.mu.Lock()
	all := make([]*series, 0, len(f.series))
	for _, s := range f.series {
		all = append(all, s)
	}
	f.mu.Unlock()
	slices.SortFunc(all, func(a, b *series) int { return slices.Compare(a.values, b.values) })
	for _, s := range all {
		switch {
		case s.counter != nil:
			b = f.appendSample(b, "", s.values, "", 0, float64(s.counter.Value()))
		case s.gauge != nil:
			b = f.appendSample(b, "", s.values, "", 0, float64(s.gauge.Value()))
		case s.fn != nil:
			b = f.appendSample(b, "", s.values, "", 0, s.fn())
		case s.hist != nil:
			var n uint64
			for i := range s.hist.counts {
				n += s.hist.counts[i].Load()
				bound := math.Inf(1)
				if i < len(s.hist.bounds) {
					bound = s.hist.bounds[i]
				}
				b = f.appendSample(b, "_bucket", s.values, "le", bound, float64(n))
			}
			b = f.appendSample(b, "_sum", s.values, "", 0, math.Float64frombits(s.hist.sum.Load()))
			b = f.appendSample(b, "_count", s.values, "", 0, float64(n))
		case s.histFn != nil:
			v := s.histFn()
			var n uint64
			for i := range len(f.buckets) + 1 {
				if i < len(v.Counts) {
					n += v.Counts[i]
				}
				bound := math.Inf(1)
				if i < len(f.buckets) {
					bound = f.buckets[i]
				} else {
					for _, c := range v.Counts[min(i+1, len(v.Counts)):] {
						n += c
					}
				}
				b = f.appendSample(b, "_bucket", s.values, "le", bound, float64(n))
			}
			b = f.appendSample(b, "_sum", s.values, "", 0, v.Sum)
			b = f.appendSample(b, "_count", s.values, "", 0, float64(n))
		case s.summary != nil:
			v := s.summary()
			for i, q := range v.Quantiles {
				b = f.appendSample(b, "", s.values, "quantile", q, v.Values[i])
			}
			b = f.appendSample(b, "_sum", s.values, "", 0, v.Sum)
			b = f.appendSample(b, "_count", s.values, "", 0, float64(v.Count))
		}
	}
	return b
}

// appendSample appends one line: the name with suffix, the labels (and
// extra, the le or quantile label, last, when named), the value.
func (f *Family) appendSample(b []byte, suffix string, values []string, extra string, extraValue, value float64) []byte {
	b = append(b, f.name...)
	b = append(b, suffix...)
	if len(values) > 0 || extra != "" {
		b = append(b, '{')
		for i, v := range values {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendLabel(b, f.labels[i], v)
		}
		if extra != "" {
			if len(values) > 0 {
				b = append(b, ',')
			}
			b = append(b, extra...)
			b = append(b, `="`...)
			b = appendFloat(b, extraValue)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = appendFloat(b, value)
	return append(b, '\n')
}

func appendLabel(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, `="`...)
	b = appendEscaped(b, value, true)
	return append(b, '"')
}

func formatLabels(names, values []string) string {
	if len(names) == 0 {
		return ""
	}
	b := []byte{'{'}
	for i := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendLabel(b, names[i], values[i])
	}
	return string(append(b, '}'))
}

// appendEscaped appends s with backslash and line feed escaped (HELP
// text), and the double quote too for label values.
func appendEscaped(b []byte, s string, quote bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quote:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendFloat formats as expfmt does: the shortest representation, with
// an exponent for large and small magnitudes ('g'), +Inf, -Inf and NaN.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// validName reports whether s is a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)
// or, with metric false, a label name ([a-zA-Z_][a-zA-Z0-9_]*).
func validName(s string, metric bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' && metric || c >= '0' && c <= '9' && i > 0
		if !ok {
			return false
		}
	}
	return true
}
