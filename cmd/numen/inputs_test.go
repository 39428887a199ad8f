package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/engine/store/sqlitestore"
	"github.com/numenhq/numen/engine/store/stores"
	"github.com/numenhq/numen/mnp/remote"
)

// inputServer is a numen serve with one account whose webhook is a
// receiver, on a SQLite data directory.
func inputServer(t *testing.T) (*running, *remote.Client, *receiver, string) {
	t.Helper()
	const key, secret = "inputs-test", "inputs-test-secret-0123456789"
	hook := newReceiver(t, key, secret)
	simnet := func() []backendConfig { return []backendConfig{{Type: "simnet"}} }
	data := t.TempDir()
	r := startServer(t, &serveConfig{
		Data:     data,
		Routes:   []routeConfig{{Route: "DS7", Backends: simnet()}, {Route: "GT1", Backends: simnet()}, {Route: "GT2", Backends: simnet()}, {Route: "MP1", Backends: simnet()}},
		Bulk:     &bulkConfig{PollInterval: duration(50 * time.Millisecond)},
		Accounts: []accountConfig{{Key: key, Secrets: []string{secret}, WebhookURLs: []string{hook.server.URL + "/hook"}}},
	}, false)
	c, err := remote.New(r.base, key, secret)
	require.NoError(t, err)
	return r, c, hook, data
}

// stoppedResults stops the server and counts the results in its database.
func stoppedResults(t *testing.T, r *running, data, key string) int64 {
	t.Helper()
	require.NoError(t, r.stop())
	return storedResults(t, data, key)
}

// A bulk submission with a control character in one number was answered
// 500 after its job was queued (the receipt's encoder wrote Go escapes, not
// JSON): the good numbers were charged, stored and delivered, and a retry
// paid again. Now the receipt is 200 with the number rejected as JSON
// escapes it, and a retry with the Idempotency-Key answers the first
// receipt and charges nothing again.
func TestBulkControlCharacterReceipt(t *testing.T) {
	t.Parallel()
	r, c, hook, data := inputServer(t)
	ctx := t.Context()
	in := []string{"+4915123456789\u0007", "+4915123456780"}

	receipt, err := c.NTLookups(ctx, in, nil)
	require.NoError(t, err, "the receipt of a submission with a control character")
	require.Equal(t, 1, receipt.AcceptedCount)
	require.Equal(t, "+4915123456789\u0007", receipt.Rejected[0].Number, "echoed as given")

	o := &remote.BulkOptions{IdempotencyKey: "ctl-1"}
	first, err := c.HLRLookups(ctx, in, o)
	require.NoError(t, err)
	require.Equal(t, 1, first.AcceptedCount)
	again, err := c.HLRLookups(ctx, in, o)
	require.NoError(t, err)
	require.Equal(t, first, again, "the first receipt")

	hook.waitDeliveries(t, 2, 30*time.Second)
	require.Equal(t, int64(2), stoppedResults(t, r, data, "inputs-test"), "stored once: nothing charged twice")
	require.Len(t, outbox(t, data, "inputs-test"), 2,
		"one callback per submission in the outbox: the replay queued nothing")
	hook.mu.Lock()
	defer hook.mu.Unlock()
	for id, n := range hook.received {
		require.Equal(t, 1, n, "result %s delivered once", id)
	}
	require.Len(t, hook.received, 2, "one accepted number per submission")
}

// A bulk submission whose answer is lost (the client gives up as soon as
// its request is sent, and the connection closes) and that is retried
// with its Idempotency-Key is queued and charged once, whether or not the
// server had committed it when the client left; the retries answer one
// receipt.
func TestBulkRetryAfterLostAnswer(t *testing.T) {
	t.Parallel()
	r, c, hook, data := inputServer(t)
	in := []string{"+4915123456781", "+4915123456782"}
	o := &remote.BulkOptions{IdempotencyKey: "lost-1"}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { cancel() },
	})
	_, err := c.NTLookups(ctx, in, o)
	require.ErrorIs(t, err, context.Canceled, "the first answer is lost")

	first, err := c.NTLookups(t.Context(), in, o)
	require.NoError(t, err)
	require.Equal(t, 2, first.AcceptedCount)
	again, err := c.NTLookups(t.Context(), in, o)
	require.NoError(t, err)
	require.Equal(t, first, again, "one receipt")

	hook.waitDeliveries(t, 1, 30*time.Second)
	require.Equal(t, int64(2), stoppedResults(t, r, data, "inputs-test"), "stored once: nothing charged twice")
	require.Len(t, outbox(t, data, "inputs-test"), 1, "one callback in the outbox: one job")
	hook.mu.Lock()
	defer hook.mu.Unlock()
	for id, n := range hook.received {
		require.Equal(t, 1, n, "result %s delivered once", id)
	}
	require.Len(t, hook.received, 2)
}

// outbox returns the webhook deliveries of an account in a stopped
// server's data directory, through the store (which alone opens the
// database).
func outbox(t *testing.T, data, account string) []store.Delivery {
	t.Helper()
	s, err := sqlitestore.Open(t.Context(), data)
	require.NoError(t, err)
	defer s.Close()
	d, err := s.Deliveries(t.Context(), account, 100)
	require.NoError(t, err)
	return d
}

// An input number of a megabyte is 400 on every endpoint that takes
// numbers, naming the field and the limit, and nothing is stored; so is a
// storage name of 101 characters.
func TestLongInputsAreRefused(t *testing.T) {
	t.Parallel()
	r, c, _, data := inputServer(t)
	ctx := t.Context()
	huge := strings.Repeat("9", 1_000_000)
	long := &remote.LookupOptions{Storage: strings.Repeat("s", 101)}

	// One stored result first, so that the count after is not vacuous.
	_, err := c.NTLookup(ctx, "+4915123456789", nil)
	require.NoError(t, err)

	requireRefused := func(err error, msg string) {
		t.Helper()
		var apiErr *remote.APIError
		require.True(t, errors.As(err, &apiErr), "%v", err)
		require.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
		require.Equal(t, []string{msg}, apiErr.Errors)
	}
	_, err = c.NTLookup(ctx, huge, nil)
	requireRefused(err, "number: is 1000000 characters long; at most 250")
	_, err = c.HLRLookup(ctx, huge, nil)
	requireRefused(err, "msisdn: is 1000000 characters long; at most 250")
	_, err = c.MNPLookup(ctx, huge, nil)
	requireRefused(err, "msisdn: is 1000000 characters long; at most 250")
	_, err = c.Route(ctx, strings.Repeat("9", 300))
	requireRefused(err, "msisdn: is 300 characters long; at most 250")
	_, err = c.NTLookups(ctx, []string{"+4915123456789", huge}, nil)
	requireRefused(err, "numbers[1]: is 1000000 characters long; at most 250")
	_, err = c.HLRLookups(ctx, []string{huge}, &remote.BulkOptions{IdempotencyKey: "huge"})
	requireRefused(err, "msisdns[0]: is 1000000 characters long; at most 250")
	_, err = c.NTLookup(ctx, "+4915123456789", long)
	requireRefused(err, "storage: is 101 characters long; at most 100")
	_, err = c.NTLookups(ctx, []string{"+4915123456789"}, &remote.BulkOptions{Storage: long.Storage})
	requireRefused(err, "storage: is 101 characters long; at most 100")

	require.Equal(t, int64(1), stoppedResults(t, r, data, "inputs-test"), "nothing stored but the first lookup")
}

// numen serve on PostgreSQL gives the handler the database's memory of
// digest signatures (shared by the nodes), on SQLite the handler's own.
func TestServeSharesReplayMemoryOnPostgreSQL(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pg, err := stores.Open(ctx, pgtest.Database(t))
	require.NoError(t, err)
	defer pg.Close()
	_, ok := pg.(replaySharer)
	require.True(t, ok, "%T shares the replay memory", pg)
	lite, err := stores.Open(ctx, t.TempDir())
	require.NoError(t, err)
	defer lite.Close()
	_, ok = lite.(replaySharer)
	require.False(t, ok)
}

// numen call run twice in one second with the same request: the second is
// refused as a replay and signs again with the next second, so both answer.
func TestCallSignsAgainWhenRefusedAsReplay(t *testing.T) {
	t.Parallel()
	r, _, _, data := inputServer(t)
	for i := range 3 {
		code, out, errOut := runCLI(t, nil, "call", "--url", r.base, "--key", "inputs-test", "--secret", "inputs-test-secret-0123456789",
			"POST", "/nt-lookup", `{"number": "+4915123456789"}`)
		require.Equal(t, exitOK, code, "call %d: %s %s", i, out, errOut)
		require.Contains(t, out, `"number_type":"MOBILE"`)
	}
	require.Equal(t, int64(3), stoppedResults(t, r, data, "inputs-test"))
}

// numen call without a key sends the request unsigned: a public endpoint
// answers; one that needs a key is refused, and the command says why.
func TestCallWithoutKey(t *testing.T) {
	t.Parallel()
	r := startServer(t, &serveConfig{}, true)
	code, out, errOut := runCLI(t, nil, "call", "--url", r.base, "--key=", "--secret=", "GET", "/time")
	require.Equal(t, exitOK, code, errOut)
	require.Regexp(t, `^\{"time": ?\d+\}`, out)
	code, _, errOut = runCLI(t, nil, "call", "--url", r.base, "--key=", "--secret=", "POST", "/nt-lookup", `{"number": "+4915123456789"}`)
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "numen call: 401 Unauthorized\nnumen call: sent without a key: this endpoint needs one")
	code, _, errOut = runCLI(t, nil, "call", "--url", r.base, "--key", "k", "--secret=", "GET", "/time")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "give --key and --secret together")
}
