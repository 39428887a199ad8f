package pgstore_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/engine/store/storetest"
)

// crashDSNEnv tells the test binary, started again by TestCrashCountsExactly,
// to be the recording process: TestCrashHelperProcess records into that
// database until it is killed.
const crashDSNEnv = "NUMEN_PGSTORE_CRASH_DSN"

// crashIndexEnv is the child's indexer: "busy" indexes after every commit
// at once (most results are counted while it dies, some in the middle of
// a transaction), "late" waits an hour (every result is pending when it
// dies).
const crashIndexEnv = "NUMEN_PGSTORE_CRASH_INDEX"

// TestCrashHelperProcess is the child of TestCrashCountsExactly, not a
// test of its own.
func TestCrashHelperProcess(t *testing.T) {
	dsn := os.Getenv(crashDSNEnv)
	if dsn == "" {
		t.Skip("the child process of TestCrashCountsExactly")
	}
	if os.Getenv(crashIndexEnv) == "late" {
		pgstore.SetIndexDelay(t, time.Hour)
	} else {
		pgstore.SetIndexDelay(t, 0)
	}
	s, err := pgstore.Open(t.Context(), dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// Eight callers, each printing an id once Record has acknowledged it
	// (one write per line: a pipe does not split writes under 4 KiB),
	// into three reports of two accounts, some results in groups.
	const callers, each = 8, 20000 // bounded, far beyond what the parent waits for
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("c%dx%07d", c, i)
				p := store.Products()[i%3]
				r := storetest.NewRecord(fmt.Sprintf("acct-%d", c%2), fmt.Sprintf("report-%d", i%3), p, id,
					storetest.Base.Add(time.Duration(i)*time.Minute), i)
				if err := s.Record(t.Context(), r); err != nil {
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

// TestCrashCountsExactly kills a process that records and indexes with
// SIGKILL, then opens the database again: every result acknowledged is
// stored, and the reports and summaries count exactly the results stored,
// at once (what was pending is counted by the reads) and once the new
// store's indexer has indexed what the dead one left.
//
// Not parallel: it sets the index delay of the stores opened after it.
func TestCrashCountsExactly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	for _, index := range []string{"busy", "late"} {
		t.Run("index="+index, func(t *testing.T) { crashAndCount(t, index) })
	}
}

func crashAndCount(t *testing.T, index string) {
	dsn := pgtest.Database(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashDSNEnv+"="+dsn, crashIndexEnv+"="+index)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())

	const enough = 3000
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

	// The server ends the dead process's sessions when it notices the
	// closed sockets: a statement running then finishes, committed (the
	// commit of a statement outside a transaction comes before its answer
	// is sent), or fails, rolled back. Counted after that.
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n))
		return n == 0
	}, 30*time.Second, 10*time.Millisecond, "the dead process's sessions end")
	pgstore.SetIndexDelay(t, time.Hour) // the new store's indexer: only when asked
	s, err := pgstore.Open(t.Context(), dsn)
	require.NoError(t, err)
	defer s.Close()
	pending := pendingCount(t, dsn)
	stored := requireExact(t, s, dsn)
	t.Logf("%d results acknowledged before the kill, %d stored, %d of them pending", len(acked), stored, pending)
	require.GreaterOrEqual(t, stored, int64(len(acked)))
	bodies, err := s.Bodies(t.Context(), keys(acked))
	require.NoError(t, err)
	require.Len(t, bodies, len(acked), "every result acknowledged is stored")
	if index == "late" {
		require.Equal(t, stored, pending, "nothing was indexed")
	}

	indexed(t, s, dsn)
	require.Equal(t, stored, requireExact(t, s, dsn))
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
