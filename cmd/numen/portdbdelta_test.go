package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/mnp/portdb"
)

// identity returns the identity of the database file at path, as
// numen portdb verify prints it.
func identity(t *testing.T, path string) string {
	t.Helper()
	db, err := portdb.Open(path)
	require.NoError(t, err)
	defer db.Close()
	id := db.Identity()
	const hex = "0123456789abcdef"
	b := make([]byte, 16)
	for i := 15; i >= 0; i-- {
		b[i], id = hex[id&15], id>>4
	}
	return string(b)
}

// newPortedCSV is portedCSV a day later: one number moved, one returned,
// one ported.
const newPortedCSV = `number_or_range,mccmnc,network name
+4915112345678,26201,Telekom
+4915112*,26202,Vodafone
+491511*,26201
+4915199999999,26203,Telefónica Germany
`

// numen portdb diff, apply and verify: the delta from one build to the
// next, verified alone and with its base, compacted into the next build
// byte for byte.
func TestPortDBDiffApplyVerify(t *testing.T) {
	// Not parallel: t.Setenv.
	t.Setenv("SOURCE_DATE_EPOCH", "1748736000")
	oldDB := buildPortDB(t, portedCSV, "-regions", "DE,AT", "-source", "export")
	newDB := buildPortDB(t, newPortedCSV, "-regions", "DE,AT", "-source", "export")
	dir := t.TempDir()
	delta := filepath.Join(dir, "1.delta")

	code, stdout, stderr := runCLI(t, nil, "portdb", "diff", oldDB, newDB, "-o", delta)
	require.Equal(t, exitOK, code, stderr)
	require.Empty(t, stdout)
	require.Equal(t, "numen portdb diff: wrote "+delta+" for base "+oldDB+" ("+identity(t, oldDB)+"): entries: 3 (2 ported or moved, 1 returned)\n", stderr)
	text, err := os.ReadFile(delta)
	require.NoError(t, err)
	require.Regexp(t, `^numen-portdb-delta 1
base `+identity(t, oldDB)+`
created 2025-06-01T00:00:00Z
network 26201 Telekom
network 26203 Telefónica Germany
\+436641234567 returned 2025-06-01T00:00:00Z
\+4915112345678 26201 2025-06-01T00:00:00Z
\+4915199999999 26203 2025-06-01T00:00:00Z
end 3 [0-9a-f]{8}
$`, string(text))

	code, stdout, stderr = runCLI(t, nil, "portdb", "verify", delta)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, delta+": ok (delta)\nbase: "+identity(t, oldDB)+"\ncreated: 2025-06-01T00:00:00Z\nentries: 3 (2 ported or moved, 1 returned)\n", stdout)

	code, stdout, stderr = runCLI(t, nil, "portdb", "verify", oldDB, delta)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, oldDB+": ok\n")
	require.Contains(t, stdout, delta+": ok (delta 1, created 2025-06-01T00:00:00Z)\nentries: 3 (2 ported or moved, 1 returned)\nnumbers the deltas change: 3 (")

	// lookup -deltas answers from the base and the deltas.
	code, stdout, stderr = runCLI(t, nil, "portdb", "lookup", "-deltas", dir, oldDB, "+4915112345678", "+436641234567", "+4915199999999")
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, `{"number":"+4915112345678","covered":true,"is_ported":true,"mccmnc":"26201","network":"Telekom","match":"number"}
{"number":"+436641234567","covered":true,"is_ported":false,"mccmnc":null,"network":null,"match":null}
{"number":"+4915199999999","covered":true,"is_ported":true,"mccmnc":"26203","network":"Telefónica Germany","match":"number"}
`, stdout)

	applied := filepath.Join(dir, "applied.db")
	code, stdout, stderr = runCLI(t, nil, "portdb", "apply", oldDB, delta, "-o", applied)
	require.Equal(t, exitOK, code, stderr)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "numen portdb apply: wrote "+applied+": 2 numbers, 2 ranges, 3 networks, regions AT,DE, ")
	a, err := os.ReadFile(applied)
	require.NoError(t, err)
	b, err := os.ReadFile(newDB)
	require.NoError(t, err)
	require.Equal(t, b, a, "apply makes what build makes from the same data")
	code, _, stderr = runCLI(t, nil, "portdb", "verify", applied)
	require.Equal(t, exitOK, code, stderr)
}

func TestPortDBDeltaErrors(t *testing.T) {
	t.Parallel()
	oldDB := buildPortDB(t, portedCSV, "-regions", "DE,AT")
	newDB := buildPortDB(t, newPortedCSV, "-regions", "DE,AT")
	ranges := buildPortDB(t, portedCSV+"+4916*,26201\n", "-regions", "DE,AT")
	dir := t.TempDir()
	delta := filepath.Join(dir, "1.delta")
	code, _, stderr := runCLI(t, nil, "portdb", "diff", oldDB, newDB, "-o", delta, "-time", "2026-11-26T12:00:00Z")
	require.Equal(t, exitOK, code, stderr)
	good, err := os.ReadFile(delta)
	require.NoError(t, err)
	cut := filepath.Join(dir, "cut.delta")
	require.NoError(t, os.WriteFile(cut, good[:len(good)-12], 0o644))
	out := filepath.Join(dir, "out")

	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"diff without -o", []string{"portdb", "diff", oldDB, newDB}, exitUsage, "diff: missing -o DELTA"},
		{"diff one file", []string{"portdb", "diff", oldDB, "-o", out}, exitUsage, "diff: want OLD and NEW database files"},
		{"diff bad time", []string{"portdb", "diff", "-time", "noon", oldDB, newDB, "-o", out}, exitUsage, `-time: "noon" is not an RFC 3339 time`},
		{"diff other ranges", []string{"portdb", "diff", oldDB, ranges, "-o", out}, exitError, "numen portdb diff: " + oldDB + " and " + ranges + ": portdb: the databases have other ranges: a delta carries numbers only; rebuild the base\n"},
		{"diff of a delta", []string{"portdb", "diff", delta, newDB, "-o", out}, exitError, "numen portdb diff: " + delta + ": portdb: corrupt database"},
		{"apply without delta", []string{"portdb", "apply", oldDB, "-o", out}, exitUsage, "apply: want BASE and at least one DELTA file"},
		{"apply without -o", []string{"portdb", "apply", oldDB, delta}, exitUsage, "apply: missing -o FILE"},
		{"apply to another base", []string{"portdb", "apply", newDB, delta, "-o", out}, exitError, "numen portdb apply: " + newDB + ": portdb: delta for another base database: " + delta + " applies to base " + identity(t, oldDB) + ", this database is " + identity(t, newDB) + "\n"},
		{"apply a cut delta", []string{"portdb", "apply", oldDB, cut, "-o", out}, exitError, "numen portdb apply: " + cut + ":"},
		{"verify a cut delta", []string{"portdb", "verify", cut}, exitError, "numen portdb verify: " + cut + ":"},
		{"verify two databases", []string{"portdb", "verify", oldDB, newDB}, exitError, "numen portdb verify: " + newDB + ":1: not a delta file"},
		{"verify delta then base", []string{"portdb", "verify", delta, oldDB}, exitUsage, "verify: " + delta + " is a delta file: give its base database first"},
		{"lookup with a missing deltas directory", []string{"portdb", "lookup", "-deltas", filepath.Join(dir, "nope"), oldDB, "+4915112345678"}, exitError, "numen portdb lookup: deltas: open " + filepath.Join(dir, "nope")},
		{"lookup with a damaged delta", []string{"portdb", "lookup", "-deltas", dir, oldDB, "+4915112345678"}, exitError, "numen portdb lookup: " + cut + ":9: "},
		{"verify with another base", []string{"portdb", "verify", newDB, delta}, exitError, "applies to base " + identity(t, oldDB) + ", this database is " + identity(t, newDB)},
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
			require.ErrorIs(t, err, os.ErrNotExist, "a failed command writes nothing")
		})
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.False(t, strings.HasSuffix(e.Name(), ".tmp"), "temporary file %s left", e.Name())
	}
}
