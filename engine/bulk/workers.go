package bulk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/riverqueue/river"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/webhook"
)

// lookupWorker runs the lookups of one submission and queues its callbacks.
type lookupWorker struct {
	river.WorkerDefaults[lookupArgs]
	b *Bulk
}

// Timeout bounds one attempt by Options.RescueAfter. River cannot tell a
// job whose process died from one still running, so it takes over (rescues)
// only jobs that have run longer than their timeout; a job without one
// would stay running forever after a crash. An attempt cut short records
// the results it has (see Work), and the next attempt looks up the rest.
func (w *lookupWorker) Timeout(*river.Job[lookupArgs]) time.Duration { return w.b.o.RescueAfter }

// collector is the engine's sink during a job: it keeps the job's records
// for one store.RecordAll.
type collector struct {
	mu      sync.Mutex
	records []engine.Record
}

func (c *collector) Record(ctx context.Context, r engine.Record) error {
	c.mu.Lock()
	c.records = append(c.records, r)
	c.mu.Unlock()
	return nil
}

// Work looks up the numbers of a submission that no earlier attempt
// recorded, records them, and queues the callback with every result in
// submission order.
func (w *lookupWorker) Work(ctx context.Context, job *river.Job[lookupArgs]) error {
	b, args := w.b, job.Args
	acct, ok := b.o.Account(args.Account)
	if !ok {
		return fmt.Errorf("bulk job %d: account %q: %w", job.ID, args.Account, errAccountGone)
	}
	bodies, err := b.recorded(ctx, job)
	if err != nil {
		return err
	}
	var todo []item
	for _, it := range args.Items {
		if _, ok := bodies[it.ID]; !ok {
			todo = append(todo, it)
		}
	}
	if len(todo) > 0 {
		if err := b.lookUp(ctx, job, acct, todo, bodies); err != nil {
			return err
		}
	}
	// The callback, in submission order.
	results := make([]json.RawMessage, 0, len(args.Items))
	for _, it := range args.Items {
		body, ok := bodies[it.ID]
		if !ok {
			return fmt.Errorf("bulk job %d: result %s missing after recording", job.ID, it.ID)
		}
		if args.Product == engine.ProductNT && acct.LegacyNTKeys {
			var r apiv2.NTResult
			if err := json.Unmarshal(body, &r); err != nil {
				return err
			}
			if body, err = webhook.LegacyNT(&r, "ASYNC API"); err != nil {
				return err
			}
		}
		results = append(results, body)
	}
	payload, err := webhook.Payload(string(args.Product), results)
	if err != nil {
		return err
	}
	return b.queueDeliveries(ctx, job, payload, len(results))
}

// recorded returns the results that earlier attempts of the job recorded,
// by id, to be reused. The first attempt has none, and asks the store
// nothing: River counts an attempt when it takes the job, so a job run
// again after a crash or a failure is at its second attempt or later.
func (b *Bulk) recorded(ctx context.Context, job *river.Job[lookupArgs]) (map[string]json.RawMessage, error) {
	if job.Attempt <= 1 {
		return make(map[string]json.RawMessage, len(job.Args.Items)), nil
	}
	ids := make([]string, len(job.Args.Items))
	for i, it := range job.Args.Items {
		ids[i] = it.ID
	}
	bodies, err := b.o.Store.Bodies(ctx, ids)
	if err != nil {
		return nil, err
	}
	if bodies == nil {
		bodies = make(map[string]json.RawMessage, len(ids))
	}
	return bodies, nil
}

// lookUp runs the lookups of todo, Options.Parallel at once, records their
// results in one store.RecordAll and adds their bodies to bodies. An
// attempt cut short (ctx ended, a lookup failed) records the results it
// has: the next attempt reuses them.
func (b *Bulk) lookUp(ctx context.Context, job *river.Job[lookupArgs], acct *account.Account, todo []item, bodies map[string]json.RawMessage) error {
	sink := &collector{}
	err := b.lookUpAll(ctx, b.o.Engine.WithSink(sink), acct, job.Args, todo)
	if cerr := ctx.Err(); cerr != nil {
		err = cerr // the attempt's end first, as the cause
	}
	if err != nil {
		// Keep what was looked up (and charged for) before the attempt
		// ended: the next attempt reuses it.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		rerr := b.o.Store.RecordAll(rctx, sink.records)
		cancel()
		engine.SettleRecords(acct.Profile, sink.records, rerr == nil)
		if rerr != nil {
			return fmt.Errorf("bulk job %d: %w (and recording the %d results looked up: %v)", job.ID, err, len(sink.records), rerr)
		}
		return fmt.Errorf("bulk job %d: %w (%d of %d results looked up and recorded)", job.ID, err, len(sink.records), len(todo))
	}
	err = b.o.Store.RecordAll(ctx, sink.records)
	// The lookups' budget reservations end once their results are stored
	// (or failed to be): not when the collector took them.
	engine.SettleRecords(acct.Profile, sink.records, err == nil)
	if err != nil {
		return fmt.Errorf("bulk job %d: recording %d results: %w", job.ID, len(sink.records), err)
	}
	for _, r := range sink.records {
		body := r.JSON // the engine encodes every record it sinks
		if body == nil {
			body = r.Result.AppendJSON(nil)
		}
		bodies[r.ID] = body
	}
	if job.Args.Product == engine.ProductNT && b.o.Metrics != nil {
		for _, r := range sink.records {
			b.o.Metrics.ObserveLookup("NT", r.Result.(*apiv2.NTResult).QueryStatus)
		}
	}
	return nil
}

// lookUpAll runs the lookups of todo through eng, Options.Parallel at once,
// until all are done or ctx ends; it returns the first lookup's error.
func (b *Bulk) lookUpAll(ctx context.Context, eng *engine.Engine, acct *account.Account, args lookupArgs, todo []item) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     = make(chan item)
	)
	for range min(b.o.Parallel, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range next {
				req := engine.Request{Number: it.Number, Country: args.Country, Route: args.Route, Storage: args.Storage, Async: true, ID: it.ID}
				var err error
				switch args.Product {
				case engine.ProductNT:
					_, err = eng.NTLookup(ctx, acct.Profile, req)
				default:
					var ans engine.Answer[*apiv2.HLRResult]
					ans, err = eng.HLRLookup(ctx, acct.Profile, req)
					if err == nil && b.o.Metrics != nil {
						b.o.Metrics.ObserveLookup("HLR", ans.Result.ProcessingStatus)
					}
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for _, it := range todo {
		select {
		case next <- it:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return firstErr
}

// queueDeliveries stores the callback and queues one delivery per URL, in
// one transaction (store.Queue.Dispatch).
func (b *Bulk) queueDeliveries(ctx context.Context, job *river.Job[lookupArgs], payload []byte, n int) error {
	args := job.Args
	// The batch id is kept in the job, so that a job that runs again
	// after a crash between the dispatch and its completion cannot queue
	// twice; it is random, so that two deployments never send one id.
	batch := &store.Batch{
		ID: batchID(job.ID, &args), Account: args.Account, Product: string(args.Product), Results: n,
		Body: payload, URLs: args.WebhookURLs, Created: b.o.Clock(),
	}
	jobs := make([]river.InsertManyParams, len(args.WebhookURLs))
	for i, u := range args.WebhookURLs {
		jobs[i] = river.InsertManyParams{Args: deliveryArgs{Batch: batch.ID, Account: args.Account, URL: u}}
	}
	b.callbacks.put(batch.ID, payload, len(jobs))
	if err := b.o.Store.Dispatch(ctx, batch, jobs); err != nil {
		b.callbacks.drop(batch.ID)
		return fmt.Errorf("bulk: %w", err)
	}
	return nil
}

const (
	// callbackCacheBytes bounds the callback bodies a callbackCache holds:
	// about 64 callbacks of 1000 NT results.
	callbackCacheBytes = 64 << 20
	// callbackCacheAge is how long a body is kept for deliveries that do
	// not come here: a job run again, whose dispatch queued nothing, or
	// deliveries that another node of a PostgreSQL cluster took. Older
	// bodies are dropped at the next put.
	callbackCacheAge = time.Minute
)

// callbackCache holds the bodies of the callbacks this process queued until
// each of their deliveries has taken it, so that a delivery's first attempt
// does not read the body back from the store (one round trip on the queue's
// connection per delivery, shared with River's fetches and completions).
// A delivery that finds nothing (after a restart, at a retry, with the
// cache full or the body older than callbackCacheAge) reads the stored
// body, which is the same bytes. Safe for concurrent use.
type callbackCache struct {
	mu      sync.Mutex
	entries map[string]*callbackEntry
	size    int
}

type callbackEntry struct {
	body  []byte
	takes int // deliveries that have yet to take it
	added time.Time
}

// put keeps body for takes deliveries of batch id, when it fits.
func (c *callbackCache) put(id string, body []byte, takes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	for id, e := range c.entries {
		if now.Sub(e.added) > callbackCacheAge {
			delete(c.entries, id)
			c.size -= len(e.body)
		}
	}
	if takes <= 0 || c.size+len(body) > callbackCacheBytes {
		return
	}
	if c.entries == nil {
		c.entries = map[string]*callbackEntry{}
	}
	if _, ok := c.entries[id]; ok {
		return
	}
	c.entries[id] = &callbackEntry{body: body, takes: takes, added: now}
	c.size += len(body)
}

// take returns batch id's body for one delivery, if held; the last
// delivery's take releases it.
func (c *callbackCache) take(id string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	if !ok {
		return nil, false
	}
	if e.takes--; e.takes <= 0 {
		delete(c.entries, id)
		c.size -= len(e.body)
	}
	return e.body, true
}

// drop forgets batch id's body.
func (c *callbackCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[id]; ok {
		delete(c.entries, id)
		c.size -= len(e.body)
	}
}

// deliveryWorker posts one callback to one URL.
type deliveryWorker struct {
	river.WorkerDefaults[deliveryArgs]
	b *Bulk
}

// Timeout bounds one attempt: the receiver's 10 s, and the bookkeeping.
func (w *deliveryWorker) Timeout(*river.Job[deliveryArgs]) time.Duration {
	t := w.b.o.Sender.Timeout
	if t <= 0 {
		t = webhook.AckTimeout
	}
	return t + 30*time.Second
}

// NextRetry follows the spec's schedule: 1, 2, 4, ... 1024 minutes after
// the first, second, ... failed attempt.
func (w *deliveryWorker) NextRetry(job *river.Job[deliveryArgs]) time.Time {
	wait, ok := webhook.Retry(job.Attempt, w.b.o.Minute)
	if !ok {
		wait = time.Duration(webhook.Schedule[len(webhook.Schedule)-1]) * w.b.o.Minute
	}
	return time.Now().Add(wait)
}

func (w *deliveryWorker) Work(ctx context.Context, job *river.Job[deliveryArgs]) error {
	b, args := w.b, job.Args
	body, ok := b.callbacks.take(args.Batch)
	if !ok {
		batch, err := b.o.Store.Batch(ctx, args.Batch)
		if err != nil {
			return fmt.Errorf("delivery of %s: %w", args.Batch, err)
		}
		body = batch.Body
	}
	acct, ok := b.o.Account(args.Account)
	if !ok {
		b.mark(ctx, args, "failed", job.Attempt, 0, errAccountGone.Error())
		b.failed.Add(1) // after mark: whoever sees the count sees the state
		return river.JobCancel(fmt.Errorf("delivery of %s: account %q: %w", args.Batch, args.Account, errAccountGone))
	}
	b.attempts.Add(1)
	err := b.o.Sender.Send(ctx, webhook.Delivery{ID: args.Batch, URL: args.URL, Body: body, Key: acct.Key, Secrets: acct.Secrets})
	if err == nil {
		b.mark(ctx, args, "delivered", job.Attempt, 200, "")
		b.delivered.Add(1)
		return nil
	}
	status := 0
	var we *webhook.Error
	if errors.As(err, &we) {
		status = we.Status
	}
	if job.Attempt < job.MaxAttempts {
		b.mark(ctx, args, "pending", job.Attempt, status, err.Error())
		return err
	}
	b.mark(ctx, args, "failed", job.Attempt, status, err.Error())
	b.failed.Add(1)
	b.log.Warn("webhook delivery failed for good", "batch", args.Batch, "url", args.URL, "attempts", job.Attempt, "error", err)
	return err
}

// mark records a delivery's state; it is bookkeeping for reports and must
// not fail the delivery itself.
func (b *Bulk) mark(ctx context.Context, a deliveryArgs, state string, attempts, status int, msg string) {
	d := store.Delivery{Batch: a.Batch, URL: a.URL, State: state, Attempts: attempts, LastStatus: status, LastError: msg, Updated: b.o.Clock()}
	if err := b.o.Store.SetDelivery(context.WithoutCancel(ctx), d); err != nil {
		b.log.Warn("recording a delivery's state", "batch", a.Batch, "url", a.URL, "error", err)
	}
}
