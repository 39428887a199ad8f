package pgstore

import (
	"testing"
	"time"

	"github.com/numenhq/numen/engine/store/internal/facts"
)

// TestDay: the day the writer counts a result in (day, as daySQL) is the
// date of its summary (facts.Day), before 1970 too.
func TestDay(t *testing.T) {
	for _, ms := range []int64{0, 1, -1, 86_399_999, 86_400_000, -86_400_000, -86_400_001,
		time.Date(2026, 11, 27, 23, 59, 59, 999e6, time.UTC).UnixMilli(), time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC).UnixMilli()} {
		got := time.Unix(int64(day(ms))*86400, 0).UTC().Format(time.DateOnly)
		if want := facts.Day(ms); got != want {
			t.Errorf("day(%d) = %s, want %s", ms, got, want)
		}
	}
}
