package core_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/core"
	"github.com/numenhq/numen/engine/store/storetest"
)

func TestPageSize(t *testing.T) {
	t.Parallel()
	for limit, want := range map[int]int{-1: store.DefaultPage, 0: store.DefaultPage, 1: 1, 500: 500, store.MaxPage: store.MaxPage, store.MaxPage + 1: store.MaxPage} {
		require.Equal(t, want, core.PageSize(limit), "limit %d", limit)
	}
}

func TestSortReports(t *testing.T) {
	t.Parallel()
	at := func(h int) time.Time { return storetest.Base.Add(time.Duration(h) * time.Hour) }
	reports := []store.Report{
		{Name: "b", Last: at(1)},
		{Name: "c", Last: at(2), Products: []engine.Product{engine.ProductNT, engine.ProductHLR}},
		{Name: "a", Last: at(1)},
	}
	core.SortReports(reports)
	require.Equal(t, []store.Report{
		{Name: "c", Last: at(2), Products: []engine.Product{engine.ProductHLR, engine.ProductNT}},
		{Name: "a", Last: at(1)},
		{Name: "b", Last: at(1)},
	}, reports)
}

func TestChoosePlan(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		total, least int64
		limit        int
		want         core.QueryPlan
	}{
		{1_000_000, 350_000, 50, core.PlanByTime}, // a third: a page within 150 rows
		{1_000_000, 30_000, 50, core.PlanByTime},  // 3%: 1,700 rows by time, 30,000 by value
		{1_000_000, 5_000, 50, core.PlanByValue},  // 0.5%: 10,000 rows by time, 5,000 by value
		{1_000_000, 100, 50, core.PlanByValue},    // 0.01%
		{1_000_000, 0, 50, core.PlanByValue},      // a value the report lacks
		{1_000_000, 100, 0, core.PlanByValue},     // a download of few
		{1_000_000, 600_000, 0, core.PlanByTime},  // a download of most
		{90, 36, 7, core.PlanByTime},
	} {
		require.Equal(t, c.want, core.ChoosePlan(c.total, c.least, c.limit), "%+v", c)
	}
}

// dollar is a dialect with PostgreSQL's parameters, and a Match that
// selects by a subquery when the plan says so.
var dollar = core.SQL{
	Param: func(n int) string { return "$" + string(rune('0'+n%10)) },
	Match: func(conds []core.Cond, plan core.QueryPlan, arg func(any) string) (string, bool) {
		return core.MatchColumns(conds, arg), plan == core.PlanByValue
	},
}

func TestSelectSQL(t *testing.T) {
	t.Parallel()
	q := &store.Query{Where: []store.Cond{{Field: store.FieldCountry, Value: "GB"}}, Desc: true}
	after := core.NextCursor(q, "", 1795571875000, "2s0xubhztm1n")
	sql, args, err := core.SelectSQL(&dollar, "id", "acct", "S-2026-11", q, after, 50, core.PlanByValue)
	require.NoError(t, err)
	require.Equal(t, "SELECT id FROM (SELECT * FROM results WHERE account = $1 AND storage = $2 AND country = $3"+
		" AND (created_ms, id) < ($4, $5) OFFSET 0) results ORDER BY created_ms DESC, id DESC LIMIT $6", sql)
	require.Equal(t, []any{"acct", "S-2026-11", "GB", int64(1795571875000), "2s0xubhztm1n", 51}, args)

	q = &store.Query{Sort: store.SortNumber, NumberPrefix: "+4479"}
	sql, _, err = core.SelectSQL(&core.SQL{Param: func(int) string { return "?" }}, "id", "a", "s", q, "", 0, core.PlanAuto)
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(sql, "AND number >= ? AND number < ? ORDER BY number ASC, created_ms ASC, id ASC"), sql)
}

// FuzzCursor: a page cursor from outside (the after parameter) is one the
// store made or ErrBadCursor, never a panic.
func FuzzCursor(f *testing.F) {
	q := store.Query{Desc: true}
	f.Add(core.NextCursor(&q, "", 1795571875000, "2s0xubhztm1n"))
	f.Add("e30")
	f.Add("!!!")
	f.Fuzz(func(t *testing.T, after string) {
		_, _, err := core.SelectSQL(&dollar, "id", "acct", "S-2026-11", &q, after, 50, core.PlanAuto)
		if err != nil {
			require.ErrorIs(t, err, store.ErrBadCursor)
		}
	})
}

// TestWriter: results queued together commit together, each is answered,
// an invalid record is refused before it is queued, and after Close a
// Record is store.ErrClosed.
func TestWriter(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		type item struct{ done chan error }
		release := make(chan struct{})
		var groups []int
		w := &core.Writer[*item]{
			Name: "test", MaxBatch: 64,
			Commit: func(batch []*item) {
				<-release
				groups = append(groups, len(batch))
				for _, it := range batch {
					it.done <- nil
				}
			},
			New: func(store.Entry) (*item, <-chan error) {
				it := &item{done: make(chan error, 1)}
				return it, it.done
			},
		}
		w.Start(1)
		rs := storetest.Varied("acct", "S-2026-11", 10)
		first, rest := make(chan error, 1), make(chan error, 1)
		go func() { first <- w.Record(t.Context(), rs[0]) }()
		synctest.Wait() // the writer commits the first, and waits
		go func() { rest <- w.RecordAll(t.Context(), rs[1:]) }()
		synctest.Wait() // the rest are queued meanwhile
		require.Equal(t, 9, w.Queued())
		close(release)
		require.NoError(t, <-first)
		require.NoError(t, <-rest)
		require.Equal(t, []int{1, 9}, groups, "the nine queued during the first commit are one group")

		bad := rs[0]
		bad.ID = ""
		require.ErrorIs(t, w.Record(t.Context(), bad), store.ErrInvalidRecord)
		require.True(t, w.Close())
		require.False(t, w.Close(), "closed already")
		require.ErrorIs(t, w.Record(t.Context(), rs[0]), store.ErrClosed)
		require.ErrorIs(t, w.RecordAll(t.Context(), rs), store.ErrClosed)
	})
}
