package main

import (
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFailedStartLeavesNoFiles: a start that fails (a bad or busy address,
// a busy ENUM port, a bad config, a problem found once the store is open)
// creates no data directory, no results log and no demo key.
func TestFailedStartLeavesNoFiles(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	busyUDP, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busyUDP.Close()

	dir := t.TempDir()
	badConfig := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(badConfig, []byte(`{"addr": "127.0.0.1:0", "data": "from-bad-config", "adr": 1}`), 0o600))
	existing := t.TempDir() // an empty data directory that is there before
	// A users file that is not JSON: found before the store is opened, so
	// nothing is written into the existing data directory either.
	badUsers := filepath.Join(dir, "users.json")
	require.NoError(t, os.WriteFile(badUsers, []byte(`{not json`), 0o600))
	usersConfig := filepath.Join(dir, "users-config.json")
	require.NoError(t, os.WriteFile(usersConfig, []byte(`{"addr": "127.0.0.1:0", "data": `+strconv.Quote(existing)+
		`, "users_file": "users.json", "accounts": [{"key": "k1", "secrets": ["0123456789abcdef0123"]}]}`), 0o600))
	for _, tc := range []struct {
		name string
		args []string
		msg  string
		gone string // the data directory that must not exist after
	}{
		{"busy port", []string{"serve", "--demo", "--addr", busy.Addr().String(), "--data", filepath.Join(dir, "busy")}, "address already in use", filepath.Join(dir, "busy")},
		{"bad address", []string{"serve", "--demo", "--addr", "127.0.0.1:99999", "--data", filepath.Join(dir, "badaddr")}, "invalid port", filepath.Join(dir, "badaddr")},
		{"busy ENUM port", []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--enum", busyUDP.LocalAddr().String(), "--data", existing}, "address already in use", ""},
		{"bad config", []string{"serve", "--config", badConfig}, "bad.json:1:52: adr: unknown setting (did you mean \"addr\"?)\nnumen serve: " + badConfig + ": 1 problem; nothing was started\n", filepath.Join(dir, "from-bad-config")},
		{"bad users file", []string{"serve", "--config", usersConfig}, "users.json: line 1, column 2: unexpected", ""},
	} {
		code, _, errOut := runCLI(t, nil, tc.args...)
		require.Equal(t, exitError, code, tc.name)
		require.Contains(t, errOut, tc.msg, tc.name)
		if tc.gone != "" {
			_, err := os.Stat(tc.gone)
			require.ErrorIs(t, err, os.ErrNotExist, "%s: %s was created", tc.name, tc.gone)
		}
	}
	entries, err := os.ReadDir(existing)
	require.NoError(t, err)
	require.Empty(t, entries, "files written into the existing data directory")

	// Refused once the store is open: the directory it made is removed.
	c := &cli{stdout: os.Stdout, stderr: os.Stderr, loadPlan: sharedPlan}
	cfg := &serveConfig{Addr: "127.0.0.1:0", Data: filepath.Join(dir, "after-store"),
		Routes:   []routeConfig{{Route: "GT1", Backends: []backendConfig{{Type: "simnet"}}}},
		Accounts: []accountConfig{{Key: "a", Secrets: []string{"0123456789abcdef"}, RoutingMap: []byte(`{"defaultRoute": "DS7"}`)}}}
	err = c.runServer(t.Context(), cfg, false, slog.New(slog.DiscardHandler), nil)
	require.ErrorContains(t, err, `defaultRoute: "DS7": the HLR route has no backend`)
	_, err = os.Stat(cfg.Data)
	require.ErrorIs(t, err, os.ErrNotExist, "the data directory of a failed start stays")
}
