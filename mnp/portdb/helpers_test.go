package portdb

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/numbering"
)

var sharedPlan = sync.OnceValues(func() (*numbering.Plan, error) { return numbering.Load() })

func testPlan(t testing.TB) *numbering.Plan {
	t.Helper()
	p, err := sharedPlan()
	require.NoError(t, err)
	return p
}

// fixedTime is the build time of the test databases.
var fixedTime = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// buildBytes builds a database from CSV text.
func buildBytes(t testing.TB, csv string, regions ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	_, err := Build(&buf, strings.NewReader(csv), BuildOptions{
		Plan: testPlan(t), Regions: regions, Created: fixedTime, Source: "test", Name: "test.csv",
	})
	require.NoError(t, err)
	return buf.Bytes()
}

// openCSV builds a database from CSV text and opens it in memory.
func openCSV(t testing.TB, csv string, regions ...string) *DB {
	t.Helper()
	db, err := OpenBytes(buildBytes(t, csv, regions...))
	require.NoError(t, err)
	require.NoError(t, db.Verify())
	return db
}

func readSample(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/ported.csv")
	require.NoError(t, err)
	return string(b)
}
