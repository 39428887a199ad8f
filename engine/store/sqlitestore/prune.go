package sqlitestore

import (
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// The pruner deletes segments of the results log. A segment goes only
// when every result in it is committed in the database and flushed
// (syncDatabase), the segment is older than the retention (its last write;
// WithLogRetention, DefaultLogRetention) or the segments kept for the
// retention pass its size (WithLogRetentionBytes, DefaultLogRetentionBytes;
// the oldest go first, so that the log cannot fill the disk under a load
// the retention did not foresee), the database is not known to be
// damaged, and the database has just passed PRAGMA quick_check on a
// connection of its own (which reads the file, not a cache): a segment is
// never deleted while its results are only in a database that has not
// been verified since they were committed. Segments kept for the retention
// are what a restored backup of the database is caught up from: Open
// commits the results the log has past the backup's position.
//
// quick_check reads the whole database, so the pruner looks at most every
// pruneEvery, and after a check that took d, waits at least 20 d: it takes
// no more than a twentieth of the time of one connection.
const (
	// DefaultLogRetention is how long segments of the results log are
	// kept once their results are in the database (WithLogRetention): a
	// day, so that last night's backup of the database, restored, loses
	// nothing. The log takes about 850 bytes per result for that time.
	DefaultLogRetention = 24 * time.Hour
	// DefaultLogRetentionBytes bounds the segments kept for the retention
	// (WithLogRetentionBytes): 4 GiB, about 5 million results.
	DefaultLogRetentionBytes = 4 << 30
	pruneEvery               = time.Minute
)

// pruner is the goroutine that deletes segments (prune), with its state.
type pruner struct {
	path, logDir string
	opts         options // the retention, and the connections' settings
	idx          *indexer
	health       *health
	logger       *slog.Logger
	stop         <-chan struct{} // the checkpointer's
	done         chan struct{}   // closed when the pruner has returned
	verifying    atomic.Bool     // quick_check runs
}

func (p *pruner) init(s *Store, o options) {
	p.path, p.logDir, p.opts, p.idx, p.health, p.logger = s.path, s.logDir, o, &s.idx, &s.health, o.logger
	p.stop, p.done = s.cp.stop, make(chan struct{})
}

func (p *pruner) run() {
	defer close(p.done)
	timer := time.NewTimer(p.opts.pruneEvery)
	defer timer.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-timer.C:
		}
		start := time.Now()
		p.prune(start)
		if p.opts.afterPrune != nil {
			p.opts.afterPrune()
		}
		timer.Reset(max(p.opts.pruneEvery, 20*time.Since(start)))
	}
}

// prune deletes the segments that may go at now (see the pruner), and
// marks the database damaged when its check fails.
func (p *pruner) prune(now time.Time) {
	if p.health.damaged.Load() != nil {
		return
	}
	first, limit := p.idx.segments()
	// The segments before limit that may go: older than the retention, or
	// past the size kept for it (counted from limit back).
	keep := uint64(p.opts.retentionBytes / max(p.opts.segmentSize, 1))
	var old []uint64
	for seg := first; seg < limit; seg++ {
		fi, err := os.Stat(filepath.Join(p.logDir, segmentName(seg)))
		if os.IsNotExist(err) {
			old = append(old, seg) // deleted already (an earlier prune that stopped half-way)
			continue
		}
		if err != nil || now.Sub(fi.ModTime()) < p.opts.retention && limit-seg <= keep {
			break
		}
		old = append(old, seg)
	}
	if len(old) == 0 {
		return
	}
	if err := syncDatabase(p.path); err != nil {
		p.logger.Warn("flushing the database before pruning the results log; tried again at the next prune", "error", err)
		return
	}
	p.verifying.Store(true)
	err := p.verify()
	p.verifying.Store(false)
	if err != nil {
		p.logger.Error("checking the database before pruning the results log", "error", p.health.readFailed(err))
		return
	}
	for _, seg := range old {
		if err := os.Remove(filepath.Join(p.logDir, segmentName(seg))); err != nil && !os.IsNotExist(err) {
			p.logger.Warn("pruning the results log", "error", err)
			return
		}
		p.idx.pruned(seg + 1)
	}
}

// verify runs PRAGMA quick_check on a new read-only connection (so that it
// reads the file, not pages another connection has cached). A database
// that fails it is a SQLITE_CORRUPT error.
func (p *pruner) verify() error {
	db, err := sql.Open("sqlite", dsn(p.path, p.opts, readerConn))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	problems, err := quickCheck(db)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return &corruptError{problems: problems}
	}
	return nil
}

// quickCheck returns what PRAGMA quick_check finds wrong in db (nothing:
// it is consistent), at most ten lines.
func quickCheck(db *sql.DB) ([]string, error) {
	rows, err := db.Query("PRAGMA quick_check(10)")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	return problems, rows.Err()
}

// corruptError is a database that failed quick_check.
type corruptError struct{ problems []string }

func (e *corruptError) Error() string {
	return fmt.Sprintf("quick_check: %q", e.problems)
}
