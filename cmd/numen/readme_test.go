package main

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// readmeSkipped are the README's commands that TestReadmeCommands does not
// run, each with the reason: what stands in for it.
var readmeSkipped = []struct{ prefix, why string }{
	{"go run ./cmd/numen serve ", "the test starts the demo server itself (serve's flags have tests of their own)"},
	{".ci/test", "it is what runs this test"},
	{"PGURL=$(.ci/postgres start)", "the test command starts PostgreSQL with .ci/postgres, and TestThreeNodesOnPostgreSQL runs three sidecars on it"},
	{"go run ./wasm/build ", "TestBuild (wasm/build) builds the package"},
	{"kdig ", "the demo the test starts has no ENUM server: TestServeEnumProcess asks numen serve --demo --enum --enum-portdb with kdig, and TestKdig (engine/enumserver) compares kdig's answers with Knot's"},
}

// TestReadmeCommands runs the shell commands of README.md as they are
// written, in one bash session and in their order, from a folder that
// holds the repository's files, against a demo server that this test
// starts with the README's data folder (numen-data) and a webhook
// receiver. "go run ./cmd/numen" runs numen built once for the test. Every
// command must succeed and no answer may be an error.
func TestReadmeCommands(t *testing.T) {
	t.Parallel()
	bash := lookPathOrFail(t, "bash")
	for _, tool := range []string{"curl", "openssl"} {
		lookPathOrFail(t, tool) // the README signs a request by hand with them
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	script, ran := readmeScript(t, string(readme))
	require.GreaterOrEqual(t, ran, 8, "commands to run:\n%s", script)

	bin := filepath.Join(t.TempDir(), "numen")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	// The repository's files, and the demo's data folder where the README
	// says it is.
	ws := t.TempDir()
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	for _, e := range entries {
		if e.Name() != "numen-data" {
			require.NoError(t, os.Symlink(filepath.Join(root, e.Name()), filepath.Join(ws, e.Name())))
		}
	}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(hook.Close)
	startServer(t, &serveConfig{Data: filepath.Join(ws, "numen-data"), demoWebhook: hook.URL + "/results"}, true)

	cmd := exec.CommandContext(t.Context(), bash, "-c", script)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "NUMEN_BIN="+bin)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the README's commands:\n%s\noutput:\n%s", script, out)
	require.NotContains(t, string(out), `"errors"`, "an answer is an error:\n%s", out)
	for _, want := range []string{`"processing_status":"COMPLETED"`, `"number_type":"LANDLINE"`, `"routing_instruction":"AUTO:MP1:MNP_FALLBACK"`, `"accepted_count":2`} {
		require.Contains(t, string(out), want, "output:\n%s", out)
	}
}

// readmeScript returns the README's shell commands (the lines of its sh
// code blocks, continued lines joined), less readmeSkipped, as one bash
// script, and how many commands it runs.
func readmeScript(t *testing.T, readme string) (string, int) {
	var b strings.Builder
	b.WriteString("set -euo pipefail\n")
	// go run ./cmd/numen runs the numen built for the test.
	b.WriteString(`go() { if [ "$1" = run ] && [ "$2" = ./cmd/numen ]; then shift 2; "$NUMEN_BIN" "$@"; echo; else command go "$@"; fi; }` + "\n")
	ran := 0
	in := false
	var line strings.Builder
	sc := bufio.NewScanner(strings.NewReader(readme))
	for sc.Scan() {
		text := sc.Text()
		switch {
		case text == "```sh":
			in = true
			continue
		case strings.HasPrefix(text, "```"):
			in = false
			continue
		case !in:
			continue
		}
		if strings.HasSuffix(text, `\`) {
			line.WriteString(strings.TrimSuffix(text, `\`))
			continue
		}
		line.WriteString(text)
		command := strings.TrimSpace(line.String())
		line.Reset()
		if command == "" || strings.HasPrefix(command, "#") || skipped(t, command) {
			continue
		}
		b.WriteString(command + "\n")
		ran++
	}
	require.NoError(t, sc.Err())
	return b.String(), ran
}

func skipped(t *testing.T, command string) bool {
	for _, s := range readmeSkipped {
		if strings.HasPrefix(command+" ", s.prefix) {
			t.Logf("not run: %s (%s)", command, s.why)
			return true
		}
	}
	return false
}

// lookPathOrFail finds a program or fails the test naming it.
func lookPathOrFail(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is needed by this test and is missing: run .ci/deps, which installs it", name)
	}
	return p
}
