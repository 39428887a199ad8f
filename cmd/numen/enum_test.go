package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/mnp/portdb"
)

var enumLine = regexp.MustCompile(`(?m)^ENUM:\s+(\S+) `)

// writePortDB builds a portability database file of Germany from CSV
// rows.
func writePortDB(t *testing.T, rows string) string {
	t.Helper()
	plan, err := sharedPlan()
	require.NoError(t, err)
	var buf bytes.Buffer
	_, err = portdb.Build(&buf, strings.NewReader("number_or_range,mccmnc,network name\n"+rows), portdb.BuildOptions{
		Plan: plan, Regions: []string{"DE"}, Created: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC), Name: "ported.csv"})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "ported.db")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path
}

func naptr(t *testing.T, addr, proto, name string) *dns.Msg {
	t.Helper()
	c := &dns.Client{Net: proto, Timeout: 5 * time.Second}
	m := new(dns.Msg)
	m.SetQuestion(name, dns.TypeNAPTR)
	r, _, err := c.Exchange(m, addr)
	require.NoError(t, err)
	return r
}

// TestServeEnum starts numen serve with an "enum" config on a loopback
// port: its answers come from the config's portability database and rn
// table, over UDP and TCP, and /metrics counts them.
func TestServeEnum(t *testing.T) {
	t.Parallel()
	db := writePortDB(t, "+4915123456789,26203,O2\n")
	logs := &syncBuffer{}
	r := startServerLogging(t, &serveConfig{Enum: &enumConfig{
		Listen: "127.0.0.1:0", Suffix: "e164.example.net", TTL: duration(time.Minute),
		RN: map[string]string{"26203": "D262"}, RNContext: "+49", Portdb: db,
		RateLimit: &enumRateConfig{PerSecond: 1000, Burst: 1000},
	}}, true, logs)
	m := enumLine.FindStringSubmatch(r.stdout.String())
	require.NotNil(t, m, r.stdout.String())
	addr := m[1]
	require.Contains(t, logs.String(), `msg="ENUM server listening" addr=`+addr)
	for _, proto := range []string{"udp", "tcp"} {
		a := naptr(t, addr, proto, "9.8.7.6.5.4.3.2.1.5.1.9.4.e164.example.net.")
		require.Len(t, a.Answer, 1)
		require.Equal(t, "!^.*$!tel:+4915123456789;npdi;rn=D262;rn-context=+49;mcc=262;mnc=03!", a.Answer[0].(*dns.NAPTR).Regexp)
		require.EqualValues(t, 60, a.Answer[0].Header().Ttl)
		a = naptr(t, addr, proto, "0.8.7.6.5.4.3.2.1.5.1.9.4.e164.example.net.")
		require.Equal(t, "!^.*$!tel:+4915123456780;npdi;mcc=262;mnc=01!", a.Answer[0].(*dns.NAPTR).Regexp)
		a = naptr(t, addr, proto, "5.4.3.2.1.9.4.e164.example.net.")
		require.Equal(t, dns.RcodeNameError, a.Rcode)
		a = naptr(t, addr, proto, "9.8.7.6.5.4.3.2.1.5.1.9.4.e164.arpa.")
		require.Equal(t, dns.RcodeRefused, a.Rcode)
	}
	resp, err := http.Get(strings.TrimSuffix(r.base, "/api/v2") + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`numen_enum_queries_total{rcode="NOERROR",type="NAPTR"} 4`,
		`numen_enum_queries_total{rcode="NXDOMAIN",type="NAPTR"} 2`,
		`numen_enum_queries_total{rcode="REFUSED",type="NAPTR"} 2`,
		`numen_enum_rate_limited_total{action="dropped"} 0`,
		`numen_enum_errors_total{kind="malformed"} 0`,
	} {
		require.Contains(t, string(body), want+"\n")
	}
	require.NoError(t, r.stop())
	// The sockets are closed: the port is free again.
	pc, err := net.ListenPacket("udp", addr)
	require.NoError(t, err)
	pc.Close()
}

// TestServeEnumRoutesPortDB: without a portdb of its own the ENUM server
// answers from the routes' portdb backend.
func TestServeEnumRoutesPortDB(t *testing.T) {
	t.Parallel()
	db := writePortDB(t, "+4915123456789,26203,O2\n")
	simnet := []backendConfig{{Type: "simnet"}}
	r := startServer(t, &serveConfig{
		Routes: []routeConfig{{Route: "DS7", Backends: simnet}, {Route: "GT1", Backends: simnet}, {Route: "GT2", Backends: simnet},
			{Route: "MP1", Backends: []backendConfig{{Type: "portdb", File: db}}}},
		Enum: &enumConfig{Listen: "127.0.0.1:0"},
	}, false)
	addr := enumLine.FindStringSubmatch(r.stdout.String())[1]
	a := naptr(t, addr, "udp", "9.8.7.6.5.4.3.2.1.5.1.9.4.e164.arpa.")
	require.Equal(t, "!^.*$!tel:+4915123456789;npdi;rn=26203;rn-context=+49;mcc=262;mnc=03!", a.Answer[0].(*dns.NAPTR).Regexp)
}

func TestEnumConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ config, want string }{
		{`{"enum": {"listen": "5353"}}`, `enum.listen: "5353" is not an address`},
		{`{"enum": {"listen": "127.0.0.1:5353", "rate_limit": {"per_second": 0}}}`, `enum.rate_limit.per_second: must be positive`},
		{`{"enum": {"listen": "127.0.0.1:5353", "ttl": "10ms"}}`, `enum.ttl: 10ms is less than a second`},
		{`{"enum": {"listen": "127.0.0.1:5353", "max_connections": -1}}`, `enum.max_connections: must not be negative`},
		{`{"enum": {"listen": "127.0.0.1:5353", "rn": "x"}}`, `1:45: enum.rn: want an object ({...}), got a string`},
		{`{"enum": {"listen": "127.0.0.1:5353", "port": 53}}`, `1:39: enum.port: unknown setting (did you mean "portdb"?)`},
	} {
		_, err := parseConfig([]byte(tc.config))
		require.ErrorContains(t, err, tc.want, tc.config)
	}
	plan, err := sharedPlan()
	require.NoError(t, err)
	for _, tc := range []struct {
		cfg  enumConfig
		want string
	}{
		{enumConfig{Suffix: "e164..arpa"}, "enum.suffix: "},
		{enumConfig{RN: map[string]string{"26203": "a;b"}}, "enum.rn.26203: "},
		{enumConfig{RN: map[string]string{"2620": "+49"}}, "enum.rn: "},
		{enumConfig{RNContext: "!"}, "enum.rn_context: "},
		{enumConfig{NameServer: "a b"}, "enum.name_server: "},
		{enumConfig{Portdb: filepath.Join(t.TempDir(), "missing.db")}, "enum.portdb: "},
	} {
		_, _, err := buildEnum(&tc.cfg, plan, new(portdbSet), slog.New(slog.DiscardHandler))
		require.ErrorContains(t, err, tc.want)
	}
	// "enum" without a listen address, and no --enum.
	dir := t.TempDir()
	config := filepath.Join(dir, "numen.json")
	require.NoError(t, os.WriteFile(config, []byte(`{"enum": {"suffix": "e164.arpa."}}`), 0o600))
	var stderr bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, loadPlan: sharedPlan}
	require.Equal(t, exitError, c.serve([]string{"--config", config}))
	require.Contains(t, stderr.String(), "enum.listen: is required")
	stderr.Reset()
	require.Equal(t, exitUsage, c.serve([]string{"--demo", "--enum", "5353"}))
	require.Contains(t, stderr.String(), `--enum "5353"`)
	stderr.Reset()
	require.Equal(t, exitUsage, c.serve([]string{"--demo", "--enum-portdb", "ported.db"}))
	require.Contains(t, stderr.String(), "give --enum HOST:PORT too")
}

// TestServeEnumProcess runs numen serve --demo --enum --enum-portdb as a
// process, asks
// it with kdig over UDP and TCP, and stops it with SIGTERM: it exits 0.
func TestServeEnumProcess(t *testing.T) {
	t.Parallel()
	kdig, err := exec.LookPath("kdig")
	if err != nil {
		t.Fatalf("kdig is needed (Debian package knot-dnsutils; .ci/deps installs it): %v", err)
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	db := writePortDB(t, "+4915123456789,26203,O2\n")
	cmd := exec.CommandContext(t.Context(), exe, "serve", "--demo", "--addr", "127.0.0.1:0", "--enum", "127.0.0.1:0", "--enum-portdb", db, "--data", t.TempDir())
	cmd.Env = append(os.Environ(), "NUMEN_TEST_AS_NUMEN=1")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := enumLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	var addr string
	select {
	case addr = <-found:
	case <-time.After(60 * time.Second):
		t.Fatalf("numen serve --enum did not start:\n%s", stderr.String())
	}
	host, port, _ := net.SplitHostPort(addr)
	for _, proto := range []string{"+notcp", "+tcp"} {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		out, err := exec.CommandContext(ctx, kdig, "@"+host, "-p", port, proto, "+short", "9.8.7.6.5.4.3.2.1.5.1.9.4.e164.arpa", "NAPTR").CombinedOutput()
		cancel()
		require.NoError(t, err, string(out))
		require.Equal(t, `100 10 "u" "E2U+pstn:tel" "!^.*$!tel:+4915123456789;npdi;rn=26203;rn-context=+49;mcc=262;mnc=03!" .`+"\n", string(out))
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, stderr.String())
	case <-time.After(40 * time.Second):
		t.Fatalf("numen serve did not stop within 40 s of SIGTERM:\n%s", stderr.String())
	}
	require.Contains(t, stderr.String(), `msg="ENUM server listening" addr=`+addr)
}

// TestServeEnumReload: a new database renamed over enum.portdb answers
// from the next check on.
func TestServeEnumReload(t *testing.T) {
	t.Parallel()
	db := writePortDB(t, "+4915123456789,26203,O2\n")
	r := startServer(t, &serveConfig{Enum: &enumConfig{Listen: "127.0.0.1:0", Portdb: db, Reload: duration(20 * time.Millisecond)}}, true)
	addr := enumLine.FindStringSubmatch(r.stdout.String())[1]
	name := "9.8.7.6.5.4.3.2.1.5.1.9.4.e164.arpa."
	require.Contains(t, naptr(t, addr, "udp", name).Answer[0].(*dns.NAPTR).Regexp, ";mnc=03!")
	next := writePortDB(t, "+4915123456789,26202,Vodafone\n")
	require.NoError(t, os.Rename(next, db))
	for i := 0; ; i++ {
		got := naptr(t, addr, "udp", name).Answer[0].(*dns.NAPTR).Regexp
		if strings.HasSuffix(got, ";mnc=02!") {
			break
		}
		if i == 500 {
			t.Fatalf("still %s after 10 s", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
