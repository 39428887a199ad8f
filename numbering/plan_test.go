package numbering

import (
	"sync"
	"testing"
)

// testPlan loads the plan once for all tests of the package.
var testPlan = sync.OnceValues(Load)

func plan(t testing.TB) *Plan {
	t.Helper()
	p, err := testPlan()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p
}
