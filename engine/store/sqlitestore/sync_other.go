//go:build !linux && !windows

package sqlitestore

import "os"

// datasync flushes f to disk: File.Sync (fsync(2); F_FULLFSYNC on macOS).
func datasync(f *os.File) error { return f.Sync() }

// syncDir flushes the directory dir, where the names of its files are.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
