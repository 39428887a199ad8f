package engine

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/numenhq/numen/mnp"
	"github.com/stretchr/testify/require"
)

// testBudget is a Budget over one limit, in memory.
type testBudget struct {
	mu                   sync.Mutex
	limit, held, spent   Money
	reserves, unrecorded int
	settled              []Money
}

func (b *testBudget) Reserve(ctx context.Context, amount Money) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent+b.held+amount > b.limit {
		return &LimitError{Limit: "cap", Price: amount, Available: b.limit - b.spent - b.held}
	}
	b.held += amount
	b.reserves++
	return nil
}

func (b *testBudget) Check(ctx context.Context, amount Money) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent+b.held+amount > b.limit {
		return &LimitError{Limit: "cap", Price: amount, Available: b.limit - b.spent - b.held}
	}
	return nil
}

func (b *testBudget) Settle(amount, charged Money, recorded bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !recorded {
		b.unrecorded++
		return // held for good
	}
	b.held -= amount
	b.spent += charged
	b.settled = append(b.settled, charged)
}

func TestBudgetRefusesBeforeTheBackend(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	b := &testBudget{limit: DefaultPrices.HLR + DefaultPrices.NT}
	acct, err := f.eng.NewProfile(ProfileOptions{Key: "limited", Budget: b})
	require.NoError(t, err)
	require.Same(t, b, acct.Budget())

	res, err := resultOf(f.eng.HLRLookup(t.Context(), acct, Request{Number: "+4915123456789"}))
	require.NoError(t, err)
	require.Equal(t, "COMPLETED", res.ProcessingStatus)
	require.Equal(t, DefaultPrices.HLR, b.spent)

	calls := f.gt1.calls.Load() + f.gt2.calls.Load() + f.ds7.calls.Load() + f.mp1.calls.Load()
	_, err = f.eng.HLRLookup(t.Context(), acct, Request{Number: "+4915123456780"})
	var le *LimitError
	require.ErrorAs(t, err, &le)
	require.ErrorIs(t, err, ErrLimit)
	require.Equal(t, "cap", le.Limit)
	require.Equal(t, DefaultPrices.HLR, le.Price)
	require.Equal(t, DefaultPrices.NT, le.Available)
	_, err = f.eng.MNPLookup(t.Context(), acct, Request{Number: "+4915123456780"})
	require.ErrorIs(t, err, ErrLimit)
	require.Equal(t, calls, f.gt1.calls.Load()+f.gt2.calls.Load()+f.ds7.calls.Load()+f.mp1.calls.Load(), "a refused lookup asked a backend")
	require.Len(t, f.records, 1, "a refused lookup was recorded")

	// NT fits once; an NT that is not charged (calling code unreadable)
	// needs no budget.
	_, err = f.eng.NTLookup(t.Context(), acct, Request{Number: "+4930123456"})
	require.NoError(t, err)
	_, err = f.eng.NTLookup(t.Context(), acct, Request{Number: "+4930123457"})
	require.ErrorIs(t, err, ErrLimit)
	nt, err := resultOf(f.eng.NTLookup(t.Context(), acct, Request{Number: "hello"}))
	require.NoError(t, err)
	require.Equal(t, "0.0000", *nt.Cost)
	require.Equal(t, b.limit, b.spent)
	require.Zero(t, b.held)

	require.ErrorIs(t, f.eng.CheckBudget(t.Context(), acct, 1), ErrLimit)
	require.NoError(t, f.eng.CheckBudget(t.Context(), acct, 0))
	require.NoError(t, f.eng.CheckBudget(t.Context(), f.acct, 1<<40), "no budget, no limit")
}

func TestBudgetSettlesWhatWasCharged(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	b := &testBudget{limit: 100 * DefaultPrices.HLR}
	acct, err := f.eng.NewProfile(ProfileOptions{Key: "limited", Budget: b})
	require.NoError(t, err)

	// A backend that is unavailable: REJECTED, not charged, the
	// reservation returned whole.
	down := mnp.Unavailable("hlr", mnp.CodeUnavailable, errors.New("down"))
	for _, h := range []*fakeHLR{f.gt1, f.gt1b, f.gt2, f.ds7} {
		h.err = down
	}
	res, err := resultOf(f.eng.HLRLookup(t.Context(), acct, Request{Number: "+4915123456789"}))
	require.NoError(t, err)
	require.Equal(t, "REJECTED", res.ProcessingStatus)
	require.Equal(t, []Money{0}, b.settled)
	require.Zero(t, b.held)

	// A result the sink refused may still have been stored: its
	// reservation stays held.
	for _, h := range []*fakeHLR{f.gt1, f.gt1b, f.gt2, f.ds7} {
		h.err = nil
	}
	f.sinkErr = errors.New("disk full")
	_, err = f.eng.HLRLookup(t.Context(), acct, Request{Number: "+4915123456789"})
	require.ErrorIs(t, err, ErrNotRecorded)
	require.Equal(t, 1, b.unrecorded)
	require.Equal(t, DefaultPrices.HLR, b.held)
}

// TestBudgetAllocs holds lookups of an account with a budget to the
// allocations of one without: the check allocates nothing of its own.
func TestBudgetAllocs(t *testing.T) {
	for _, tc := range lookupCases() {
		e, _ := benchEngine(t, tc.sink)
		a, err := e.NewProfile(ProfileOptions{Key: "limited", Budget: &noopBudget{}})
		require.NoError(t, err)
		req := Request{Number: "+4915123456789"}
		allocs := testing.AllocsPerRun(200, func() {
			if err := tc.lookup(e, a, req); err != nil {
				t.Fatal(err)
			}
		})
		require.LessOrEqual(t, allocs, tc.allocs, tc.name)
	}
}

// noopBudget admits everything, without allocating.
type noopBudget struct{ held Money }

func (b *noopBudget) Reserve(ctx context.Context, amount Money) error { b.held += amount; return nil }
func (b *noopBudget) Check(ctx context.Context, amount Money) error   { return nil }
func (b *noopBudget) Settle(amount, charged Money, recorded bool)     { b.held -= amount }

// An engine made WithSink leaves the reservations in the records, for the
// caller to settle once they are stored.
func TestBudgetDeferredToTheRecorder(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	b := &testBudget{limit: 100 * DefaultPrices.HLR}
	acct, err := f.eng.NewProfile(ProfileOptions{Key: "limited", Budget: b})
	require.NoError(t, err)
	var got []Record
	eng := f.eng.WithSink(SinkFunc(func(ctx context.Context, r Record) error { got = append(got, r); return nil }))
	_, err = eng.HLRLookup(t.Context(), acct, Request{Number: "+4915123456789"})
	require.NoError(t, err)
	_, err = eng.NTLookup(t.Context(), acct, Request{Number: "+4930123456"})
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, DefaultPrices.HLR, got[0].Reserved)
	require.Equal(t, DefaultPrices.NT, got[1].Reserved)
	require.Equal(t, DefaultPrices.HLR+DefaultPrices.NT, b.held, "held until the records are stored")
	require.Empty(t, b.settled)

	SettleRecords(acct, got, true)
	require.Zero(t, b.held)
	require.Equal(t, DefaultPrices.HLR+DefaultPrices.NT, b.spent)
	SettleRecords(acct, got, true) // once only
	require.Equal(t, DefaultPrices.HLR+DefaultPrices.NT, b.spent)

	// The engine's own sink settles at once: no reservation in its records.
	_, err = f.eng.NTLookup(t.Context(), acct, Request{Number: "+4930123456"})
	require.NoError(t, err)
	require.Zero(t, f.records[len(f.records)-1].Reserved)
	require.Zero(t, b.held)
}

// A queued (bulk) lookup that its account's limits no longer cover when
// it runs is a result, not an error: REJECTED (HLR) or FAILED (NT) with
// nothing charged, and no backend asked.
func TestBudgetRefusesQueuedLookupsAsResults(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	b := &testBudget{}
	acct, err := f.eng.NewProfile(ProfileOptions{Key: "limited", Budget: b})
	require.NoError(t, err)
	hlr, err := resultOf(f.eng.HLRLookup(t.Context(), acct, Request{Number: "+4915123456789", Async: true}))
	require.NoError(t, err)
	require.Equal(t, "REJECTED", hlr.ProcessingStatus)
	require.Equal(t, int(mnp.CodeSpendingLimit), *hlr.ErrorCode)
	require.Equal(t, "0.0000", *hlr.Cost)
	require.Zero(t, f.gt1.calls.Load()+f.gt1b.calls.Load()+f.gt2.calls.Load()+f.ds7.calls.Load()+f.mp1.calls.Load())

	nt, err := resultOf(f.eng.NTLookup(t.Context(), acct, Request{Number: "+4930123456", Async: true}))
	require.NoError(t, err)
	require.Equal(t, "FAILED", nt.QueryStatus)
	require.Equal(t, "UNKNOWN", nt.NumberType)
	require.Nil(t, nt.IsValid)
	require.Equal(t, "0.0000", *nt.Cost)
	require.Equal(t, mnp.CodeSpendingLimit.Description(), *nt.InfoText)
	require.Equal(t, "+4930123456", nt.Number)
	require.Len(t, f.records, 2, "both recorded, as results")
	require.Zero(t, f.records[0].Cost+f.records[1].Cost)

	// Synchronous lookups are refused (402) instead.
	_, err = f.eng.NTLookup(t.Context(), acct, Request{Number: "+4930123456"})
	require.ErrorIs(t, err, ErrLimit)
}
