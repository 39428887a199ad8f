package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/mnp/remote"
)

// countRecords makes s count the results it records.
func countRecords(s *server) *atomic.Int64 {
	var n atomic.Int64
	s.sinkTo.Store(engine.SinkFunc(func(ctx context.Context, r engine.Record) error {
		n.Add(1)
		return nil
	}))
	return &n
}

// fixed signs with one timestamp whatever the clock says, as a captured
// request carries it.
func fixed(ts int64) signer {
	return func(t *testing.T, s *server, req *http.Request, body []byte) {
		require.NoError(t, auth.SignRequest(req, key, secret, time.Unix(ts, 0), body))
	}
}

// A digest-signed POST replayed within its window was a second, charged
// lookup; now the signature is accepted once, by the server's default
// memory (one node, as on SQLite).
func TestDigestReplayRefused(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(cfg *Config, a *account.Account) { cfg.Replays = nil }) // the default
	recorded := countRecords(s)
	ts := s.now.Load()
	body := `{"number": "+4915123456789"}`

	status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", body, fixed(ts))
	require.Equal(t, http.StatusOK, status, "%s", b)
	s.now.Add(29) // still within the window
	status, hdr, b := s.do(t, "POST", "/api/v2/nt-lookup", body, fixed(ts))
	require.Equal(t, http.StatusUnauthorized, status, "%s", b)
	require.Equal(t, []string{"signature already used"}, errorsOf(t, b))
	require.Equal(t, "application/json", hdr.Get("Content-Type"))
	require.Equal(t, int64(1), recorded.Load(), "looked up and charged once")

	// The same request signed at another second is another request; so
	// are another body and another path at the same second.
	status, _, b = s.do(t, "POST", "/api/v2/nt-lookup", body, fixed(ts+1))
	require.Equal(t, http.StatusOK, status, "%s", b)
	status, _, b = s.do(t, "POST", "/api/v2/nt-lookup", `{"number": "+4915123456780"}`, fixed(ts))
	require.Equal(t, http.StatusOK, status, "%s", b)
	status, _, b = s.do(t, "POST", "/api/v2/mnp-lookup", `{"msisdn": "+4915123456789"}`, fixed(ts))
	require.Equal(t, http.StatusOK, status, "%s", b)
	require.Equal(t, int64(4), recorded.Load())

	// Past the window it is a stale timestamp, as before.
	s.now.Add(2)
	status, _, b = s.do(t, "POST", "/api/v2/nt-lookup", body, fixed(ts))
	require.Equal(t, http.StatusUnauthorized, status, "%s", b)
	require.Contains(t, errorsOf(t, b)[0], "behind server time")

	// GETs are not guarded: they sign no query string, and change nothing.
	now := s.now.Load()
	for _, q := range []string{"+4915123456789", "+4915123456780", "+4915123456780"} {
		status, _, b = s.do(t, "GET", "/api/v2/route?msisdn="+q, "", fixed(now))
		require.Equal(t, http.StatusOK, status, "%s", b)
	}
	// Nor is Basic authentication, which has no timestamp to make a
	// request unique.
	for range 2 {
		status, _, b = s.do(t, "POST", "/api/v2/nt-lookup", body, basic)
		require.Equal(t, http.StatusOK, status, "%s", b)
	}
}

// Numen's Go client sends identical lookups in one second: it signs each
// with a second of its own (the clock here stands still), and when another
// client of the key took that second, the server refuses it before doing
// anything and the client signs it again later. Every lookup is answered
// and charged once: 3 clients × 5 identical lookups at once.
func TestDigestReplayClientSignsAgain(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(cfg *Config, a *account.Account) { cfg.Replays = nil })
	recorded := countRecords(s)
	clock := remote.WithClock(func() time.Time { return time.Unix(s.now.Load(), 0) })
	ctx := t.Context()
	var wg sync.WaitGroup
	for range 3 {
		c, err := remote.New(s.URL+"/api/v2", key, secret, clock)
		require.NoError(t, err)
		for range 5 {
			wg.Go(func() {
				res, err := c.NTLookup(ctx, "+4915123456789", nil)
				if assert.NoError(t, err) {
					assert.Equal(t, "MOBILE", res.NumberType)
				}
			})
		}
	}
	wg.Wait()
	require.Equal(t, int64(15), recorded.Load())

	c, err := remote.New(s.URL+"/api/v2", key, secret, clock)
	require.NoError(t, err)
	for range 2 {
		_, err := c.NTLookups(ctx, []string{"+4915123456789"}, &remote.BulkOptions{IdempotencyKey: "k"})
		require.ErrorContains(t, err, "501", "bulk is off here: past authentication")
	}
}

// The memory is bounded per key: past the bound, requests are refused with
// 429 and Retry-After (not forgotten) until the oldest signatures expire.
func TestDigestReplayMemoryFull(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(cfg *Config, a *account.Account) { cfg.Replays = auth.NewReplayMemory(30*time.Second, 2) })
	ts := s.now.Load()
	for i := range 2 {
		status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", `{"number": "+491512345678`+strconv.Itoa(i)+`"}`, fixed(ts))
		require.Equal(t, http.StatusOK, status, "%s", b)
	}
	status, hdr, b := s.do(t, "POST", "/api/v2/nt-lookup", `{"number": "+4915123456782"}`, fixed(ts+5))
	require.Equal(t, http.StatusTooManyRequests, status, "%s", b)
	require.Equal(t, "31", hdr.Get("Retry-After"))
	require.Contains(t, errorsOf(t, b)[0], "too many signed requests for this API key")
	s.now.Add(31)
	status, _, b = s.do(t, "POST", "/api/v2/nt-lookup", `{"number": "+4915123456782"}`, fixed(ts+5))
	require.Equal(t, http.StatusOK, status, "%s", b)
}

// Nodes sharing a PostgreSQL database share the memory: a request replayed
// to another node, or to a node restarted, is refused.
func TestDigestReplayAcrossNodesOnPostgreSQL(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Database(t)
	open := func() *pgstore.Store {
		st, err := pgstore.Open(t.Context(), dsn)
		require.NoError(t, err)
		return st
	}
	st1, st2 := open(), open()
	t.Cleanup(func() { _ = st1.Close(); _ = st2.Close() })
	node := func(st *pgstore.Store) (*server, *atomic.Int64) {
		s := newServer(t, func(cfg *Config, a *account.Account) { cfg.Replays = st.ReplayGuard(30 * time.Second) })
		return s, countRecords(s)
	}
	n1, r1 := node(st1)
	n2, r2 := node(st2)
	ts := n1.now.Load()
	body := `{"msisdn": "+4915123456789"}`

	status, _, b := n1.do(t, "POST", "/api/v2/hlr-lookup", body, fixed(ts))
	require.Equal(t, http.StatusOK, status, "%s", b)
	status, _, b = n2.do(t, "POST", "/api/v2/hlr-lookup", body, fixed(ts))
	require.Equal(t, http.StatusUnauthorized, status, "%s", b)
	require.Equal(t, []string{"signature already used"}, errorsOf(t, b))
	status, _, b = n1.do(t, "POST", "/api/v2/hlr-lookup", body, fixed(ts))
	require.Equal(t, http.StatusUnauthorized, status, "%s", b)
	require.Equal(t, int64(1), r1.Load()+r2.Load(), "charged once in the cluster")

	// A node opened afresh (a restart) remembers.
	st3 := open()
	t.Cleanup(func() { _ = st3.Close() })
	n3, r3 := node(st3)
	status, _, b = n3.do(t, "POST", "/api/v2/hlr-lookup", body, fixed(ts))
	require.Equal(t, http.StatusUnauthorized, status, "%s", b)
	require.Zero(t, r3.Load())

	// Signatures out of the window are deleted; the table keeps the rest.
	guard := st1.ReplayGuard(30 * time.Second)
	later := time.Unix(ts+31, 0)
	require.NoError(t, guard.ClaimSignature(t.Context(), key, ts+31, [32]byte{1}, later))
	require.NoError(t, guard.ClaimSignature(t.Context(), key, ts, [32]byte{9}, later), "ts's row was swept; Begin refuses such a timestamp anyway")
	require.True(t, auth.IsReplayed(guard.ClaimSignature(t.Context(), key, ts+31, [32]byte{1}, later)))
}
