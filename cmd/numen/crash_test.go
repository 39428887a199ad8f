package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/webhook"
	"github.com/numenhq/numen/mnp/remote"
)

// TestMain lets the test binary run as numen itself: the crash test starts
// it as a separate process, which it can kill -9.
func TestMain(m *testing.M) {
	if os.Getenv("NUMEN_TEST_AS_NUMEN") == "1" {
		profileChild()
		os.Exit(main2(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// main2 runs numen with args (after the test binary's own flags, which the
// parent does not pass).
func main2(args []string) int { return run(args, os.Stdin, os.Stdout, os.Stderr) }

// child is a numen serve process.
type child struct {
	cmd  *exec.Cmd
	base string
}

var servingLine = regexp.MustCompile(`serving (http://\S+/api/v2)`)

func startChild(t testing.TB, config string) *child {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.CommandContext(t.Context(), exe, "serve", "--config", config) // killed when the test ends
	cmd.Env = append(os.Environ(), "NUMEN_TEST_AS_NUMEN=1")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	logs, err := os.Create(filepath.Join(filepath.Dir(config), fmt.Sprintf("stderr-%d.log", time.Now().UnixNano())))
	require.NoError(t, err)
	t.Cleanup(func() { logs.Close() })
	cmd.Stderr = logs
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case base := <-found:
		return &child{cmd: cmd, base: base}
	case <-time.After(60 * time.Second):
		t.Fatalf("numen serve did not start; see %s", logs.Name())
		return nil
	}
}

func (c *child) kill9(t testing.TB) {
	require.NoError(t, c.cmd.Process.Signal(syscall.SIGKILL))
	_ = c.cmd.Wait()
}

// TestBulkSurvivesKill9 submits 20,000 numbers in 20 requests to a numen
// serve process, kills it with SIGKILL while a callback is being delivered
// (the receiver answers two and holds the third), starts it again on the
// same data, and requires every accepted id to reach the receiver
// (duplicates allowed, none missing).
func TestBulkSurvivesKill9(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts numen serve twice")
	}
	const key, secret = "crash-test", "crash-test-secret-0123456789"
	hook := newHoldingReceiver(t, key, secret, 2)
	receiver := hook.server
	dir := t.TempDir()
	config := filepath.Join(dir, "numen.json")
	simnet := func() []backendConfig { return []backendConfig{{Type: "simnet"}} }
	cfg := serveConfig{
		Addr: "127.0.0.1:0", Data: filepath.Join(dir, "data"),
		Routes:   []routeConfig{{Route: "DS7", Backends: simnet()}, {Route: "GT1", Backends: simnet()}, {Route: "GT2", Backends: simnet()}, {Route: "MP1", Backends: simnet()}},
		Bulk:     &bulkConfig{RescueAfter: duration(3 * time.Second), PollInterval: duration(50 * time.Millisecond), DeliveryWorkers: 2, RetryMinute: duration(10 * time.Millisecond)},
		Accounts: []accountConfig{{Key: key, Secrets: []string{secret}, WebhookURLs: []string{receiver.URL + "/hook"}}},
	}
	raw, err := json.Marshal(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(config, raw, 0o600))

	first := startChild(t, config)
	client, err := remote.New(first.base, key, secret)
	require.NoError(t, err)
	var accepted []string
	for i := range 20 {
		numbers := make([]string, 1000)
		for j := range numbers {
			numbers[j] = fmt.Sprintf("+4915%d%07d", 1+i%9, i*1000+j)
		}
		receipt, err := client.NTLookups(t.Context(), numbers, nil)
		require.NoError(t, err)
		require.Equal(t, 1000, receipt.AcceptedCount)
		for _, a := range receipt.Accepted {
			accepted = append(accepted, *a.ID)
		}
	}
	hook.waitDeliveries(t, 2, 60*time.Second)
	hook.waitArrived(t, 3, 60*time.Second)
	first.kill9(t)
	before := hook.deliveryCount()
	require.Equal(t, 2, before, "killed with the third callback unanswered")
	hook.release()

	startChild(t, config)
	hook.waitAll(t, accepted, 120*time.Second)
	hook.mu.Lock()
	defer hook.mu.Unlock()
	dups := 0
	for _, n := range hook.received {
		if n > 1 {
			dups++
		}
	}
	t.Logf("%d ids delivered, %d deliveries before the kill, %d ids delivered more than once", len(hook.received), before, dups)
	require.Len(t, accepted, 20000)
}

// receiver is a webhook receiver on loopback: it checks each callback's
// signatures and counts the ids of its results, the callbacks and their
// webhook-id headers. A holding receiver answers its first callbacks and
// holds the later ones, unanswered, until release: a kill then lands while
// callbacks are being delivered, however fast the machine.
type receiver struct {
	server *httptest.Server

	mu         sync.Mutex
	received   map[string]int // result id -> deliveries
	webhookIDs map[string]int // webhook-id -> deliveries
	deliveries int            // callbacks counted (answered, or released to be)
	arrived    int            // callbacks verified, held or not
	changed    chan struct{}  // closed and replaced when arrived or deliveries grows

	holdAfter int           // callbacks after this many wait for release; -1: none
	released  chan struct{} // closed by release
	release   func()
}

// newReceiver starts a receiver for key's callbacks that answers each at
// once.
func newReceiver(t *testing.T, key, secret string) *receiver {
	return startReceiver(t, key, secret, -1)
}

// newHoldingReceiver starts a receiver for key's callbacks that answers
// the first n and holds the later ones until its release is called (at the
// latest when the test ends).
func newHoldingReceiver(t *testing.T, key, secret string, n int) *receiver {
	return startReceiver(t, key, secret, n)
}

func startReceiver(t *testing.T, key, secret string, holdAfter int) *receiver {
	r := &receiver{
		received: map[string]int{}, webhookIDs: map[string]int{}, changed: make(chan struct{}),
		holdAfter: holdAfter, released: make(chan struct{}),
	}
	r.release = sync.OnceFunc(func() { close(r.released) })
	r.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := webhook.Verify(req, key, []string{secret}, 0)
		if err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		r.mu.Lock()
		r.arrived++
		held := r.holdAfter >= 0 && r.arrived > r.holdAfter
		r.signal()
		r.mu.Unlock()
		if held {
			<-r.released
		}
		var batch struct {
			Results []struct {
				ID string `json:"id"`
			} `json:"results"`
		}
		if json.Unmarshal(body, &batch) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, res := range batch.Results {
			r.received[res.ID]++
		}
		r.webhookIDs[req.Header.Get("webhook-id")]++
		r.deliveries++
		r.signal()
		r.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	// Cleanups run last first: the held callbacks are released before
	// Close waits for them.
	t.Cleanup(r.server.Close)
	t.Cleanup(r.release)
	return r
}

// signal wakes the waiters; r.mu is held.
func (r *receiver) signal() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// waitFor waits until done, called with r.mu held, reports true: it is
// checked again at each callback that arrives or is counted. When done is
// still false after within (a hung server, not a slow one: within is
// generous), it fails the test with what why says.
func (r *receiver) waitFor(t *testing.T, within time.Duration, done func() bool, why func() string) {
	t.Helper()
	timeout := time.NewTimer(within)
	defer timeout.Stop()
	for {
		r.mu.Lock()
		ok, changed := done(), r.changed
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-timeout.C:
			r.mu.Lock()
			msg := why()
			r.mu.Unlock()
			t.Fatalf("after %v: %s", within, msg)
		}
	}
}

func (r *receiver) deliveryCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.deliveries
}

// waitDeliveries waits until n callbacks have been counted, failing after
// within.
func (r *receiver) waitDeliveries(t *testing.T, n int, within time.Duration) {
	t.Helper()
	r.waitFor(t, within, func() bool { return r.deliveries >= n },
		func() string { return fmt.Sprintf("%d deliveries, fewer than %d", r.deliveries, n) })
}

// waitArrived waits until n callbacks have arrived, held or not, failing
// after within.
func (r *receiver) waitArrived(t *testing.T, n int, within time.Duration) {
	t.Helper()
	r.waitFor(t, within, func() bool { return r.arrived >= n },
		func() string { return fmt.Sprintf("%d callbacks arrived, fewer than %d", r.arrived, n) })
}

// waitAll waits until every id has been delivered, failing after within.
func (r *receiver) waitAll(t *testing.T, ids []string, within time.Duration) {
	t.Helper()
	missing := func() int {
		n := 0
		for _, id := range ids {
			if r.received[id] == 0 {
				n++
			}
		}
		return n
	}
	r.waitFor(t, within, func() bool { return missing() == 0 },
		func() string { return fmt.Sprintf("%d of %d accepted ids never delivered", missing(), len(ids)) })
}
