package sqlitestore

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
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

// pruner is the goroutine that deletes segments (prune).
func (s *Store) pruner() {
	defer close(s.pruneDone)
	timer := time.NewTimer(s.opts.pruneEvery)
	defer timer.Stop()
	for {
		select {
		case <-s.stopCP:
			return
		case <-timer.C:
		}
		start := time.Now()
		s.prune(start)
		timer.Reset(max(s.opts.pruneEvery, 20*time.Since(start)))
	}
}

// prune deletes the segments that may go at now (see the pruner), and
// marks the database damaged when its check fails.
func (s *Store) prune(now time.Time) {
	if s.damaged.Load() != nil {
		return
	}
	s.idx.mu.Lock()
	first, limit := s.idx.firstSegment, s.idx.committedSegment
	s.idx.mu.Unlock()
	// The segments before limit that may go: older than the retention, or
	// past the size kept for it (counted from limit back).
	keep := uint64(s.opts.retentionBytes / max(s.opts.segmentSize, 1))
	var old []uint64
	for seg := first; seg < limit; seg++ {
		fi, err := os.Stat(filepath.Join(s.logDir, segmentName(seg)))
		if os.IsNotExist(err) {
			old = append(old, seg) // deleted already (an earlier prune that stopped half-way)
			continue
		}
		if err != nil || now.Sub(fi.ModTime()) < s.opts.retention && limit-seg <= keep {
			break
		}
		old = append(old, seg)
	}
	if len(old) == 0 {
		return
	}
	if err := s.syncDatabase(); err != nil {
		return // tried again at the next prune
	}
	s.verifying.Store(true)
	err := s.verify()
	s.verifying.Store(false)
	if err != nil {
		if isCorrupt(err) {
			s.markDamaged(err)
		}
		return
	}
	for _, seg := range old {
		if err := os.Remove(filepath.Join(s.logDir, segmentName(seg))); err != nil && !os.IsNotExist(err) {
			return
		}
		s.idx.mu.Lock()
		s.idx.firstSegment = seg + 1
		s.idx.mu.Unlock()
	}
}

// verify runs PRAGMA quick_check on a new read-only connection (so that it
// reads the file, not pages another connection has cached). A database
// that fails it is a SQLITE_CORRUPT error.
func (s *Store) verify() error {
	db, err := sql.Open("sqlite", dsn(s.path, s.opts, readerConn))
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
