package bulk

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/mnp"
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

// spentMeanwhile is a budget that a submission's check passes but that
// refuses every lookup when it runs: other traffic spent it meanwhile.
type spentMeanwhile struct{}

func (spentMeanwhile) Reserve(ctx context.Context, amount engine.Money) error {
	return &engine.LimitError{Limit: "balance", Price: amount}
}
func (spentMeanwhile) Settle(amount, charged engine.Money, recorded bool)   {}
func (spentMeanwhile) Check(ctx context.Context, amount engine.Money) error { return nil }

// TestBulkSpentMeanwhile: lookups of a job that the account's limits no
// longer cover when they run are delivered as REJECTED results (error_code
// 13), not charged; the job is done, not retried.
func TestBulkSpentMeanwhile(t *testing.T) {
	t.Parallel()
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 0)
	f := newFixture(t, onSQLite, []string{r.URL + "/hook"}, nil)
	p, err := f.bulk.o.Engine.NewProfile(engine.ProfileOptions{Key: "acct", Budget: spentMeanwhile{}})
	require.NoError(t, err)
	f.acct.Profile = p
	receipt, _, err := f.bulk.Submit(t.Context(), f.acct, engine.Submission{Product: engine.ProductHLR, Numbers: []string{"+4915123456789", "+4915123456780"}})
	require.NoError(t, err)
	require.Equal(t, 2, receipt.AcceptedCount)
	waitFor(t, &r.changed, "the HLR batch", func() bool { _, n, _ := r.received(); return n == 2 })
	for _, body := range r.batches {
		var batch struct {
			Results []apiv2.HLRResult `json:"results"`
		}
		require.NoError(t, json.Unmarshal(body, &batch))
		for _, res := range batch.Results {
			require.Equal(t, "REJECTED", res.ProcessingStatus)
			require.Equal(t, int(mnp.CodeSpendingLimit), *res.ErrorCode)
			require.Equal(t, "0.0000", *res.Cost)
		}
	}
	reports, err := f.store.Reports(t.Context(), "acct")
	require.NoError(t, err)
	require.Len(t, reports, 1)
	require.Zero(t, reports[0].Cost)
	require.Equal(t, 1, f.settle(t), "lookup jobs")

	// NT, with the legacy key set: FAILED, the reason in infotext.
	f.acct.LegacyNTKeys = true
	_, _, err = f.bulk.Submit(t.Context(), f.acct, engine.Submission{Product: engine.ProductNT, Numbers: []string{"+4930123456"}})
	require.NoError(t, err)
	waitFor(t, &r.changed, "the NT batch", func() bool { b, _, _ := r.received(); return b == 2 })
	found := false
	for _, body := range r.batches {
		if strings.Contains(string(body), `"numbertype"`) {
			found = true
			require.Contains(t, string(body), `"usercharge":"0.0000"`)
			require.Contains(t, string(body), `"infotext":"account's spending limit reached: not looked up, not charged"`)
		}
	}
	require.True(t, found)
}
