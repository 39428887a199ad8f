//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/mnp/portdb"
	"github.com/numenhq/numen/mnp/remote"
)

// SIGHUP makes numen serve look at its portability database files at
// once: a file renamed over the old one answers the next lookup, and a
// truncated one is refused, logged naming the file, counted, and the
// current one keeps answering.
func TestServePortDBSIGHUP(t *testing.T) {
	t.Parallel()
	primary := buildPortDB(t, "+4915112*,26202,Vodafone\n", "-regions", "DE")
	const secret = "portdb-secret-0123456789"
	logs := &syncBuffer{}
	r := startServerLogging(t, &serveConfig{
		Routes: []routeConfig{
			// An hour between periodic checks: only SIGHUP looks.
			{Route: "MP1", Backends: []backendConfig{{Type: "portdb", File: primary, Reload: duration(time.Hour)}}},
			{Route: "DS7", Backends: []backendConfig{{Type: "simnet"}}},
			{Route: "GT1", Backends: []backendConfig{{Type: "simnet"}}},
			{Route: "GT2", Backends: []backendConfig{{Type: "simnet"}}},
		},
		Accounts: []accountConfig{{Key: "acct", Secrets: []string{secret}}},
	}, false, logs)
	c, err := remote.New(r.base, "acct", secret)
	require.NoError(t, err)
	lookup := func() string {
		t.Helper()
		res, err := c.MNPLookup(t.Context(), "+4915112345678", &remote.LookupOptions{Route: "MP1"})
		require.NoError(t, err)
		require.Equal(t, "COMPLETED", res.ProcessingStatus)
		return *res.MCCMNC
	}
	require.Equal(t, "26202", lookup())

	next := buildPortDB(t, "+4915112*,26203,Telefónica Germany\n", "-regions", "DE")
	require.NoError(t, os.Rename(next, primary))
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
	logs.waitFor(t, `msg="portability database replaced: answering from the new file" route=MP1 backend=portdb(`+primary+`)`, 20*time.Second)
	require.Equal(t, "26203", lookup(), "the new file answers")

	// A truncated copy of a good file, renamed over it: refused.
	good, err := os.ReadFile(buildPortDB(t, "+4915112*,26201\n", "-regions", "DE"))
	require.NoError(t, err)
	cut := filepath.Join(t.TempDir(), "cut.db")
	require.NoError(t, os.WriteFile(cut, good[:len(good)-16], 0o644))
	require.NoError(t, os.Rename(cut, primary))
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
	logs.waitFor(t, `msg="portability database file not taken: the current one keeps answering" route=MP1`, 20*time.Second)
	require.Contains(t, logs.String(), `error="`+primary+`: portdb: `)
	require.Equal(t, "26203", lookup(), "the old file still answers")

	resp, err := http.Get(strings.TrimSuffix(r.base, "/api/v2") + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Contains(t, string(body), "\nnumen_portdb_reload_refused_total{file=\""+primary+"\"} 1\n")
}

// Delta files put in a portdb backend's deltas directory are applied at
// SIGHUP: the next lookup answers from them; a delta for another base is
// refused naming both, logged, counted, and the answers stay.
func TestServePortDBDeltas(t *testing.T) {
	t.Parallel()
	base := buildPortDB(t, "+4915112*,26202,Vodafone\n+4915112345678,26202,Vodafone\n", "-regions", "DE")
	next := buildPortDB(t, "+4915112*,26202,Vodafone\n+4915112345679,26203,Telefónica Germany\n", "-regions", "DE")
	deltas := t.TempDir()
	const secret = "portdb-secret-0123456789"
	logs := &syncBuffer{}
	r := startServerLogging(t, &serveConfig{
		Routes: []routeConfig{
			{Route: "MP1", Backends: []backendConfig{{Type: "portdb", File: base, Deltas: deltas, Reload: duration(time.Hour)}}},
			{Route: "DS7", Backends: []backendConfig{{Type: "simnet"}}},
			{Route: "GT1", Backends: []backendConfig{{Type: "simnet"}}},
			{Route: "GT2", Backends: []backendConfig{{Type: "simnet"}}},
		},
		Accounts: []accountConfig{{Key: "acct", Secrets: []string{secret}}},
	}, false, logs)
	c, err := remote.New(r.base, "acct", secret)
	require.NoError(t, err)
	lookup := func(number string) (string, bool) {
		t.Helper()
		res, err := c.MNPLookup(t.Context(), number, &remote.LookupOptions{Route: "MP1"})
		require.NoError(t, err)
		require.Equal(t, "COMPLETED", res.ProcessingStatus)
		return *res.MCCMNC, *res.IsPorted
	}
	mccmnc, _ := lookup("+4915112345679")
	require.Equal(t, "26202", mccmnc)

	code, _, stderr := runCLI(t, nil, "portdb", "diff", base, next, "-o", filepath.Join(deltas, "0001.delta"))
	require.Equal(t, exitOK, code, stderr)
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
	logs.waitFor(t, `msg="portability database replaced: answering from the new file" route=MP1 backend=portdb(`+base+`) file=`+base+` numbers=1 ranges=1 source="" deltas=1 delta_numbers=2`, 20*time.Second)
	mccmnc, _ = lookup("+4915112345679")
	require.Equal(t, "26203", mccmnc, "ported by the delta")
	mccmnc, ported := lookup("+4915112345678")
	require.Equal(t, "26202", mccmnc, "returned: the range answers")
	require.True(t, ported)

	// A delta made for another base (next): refused, naming both.
	other := filepath.Join(t.TempDir(), "other.db")
	code, _, stderr = runCLI(t, nil, "portdb", "apply", base, filepath.Join(deltas, "0001.delta"), "-o", other)
	require.Equal(t, exitOK, code, stderr)
	code, _, stderr = runCLI(t, nil, "portdb", "diff", next, other, "-o", filepath.Join(deltas, "0002.delta"), "-time", "2026-01-01T00:00:00Z")
	require.Equal(t, exitOK, code, stderr)
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
	logs.waitFor(t, `msg="portability database file not taken: the current one keeps answering" route=MP1`, 20*time.Second)
	require.Contains(t, logs.String(), base+": portdb: delta for another base database: "+filepath.Join(deltas, "0002.delta")+" applies to base "+identity(t, next)+", this database is "+identity(t, base))
	mccmnc, _ = lookup("+4915112345679")
	require.Equal(t, "26203", mccmnc, "the current base and delta still answer")

	resp, err := http.Get(strings.TrimSuffix(r.base, "/api/v2") + "/metrics")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Contains(t, string(body), "\nnumen_portdb_reload_refused_total{file=\""+base+"\"} 1\n")
}

// The ENUM server's own database takes its deltas (enum.portdb_deltas)
// at SIGHUP as the routes' do.
func TestServeEnumPortDBDeltas(t *testing.T) {
	t.Parallel()
	db := writePortDB(t, "+4915123456789,26203,O2\n")
	deltas := t.TempDir()
	logs := &syncBuffer{}
	r := startServerLogging(t, &serveConfig{Enum: &enumConfig{
		Listen: "127.0.0.1:0", Suffix: "e164.example.net", RN: map[string]string{"26203": "D262"}, RNContext: "+49",
		Portdb: db, PortdbDeltas: deltas, Reload: duration(time.Hour),
	}}, true, logs)
	m := enumLine.FindStringSubmatch(r.stdout.String())
	require.NotNil(t, m, r.stdout.String())
	const name = "0.8.7.6.5.4.3.2.1.5.1.9.4.e164.example.net."
	a := naptr(t, m[1], "udp", name)
	require.Equal(t, "!^.*$!tel:+4915123456780;npdi;mcc=262;mnc=01!", a.Answer[0].(*dns.NAPTR).Regexp)

	base, err := portdb.Open(db)
	require.NoError(t, err)
	d := portdb.NewDelta(base.Identity(), time.Now())
	base.Close()
	require.NoError(t, d.Add("+4915123456780", "26203", "O2", time.Now()))
	f, err := os.Create(filepath.Join(deltas, "1.delta"))
	require.NoError(t, err)
	_, err = d.WriteTo(f)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
	logs.waitFor(t, `msg="portability database replaced: answering from the new file" enum=portdb file=`+db, 20*time.Second)
	a = naptr(t, m[1], "udp", name)
	require.Equal(t, "!^.*$!tel:+4915123456780;npdi;rn=D262;rn-context=+49;mcc=262;mnc=03!", a.Answer[0].(*dns.NAPTR).Regexp)
}

// Lookups through the API while the database is replaced six times,
// every other time with a delta, each taken at SIGHUP: every lookup is
// answered, from the old data or the new (BenchmarkPortDBHotSwap does
// the same at scale and measures it).
func TestServePortDBSwapUnderLoad(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	for i := range 2000 {
		n := strconv.Itoa(4915100000000 + 2*i)
		a.WriteString("+" + n + ",26201,Telekom\n")
		b.WriteString("+" + n + ",26202,Vodafone\n")
	}
	fileA, fileB := buildPortDB(t, a.String(), "-regions", "DE"), buildPortDB(t, b.String(), "-regions", "DE")
	deltaFor := func(path string) []byte {
		db, err := portdb.Open(path)
		require.NoError(t, err)
		defer db.Close()
		d := portdb.NewDelta(db.Identity(), time.Now())
		for i := 0; i < 2000; i += 10 {
			require.NoError(t, d.Add(strconv.Itoa(4915100000000+2*i), "26203", "Telefónica Germany", time.Now()))
		}
		var buf strings.Builder
		_, err = d.WriteTo(&buf)
		require.NoError(t, err)
		return []byte(buf.String())
	}
	deltas := map[string][]byte{fileA: deltaFor(fileA), fileB: deltaFor(fileB)}
	dir := t.TempDir()
	live, deltaDir := filepath.Join(dir, "ported.db"), filepath.Join(dir, "deltas")
	require.NoError(t, os.Mkdir(deltaDir, 0o755))
	put := func(raw []byte, path string) {
		require.NoError(t, os.WriteFile(path+".tmp", raw, 0o644))
		require.NoError(t, os.Rename(path+".tmp", path))
	}
	read := func(path string) []byte {
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		return raw
	}
	put(read(fileA), live)
	const secret = "portdb-secret-0123456789"
	logs := &syncBuffer{}
	r := startServerLogging(t, &serveConfig{
		Routes: []routeConfig{
			{Route: "MP1", Backends: []backendConfig{{Type: "portdb", File: live, Deltas: deltaDir, Reload: duration(time.Hour)}}},
			{Route: "DS7", Backends: []backendConfig{{Type: "simnet"}}},
			{Route: "GT1", Backends: []backendConfig{{Type: "simnet"}}},
			{Route: "GT2", Backends: []backendConfig{{Type: "simnet"}}},
		},
		Accounts: []accountConfig{{Key: "acct", Secrets: []string{secret}}},
	}, false, logs)
	c, err := remote.New(r.base, "acct", secret)
	require.NoError(t, err)

	var stop atomic.Bool
	var answered atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; !stop.Load(); k++ {
				i := (w*997 + k*13) % 2000
				res, err := c.MNPLookup(context.Background(), "+"+strconv.Itoa(4915100000000+2*i), &remote.LookupOptions{Route: "MP1"})
				switch {
				case err != nil:
					errs <- err
					return
				case res.ProcessingStatus != "COMPLETED" || res.MCCMNC == nil:
					errs <- fmt.Errorf("number %d: %s", i, res.ProcessingStatus)
					return
				case *res.MCCMNC == "26201" || *res.MCCMNC == "26202" || *res.MCCMNC == "26203" && i%10 == 0:
					answered.Add(1)
				default:
					errs <- fmt.Errorf("number %d: %s, from no data", i, *res.MCCMNC)
					return
				}
			}
			errs <- nil
		}()
	}
	for k := range 6 {
		base := []string{fileB, fileA}[k%2]
		require.NoError(t, os.RemoveAll(filepath.Join(deltaDir, "1.delta")))
		put(read(base), live)
		if k%2 == 1 {
			put(deltas[base], filepath.Join(deltaDir, "1.delta"))
		}
		require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
		for range 2000 { // at most 20 s
			if strings.Count(logs.String(), "portability database replaced") > k {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		require.Equal(t, k+1, strings.Count(logs.String(), "portability database replaced"), logs.String())
	}
	stop.Store(true)
	wg.Wait()
	for range 8 {
		require.NoError(t, <-errs)
	}
	require.NotContains(t, logs.String(), "not taken")
	t.Logf("%d lookups answered across 6 swaps", answered.Load())
	require.Positive(t, answered.Load())
}
