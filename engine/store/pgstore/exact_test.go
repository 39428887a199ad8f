package pgstore_test

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/facts"
)

// requireExact checks that what the store reads of every report of the
// database at dsn, its summary and its row in Reports, counts exactly the
// results stored: the counts and costs per value of every field and per
// day, the count, cost and first and last times per product. It returns
// the number of results.
func requireExact(t *testing.T, s store.Reader, dsn string) int64 {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)

	type report struct{ account, storage string }
	type tally struct{ count, cost int64 }
	summaries := map[report]map[[2]string]tally{}
	rows, err := conn.Query(ctx, `
SELECT account, storage, v.field, v.value, count(*), sum(cost)
FROM results CROSS JOIN LATERAL (VALUES
	('product', product), ('status', status), ('connectivity', connectivity), ('number_type', number_type),
	('country', country), ('network', network),
	('valid', valid), ('invalid_reason', invalid_reason), ('route', route),
	('day', to_char(to_timestamp(created_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD'))
) AS v (field, value)
GROUP BY 1, 2, 3, 4`)
	require.NoError(t, err)
	for rows.Next() {
		var r report
		var field, value string
		var n tally
		require.NoError(t, rows.Scan(&r.account, &r.storage, &field, &value, &n.count, &n.cost))
		if summaries[r] == nil {
			summaries[r] = map[[2]string]tally{}
		}
		summaries[r][[2]string{field, value}] = n
	}
	require.NoError(t, rows.Err())

	var total int64
	for r, want := range summaries {
		sum, err := s.Summary(ctx, r.account, r.storage)
		require.NoError(t, err)
		got := map[[2]string]tally{}
		for f, ts := range sum.Values {
			for _, v := range ts {
				got[[2]string{string(f), v.Value}] = tally{v.Count, int64(v.Cost)}
			}
		}
		for _, v := range sum.Days {
			got[[2]string{facts.DayField, v.Value}] = tally{v.Count, int64(v.Cost)}
		}
		require.Equal(t, want, got, "summary of %v", r)
		total += sum.Count
	}

	type product struct {
		report
		product engine.Product
	}
	type row struct{ count, cost, first, last int64 }
	want := map[product]row{}
	rows, err = conn.Query(ctx, `
SELECT account, storage, product, count(*), sum(cost), min(created_ms), max(created_ms)
FROM results GROUP BY 1, 2, 3`)
	require.NoError(t, err)
	accounts := map[string]bool{}
	for rows.Next() {
		var p product
		var r row
		require.NoError(t, rows.Scan(&p.account, &p.storage, &p.product, &r.count, &r.cost, &r.first, &r.last))
		want[p] = r
		accounts[p.account] = true
	}
	require.NoError(t, rows.Err())
	got := map[product]row{}
	for account := range accounts {
		reports, err := s.Reports(ctx, account)
		require.NoError(t, err)
		for _, rep := range reports {
			var n int64
			for _, p := range rep.Products {
				w := want[product{report{account, rep.Name}, p}]
				n += w.count
				got[product{report{account, rep.Name}, p}] = w
			}
			// Reports sums a report's products: check the sums.
			require.Equal(t, n, rep.Count, "count of report %q of %q", rep.Name, account)
			var cost, first, last int64
			first = rep.First.UnixMilli()
			for _, p := range rep.Products {
				w := want[product{report{account, rep.Name}, p}]
				cost += w.cost
				first, last = min(first, w.first), max(last, w.last)
			}
			require.EqualValues(t, cost, rep.Cost, "cost of report %q of %q", rep.Name, account)
			require.Equal(t, first, rep.First.UnixMilli(), "first of report %q of %q", rep.Name, account)
			require.Equal(t, last, rep.Last.UnixMilli(), "last of report %q of %q", rep.Name, account)
		}
	}
	require.Equal(t, want, got, "the products of every report")
	return total
}
