package sqlitestore_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/sqlitestore"
)

type idleArgs struct{}

func (idleArgs) Kind() string                 { return "idle_test" }
func (idleArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: "idle_test"} }

type idleWorker struct {
	river.WorkerDefaults[idleArgs]
	worked chan struct{} // a send after each job
}

func (w *idleWorker) Work(ctx context.Context, _ *river.Job[idleArgs]) error {
	select {
	case w.worked <- struct{}{}:
	case <-ctx.Done(): // a job worked more often than the test waits for
	}
	return nil
}

// TestQueueSleepsWhenIdle: the working River client runs only while the
// queue has unfinished jobs: not after a start on an empty queue, from a
// job queued until the idle check finds the queue empty, and again for the
// next job.
func TestQueueSleepsWhenIdle(t *testing.T) {
	sqlitestore.SetIdleCheck(t, 100*time.Millisecond)
	s := open(t, t.TempDir())
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	ctx := t.Context()
	w := &idleWorker{worked: make(chan struct{}, 2)}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	require.NoError(t, s.StartQueue(ctx, store.QueueConfig{
		Workers: workers, Queues: map[string]river.QueueConfig{"idle_test": {MaxWorkers: 1}},
		PollInterval: 50 * time.Millisecond, RescueAfter: time.Minute,
	}))
	require.False(t, s.QueueWorking(), "nothing to work on: no client")
	for range 2 {
		_, err := s.Enqueue(ctx, nil, river.InsertManyParams{Args: idleArgs{}})
		require.NoError(t, err)
		require.True(t, s.QueueWorking(), "a job queued wakes the workers")
		select {
		case <-w.worked:
		case <-time.After(20 * time.Second):
			t.Fatal("no job worked within 20 s")
		}
		require.Eventually(t, func() bool { return !s.QueueWorking() }, 20*time.Second, 10*time.Millisecond, "idle again: the client stops")
	}
	require.NoError(t, s.StopQueue(ctx))
}
