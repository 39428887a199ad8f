//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sqlitestore

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f without waiting: flock(2). The
// kernel releases it when the process ends, however it ends.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return errLocked
		}
		if err != syscall.EINTR {
			return err
		}
	}
}
