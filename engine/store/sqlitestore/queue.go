package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

// The queue (store.Queue) lives in the same file: River's tables, the
// idempotency keys and the webhook outbox (migration 3). Its connection is
// one of its own (riversqlite works best with one), whose commits wait for
// the disk (synchronous=FULL): a job queued is a receipt answered, and
// unlike results, jobs have no log to replay. It checkpoints the WAL
// itself as well (SQLite's automatic checkpoints), since River writes when
// no result does (its leader's heartbeat, say).
//
// # Idle
//
// One process owns a data directory, so the store knows when there is
// work: the working River client runs only while the queue holds
// unfinished jobs (core.Switch), started when a job is queued here and
// stopped by an idle check once a minute. It polls for jobs only while it
// runs: a SQLite database has no notifications to wait on. An idle server
// runs no client at all.

// idleCheck is how often the idle check runs (core.Switch).
var idleCheck = time.Minute

// openQueue opens the queue's connection (queue.go), migrates River's
// tables and makes the queue's clients.
func (s *Store) openQueue(ctx context.Context) error {
	db, err := sql.Open("sqlite", dsn(s.path, s.opts, queueConn))
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	s.qdb = db
	m, err := rivermigrate.New(riversqlite.New(db), nil)
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("migrating the queue's tables: %w", err)
	}
	s.Jobs = newDB(db)
	return s.InitQueue(riversqlite.New(db), true, idleCheck)
}
