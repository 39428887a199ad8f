package portdb

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/mnp"
)

func TestBackend(t *testing.T) {
	t.Parallel()
	plan := testPlan(t)
	db := openCSV(t, "+4915112345678,26203,O2\n+4917*,26202,Vodafone\n+4915199999999,26201,Telekom\n", "DE")
	b := NewBackend(NewHolder(db), "")
	query := func(number string) mnp.Query {
		res := plan.ClassifyString(number)
		require.True(t, res.Valid, number)
		return mnp.Query{Number: res.Number, Region: res.CountryCode, MCCMNC: res.MCCMNC}
	}
	for number, want := range map[string]mnp.PortAnswer{
		// An entry for the number: ported from Telekom (26201) to O2.
		"+4915112345678": {Status: mnp.Completed, Ported: mnp.True, Network: mnp.NetworkRef{MCCMNC: "26203", Name: "O2"}},
		// An entry that names the number's own network: ported back.
		"+4915199999999": {Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: "26201"}},
		// A range entry of the range's own network.
		"+4917212345678": {Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: "26202"}},
		// No entry in a covered country: not ported.
		"+4915112300000": {Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: "26201"}},
		// A country the file does not cover: no answer, never a guessed false.
		"+33612345678": {Status: mnp.Rejected, Code: mnp.CodeNoPortabilityData},
	} {
		got, err := b.Portability(t.Context(), query(number))
		require.NoError(t, err, number)
		require.Equal(t, want, got, number)
	}

	_, err := NewBackend(&Holder{}, "ported.db").Portability(t.Context(), query("+4915112345678"))
	require.ErrorIs(t, err, ErrNoDatabase)
	require.True(t, mnp.Retryable(err), "another backend may answer")
	require.Equal(t, mnp.CodeUnavailable, mnp.CodeOf(err))
	require.ErrorContains(t, err, "ported.db")
}
