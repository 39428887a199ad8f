package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/mnp/enum/enumtest"
)

// TestReadmeENUM runs the commands of the README's section "Portability
// over ENUM" as they are written (its shell code blocks, fenced
// "```shell" so that TestReadmeCommands, which runs the "```sh" blocks
// against its demo server, leaves them alone) in an empty folder: Knot
// serving a zone, numen serve with an enum backend asking it, and curl;
// then one numen serve as another's ENUM supplier, and stopped.
// The ports are replaced by free ones; "go build -o F ./cmd/numen" copies
// the numen built once for the test. The script's processes are stopped
// by their process group at the end.
func TestReadmeENUM(t *testing.T) {
	t.Parallel()
	bash := lookPathOrFail(t, "bash")
	lookPathOrFail(t, "curl")
	if _, err := exec.LookPath("kdig"); err != nil {
		t.Fatal("kdig is needed by this test and is missing: install the Debian package knot-dnsutils (.ci/deps installs it)")
	}
	if _, err := enumtest.KnotdPath(); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	script := readmeSection(t, string(readme), "## Portability over ENUM", "```shell")
	require.Contains(t, script, "knotd -c enum-demo/knot.conf")
	require.Contains(t, script, "mnp-lookup")
	require.Contains(t, script, "hlr-lookup")
	// Five different ports: a port just closed may be handed out again,
	// and two servers of the script on one port would never start.
	var ports []string
	taken := map[int]bool{}
	for _, port := range []string{"5300", "5301", "8090", "8091", "8092"} {
		p := freeTCPUDPPort(t)
		for tries := 0; taken[p] && tries < 50; tries++ {
			p = freeTCPUDPPort(t)
		}
		require.False(t, taken[p], "no fifth free port")
		taken[p] = true
		ports = append(ports, port, strconv.Itoa(p))
	}
	script = strings.NewReplacer(ports...).Replace(script) // one pass: a new port is not replaced again

	bin := filepath.Join(t.TempDir(), "numen")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	prelude := "set -euo pipefail\n" +
		`go() { if [ "$1" = build ] && [ "$2" = -o ] && [ "$4" = ./cmd/numen ]; then cp "$NUMEN_BIN" "$3"; else command go "$@"; fi; }` + "\n"
	cmd := exec.CommandContext(t.Context(), bash, "-c", prelude+script)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "NUMEN_BIN="+bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	err = cmd.Wait()
	require.NoError(t, err, "the README's commands:\n%s\noutput:\n%s", script, out.String())
	for _, want := range []string{
		`"msisdn":"+4915112345678","query_status":"OK","mccmnc":"26203","mcc":"262","mnc":"03","is_ported":true`,
		`"msisdn":"+4915112345679","query_status":"OK","mccmnc":"26201","mcc":"262","mnc":"01","is_ported":false`,
		// One Numen as the other's ENUM supplier, then gone.
		`"msisdn":"+4915123456789","query_status":"OK","mccmnc":"26203","mcc":"262","mnc":"03","is_ported":true`,
		`"routing_instruction":"STATIC:MP1:FAILOVER-2"`,
	} {
		require.Contains(t, out.String(), want)
	}
}

// readmeSection returns the lines of the code blocks fenced with fence
// in the README's section under heading (to the next heading of its
// level), as they are.
func readmeSection(t *testing.T, readme, heading, fence string) string {
	t.Helper()
	level := heading[:strings.IndexByte(heading, ' ')+1]
	var b strings.Builder
	inSection, inBlock := false, false
	sc := bufio.NewScanner(strings.NewReader(readme))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case inBlock && strings.HasPrefix(line, "```"):
			inBlock = false
		case inBlock:
			b.WriteString(line + "\n")
		case line == heading:
			inSection = true
		case inSection && strings.HasPrefix(line, level) && !strings.HasPrefix(line, level+"#"):
			inSection = false
		case inSection && line == fence:
			inBlock = true
		}
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, b.String(), "no %s block under %q in README.md", fence, heading)
	return b.String()
}

// freeTCPUDPPort returns a loopback port free for TCP and UDP when asked.
func freeTCPUDPPort(t *testing.T) int {
	t.Helper()
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		port := l.Addr().(*net.TCPAddr).Port
		u, err := net.ListenPacket("udp", l.Addr().String())
		l.Close()
		if err == nil {
			u.Close()
			return port
		}
	}
	t.Fatal("no loopback port free for TCP and UDP")
	return 0
}
