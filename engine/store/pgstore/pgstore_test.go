package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/engine/store/storetest"
)

func open(t *testing.T) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(t.Context(), pgtest.Database(t))
	require.NoError(t, err)
	return s
}

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.Store { return open(t) })
}

func TestQueueConformance(t *testing.T) {
	t.Parallel()
	storetest.RunQueue(t, func(t *testing.T) store.Database { return open(t) })
}

type wakeArgs struct{}

func (wakeArgs) Kind() string                 { return "wake_test" }
func (wakeArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: "wake_test"} }

type wakeWorker struct {
	river.WorkerDefaults[wakeArgs]
	worked chan struct{} // a send after each job
}

func (w *wakeWorker) Work(ctx context.Context, _ *river.Job[wakeArgs]) error {
	select {
	case w.worked <- struct{}{}:
	case <-ctx.Done(): // a job worked more often than the test waits for
	}
	return nil
}

// TestIdleNodeWakesOnNotify: a node with nothing to do runs no River
// client; a job queued on another node wakes it through LISTEN/NOTIFY, and
// once the queue is empty again it stops.
func TestIdleNodeWakesOnNotify(t *testing.T) {
	pgstore.SetIdleCheck(t, 200*time.Millisecond)
	url := pgtest.Database(t)
	ctx := t.Context()
	a, err := pgstore.Open(ctx, url)
	require.NoError(t, err)
	defer a.Close()
	b, err := pgstore.Open(ctx, url)
	require.NoError(t, err)
	defer b.Close()
	w := &wakeWorker{worked: make(chan struct{}, 2)}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	// A long poll: only the notification can wake b soon.
	require.NoError(t, b.StartQueue(ctx, store.QueueConfig{
		Workers: workers, Queues: map[string]river.QueueConfig{"wake_test": {MaxWorkers: 1}},
		PollInterval: time.Hour, RescueAfter: time.Minute,
	}))
	require.False(t, b.QueueWorking(), "idle: no client")
	for range 2 {
		_, err := a.Enqueue(ctx, nil, river.InsertManyParams{Args: wakeArgs{}})
		require.NoError(t, err)
		select {
		case <-w.worked:
		case <-time.After(20 * time.Second):
			t.Fatal("b works the job a queued: not within 20 s")
		}
		require.Eventually(t, func() bool { return !b.QueueWorking() }, 20*time.Second, 10*time.Millisecond, "idle again: b's client stops")
	}
	require.NoError(t, b.StopQueue(ctx))
}
