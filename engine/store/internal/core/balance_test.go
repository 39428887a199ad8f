package core

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
)

func TestLocalBalances(t *testing.T) {
	var mu sync.Mutex
	reports := []store.Report{{Name: "SYNC-API-2026-10", Cost: 500}, {Name: "SYNC-API-NT-2026-11", Cost: 30}}
	reads := 0
	now := time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC)
	lb := &LocalBalances{
		Reports: func(ctx context.Context, account string) ([]store.Report, error) {
			mu.Lock()
			defer mu.Unlock()
			reads++
			return append([]store.Report(nil), reports...), nil
		},
		Now: func() time.Time { return now },
	}
	ctx := t.Context()
	capped := engine.Money(50)
	require.Nil(t, lb.Budget("a", engine.Limits{}))
	b := lb.Budget("a", engine.Limits{MonthlyCap: &capped})

	// 30 of 50 spent this month: two lookups at 10 fit, the third not.
	require.NoError(t, b.Reserve(ctx, 10))
	require.NoError(t, b.Reserve(ctx, 10))
	var le *engine.LimitError
	require.ErrorAs(t, b.Reserve(ctx, 10), &le)
	require.Equal(t, "cap", le.Limit)
	require.ErrorIs(t, b.Check(ctx, 1), engine.ErrLimit)
	b.Settle(10, 0, true) // not charged: free again
	require.NoError(t, b.Check(ctx, 10))
	b.Settle(10, 10, true)
	require.Equal(t, 1, reads, "spending read once")

	bal, err := lb.Balance(ctx, "a", engine.Limits{MonthlyCap: &capped})
	require.NoError(t, err)
	require.Equal(t, engine.Money(30), bal.SpentThisMonth, "what the reports say")
	require.Nil(t, bal.Balance)

	// A new month reads the spending again.
	now = now.Add(2 * time.Minute)
	require.NoError(t, b.Reserve(ctx, 50))
	require.Equal(t, 3, reads)
	b.Settle(50, 50, true)

	// Prepaid: top-ups less everything charged.
	p := lb.Budget("a", engine.Limits{Prepaid: true})
	require.ErrorIs(t, p.Reserve(ctx, 1), engine.ErrLimit)
	added, err := lb.TopUp(ctx, "a", "x", 600)
	require.NoError(t, err)
	require.True(t, added)
	added, err = lb.TopUp(ctx, "a", "x", 600)
	require.NoError(t, err)
	require.False(t, added)
	_, err = lb.TopUp(ctx, "a", "x", 601)
	require.ErrorIs(t, err, store.ErrTopUpReused)
	// 600 - (500 + 30 read at the month's start + 50 settled) = 20.
	require.NoError(t, p.Check(ctx, 20))
	require.ErrorIs(t, p.Check(ctx, 21), engine.ErrLimit)

	// A result whose recording failed stays held for LimboFor; then the
	// reports say whether it was stored (here: it was not; December's
	// report has the 50 settled before).
	require.NoError(t, p.Reserve(ctx, 20))
	p.Settle(20, 20, false)
	require.ErrorIs(t, p.Check(ctx, 1), engine.ErrLimit)
	mu.Lock()
	reports = append(reports, store.Report{Name: "SYNC-API-2026-12", Cost: 50})
	mu.Unlock()
	now = now.Add(LimboFor)
	// 600 - (500 + 30 + 50) = 20 left, as the reports say.
	require.NoError(t, p.Check(ctx, 20))
	require.ErrorIs(t, p.Check(ctx, 21), engine.ErrLimit)
}
