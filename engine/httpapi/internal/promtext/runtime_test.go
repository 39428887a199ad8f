package promtext

import (
	"runtime/metrics"
	"testing"
)

// TestRuntimeSettings checks the three settings RegisterGo reads without
// runtime/metrics against what runtime/metrics reports (client_golang's
// source for them).
func TestRuntimeSettings(t *testing.T) {
	t.Parallel()
	var r Registry
	RegisterGo(&r)
	fams := parse(t, write(t, &r))
	samples := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}, {Name: "/sched/gomaxprocs:threads"}}
	metrics.Read(samples)
	for i, name := range []string{"go_gc_gogc_percent", "go_gc_gomemlimit_bytes", "go_sched_gomaxprocs_threads"} {
		f := fams[name]
		if f == nil {
			t.Errorf("%s missing", name)
			continue
		}
		got, want := f.Metric[0].GetGauge().GetValue(), float64(samples[i].Value.Uint64())
		if name == "go_gc_gogc_percent" {
			want = float64(int64(samples[i].Value.Uint64())) // -1 for off
		}
		if got != want {
			t.Errorf("%s = %v, runtime/metrics %s = %v", name, got, samples[i].Name, want)
		}
	}
}

func TestGCPercentFromEnv(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]int32{
		"": 100, "100": 100, "50": 50, "0": 0, "off": -1, "-1": -1, "-20": -1, "+30": 30,
		"OFF": 100, "x": 100, " 50": 100, "2147483647": 2147483647, "2147483648": 100,
	} {
		if got := gcPercentFromEnv(v); got != want {
			t.Errorf("gcPercentFromEnv(%q) = %d, want %d", v, got, want)
		}
	}
}
