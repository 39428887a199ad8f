package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
