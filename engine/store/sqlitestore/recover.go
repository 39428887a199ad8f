package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// At Open, the database's position in the results log is checked against
// the segments present, before anything is committed:
//
//   - a database that is missing, empty (0 bytes) or without a schema,
//     beside a log that has segments, lost what it had indexed;
//   - every segment from the database's position to the last one must be
//     there: one missing (deleted, or the log restored from an older copy)
//     is results lost;
//   - a damaged record (log.go, "Damage") is results lost.
//
// Each of these is a problem: Open refuses to start, naming them and the
// way out (MismatchError), unless WithStartAnyway. A database behind the
// log with every segment since its position present is no problem: after
// a crash, and after a backup is restored (segments are kept for the
// retention, prune.go), Open commits the results the log has past the
// position, and reports how many (Recovery).

// Recovery is what Open found in the results log and did about it.
type Recovery struct {
	// Replayed counts the results of the log that Open committed to the
	// database (after a crash, or a restored backup of the database).
	Replayed int
	// Repaired names the records repaired of one flipped bit.
	Repaired []string
	// Unfinished names the write a crash interrupted at the end of the
	// log (never acknowledged), whose bytes Open copied aside and
	// cleared.
	Unfinished []string
	// Problems are what Open went past with WithStartAnyway: results
	// lost (without it, Open refuses with a MismatchError).
	Problems []string
}

// Recovery returns what Open found in the results log and did about it.
func (s *Store) Recovery() Recovery { return s.recovery }

// MismatchError is Open's refusal of a database that does not match its
// results log: Problems says why.
type MismatchError struct {
	Dir      string
	Problems []string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("the database does not match its results log, and starting would lose results:\n  - %s\n"+
		"Nothing was changed. If you have a backup of %s, stop and restore it first. "+
		"Then \"numen data check %s\" shows what is consistent and what is damaged, and \"numen data recover %s\" commits every result the log still has "+
		"(or start with --start-anyway to do the same at start)",
		strings.Join(e.Problems, "\n  - "), FileName, e.Dir, e.Dir)
}

// checkFresh refuses a new or empty database (what says why) beside a log
// that has segments, unless WithStartAnyway.
func (s *Store) checkFresh(what string) error {
	segs, err := listSegments(s.logDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read the results log: %w", err)
	}
	if len(segs) == 0 {
		return nil
	}
	problem := freshProblem(what, segs)
	if !s.opts.startAnyway {
		return &MismatchError{Dir: filepath.Dir(s.path), Problems: []string{problem}}
	}
	s.recovery.Problems = append(s.recovery.Problems, problem)
	return nil
}

// freshProblem says what a database that is new or empty (what says
// why) beside the segments segs lost.
func freshProblem(what string, segs []uint64) string {
	lost := "the log still holds every result since its first segment, but not the bulk jobs, idempotency keys and webhook outbox the database held"
	if segs[0] > 1 {
		lost = fmt.Sprintf("the results of %s are only in that database (restore it from a backup), and so were its bulk jobs, idempotency keys and webhook outbox", segmentRange(1, segs[0]-1))
	}
	return fmt.Sprintf("%s, but the results log has %s: the database that indexed them was lost or replaced; %s",
		what, segmentRange(segs[0], segs[len(segs)-1]), lost)
}

// segmentRange names the segments a to b.
func segmentRange(a, b uint64) string {
	if a == b {
		return "segment " + segmentName(a)
	}
	return fmt.Sprintf("segments %s to %s", segmentName(a), segmentName(b))
}

// logPlan is what the log holds past the database's position: read by
// planLog, for Open (recover) and Check alike.
type logPlan struct {
	pos      uint64 // the database's position: segment (0: none) ...
	posEnd   int64  // ... and offset
	segs     []uint64
	scans    map[uint64]segmentScan // the segments read, from the position on
	replay   []logged
	problems []string
	// lastRead and lastEnd: the last segment read and the end of its
	// records, where the writer appends (lastRead 0: none read).
	lastRead uint64
	lastEnd  int64
	tail     *damage // an unfinished write at the end of the last segment
}

// planLog reads the log in logDir from the database's position (pos,
// end) and finds the problems; fresh is a database that was new or empty
// (every segment present is read from its start then).
func planLog(logDir string, pos uint64, end int64, fresh bool) (*logPlan, error) {
	segs, err := listSegments(logDir)
	if err != nil {
		return nil, fmt.Errorf("read the results log: %w", err)
	}
	p := &logPlan{pos: pos, posEnd: end, segs: segs, scans: make(map[uint64]segmentScan)}
	first := max(pos, 1)
	if fresh && len(segs) > 0 {
		first = segs[0]
	}
	var read []uint64
	for _, n := range segs {
		if n >= first {
			read = append(read, n)
		}
	}
	// Every segment from the position on must be there.
	want := first
	if len(read) == 0 && pos > 0 {
		p.problems = append(p.problems, fmt.Sprintf("%s, where the database's position is (offset %d), is missing from %s: the results written after that offset are lost",
			segmentName(pos), end, logDir))
	}
	for _, n := range read {
		if n > want {
			p.problems = append(p.problems, fmt.Sprintf("%s missing from %s (the database's position is %s offset %d): the results in it are not in the database",
				segmentRange(want, n-1), logDir, segmentName(pos), end))
		}
		want = n + 1
	}
	for i, n := range read {
		from := int64(0)
		if n == pos {
			from = end
		}
		sc, err := readSegment(logDir, n, from)
		if err != nil {
			return nil, fmt.Errorf("read the results log: %w", err)
		}
		p.scans[n] = sc
		for _, d := range sc.damaged {
			if d.tail && i == len(read)-1 {
				p.tail = &d
				continue
			}
			if known(logDir, d) {
				continue
			}
			p.problems = append(p.problems, fmt.Sprintf("%s/%s: the results there are lost (the records after them are kept)", logDir, d))
		}
		p.replay = append(p.replay, sc.records...)
		p.lastRead, p.lastEnd = n, sc.end
	}
	return p, nil
}

// known reports whether damage d was copied aside by an earlier recovery
// (WithStartAnyway): it was reported then.
func known(logDir string, d damage) bool {
	_, err := os.Stat(filepath.Join(logDir, damagedDir, damagedName(d.segment, d.offset)))
	return err == nil
}

// keepDamaged copies the damaged bytes of d, from the segment's bytes
// data, to the log's damaged directory.
func keepDamaged(logDir string, d damage, data []byte) error {
	dir := filepath.Join(logDir, damagedDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, damagedName(d.segment, d.offset)), data[d.offset:d.offset+d.size], 0o600); err != nil {
		return err
	}
	return syncDir(dir)
}

// recover checks the database's position against the log (planLog),
// refuses a mismatch unless WithStartAnyway, commits to the database the
// results in the log past the position, and opens the log where its
// records end. Repairs of a flipped bit are written back to their
// segment; an unfinished write at the end of the last segment (a crash
// during its write, never acknowledged) is copied aside and zeroed.
// Segments are deleted by the pruner, not here.
func (s *Store) recover(ctx context.Context) error {
	if err := os.Mkdir(s.logDir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create the results log: %w", err)
	} else if err == nil {
		if err := syncDir(filepath.Dir(s.logDir)); err != nil {
			return err
		}
	}
	pos, end, err := readPosition(ctx, s.idx.db)
	if err != nil {
		return err
	}
	p, err := planLog(s.logDir, pos, end, s.fresh)
	if err != nil {
		return err
	}
	if len(p.problems) > 0 {
		if !s.opts.startAnyway {
			return &MismatchError{Dir: filepath.Dir(s.path), Problems: p.problems}
		}
		s.recovery.Problems = append(s.recovery.Problems, p.problems...)
	}
	for _, n := range slices.Sorted(maps.Keys(p.scans)) {
		sc := p.scans[n]
		for _, off := range sc.repaired {
			if err := writeBack(s.logDir, n, sc.data, off); err != nil {
				return fmt.Errorf("write back the repaired record at offset %d of %s: %w", off, segmentName(n), err)
			}
			s.recovery.Repaired = append(s.recovery.Repaired, fmt.Sprintf("%s at offset %d: one flipped bit, repaired", segmentName(n), off))
		}
		for _, d := range sc.damaged {
			if (p.tail == nil || d != *p.tail) && !known(s.logDir, d) {
				if err := keepDamaged(s.logDir, d, sc.data); err != nil {
					return fmt.Errorf("copy the damaged bytes of %s aside: %w", segmentName(n), err)
				}
			}
		}
	}
	if d := p.tail; d != nil {
		if err := keepDamaged(s.logDir, *d, p.scans[d.segment].data); err != nil {
			return fmt.Errorf("copy the unfinished record at the end of %s aside: %w", segmentName(d.segment), err)
		}
		if err := zeroTail(s.logDir, d.segment, d.offset, d.offset+d.size); err != nil {
			return fmt.Errorf("clear the unfinished record at the end of %s: %w", segmentName(d.segment), err)
		}
		s.recovery.Unfinished = append(s.recovery.Unfinished, fmt.Sprintf("%s: a write a crash interrupted (never acknowledged), copied to %s and cleared",
			d, filepath.Join(LogDir, damagedDir, damagedName(d.segment, d.offset))))
	}
	for start := 0; start < len(p.replay); start += indexBatch {
		if err := s.idx.commit(p.replay[start:min(start+indexBatch, len(p.replay))]); err != nil {
			return fmt.Errorf("commit %d results of the results log to the database: %w", len(p.replay), err)
		}
	}
	s.recovery.Replayed = len(p.replay)
	sync := datasync
	if s.opts.sync != nil {
		sync = func(*os.File) error { return s.opts.sync() }
	}
	next := pos + 1 // never pos itself: a segment the database has a position in
	if len(p.segs) > 0 {
		next = max(next, p.segs[len(p.segs)-1]+1)
	}
	if len(p.segs) > 0 && p.lastRead == p.segs[len(p.segs)-1] {
		s.logw.log, err = openLog(s.logDir, s.opts.segmentSize, p.lastRead, p.lastEnd, next, sync)
	} else {
		s.logw.log, err = openLog(s.logDir, s.opts.segmentSize, 0, 0, next, sync)
	}
	if err != nil {
		return fmt.Errorf("open the results log: %w", err)
	}
	if len(p.problems) > 0 && len(p.replay) == 0 {
		// Started anyway past a missing segment with nothing to commit:
		// the database's position moves to where the log goes on, so that
		// the next Open does not meet the same gap again.
		if _, err := s.idx.position.ExecContext(ctx, int64(s.logw.log.seg), s.logw.log.size); err != nil {
			return fmt.Errorf("move the database's position past the missing segments: %w", err)
		}
		pos = s.logw.log.seg
	}
	s.idx.firstSegment = s.logw.log.seg
	if len(p.segs) > 0 {
		s.idx.firstSegment = p.segs[0]
	}
	s.idx.committedSegment = pos
	if len(p.replay) > 0 {
		s.idx.committedSegment = p.replay[len(p.replay)-1].segment
	}
	return nil
}

// readPosition returns the database's position in the log (0, 0: none).
func readPosition(ctx context.Context, db *sql.DB) (uint64, int64, error) {
	var seg, end int64
	err := db.QueryRowContext(ctx, "SELECT segment, end_offset FROM log_position").Scan(&seg, &end)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, 0, fmt.Errorf("read the log position: %w", err)
	}
	return uint64(seg), end, nil
}

// writeBack writes the record at offset off of the segment's bytes data
// (repaired) back to segment n, and flushes it.
func writeBack(dir string, n uint64, data []byte, off int64) error {
	_, size, err := readRecord(data[off:])
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, segmentName(n)), os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.WriteAt(data[off:off+int64(size)], off); err != nil {
		return err
	}
	return f.Sync()
}
