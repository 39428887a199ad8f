//go:build unix

package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
