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
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
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
