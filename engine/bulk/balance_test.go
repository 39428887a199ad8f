package bulk

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/store/pgstore"
)

// TestBulkPastTheCap: a bulk submission whose cost passes the account's
// monthly cap is refused whole (a *engine.LimitError, 402), nothing
// queued; one that fits runs, charged as its results say; the next is
// refused.
func TestBulkPastTheCap(t *testing.T) {
	t.Parallel()
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 0)
	var f *fixture
	cap := engine.Money(30) // three NT lookups at 0.0010
	f = newFixture(t, onPostgres, []string{r.URL + "/hook"}, func(o *Options, a *account.Account) {
		a.Limits = engine.Limits{MonthlyCap: &cap}
	})
	// The fixture's store is the pgstore the engine records to: the
	// account's budget is its.
	st := f.store.(*pgstore.Store)
	p, err := f.bulk.o.Engine.NewProfile(engine.ProfileOptions{Key: "acct", Budget: st.Budgets().Budget("acct", f.acct.Limits)})
	require.NoError(t, err)
	f.acct.Profile = p
	ctx := t.Context()

	_, _, err = f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(4)})
	var le *engine.LimitError
	require.ErrorAs(t, err, &le)
	require.Equal(t, engine.Money(40), le.Price)
	require.Equal(t, cap, le.Available)

	receipt, _, err := f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: append(numbers(3), "hello")})
	require.NoError(t, err)
	require.Equal(t, 3, receipt.AcceptedCount)
	waitFor(t, &r.changed, "the receiver", func() bool { _, n, _ := r.received(); return n == 3 })
	b, err := st.Budgets().Balance(ctx, "acct", f.acct.Limits)
	require.NoError(t, err)
	require.Equal(t, cap, b.SpentThisMonth)

	_, _, err = f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(1)})
	require.ErrorIs(t, err, engine.ErrLimit)
}
