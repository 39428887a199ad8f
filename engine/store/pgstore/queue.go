package pgstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/numenhq/numen/engine/store"
)

// The queue's River client runs only while the database's queue has
// unfinished jobs (core.Switch). An idle node runs no River client: it
// waits on LISTEN for River's insert notifications (listen), which any
// node's insert sends when it commits, and starts its client for them. So
// idle nodes do not poll, and a job queued on one node wakes them all.

// StartQueue starts working the queue: at once if it has unfinished jobs,
// else when a job is queued, here or on another node.
func (s *Store) StartQueue(ctx context.Context, cfg store.QueueConfig) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := s.Store.StartQueue(ctx, cfg); err != nil {
		return err
	}
	lctx, cancel := context.WithCancel(context.Background())
	s.stopListen, s.listening = cancel, make(chan struct{})
	go s.listen(lctx, s.listening)
	return nil
}

// listen waits for River's insert notifications on a connection of its own
// and wakes the workers for each, until ctx ends; it reconnects after a
// failure, and wakes the workers after each (re)connection for what it
// missed meanwhile.
func (s *Store) listen(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	channel := pgx.Identifier{s.schema + ".river_insert"}.Sanitize()
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
		if err == nil {
			if _, err = conn.Exec(ctx, "LISTEN "+channel); err == nil {
				s.Switch().Queued(ctx)
				for {
					if _, err = conn.WaitForNotification(ctx); err != nil {
						break
					}
					s.Switch().Queued(ctx)
				}
			}
			conn.Close(context.Background())
		}
		if ctx.Err() != nil {
			return
		}
		s.logger.Warn("listening for queued jobs; trying again in 1s", "error", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// StopQueue stops listening and working, waiting for running jobs until
// ctx ends (another node, or the next start, takes over those still
// running after RescueAfter).
func (s *Store) StopQueue(ctx context.Context) error {
	if s.stopListen != nil {
		s.stopListen()
		<-s.listening
		s.stopListen = nil
	}
	return s.Store.StopQueue(ctx)
}
