package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store"
)

// QueueOpener returns a new, empty database for one test, as Opener does.
type QueueOpener func(t *testing.T) store.Database

// RunQueue runs the conformance suite of store.Queue against the databases
// open returns: idempotency claims, the outbox and the River client the
// store owns.
func RunQueue(t *testing.T, open QueueOpener) {
	t.Run("Claims", func(t *testing.T) { t.Parallel(); testClaims(t, open) })
	t.Run("ConcurrentClaims", func(t *testing.T) { t.Parallel(); testConcurrentClaims(t, open) })
	t.Run("Outbox", func(t *testing.T) { t.Parallel(); testOutbox(t, open) })
	t.Run("Work", func(t *testing.T) { t.Parallel(); testWork(t, open) })
}

func openDatabase(t *testing.T, open QueueOpener) store.Database {
	t.Helper()
	db := open(t)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	require.NoError(t, db.Ping(t.Context()))
	return db
}

// testArgs is the job of the suite's tests.
type testArgs struct {
	N int `json:"n"`
}

func (testArgs) Kind() string { return "storetest" }

func (testArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: "storetest"} }

// testWorker counts the jobs it works.
type testWorker struct {
	river.WorkerDefaults[testArgs]
	mu     sync.Mutex
	seen   map[int]int
	worked chan int // each job's N after its work, when there is room
}

func (w *testWorker) Work(ctx context.Context, job *river.Job[testArgs]) error {
	w.mu.Lock()
	w.seen[job.Args.N]++
	w.mu.Unlock()
	select {
	case w.worked <- job.Args.N:
	default:
	}
	return nil
}

func (w *testWorker) count() (jobs, runs int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, n := range w.seen {
		jobs++
		runs += n
	}
	return jobs, runs
}

func testClaims(t *testing.T, open QueueOpener) {
	db := openDatabase(t, open)
	ctx := t.Context()
	none, err := db.Claim(ctx, "acct", "key-1")
	require.NoError(t, err)
	require.Nil(t, none)
	c := &store.Claim{Account: "acct", Key: "key-1", BodyHash: []byte{1, 2, 3}, Receipt: []byte(`{"accepted_count":1}`), Created: Base}
	earlier, err := db.Enqueue(ctx, c, river.InsertManyParams{Args: testArgs{N: 1}})
	require.NoError(t, err)
	require.Nil(t, earlier, "a new key")
	got, err := db.Claim(ctx, "acct", "key-1")
	require.NoError(t, err)
	require.Equal(t, c, got)
	again := &store.Claim{Account: "acct", Key: "key-1", BodyHash: []byte{9}, Receipt: []byte(`{}`), Created: Base.Add(time.Second)}
	earlier, err = db.Enqueue(ctx, again, river.InsertManyParams{Args: testArgs{N: 2}})
	require.NoError(t, err)
	require.Equal(t, c, earlier, "the first claim stands")
	// Keys are per account; a claim without a job is allowed.
	other := &store.Claim{Account: "other", Key: "key-1", BodyHash: []byte{1}, Receipt: []byte(`{}`), Created: Base}
	earlier, err = db.Enqueue(ctx, other, river.InsertManyParams{})
	require.NoError(t, err)
	require.Nil(t, earlier)
}

// testConcurrentClaims: of concurrent submissions with one key, exactly one
// queues its job, and the others get its claim; none fails.
func testConcurrentClaims(t *testing.T, open QueueOpener) {
	db := openDatabase(t, open)
	ctx := t.Context()
	const n = 20
	var queued atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &store.Claim{Account: "acct", Key: "same", BodyHash: []byte{byte(i)}, Receipt: []byte(fmt.Sprintf(`{"n":%d}`, i)), Created: Base}
			earlier, err := db.Enqueue(ctx, c, river.InsertManyParams{Args: testArgs{N: i}})
			switch {
			case err != nil:
				errs <- err
			case earlier == nil:
				queued.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, int32(1), queued.Load(), "exactly one submission queued")
}

func testOutbox(t *testing.T, open QueueOpener) {
	db := openDatabase(t, open)
	ctx := t.Context()
	_, err := db.Batch(ctx, "wh_0")
	require.ErrorIs(t, err, store.ErrUnknownBatch)
	b := &store.Batch{ID: "wh_1", Account: "acct", Product: "NT", Results: 2, Body: []byte(`{"type":"NT","results":[1,2]}`),
		URLs: []string{"http://127.0.0.1:1/a", "http://127.0.0.1:1/b"}, Created: Base}
	require.NoError(t, db.Dispatch(ctx, b, nil))
	// Dispatched again (a lookup job run twice): nothing changes.
	require.NoError(t, db.Dispatch(ctx, &store.Batch{ID: "wh_1", Account: "acct", Product: "NT", Body: []byte(`{}`), URLs: []string{"http://127.0.0.1:1/c"}, Created: Base}, nil))
	got, err := db.Batch(ctx, "wh_1")
	require.NoError(t, err)
	require.Equal(t, b.Body, got.Body)
	require.Equal(t, 2, got.Results)
	ds, err := db.Deliveries(ctx, "acct", 10)
	require.NoError(t, err)
	require.Len(t, ds, 2)
	for _, d := range ds {
		require.Equal(t, store.DeliveryPending, d.State)
		require.Zero(t, d.Attempts)
	}
	require.NoError(t, db.SetDelivery(ctx, store.Delivery{Batch: "wh_1", URL: "http://127.0.0.1:1/b", State: store.DeliveryDelivered, Attempts: 2, LastStatus: 200, Updated: Base.Add(time.Minute)}))
	ds, err = db.Deliveries(ctx, "acct", 1)
	require.NoError(t, err)
	require.Equal(t, []store.Delivery{{Batch: "wh_1", URL: "http://127.0.0.1:1/b", State: store.DeliveryDelivered, Attempts: 2, LastStatus: 200, Updated: Base.Add(time.Minute)}}, ds)
	none, err := db.Deliveries(ctx, "other", 10)
	require.NoError(t, err)
	require.Empty(t, none)
}

// testWork queues jobs before and after the workers start, and from the
// dispatch of a batch, and requires each to be worked once.
func testWork(t *testing.T, open QueueOpener) {
	db := openDatabase(t, open)
	ctx := t.Context()
	_, err := db.Enqueue(ctx, nil, river.InsertManyParams{Args: testArgs{N: 1}})
	require.NoError(t, err)
	w := &testWorker{seen: map[int]int{}, worked: make(chan int, 16)}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	require.NoError(t, db.StartQueue(ctx, store.QueueConfig{
		Workers: workers, Queues: map[string]river.QueueConfig{"storetest": {MaxWorkers: 4}},
		PollInterval: 50 * time.Millisecond, RescueAfter: time.Minute,
	}))
	t.Cleanup(func() { require.NoError(t, db.StopQueue(context.Background())) })
	_, err = db.Enqueue(ctx, nil, river.InsertManyParams{Args: testArgs{N: 2}})
	require.NoError(t, err)
	b := &store.Batch{ID: "wh_2", Account: "acct", Product: "HLR", Body: []byte(`{}`), URLs: []string{"http://127.0.0.1:1/a"}, Created: Base}
	require.NoError(t, db.Dispatch(ctx, b, []river.InsertManyParams{{Args: testArgs{N: 3}}, {Args: testArgs{N: 4}}}))
	require.NoError(t, db.Dispatch(ctx, b, []river.InsertManyParams{{Args: testArgs{N: 5}}}), "dispatched before: queues nothing")
	// A last job, queued after the others: River fetches jobs in the
	// order they were scheduled, so once it is worked, every job queued
	// before it has been fetched, and StopQueue waits for fetched jobs to
	// finish. Then nothing else can come.
	_, err = db.Enqueue(ctx, nil, river.InsertManyParams{Args: testArgs{N: 6}})
	require.NoError(t, err)
	timeout := time.After(20 * time.Second)
	for last := false; !last; {
		select {
		case n := <-w.worked:
			last = n == 6
		case <-timeout:
			jobs, _ := w.count()
			t.Fatalf("%d jobs worked after 20 s; the last not yet", jobs)
		}
	}
	require.NoError(t, db.StopQueue(ctx))
	delete(w.seen, 6)
	jobs, runs := w.count()
	require.Equal(t, 4, jobs, "jobs 1-4 worked, 5 never queued")
	require.Equal(t, 4, runs, "each once")
}
