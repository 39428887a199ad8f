package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/compile"
)

// loadShared loads the plan once for all tests; run itself loads it on
// every call, which the tests of run() without the helper cover.
var loadShared = sync.OnceValues(func() (*numbering.Plan, error) { return numbering.Load() })

// sharedPlan is cli.loadPlan for tests: the shared plan, unless overlays
// ask for a plan of their own.
func sharedPlan(opts ...numbering.Option) (*numbering.Plan, error) {
	if len(opts) > 0 {
		return numbering.Load(opts...)
	}
	return loadShared()
}

func testPlan(t testing.TB) *numbering.Plan {
	t.Helper()
	p, err := sharedPlan()
	require.NoError(t, err)
	return p
}

// runCLI runs the command line like run does, with the shared plan, and
// returns the exit status and what was written to standard output and
// standard error.
func runCLI(t testing.TB, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	testPlan(t)
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errOut bytes.Buffer
	c := &cli{stdin: stdin, stdout: &out, stderr: &errOut, loadPlan: sharedPlan}
	code = c.run(args)
	return code, out.String(), errOut.String()
}

func TestRunVersion(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := run([]string{"version"}, strings.NewReader(""), &out, &errOut)
	require.Equal(t, exitOK, code, errOut.String())
	require.Empty(t, errOut.String())
	want := "numen devel\nnumbering data: " + testPlan(t).Version().String() + "\n"
	require.Equal(t, want, out.String())
	require.Contains(t, out.String(), "libphonenumber v")
}

func TestOverlayFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	overlay := filepath.Join(dir, "corrections.tsv")
	require.NoError(t, os.WriteFile(overlay, []byte("+49 1540\tMOBILE\tExample Mobil\t26299\tnew range\n"), 0o644))

	code, out, errOut := runCLI(t, nil, "--overlay", overlay, "nt", "+49 1540 1234567")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, `"number_type":"MOBILE","query_status":"OK","is_valid":true`)
	require.Contains(t, out, `"mccmnc":"26299"`)
	require.Contains(t, out, `"original_network_name":"Example Mobil"`)

	code, out, _ = runCLI(t, nil, "--overlay="+overlay, "version")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, " + overlay "+overlay+" (1 lines, ")

	code, out, _ = runCLI(t, nil, "nt", "+49 1540 1234567")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"is_valid":false`, "without the overlay")

	require.NoError(t, os.WriteFile(overlay, []byte("+49 1540\tCELL\tExample Mobil\t26299\n"), 0o644))
	code, _, errOut = runCLI(t, nil, "--overlay", overlay, "nt", "+49 1540 1234567")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, overlay+` line 1: type "CELL"`)

	code, _, errOut = runCLI(t, nil, "--overlay")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "--overlay needs a file")
}

func TestVersionLinkerOverride(t *testing.T) {
	// Not parallel: it sets the package variable version.
	defer func(v string) { version = v }(version)
	version = "v1.2.3"
	code, out, _ := runCLI(t, nil, "version")
	require.Equal(t, exitOK, code)
	require.True(t, strings.HasPrefix(out, "numen v1.2.3\n"), out)
}

func TestRunNTDirect(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := run([]string{"nt", "+49 151 23456789"}, strings.NewReader(""), &out, &errOut)
	require.Equal(t, exitOK, code, errOut.String())
	require.Contains(t, out.String(), `"number":"+4915123456789","number_type":"MOBILE"`)
}

func TestUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string // substring; "" means empty output
		stderr     string // substring; "" means empty output
		noStdout   bool
		noStderror bool
	}{
		{name: "no arguments", args: nil, code: exitUsage, stderr: "Commands:", noStdout: true},
		{name: "help", args: []string{"help"}, code: exitOK, stdout: "Commands:", noStderror: true},
		{name: "-h", args: []string{"-h"}, code: exitOK, stdout: "Commands:", noStderror: true},
		{name: "--help", args: []string{"--help"}, code: exitOK, stdout: "Commands:", noStderror: true},
		{name: "help nt", args: []string{"help", "nt"}, code: exitOK, stdout: "--format json", noStderror: true},
		{name: "help version", args: []string{"help", "version"}, code: exitOK, stdout: "Usage: numen version", noStderror: true},
		{name: "help unknown", args: []string{"help", "frobnicate"}, code: exitUsage, stderr: `unknown command "frobnicate"`, noStdout: true},
		{name: "unknown command", args: []string{"frobnicate"}, code: exitUsage, stderr: `numen: unknown command "frobnicate"`, noStdout: true},
		{name: "nt -h", args: []string{"nt", "-h"}, code: exitOK, stdout: "Usage: numen nt", noStderror: true},
		{name: "nt unknown flag", args: []string{"nt", "--bogus", "+4915123456789"}, code: exitUsage, stderr: "-bogus", noStdout: true},
		{name: "nt unknown format", args: []string{"nt", "--format", "xml", "+4915123456789"}, code: exitUsage, stderr: `unknown format "xml"`, noStdout: true},
		{name: "nt format after number", args: []string{"nt", "+4915123456789", "--format=yaml"}, code: exitUsage, stderr: `unknown format "yaml"`, noStdout: true},
		{name: "nt missing format value", args: []string{"nt", "--format"}, code: exitUsage, stderr: "numen nt: --format needs a value", noStdout: true},
		{name: "version argument", args: []string{"version", "extra"}, code: exitUsage, stderr: `unexpected argument "extra"`, noStdout: true},
		{name: "version unknown flag", args: []string{"version", "--short"}, code: exitUsage, stderr: "-short", noStdout: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tt.args...)
			require.Equal(t, tt.code, code, "stderr: %s", stderr)
			require.Contains(t, stdout, tt.stdout)
			require.Contains(t, stderr, tt.stderr)
			if tt.noStdout {
				require.Empty(t, stdout)
			}
			if tt.noStderror {
				require.Empty(t, stderr)
			}
			if tt.code == exitUsage && len(tt.args) > 0 {
				require.Contains(t, stderr, `Run "numen help`, "a usage error says where help is")
			}
		})
	}
}

func TestPlanFlagAndVerify(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, nil, "plan", "verify")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, "built-in plan: ok\nversion: "+testPlan(t).Version().String()+"\n")
	require.Contains(t, out, "geocoding, time zones")

	dir := t.TempDir()
	stripped, err := compile.Strip(data.Plan(), compile.Geocoding)
	require.NoError(t, err)
	file := filepath.Join(dir, "plan.bin")
	require.NoError(t, os.WriteFile(file, stripped, 0o644))
	code, out, errOut = runCLI(t, nil, "plan", "verify", file)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, file+": ok\n")
	require.NotContains(t, out, "geocoding")

	// --plan answers from the file: no geography without its section.
	code, out, errOut = runCLI(t, nil, "--plan", file, "nt", "+49 30 1234567")
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, `"regions":["Germany"]`)
	code, out, _ = runCLI(t, nil, "nt", "+49 30 1234567")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"regions":["Berlin"]`)

	require.NoError(t, os.WriteFile(file, stripped[:len(stripped)/2], 0o644))
	code, _, errOut = runCLI(t, nil, "plan", "verify", file)
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "truncated or extended")
	code, _, errOut = runCLI(t, nil, "--plan", file, "version")
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "truncated or extended")

	code, _, errOut = runCLI(t, nil, "plan", "check")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `unknown subcommand "check"`)
}

// TestGlobalFlagsAfterCommand: --overlay and --plan work after the command
// as before it, in any place among its arguments, up to a "--".
func TestGlobalFlagsAfterCommand(t *testing.T) {
	t.Parallel()
	overlay := filepath.Join(t.TempDir(), "corrections.tsv")
	require.NoError(t, os.WriteFile(overlay, []byte("+49 1540\tMOBILE\tExample Mobil\t26299\tnew range\n"), 0o644))
	for _, args := range [][]string{
		{"nt", "--overlay", overlay, "+49 1540 1234567"},
		{"nt", "+49 1540 1234567", "--overlay", overlay},
		{"nt", "--format", "json", "-overlay=" + overlay, "+49 1540 1234567"},
	} {
		code, out, errOut := runCLI(t, nil, args...)
		require.Equal(t, exitOK, code, "%v: %s", args, errOut)
		require.Contains(t, out, `"original_network_name":"Example Mobil"`, args)
	}
	code, out, _ := runCLI(t, nil, "version", "--overlay", overlay)
	require.Equal(t, exitOK, code)
	require.Contains(t, out, " + overlay "+overlay)
	code, _, errOut := runCLI(t, nil, "version", "--plan", filepath.Join(t.TempDir(), "none.plan"))
	require.Equal(t, exitError, code)
	require.Contains(t, errOut, "none.plan")
	// After "--" it is an argument like any other.
	code, out, _ = runCLI(t, nil, "nt", "--", "--overlay")
	require.Equal(t, exitOK, code)
	require.Contains(t, out, `"number":"--overlay"`)
	code, _, errOut = runCLI(t, nil, "nt", "+4915123456789", "--overlay")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, "--overlay needs a file")
}

// TestFlagSpelling: messages about flags spell them as the help does,
// --format, never -format.
func TestFlagSpelling(t *testing.T) {
	t.Parallel()
	oneDash := regexp.MustCompile(`(^|[\s:("])-[a-z][a-z-]+`)
	for _, args := range [][]string{
		{"nt", "--bogus"}, {"nt", "--format"}, {"nt", "-format"}, {"format", "--style"},
		{"find", "--colour", "red"}, {"route", "--map"}, {"short", "--country"},
		{"serve", "--addr"}, {"serve", "--demo=maybe"}, {"call", "--timeout", "soon", "GET", "/time"},
		{"portdb", "build", "--regions"}, {"data", "check", "--bogus"}, {"config", "check", "--bogus"},
		{"version", "--short"}, {"plan", "verify", "--bogus"},
	} {
		code, _, errOut := runCLI(t, nil, args...)
		require.Equal(t, exitUsage, code, "%v: %s", args, errOut)
		first, _, _ := strings.Cut(errOut, "\n")
		require.NotRegexp(t, oneDash, first, args)
		require.Contains(t, first, "--", args)
	}
	code, _, errOut := runCLI(t, nil, "call", "--timeout", "soon", "GET", "/time")
	require.Equal(t, exitUsage, code)
	require.Contains(t, errOut, `numen call: --timeout "soon": parse error`)
}
