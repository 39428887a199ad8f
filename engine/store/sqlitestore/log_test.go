package sqlitestore_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store/sqlitestore"
)

// logOnly records n results (ids prefix0000000 and up) into a store in dir
// whose indexer always fails, and closes it: the results are in the log
// and not in the database, as after a crash.
func logOnly(t *testing.T, dir, prefix string, n int, opts ...sqlitestore.Option) []string {
	t.Helper()
	opts = append(opts, sqlitestore.WithBeforeCommit(func([]string) error { return errors.New("indexer kept out") }))
	s := open(t, dir, opts...)
	ids := make([]string, n)
	for i := range n {
		ids[i] = fmt.Sprintf("%s%07d", prefix, i)
		require.NoError(t, s.Record(t.Context(), record(ids[i], i)))
	}
	require.ErrorContains(t, s.Close(), "indexer kept out")
	return ids
}

// segments returns the paths of the log's segment files, in order.
func segments(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, sqlitestore.LogDir, "*.log"))
	require.NoError(t, err)
	slices.Sort(paths)
	return paths
}

// Results that only the log has (the indexer failed, or the process
// died) are committed to the database by the next Open, with their
// reports, and the segments they were in are deleted.
func TestOpenCommitsTheLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ids := logOnly(t, dir, "replay", 30, sqlitestore.WithSegmentSize(4096))
	require.Greater(t, len(segments(t, dir)), 2, "30 results of about 800 bytes take several 4 KiB segments")

	s := open(t, dir, sqlitestore.WithSegmentSize(4096), sqlitestore.WithLogRetention(0))
	require.Equal(t, ids, storedIDs(t, s))
	require.EqualValues(t, 30, countResults(t, s))
	require.Greater(t, len(segments(t, dir)), 2, "Open deletes no segment")
	require.Equal(t, 30, s.Recovery().Replayed)
	sqlitestore.Prune(s)
	require.Len(t, segments(t, dir), 1, "the pruner deletes the segments before the last one, the database checked")
	require.NoError(t, s.Close())

	// Opened again, nothing is committed twice.
	s = open(t, dir)
	defer s.Close()
	require.Equal(t, ids, storedIDs(t, s))
	require.EqualValues(t, 30, countResults(t, s))
}

// While the store runs, the indexer deletes the segments it has
// committed.
func TestIndexerDeletesSegments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pruned := make(chan struct{}, 1)
	s := open(t, dir, sqlitestore.WithSegmentSize(4096), sqlitestore.WithIndexDelay(0),
		sqlitestore.WithLogRetention(0), sqlitestore.WithPruneEvery(time.Millisecond),
		sqlitestore.WithAfterPrune(func() {
			select {
			case pruned <- struct{}{}:
			default:
			}
		}))
	defer s.Close()
	var ids []string
	for i := range 40 {
		ids = append(ids, fmt.Sprintf("segdel%06d", i))
		require.NoError(t, s.Record(t.Context(), record(ids[i], i)))
	}
	require.Equal(t, ids, storedIDs(t, s)) // every result in the database
	// The second pass of the pruner to end from now began after it: it
	// found every segment before the last indexed.
	select {
	case <-pruned:
	default:
	}
	for range 2 {
		select {
		case <-pruned:
		case <-time.After(time.Minute):
			t.Fatal("the pruner did not run")
		}
	}
	require.LessOrEqual(t, len(segments(t, dir)), 2, "%v", segments(t, dir))
}

// Segments younger than the retention stay, their results in the
// database: a restored backup is caught up from them.
func TestRetentionKeepsSegments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir, sqlitestore.WithSegmentSize(4096), sqlitestore.WithIndexDelay(0))
	for i := range 40 {
		require.NoError(t, s.Record(t.Context(), record(fmt.Sprintf("retain%06d", i), i)))
	}
	require.EqualValues(t, 40, countResults(t, s))
	n := len(segments(t, dir))
	require.Greater(t, n, 5)
	sqlitestore.Prune(s)
	require.Len(t, segments(t, dir), n, "the default retention is a day")
	require.NoError(t, s.Close())

	// Bounded in size: the oldest go first.
	s = open(t, dir, sqlitestore.WithSegmentSize(4096), sqlitestore.WithLogRetentionBytes(3*4096))
	defer s.Close()
	sqlitestore.Prune(s)
	require.Len(t, segments(t, dir), 4, "three kept before the database's position, and that one")
	require.EqualValues(t, 40, countResults(t, s))
}

// A crash can leave the last record of the last segment half written. It
// was never acknowledged: Open drops it, zeroes its bytes, and appends
// after the records before it.
func TestOpenDropsATornRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ids := logOnly(t, dir, "torn", 5)
	segs := segments(t, dir)
	require.Len(t, segs, 1)
	data, err := os.ReadFile(segs[0])
	require.NoError(t, err)
	end := len(bytes.TrimRight(data, "\x00"))
	// A record header that promises 600 bytes, and 100 of them.
	torn := binary.LittleEndian.AppendUint32(nil, 600)
	torn = binary.LittleEndian.AppendUint32(torn, 0xdeadbeef)
	torn = append(torn, bytes.Repeat([]byte{'x'}, 100)...)
	f, err := os.OpenFile(segs[0], os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(torn, int64(end))
	require.NoError(t, err)
	require.NoError(t, f.Close())

	s := open(t, dir)
	require.Equal(t, ids, storedIDs(t, s))
	data, err = os.ReadFile(segs[0])
	require.NoError(t, err)
	require.Equal(t, end, len(bytes.TrimRight(data, "\x00")), "the torn record is zeroed")
	require.NoError(t, s.Record(t.Context(), record("torn0000005", 5)))
	require.NoError(t, s.Close())
	s = open(t, dir)
	defer s.Close()
	require.Equal(t, append(ids, "torn0000005"), storedIDs(t, s))
}

// A bad record in a segment that is not the last one is damage, not a
// crash: Open refuses the log, naming the file, rather than skip the
// results after it.
func TestOpenRefusesADamagedLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logOnly(t, dir, "damage", 20, sqlitestore.WithSegmentSize(4096))
	segs := segments(t, dir)
	require.Greater(t, len(segs), 1)
	data, err := os.ReadFile(segs[0])
	require.NoError(t, err)
	data[40] ^= 0xff // in the first record's payload
	require.NoError(t, os.WriteFile(segs[0], data, 0o600))

	_, err = sqlitestore.Open(t.Context(), dir)
	require.ErrorContains(t, err, "the database does not match its results log")
	require.ErrorContains(t, err, segs[0]+" has 937 unreadable bytes at offset 12: the results there are lost (the records after them are kept)")
	require.ErrorContains(t, err, `"numen data recover `+dir+`"`)
	t.Log(err)
}

// A segment of another format or version is refused, naming it.
func TestOpenRefusesAnUnknownSegment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logOnly(t, dir, "version", 2)
	segs := segments(t, dir)
	data, err := os.ReadFile(segs[0])
	require.NoError(t, err)
	binary.LittleEndian.PutUint32(data[8:], 99)
	require.NoError(t, os.WriteFile(segs[0], data, 0o600))
	_, err = sqlitestore.Open(t.Context(), dir)
	require.ErrorContains(t, err, segs[0]+": results log version 99, want 1: open it with a newer numen")

	copy(data, "NOTALOG!")
	require.NoError(t, os.WriteFile(segs[0], data, 0o600))
	_, err = sqlitestore.Open(t.Context(), dir)
	require.ErrorContains(t, err, segs[0]+": not a segment of the results log")
}
