package apiv2

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReceiptJSON(t *testing.T) {
	t.Parallel()
	r := Receipt{
		Accepted:      []Submitted{{ID: String("abcdefghijkl"), Number: "+4915112345678", NT: true}},
		AcceptedCount: 1,
		Rejected:      []Submitted{{Number: "hello", NT: true}},
		RejectedCount: 1, TotalCount: 2, Cost: "0.0010", Storage: "ASYNC-API-NT-2026-11", Route: "NT1",
		WebhookURLs: []string{"http://127.0.0.1:9/hook"},
	}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	require.JSONEq(t, `{"accepted":[{"id":"abcdefghijkl","number":"+4915112345678"}],"accepted_count":1,
		"rejected":[{"id":null,"number":"hello"}],"rejected_count":1,"total_count":2,"cost":"0.0010",
		"storage":"ASYNC-API-NT-2026-11","route":"NT1","webhook_urls":["http://127.0.0.1:9/hook"]}`, string(b))
	var back Receipt
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, r, back)

	// The spec's NT example writes the cost as a bare number; HLR receipts use msisdn.
	require.NoError(t, json.Unmarshal([]byte(`{"accepted":[{"id":"x","msisdn":"+1"}],"cost":0.02}`), &back))
	require.Equal(t, Decimal("0.02"), back.Cost)
	require.False(t, back.Accepted[0].NT)
	require.Error(t, json.Unmarshal([]byte(`{"cost":true}`), &back))
	require.Error(t, json.Unmarshal([]byte(`{"accepted":[{"id":"x"}]}`), &back))
}

func TestNullsAreWritten(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(NTResult{ID: "abcdefghijkl", Number: "+1", NumberType: "UNKNOWN", QueryStatus: "FAILED"})
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	require.Len(t, m, reflect.TypeFor[NTResult]().NumField(), "every NT attribute is written, null or not")
	require.Nil(t, m["regions"])
	require.Contains(t, m, "regions")
	require.Nil(t, String(""))
	require.Equal(t, "x", Deref(String("x")))
	require.Equal(t, "", Deref(nil))
}
