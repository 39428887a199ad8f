package httpapi

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/store"
)

// leaseBalances is memBalances that counts leases, as pgstore's Budgets.
type leaseBalances struct{ *memBalances }

func (leaseBalances) LeaseCounts(account string) (grants, returns uint64) { return 7, 2 }

// failingBalances cannot read a balance.
type failingBalances struct{ *memBalances }

func (failingBalances) Balance(context.Context, string, engine.Limits) (store.Balance, error) {
	return store.Balance{}, errors.New("database unreachable")
}

// TestBalanceMetrics: a counted budget counts its refusals by reason
// (lookups by Reserve, bulk submissions by Check), and the watched
// accounts' remaining amounts and leases are read at every scrape.
func TestBalanceMetrics(t *testing.T) {
	t.Parallel()
	m := NewMetrics()
	cap := engine.Money(150)
	mem := &memBalances{cap: cap}
	b := m.CountBudget("team-a", mem)
	ctx := t.Context()
	require.NoError(t, b.Reserve(ctx, 100))
	require.ErrorIs(t, b.Reserve(ctx, 100), engine.ErrLimit)
	require.ErrorIs(t, b.Reserve(ctx, 100), engine.ErrLimit)
	require.ErrorIs(t, b.Check(ctx, 100), engine.ErrLimit)
	require.NoError(t, b.Check(ctx, 50))
	b.Settle(100, 100, true)
	require.Nil(t, m.CountBudget("none", nil))

	prepaid := engine.Limits{Prepaid: true}
	m.WatchBalances(leaseBalances{mem}, []*account.Account{
		{Key: "team-a", Limits: engine.Limits{MonthlyCap: &cap}},
		{Key: "free"},
	})
	var out bytes.Buffer
	require.NoError(t, m.Write(&out))
	for _, want := range []string{
		`numen_balance_refused_lookups_total{account="team-a",reason="cap"} 2`,
		`numen_balance_refused_lookups_total{account="team-a",reason="balance"} 0`,
		`numen_balance_refused_submissions_total{account="team-a",reason="cap"} 1`,
		`numen_balance_remaining_eur{account="team-a",limit="cap"} 0.005`,
		`numen_balance_lease_grants_total{account="team-a"} 7`,
		`numen_balance_lease_returns_total{account="team-a"} 2`,
	} {
		require.Contains(t, out.String(), want+"\n")
	}
	require.NotContains(t, out.String(), `account="free"`)

	// A balance that cannot be read is NaN; a store without leases has
	// no lease series.
	m = NewMetrics()
	m.WatchBalances(failingBalances{mem}, []*account.Account{{Key: "p", Limits: prepaid}})
	out.Reset()
	require.NoError(t, m.Write(&out))
	require.Contains(t, out.String(), `numen_balance_remaining_eur{account="p",limit="balance"} NaN`+"\n")
	require.NotContains(t, out.String(), `numen_balance_lease_grants_total{`)
}

// TestCountedBudgetAllocs: counting costs a lookup that fits no
// allocation.
func TestCountedBudgetAllocs(t *testing.T) {
	m := NewMetrics()
	b := m.CountBudget("a", &memBalances{cap: 1 << 40})
	ctx := context.Background()
	if n := testing.AllocsPerRun(1000, func() {
		if err := b.Reserve(ctx, 10); err != nil {
			t.Fatal(err)
		}
		b.Settle(10, 10, true)
	}); n != 0 {
		t.Errorf("%v allocs per reserve and settle", n)
	}
}
