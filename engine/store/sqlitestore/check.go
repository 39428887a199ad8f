package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CheckReport is what Check found in a data directory: Facts are what is
// consistent, Problems what is damaged, missing or would stop Open.
type CheckReport struct {
	Facts    []string
	Problems []string
}

// dbState is what inspectDatabase found in the database file.
type dbState struct {
	fresh    bool   // missing, empty or without a schema
	what     string // why fresh: "missing", "empty (0 bytes)", ...
	damage   []string
	version  int
	pos      uint64
	posEnd   int64
	results  int64
	reported int64 // the sum of the reports' counts
}

// inspectDatabase reads the database at path without changing it: its
// schema version, log position and result counts, and PRAGMA
// quick_check. A database SQLite cannot read is damage, not an error.
func inspectDatabase(ctx context.Context, path string, o options) (dbState, error) {
	var st dbState
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		st.fresh, st.what = true, "missing"
		return st, nil
	case err != nil:
		return st, err
	case fi.Size() == 0:
		st.fresh, st.what = true, "empty (0 bytes)"
		return st, nil
	}
	// query_only, not mode=ro: a read-only connection cannot create the
	// -shm file a WAL database needs when no other connection has it.
	db, err := sql.Open("sqlite", dsn(path, o, readerConn))
	if err != nil {
		return st, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	damaged := func(err error) (dbState, error) {
		if isCorrupt(err) {
			st.damage = append(st.damage, err.Error())
			return st, nil
		}
		return st, err
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&st.version); err != nil {
		return damaged(err)
	}
	if st.version == 0 {
		st.fresh, st.what = true, "a new database (no schema)"
		return st, nil
	}
	problems, err := quickCheck(db)
	if err != nil {
		return damaged(err)
	}
	if len(problems) > 0 {
		st.damage = problems
		return st, nil
	}
	if st.version >= 2 {
		if st.pos, st.posEnd, err = readPosition(ctx, db); err != nil {
			return damaged(err)
		}
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*), (SELECT coalesce(sum(count), 0) FROM reports) FROM results").Scan(&st.results, &st.reported); err != nil {
		return damaged(err)
	}
	return st, nil
}

// Check reads the store in dir without changing it and reports what is
// consistent and what is not: the database (PRAGMA quick_check, its
// position in the results log, its results against its reports), and the
// log from that position (every segment present, every record readable).
// The problems are those that make Open refuse (see WithStartAnyway), and
// damage Open would repair (one flipped bit). The directory must not be
// open by a running store.
func Check(dir string) (CheckReport, error) {
	var r CheckReport
	dir, err := filepath.Abs(dir)
	if err != nil {
		return r, fmt.Errorf("sqlitestore: check: %w", err)
	}
	if _, err := os.Stat(dir); err != nil {
		return r, fmt.Errorf("sqlitestore: check: %w", err)
	}
	lock, err := lockIfStore(dir)
	if err != nil {
		return r, fmt.Errorf("sqlitestore: check %s: %w (stop the server first)", dir, err)
	}
	if lock != nil {
		defer lock.Close()
	}
	path := filepath.Join(dir, FileName)
	logDir := filepath.Join(dir, LogDir)
	st, err := inspectDatabase(context.Background(), path, options{busyTimeout: 5 * time.Second})
	if err != nil {
		return r, fmt.Errorf("sqlitestore: check %s: %w", path, err)
	}
	if len(st.damage) > 0 {
		r.Problems = append(r.Problems, fmt.Sprintf("%s is damaged (%s): restore it from a backup, then run numen data recover %s (or numen data recover --rebuild %s to rebuild it from the results log alone)",
			path, strings.Join(st.damage, "; "), dir, dir))
	}
	if !st.fresh && len(st.damage) == 0 {
		r.Facts = append(r.Facts, fmt.Sprintf("%s: schema version %d, quick_check ok, %d results", path, st.version, st.results))
		if st.results != st.reported {
			r.Problems = append(r.Problems, fmt.Sprintf("%s holds %d results and its reports count %d", path, st.results, st.reported))
		}
		if st.pos > 0 {
			r.Facts = append(r.Facts, fmt.Sprintf("its position in the results log: %s offset %d", segmentName(st.pos), st.posEnd))
		}
	}
	segs, err := listSegments(logDir)
	if errors.Is(err, os.ErrNotExist) {
		r.Facts = append(r.Facts, logDir+": none")
		if st.pos > 0 {
			r.Problems = append(r.Problems, fmt.Sprintf("%s is missing: the results written after %s offset %d are lost", logDir, segmentName(st.pos), st.posEnd))
		}
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("sqlitestore: check %s: %w", logDir, err)
	}
	if len(segs) > 0 {
		r.Facts = append(r.Facts, fmt.Sprintf("%s: %s", logDir, segmentRange(segs[0], segs[len(segs)-1])))
	}
	if st.fresh && len(segs) > 0 {
		r.Problems = append(r.Problems, freshProblem(path+" is "+st.what, segs)+"; numen data recover "+dir+" rebuilds the results from the log")
	}
	if len(st.damage) > 0 {
		return r, nil // its position cannot be read
	}
	p, err := planLog(logDir, st.pos, st.posEnd, st.fresh)
	if err != nil {
		r.Problems = append(r.Problems, err.Error())
		return r, nil
	}
	r.Problems = append(r.Problems, p.problems...)
	for _, n := range p.segs {
		for _, off := range p.scans[n].repaired {
			r.Problems = append(r.Problems, fmt.Sprintf("%s offset %d: a record with one flipped bit (the next start repairs it; nothing is lost)", filepath.Join(logDir, segmentName(n)), off))
		}
	}
	if p.tail != nil {
		r.Facts = append(r.Facts, fmt.Sprintf("%s/%s: a write a crash interrupted, never acknowledged (the next start clears it)", logDir, p.tail))
	}
	switch {
	case len(p.replay) > 0 && len(r.Problems) > 0:
		r.Facts = append(r.Facts, fmt.Sprintf("the results log holds %d readable results past the database's position: numen data recover %s commits them", len(p.replay), dir))
	case len(p.replay) > 0:
		r.Facts = append(r.Facts, fmt.Sprintf("the results log holds %d results past the database's position: the next start commits them", len(p.replay)))
	case !st.fresh:
		r.Facts = append(r.Facts, "the database holds every result of the results log")
	}
	return r, nil
}

// Recover brings the database of the store in dir level with its results
// log, as Open WithStartAnyway does, and returns what it did: it commits
// every result the log still has past the database's position (all of
// them into a missing or empty database), copies damaged records aside
// and keeps the records after them, and reports what is lost. A damaged
// database is refused (restore it from a backup first, then recover),
// unless rebuild: then it is moved aside (numen.db.damaged-TIME, with its
// -wal and -shm) and a new database is built from the log alone.
func Recover(dir string, rebuild bool) (Recovery, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Recovery{}, fmt.Errorf("sqlitestore: recover: %w", err)
	}
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(dir); err != nil {
		return Recovery{}, fmt.Errorf("sqlitestore: recover: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return Recovery{}, fmt.Errorf("sqlitestore: recover %s: %w (stop the server first)", dir, err)
	}
	st, err := inspectDatabase(context.Background(), path, options{busyTimeout: 5 * time.Second})
	if err == nil && len(st.damage) > 0 {
		if !rebuild {
			err = fmt.Errorf("%s is damaged (%s): restore it from a backup (copy it over %s and delete %s-wal and %s-shm), then run numen data recover %s again; or give --rebuild to move it aside and rebuild the results from the log alone (results only in the damaged file, older than the log's first segment, are lost, and so are its bulk jobs, idempotency keys and webhook outbox)",
				path, strings.Join(st.damage, "; "), path, path, path, dir)
		} else {
			aside := fmt.Sprintf("%s.damaged-%s", path, time.Now().UTC().Format("20060102T150405"))
			for _, suffix := range []string{"", "-wal", "-shm"} {
				if rerr := os.Rename(path+suffix, aside+suffix); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
					err = rerr
				}
			}
		}
	}
	if cerr := lock.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Recovery{}, fmt.Errorf("sqlitestore: recover %s: %w", dir, err)
	}
	s, err := Open(context.Background(), dir, WithStartAnyway())
	if err != nil {
		return Recovery{}, err
	}
	rec := s.Recovery()
	if err := s.Close(); err != nil {
		return rec, err
	}
	return rec, nil
}

// Backup writes a consistent copy of the database of the store in dir to
// the new file to (VACUUM INTO), while a server runs on dir or not: the
// backup that a damaged or lost database is restored from. The results
// log keeps the segments since for the retention (WithLogRetention), so
// that the next Open after a restore of the copy commits the results
// written since.
func Backup(dir, to string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("sqlitestore: backup: %w", err)
	}
	path := filepath.Join(dir, FileName)
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		return fmt.Errorf("sqlitestore: backup %s: no database there", path)
	}
	if _, err := os.Stat(to); err == nil {
		return fmt.Errorf("sqlitestore: backup %s: %s exists; give a new file", path, to)
	}
	db, err := sql.Open("sqlite", dsn(path, options{busyTimeout: 30 * time.Second}, backupConn))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec("VACUUM INTO ?", to); err != nil {
		return fmt.Errorf("sqlitestore: backup %s to %s: %w", path, to, err)
	}
	f, err := os.Open(to)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
