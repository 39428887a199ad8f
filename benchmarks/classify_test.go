package benchmarks

import (
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/numenhq/numen/numbering"
	"github.com/nyaruka/phonenumbers/v2"
	"github.com/nyaruka/phonenumbers/v2/carrier"
	"github.com/nyaruka/phonenumbers/v2/geocoding"
	"github.com/nyaruka/phonenumbers/v2/timezone"
)

// Loading the plan takes a fifth of a second and testing calls each
// benchmark function several times while it sizes b.N, so load it once.
var (
	loadPlan    = sync.OnceValues(func() (*numbering.Plan, error) { return numbering.Load() })
	benchCorpus = sync.OnceValue(func() []string { return packed(Corpus()) })
	// benchPlusCorpus is the corpus as libphonenumber gets it: "00"
	// rewritten to "+", the only form it accepts without a default region.
	// It also warms libphonenumber up: its metadata, and the carrier,
	// geocoding and time-zone data, are read on first use, and the loops
	// are to measure lookups, not loading.
	benchPlusCorpus = sync.OnceValue(func() []string {
		c := Corpus()
		for i, s := range c {
			c[i] = PlusForm(s)
			classifyFull(c[i])
		}
		return packed(c)
	})
)

// packed returns the strings copied into one backing array, in order, so
// that reading the corpus costs the loops no cache misses of its own (each
// string built apart lies somewhere on the heap).
func packed(ss []string) []string {
	n := 0
	for _, s := range ss {
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range ss {
		b.WriteString(s)
	}
	all := b.String()
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i], all = all[:len(s)], all[len(s):]
	}
	return out
}

// Sinks keep the compiler from discarding the work being measured.
var (
	resultSink   numbering.Result
	validitySink numbering.Validity
	numberSink   numbering.Number
	pnSink       *phonenumbers.PhoneNumber
	typeSink     phonenumbers.PhoneNumberType
	boolSink     bool
	stringSink   string
	stringsSink  []string
	errSink      error
)

func plan(b *testing.B) *numbering.Plan {
	b.Helper()
	p, err := loadPlan()
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkClassify compares the ways to answer "what is this number" over
// the corpus, one number per iteration. numen and phonenumbers-full return
// the same facts (validity, type, country, original network, geographic
// description, time zones); phonenumbers is libphonenumber's validity and
// type alone.
func BenchmarkClassify(b *testing.B) {
	b.Run("impl=numen", func(b *testing.B) {
		p, c := plan(b), benchCorpus()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			resultSink = p.ClassifyString(c[i%len(c)])
		}
	})
	b.Run("impl=phonenumbers", func(b *testing.B) {
		c := benchPlusCorpus()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			num, err := phonenumbers.Parse(c[i%len(c)], "ZZ")
			if err != nil {
				errSink = err
				continue
			}
			boolSink = phonenumbers.IsValidNumber(num)
			typeSink = phonenumbers.GetNumberType(num)
		}
	})
	b.Run("impl=phonenumbers-full", func(b *testing.B) {
		c := benchPlusCorpus()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			classifyFull(c[i%len(c)])
		}
	})
}

// BenchmarkValidate measures the first question about a number, on the
// corpus in E.164 form: is it valid, and of which type. numen is
// Plan.Validate (validity, type and country); phonenumbers is Parse,
// IsValidNumber and GetNumberType (validity and type).
func BenchmarkValidate(b *testing.B) {
	e164 := sync.OnceValue(func() []string { return packed(E164Form(benchCorpus())) })
	b.Run("impl=numen", func(b *testing.B) {
		p, c := plan(b), e164()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			validitySink = p.Validate(c[i%len(c)])
		}
	})
	b.Run("impl=phonenumbers", func(b *testing.B) {
		c := e164()
		for _, s := range c { // warm up: metadata and regular expressions
			if num, err := phonenumbers.Parse(s, "ZZ"); err == nil {
				phonenumbers.GetNumberType(num)
			}
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			num, err := phonenumbers.Parse(c[i%len(c)], "ZZ")
			if err != nil {
				errSink = err
				continue
			}
			boolSink = phonenumbers.IsValidNumber(num)
			typeSink = phonenumbers.GetNumberType(num)
		}
	})
}

// classifyFull asks libphonenumber for everything ClassifyString returns.
func classifyFull(s string) {
	num, err := phonenumbers.Parse(s, "ZZ")
	if err != nil {
		errSink = err
		return
	}
	boolSink = phonenumbers.IsValidNumber(num)
	typeSink = phonenumbers.GetNumberType(num)
	stringSink = phonenumbers.GetRegionCodeForNumber(num)
	stringSink, errSink = carrier.GetNameForNumber(num, "en")
	stringSink, errSink = geocoding.GetDescriptionForNumber(num, "en")
	stringsSink, errSink = timezone.GetTimeZonesForNumber(num)
}

// BenchmarkClassifyParsed measures Plan.Classify alone, on numbers parsed
// before the timer starts: ClassifyString less BenchmarkParse. Numbers that
// do not parse are left out, so the mix differs slightly from the corpus.
func BenchmarkClassifyParsed(b *testing.B) {
	b.Run("impl=numen", func(b *testing.B) {
		p := plan(b)
		var numbers []numbering.Number
		for _, s := range benchCorpus() {
			if n, err := p.Parse(s); err == nil {
				numbers = append(numbers, n)
			}
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			resultSink = p.Classify(numbers[i%len(numbers)])
		}
	})
}

// BenchmarkParse measures parsing alone: text to calling code and national
// number, without classification.
func BenchmarkParse(b *testing.B) {
	b.Run("impl=numen", func(b *testing.B) {
		p, c := plan(b), benchCorpus()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			numberSink, errSink = p.Parse(c[i%len(c)])
		}
	})
	b.Run("impl=phonenumbers", func(b *testing.B) {
		c := benchPlusCorpus()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			pnSink, errSink = phonenumbers.Parse(c[i%len(c)], "ZZ")
		}
	})
}

// BenchmarkLoad measures a cold start: building a Plan from the embedded
// data. live-B/op is the heap a loaded Plan keeps, measured once after the
// loop.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		if _, err := numbering.Load(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(liveHeap(b)), "live-B/op")
}

// liveHeap returns the bytes of heap that one loaded Plan keeps reachable.
func liveHeap(b *testing.B) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := numbering.Load()
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(p)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}
