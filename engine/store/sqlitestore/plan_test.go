package sqlitestore

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestQueryPlans checks that the reads walk an index in the order they
// return rows: no full scan and no sort (USE TEMP B-TREE), whatever the
// size of the reports.
func TestQueryPlans(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), t.TempDir())
	require.NoError(t, err)
	defer s.Close()
	for name, q := range map[string]string{
		"reports": `SELECT storage, product, count, cost, first_ms, last_ms FROM reports
			WHERE account = 'a' ORDER BY storage, product`,
		"products": `SELECT product FROM reports WHERE account = 'a' AND storage = 's'`,
		"export": `SELECT product, body FROM results
			WHERE account = 'a' AND storage = 's' ORDER BY created_ms, id`,
		"first page": `SELECT id, product, created_ms, cost, body FROM results
			WHERE account = 'a' AND storage = 's' ORDER BY created_ms, id LIMIT 100`,
		"cursor": `SELECT created_ms FROM results WHERE id = 'x' AND account = 'a' AND storage = 's'`,
		"next page": `SELECT id, product, created_ms, cost, body FROM results
			WHERE account = 'a' AND storage = 's' AND (created_ms, id) > (1, 'x')
			ORDER BY created_ms, id LIMIT 100`,
	} {
		rows, err := s.rdb.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+q)
		require.NoError(t, err)
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			require.NoError(t, rows.Scan(&id, &parent, &notused, &detail))
			plan = append(plan, detail)
		}
		require.NoError(t, rows.Err())
		rows.Close()
		all := strings.Join(plan, "; ")
		require.NotContains(t, all, "TEMP B-TREE", "%s: %s", name, all)
		require.Contains(t, all, "SEARCH", "%s: %s", name, all)
		require.NotContains(t, all, "SCAN", "%s: %s", name, all)
		t.Logf("%s: %s", name, all)
	}
}
