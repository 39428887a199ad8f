package apiv2

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/numenhq/numen/numbering"
	"github.com/stretchr/testify/require"
)

var (
	planOnce sync.Once
	testPlan *numbering.Plan
	planErr  error
)

func loadPlan(t testing.TB) *numbering.Plan {
	planOnce.Do(func() { testPlan, planErr = numbering.Load() })
	require.NoError(t, planErr)
	return testPlan
}

// TestNTResultAgreesWithNumbering keeps NewNTResult's null rules in step with
// numbering.Result.AppendJSON, which numen nt prints.
func TestNTResultAgreesWithNumbering(t *testing.T) {
	plan := loadPlan(t)
	for _, n := range []string{"+49 151 23456789", "+49 151 2", "hello", "+1-800-FLOWERS", "+800 1234 5678", "+7 940 123 4567", "+44 20 7946 0000", ""} {
		res := plan.ClassifyString(n)
		var want, got map[string]any
		require.NoError(t, json.Unmarshal(res.AppendJSON(nil), &want))
		b, err := json.Marshal(NewNTResult(&res, "", Filing{}))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &got))
		for _, k := range []string{"id", "cost", "timestamp", "storage", "route"} {
			delete(got, k)
		}
		require.Equal(t, want, got, n)
	}
}

// An NT result's values share one allocation with it (ntBox, values) and come out
// as String and Bool would: each nullable field nil exactly when empty.
func TestNTResultFields(t *testing.T) {
	var f values
	for i := range len(f.s) + 2 { // past the room: allocated apart
		v := string(rune('a' + i))
		require.Equal(t, v, *f.str(v))
		require.Nil(t, f.str(""))
	}
	for i := range len(f.b) + 2 {
		require.Equal(t, i%2 == 0, *f.bool(i%2 == 0))
	}
	var none *values
	require.Equal(t, "x", *none.str("x"))
	require.True(t, *none.bool(true))
}

// TestNTResultFormatsInPlace: the formatted numbers of an NT result live
// in the result's own allocation (values.formats), so formatting them
// allocates nothing, and a number that is not valid has none.
func TestNTResultFormatsInPlace(t *testing.T) {
	plan := loadPlan(t)
	res := plan.ClassifyString("+49 151 23456789")
	f := new(values)
	var intl, national *string
	allocs := testing.AllocsPerRun(100, func() {
		*f = values{}
		intl, national = f.formatted(&res, numbering.International), f.formatted(&res, numbering.National)
	})
	require.Zero(t, allocs)
	require.Equal(t, "+49 1512 3456789", Deref(intl))
	require.Equal(t, "01512 3456789", Deref(national))

	out := NewNTResult(&res, "", Filing{})
	require.Equal(t, "+49 1512 3456789", Deref(out.InternationalFormat))
	require.Equal(t, "01512 3456789", Deref(out.NationalFormat))
	invalid := plan.ClassifyString("+49 151 2")
	out = NewNTResult(&invalid, "", Filing{})
	require.Nil(t, out.InternationalFormat)
	require.Nil(t, out.NationalFormat)
}
