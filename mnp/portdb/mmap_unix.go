//go:build unix

package portdb

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f into memory, read-only. The
// mapping outlives f.
func mapFile(f *os.File, size int) ([]byte, func([]byte) error, error) {
	b, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, &os.PathError{Op: "mmap", Path: f.Name(), Err: err}
	}
	return b, syscall.Munmap, nil
}
