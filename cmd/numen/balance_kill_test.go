package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
)

// TestServeBalanceKill9 spends one account's monthly cap from two servers
// on one PostgreSQL database, a numen serve process and one in this
// process, and kills the process with SIGKILL while both spend: the cap
// is never passed, the killed node's unused lease comes back once it has
// ended and its grace passed (balance_leases, 1 s and 3 s here), so that
// the survivor spends the cap exactly, and nothing is charged twice:
// every answered lookup is stored once, and the results charge what they
// say, lookups under way at the kill at most added.
func TestServeBalanceKill9(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts numen serve, kills it and waits out its lease")
	}
	database := pgtest.Database(t)
	const key, secret = "capped-kill", "capped-kill-secret-0123456789"
	capped := engine.Money(1000) // 100 NT lookups at 0.0010
	dir := t.TempDir()
	simnet := []backendConfig{{Type: "simnet"}}
	cfg := func() *serveConfig {
		return &serveConfig{
			Addr: "127.0.0.1:0", Data: filepath.Join(dir, "data"), Database: database,
			RequestTimeout: duration(2 * time.Second), BackendTimeout: duration(time.Second),
			BalanceLeases: &balanceLeasesConfig{Duration: duration(time.Second), Grace: duration(3 * time.Second)},
			Routes:        []routeConfig{{Route: "DS7", Backends: simnet}, {Route: "GT1", Backends: simnet}, {Route: "GT2", Backends: simnet}, {Route: "MP1", Backends: simnet}},
			Accounts:      []accountConfig{{Key: key, Secrets: []string{secret}, Balance: &balanceConfig{MonthlyCap: &capped}}},
		}
	}
	raw, err := json.Marshal(cfg())
	require.NoError(t, err)
	config := filepath.Join(dir, "numen.json")
	require.NoError(t, os.WriteFile(config, raw, 0o600))
	victim := startChild(t, config)
	survivor := startServer(t, cfg(), false)

	var (
		mu       sync.Mutex
		answered []string // ids of the lookups answered 200
		next     atomic.Int64
		lost     atomic.Int64 // lookups to the victim without an answer (killed)
		wg       sync.WaitGroup
	)
	// lookup asks base for an NT lookup of a new number: the status (0
	// when no answer came) and, but for 200, the body or the error.
	lookup := func(base string) (int, string) {
		body := fmt.Sprintf(`{"number": "+49301%07d"}`, next.Add(1))
		code, b, err := signedDo(t, base, key, secret, "/nt-lookup", body)
		if err != nil {
			return 0, err.Error()
		}
		if code != 200 {
			return code, string(b)
		}
		var res apiv2.NTResult
		if err := json.Unmarshal(b, &res); err != nil {
			return -1, err.Error()
		}
		mu.Lock()
		answered = append(answered, string(res.ID))
		mu.Unlock()
		return code, ""
	}
	// Four clients on the victim until it is killed; four on the
	// survivor until it has refused for longer than the victim's lease
	// and grace (then the victim's unused lease is back, and refusal
	// means the cap is spent).
	for range 4 {
		wg.Go(func() {
			for range 200 { // bounded: the cap allows 100
				code, msg := lookup(victim.base)
				switch code {
				case 200, http.StatusPaymentRequired:
				case 0:
					lost.Add(1)
					return
				default:
					t.Errorf("victim: %d %s", code, msg)
					return
				}
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			var refusedSince time.Time
			for range 2000 { // bounded: about 20 s of refusals at most
				code, msg := lookup(survivor.base)
				switch code {
				case 200:
					refusedSince = time.Time{}
				case http.StatusPaymentRequired:
					if refusedSince.IsZero() {
						refusedSince = time.Now()
					}
					if time.Since(refusedSince) > 6*time.Second {
						return
					}
					time.Sleep(10 * time.Millisecond)
				default:
					t.Errorf("survivor: %d %s", code, msg)
					return
				}
			}
			t.Error("survivor: never refused for 6 s")
		})
	}
	// Kill the victim once a third of the cap is answered.
	for range 3000 {
		mu.Lock()
		n := len(answered)
		mu.Unlock()
		if n >= 33 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	victim.kill9(t)
	wg.Wait()

	// The cap spent exactly, never passed: the results charge it, as many
	// as were answered and at most the lookups cut by the kill more.
	db, err := pgstore.Open(t.Context(), database, pgstore.WithWriters(1))
	require.NoError(t, err)
	defer db.Close()
	reports, err := db.Reports(t.Context(), key)
	require.NoError(t, err)
	var count int64
	var cost engine.Money
	for _, r := range reports {
		count += r.Count
		cost += r.Cost
	}
	t.Logf("%d answered, %d cut by the kill, %d stored", len(answered), lost.Load(), count)
	require.Equal(t, capped, cost, "charged: the cap, exactly")
	require.EqualValues(t, 100, count, "one result per charge")
	require.LessOrEqual(t, int64(len(answered)), count)
	require.LessOrEqual(t, count, int64(len(answered))+lost.Load())
	bodies, err := db.Bodies(t.Context(), answered)
	require.NoError(t, err)
	require.Len(t, bodies, len(answered), "every answered lookup stored once")

	code, body := signedCall(t, survivor.base, key, secret, "GET", "/balance", "")
	require.Equal(t, 200, code, "%s", body)
	var b apiv2.Balance
	require.NoError(t, json.Unmarshal(body, &b))
	require.Equal(t, "0.1000", b.SpentThisMonth)

	// The survivor's metrics: its refusals, its leases, and nothing left.
	resp, err := http.Get(strings.TrimSuffix(survivor.base, "/api/v2") + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Contains(t, string(text), `numen_balance_remaining_eur{account="capped-kill",limit="cap"} 0`+"\n")
	for _, series := range []string{`numen_balance_refused_lookups_total{account="capped-kill",reason="cap"}`, `numen_balance_lease_grants_total{account="capped-kill"}`} {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\d+)$`).FindStringSubmatch(string(text))
		require.NotNil(t, m, "%s in %s", series, text)
		n, _ := strconv.Atoi(m[1])
		require.Positive(t, n, series)
	}
}

// signedDo posts a digest-signed body to path and returns the status and
// body, or the error of a request that got no answer (safe in any
// goroutine).
func signedDo(t *testing.T, base, key, secret, path, body string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(t.Context(), "POST", base+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if err := auth.SignRequest(req, key, secret, time.Now(), []byte(body)); err != nil {
		return 0, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, b, nil
}
