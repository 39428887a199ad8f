package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/engine/store/storetest"
)

// spend runs one NT lookup's charging as the engine does: reserve its
// price (0.0010), record its result, settle. It returns the budget's
// error (a *engine.LimitError when the limit is reached).
func spend(ctx context.Context, s *pgstore.Store, b engine.Budget, account, id string) error {
	const price = engine.Money(10)
	if err := b.Reserve(ctx, price); err != nil {
		return err
	}
	now := time.Now()
	r := storetest.NewRecord(account, engine.StorageName("", engine.ProductNT, false, now), engine.ProductNT, id, now, 0)
	if r.Cost != price {
		panic(fmt.Sprintf("fixture costs %s", r.Cost))
	}
	err := s.Record(ctx, r)
	b.Settle(price, r.Cost, err == nil)
	return err
}

// chargedInDB is the sum of the costs an account's results say it was
// charged, read from the table.
func chargedInDB(t *testing.T, dsn, account string) engine.Money {
	conn, err := pgx.Connect(t.Context(), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var sum int64
	require.NoError(t, conn.QueryRow(t.Context(), `SELECT coalesce(sum(cost), 0)::bigint FROM results WHERE account = $1`, account).Scan(&sum))
	return engine.Money(sum)
}

// TestBudgetAcrossNodes spends one account's monthly cap from two stores
// (two nodes) on one database, four workers each, until both are refused:
// the results charge exactly the cap, never more.
func TestBudgetAcrossNodes(t *testing.T) {
	dsn := pgtest.Database(t)
	ctx := t.Context()
	nodes := make([]*pgstore.Store, 2)
	for i := range nodes {
		s, err := pgstore.Open(ctx, dsn)
		require.NoError(t, err)
		defer s.Close()
		nodes[i] = s
	}
	cap := engine.Money(3000) // 0.3000 EUR: 300 lookups at 0.0010
	limits := engine.Limits{MonthlyCap: &cap}
	var ok, refused, ids atomic.Int64
	var wg sync.WaitGroup
	for _, s := range nodes {
		b := s.Budgets().Budget("acct", limits)
		for range 4 {
			wg.Go(func() {
				for range 1000 {
					err := spend(ctx, s, b, "acct", fmt.Sprintf("id%09d", ids.Add(1)))
					if errors.Is(err, engine.ErrLimit) {
						refused.Add(1)
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					ok.Add(1)
				}
			})
		}
	}
	wg.Wait()
	require.EqualValues(t, 8, refused.Load())
	require.Equal(t, cap, chargedInDB(t, dsn, "acct"), "charged")
	require.EqualValues(t, 300, ok.Load())

	bal, err := nodes[1].Budgets().Balance(ctx, "acct", limits)
	require.NoError(t, err)
	require.Equal(t, cap, bal.SpentThisMonth)
	require.Nil(t, bal.Balance)
	require.Equal(t, &cap, bal.MonthlyCap)

	// Raising the cap lets both spend again, once each has reported
	// what it used of its last lease.
	for _, s := range nodes {
		require.NoError(t, s.Budgets().Report(ctx))
	}
	more := cap + 20
	for _, s := range nodes {
		require.NoError(t, spend(ctx, s, s.Budgets().Budget("acct", engine.Limits{MonthlyCap: &more}), "acct", fmt.Sprintf("id%09d", ids.Add(1))))
		// Until a node reports, the others count its lease whole (and
		// its spending twice): never more than the cap, at times less.
		require.NoError(t, s.Budgets().Report(ctx))
	}
	require.ErrorIs(t, spend(ctx, nodes[0], nodes[0].Budgets().Budget("acct", engine.Limits{MonthlyCap: &more}), "acct", "late"), engine.ErrLimit)

	// Unlimited accounts have no budget.
	require.Nil(t, nodes[0].Budgets().Budget("free", engine.Limits{}))
}

// TestBudgetPrepaid spends a prepaid balance topped up once per top-up
// id.
func TestBudgetPrepaid(t *testing.T) {
	dsn := pgtest.Database(t)
	ctx := t.Context()
	s, err := pgstore.Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	bs := s.Budgets()
	limits := engine.Limits{Prepaid: true}
	b := bs.Budget("pre", limits)

	var le *engine.LimitError
	require.ErrorAs(t, spend(ctx, s, b, "pre", "a0"), &le)
	require.Equal(t, "balance", le.Limit)
	require.Zero(t, le.Available)

	added, err := bs.TopUp(ctx, "pre", "invoice-1", 25)
	require.NoError(t, err)
	require.True(t, added)
	added, err = bs.TopUp(ctx, "pre", "invoice-1", 25)
	require.NoError(t, err)
	require.False(t, added, "a top-up repeated is added once")
	_, err = bs.TopUp(ctx, "pre", "invoice-1", 30)
	require.ErrorIs(t, err, store.ErrTopUpReused)

	require.NoError(t, spend(ctx, s, b, "pre", "a1"))
	require.NoError(t, spend(ctx, s, b, "pre", "a2"))
	require.ErrorIs(t, spend(ctx, s, b, "pre", "a3"), engine.ErrLimit)
	require.NoError(t, b.Check(ctx, 5))
	require.ErrorIs(t, b.Check(ctx, 6), engine.ErrLimit)
	bal, err := bs.Balance(ctx, "pre", limits)
	require.NoError(t, err)
	require.Equal(t, engine.Money(5), *bal.Balance)
	require.Equal(t, engine.Money(20), bal.SpentThisMonth)

	// A cap below the balance is the limit that refuses.
	capped := engine.Money(20)
	_, err = bs.TopUp(ctx, "pre", "invoice-2", 100)
	require.NoError(t, err)
	err = spend(ctx, s, bs.Budget("pre", engine.Limits{Prepaid: true, MonthlyCap: &capped}), "pre", "a4")
	require.ErrorAs(t, err, &le)
	require.Equal(t, "cap", le.Limit)
}

// TestBudgetDeadNode: a node that died holding a lease keeps its unused
// part from the others until the lease has ended and its grace passed;
// then only what its results say it spent counts.
func TestBudgetDeadNode(t *testing.T) {
	dsn := pgtest.Database(t)
	ctx := t.Context()
	s, err := pgstore.Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	cap := engine.Money(100)
	limits := engine.Limits{MonthlyCap: &cap}

	// The dead node: granted 0.0080 of which it spent 0.0020 (recorded),
	// as of a lease that ends in a minute.
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, `INSERT INTO balance_leases VALUES ('acct', 'n-dead', 80, 0, (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 60000)`)
	require.NoError(t, err)
	for i := range 2 {
		now := time.Now()
		require.NoError(t, s.Record(ctx, storetest.NewRecord("acct", engine.StorageName("", engine.ProductNT, false, now), engine.ProductNT, fmt.Sprint("dead", i), now, 0)))
	}

	// 100 - 20 spent - 80 held by the dead node: nothing left.
	b := s.Budgets().Budget("acct", limits)
	require.ErrorIs(t, spend(ctx, s, b, "acct", "x0"), engine.ErrLimit)
	// Its lease ends and the grace passes: 80 left, the dead node's
	// recorded spending counted once.
	_, err = conn.Exec(ctx, `UPDATE balance_leases SET expires_ms = expires_ms - 3600000 WHERE node = 'n-dead'`)
	require.NoError(t, err)
	for i := range 8 {
		require.NoError(t, spend(ctx, s, b, "acct", fmt.Sprint("x", i+1)))
	}
	require.ErrorIs(t, spend(ctx, s, b, "acct", "x9"), engine.ErrLimit)
	require.Equal(t, cap, chargedInDB(t, dsn, "acct"))
}

// BenchmarkBudgetReserve is the cost a limited account's lookup pays for
// its limit on one node: Reserve and Settle of its price (no recording),
// with the grant transactions per lookup (1/64 while the budget lasts).
func BenchmarkBudgetReserve(b *testing.B) {
	dsn := pgtest.Database(b)
	ctx := context.Background()
	s, err := pgstore.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	limit := engine.Money(1 << 50)
	budget := s.Budgets().Budget("bench", engine.Limits{MonthlyCap: &limit})
	b.ReportAllocs()
	for b.Loop() {
		if err := budget.Reserve(ctx, 10); err != nil {
			b.Fatal(err)
		}
		budget.Settle(10, 10, true)
	}
	b.ReportMetric(float64(s.Budgets().Grants())/float64(b.N), "grants/op")
}

// TestBudgetLimbo: a result whose recording failed holds its price for
// the grace (it may still be committed), then the results decide.
func TestBudgetLimbo(t *testing.T) {
	dsn := pgtest.Database(t)
	ctx := t.Context()
	pgstore.SetLeaseTiming(t, 30*time.Second, 300*time.Millisecond)
	s, err := pgstore.Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	cap := engine.Money(20)
	b := s.Budgets().Budget("acct", engine.Limits{MonthlyCap: &cap})
	require.NoError(t, spend(ctx, s, b, "acct", "a"))
	require.NoError(t, b.Reserve(ctx, 10))
	b.Settle(10, 10, false) // not stored, as it turns out
	require.ErrorIs(t, b.Reserve(ctx, 10), engine.ErrLimit)
	time.Sleep(400 * time.Millisecond) // the grace passes
	require.NoError(t, spend(ctx, s, b, "acct", "b"))
	require.Equal(t, cap, chargedInDB(t, dsn, "acct"))
}

// TestBudgetWithLeases: WithLeases's grace decides when a dead node's
// lease stops counting (a lease that ended a second ago counts under the
// default grace of 2 minutes, not under one of 500 ms), and the node's
// leases are counted for the metrics (LeaseCounts: granted, and given
// back when refused).
func TestBudgetWithLeases(t *testing.T) {
	dsn := pgtest.Database(t)
	ctx := t.Context()
	cap := engine.Money(100)
	limits := engine.Limits{MonthlyCap: &cap}
	def, err := pgstore.Open(ctx, dsn)
	require.NoError(t, err)
	defer def.Close()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, `INSERT INTO balance_leases VALUES ('acct', 'n-dead', 100, 0, (extract(epoch FROM clock_timestamp()) * 1000)::bigint - 1000)`)
	require.NoError(t, err)
	require.ErrorIs(t, spend(ctx, def, def.Budgets().Budget("acct", limits), "acct", "d0"), engine.ErrLimit)
	grants, returns := def.Budgets().LeaseCounts("acct")
	require.Equal(t, [2]uint64{0, 1}, [2]uint64{grants, returns}, "refused: given back")

	short, err := pgstore.Open(ctx, dsn, pgstore.WithLeases(time.Second, 500*time.Millisecond))
	require.NoError(t, err)
	defer short.Close()
	b := short.Budgets().Budget("acct", limits)
	for i := range 10 {
		require.NoError(t, spend(ctx, short, b, "acct", fmt.Sprint("s", i)))
	}
	require.ErrorIs(t, spend(ctx, short, b, "acct", "s10"), engine.ErrLimit)
	require.Equal(t, cap, chargedInDB(t, dsn, "acct"))
	grants, returns = short.Budgets().LeaseCounts("acct")
	require.Positive(t, grants)
	require.EqualValues(t, 1, returns)
	grants, returns = short.Budgets().LeaseCounts("other")
	require.Zero(t, grants+returns)
}
