package bulk

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/engine/store/sqlitestore"
	"github.com/numenhq/numen/engine/webhook"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
)

var sharedPlan = sync.OnceValues(func() (*numbering.Plan, error) { return numbering.Load() })

type connected struct{}

func (connected) HLR(ctx context.Context, q mnp.Query) (mnp.HLRAnswer, error) {
	return mnp.HLRAnswer{Status: mnp.Completed, Connectivity: mnp.Connected, MCCMNC: q.MCCMNC, Ported: mnp.False, Roaming: mnp.False}, nil
}

func (connected) Portability(ctx context.Context, q mnp.Query) (mnp.PortAnswer, error) {
	return mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: q.MCCMNC}}, nil
}

// receiver is a loopback webhook receiver that verifies every delivery,
// fails the first `failures` attempts (or delays them past the sender's
// timeout), and keeps what it took.
type receiver struct {
	*httptest.Server
	mu        sync.Mutex
	failures  int
	slow      bool
	attempts  []time.Time
	batches   map[string][]byte // webhook-id -> body
	ids       map[string]bool   // result ids received
	forgeries int
}

func newReceiver(t *testing.T, key string, secrets []string, failures int) *receiver {
	r := &receiver{failures: failures, batches: map[string][]byte{}, ids: map[string]bool{}}
	swv := auth.StandardWebhookVerifier{}
	for _, s := range secrets {
		swv.Secrets = append(swv.Secrets, []byte(s))
	}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := webhook.Verify(req, key, secrets, 0)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.attempts = append(r.attempts, time.Now())
		if err != nil || swv.Verify(req.Header, body, time.Now()) != nil || req.Header.Get("Content-Type") != "application/json" {
			r.forgeries++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if r.failures > 0 {
			r.failures--
			if r.slow {
				// Answers 200 after the sender gave up: not a delivery.
				r.mu.Unlock()
				time.Sleep(300 * time.Millisecond)
				r.mu.Lock()
				return
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		r.batches[req.Header.Get("webhook-id")] = body
		var batch struct {
			Type    string            `json:"type"`
			Results []json.RawMessage `json:"results"`
		}
		if json.Unmarshal(body, &batch) == nil {
			for _, res := range batch.Results {
				var id struct{ ID string }
				_ = json.Unmarshal(res, &id)
				r.ids[id.ID] = true
			}
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) received() (batches, ids, attempts int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.batches), len(r.ids), len(r.attempts)
}

// waitFor polls cond until it holds, failing after a bounded wait.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type fixture struct {
	bulk    *Bulk
	acct    *account.Account
	metrics *fakeMetrics
	store   store.Database
}

// onPostgres makes newFixture open a PostgreSQL database (TestOnPostgreSQL)
// instead of a SQLite data directory.
var onPostgres bool

func newFixture(t *testing.T, urls []string, mutate func(*Options, *account.Account)) *fixture {
	plan, err := sharedPlan()
	require.NoError(t, err)
	var st store.Database
	if onPostgres {
		st, err = pgstore.Open(context.Background(), pgtest.Database(t))
	} else {
		st, err = sqlitestore.Open(context.Background(), t.TempDir())
	}
	require.NoError(t, err)
	backends := []engine.RouteBackends{
		{Route: "DS7", HLR: []engine.HLR{{Name: "c", Backend: connected{}}}},
		{Route: "GT1", HLR: []engine.HLR{{Name: "c", Backend: connected{}}}},
		{Route: "GT2", HLR: []engine.HLR{{Name: "c", Backend: connected{}}}},
		{Route: "MP1", Portability: []engine.Portability{{Name: "c", Backend: connected{}}}},
	}
	eng, err := engine.New(engine.Options{Plan: plan, Backends: backends, Sink: st})
	require.NoError(t, err)
	ea, err := eng.NewProfile(engine.ProfileOptions{Key: "acct"})
	require.NoError(t, err)
	acct := &account.Account{Key: "acct", Secrets: []string{"first-secret-0123456789", "second-secret-0123456789"}, WebhookURLs: urls, Profile: ea}
	f := &fixture{acct: acct, metrics: &fakeMetrics{series: map[string]func() float64{}}, store: st}
	o := Options{
		Engine: eng, Store: st,
		Account: func(key string) (*account.Account, bool) {
			if key == acct.Key {
				return acct, true
			}
			return nil, false
		},
		Minute: time.Millisecond, PollInterval: 10 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: f.metrics,
	}
	if mutate != nil {
		mutate(&o, acct)
	}
	f.bulk, err = Open(context.Background(), o)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, f.bulk.Close(ctx))
		require.NoError(t, st.Close())
	})
	return f
}

func numbers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("+49151%08d", i)
	}
	return out
}

func TestSubmitAndDeliverNT(t *testing.T) {
	r1 := newReceiver(t, "acct", []string{"second-secret-0123456789"}, 0) // knows one secret of two
	r2 := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 0)
	f := newFixture(t, []string{r1.URL + "/hook", r2.URL + "/hook"}, nil)
	in := append(numbers(998), "hello", "+999 123")
	in[997] = "4915100000997" // a bare MSISDN: the receipt names it as its result will, in E.164
	receipt, _, err := f.bulk.Submit(context.Background(), f.acct, engine.Submission{Product: engine.ProductNT, Numbers: in, Storage: "campaign"})
	require.NoError(t, err)
	require.Equal(t, "+4915100000997", receipt.Accepted[997].Number)
	require.Equal(t, 998, receipt.AcceptedCount)
	require.Equal(t, 2, receipt.RejectedCount)
	require.Equal(t, 1000, receipt.TotalCount)
	require.Equal(t, apiv2.Decimal("0.9980"), receipt.Cost, "998 × 0.0010")
	require.Equal(t, "NT1", receipt.Route)
	require.Regexp(t, `^campaign-\d{4}-\d{2}$`, receipt.Storage)
	require.Equal(t, []string{r1.URL + "/hook", r2.URL + "/hook"}, receipt.WebhookURLs)
	require.Nil(t, receipt.Rejected[0].ID)
	require.Equal(t, "hello", receipt.Rejected[0].Number)

	waitFor(t, "both receivers", func() bool {
		_, a, _ := r1.received()
		_, b, _ := r2.received()
		return a == 998 && b == 998
	})
	for _, acc := range receipt.Accepted {
		require.True(t, r1.ids[*acc.ID], "id %s delivered", *acc.ID)
	}
	for id, body := range r1.batches {
		require.Equal(t, string(body), string(r2.batches[id]), "the same batch, byte for byte, to every URL")
		var batch struct {
			Type    string           `json:"type"`
			Results []apiv2.NTResult `json:"results"`
		}
		require.NoError(t, json.Unmarshal(body, &batch))
		require.Equal(t, "NT", batch.Type)
		require.Equal(t, "+4915100000000", batch.Results[0].Number, "submission order")
	}
	require.Zero(t, r1.forgeries+r2.forgeries)
	// Every result is in the store, in the caller's report.
	reports, err := f.store.Reports(context.Background(), "acct")
	require.NoError(t, err)
	require.Len(t, reports, 1)
	require.Equal(t, int64(998), reports[0].Count)
	waitFor(t, "delivery states", func() bool {
		ds, err := f.bulk.Deliveries(context.Background(), "acct", 10)
		return err == nil && len(ds) == 2 && ds[0].State == "delivered" && ds[1].State == "delivered"
	})
}

func TestRetryScheduleThenSuccess(t *testing.T) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 4)
	f := newFixture(t, []string{r.URL}, nil)
	_, _, err := f.bulk.Submit(context.Background(), f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(3)})
	require.NoError(t, err)
	waitFor(t, "delivery after 4 failures", func() bool { b, _, _ := r.received(); return b == 1 })
	r.mu.Lock()
	defer r.mu.Unlock()
	require.Len(t, r.attempts, 5)
	// With a minute lasting a millisecond, the waits follow 1, 2, 4, 8.
	for i := 1; i < len(r.attempts); i++ {
		require.GreaterOrEqual(t, r.attempts[i].Sub(r.attempts[i-1]), time.Duration(webhook.Schedule[i-1])*time.Millisecond)
	}
}

func TestFullScheduleThenFailed(t *testing.T) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 1000)
	f := newFixture(t, []string{r.URL}, nil)
	_, _, err := f.bulk.Submit(context.Background(), f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(1)})
	require.NoError(t, err)
	waitFor(t, "the delivery to fail for good", func() bool { return f.bulk.failed.Load() == 1 })
	_, _, attempts := r.received()
	require.Equal(t, webhook.MaxAttempts, attempts, "the first attempt and 11 retries")
	ds, err := f.bulk.Deliveries(context.Background(), "acct", 10)
	require.NoError(t, err)
	require.Equal(t, "failed", ds[0].State)
	require.Equal(t, 12, ds[0].Attempts)
	require.Equal(t, 503, ds[0].LastStatus)
	require.Equal(t, 1.0, f.metrics.value(`numen_webhook_deliveries_total{outcome="failed"}`))
	require.Equal(t, 12.0, f.metrics.value(`numen_webhook_attempts_total`))
}

func TestTimeoutIsAFailedAttempt(t *testing.T) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 1)
	r.slow = true // the first answer comes after 300 ms, past the sender's 50 ms
	f := newFixture(t, []string{r.URL}, func(o *Options, _ *account.Account) {
		o.Sender = &webhook.Sender{Timeout: 50 * time.Millisecond}
	})
	_, _, err := f.bulk.Submit(context.Background(), f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(2)})
	require.NoError(t, err)
	waitFor(t, "delivery after a timeout", func() bool { b, _, _ := r.received(); return b == 1 })
	_, _, attempts := r.received()
	require.Equal(t, 2, attempts)
}

// fakeMetrics keeps what bulk registers and observes.
type fakeMetrics struct {
	mu      sync.Mutex
	series  map[string]func() float64
	lookups map[[2]string]int
}

func (m *fakeMetrics) ObserveLookup(product, status string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lookups == nil {
		m.lookups = map[[2]string]int{}
	}
	m.lookups[[2]string{product, status}]++
}

func (m *fakeMetrics) Register(family, kind, help, series string, value func() float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.series[series] = value
}

func (m *fakeMetrics) value(series string) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	if f := m.series[series]; f != nil {
		return f()
	}
	return -1
}

func TestIdempotencyKey(t *testing.T) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 0)
	f := newFixture(t, []string{r.URL}, nil)
	ctx := context.Background()
	body := []byte(`{"numbers": ["+4915100000000", "+4915100000001"]}`)
	first, _, err := f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(2), IdempotencyKey: "key-1", Body: body})
	require.NoError(t, err)
	again, _, err := f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(2), IdempotencyKey: "key-1", Body: body})
	require.NoError(t, err)
	require.Equal(t, first, again, "the original receipt, not a second submission")
	_, _, err = f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(3), IdempotencyKey: "key-1", Body: []byte(`{"numbers": []}`)})
	require.ErrorIs(t, err, engine.ErrIdempotencyKeyReused)
	waitFor(t, "one delivery", func() bool { b, _, _ := r.received(); return b == 1 })
	time.Sleep(100 * time.Millisecond)
	_, ids, _ := r.received()
	require.Equal(t, 2, ids, "queued once")
}

// Concurrent submissions with one Idempotency-Key: one is queued, and every
// one answers its receipt; none fails.
func TestIdempotencyKeyConcurrent(t *testing.T) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 0)
	f := newFixture(t, []string{r.URL}, nil)
	ctx := context.Background()
	body := []byte(`{"numbers": ["+4915100000000", "+4915100000001", "+4915100000002"]}`)
	const n = 20
	receipts := make([]*apiv2.Receipt, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			receipts[i], _, errs[i] = f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(3), IdempotencyKey: "same-key", Body: body})
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i], "submission %d", i)
		require.Equal(t, receipts[0], receipts[i], "submission %d", i)
	}
	waitFor(t, "one delivery", func() bool { b, _, _ := r.received(); return b == 1 })
	time.Sleep(100 * time.Millisecond)
	_, ids, _ := r.received()
	require.Equal(t, 3, ids, "queued once")
}

func TestHLRBulkAndLegacyKeys(t *testing.T) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 0)
	f := newFixture(t, []string{r.URL}, nil)
	ctx := context.Background()
	receipt, _, err := f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductHLR, Numbers: []string{"+4915123456789", "+49 30 1234567", "+8816 12345678", "nonsense"}})
	require.NoError(t, err)
	require.Equal(t, 1, receipt.AcceptedCount, "landlines, rejected ranges and non-numbers are unusable for HLR")
	require.Equal(t, 3, receipt.RejectedCount)
	require.Equal(t, "DS7", receipt.Route)
	require.Equal(t, apiv2.Decimal("0.0100"), receipt.Cost)
	waitFor(t, "the HLR batch", func() bool { b, _, _ := r.received(); return b == 1 })
	for _, body := range r.batches {
		var batch struct {
			Type    string            `json:"type"`
			Results []apiv2.HLRResult `json:"results"`
		}
		require.NoError(t, json.Unmarshal(body, &batch))
		require.Equal(t, "HLR", batch.Type)
		require.Equal(t, "CONNECTED", batch.Results[0].ConnectivityStatus)
		require.Regexp(t, `^ASYNC-API-\d{4}-\d{2}$`, *batch.Results[0].Storage)
	}

	f.acct.LegacyNTKeys = true
	_, _, err = f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: []string{"+4915123456789"}})
	require.NoError(t, err)
	waitFor(t, "the legacy NT batch", func() bool { b, _, _ := r.received(); return b == 2 })
	found := false
	for _, body := range r.batches {
		if strings.Contains(string(body), `"numbertype"`) {
			found = true
			require.Contains(t, string(body), `"isvalid":"Yes"`)
			require.Contains(t, string(body), `"interface":"ASYNC API"`)
			require.Contains(t, string(body), `"state":"COMPLETED"`)
		}
	}
	require.True(t, found)
}

func TestSubmitErrors(t *testing.T) {
	f := newFixture(t, []string{"http://127.0.0.1:9/hook"}, nil)
	ctx := context.Background()
	_, _, err := f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(1), Route: "GT1"})
	require.EqualError(t, err, `route: "GT1" is an HLR route; this lookup needs one of [NT]`)
	_, _, err = f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductHLR, Numbers: numbers(1), Storage: strings.Repeat("x", 101)})
	require.EqualError(t, err, "storage: is 101 characters long; at most 100")
	_, _, err = f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(1001)})
	require.EqualError(t, err, "numbers: 1001 numbers; at most 1000")
	_, _, err = f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductHLR, Numbers: []string{"+4915123456789", strings.Repeat("9", 1<<20)}, IdempotencyKey: "long", Body: []byte("x")})
	require.EqualError(t, err, "msisdns[1]: is 1048576 characters long; at most 250")
	_, _, err = f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: []string{"+4915123456789", "+4915123456780", strings.Repeat("ä", 251)}})
	require.EqualError(t, err, "numbers[2]: is 251 characters long; at most 250")
	// Nothing was queued, and the key of the refused submission is free.
	c, err := f.store.Claim(ctx, "acct", "long")
	require.NoError(t, err)
	require.Nil(t, c)
	reports, err := f.store.Reports(ctx, "acct")
	require.NoError(t, err)
	require.Empty(t, reports)
}

// A number with a control character is rejected in the receipt, echoed as
// JSON escapes it; the receipt is encoded before the job is queued, and a
// retry with the same key answers those very bytes and queues nothing.
func TestReceiptWithControlCharacters(t *testing.T) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 0)
	f := newFixture(t, []string{r.URL}, nil)
	ctx := context.Background()
	in := []string{"+4915123456789\a", "+4915123456780", "<b>\u2028"}
	body := []byte(`{"numbers": ["+4915123456789\u0007", "+4915123456780", "<b>"]}`)
	receipt, encoded, err := f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: in, IdempotencyKey: "ctl", Body: body})
	require.NoError(t, err)
	require.True(t, json.Valid(encoded), "%s", encoded)
	require.Contains(t, string(encoded), `{"id":null,"number":"+4915123456789\u0007"}`)
	require.Contains(t, string(encoded), `{"id":null,"number":"\u003cb\u003e\u2028"}`)
	var back apiv2.Receipt
	require.NoError(t, json.Unmarshal(encoded, &back))
	require.Equal(t, receipt, &back)
	require.Equal(t, 1, receipt.AcceptedCount)
	require.Equal(t, 2, receipt.RejectedCount)

	again, encodedAgain, err := f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: in, IdempotencyKey: "ctl", Body: body})
	require.NoError(t, err)
	require.Equal(t, string(encoded), string(encodedAgain), "the first receipt, byte for byte")
	require.Equal(t, receipt.Accepted, again.Accepted)
	waitFor(t, "one delivery", func() bool { b, _, _ := r.received(); return b == 1 })
	time.Sleep(100 * time.Millisecond)
	_, ids, _ := r.received()
	require.Equal(t, 1, ids, "queued and charged once")
}

// TestOnPostgreSQL runs the package's tests again with the queue and the
// results in PostgreSQL (the server of NUMEN_TEST_POSTGRES).
func TestOnPostgreSQL(t *testing.T) {
	for _, tc := range []struct {
		name string
		test func(*testing.T)
	}{
		{"SubmitAndDeliverNT", TestSubmitAndDeliverNT},
		{"RetryScheduleThenSuccess", TestRetryScheduleThenSuccess},
		{"FullScheduleThenFailed", TestFullScheduleThenFailed},
		{"TimeoutIsAFailedAttempt", TestTimeoutIsAFailedAttempt},
		{"IdempotencyKey", TestIdempotencyKey},
		{"IdempotencyKeyConcurrent", TestIdempotencyKeyConcurrent},
		{"HLRBulkAndLegacyKeys", TestHLRBulkAndLegacyKeys},
		{"SubmitErrors", TestSubmitErrors},
		{"ReceiptWithControlCharacters", TestReceiptWithControlCharacters},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onPostgres = true
			defer func() { onPostgres = false }()
			tc.test(t)
		})
	}
}
