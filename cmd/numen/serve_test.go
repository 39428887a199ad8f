package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/engine/store/sqlitestore"
	"github.com/numenhq/numen/mnp/remote"
	"github.com/numenhq/numen/numbering/compile"
	"github.com/nyaruka/phonenumbers/v2"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test,
// which can wait for what the server writes (waitFor).
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed and replaced at each write; nil until waitFor
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written != nil {
		close(s.written)
		s.written = make(chan struct{})
	}
	return s.b.Write(p)
}

// waitFor waits until the buffer holds want, looking again at each write.
// When it does not after within (a hung server, not a slow one: within is
// generous), it fails the test.
func (s *syncBuffer) waitFor(t *testing.T, want string, within time.Duration) {
	t.Helper()
	timeout := time.NewTimer(within)
	defer timeout.Stop()
	for {
		s.mu.Lock()
		if s.written == nil {
			s.written = make(chan struct{})
		}
		found, written := strings.Contains(s.b.String(), want), s.written
		s.mu.Unlock()
		if found {
			return
		}
		select {
		case <-written:
		case <-timeout.C:
			t.Fatalf("not written within %v: %q; written:\n%s", within, want, s.String())
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// running is a numen serve started in the test's process on a loopback
// port.
type running struct {
	base   string
	stdout *syncBuffer
	stop   func() error
}

func startServer(t *testing.T, cfg *serveConfig, demo bool) *running {
	t.Helper()
	return startServerLogging(t, cfg, demo, io.Discard)
}

// startServerLogging is startServer with the server's log lines (text)
// written to logs.
func startServerLogging(t *testing.T, cfg *serveConfig, demo bool, logs io.Writer) *running {
	t.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Data == "" {
		cfg.Data = t.TempDir()
	}
	out := &syncBuffer{}
	c := &cli{stdin: strings.NewReader(""), stdout: out, stderr: io.Discard, loadPlan: sharedPlan}
	ctx, cancel := context.WithCancel(t.Context())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- c.runServer(ctx, cfg, demo, slog.New(slog.NewTextHandler(logs, nil)), ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("server did not start: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("server did not start within 30 s")
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() { _ = stop() })
	return &running{base: "http://" + addr + "/api/v2", stdout: out, stop: stop}
}

var demoPrinted = regexp.MustCompile(`(?m)^key:\s+(\S+)\nsecret:\s+(\S+)`)

func demoClient(t *testing.T, r *running) (*remote.Client, string, string) {
	t.Helper()
	m := demoPrinted.FindStringSubmatch(r.stdout.String())
	require.NotNil(t, m, "the demo prints its key and secret:\n%s", r.stdout.String())
	c, err := remote.New(r.base, m[1], m[2])
	require.NoError(t, err)
	return c, m[1], m[2]
}

func TestServeDemo(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	r := startServer(t, &serveConfig{Data: data}, true)
	require.Contains(t, r.stdout.String(), "DEMO MODE")
	require.Contains(t, r.stdout.String(), "SIMULATOR")
	c, key, _ := demoClient(t, r)
	ctx := t.Context()

	require.NoError(t, c.AuthTest(ctx))
	routes, err := c.Routes(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"SIM"}, routes.Routes.HLR)
	require.Equal(t, []string{"SMP"}, routes.Routes.MNP)
	cov, err := c.HLRCoverage(ctx)
	require.NoError(t, err)
	require.Contains(t, string(cov), "SIMULATOR (mnp/simnet)")

	hlr, err := c.HLRLookup(ctx, "+4915123456789", nil)
	require.NoError(t, err)
	require.Equal(t, "AUTO:SIM:SCORE", hlr.RoutingInstruction)
	require.Equal(t, "COMPLETED", hlr.ProcessingStatus)
	require.Regexp(t, `^SIMULATOR\d{3}$`, *hlr.MSC, "the simulator says what it is")
	nt, err := c.NTLookup(ctx, "+44 20 7946 0000", nil)
	require.NoError(t, err)
	require.Equal(t, "LANDLINE", nt.NumberType)
	mnpRes, err := c.MNPLookup(ctx, "+31612345678", nil)
	require.NoError(t, err)
	require.Equal(t, "SMP", *mnpRes.Route)
	d, err := c.Route(ctx, "+8816 12345678")
	require.NoError(t, err)
	require.Equal(t, "GLOBAL_REJECT", d.Origin, "the embedded map's rejections stay")

	// Graceful stop, then every answered lookup is in the database.
	require.NoError(t, r.stop())
	db, err := sqlitestore.Open(t.Context(), data)
	require.NoError(t, err)
	defer db.Close()
	reports, err := db.Reports(ctx, key)
	require.NoError(t, err)
	total := int64(0)
	for _, rep := range reports {
		total += rep.Count
	}
	require.Equal(t, int64(3), total, "%+v", reports)
}

// TestServeRoundTrip runs one Numen as the provider of another: the second
// sidecar's HLR and MNP routes are remote backends pointing at the first,
// and the first route's primary provider is down, so lookups fail over.
func TestServeRoundTrip(t *testing.T) {
	t.Parallel()
	provider := startServer(t, &serveConfig{}, true)
	_, pkey, psecret := demoClient(t, provider)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	down := "http://" + ln.Addr().String() + "/api/v2"
	require.NoError(t, ln.Close()) // nothing listens there any more

	remoteOf := func(url string) backendConfig {
		return backendConfig{Type: "remote", URL: url, Key: pkey, Secret: psecret}
	}
	const secret = "consumer-secret-0123456789"
	cfg := &serveConfig{
		Routes: []routeConfig{
			{Route: "DS7", Backends: []backendConfig{remoteOf(down), remoteOf(provider.base)}},
			{Route: "GT1", Backends: []backendConfig{remoteOf(provider.base)}},
			{Route: "GT2", Backends: []backendConfig{remoteOf(provider.base)}},
			{Route: "MP1", Backends: []backendConfig{remoteOf(provider.base)}},
		},
		Accounts: []accountConfig{{Key: "consumer", Secrets: []string{secret}}},
	}
	consumer := startServer(t, cfg, false)
	c, err := remote.New(consumer.base, "consumer", secret)
	require.NoError(t, err)
	ctx := t.Context()

	res, err := c.HLRLookup(ctx, "+4915123456789", nil)
	require.NoError(t, err)
	require.Equal(t, "AUTO:DS7:SCORE:FAILOVER-2", res.RoutingInstruction)
	require.Equal(t, "COMPLETED", res.ProcessingStatus)
	require.Regexp(t, `^SIMULATOR\d{3}$`, *res.MSC, "answered by the provider's simulator")
	require.Equal(t, "0.0100", *res.Cost)

	res, err = c.HLRLookup(ctx, "+16502530000", &remote.LookupOptions{Route: "GT2"})
	require.NoError(t, err)
	require.Equal(t, "STATIC:GT2", res.RoutingInstruction)

	mnpRes, err := c.MNPLookup(ctx, "+31612345678", nil)
	require.NoError(t, err)
	require.Equal(t, "COMPLETED", mnpRes.ProcessingStatus)
	require.NotNil(t, mnpRes.IsPorted)
}

func TestServeRefusesBadSetups(t *testing.T) {
	t.Parallel()
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, loadPlan: sharedPlan}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	// A portability database whose body is damaged: Open alone accepts it,
	// the server verifies it and refuses to start, naming the file.
	damaged := buildPortDB(t, portedCSV, "-regions", "DE,AT")
	db, err := os.ReadFile(damaged)
	require.NoError(t, err)
	db[len(db)-2] ^= 0x04
	require.NoError(t, os.WriteFile(damaged, db, 0o644))
	for _, tc := range []struct {
		cfg *serveConfig
		msg string
	}{
		{&serveConfig{Routes: []routeConfig{{Route: "GT1", Backends: []backendConfig{{Type: "simnet"}}}}, Accounts: []accountConfig{{Key: "a", Secrets: []string{"0123456789abcdef"}, RoutingMap: []byte(`{"defaultRoute": "DS7"}`)}}},
			`accounts[0].routing_map.defaultRoute: "DS7": the HLR route has no backend (give it one, or route elsewhere)`},
		{&serveConfig{Routes: []routeConfig{{Route: "NT1", Backends: []backendConfig{{Type: "simnet"}}}}}, "routes[0].route: NT1 is an NT route, which the numbering plan answers; it takes no backends"},
		{&serveConfig{Routes: []routeConfig{{Route: "GT1", Backends: []backendConfig{{Type: "portdb", File: "x.db"}}}}}, "routes[0].backends[0]: a portdb backend answers MNP routes; GT1 is an HLR route"},
		{&serveConfig{Routes: []routeConfig{{Route: "MP1", Backends: []backendConfig{{Type: "portdb", File: "/nonexistent/ported.db"}}}}}, "routes[0].backends[0]: "},
		{&serveConfig{Routes: []routeConfig{{Route: "MP1", Backends: []backendConfig{{Type: "portdb", File: damaged}}}}}, "routes[0].backends[0]: " + damaged + ": portdb: corrupt database at offset "},
		{&serveConfig{Routes: []routeConfig{{Route: "MP1", Backends: []backendConfig{{Type: "portdb", File: damaged}}}}}, ": body checksum "},
	} {
		tc.cfg.Addr, tc.cfg.Data = "127.0.0.1:0", t.TempDir()
		err := c.runServer(t.Context(), tc.cfg, false, logger, nil)
		require.Error(t, err)
		require.Contains(t, err.Error(), tc.msg)
	}
}

// TestServeOverlay: the config's overlays answer, and every answer's
// Numen-Data-Version header names them.
func TestServeOverlay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	overlay := filepath.Join(dir, "corrections.tsv")
	require.NoError(t, os.WriteFile(overlay, []byte("+49 1540\tMOBILE\tExample Mobil\t26299\n"), 0o644))
	r := startServer(t, &serveConfig{Overlays: []string{overlay}}, true)
	c, _, _ := demoClient(t, r)
	nt, err := c.NTLookup(t.Context(), "+49 1540 1234567", nil)
	require.NoError(t, err)
	require.True(t, *nt.IsValid)
	require.Equal(t, "Example Mobil", *nt.OriginalNetworkName)
	require.Equal(t, "26299", *nt.MCCMNC)

	resp, err := http.Get(r.base + "/time")
	require.NoError(t, err)
	resp.Body.Close()
	require.Contains(t, resp.Header.Get("Numen-Data-Version"), " + overlay "+overlay+" (1 lines, ")

	// A config whose overlay does not compile does not serve.
	require.NoError(t, os.WriteFile(overlay, []byte("+999 1\tMOBILE\tX\t-\n"), 0o644))
	c2 := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, loadPlan: sharedPlan}
	err = c2.runServer(t.Context(), &serveConfig{Addr: "127.0.0.1:0", Data: t.TempDir(), Overlays: []string{overlay}}, true, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	require.ErrorContains(t, err, overlay+" line 1: prefix +999 1: no country uses")
}

// browserPackage writes the files numen serve --wasm needs: the core plan
// cut from the embedded one, and stand-ins for the module and scripts
// (wasm/build's tests serve a built package).
func browserPackage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	core, err := compile.Strip(data.Plan(), compile.Ranges, compile.Networks, compile.Geocoding, compile.Timezones, compile.ShortNumbers)
	require.NoError(t, err)
	for name, b := range map[string][]byte{
		"numen.wasm":     []byte("\x00asm\x01\x00\x00\x00"),
		"numen.mjs":      []byte("export class Numen {}\n"),
		"wasm_exec.js":   []byte("globalThis.Go = class {};\n"),
		"index.html":     []byte("<!doctype html><title>Numen in the browser</title>\n"),
		"numen-core.bin": core,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	return dir
}

// TestServeWasm: --wasm serves the browser package at /wasm/ beside the
// API, and refuses one of other numbering data.
func TestServeWasm(t *testing.T) {
	t.Parallel()
	dir := browserPackage(t)
	r := startServer(t, &serveConfig{Wasm: dir}, true)
	root := strings.TrimSuffix(r.base, "/api/v2")
	require.Contains(t, r.stdout.String(), root+"/wasm/ (demo page)")
	resp, err := http.Get(root + "/wasm/numen-core.bin")
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	core, err := os.ReadFile(filepath.Join(dir, "numen-core.bin"))
	require.NoError(t, err)
	require.Equal(t, core, got)
	resp, err = http.Get(root + "/wasm/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	resp, err = http.Get(root + "/wasm/numen.wasm")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, "application/wasm", resp.Header.Get("Content-Type"))
	resp, err = http.Get(r.base + "/time")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode, "the API is still served")

	// A server on another plan refuses the package.
	other := filepath.Join(t.TempDir(), "other.bin")
	coll, err := phonenumbers.MetadataCollection()
	require.NoError(t, err)
	plan, err := compile.Plan(compile.Input{Metadata: coll, Libphonenumber: "v0.0.0-test", Countries: []byte("49\tDE\tGermany\n")})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(other, plan, 0o644))
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, loadPlan: sharedPlan}
	err = c.runServer(t.Context(), &serveConfig{Addr: "127.0.0.1:0", Data: t.TempDir(), Plan: other, Wasm: dir}, true, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	require.ErrorContains(t, err, "--wasm "+dir+": its numbering data is libphonenumber "+data.LibphonenumberVersion)
	require.ErrorContains(t, err, "the server's libphonenumber v0.0.0-test")
	require.ErrorContains(t, err, "rebuild it with go run ./wasm/build -o "+dir)

	// A folder that is not a package.
	err = c.runServer(t.Context(), &serveConfig{Addr: "127.0.0.1:0", Data: t.TempDir(), Wasm: t.TempDir()}, true, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	require.ErrorContains(t, err, "--wasm: browser package ")
	require.ErrorContains(t, err, "has no numen.wasm")
}

// The demo keeps its account in the data directory: a restart answers with
// the same key and secret, so earlier reports stay visible, and demo.env
// tells a shell where and how to call it.
func TestDemoKeepsItsCredentials(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	first := startServer(t, &serveConfig{Data: data}, true)
	_, key, secret := demoClient(t, first)
	require.Contains(t, first.stdout.String(), "/reports")
	require.NoError(t, first.stop())

	info, err := os.Stat(filepath.Join(data, demoCredentials))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	second := startServer(t, &serveConfig{Data: data}, true)
	c, key2, secret2 := demoClient(t, second)
	require.Equal(t, key, key2)
	require.Equal(t, secret, secret2)
	require.NoError(t, c.AuthTest(t.Context()))
	env, err := os.ReadFile(filepath.Join(data, demoEnv))
	require.NoError(t, err)
	require.Equal(t, "NUMEN_URL="+second.base+"\nNUMEN_KEY="+key+"\nNUMEN_SECRET="+secret+"\n", string(env))
	require.NoError(t, second.stop())

	require.NoError(t, os.WriteFile(filepath.Join(data, demoCredentials), []byte(`{"key": "x"}`), 0o600))
	cfg := &serveConfig{Data: data, Addr: "127.0.0.1:0"}
	c3 := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, loadPlan: sharedPlan}
	err = c3.runServer(t.Context(), cfg, true, slog.New(slog.DiscardHandler), nil)
	require.ErrorContains(t, err, "demo-account.json: not the demo's credentials")
}
