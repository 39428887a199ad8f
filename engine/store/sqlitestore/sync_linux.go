package sqlitestore

import (
	"os"
	"syscall"
)

// datasync flushes f's data to disk, and of its metadata what reading it
// back needs (its size): fdatasync(2), as SQLite syncs its WAL on Linux.
func datasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
