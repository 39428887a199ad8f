package httpapi

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store/sqlitestore"
)

// TestAnswerIsTheRecordedResult: a lookup's response body is the record's
// JSON, as the store keeps it, plus a newline, and it is what json.Marshal
// makes of the result (the answer before the result was encoded once).
func TestAnswerIsTheRecordedResult(t *testing.T) {
	t.Parallel()
	st, err := sqlitestore.Open(t.Context(), t.TempDir())
	require.NoError(t, err)
	defer st.Close()
	s := newServer(t, nil)
	var (
		mu      sync.Mutex
		records = map[string]engine.Record{}
	)
	s.sinkTo.Store(engine.Sink(engine.SinkFunc(func(ctx context.Context, r engine.Record) error {
		mu.Lock()
		records[r.ID] = r
		mu.Unlock()
		return st.Record(ctx, r)
	})))
	for _, tc := range []struct{ path, body string }{
		{"/api/v2/hlr-lookup", `{"msisdn": "+4915123456789"}`},
		{"/api/v2/hlr-lookup", `{"msisdn": "+4915123456789", "route": "MP1"}`},
		{"/api/v2/hlr-lookup", `{"msisdn": "+442079460000"}`}, // rejected: not mobile
		{"/api/v2/mnp-lookup", `{"msisdn": "+31612345678"}`},
		{"/api/v2/mnp-lookup", `{"msisdn": "+31"}`}, // rejected: invalid
		{"/api/v2/nt-lookup", `{"number": "+442079460000"}`},
		{"/api/v2/nt-lookup", `{"number": "<script>&"}`}, // HTML escaped, as json.Marshal does
	} {
		status, hdr, b := s.do(t, "POST", tc.path, tc.body, digest(secret, 0))
		require.Equal(t, 200, status, "%s %s: %s", tc.path, tc.body, b)
		require.Equal(t, "application/json", hdr.Get("Content-Type"))
		require.Equal(t, strconv.Itoa(len(b)), hdr.Get("Content-Length"))
		var res struct{ ID string }
		require.NoError(t, json.Unmarshal(b, &res))

		mu.Lock()
		r, ok := records[res.ID]
		mu.Unlock()
		require.True(t, ok, "%s %s: not recorded", tc.path, tc.body)
		require.Equal(t, string(r.JSON)+"\n", string(b), "%s %s: the record's JSON", tc.path, tc.body)
		marshalled, err := json.Marshal(r.Result)
		require.NoError(t, err)
		require.Equal(t, string(marshalled)+"\n", string(b), "%s %s: json.Marshal of the result", tc.path, tc.body)
		stored, err := st.Bodies(t.Context(), []string{res.ID})
		require.NoError(t, err)
		require.Equal(t, string(stored[res.ID])+"\n", string(b), "%s %s: the stored result", tc.path, tc.body)
	}
}
