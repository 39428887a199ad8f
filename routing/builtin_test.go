package routing

import (
	"testing"

	"github.com/numenhq/numen/data"
	"github.com/stretchr/testify/require"
)

// TestBuiltinIsTheFiles holds DefaultCoverage and DefaultPlatformMap, which
// come from the literals of builtin.go, to what ParseCoverage and ParseMap
// read from the files built into package data (data/gen's reproducibility
// test holds builtin.go to data/routing/*.json).
func TestBuiltinIsTheFiles(t *testing.T) {
	t.Parallel()
	raw, err := data.ReadFile("routing/coverage.json")
	require.NoError(t, err)
	parsed, err := ParseCoverage(raw)
	require.NoError(t, err)
	cov, err := DefaultCoverage()
	require.NoError(t, err)
	require.Equal(t, parsed, cov)
	require.NoError(t, cov.check())

	raw, err = data.ReadFile("routing/platform.json")
	require.NoError(t, err)
	parsedMap, err := ParseMap(raw)
	require.NoError(t, err)
	m, err := DefaultPlatformMap()
	require.NoError(t, err)
	require.Equal(t, parsedMap, m)
}

// TestDefaultsAreCopies: a caller that changes what DefaultCoverage or
// DefaultPlatformMap returned changes nothing for the next caller.
func TestDefaultsAreCopies(t *testing.T) {
	t.Parallel()
	cov, err := DefaultCoverage()
	require.NoError(t, err)
	route, network, score := cov.Routes[0], cov.Networks[0], cov.Scores[0]
	cov.Routes[0].ID, cov.Networks[0].MNO, cov.Scores[0].Score = "XXX", "changed", -1
	cov.About = "changed"
	again, err := DefaultCoverage()
	require.NoError(t, err)
	require.Equal(t, route, again.Routes[0])
	require.Equal(t, network, again.Networks[0])
	require.Equal(t, score, again.Scores[0])
	require.NotEqual(t, "changed", again.About)

	m, err := DefaultPlatformMap()
	require.NoError(t, err)
	prefix, country := m.Prefixes[0], m.Countries[0]
	m.Prefixes[0].Route, m.Countries[0].Route, m.DefaultRoute = "XXX", "XXX", "XXX"
	againMap, err := DefaultPlatformMap()
	require.NoError(t, err)
	require.Equal(t, prefix, againMap.Prefixes[0])
	require.Equal(t, country, againMap.Countries[0])
	require.Equal(t, "GT1", againMap.DefaultRoute)
}

// TestDefaultsAllocs: the built-in data costs a few copies, not a parse.
func TestDefaultsAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(10, func() { _, _ = DefaultCoverage() }); n > 4 {
		t.Errorf("DefaultCoverage: %v allocations, want at most 4", n)
	}
	if n := testing.AllocsPerRun(10, func() { _, _ = DefaultPlatformMap() }); n > 4 {
		t.Errorf("DefaultPlatformMap: %v allocations, want at most 4", n)
	}
}
