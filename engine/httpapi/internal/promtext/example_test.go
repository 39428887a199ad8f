package promtext_test

import (
	"os"

	"github.com/numenhq/numen/engine/httpapi/internal/promtext"
)

func Example() {
	var r promtext.Registry
	r.Family("jobs_total", "Jobs by outcome.", promtext.KindCounter, "outcome").Counter("done").Add(2)
	r.HistogramFamily("job_seconds", "Time per job.", []float64{0.1, 1}).Histogram().Observe(0.25)
	r.Write(os.Stdout)
	// Output:
	// # HELP job_seconds Time per job.
	// # TYPE job_seconds histogram
	// job_seconds_bucket{le="0.1"} 0
	// job_seconds_bucket{le="1"} 1
	// job_seconds_bucket{le="+Inf"} 1
	// job_seconds_sum 0.25
	// job_seconds_count 1
	// # HELP jobs_total Jobs by outcome.
	// # TYPE jobs_total counter
	// jobs_total{outcome="done"} 2
}
