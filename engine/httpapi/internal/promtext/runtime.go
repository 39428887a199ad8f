package promtext

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"
)

// memStats are the go_memstats_* families read from runtime.MemStats,
// named, typed and described as client_golang's Go collector does.
var memStats = []struct {
	name  string
	kind  Kind
	help  string
	value func(*runtime.MemStats) uint64
}{
	{"go_memstats_alloc_bytes", KindGauge, "Number of bytes allocated in heap and currently in use. Equals to /memory/classes/heap/objects:bytes.",
		func(m *runtime.MemStats) uint64 { return m.Alloc }},
	{"go_memstats_alloc_bytes_total", KindCounter, "Total number of bytes allocated in heap until now, even if released already. Equals to /gc/heap/allocs:bytes.",
		func(m *runtime.MemStats) uint64 { return m.TotalAlloc }},
	{"go_memstats_sys_bytes", KindGauge, "Number of bytes obtained from system. Equals to /memory/classes/total:byte.",
		func(m *runtime.MemStats) uint64 { return m.Sys }},
	{"go_memstats_mallocs_total", KindCounter, "Total number of heap objects allocated, both live and gc-ed. Semantically a counter version for go_memstats_heap_objects gauge. Equals to /gc/heap/allocs:objects + /gc/heap/tiny/allocs:objects.",
		func(m *runtime.MemStats) uint64 { return m.Mallocs }},
	{"go_memstats_frees_total", KindCounter, "Total number of heap objects frees. Equals to /gc/heap/frees:objects + /gc/heap/tiny/allocs:objects.",
		func(m *runtime.MemStats) uint64 { return m.Frees }},
	{"go_memstats_heap_alloc_bytes", KindGauge, "Number of heap bytes allocated and currently in use, same as go_memstats_alloc_bytes. Equals to /memory/classes/heap/objects:bytes.",
		func(m *runtime.MemStats) uint64 { return m.HeapAlloc }},
	{"go_memstats_heap_sys_bytes", KindGauge, "Number of heap bytes obtained from system. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes + /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.",
		func(m *runtime.MemStats) uint64 { return m.HeapSys }},
	{"go_memstats_heap_idle_bytes", KindGauge, "Number of heap bytes waiting to be used. Equals to /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.",
		func(m *runtime.MemStats) uint64 { return m.HeapIdle }},
	{"go_memstats_heap_inuse_bytes", KindGauge, "Number of heap bytes that are in use. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes",
		func(m *runtime.MemStats) uint64 { return m.HeapInuse }},
	{"go_memstats_heap_released_bytes", KindGauge, "Number of heap bytes released to OS. Equals to /memory/classes/heap/released:bytes.",
		func(m *runtime.MemStats) uint64 { return m.HeapReleased }},
	{"go_memstats_heap_objects", KindGauge, "Number of currently allocated objects. Equals to /gc/heap/objects:objects.",
		func(m *runtime.MemStats) uint64 { return m.HeapObjects }},
	{"go_memstats_stack_inuse_bytes", KindGauge, "Number of bytes obtained from system for stack allocator in non-CGO environments. Equals to /memory/classes/heap/stacks:bytes.",
		func(m *runtime.MemStats) uint64 { return m.StackInuse }},
	{"go_memstats_stack_sys_bytes", KindGauge, "Number of bytes obtained from system for stack allocator. Equals to /memory/classes/heap/stacks:bytes + /memory/classes/os-stacks:bytes.",
		func(m *runtime.MemStats) uint64 { return m.StackSys }},
	{"go_memstats_mspan_inuse_bytes", KindGauge, "Number of bytes in use by mspan structures. Equals to /memory/classes/metadata/mspan/inuse:bytes.",
		func(m *runtime.MemStats) uint64 { return m.MSpanInuse }},
	{"go_memstats_mspan_sys_bytes", KindGauge, "Number of bytes used for mspan structures obtained from system. Equals to /memory/classes/metadata/mspan/inuse:bytes + /memory/classes/metadata/mspan/free:bytes.",
		func(m *runtime.MemStats) uint64 { return m.MSpanSys }},
	{"go_memstats_mcache_inuse_bytes", KindGauge, "Number of bytes in use by mcache structures. Equals to /memory/classes/metadata/mcache/inuse:bytes.",
		func(m *runtime.MemStats) uint64 { return m.MCacheInuse }},
	{"go_memstats_mcache_sys_bytes", KindGauge, "Number of bytes used for mcache structures obtained from system. Equals to /memory/classes/metadata/mcache/inuse:bytes + /memory/classes/metadata/mcache/free:bytes.",
		func(m *runtime.MemStats) uint64 { return m.MCacheSys }},
	{"go_memstats_buck_hash_sys_bytes", KindGauge, "Number of bytes used by the profiling bucket hash table. Equals to /memory/classes/profiling/buckets:bytes.",
		func(m *runtime.MemStats) uint64 { return m.BuckHashSys }},
	{"go_memstats_gc_sys_bytes", KindGauge, "Number of bytes used for garbage collection system metadata. Equals to /memory/classes/metadata/other:bytes.",
		func(m *runtime.MemStats) uint64 { return m.GCSys }},
	{"go_memstats_other_sys_bytes", KindGauge, "Number of bytes used for other system allocations. Equals to /memory/classes/other:bytes.",
		func(m *runtime.MemStats) uint64 { return m.OtherSys }},
	{"go_memstats_next_gc_bytes", KindGauge, "Number of heap bytes when next garbage collection will take place. Equals to /gc/heap/goal:bytes.",
		func(m *runtime.MemStats) uint64 { return m.NextGC }},
}

// RegisterGo adds the Go runtime's metrics, as client_golang's Go collector
// (collectors.NewGoCollector with its defaults) names them: go_goroutines,
// go_threads (threads created), go_info{version}, go_gc_duration_seconds
// (a summary of the GC pauses: quantiles 0, 0.25, 0.5, 0.75 and 1 of the
// last pauses the runtime keeps), go_memstats_* (runtime.MemStats),
// go_memstats_last_gc_time_seconds, go_gc_gogc_percent,
// go_gc_gomemlimit_bytes and go_sched_gomaxprocs_threads. They are read
// once per write.
//
// The last three are what client_golang reads from runtime/metrics
// (/gc/gogc:percent, /gc/gomemlimit:bytes, /sched/gomaxprocs:threads); this
// package reads them without it, because importing runtime/metrics runs its
// initialisation (a description for every GODEBUG setting) in every numen
// command, serve or not: 0.4 MiB of peak RSS for `numen nt` (the
// section "Issue 33: start-up of the numbering commands" of
// benchmarks/README.md). The memory limit and GOMAXPROCS come from
// debug.SetMemoryLimit(-1) and runtime.GOMAXPROCS(0), which only read them;
// the GC percentage, which the runtime offers no way to read but
// runtime/metrics, is the one the runtime took from GOGC at start (see
// gcPercentFromEnv): no numen code changes it while running.
func RegisterGo(r *Registry) {
	var (
		mem     runtime.MemStats
		gc      debug.GCStats
		samples [3]float64 // GC percent, memory limit, GOMAXPROCS
	)
	gogc := float64(gcPercentFromEnv(os.Getenv("GOGC")))
	gc.PauseQuantiles = make([]time.Duration, 5)
	r.BeforeWrite(func() {
		runtime.ReadMemStats(&mem)
		debug.ReadGCStats(&gc)
		samples = [3]float64{gogc, float64(debug.SetMemoryLimit(-1)), float64(runtime.GOMAXPROCS(0))}
	})
	r.Family("go_goroutines", "Number of goroutines that currently exist.", KindGauge).
		Func(func() float64 { return float64(runtime.NumGoroutine()) })
	r.Family("go_threads", "Number of OS threads created.", KindGauge).
		Func(func() float64 { n, _ := runtime.ThreadCreateProfile(nil); return float64(n) })
	r.Family("go_info", "Information about the Go environment.", KindGauge, "version").
		Func(func() float64 { return 1 }, runtime.Version())
	r.Family("go_gc_duration_seconds", "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", KindSummary).
		SummaryFunc(func() Summary {
			s := Summary{Quantiles: []float64{0, 0.25, 0.5, 0.75, 1}, Values: make([]float64, 5),
				Sum: gc.PauseTotal.Seconds(), Count: uint64(gc.NumGC)}
			for i, d := range gc.PauseQuantiles {
				s.Values[i] = d.Seconds()
			}
			return s
		})
	for _, m := range memStats {
		r.Family(m.name, m.help, m.kind).Func(func() float64 { return float64(m.value(&mem)) })
	}
	r.Family("go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", KindGauge).
		Func(func() float64 { return float64(mem.LastGC) / 1e9 })
	sample := func(i int) func() float64 {
		return func() float64 { return samples[i] }
	}
	r.Family("go_gc_gogc_percent", "Heap size target percentage configured by the user, otherwise 100. This value is set by the GOGC environment variable, and the runtime/debug.SetGCPercent function. Sourced from /gc/gogc:percent.", KindGauge).
		Func(sample(0))
	r.Family("go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user, otherwise math.MaxInt64. This value is set by the GOMEMLIMIT environment variable, and the runtime/debug.SetMemoryLimit function. Sourced from /gc/gomemlimit:bytes.", KindGauge).
		Func(sample(1))
	r.Family("go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute user-level Go code simultaneously. Sourced from /sched/gomaxprocs:threads.", KindGauge).
		Func(sample(2))
}

// gcPercentFromEnv returns the GC percentage the runtime sets from the
// GOGC variable at start (runtime.readGOGC and setGCPercent): -1 for "off"
// or any negative number, the number when it parses as a 32-bit integer,
// else 100.
func gcPercentFromEnv(v string) int32 {
	if v == "off" {
		return -1
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 100
	}
	return int32(max(n, -1))
}
