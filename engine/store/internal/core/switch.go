package core

import (
	"github.com/numenhq/numen/engine/store"

	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Runner is a queue's working client: a *river.Client is one.
type Runner interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

// Switch runs a queue's working client only while the queue has work, so
// that an idle server runs no client and polls nothing (a River client
// polls even with nothing to do, and its timers tick several times a
// second). The drivers share it:
//
//   - Start records the configuration and starts the client if the queue
//     has unfinished jobs (as after a crash, or with a retry scheduled for
//     later);
//   - Wake starts it when a job was queued: by this process after its
//     commit, or by another, as a notification tells;
//   - every IdleCheck, a running client is stopped if the queue has no
//     unfinished job left (and a stopped one started if it has, should a
//     wake have been missed).
//
// Wake and the idle check hold one lock, and a job is queued before its
// Wake: no job committed can find the client stopped for good.
type Switch struct {
	// Name names the store in errors.
	Name string
	// NewRunner makes the working client for a configuration.
	NewRunner func(store.QueueConfig) (Runner, error)
	// Unfinished reports whether the queue has a job that is not finished
	// (available, running, retryable, scheduled).
	Unfinished func(context.Context) (bool, error)
	// IdleCheck is how often a running client with nothing left to do is
	// stopped (default a minute).
	IdleCheck time.Duration

	mu      sync.Mutex
	cfg     *store.QueueConfig
	runner  Runner
	idle    chan struct{} // closed to stop the idle checks
	stopped chan struct{} // closed when they have stopped
}

// Start records cfg and starts the client if there is work.
func (w *Switch) Start(ctx context.Context, cfg store.QueueConfig) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cfg != nil {
		return fmt.Errorf("%s: the queue is started already", w.Name)
	}
	w.cfg = &cfg
	if err := w.wake(ctx); err != nil {
		w.cfg = nil
		return err
	}
	every := w.IdleCheck
	if every <= 0 {
		every = time.Minute
	}
	w.idle, w.stopped = make(chan struct{}), make(chan struct{})
	go w.checkIdle(every, w.idle, w.stopped)
	return nil
}

// Wake starts the client, if the queue is started and has work, whatever
// becomes of ctx: call it after a job was committed.
func (w *Switch) Wake(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.wake(ctx)
}

// wake is Wake with w.mu held.
func (w *Switch) wake(ctx context.Context) error {
	if w.cfg == nil || w.runner != nil {
		return nil
	}
	work, err := w.Unfinished(ctx)
	if err != nil {
		return fmt.Errorf("%s: reading the queue: %w", w.Name, err)
	}
	if !work {
		return nil
	}
	r, err := w.NewRunner(*w.cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", w.Name, err)
	}
	if err := r.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("%s: starting the queue's workers: %w", w.Name, err)
	}
	w.runner = r
	return nil
}

// checkIdle stops the client, every period, when the queue has no
// unfinished job, and starts it when it has.
func (w *Switch) checkIdle(every time.Duration, idle <-chan struct{}, stopped chan<- struct{}) {
	defer close(stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-idle:
			return
		case <-t.C:
		}
		w.mu.Lock()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if w.runner == nil {
			_ = w.wake(ctx) // work that no wake saw
		} else if work, err := w.Unfinished(ctx); err == nil && !work {
			if err := w.runner.Stop(ctx); err == nil || errors.Is(err, context.Canceled) {
				w.runner = nil
			}
		}
		cancel()
		w.mu.Unlock()
	}
}

// Running reports whether the working client runs.
func (w *Switch) Running() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.runner != nil
}

// Queued wakes the client after a job was committed. A failure is logged
// (with the configured logger), not returned: the job is queued, and the
// next idle check starts the client for it.
func (w *Switch) Queued(ctx context.Context) {
	err := w.Wake(ctx)
	if err == nil {
		return
	}
	w.mu.Lock()
	cfg := w.cfg
	w.mu.Unlock()
	if cfg != nil && cfg.Logger != nil {
		cfg.Logger.Error("starting the queue's workers after a job was queued", "error", err)
	}
}

// Stop stops the idle checks and the client, waiting for running jobs
// until ctx ends (jobs still running are taken over after RescueAfter).
// Start may be called again.
func (w *Switch) Stop(ctx context.Context) error {
	w.mu.Lock()
	r, idle, stopped := w.runner, w.idle, w.stopped
	w.cfg, w.runner, w.idle = nil, nil, nil
	w.mu.Unlock()
	if idle != nil {
		close(idle)
		<-stopped
	}
	if r == nil {
		return nil
	}
	if err := r.Stop(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("%s: stopping the queue: %w", w.Name, err)
	}
	return nil
}
