package bulk

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/stretchr/testify/require"
)

// TestSubmitCountry: a batch with a country is read in it, at
// submission (the receipt) and when the queued lookups run (the webhook);
// an unknown country is refused before anything is queued.
func TestSubmitCountry(t *testing.T) {
	t.Parallel()
	submitCountry(t, onSQLite)
}

func submitCountry(t *testing.T, open backend) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 0)
	f := newFixture(t, open, []string{r.URL}, nil)
	in := []string{"0151 00000001", "00 44 20 7946 0000", "+33 6 12 34 56 78", "hello"}
	receipt, _, err := f.bulk.Submit(t.Context(), f.acct, engine.Submission{Product: engine.ProductNT, Numbers: in, Country: "DE"})
	require.NoError(t, err)
	require.Equal(t, 3, receipt.AcceptedCount)
	require.Equal(t, "+4915100000001", receipt.Accepted[0].Number)
	require.Equal(t, "+442079460000", receipt.Accepted[1].Number)
	require.Equal(t, "hello", receipt.Rejected[0].Number)

	waitFor(t, &r.changed, "the results", func() bool { _, n, _ := r.received(); return n == 3 })
	var got []string
	for _, body := range r.batches {
		var batch struct {
			Results []apiv2.NTResult `json:"results"`
		}
		require.NoError(t, json.Unmarshal(body, &batch))
		for _, res := range batch.Results {
			got = append(got, res.Number)
		}
	}
	require.ElementsMatch(t, []string{"+4915100000001", "+442079460000", "+33612345678"}, got)

	_, _, err = f.bulk.Submit(t.Context(), f.acct, engine.Submission{Product: engine.ProductNT, Numbers: in, Country: "XY"})
	var re *engine.RequestError
	require.True(t, errors.As(err, &re), "%v", err)
	require.Equal(t, "country", re.Field)
	require.Contains(t, re.Error(), `"XY"`)
}
