package bulk

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
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
// fails the first `failures` attempts (or, when slow, answers them only
// after the sender gave up at its timeout), keeps what it took, and
// signals changed after each request.
type receiver struct {
	*httptest.Server
	mu         sync.Mutex
	failures   int
	slow       bool
	attempts   []time.Time
	attemptIDs []string          // webhook-id of every authentic attempt
	batches    map[string][]byte // webhook-id -> body
	ids        map[string]bool   // result ids received
	forgeries  int
	changed    signal // after every request
}

func newReceiver(t *testing.T, key string, secrets []string, failures int) *receiver {
	r := &receiver{failures: failures, batches: map[string][]byte{}, ids: map[string]bool{}}
	swv := auth.StandardWebhookVerifier{}
	for _, s := range secrets {
		swv.Secrets = append(swv.Secrets, []byte(s))
	}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		defer r.changed.notify()
		body, err := webhook.Verify(req, key, secrets, 0)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.attempts = append(r.attempts, time.Now())
		if err != nil || swv.Verify(req.Header, body, time.Now()) != nil || req.Header.Get("Content-Type") != "application/json" {
			r.forgeries++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		r.attemptIDs = append(r.attemptIDs, req.Header.Get("webhook-id"))
		if r.failures > 0 {
			r.failures--
			if r.slow {
				// Answers 200 after the sender gave up (and closed
				// the connection): not a delivery.
				r.mu.Unlock()
				<-req.Context().Done()
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

// signal tells waiters that something changed: a request came to a
// receiver, a fixture's store queued or finished work.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait returns a channel closed at the next notify.
func (s *signal) wait() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

func (s *signal) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

// waitFor checks cond each time s is notified until it holds, failing
// after a bounded wait.
func waitFor(t *testing.T, s *signal, what string, cond func() bool) {
	t.Helper()
	timeout := time.NewTimer(60 * time.Second)
	defer timeout.Stop()
	for {
		changed := s.wait()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// tracked is a store that counts the work queued and finished, so that a
// test can wait until the queue is idle instead of sleeping.
type tracked struct {
	store.Database
	changed signal
	mu      sync.Mutex
	// lookups queued and dispatched; deliveries queued and done
	// (delivered, or failed for good).
	queued, dispatched, deliveries, done int
}

func (s *tracked) Enqueue(ctx context.Context, claim *store.Claim, job river.InsertManyParams) (*store.Claim, error) {
	earlier, err := s.Database.Enqueue(ctx, claim, job)
	if err == nil && earlier == nil && job.Args != nil {
		s.count(func() { s.queued++ })
	}
	return earlier, err
}

func (s *tracked) Dispatch(ctx context.Context, batch *store.Batch, jobs []river.InsertManyParams) error {
	err := s.Database.Dispatch(ctx, batch, jobs)
	if err == nil {
		s.count(func() { s.dispatched++; s.deliveries += len(jobs) })
	}
	return err
}

func (s *tracked) SetDelivery(ctx context.Context, d store.Delivery) error {
	err := s.Database.SetDelivery(ctx, d)
	if err == nil && d.State != "pending" {
		s.count(func() { s.done++ })
	}
	return err
}

func (s *tracked) count(f func()) {
	s.mu.Lock()
	f()
	s.mu.Unlock()
	s.changed.notify()
}

// idle reports whether every lookup job queued has queued its deliveries
// and every delivery is done, with the number of lookup jobs queued.
func (s *tracked) idle() (bool, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queued == s.dispatched && s.deliveries == s.done, s.queued
}

// settle waits until the queue is idle and returns the number of lookup
// jobs queued.
func (f *fixture) settle(t *testing.T) int {
	t.Helper()
	var n int
	waitFor(t, &f.tracked.changed, "the queue to be idle", func() bool {
		ok, queued := f.tracked.idle()
		n = queued
		return ok
	})
	return n
}

// logSignal is a slog handler that notifies s at each record at or above
// level warn (a delivery failed for good).
type logSignal struct{ s *signal }

func (h logSignal) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h logSignal) Handle(context.Context, slog.Record) error    { h.s.notify(); return nil }
func (h logSignal) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h logSignal) WithGroup(string) slog.Handler                { return h }

type fixture struct {
	bulk    *Bulk
	acct    *account.Account
	metrics *fakeMetrics
	store   store.Database
	tracked *tracked // the store as bulk sees it
}

// backend opens the store of a test's fixture.
type backend func(t *testing.T) (store.Database, error)

func onSQLite(t *testing.T) (store.Database, error) {
	return sqlitestore.Open(t.Context(), t.TempDir())
}

// onPostgres opens a database of its own on the server of
// NUMEN_TEST_POSTGRES (TestOnPostgreSQL).
func onPostgres(t *testing.T) (store.Database, error) {
	return pgstore.Open(t.Context(), pgtest.Database(t))
}

func newFixture(t *testing.T, open backend, urls []string, mutate func(*Options, *account.Account)) *fixture {
	plan, err := sharedPlan()
	require.NoError(t, err)
	st, err := open(t)
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
	f := &fixture{acct: acct, metrics: &fakeMetrics{series: map[string]func() float64{}}, store: st, tracked: &tracked{Database: st}}
	o := Options{
		Engine: eng, Store: f.tracked,
		Account: func(key string) (*account.Account, bool) {
			if key == acct.Key {
				return acct, true
			}
			return nil, false
		},
		Minute: time.Millisecond, PollInterval: 10 * time.Millisecond,
		Logger: slog.New(logSignal{&f.tracked.changed}), Metrics: f.metrics,
	}
	if mutate != nil {
		mutate(&o, acct)
	}
	// Not t.Context(): River stops when Start's context ends, and the
	// workers run until the cleanup's Close.
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
	t.Parallel()
	submitAndDeliverNT(t, onSQLite)
}

func submitAndDeliverNT(t *testing.T, open backend) {
	r1 := newReceiver(t, "acct", []string{"second-secret-0123456789"}, 0) // knows one secret of two
	r2 := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 0)
	f := newFixture(t, open, []string{r1.URL + "/hook", r2.URL + "/hook"}, nil)
	in := append(numbers(998), "hello", "+999 123")
	in[997] = "4915100000997" // a bare MSISDN: the receipt names it as its result will, in E.164
	receipt, _, err := f.bulk.Submit(t.Context(), f.acct, engine.Submission{Product: engine.ProductNT, Numbers: in, Storage: "campaign"})
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

	waitFor(t, &r1.changed, "the first receiver", func() bool { _, n, _ := r1.received(); return n == 998 })
	waitFor(t, &r2.changed, "the second receiver", func() bool { _, n, _ := r2.received(); return n == 998 })
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
	reports, err := f.store.Reports(t.Context(), "acct")
	require.NoError(t, err)
	require.Len(t, reports, 1)
	require.Equal(t, int64(998), reports[0].Count)
	require.Equal(t, 1, f.settle(t), "lookup jobs")
	ds, err := f.bulk.Deliveries(t.Context(), "acct", 10)
	require.NoError(t, err)
	require.Len(t, ds, 2)
	require.Equal(t, "delivered", ds[0].State)
	require.Equal(t, "delivered", ds[1].State)
}

// TestWebhookIDsAcrossDeployments: two deployments (two databases, each
// with its first job) sending to one receiver never send one webhook-id,
// and a callback keeps its id on every retry.
func TestWebhookIDsAcrossDeployments(t *testing.T) {
	t.Parallel()
	webhookIDsAcrossDeployments(t, onSQLite)
}

func webhookIDsAcrossDeployments(t *testing.T, open backend) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 2)
	a := newFixture(t, open, []string{r.URL}, nil)
	b := newFixture(t, open, []string{r.URL}, nil)
	for _, f := range []*fixture{a, b} {
		_, _, err := f.bulk.Submit(t.Context(), f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(2)})
		require.NoError(t, err)
	}
	waitFor(t, &r.changed, "both callbacks", func() bool { n, _, _ := r.received(); return n == 2 })
	r.mu.Lock()
	defer r.mu.Unlock()
	require.Len(t, r.batches, 2, "two ids for two callbacks")
	require.Len(t, r.attemptIDs, 4, "two failed attempts and two deliveries")
	for _, id := range r.attemptIDs {
		require.Regexp(t, `^wh_[A-Z2-7]{26}$`, id)
		require.Contains(t, r.batches, id, "a retry sends the id its callback is delivered with")
	}
}

// TestBatchIDOfOlderJobs: a job queued before callbacks had their own id
// keeps the id its earlier attempts used.
func TestBatchIDOfOlderJobs(t *testing.T) {
	t.Parallel()
	require.Equal(t, "wh_7", batchID(7, &lookupArgs{}))
	require.Equal(t, "wh_ABC", batchID(7, &lookupArgs{Batch: "wh_ABC"}))
	var old lookupArgs
	require.NoError(t, json.Unmarshal([]byte(`{"account":"acct","product":"NT","webhook_urls":[],"items":[]}`), &old))
	require.Equal(t, "wh_9", batchID(9, &old))
	require.NotEqual(t, newBatchID(), newBatchID())
}

func TestRetryScheduleThenSuccess(t *testing.T) {
	t.Parallel()
	retryScheduleThenSuccess(t, onSQLite)
}

func retryScheduleThenSuccess(t *testing.T, open backend) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 4)
	f := newFixture(t, open, []string{r.URL}, nil)
	_, _, err := f.bulk.Submit(t.Context(), f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(3)})
	require.NoError(t, err)
	waitFor(t, &r.changed, "delivery after 4 failures", func() bool { b, _, _ := r.received(); return b == 1 })
	r.mu.Lock()
	defer r.mu.Unlock()
	require.Len(t, r.attempts, 5)
	// With a minute lasting a millisecond, the waits follow 1, 2, 4, 8.
	for i := 1; i < len(r.attempts); i++ {
		require.GreaterOrEqual(t, r.attempts[i].Sub(r.attempts[i-1]), time.Duration(webhook.Schedule[i-1])*time.Millisecond)
	}
}

func TestFullScheduleThenFailed(t *testing.T) {
	t.Parallel()
	fullScheduleThenFailed(t, onSQLite)
}

func fullScheduleThenFailed(t *testing.T, open backend) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 1000)
	f := newFixture(t, open, []string{r.URL}, nil)
	_, _, err := f.bulk.Submit(t.Context(), f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(1)})
	require.NoError(t, err)
	// The worker counts the failure, then logs it.
	waitFor(t, &f.tracked.changed, "the delivery to fail for good", func() bool { return f.bulk.failed.Load() == 1 })
	_, _, attempts := r.received()
	require.Equal(t, webhook.MaxAttempts, attempts, "the first attempt and 11 retries")
	ds, err := f.bulk.Deliveries(t.Context(), "acct", 10)
	require.NoError(t, err)
	require.Equal(t, "failed", ds[0].State)
	require.Equal(t, 12, ds[0].Attempts)
	require.Equal(t, 503, ds[0].LastStatus)
	require.Equal(t, 1.0, f.metrics.value(`numen_webhook_deliveries_total{outcome="failed"}`))
	require.Equal(t, 12.0, f.metrics.value(`numen_webhook_attempts_total`))
}

func TestTimeoutIsAFailedAttempt(t *testing.T) {
	t.Parallel()
	timeoutIsAFailedAttempt(t, onSQLite)
}

func timeoutIsAFailedAttempt(t *testing.T, open backend) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 1)
	r.slow = true // the first answer comes after the sender's 50 ms timeout
	f := newFixture(t, open, []string{r.URL}, func(o *Options, _ *account.Account) {
		o.Sender = &webhook.Sender{Timeout: 50 * time.Millisecond}
	})
	_, _, err := f.bulk.Submit(t.Context(), f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(2)})
	require.NoError(t, err)
	waitFor(t, &r.changed, "delivery after a timeout", func() bool { b, _, _ := r.received(); return b == 1 })
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
	t.Parallel()
	idempotencyKey(t, onSQLite)
}

func idempotencyKey(t *testing.T, open backend) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 0)
	f := newFixture(t, open, []string{r.URL}, nil)
	ctx := t.Context()
	body := []byte(`{"numbers": ["+4915100000000", "+4915100000001"]}`)
	first, _, err := f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(2), IdempotencyKey: "key-1", Body: body})
	require.NoError(t, err)
	again, _, err := f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(2), IdempotencyKey: "key-1", Body: body})
	require.NoError(t, err)
	require.Equal(t, first, again, "the original receipt, not a second submission")
	_, _, err = f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductNT, Numbers: numbers(3), IdempotencyKey: "key-1", Body: []byte(`{"numbers": []}`)})
	require.ErrorIs(t, err, engine.ErrIdempotencyKeyReused)
	require.Equal(t, 1, f.settle(t), "lookup jobs")
	_, ids, _ := r.received()
	require.Equal(t, 2, ids, "queued once")
}

// Concurrent submissions with one Idempotency-Key: one is queued, and every
// one answers its receipt; none fails.
func TestIdempotencyKeyConcurrent(t *testing.T) {
	t.Parallel()
	idempotencyKeyConcurrent(t, onSQLite)
}

func idempotencyKeyConcurrent(t *testing.T, open backend) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 0)
	f := newFixture(t, open, []string{r.URL}, nil)
	ctx := t.Context()
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
	require.Equal(t, 1, f.settle(t), "lookup jobs")
	_, ids, _ := r.received()
	require.Equal(t, 3, ids, "queued once")
}

func TestHLRBulkAndLegacyKeys(t *testing.T) {
	t.Parallel()
	hlrBulkAndLegacyKeys(t, onSQLite)
}

func hlrBulkAndLegacyKeys(t *testing.T, open backend) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 0)
	f := newFixture(t, open, []string{r.URL}, nil)
	ctx := t.Context()
	receipt, _, err := f.bulk.Submit(ctx, f.acct, engine.Submission{Product: engine.ProductHLR, Numbers: []string{"+4915123456789", "+49 30 1234567", "+8816 12345678", "nonsense"}})
	require.NoError(t, err)
	require.Equal(t, 1, receipt.AcceptedCount, "landlines, rejected ranges and non-numbers are unusable for HLR")
	require.Equal(t, 3, receipt.RejectedCount)
	require.Equal(t, "DS7", receipt.Route)
	require.Equal(t, apiv2.Decimal("0.0100"), receipt.Cost)
	waitFor(t, &r.changed, "the HLR batch", func() bool { b, _, _ := r.received(); return b == 1 })
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
	waitFor(t, &r.changed, "the legacy NT batch", func() bool { b, _, _ := r.received(); return b == 2 })
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
	t.Parallel()
	submitErrors(t, onSQLite)
}

func submitErrors(t *testing.T, open backend) {
	f := newFixture(t, open, []string{"http://127.0.0.1:9/hook"}, nil)
	ctx := t.Context()
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
	t.Parallel()
	receiptWithControlCharacters(t, onSQLite)
}

func receiptWithControlCharacters(t *testing.T, open backend) {
	r := newReceiver(t, "acct", []string{"first-secret-0123456789"}, 0)
	f := newFixture(t, open, []string{r.URL}, nil)
	ctx := t.Context()
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
	require.Equal(t, 1, f.settle(t), "lookup jobs")
	_, ids, _ := r.received()
	require.Equal(t, 1, ids, "queued and charged once")
}

// TestOnPostgreSQL runs the package's tests again with the queue and the
// results in PostgreSQL (the server of NUMEN_TEST_POSTGRES).
func TestOnPostgreSQL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		test func(*testing.T, backend)
	}{
		{"SubmitAndDeliverNT", submitAndDeliverNT},
		{"RetryScheduleThenSuccess", retryScheduleThenSuccess},
		{"FullScheduleThenFailed", fullScheduleThenFailed},
		{"TimeoutIsAFailedAttempt", timeoutIsAFailedAttempt},
		{"IdempotencyKey", idempotencyKey},
		{"IdempotencyKeyConcurrent", idempotencyKeyConcurrent},
		{"HLRBulkAndLegacyKeys", hlrBulkAndLegacyKeys},
		{"SubmitErrors", submitErrors},
		{"ReceiptWithControlCharacters", receiptWithControlCharacters},
		{"SubmitCountry", submitCountry},
		{"WebhookIDsAcrossDeployments", webhookIDsAcrossDeployments},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.test(t, onPostgres)
		})
	}
}
