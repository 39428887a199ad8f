package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/mnp/remote"
)

// TestThreeNodesOnPostgreSQL runs three numen serve processes on one
// PostgreSQL database: sync lookups spread over all three, 20 bulk jobs of
// 1,000 numbers submitted across them (one of them 15 times at once, to
// every node, with one Idempotency-Key), and one node killed with SIGKILL
// while callbacks are delivered, then started again. Every accepted id
// reaches the webhook receiver (at least once; webhook-id tells repeats),
// every sync answer is stored exactly once, no number is charged twice,
// and every node exports the same reports.
func TestThreeNodesOnPostgreSQL(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts numen serve four times")
	}
	database := pgtest.Database(t)
	const key, secret = "cluster-test", "cluster-test-secret-0123456789"
	// Two callbacks answered, the later ones held until the kill below:
	// it lands mid-delivery however fast the nodes deliver (with a
	// receiver that only answered slowly, all 20 had been delivered by
	// then under the race detector).
	hook := newHoldingReceiver(t, key, secret, 2)
	receiver := hook.server

	dir := t.TempDir()
	config := filepath.Join(dir, "numen.json")
	simnet := func() []backendConfig { return []backendConfig{{Type: "simnet"}} }
	cfg := serveConfig{
		Addr: "127.0.0.1:0", Data: filepath.Join(dir, "data"), Database: database,
		Routes:   []routeConfig{{Route: "DS7", Backends: simnet()}, {Route: "GT1", Backends: simnet()}, {Route: "GT2", Backends: simnet()}, {Route: "MP1", Backends: simnet()}},
		Bulk:     &bulkConfig{RescueAfter: duration(3 * time.Second), PollInterval: duration(time.Second), DeliveryWorkers: 2, RetryMinute: duration(10 * time.Millisecond)},
		Accounts: []accountConfig{{Key: key, Secrets: []string{secret}, WebhookURLs: []string{receiver.URL + "/hook"}}},
	}
	raw, err := json.Marshal(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(config, raw, 0o600))

	nodes := make([]*child, 3)
	clients := make([]*remote.Client, 3)
	connect := func(i int) {
		nodes[i] = startChild(t, config)
		c, err := remote.New(nodes[i].base, key, secret)
		require.NoError(t, err)
		clients[i] = c
	}
	for i := range nodes {
		connect(i)
	}
	ctx := t.Context()

	// Sync lookups on every node, at once.
	var (
		syncMu   sync.Mutex
		syncIDs  []string
		syncCost engine.Money
		wg       sync.WaitGroup
	)
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clients[i%3]
			for j := range 40 {
				res, err := c.NTLookup(ctx, fmt.Sprintf("+4917%d%07d", i%9+1, i*100+j), nil)
				if !assertNoError(t, err) {
					return
				}
				cost, err := engine.ParseMoney(*res.Cost)
				if !assertNoError(t, err) {
					return
				}
				syncMu.Lock()
				syncIDs = append(syncIDs, string(res.ID))
				syncCost += cost
				syncMu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Len(t, syncIDs, 480)

	// 20 bulk jobs across the nodes; the last submitted 15 times at once,
	// 5 to each node, with one key.
	var accepted []string
	var bulkCost engine.Money
	submit := func(i int) []string {
		numbers := make([]string, 1000)
		for j := range numbers {
			numbers[j] = fmt.Sprintf("+4915%d%07d", 1+i%9, i*1000+j)
		}
		return numbers
	}
	addReceipt := func(r *apiv2.Receipt) {
		require.Equal(t, 1000, r.AcceptedCount)
		for _, a := range r.Accepted {
			accepted = append(accepted, *a.ID)
		}
		cost, err := engine.ParseMoney(string(r.Cost))
		require.NoError(t, err)
		bulkCost += cost
	}
	for i := range 19 {
		r, err := clients[i%3].NTLookups(ctx, submit(i), &remote.BulkOptions{IdempotencyKey: fmt.Sprintf("bulk-%d", i)})
		require.NoError(t, err)
		addReceipt(r)
	}
	// A replay to another node answers the same receipt and queues nothing.
	first, err := clients[0].NTLookups(ctx, submit(0), &remote.BulkOptions{IdempotencyKey: "bulk-0"})
	require.NoError(t, err)
	again, err := clients[1].NTLookups(ctx, submit(0), &remote.BulkOptions{IdempotencyKey: "bulk-0"})
	require.NoError(t, err)
	require.Equal(t, first, again)
	receipts := make([]*apiv2.Receipt, 15)
	for i := range receipts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := clients[i%3].NTLookups(ctx, submit(19), &remote.BulkOptions{IdempotencyKey: "bulk-19"})
			if assertNoError(t, err) {
				receipts[i] = r
			}
		}()
	}
	wg.Wait()
	for _, r := range receipts[1:] {
		require.Equal(t, receipts[0], r, "concurrent replays answer one receipt")
	}
	addReceipt(receipts[0])
	require.Len(t, accepted, 20000)

	// Kill one node mid-delivery, and start it again.
	hook.waitDeliveries(t, 2, 120*time.Second)
	hook.waitArrived(t, 3, 120*time.Second)
	nodes[1].kill9(t)
	before := hook.deliveryCount()
	require.Equal(t, 2, before, "killed with the third callback unanswered")
	hook.release()
	connect(1)

	hook.waitAll(t, accepted, 180*time.Second)
	hook.mu.Lock()
	dupIDs := 0
	for _, n := range hook.received {
		if n > 1 {
			dupIDs++
		}
	}
	repeated := 0
	for _, n := range hook.webhookIDs {
		if n > 1 {
			repeated++
		}
	}
	t.Logf("%d ids delivered in %d callbacks (%d before the kill); %d ids delivered more than once, all in %d callbacks repeated under their webhook-id",
		len(hook.received), hook.deliveries, before, dupIDs, repeated)
	require.Len(t, hook.webhookIDs, 20, "one callback per job, whatever the repeats")
	hook.mu.Unlock()

	// Every sync answer and every accepted number stored exactly once,
	// charged once.
	db, err := pgstore.Open(ctx, database, pgstore.WithWriters(1))
	require.NoError(t, err)
	defer db.Close()
	bodies, err := db.Bodies(ctx, append(append([]string{}, syncIDs...), accepted...))
	require.NoError(t, err)
	require.Len(t, bodies, len(syncIDs)+len(accepted))
	reports, err := db.Reports(ctx, key)
	require.NoError(t, err)
	var count int64
	var cost engine.Money
	for _, r := range reports {
		count += r.Count
		cost += r.Cost
	}
	require.Equal(t, int64(len(syncIDs)+len(accepted)), count, "results stored")
	require.Equal(t, syncCost+bulkCost, cost, "charged: the sync answers and the accepted numbers, once each")

	// Every node exports the same reports.
	for _, r := range reports {
		var want []byte
		for i, n := range nodes {
			got := download(t, n.base, key, secret, r.Name)
			if i == 0 {
				want = got
				continue
			}
			require.True(t, bytes.Equal(want, got), "report %s differs between nodes 1 and %d", r.Name, i+1)
		}
	}
}

// assertNoError reports an error from a goroutine other than the test's.
func assertNoError(t *testing.T, err error) bool {
	t.Helper()
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}

// download fetches a report as JSON from a node's report pages.
func download(t *testing.T, apiBase, key, secret, name string) []byte {
	t.Helper()
	base := apiBase[:len(apiBase)-len("/api/v2")]
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/reports/"+name+"?format=json", nil)
	require.NoError(t, err)
	req.SetBasicAuth(key, secret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	return body
}
