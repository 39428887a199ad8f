package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store/sqlitestore"
	"github.com/numenhq/numen/mnp/remote"
)

// runData runs "numen data ARGS..." in this process and returns its exit
// status and standard output.
func runData(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(append([]string{"data"}, args...), strings.NewReader(""), &out, &errOut)
	t.Logf("numen data %s: exit %d\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
	return code, out.String() + errOut.String()
}

// storedResults opens the (stopped) store in dir and counts the results
// of account's reports.
func storedResults(t *testing.T, dir, account string) int64 {
	t.Helper()
	s, err := sqlitestore.Open(t.Context(), dir)
	require.NoError(t, err)
	defer s.Close()
	reports, err := s.Reports(t.Context(), account)
	require.NoError(t, err)
	var n int64
	for _, r := range reports {
		n += r.Count
	}
	return n
}

// overwrite writes junk over f from offset from to its end.
func overwrite(t *testing.T, path string, from int64) {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	if fi.Size() <= from {
		return
	}
	junk := make([]byte, fi.Size()-from)
	for i := range junk {
		junk[i] = byte(i*7 + 3)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(junk, from)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// Issue 30, item 4, as an operator meets it: numen.db is damaged under a
// running server. Once the server has found it (/healthz says so), a
// lookup is 503 with the reason and nothing is charged; the server
// deletes no segment; restoring last backup and running numen data
// recover finds every answered result.
func TestDamagedDatabaseStopsLookups(t *testing.T) {
	t.Parallel()
	data, bak := t.TempDir(), filepath.Join(t.TempDir(), "numen.db.bak")
	logs := &syncBuffer{}
	defer func() {
		if t.Failed() {
			t.Log("the server's log:\n" + logs.String())
		}
	}()
	r := startServerLogging(t, &serveConfig{Data: data}, true, logs)
	c, key, secret := demoClient(t, r)
	ctx := t.Context()
	answered := 0
	lookup := func() error {
		_, err := c.NTLookup(ctx, fmt.Sprintf("+4915123%06d", answered), nil)
		if err == nil {
			answered++
		}
		return err
	}
	for range 200 {
		require.NoError(t, lookup())
	}
	code, _ := runData(t, "backup", data, bak)
	require.Equal(t, exitOK, code)
	for range 300 {
		require.NoError(t, lookup())
	}
	segs, err := filepath.Glob(filepath.Join(data, sqlitestore.LogDir, "*.log"))
	require.NoError(t, err)

	get := func(url string) (int, []byte) {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		require.NoError(t, err)
		req.SetBasicAuth(key, secret)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body) // a download that meets the damage is cut short
		return resp.StatusCode, body
	}
	status, body := get(r.base + "/reports")
	require.Equal(t, http.StatusOK, status, "%s", body)
	var list struct {
		Reports []struct {
			Name string `json:"name"`
		} `json:"reports"`
	}
	require.NoError(t, json.Unmarshal(body, &list))
	require.NotEmpty(t, list.Reports)
	// A download of a report reads every one of its results: the old
	// ones from the database file, where the junk is, once the
	// connection has dropped its cache.
	reports := func() int {
		status, _ := get(strings.TrimSuffix(r.base, "/api/v2") + "/reports/" + list.Reports[0].Name + "?format=json")
		return status
	}

	// Junk over every page of the database but the first, and over the
	// pages in its WAL: what a failing disk leaves.
	db := filepath.Join(data, sqlitestore.FileName)
	overwrite(t, db, 4096)
	overwrite(t, db+"-wal", 32)
	healthz := func() string {
		resp, err := http.Get(strings.TrimSuffix(r.base, "/api/v2") + "/healthz")
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, b)
	}
	var refused error
	// Bounded: a lookup and a download each. A read served from a
	// connection's warm page cache does not see the damage; one of a
	// later read does.
	for range 2000 {
		if err := lookup(); err != nil {
			refused = err
			break
		}
		reports()
	}
	require.Error(t, refused, "the server found the damage")
	var apiErr *remote.APIError
	require.True(t, errors.As(refused, &apiErr), "%v", refused)
	require.Equal(t, http.StatusServiceUnavailable, apiErr.StatusCode)
	require.Equal(t, []string{"service unavailable: the results database is damaged and takes no results until an operator repairs it; nothing was charged"}, apiErr.Errors)
	h := healthz()
	require.Contains(t, h, "503 ")
	require.Contains(t, h, "numen data recover "+data)
	after, err := filepath.Glob(filepath.Join(data, sqlitestore.LogDir, "*.log"))
	require.NoError(t, err)
	require.Subset(t, after, segs, "no segment is deleted")
	_ = r.stop() // its Close reports the damage

	// The way out /healthz gives: restore the backup, recover.
	require.NoError(t, os.RemoveAll(db+"-wal"))
	require.NoError(t, os.RemoveAll(db+"-shm"))
	raw, err := os.ReadFile(bak)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(db, raw, 0o600))
	code, out := runData(t, "check", data)
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "results past the database's position: the next start commits them")
	code, out = runData(t, "recover", data)
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "recovered: ")
	stored := storedResults(t, data, key)
	t.Logf("results answered %d, stored after restoring the backup and numen data recover %d", answered, stored)
	require.EqualValues(t, answered, stored, "results answered vs stored")
	code, _ = runData(t, "check", data)
	require.Equal(t, exitOK, code)
}

// Issue 30, item 5, as an operator meets it: a 0-byte numen.db is refused
// at start, naming the problem and the way out; numen data check says so
// (exit status 1) and numen data recover rebuilds every answered result
// from the log.
func TestServeRefusesAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	r := startServer(t, &serveConfig{Data: data}, true)
	c, key, _ := demoClient(t, r)
	answered := 0
	for i := range 300 {
		_, err := c.NTLookup(t.Context(), fmt.Sprintf("+4915223%06d", i), nil)
		require.NoError(t, err)
		answered++
	}
	require.NoError(t, r.stop())
	db := filepath.Join(data, sqlitestore.FileName)
	require.NoError(t, os.Truncate(db, 0))

	cl := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, loadPlan: sharedPlan}
	cfg := &serveConfig{Addr: "127.0.0.1:0", Data: data}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second) // a server that starts stops then
	defer cancel()
	err := cl.runServer(ctx, cfg, true, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	require.ErrorContains(t, err, db+" is empty (0 bytes), but the results log has segment")
	require.ErrorContains(t, err, `"numen data recover `+data+`"`)
	t.Log(err)

	code, out := runData(t, "check", data)
	require.Equal(t, exitError, code)
	require.Contains(t, out, "PROBLEM: "+db+" is empty (0 bytes)")
	code, _ = runData(t, "recover", data)
	require.Equal(t, exitOK, code)
	stored := storedResults(t, data, key)
	t.Logf("results answered %d, stored after numen data recover %d", answered, stored)
	require.EqualValues(t, answered, stored, "results answered vs stored")
}

// --start-anyway ("start_anyway": true) starts on the empty database as
// numen data recover would, logging what it went past.
func TestServeStartAnyway(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	r := startServer(t, &serveConfig{Data: data}, true)
	c, key, _ := demoClient(t, r)
	for i := range 100 {
		_, err := c.NTLookup(t.Context(), fmt.Sprintf("+4915323%06d", i), nil)
		require.NoError(t, err)
	}
	require.NoError(t, r.stop())
	require.NoError(t, os.Truncate(filepath.Join(data, sqlitestore.FileName), 0))
	r = startServer(t, &serveConfig{Data: data, StartAnyway: true}, true)
	require.NoError(t, r.stop())
	require.EqualValues(t, 100, storedResults(t, data, key), "results answered vs stored")
}

func TestDataUsage(t *testing.T) {
	t.Parallel()
	code, out := runData(t)
	require.Equal(t, exitUsage, code)
	require.Contains(t, out, "want check, recover or backup")
	code, out = runData(t, "fix", "x")
	require.Equal(t, exitUsage, code)
	require.Contains(t, out, `unknown subcommand "fix"`)
	code, out = runData(t, "check")
	require.Equal(t, exitUsage, code)
	require.Contains(t, out, "check wants one data directory")
	code, out = runData(t, "check", "--rebuild", t.TempDir())
	require.Equal(t, exitUsage, code)
	require.Contains(t, out, "--rebuild is for recover")
	code, out = runData(t, "backup", t.TempDir())
	require.Equal(t, exitUsage, code)
	require.Contains(t, out, "backup wants a data directory and a new file")
	code, out = runData(t, "backup", t.TempDir(), "x.db")
	require.Equal(t, exitError, code)
	require.Contains(t, out, "no database there")
	code, out = runData(t, "check", filepath.Join(t.TempDir(), "nothing"))
	require.Equal(t, exitError, code)
	require.Contains(t, out, "no such file or directory")
}
