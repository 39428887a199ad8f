package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
)

// signedCall sends one digest-signed request and returns the status and
// body.
func signedCall(t *testing.T, base, key, secret, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, base+path, strings.NewReader(body))
	require.NoError(t, err)
	if body == "" {
		req.Body = http.NoBody
	}
	require.NoError(t, auth.SignRequest(req, key, secret, time.Now(), []byte(body)))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// TestServeBalance: two servers on one PostgreSQL database serve a
// prepaid account topped up by its config (read by both: added once);
// its lookups are refused with 402 once the balance is spent, and numen
// balance top-up lets them go on.
func TestServeBalance(t *testing.T) {
	database := pgtest.Database(t)
	const key, secret = "prepaid", "prepaid-secret-0123456789"
	capped := engine.Money(1000)
	cfg := func() *serveConfig {
		simnet := []backendConfig{{Type: "simnet"}}
		return &serveConfig{
			Database: database,
			Routes:   []routeConfig{{Route: "DS7", Backends: simnet}, {Route: "GT1", Backends: simnet}, {Route: "GT2", Backends: simnet}, {Route: "MP1", Backends: simnet}},
			Accounts: []accountConfig{{Key: key, Secrets: []string{secret}, Balance: &balanceConfig{
				Prepaid: true, MonthlyCap: &capped, TopUps: []topUpConfig{{ID: "first", Amount: 30}},
			}}},
		}
	}
	nodes := []*running{startServer(t, cfg(), false), startServer(t, cfg(), false)}
	for i := range 3 {
		code, body := signedCall(t, nodes[i%2].base, key, secret, "POST", "/nt-lookup", fmt.Sprintf(`{"number": "+493012345%d"}`, i))
		require.Equal(t, 200, code, "%s", body)
	}
	code, body := signedCall(t, nodes[1].base, key, secret, "POST", "/nt-lookup", `{"number": "+4930123459"}`)
	require.Equal(t, http.StatusPaymentRequired, code, "%s", body)
	require.Contains(t, string(body), `"balance: the prepaid balance does not cover this lookup`)

	code, body = signedCall(t, nodes[0].base, key, secret, "GET", "/balance", "")
	require.Equal(t, 200, code, "%s", body)
	var b apiv2.Balance
	require.NoError(t, json.Unmarshal(body, &b))
	require.Equal(t, "0.0000", *b.Balance)
	require.Equal(t, "0.1000", *b.MonthlyCap)
	require.Equal(t, "0.0030", b.SpentThisMonth)

	var out bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &out, loadPlan: sharedPlan}
	require.Equal(t, exitOK, c.run([]string{"balance", "top-up", "--database", database, "--id", "invoice-7", key, "0.01"}), out.String())
	require.Contains(t, out.String(), "added 0.0100 EUR to prepaid (top-up invoice-7)")
	require.Contains(t, out.String(), "balance            0.0100 EUR")
	out.Reset()
	require.Equal(t, exitOK, c.run([]string{"balance", "top-up", "--database", database, "--id", "invoice-7", key, "0.01"}), out.String())
	require.Contains(t, out.String(), "was added before; nothing added")

	// show --config reads the account's limits and the database from the
	// sidecar's config: no --cap, no --database.
	raw, err := json.Marshal(cfg())
	require.NoError(t, err)
	config := filepath.Join(t.TempDir(), "numen.json")
	require.NoError(t, os.WriteFile(config, raw, 0o600))
	out.Reset()
	require.Equal(t, exitOK, c.run([]string{"balance", "show", "--config", config, key}), out.String())
	require.True(t, strings.HasPrefix(out.String(), "balance            0.0100 EUR\nmonthly cap        0.1000 EUR\nspent this month   0.0030 EUR\nreserved "), out.String())
	out.Reset()
	require.Equal(t, exitOK, c.run([]string{"balance", "show", "--config", config, "--cap", "5", "--prepaid=false", key}), out.String())
	require.True(t, strings.HasPrefix(out.String(), "monthly cap        5.0000 EUR\nspent this month   0.0030 EUR\nreserved "), out.String())
	out.Reset()
	require.Equal(t, exitError, c.run([]string{"balance", "show", "--config", config, "nobody"}))
	require.Contains(t, out.String(), `has no account "nobody"`)

	code, body = signedCall(t, nodes[1].base, key, secret, "POST", "/nt-lookup", `{"number": "+4930123458"}`)
	require.Equal(t, 200, code, "%s", body)
}

// TestServeBalanceOnSQLite: one server on SQLite keeps the limits too:
// its spending survives a restart (read from the reports), and the
// config's top-ups are added once per id.
func TestServeBalanceOnSQLite(t *testing.T) {
	t.Parallel()
	simnet := []backendConfig{{Type: "simnet"}}
	data := t.TempDir()
	const key, secret = "k", "s-0123456789"
	cfg := func() *serveConfig {
		return &serveConfig{
			Addr: "127.0.0.1:0", Data: data,
			Routes: []routeConfig{{Route: "DS7", Backends: simnet}, {Route: "GT1", Backends: simnet}, {Route: "GT2", Backends: simnet}, {Route: "MP1", Backends: simnet}},
			Accounts: []accountConfig{{Key: key, Secrets: []string{secret}, Balance: &balanceConfig{
				Prepaid: true, TopUps: []topUpConfig{{ID: "a", Amount: 20}},
			}}},
		}
	}
	r := startServer(t, cfg(), false)
	for i := range 2 {
		code, body := signedCall(t, r.base, key, secret, "POST", "/nt-lookup", fmt.Sprintf(`{"number": "+493012345%d"}`, i))
		require.Equal(t, 200, code, "%s", body)
	}
	code, body := signedCall(t, r.base, key, secret, "POST", "/nt-lookup", `{"number": "+4930123459"}`)
	require.Equal(t, http.StatusPaymentRequired, code, "%s", body)
	require.NoError(t, r.stop())

	r = startServer(t, cfg(), false)
	code, body = signedCall(t, r.base, key, secret, "POST", "/nt-lookup", `{"number": "+4930123458"}`)
	require.Equal(t, http.StatusPaymentRequired, code, "after a restart: %s", body)
	code, body = signedCall(t, r.base, key, secret, "GET", "/balance", "")
	require.Equal(t, 200, code, "%s", body)
	require.JSONEq(t, `{"balance": "0.0000", "monthly_cap": null, "spent_this_month": "0.0020", "reserved": "0.0000", "currency": "EUR"}`, string(body))
}

func TestBalanceConfigProblems(t *testing.T) {
	t.Parallel()
	bad := &balanceConfig{TopUps: []topUpConfig{{ID: "a", Amount: 1}, {ID: "a"}}}
	require.EqualError(t, bad.check(), "top_ups: the account is not prepaid (add \"prepaid\": true)\ntop_ups[1].id: \"a\" is given twice\ntop_ups[1].amount: must be more than 0")
}

// TestServeBalanceConcurrent: two servers on one database, eight clients
// each, spend one account's monthly cap at once until every client is
// refused: the results charge exactly the cap, never more.
func TestServeBalanceConcurrent(t *testing.T) {
	database := pgtest.Database(t)
	const key, secret = "capped", "capped-secret-0123456789"
	capped := engine.Money(1000) // 100 NT lookups
	cfg := func() *serveConfig {
		simnet := []backendConfig{{Type: "simnet"}}
		return &serveConfig{
			Database: database,
			Routes:   []routeConfig{{Route: "DS7", Backends: simnet}, {Route: "GT1", Backends: simnet}, {Route: "GT2", Backends: simnet}, {Route: "MP1", Backends: simnet}},
			Accounts: []accountConfig{{Key: key, Secrets: []string{secret}, Balance: &balanceConfig{MonthlyCap: &capped}}},
		}
	}
	nodes := []*running{startServer(t, cfg(), false), startServer(t, cfg(), false)}
	var (
		wg       sync.WaitGroup
		ok, next atomic.Int64
	)
	for c := range 16 {
		wg.Go(func() {
			refused := 0
			for range 200 { // bounded: far more than the cap allows
				n := next.Add(1)
				code, body := signedCall(t, nodes[c%2].base, key, secret, "POST", "/nt-lookup", fmt.Sprintf(`{"number": "+49301%07d"}`, n))
				switch code {
				case 200:
					ok.Add(1)
					refused = 0
				case http.StatusPaymentRequired:
					// Near the cap a node may refuse while another's
					// last use is not yet reported (counted twice, never
					// missed): try again a few times before giving up.
					if refused++; refused == 5 {
						return
					}
					time.Sleep(20 * time.Millisecond)
				default:
					t.Errorf("status %d: %s", code, body)
					return
				}
			}
			t.Error("never refused")
		})
	}
	wg.Wait()
	require.EqualValues(t, 100, ok.Load())
	code, body := signedCall(t, nodes[1].base, key, secret, "GET", "/balance", "")
	require.Equal(t, 200, code, "%s", body)
	var b apiv2.Balance
	require.NoError(t, json.Unmarshal(body, &b))
	require.Equal(t, "0.1000", b.SpentThisMonth)
}

// TestBalanceLeasesConfig: balance_leases within its bounds, its grace
// longer than any lookup takes.
func TestBalanceLeasesConfig(t *testing.T) {
	t.Parallel()
	check := func(cfg *serveConfig) []string {
		var got []string
		checkConfig(cfg, func(f string, args ...any) { got = append(got, fmt.Sprintf(f, args...)) })
		return got
	}
	lc := func(d, g time.Duration) *balanceLeasesConfig {
		return &balanceLeasesConfig{Duration: duration(d), Grace: duration(g)}
	}
	require.Empty(t, check(&serveConfig{BalanceLeases: lc(0, 0)}))
	require.Empty(t, check(&serveConfig{BalanceLeases: lc(time.Second, 31*time.Second)}))
	require.Empty(t, check(&serveConfig{RequestTimeout: duration(2 * time.Second), BalanceLeases: lc(time.Second, 3*time.Second)}))
	require.Equal(t, []string{
		"balance_leases.duration: 500ms: want 1s to 10m0s (default 30s)",
		"balance_leases.grace: 30s: want more than the longest a lookup takes (request_timeout and backend_timeout: 30s), so that a killed node's lookups are recorded within it",
	}, check(&serveConfig{BalanceLeases: lc(500*time.Millisecond, 30*time.Second)}))
	require.Equal(t, []string{
		"balance_leases.duration: 11m0s: want 1s to 10m0s (default 30s)",
		"balance_leases.grace: 2h0m0s: want at most 1h0m0s (default 2m0s)",
	}, check(&serveConfig{BalanceLeases: lc(11*time.Minute, 2*time.Hour)}))
	require.Equal(t, []string{
		"balance_leases.grace: 5s: want more than the longest a lookup takes (request_timeout and backend_timeout: 10s), so that a killed node's lookups are recorded within it",
	}, check(&serveConfig{RequestTimeout: duration(2 * time.Second), BackendTimeout: duration(10 * time.Second), BalanceLeases: lc(0, 5*time.Second)}))
}

// numen balance says what is wrong with an amount, and, given the config
// of a server on SQLite, where the balance is to be read instead of
// asking for a PostgreSQL URL it was never told about.
func TestBalanceCommandMessages(t *testing.T) {
	t.Parallel()
	for amount, want := range map[string]string{
		"0.00001":          `numen balance: top-up: amount "0.00001": 5 decimals: want at most 4, such as 0.0125 (EUR, such as 50 or 12.50)`,
		"1e3":              `numen balance: top-up: amount "1e3": want a decimal such as 0.0125, with at most 4 decimals`,
		"0":                `numen balance: top-up: AMOUNT "0": want more than 0 EUR`,
		"1000000000000000": `too large: at most 12 digits before the point`,
	} {
		code, _, stderr := runCLI(t, nil, "balance", "top-up", "--database", "postgres://127.0.0.1:1/none", "--id", "x", "team-a", amount)
		require.Equal(t, exitUsage, code, amount)
		require.Contains(t, stderr, want, amount)
	}
	// A negative amount, after "--" and without it (when it reads as a flag).
	code, _, stderr := runCLI(t, nil, "balance", "top-up", "--database", "postgres://127.0.0.1:1/none", "--id", "x", "--", "team-a", "-5")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, `numen balance: top-up: AMOUNT "-5": want more than 0 EUR`)
	code, _, stderr = runCLI(t, nil, "balance", "top-up", "--database", "postgres://127.0.0.1:1/none", "--id", "x", "team-a", "-5")
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "numen balance: -5 reads as a flag; put -- before arguments that start with -")
	cfg := filepath.Join(t.TempDir(), "numen.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"data": "results", "accounts": [{"key": "team-a", "secrets": ["s3cret-0123456789"], "balance": {"monthly_cap": "10"}}]}`), 0o600))
	code, _, stderr = runCLI(t, nil, "balance", "show", "--config", cfg, "team-a")
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, "numen.json keeps its results in SQLite ("+filepath.Join(filepath.Dir(cfg), "results")+"), which its running server holds: ask the server (numen call GET /balance")
	require.NotContains(t, stderr, "must be a postgres:// URL")
}
