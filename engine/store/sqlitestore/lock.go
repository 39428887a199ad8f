package sqlitestore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// LockName is the lock file in the store's directory. The store that has
// the directory open holds an exclusive lock on it, so that a second Open
// of the directory, in this process or another, fails at once: two
// writers appending to one results log would interleave their records.
const LockName = "numen.lock"

var errLocked = errors.New("locked")

// lockDir takes the lock of dir, or fails naming it.
func lockDir(dir string) (*os.File, error) {
	return lockPath(dir, os.O_RDWR|os.O_CREATE)
}

// lockIfStore takes the lock of dir as lockDir does, but creates no lock
// file: a directory without one has never had a store open, and none
// holds it now. Check uses it, as it changes nothing. It returns nil for
// such a directory.
func lockIfStore(dir string) (*os.File, error) {
	f, err := lockPath(dir, os.O_RDWR)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return f, err
}

func lockPath(dir string, flag int) (*os.File, error) {
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("%s is open in another store (this process or another: %s is locked); a directory takes one store at a time", dir, path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}
