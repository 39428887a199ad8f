package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
)

func TestRetry(t *testing.T) {
	t.Parallel()
	total := time.Duration(0)
	for n := 1; n <= len(Schedule); n++ {
		d, ok := Retry(n, time.Minute)
		require.True(t, ok)
		total += d
	}
	require.Equal(t, 2047*time.Minute, total, "1 + 2 + ... + 1024 minutes")
	_, ok := Retry(12, time.Minute)
	require.False(t, ok, "no retry after the eleventh")
	_, ok = Retry(0, time.Minute)
	require.False(t, ok)
	require.Equal(t, 12, MaxAttempts)
	require.Equal(t, len(Schedule)+1, MaxAttempts, "the first attempt and one per step")
}

func TestPayload(t *testing.T) {
	t.Parallel()
	b, err := Payload("NT", []json.RawMessage{[]byte(`{"id":"a"}`), []byte(`{"id":"b"}`)})
	require.NoError(t, err)
	require.Equal(t, `{"type":"NT","results":[{"id":"a"},{"id":"b"}]}`, string(b))
	b, err = Payload("HLR", nil)
	require.NoError(t, err)
	require.Equal(t, `{"type":"HLR","results":[]}`, string(b))
	_, err = Payload("NT", make([]json.RawMessage, 1001))
	require.EqualError(t, err, "webhook: 1001 results in one batch; at most 1000")
}

func TestSendAndVerify(t *testing.T) {
	t.Parallel()
	secrets := []string{"old-secret", "new-secret"}
	var got http.Header
	var status = http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		body, err := Verify(r, "key", []string{"new-secret"}, 0)
		if err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		require.Equal(t, `{"type":"NT","results":[]}`, string(body))
		w.WriteHeader(status)
	}))
	defer srv.Close()
	s := &Sender{Clock: func() time.Time { return time.Unix(1700000000, 0) }, UserAgent: "numen-test"}
	d := Delivery{ID: "wh_1", URL: srv.URL, Body: []byte(`{"type":"NT","results":[]}`), Key: "key", Secrets: secrets}
	require.NoError(t, s.Send(t.Context(), d))
	require.Equal(t, "application/json", got.Get("Content-Type"))
	require.Equal(t, "wh_1", got.Get("webhook-id"))
	require.Equal(t, "1700000000", got.Get("webhook-timestamp"))
	require.Len(t, bytes.Split([]byte(got.Get("X-Signatures")), []byte(";")), 2, "one signature per secret")
	require.Equal(t, "numen-test", got.Get("User-Agent"))
	v := auth.StandardWebhookVerifier{Secrets: [][]byte{[]byte("old-secret")}}
	require.NoError(t, v.Verify(got, d.Body, time.Unix(1700000000, 0)))

	status = http.StatusAccepted // anything but 200 fails
	err := s.Send(t.Context(), d)
	var we *Error
	require.ErrorAs(t, err, &we)
	require.Equal(t, 202, we.Status)
	require.EqualError(t, err, "webhook "+srv.URL+": answered 202, not 200")

	d.Secrets = []string{"unknown"}
	require.Error(t, s.Send(t.Context(), d), "the receiver refuses a delivery signed with another secret")
}

func TestSendTimeoutAndRefused(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	s := &Sender{Timeout: 20 * time.Millisecond}
	err := s.Send(t.Context(), Delivery{ID: "x", URL: srv.URL, Body: []byte(`{}`), Key: "k", Secrets: []string{"s"}})
	require.EqualError(t, err, "webhook "+srv.URL+": no answer within 20ms")

	closed := httptest.NewServer(http.NotFoundHandler())
	url := closed.URL
	closed.Close()
	err = s.Send(t.Context(), Delivery{ID: "x", URL: url, Body: []byte(`{}`), Key: "k", Secrets: []string{"s"}})
	var we *Error
	require.ErrorAs(t, err, &we)
	require.Zero(t, we.Status)
}

func TestVerifyRefuses(t *testing.T) {
	t.Parallel()
	body := []byte(`{"type":"NT","results":[]}`)
	req := httptest.NewRequest("POST", "/", bytes.NewReader(body))
	req.Header.Set("X-Signatures", auth.WebhookSignatures("key", []string{"secret"}, body))
	_, err := Verify(req, "key", []string{"other"}, 0)
	require.ErrorIs(t, err, ErrNotAuthentic)
	req = httptest.NewRequest("POST", "/", bytes.NewReader(body))
	_, err = Verify(req, "key", []string{"secret"}, 5)
	require.EqualError(t, err, "webhook: body larger than 5 bytes")
	require.False(t, errors.Is(err, ErrNotAuthentic))
}

func TestLegacyNT(t *testing.T) {
	t.Parallel()
	b, err := LegacyNT(&apiv2.NTResult{
		ID: "abc", Number: "+4915123456789", NumberType: "MOBILE", QueryStatus: "OK",
		IsValid: apiv2.Bool(true), IsPossiblyPorted: apiv2.Bool(false), Cost: apiv2.String("0.0010"),
		Regions: []string{"Germany"},
	}, "ASYNC API")
	require.NoError(t, err)
	require.JSONEq(t, `{"id":"abc","number":"+4915123456789","numbertype":"MOBILE","state":"COMPLETED","isvalid":"Yes",
		"invalidreason":null,"ispossiblyported":"No","isvanitynumber":null,"qualifiesforhlrlookup":null,"originalcarrier":null,
		"mccmnc":null,"mcc":null,"mnc":null,"countrycode":null,"regions":["Germany"],"timezones":null,"infotext":null,
		"usercharge":"0.0010","inserttime":null,"storage":null,"route":null,"interface":"ASYNC API"}`, string(b))
}
