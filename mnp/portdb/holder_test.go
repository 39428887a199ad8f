package portdb

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeDBFile builds a database of one exact number, ported to mccmnc, and
// writes it to a file, so that Open maps it and Close unmaps it for real:
// a lookup on a closed database would then fault.
func writeDBFile(t testing.TB, dir, mccmnc string, i int) string {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("ported-%d.db", i))
	csv := "4915112345678," + mccmnc + "\n4915112*," + mccmnc + "\n"
	require.NoError(t, os.WriteFile(path, buildBytes(t, csv, "DE"), 0o644))
	return path
}

func TestZeroHolder(t *testing.T) {
	t.Parallel()
	var h Holder
	require.False(t, h.Lookup("4915112345678").Found())
	require.False(t, h.Covers("DE"))
	_, ok := h.Info()
	require.False(t, ok)
	h.View(func(db *DB) { require.Nil(t, db) })
	require.NoError(t, h.Close())
}

func TestHolderSwapClosesOld(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, err := Open(writeDBFile(t, dir, "26201", 0))
	require.NoError(t, err)
	b, err := Open(writeDBFile(t, dir, "26202", 1))
	require.NoError(t, err)

	h := NewHolder(a)
	require.Equal(t, "26201", h.Lookup("4915112345678").MCCMNC())
	require.True(t, h.Covers("DE"))
	info, ok := h.Info()
	require.True(t, ok)
	require.Equal(t, 1, info.Numbers)

	h.Swap(b)
	require.Nil(t, a.data, "no lookup was running: the old database is closed at once")
	require.Equal(t, "26202", h.Lookup("4915112345678").MCCMNC())

	// A view keeps its database open across a swap, until it returns.
	c, err := Open(writeDBFile(t, dir, "26203", 2))
	require.NoError(t, err)
	h.View(func(db *DB) {
		require.Same(t, b, db)
		h.Swap(c)
		require.NotNil(t, b.data, "still in use")
		require.Equal(t, "26202", db.Lookup("4915112345678").MCCMNC())
		require.Equal(t, "26203", h.Lookup("4915112345678").MCCMNC())
	})
	require.Nil(t, b.data, "closed when the view ended")

	require.NoError(t, h.Close())
	require.Nil(t, c.data)
	require.False(t, h.Lookup("4915112345678").Found())
}

// Lookups run in goroutines while the database is swapped under them:
// every answer comes from one of the databases, none from a closed one
// (run with -race; a read of unmapped memory would crash), and every
// database is closed in the end.
func TestHolderConcurrentSwap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const swaps, readers, lookups = 40, 4, 3000
	paths := make([]string, swaps+1)
	mccmncs := map[string]bool{}
	for i := range paths {
		m := fmt.Sprintf("262%02d", i)
		mccmncs[m] = true
		paths[i] = writeDBFile(t, dir, m, i)
	}
	first, err := Open(paths[0])
	require.NoError(t, err)
	opened := []*DB{first}
	h := NewHolder(first)

	var wg sync.WaitGroup
	var progress, finished atomic.Int64
	errs := make(chan error, readers)
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer finished.Add(1)
			for i := range lookups {
				progress.Add(1)
				digits := "4915112345678"
				if i%2 == 1 {
					digits = "4915112000000" // a range hit
				}
				var res Result
				if r%2 == 0 {
					res = h.Lookup(digits)
				} else {
					h.View(func(db *DB) {
						if db.Covers("DE") {
							res = db.Lookup(digits)
						}
					})
				}
				if !res.Found() || !mccmncs[res.MCCMNC()] {
					errs <- fmt.Errorf("lookup %d of reader %d: %+v", i, r, res)
					return
				}
			}
		}()
	}
	for i, p := range paths[1:] {
		// Spread the swaps over the lookups.
		for target := int64(i * readers * lookups / (swaps + 1)); progress.Load() < target && finished.Load() < readers; {
			runtime.Gosched()
		}
		db, err := Open(p)
		require.NoError(t, err)
		opened = append(opened, db)
		h.Swap(db)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.NoError(t, h.Close())
	for i, db := range opened {
		require.Nil(t, db.data, "database %d not closed", i)
	}
}

// Reload picks up a file renamed over the current one's name, refuses a
// damaged one (the current database keeps answering, and the damaged
// file is not opened again), and does not take a file changed in place
// for a new one.
func TestHolderReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "ported.db")
	put := func(b []byte) { // by rename, as files are to be replaced
		tmp := filepath.Join(dir, ".ported.db.tmp")
		require.NoError(t, os.WriteFile(tmp, b, 0o644))
		require.NoError(t, os.Rename(tmp, path))
	}
	file := func(mccmnc string) []byte {
		return buildBytes(t, "+4915112345678,"+mccmnc+"\n+4915112345679,"+mccmnc+"\n", "DE")
	}
	put(file("26201"))
	db, err := Open(path)
	require.NoError(t, err)
	h := NewHolder(db)
	defer h.Close()

	swapped, err := h.Reload(path)
	require.NoError(t, err)
	require.False(t, swapped, "the same file")

	put(file("26202"))
	require.Equal(t, "26201", h.Lookup("4915112345678").MCCMNC(), "until reloaded, the file it opened")
	swapped, err = h.Reload(path)
	require.NoError(t, err)
	require.True(t, swapped)
	require.Equal(t, "26202", h.Lookup("4915112345678").MCCMNC())
	require.Nil(t, db.data, "the old database is closed")

	damaged := file("26203")
	damaged[len(damaged)-3] ^= 1 // a flipped bit in the body: Verify refuses it
	put(damaged)
	swapped, err = h.Reload(path)
	require.ErrorIs(t, err, ErrCorrupt)
	require.False(t, swapped)
	require.Equal(t, "26202", h.Lookup("4915112345678").MCCMNC(), "the current database keeps answering")
	swapped, err = h.Reload(path)
	require.NoError(t, err, "a refused file is not opened again")
	require.False(t, swapped)

	put(file("26207"))
	swapped, err = h.Reload(path)
	require.NoError(t, err)
	require.True(t, swapped)
	require.Equal(t, "26207", h.Lookup("4915112345678").MCCMNC())

	// Truncated in place: the same file, not a replacement.
	var cur *DB
	h.View(func(db *DB) { cur = db })
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, info.Size()-8))
	swapped, err = h.Reload(path)
	require.NoError(t, err)
	require.False(t, swapped)
	if cur.unmap != nil {
		require.True(t, cur.Changed())
	}
	put(file("26208"))
	swapped, err = h.Reload(path)
	require.NoError(t, err)
	require.True(t, swapped)
	h.View(func(db *DB) { require.False(t, db.Changed()) })
	require.Equal(t, "26208", h.Lookup("4915112345679").MCCMNC())

	_, err = h.Reload(filepath.Join(dir, "missing.db"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
