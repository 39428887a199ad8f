package sqlitestore_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store/sqlitestore"
)

// crashDirEnv tells the test binary, started again by TestCrashKeepsAcknowledged,
// to be the writing process: TestCrashHelperProcess records into that
// directory until it is killed.
const crashDirEnv = "NUMEN_SQLITESTORE_CRASH_DIR"

// crashIndexEnv, when "late", has the child's indexer wait an hour before
// it commits: every result is still only in the log when the child dies.
const crashIndexEnv = "NUMEN_SQLITESTORE_CRASH_INDEX"

// TestCrashHelperProcess is the child of TestCrashKeepsAcknowledged, not a
// test of its own.
func TestCrashHelperProcess(t *testing.T) {
	t.Parallel()
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("the child process of TestCrashKeepsAcknowledged")
	}
	var opts []sqlitestore.Option
	if os.Getenv(crashIndexEnv) == "late" {
		opts = append(opts, sqlitestore.WithIndexDelay(time.Hour))
	}
	s, err := sqlitestore.Open(t.Context(), dir, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// Eight writers, each printing an id once Record has acknowledged it.
	// One write per line: a pipe does not split writes under 4 KiB, and
	// nothing is buffered in this process when it dies.
	const writers, each = 8, 50000 // bounded, far beyond what the parent waits for
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("c%dx%07d", w, i)
				if err := s.Record(t.Context(), record(id, i)); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				os.Stdout.WriteString("ack " + id + "\n")
			}
		})
	}
	wg.Wait()
	s.Close()
	os.Exit(0)
}

// TestCrashKeepsAcknowledged kills a process that is recording with
// SIGKILL and then finds every result it had acknowledged in the database,
// once with the indexer running as usual and once with every result still
// only in the log. (A killed process loses what it had not written to the
// OS; the flush of the log, which this cannot test, covers losing the
// machine.)
func TestCrashKeepsAcknowledged(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a child process")
	}
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no processes")
	}
	for _, index := range []string{"usual", "late"} {
		t.Run("index="+index, func(t *testing.T) { crashAndCount(t, index) })
	}
}

func crashAndCount(t *testing.T, index string) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashIndexEnv+"="+index)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())

	const enough = 500
	acked := map[string]bool{}
	r := bufio.NewReader(stdout)
	killed := false
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break // a last line without its newline was not acknowledged
		}
		require.NoError(t, err)
		if id, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "ack "); ok {
			acked[id] = true
		}
		if len(acked) >= enough && !killed {
			require.NoError(t, cmd.Process.Kill()) // SIGKILL on Unix
			killed = true
			// Keep reading: lines already in the pipe were acknowledged too.
		}
	}
	err = cmd.Wait()
	require.True(t, killed, "the child ended before %d acknowledgements: %v\n%s", enough, err, stderr.String())
	require.Error(t, err, "the child was killed")
	t.Logf("%d results acknowledged before the kill", len(acked))

	s := open(t, dir)
	defer s.Close()
	stored := map[string]bool{}
	for _, id := range storedIDs(t, s) {
		stored[id] = true
	}
	for id := range acked {
		require.True(t, stored[id], "%s was acknowledged and is lost", id)
	}
	// The reports table agrees with the results it counts.
	reports, err := s.Reports(t.Context(), "acct-1")
	require.NoError(t, err)
	var counted int64
	for _, rep := range reports {
		counted += rep.Count
	}
	require.EqualValues(t, len(stored), counted)
	require.GreaterOrEqual(t, len(stored), len(acked))
}
