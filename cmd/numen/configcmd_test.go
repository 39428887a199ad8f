package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConfigCheck: numen config check FILE says ok with a summary for a
// good file, and lists every problem of a bad one (exit 1), each at its
// place, then how many.
func TestConfigCheck(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, nil, "config", "check", "numen.example.json")
	require.Equal(t, exitOK, code, errOut)
	require.Empty(t, errOut)
	require.Regexp(t, `^numen.example.json: ok: listens on 127.0.0.1:8080; ENUM on 127.0.0.1:8053; results in /.*/\.local/share/numen/example; 4 routes with backends \(DS7, GT1, GT2, MP1\); SIMULATOR on DS7, GT1, GT2, MP1; 1 account \(1 with spending limits\)\n$`, out)

	path := filepath.Join("testdata", "config", "many-problems.json")
	code, out, errOut = runCLI(t, nil, "config", "check", path)
	require.Equal(t, exitError, code)
	require.Empty(t, out)
	want, err := os.ReadFile(filepath.Join("testdata", "config", "many-problems.golden"))
	require.NoError(t, err)
	require.Equal(t, string(want)+"numen config check: "+path+": 14 problems\n", errOut)

	code, _, errOut = runCLI(t, nil, "config", "check", filepath.Join(t.TempDir(), "none.json"))
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "none.json: no such file or directory")

	for _, args := range [][]string{{"config"}, {"config", "check"}, {"config", "check", "a", "b"}, {"config", "lint", "a"}} {
		code, _, errOut = runCLI(t, nil, args...)
		require.Equal(t, exitUsage, code, args)
		require.Contains(t, errOut, `Run "numen help config" for usage.`)
	}
	code, out, _ = runCLI(t, nil, "help", "config")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "FILE:LINE:COLUMN: SETTING: MESSAGE")
}

// TestConfigCheckWithPlan: with no problem of its own, the file is built
// as serve would build it with the numbering plan: a routing map's rule
// the plan refuses, or an ENUM setting, is named at its place; nothing is
// created (the data directory stays absent).
func TestConfigCheckWithPlan(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "numen.json")
	require.NoError(t, os.WriteFile(path, []byte(`{
  "data": "data",
  "routes": [{"route": "GT1", "backends": [{"type": "simnet"}]}],
  "accounts": [
    {"key": "a", "secrets": ["0123456789abcdef"],
     "routing_map": {"defaultRoute": "GT1", "countries": [{"countrycode": "XX", "route": "GT1"}]}}
  ],
  "enum": {"listen": "127.0.0.1:0", "rn": {"2620": "D001"}}
}
`), 0o600))
	code, out, errOut := runCLI(t, nil, "config", "check", path)
	require.Equal(t, exitError, code, out)
	require.Regexp(t, `^`+path+`:6:60: accounts\[0\].routing_map.countries\[0\].countrycode: .*XX.*\n`+path+`:8:37: enum.rn: .*\nnumen config check: `+path+`: 2 problems\n$`, errOut)
	_, err := os.Stat(filepath.Join(dir, "data"))
	require.ErrorIs(t, err, os.ErrNotExist, "config check created the data directory")
}

// TestConfigCheckBalance: the balance key's own rules (top-ups only on a
// prepaid account, each id once, amounts above 0) are problems of config
// check, each at its own setting, as serve would refuse them.
func TestConfigCheckBalance(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "b.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"addr": "127.0.0.1:0",
 "accounts": [{"key": "k1", "secrets": ["0123456789abcdef0123"],
   "balance": {"monthly_cap": "10.00", "top_ups": [{"id": "a", "amount": "5"}, {"id": "a", "amount": "0"}]}}]}`), 0o600))
	code, out, errOut := runCLI(t, nil, "config", "check", path)
	require.Equal(t, exitError, code)
	require.Empty(t, out)
	require.Equal(t, path+`:3:40: accounts[0].balance.top_ups: the account is not prepaid (add "prepaid": true)`+"\n"+
		path+`:3:81: accounts[0].balance.top_ups[1].id: "a" is given twice`+"\n"+
		path+`:3:92: accounts[0].balance.top_ups[1].amount: must be more than 0`+"\n"+
		"numen config check: "+path+": 3 problems\n", errOut)
}
