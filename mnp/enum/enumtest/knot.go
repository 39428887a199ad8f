// Package enumtest is test support for ENUM: it runs a real Knot DNS
// server (knotd, Debian package knot) on a loopback port serving zones a
// test writes, and a relay that delays DNS answers. It is for tests only:
// nothing but _test.go files imports it.
//
// A test without knotd fails naming the package to install (.ci/deps
// installs it); it never skips.
package enumtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// Zone is one zone for Knot: its origin ("e164.arpa.") and the text of
// its zone file, where relative names are under the origin. SOA writes a
// head for it.
type Zone struct {
	Origin string
	Text   string
}

// Knot is a knotd process serving zones on 127.0.0.1, UDP and TCP, on a
// port of its own.
type Knot struct {
	t    testing.TB
	bin  string
	dir  string
	addr string
	ping string // a name Knot answers, to see that it is up

	mu     sync.Mutex
	cmd    *exec.Cmd
	waitCh chan error
}

// KnotdPath returns the path of knotd, or an error naming the Debian
// package that has it. knotd is in /usr/sbin, which a user's PATH may
// lack.
func KnotdPath() (string, error) {
	if p, err := exec.LookPath("knotd"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/sbin/knotd", "/usr/local/sbin/knotd"} {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", errors.New("knotd (Knot DNS) is needed by this test and is missing: install the Debian package knot (.ci/deps installs it)")
}

// StartKnot writes the zones and a knot.conf into a temporary directory
// of t, starts knotd on a free loopback port and returns once it answers
// (within 10 s, else t fails with its log). Cleanup stops it. A zone file
// Knot cannot load is served as SERVFAIL, as Knot does.
func StartKnot(t testing.TB, zones ...Zone) *Knot {
	t.Helper()
	bin, err := KnotdPath()
	if err != nil {
		t.Fatal(err)
	}
	if len(zones) == 0 {
		t.Fatal("enumtest.StartKnot: no zone")
	}
	k := &Knot{t: t, bin: bin, dir: t.TempDir(), ping: dns.Fqdn(zones[0].Origin)}
	var conf strings.Builder
	port, err := freePort()
	if err != nil {
		t.Fatalf("enumtest: no free loopback port: %v", err)
	}
	k.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	fmt.Fprintf(&conf, "server:\n    rundir: %q\n    listen: 127.0.0.1@%d\n", k.dir, port)
	fmt.Fprintf(&conf, "database:\n    storage: %q\n", k.dir)
	conf.WriteString("log:\n  - target: stderr\n    any: info\n")
	fmt.Fprintf(&conf, "template:\n  - id: default\n    storage: %q\n    zonefile-sync: -1\n    zonefile-load: whole\n    journal-content: none\n", k.dir)
	conf.WriteString("zone:\n")
	for i, z := range zones {
		file := fmt.Sprintf("zone%d.zone", i)
		if err := os.WriteFile(filepath.Join(k.dir, file), []byte(z.Text), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&conf, "  - domain: %q\n    file: %q\n", dns.Fqdn(z.Origin), file)
	}
	if err := os.WriteFile(filepath.Join(k.dir, "knot.conf"), []byte(conf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Stop)
	k.Start()
	return k
}

// Addr returns the address knotd listens on, "127.0.0.1:PORT", for UDP
// and TCP.
func (k *Knot) Addr() string { return k.addr }

// Dir returns knotd's directory: knot.conf, the zone files and knotd.log.
func (k *Knot) Dir() string { return k.dir }

// Start starts knotd (again, after Stop) on its port and returns once it
// answers a query, within 10 s; else the test fails with knotd's log.
func (k *Knot) Start() {
	k.t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cmd != nil {
		return
	}
	logf, err := os.OpenFile(filepath.Join(k.dir, "knotd.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		k.t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(k.bin, "-c", filepath.Join(k.dir, "knot.conf"))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		k.t.Fatalf("enumtest: starting knotd: %v", err)
	}
	k.cmd = cmd
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	k.waitCh = exited
	deadline := time.Now().Add(10 * time.Second)
	c := &dns.Client{Net: "udp", Timeout: 200 * time.Millisecond}
	m := new(dns.Msg)
	m.SetQuestion(k.ping, dns.TypeSOA)
	for {
		select {
		case err := <-exited:
			k.cmd = nil
			k.t.Fatalf("enumtest: knotd exited at start (%v); its log:\n%s", err, k.log())
		default:
		}
		if _, _, err := c.Exchange(m, k.addr); err == nil {
			if _, _, err := (&dns.Client{Net: "tcp", Timeout: 200 * time.Millisecond}).Exchange(m, k.addr); err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			k.stopLocked()
			k.t.Fatalf("enumtest: knotd did not answer on %s within 10 s; its log:\n%s", k.addr, k.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops knotd: SIGTERM to its PID, then SIGKILL after 5 s. It does
// nothing when knotd is not running.
func (k *Knot) Stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.stopLocked()
}

func (k *Knot) stopLocked() {
	if k.cmd == nil {
		return
	}
	_ = k.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-k.waitCh:
	case <-time.After(5 * time.Second):
		_ = k.cmd.Process.Kill()
		<-k.waitCh
	}
	k.cmd = nil
}

func (k *Knot) log() string {
	b, _ := os.ReadFile(filepath.Join(k.dir, "knotd.log"))
	return string(b)
}

// freePort returns a loopback port free for both UDP and TCP at the
// moment of asking.
func freePort() (int, error) {
	for range 50 {
		u, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := u.LocalAddr().(*net.UDPAddr).Port
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		u.Close()
		if err != nil {
			continue
		}
		l.Close()
		return port, nil
	}
	return 0, errors.New("no port free for both UDP and TCP in 50 tries")
}

// SOA returns the head of a zone file for origin: $ORIGIN, $TTL 60, a SOA
// record whose negative-caching TTL is 30 s, and an NS record.
func SOA(origin string) string {
	return fmt.Sprintf("$ORIGIN %s\n$TTL 60\n@ SOA ns.invalid. hostmaster.invalid. 1 3600 600 86400 30\n@ NS ns.invalid.\n", dns.Fqdn(origin))
}

// NAPTRName returns the ENUM name of an E.164 number ("+4915112345678"
// or its digits) under suffix: the digits reversed, one label each
// (RFC 6116), "8.7.6.5.4.3.2.1.1.5.1.9.4.e164.arpa.".
func NAPTRName(e164, suffix string) string {
	var b strings.Builder
	for i := len(e164) - 1; i >= 0; i-- {
		if c := e164[i]; c >= '0' && c <= '9' {
			b.WriteByte(c)
			b.WriteByte('.')
		}
	}
	b.WriteString(dns.Fqdn(suffix))
	return b.String()
}
