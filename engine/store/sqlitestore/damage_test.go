package sqlitestore_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/sqlitestore"
)

// The tests of this file damage or mismatch the files of a store the way
// an unlucky operator finds them, and count the results answered (Record
// returned nil) against the results stored after the way out that the
// store names: they must be equal.

// recordN records ids prefix0000000.. (n of them, from i) and returns
// them.
func recordN(t *testing.T, s *sqlitestore.Store, prefix string, from, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("%s%07d", prefix, from+i)
		require.NoError(t, s.Record(t.Context(), record(ids[i], from+i)))
	}
	return ids
}

// backup copies the open store's database to path, as an operator's
// nightly backup ("numen data backup").
func backup(t *testing.T, dir, path string) {
	t.Helper()
	require.NoError(t, sqlitestore.Backup(dir, path))
}

// restore puts the backup at path back as the (closed) store's database.
func restore(t *testing.T, dir, path string) {
	t.Helper()
	db := filepath.Join(dir, sqlitestore.FileName)
	for _, suffix := range []string{"-wal", "-shm"} {
		require.NoError(t, os.RemoveAll(db+suffix))
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(db, data, 0o600))
}

// Issue 30, item 4: once the database is found damaged, the store takes
// no more results (store.ErrDamaged: 503), deletes no segment of the log,
// and Ping gives the way out; restoring the backup, opening (as "numen
// data recover" does) finds every result answered.
func TestDamagedDatabaseKeepsTheLog(t *testing.T) {
	t.Parallel()
	dir, bak := t.TempDir(), filepath.Join(t.TempDir(), "numen.db.bak")
	opts := []sqlitestore.Option{sqlitestore.WithSegmentSize(8192), sqlitestore.WithIndexDelay(0), sqlitestore.WithLogRetention(0)}
	s := open(t, dir, opts...)
	answered := recordN(t, s, "dmg", 0, 20)
	require.EqualValues(t, 20, countResults(t, s))
	backup(t, dir, bak)
	answered = append(answered, recordN(t, s, "dmg", 20, 60)...)
	require.EqualValues(t, 80, countResults(t, s))
	segs := segments(t, dir)
	require.Greater(t, len(segs), 4)

	// Damage every page but the first in the database file.
	sqlitestore.CheckpointNow(s)
	db := filepath.Join(dir, sqlitestore.FileName)
	fi, err := os.Stat(db)
	require.NoError(t, err)
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	require.NoError(t, err)
	junk := make([]byte, fi.Size()-4096)
	for i := range junk {
		junk[i] = byte(i*7 + 3)
	}
	_, err = f.WriteAt(junk, 4096)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	// The pruner's check finds it, with the retention past: no segment
	// goes.
	sqlitestore.Prune(s)
	require.Equal(t, segs, segments(t, dir), "no segment is deleted from a damaged store")
	err = s.Ping(t.Context())
	require.ErrorContains(t, err, "is damaged")
	require.ErrorContains(t, err, "numen data recover "+dir)
	err = s.Record(t.Context(), record("dmg-after", 99))
	require.ErrorIs(t, err, store.ErrDamaged)
	t.Log(err)
	_ = s.Close() // fails: the database is damaged

	// The way out: restore the backup, recover.
	restore(t, dir, bak)
	s = open(t, dir, sqlitestore.WithStartAnyway())
	defer s.Close()
	require.Empty(t, s.Recovery().Problems)
	require.Equal(t, 60, s.Recovery().Replayed)
	require.Equal(t, answered, storedIDs(t, s))
	require.EqualValues(t, len(answered), countResults(t, s), "results answered vs stored")
	t.Logf("results answered %d, stored after restoring the backup and recovering %d", len(answered), countResults(t, s))
}

// A result whose id the writer must look for in the database (one not
// newer than every id there) meets the damage in that read: the store
// then knows the file is damaged (store.ErrDamaged, which is 503 with the
// way out, not "try again", which would never succeed).
func TestDuplicateCheckFindsTheDamage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir, sqlitestore.WithIndexDelay(0))
	defer func() { _ = s.Close() }() // fails: the database is damaged
	recordN(t, s, "dup", 0, 2000)
	sqlitestore.CheckpointNow(s)
	db := filepath.Join(dir, sqlitestore.FileName)
	fi, err := os.Stat(db)
	require.NoError(t, err)
	junk := bytes.Repeat([]byte{0x5a}, int(fi.Size())-4096)
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(junk, 4096)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	err = s.Record(t.Context(), record("dup0000010a", 10)) // before the newest id: looked for
	require.ErrorIs(t, err, store.ErrDamaged)
	require.ErrorContains(t, s.Ping(t.Context()), "numen data recover "+dir)
	require.ErrorIs(t, s.Record(t.Context(), record("dup9999999", 11)), store.ErrDamaged)
}

// Issue 30, item 5: an empty (0-byte) database beside a log with segments
// is refused, naming the way out; recovering from the log, with every
// segment kept for the retention, finds every result answered.
func TestOpenRefusesAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir, sqlitestore.WithSegmentSize(8192), sqlitestore.WithIndexDelay(0))
	answered := recordN(t, s, "empty", 0, 50)
	require.NoError(t, s.Close())
	db := filepath.Join(dir, sqlitestore.FileName)
	require.NoError(t, os.Truncate(db, 0))
	require.NoError(t, os.RemoveAll(db+"-wal"))

	_, err := sqlitestore.Open(t.Context(), dir)
	var mismatch *sqlitestore.MismatchError
	require.ErrorAs(t, err, &mismatch)
	require.ErrorContains(t, err, db+" is empty (0 bytes), but the results log has segments 0000000000000001.log to")
	require.ErrorContains(t, err, `"numen data recover `+dir+`"`)
	t.Log(err)
	fi, err := os.Stat(db)
	require.NoError(t, err)
	require.Zero(t, fi.Size(), "nothing was changed")

	s = open(t, dir, sqlitestore.WithStartAnyway())
	defer s.Close()
	require.Len(t, s.Recovery().Problems, 1)
	require.Equal(t, answered, storedIDs(t, s))
	require.EqualValues(t, len(answered), countResults(t, s), "results answered vs stored")
	t.Logf("results answered %d, stored after recovering into the empty database %d", len(answered), countResults(t, s))
}

// A database replaced by a new one (a schema, no results) is refused the
// same way.
func TestOpenRefusesANewDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	recordN(t, s, "new", 0, 5)
	require.NoError(t, s.Close())
	db := filepath.Join(dir, sqlitestore.FileName)
	require.NoError(t, os.Remove(db))
	require.NoError(t, os.RemoveAll(db+"-wal"))
	_, err := sqlitestore.Open(t.Context(), dir)
	require.ErrorContains(t, err, db+" is missing, but the results log has segment 0000000000000001.log")
}

// Issue 30, item 5: a restored backup of the database, older than the
// log, is caught up from the segments since its position, which the
// retention kept.
func TestOpenCatchesUpARestoredBackup(t *testing.T) {
	t.Parallel()
	dir, bak := t.TempDir(), filepath.Join(t.TempDir(), "numen.db.bak")
	s := open(t, dir, sqlitestore.WithSegmentSize(8192), sqlitestore.WithIndexDelay(0))
	answered := recordN(t, s, "old", 0, 30)
	require.EqualValues(t, 30, countResults(t, s))
	backup(t, dir, bak)
	answered = append(answered, recordN(t, s, "old", 30, 70)...)
	require.NoError(t, s.Close())
	restore(t, dir, bak)

	s = open(t, dir, sqlitestore.WithSegmentSize(8192))
	defer s.Close()
	require.Equal(t, 70, s.Recovery().Replayed)
	require.Empty(t, s.Recovery().Problems)
	require.Equal(t, answered, storedIDs(t, s))
	require.EqualValues(t, len(answered), countResults(t, s), "results answered vs stored")
	t.Logf("results answered %d, stored after the restored backup's start %d", len(answered), countResults(t, s))
}

// Issue 30, item 5: a restored backup whose segments since are not all
// there is refused, naming the missing segment; recovering then commits
// what the log still has, and reports the rest lost.
func TestOpenRefusesAMissingSegment(t *testing.T) {
	t.Parallel()
	dir, bak := t.TempDir(), filepath.Join(t.TempDir(), "numen.db.bak")
	s := open(t, dir, sqlitestore.WithSegmentSize(8192), sqlitestore.WithIndexDelay(0))
	answered := recordN(t, s, "gap", 0, 10)
	backup(t, dir, bak)
	answered = append(answered, recordN(t, s, "gap", 10, 90)...)
	require.NoError(t, s.Close())
	restore(t, dir, bak)
	segs := segments(t, dir)
	require.Greater(t, len(segs), 4)
	gone := segs[2]
	// The results the segment holds are the ones its removal loses: each
	// record carries its id as text.
	data, err := os.ReadFile(gone)
	require.NoError(t, err)
	var lost, kept []string
	for _, id := range answered {
		if bytes.Contains(data, []byte(id)) {
			lost = append(lost, id)
		} else {
			kept = append(kept, id)
		}
	}
	require.NotEmpty(t, lost)
	require.NoError(t, os.Remove(gone))

	_, err = sqlitestore.Open(t.Context(), dir)
	require.ErrorContains(t, err, "segment "+filepath.Base(gone)+" missing from "+filepath.Join(dir, sqlitestore.LogDir))
	require.ErrorContains(t, err, `"numen data recover `+dir+`"`)
	t.Log(err)

	s = open(t, dir, sqlitestore.WithStartAnyway())
	defer s.Close()
	require.Len(t, s.Recovery().Problems, 1)
	require.Equal(t, kept, storedIDs(t, s), "every result outside the missing segment is kept")
	require.EqualValues(t, len(answered)-len(lost), countResults(t, s), "results answered less those of the missing segment vs stored")
	t.Logf("results answered %d, %d of them in the missing segment, stored %d (reported lost: %q)", len(answered), len(lost), countResults(t, s), s.Recovery().Problems)
}

// Issue 30, item 5: one flipped bit in the tail of the log that the
// indexer had not reached when the process died is repaired, reported,
// and every result is kept: the one with the bit and those after it.
func TestOpenRepairsAFlippedBit(t *testing.T) {
	t.Parallel()
	for _, at := range []struct {
		name string
		off  func(rec int) int // the byte flipped, from a record's start
	}{
		{"payload", func(int) int { return 300 }},
		{"length", func(int) int { return 1 }},
		{"checksum", func(int) int { return 6 }},
	} {
		t.Run(at.name, func(t *testing.T) {
			dir := t.TempDir()
			answered := logOnly(t, dir, "flip", 40)
			segs := segments(t, dir)
			require.Len(t, segs, 1)
			data, err := os.ReadFile(segs[0])
			require.NoError(t, err)
			start := recordStart(t, data, 12) // the 13th record
			data[start+at.off(start)] ^= 0x10
			require.NoError(t, os.WriteFile(segs[0], data, 0o600))

			s := open(t, dir)
			require.Equal(t, []string{fmt.Sprintf("0000000000000001.log at offset %d: one flipped bit, repaired", start)}, s.Recovery().Repaired)
			require.Equal(t, answered, storedIDs(t, s))
			require.EqualValues(t, len(answered), countResults(t, s), "results answered vs stored")
			t.Logf("results answered %d, stored %d", len(answered), countResults(t, s))
			require.NoError(t, s.Close())
			again, err := os.ReadFile(segs[0])
			require.NoError(t, err)
			data[start+at.off(start)] ^= 0x10
			require.Equal(t, data[:start+2000], again[:start+2000], "the repair is written back")
		})
	}
}

// Issue 30, item 5: a record damaged beyond one bit in the tail of the
// log is reported, naming its segment and offset, and the records after
// it are kept (resynchronised), not dropped: Open refuses, and recovering
// keeps all but the damaged one, copied aside.
func TestOpenKeepsRecordsAfterDamage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	answered := logOnly(t, dir, "resync", 40)
	segs := segments(t, dir)
	data, err := os.ReadFile(segs[0])
	require.NoError(t, err)
	start := recordStart(t, data, 12)
	for i := start + 2; i < start+40; i++ {
		data[i] ^= 0x5a
	}
	require.NoError(t, os.WriteFile(segs[0], data, 0o600))

	_, err = sqlitestore.Open(t.Context(), dir)
	require.ErrorContains(t, err, fmt.Sprintf("%s has ", segs[0]))
	require.ErrorContains(t, err, fmt.Sprintf("unreadable bytes at offset %d: the results there are lost (the records after them are kept)", start))
	t.Log(err)

	s := open(t, dir, sqlitestore.WithStartAnyway())
	require.Len(t, s.Recovery().Problems, 1)
	want := append(append([]string(nil), answered[:12]...), answered[13:]...)
	require.Equal(t, want, storedIDs(t, s), "every record but the damaged one")
	require.EqualValues(t, len(answered)-1, countResults(t, s))
	t.Logf("results answered %d, stored after recovering %d (the damaged record reported: %q)", len(answered), countResults(t, s), s.Recovery().Problems)
	require.FileExists(t, filepath.Join(dir, sqlitestore.LogDir, "damaged", fmt.Sprintf("0000000000000001-%d.bad", start)))
	require.NoError(t, s.Record(t.Context(), record("resync-after", 41)))
	require.NoError(t, s.Close())
	s = open(t, dir) // reported once: the next start is clean
	defer s.Close()
	require.Empty(t, s.Recovery().Problems)
	require.EqualValues(t, len(answered), countResults(t, s))
}

// recordStart returns the offset of record i (from 0) of a segment's
// bytes.
func recordStart(t *testing.T, data []byte, i int) int {
	t.Helper()
	off := 12
	for range i {
		require.Less(t, off+8, len(data))
		n := int(data[off]) | int(data[off+1])<<8 | int(data[off+2])<<16 | int(data[off+3])<<24
		require.NotZero(t, n)
		off += 8 + n
	}
	return off
}

// Check reports a damaged record and a flipped bit without changing
// anything; Recover keeps what the log holds, after which Check finds the
// store consistent.
func TestCheckAndRecoverTheLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	answered := logOnly(t, dir, "check", 40)
	segs := segments(t, dir)
	data, err := os.ReadFile(segs[0])
	require.NoError(t, err)
	flipped := recordStart(t, data, 5)
	data[flipped+200] ^= 0x01
	damaged, next := recordStart(t, data, 20), recordStart(t, data, 21)
	for i := damaged + 2; i < damaged+30; i++ {
		data[i] = 0xee
	}
	require.NoError(t, os.WriteFile(segs[0], data, 0o600))

	r, err := sqlitestore.Check(dir)
	require.NoError(t, err)
	t.Logf("%q", r)
	require.Len(t, r.Problems, 2)
	require.Contains(t, r.Problems[0], fmt.Sprintf("has %d unreadable bytes at offset %d", next-damaged, damaged))
	require.Contains(t, r.Problems[1], fmt.Sprintf("%s offset %d: a record with one flipped bit (the next start repairs it; nothing is lost)", segs[0], flipped))
	again, err := os.ReadFile(segs[0])
	require.NoError(t, err)
	require.Equal(t, data, again, "Check changes nothing")

	rec, err := sqlitestore.Recover(dir, false)
	require.NoError(t, err)
	require.Len(t, rec.Problems, 1)
	require.Len(t, rec.Repaired, 1)
	require.Equal(t, len(answered)-1, rec.Replayed)
	r, err = sqlitestore.Check(dir)
	require.NoError(t, err)
	require.Empty(t, r.Problems, "%q", r)
}

// A damaged database: Check says so, Recover refuses it (restore a backup
// first) unless rebuild, which moves it aside and rebuilds the results
// from the log.
func TestRecoverADamagedDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir, sqlitestore.WithIndexDelay(0))
	answered := recordN(t, s, "rebuild", 0, 60)
	require.NoError(t, s.Close())
	db := filepath.Join(dir, sqlitestore.FileName)
	fi, err := os.Stat(db)
	require.NoError(t, err)
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(make([]byte, fi.Size()-4096), 4096) // zeros over every page but the first
	require.NoError(t, err)
	require.NoError(t, f.Close())

	r, err := sqlitestore.Check(dir)
	require.NoError(t, err)
	require.Len(t, r.Problems, 1)
	require.Contains(t, r.Problems[0], db+" is damaged")
	_, err = sqlitestore.Recover(dir, false)
	require.ErrorContains(t, err, "restore it from a backup")
	require.ErrorContains(t, err, "--rebuild")

	rec, err := sqlitestore.Recover(dir, true)
	require.NoError(t, err)
	require.Equal(t, len(answered), rec.Replayed)
	aside, err := filepath.Glob(db + ".damaged-*[0-9]")
	require.NoError(t, err)
	require.Len(t, aside, 1, "moved aside")
	s = open(t, dir)
	defer s.Close()
	require.Equal(t, answered, storedIDs(t, s))
}

// Started anyway without its log, the store writes a new segment after
// the database's position, never over it: results answered then are
// found by the next start even when the indexer had not reached them.
func TestStartAnywayWithoutTheLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir, sqlitestore.WithIndexDelay(0))
	answered := recordN(t, s, "nolog", 0, 10)
	require.NoError(t, s.Close())
	require.NoError(t, os.RemoveAll(filepath.Join(dir, sqlitestore.LogDir)))
	_, err := sqlitestore.Open(t.Context(), dir)
	require.ErrorContains(t, err, "0000000000000001.log, where the database's position is")

	s = open(t, dir, sqlitestore.WithStartAnyway(), sqlitestore.WithBeforeCommit(func([]string) error { return errors.New("indexer kept out") }))
	answered = append(answered, recordN(t, s, "nolog", 10, 5)...)
	require.ErrorContains(t, s.Close(), "indexer kept out")
	s = open(t, dir)
	defer s.Close()
	require.Equal(t, answered, storedIDs(t, s))
}

// Check reads without changing anything: on a directory no store has
// opened it creates no file, not even the lock; on a directory a store
// holds open it fails, naming the lock, and tells to stop the server.
func TestCheckChangesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := sqlitestore.Check(dir)
	require.NoError(t, err)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "files made by Check")

	s := open(t, dir)
	defer s.Close()
	_, err = sqlitestore.Check(dir)
	require.ErrorContains(t, err, sqlitestore.LockName+" is locked")
	require.ErrorContains(t, err, "stop the server first")
}
