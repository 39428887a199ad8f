package pgstore_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
)

// budgetCrashEnv tells the test binary, started again by
// TestBudgetKill, to be the spending node: TestBudgetHelperProcess spends
// account "acct" of that database until it is killed.
const budgetCrashEnv = "NUMEN_PGSTORE_BUDGET_DSN"

// crashCap is the account's monthly cap in TestBudgetKill: 600 lookups at
// 0.0010.
const crashCap = engine.Money(6000)

// TestBudgetHelperProcess is the child of TestBudgetKill, not a test of
// its own.
func TestBudgetHelperProcess(t *testing.T) {
	dsn := os.Getenv(budgetCrashEnv)
	if dsn == "" {
		t.Skip("the child process of TestBudgetKill")
	}
	pgstore.SetLeaseTiming(t, time.Second, 0)
	s, err := pgstore.Open(t.Context(), dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	c := crashCap
	b := s.Budgets().Budget("acct", engine.Limits{MonthlyCap: &c})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 1000 {
				err := spend(t.Context(), s, b, "acct", fmt.Sprintf("child%dx%05d", w, i))
				if errors.Is(err, engine.ErrLimit) {
					return
				}
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(2)
				}
				os.Stdout.WriteString("ack\n")
			}
		})
	}
	wg.Wait()
	os.Exit(0)
}

// TestBudgetKill spends one account's cap from two nodes, one of them a
// process killed with SIGKILL while it spends: the cap is never passed,
// and once the dead node's lease has ended, the other spends exactly what
// is left, as the results say (nothing charged twice, nothing lost).
func TestBudgetKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dsn := pgtest.Database(t)
	ctx := t.Context()
	pgstore.SetLeaseTiming(t, time.Second, 0)
	// Migrate before the child starts, so that it does not wait.
	s, err := pgstore.Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestBudgetHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), budgetCrashEnv+"="+dsn)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())

	c := crashCap
	b := s.Budgets().Budget("acct", engine.Limits{MonthlyCap: &c})
	var mine int
	r := bufio.NewReader(stdout)
	acks, killed := 0, false
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if strings.HasPrefix(line, "ack") {
			acks++
		}
		// This node spends beside the child, one lookup per ack of the
		// child's.
		if mine < 100 {
			require.NoError(t, spend(ctx, s, b, "acct", fmt.Sprintf("parent%05d", mine)))
			mine++
		}
		if acks >= 200 && !killed {
			require.NoError(t, cmd.Process.Kill()) // SIGKILL on Unix
			killed = true
		}
	}
	err = cmd.Wait()
	require.True(t, killed, "the child ended before 200 lookups: %v\n%s", err, stderr.String())
	require.Error(t, err, "the child was killed")

	// What the child committed before it died is in the results (a
	// statement of its under way when the server notices the closed
	// socket commits or not: either way the results say).
	charged := chargedInDB(t, dsn, "acct")
	require.LessOrEqual(t, charged, crashCap)
	t.Logf("%d lookups acknowledged by the child, %d by this node; %s EUR charged at the kill", acks, mine, charged)

	// Spend until refused; the dead node's lease (a second) ends, then
	// spend again until refused: the cap exactly, whatever the child left.
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; chargedInDB(t, dsn, "acct") < crashCap; i++ {
		require.True(t, time.Now().Before(deadline), "the dead node's lease never ended: %s charged", chargedInDB(t, dsn, "acct"))
		err := spend(ctx, s, b, "acct", fmt.Sprintf("after%05d", i))
		if errors.Is(err, engine.ErrLimit) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		require.NoError(t, err)
	}
	require.Equal(t, crashCap, chargedInDB(t, dsn, "acct"))
	require.ErrorIs(t, spend(ctx, s, b, "acct", "over"), engine.ErrLimit)
}
