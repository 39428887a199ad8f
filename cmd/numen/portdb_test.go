package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/mnp/remote"
)

const portedCSV = `number_or_range,mccmnc,network name
# ported numbers
+4915112345678,26203,Telefónica Germany
+4915112*,26202,Vodafone
+491511*,26201
+436641234567,23201,A1
`

// buildPortDB builds a database from csv with numen portdb build and
// returns its path.
func buildPortDB(t *testing.T, csv string, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "ported.csv"), filepath.Join(dir, "ported.db")
	require.NoError(t, os.WriteFile(in, []byte(csv), 0o644))
	args := append([]string{"portdb", "build", "-o", out}, flags...)
	code, stdout, stderr := runCLI(t, nil, append(args, in)...)
	require.Equal(t, exitOK, code, stderr)
	require.Empty(t, stdout)
	return out
}

func TestPortDBBuild(t *testing.T) {
	// Not parallel: t.Setenv.
	t.Setenv("SOURCE_DATE_EPOCH", "1748736000")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "ported.csv"), filepath.Join(dir, "ported.db")
	require.NoError(t, os.WriteFile(in, []byte(portedCSV), 0o644))
	code, stdout, stderr := runCLI(t, nil, "portdb", "build", "-regions", "DE,at", "-source", "test export", "-o", out, in)
	require.Equal(t, exitOK, code, stderr)
	require.Empty(t, stdout)
	require.Equal(t, "numen portdb build: wrote "+out+": 2 numbers, 2 ranges, 4 networks, regions AT,DE, 200 bytes (4 rows)\n", stderr)

	// Flags after the input; the input from standard input; the same file.
	again := filepath.Join(dir, "again.db")
	code, _, stderr = runCLI(t, strings.NewReader(portedCSV), "portdb", "build", "-", "-o", again, "-source", "test export", "-regions", "AT,DE")
	require.Equal(t, exitOK, code, stderr)
	a, err := os.ReadFile(out)
	require.NoError(t, err)
	b, err := os.ReadFile(again)
	require.NoError(t, err)
	require.Equal(t, a, b, "reproducible")

	code, stdout, stderr = runCLI(t, nil, "portdb", "verify", out)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, out+`: ok
format version: 1
created: 2025-06-01T00:00:00Z
source: test export
regions: AT,DE
numbers: 2
ranges: 2
networks: 4
size: 200 bytes
identity: `+identity(t, out)+`
`, stdout)
}

func TestPortDBBuildErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "ported.db")
	bad := filepath.Join(dir, "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("number_or_range,mccmnc\n# x\n+4915112345678,26201\n+4915112345679,2620\n"), 0o644))
	conflict := filepath.Join(dir, "conflict.csv")
	require.NoError(t, os.WriteFile(conflict, []byte("+4915112345678,26201\n+4915112345678,26202\n"), 0o644))
	good := filepath.Join(dir, "good.csv")
	require.NoError(t, os.WriteFile(good, []byte(portedCSV), 0o644))

	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"bad row", []string{"portdb", "build", "-o", out, bad}, exitError, "numen portdb build: " + bad + `:4: mccmnc "2620" must be 5 or 6 digits` + "\n"},
		{"conflict", []string{"portdb", "build", "-o", out, conflict}, exitError, "numen portdb build: " + conflict + ":2: number +4915112345678 maps to 26202 here but to 26201 on line 1\n"},
		{"not covered", []string{"portdb", "build", "-regions", "AT", "-o", out, good}, exitError, `:3: "+4915112345678" is in calling code +49, which the covered regions (AT) do not have`},
		{"missing input file", []string{"portdb", "build", "-o", out, filepath.Join(dir, "nope.csv")}, exitError, "no such file"},
		{"missing -o", []string{"portdb", "build", good}, exitUsage, "missing -o FILE"},
		{"missing input", []string{"portdb", "build", "-o", out}, exitUsage, "missing INPUT"},
		{"two inputs", []string{"portdb", "build", "-o", out, good, good}, exitUsage, "unexpected argument"},
		{"unknown region", []string{"portdb", "build", "-regions", "DE,XX", "-o", out, good}, exitUsage, `-regions: unknown region "XX"`},
		{"unknown flag", []string{"portdb", "build", "-x", "-o", out, good}, exitUsage, "unknown flag --x"},
		{"no subcommand", []string{"portdb"}, exitUsage, "missing subcommand"},
		{"unknown subcommand", []string{"portdb", "frob"}, exitUsage, `unknown subcommand "frob"`},
		{"lookup without file", []string{"portdb", "lookup"}, exitUsage, "missing database FILE"},
		{"verify without file", []string{"portdb", "verify"}, exitUsage, "missing database FILE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, nil, tt.args...)
			require.Equal(t, tt.code, code, stderr)
			require.Empty(t, stdout)
			require.Contains(t, stderr, tt.stderr)
			if tt.code == exitUsage {
				require.Contains(t, stderr, `Run "numen help portdb" for usage.`)
			}
			_, err := os.Stat(out)
			require.ErrorIs(t, err, os.ErrNotExist, "a failed build writes nothing")
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			for _, e := range entries {
				require.False(t, strings.HasSuffix(e.Name(), ".tmp"), "temporary file %s left", e.Name())
			}
		})
	}
}

func TestPortDBLookup(t *testing.T) {
	t.Parallel()
	path := buildPortDB(t, portedCSV, "-regions", "DE,AT")
	code, stdout, stderr := runCLI(t, nil, "portdb", "lookup", path,
		"+49 151 12345678", "+4915112000000", "004915119999999", "+4917612345678", "+43 664 1234567", "+33612345678", "hello")
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, `{"number":"+4915112345678","covered":true,"is_ported":true,"mccmnc":"26203","network":"Telefónica Germany","match":"number"}
{"number":"+4915112000000","covered":true,"is_ported":true,"mccmnc":"26202","network":"Vodafone","match":"range"}
{"number":"+4915119999999","covered":true,"is_ported":true,"mccmnc":"26201","network":null,"match":"range"}
{"number":"+4917612345678","covered":true,"is_ported":false,"mccmnc":null,"network":null,"match":null}
{"number":"+436641234567","covered":true,"is_ported":true,"mccmnc":"23201","network":"A1","match":"number"}
{"number":"+33612345678","covered":false,"is_ported":null,"mccmnc":null,"network":null,"match":null}
{"number":"hello","covered":false,"is_ported":null,"mccmnc":null,"network":null,"match":null}
`, stdout)
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		require.True(t, json.Valid([]byte(line)), line)
	}

	// From standard input, blank lines skipped.
	code, stdout2, stderr := runCLI(t, strings.NewReader("+49 151 12345678\n\n  +4915112000000  \n"), "portdb", "lookup", path)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, strings.Join(strings.Split(stdout, "\n")[:2], "\n")+"\n", stdout2)
}

// Coverage is by region: a database of US numbers does not cover Canada.
func TestPortDBLookupSharedCallingCode(t *testing.T) {
	t.Parallel()
	path := buildPortDB(t, "+12015550123,310260,T-Mobile US\n+1204*,302720\n", "-regions", "US")
	code, stdout, stderr := runCLI(t, nil, "portdb", "lookup", path, "+1 201 555 0123", "+1 204 555 0123")
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, `{"number":"+12015550123","covered":true,"is_ported":true,"mccmnc":"310260","network":"T-Mobile US","match":"number"}
{"number":"+12045550123","covered":false,"is_ported":null,"mccmnc":null,"network":null,"match":null}
`, stdout)

	code, _, stderr = runCLI(t, strings.NewReader("+12015550123,310260\n"), "portdb", "build", "-o", filepath.Join(t.TempDir(), "x.db"), "-")
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, "stdin:1: calling code +1 is shared by US, ")
	require.Contains(t, stderr, ": name the covered regions")
}

func TestPortDBDamaged(t *testing.T) {
	t.Parallel()
	path := buildPortDB(t, portedCSV)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[len(b)-3] ^= 0x40
	require.NoError(t, os.WriteFile(path, b, 0o644))
	code, stdout, stderr := runCLI(t, nil, "portdb", "verify", path)
	require.Equal(t, exitError, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "numen portdb verify: "+path+": portdb: corrupt database at offset")
	require.Contains(t, stderr, "body checksum")

	require.NoError(t, os.WriteFile(path, []byte("not a database"), 0o644))
	for _, args := range [][]string{{"portdb", "verify", path}, {"portdb", "lookup", path, "+4915112345678"}} {
		code, stdout, stderr = runCLI(t, nil, args...)
		require.Equal(t, exitError, code)
		require.Empty(t, stdout)
		require.Contains(t, stderr, "bad magic")
	}
}

// A damaged file is refused before any answer: every byte of the file
// (header, its tables, the samples and the entries), changed in several
// ways, makes lookup exit 1 naming the file, with nothing on standard
// output. (Open alone checks only the header: a changed entry used to
// answer with another network.)
func TestPortDBLookupDamaged(t *testing.T) {
	t.Parallel()
	path := buildPortDB(t, portedCSV, "-regions", "DE,AT")
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	numbers := []string{"+4915112345678", "+4915112000000", "+4915119999999", "+4917612345678", "+436641234567"}
	args := append([]string{"portdb", "lookup", path}, numbers...)
	code, stdout, stderr := runCLI(t, nil, args...)
	require.Equal(t, exitOK, code, stderr)
	require.Len(t, strings.Split(strings.TrimSpace(stdout), "\n"), len(numbers))

	for pos := range good {
		for _, flip := range []byte{0x01, 0x10, 0x80, 0xff} {
			b := bytes.Clone(good)
			b[pos] ^= flip
			require.NoError(t, os.WriteFile(path, b, 0o644))
			code, stdout, stderr := runCLI(t, nil, args...)
			require.Equal(t, exitError, code, "byte %d ^ %#x: answered\n%s", pos, flip, stdout)
			require.Empty(t, stdout, "byte %d ^ %#x", pos, flip)
			require.True(t, strings.HasPrefix(stderr, "numen portdb lookup: "+path+": portdb: "), "byte %d ^ %#x: %s", pos, flip, stderr)
		}
	}
	// Standard input too.
	b := bytes.Clone(good)
	b[len(b)-1] ^= 0x01
	require.NoError(t, os.WriteFile(path, b, 0o644))
	code, stdout, stderr = runCLI(t, strings.NewReader(strings.Join(numbers, "\n")), "portdb", "lookup", path)
	require.Equal(t, exitError, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "body checksum")
}

func TestPortDBHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"help", "portdb"}, {"portdb", "-h"}, {"portdb", "build", "-h"}, {"portdb", "help"}} {
		code, stdout, stderr := runCLI(t, nil, args...)
		require.Equal(t, exitOK, code, "%v", args)
		require.Empty(t, stderr)
		require.True(t, strings.HasPrefix(stdout, "Usage:\n  numen portdb build"), "%v: %s", args, stdout)
	}
	var out, errOut bytes.Buffer
	require.Equal(t, exitOK, run([]string{"help"}, strings.NewReader(""), &out, &errOut))
	require.Contains(t, out.String(), "  portdb    build, query and verify the offline portability database\n")
}

// A portability database truncated in place while numen serve answers
// from it: its lookups go to the route's next backend, the damage is
// logged once, counted in /metrics, and /healthz says so. (It was
// REJECTED or, where the cut left zeros without a fault, a wrong "not
// ported"; nothing logged, /healthz 200.)
func TestServePortDBTruncatedWhileServing(t *testing.T) {
	t.Parallel()
	primary := buildPortDB(t, portedCSV, "-regions", "DE,AT")
	fallback := buildPortDB(t, "+4915112*,26207,Fallback Mobile\n", "-regions", "DE")
	const secret = "portdb-secret-0123456789"
	logs := &syncBuffer{}
	r := startServerLogging(t, &serveConfig{
		Routes: []routeConfig{
			{Route: "MP1", Backends: []backendConfig{
				{Type: "portdb", File: primary, Reload: duration(10 * time.Millisecond)},
				{Type: "portdb", File: fallback, Name: "fallback"},
			}},
			{Route: "DS7", Backends: []backendConfig{{Type: "simnet"}}},
			{Route: "GT1", Backends: []backendConfig{{Type: "simnet"}}},
			{Route: "GT2", Backends: []backendConfig{{Type: "simnet"}}},
		},
		Accounts: []accountConfig{{Key: "acct", Secrets: []string{secret}}},
	}, false, logs)
	c, err := remote.New(r.base, "acct", secret)
	require.NoError(t, err)
	ctx := t.Context()
	get := func(path string) (int, string) {
		resp, err := http.Get(strings.TrimSuffix(r.base, "/api/v2") + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	status, body := get("/healthz")
	require.Equal(t, http.StatusOK, status, body)

	res, err := c.MNPLookup(ctx, "+4915112345671", &remote.LookupOptions{Route: "MP1"})
	require.NoError(t, err)
	require.Equal(t, "26202", *res.MCCMNC, "the primary answers")

	// Cut the file within its last page: no read faults, the rest of
	// the page reads as zeros.
	info, err := os.Stat(primary)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(primary, info.Size()-16))

	numbers := []string{"+4915112345678", "+4915112345679", "+4915112345670"}
	for _, n := range numbers {
		res, err := c.MNPLookup(ctx, n, &remote.LookupOptions{Route: "MP1"})
		require.NoError(t, err)
		require.Equal(t, "COMPLETED", res.ProcessingStatus, n)
		require.Equal(t, "26207", *res.MCCMNC, "%s: answered by the fallback", n)
		require.Equal(t, "Fallback Mobile", *res.PortedNetworkName, n)
		require.True(t, *res.IsPorted, n)
	}

	damageLines := regexp.MustCompile(`(?m)^.*level=ERROR msg="portability database damaged while serving.*$`).FindAllString(logs.String(), -1)
	require.Len(t, damageLines, 1, "logged once:\n%s", logs.String())
	require.Contains(t, damageLines[0], "route=MP1")
	require.Contains(t, damageLines[0], "file="+primary)
	require.Contains(t, damageLines[0], "the database file changed underneath while open")

	status, body = get("/metrics")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, "\nnumen_portdb_refused_lookups_total 3\n")
	require.Contains(t, body, "\nnumen_portdb_damaged 1\n")

	status, body = get("/healthz")
	require.Equal(t, http.StatusServiceUnavailable, status, body)
	require.Contains(t, body, "portability database damaged while serving")
	require.Contains(t, body, "portdb("+primary+")")
	require.Len(t, regexp.MustCompile(`level=ERROR msg="portability database damaged`).FindAllString(logs.String(), -1), 1, "still once")

	// A good file renamed over the damaged one is taken at the next
	// reload (the watcher logs it once swapped in): /healthz recovers and
	// the primary answers again.
	good := buildPortDB(t, "+4915112*,26203,Telefónica Germany\n", "-regions", "DE")
	require.NoError(t, os.Rename(good, primary))
	logs.waitFor(t, `level=INFO msg="portability database replaced: answering from the new file" route=MP1 backend=portdb(`+primary+`)`, 20*time.Second)
	status, body = get("/healthz")
	require.Equal(t, http.StatusOK, status, body)
	res, err = c.MNPLookup(ctx, "+4915112345672", &remote.LookupOptions{Route: "MP1"})
	require.NoError(t, err)
	require.Equal(t, "26203", *res.MCCMNC, "the primary answers again")
	status, body = get("/metrics")
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, body, "\nnumen_portdb_damaged 0\n")
}
