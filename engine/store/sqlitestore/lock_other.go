//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package sqlitestore

import "os"

// lockFile does nothing on systems without flock(2) or LockFileEx: there,
// nothing stops two processes from opening one directory, and they must
// not.
func lockFile(*os.File) error { return nil }
