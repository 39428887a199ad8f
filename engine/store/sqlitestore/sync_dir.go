//go:build !windows

package sqlitestore

import "os"

// syncDir flushes the directory dir, where the names of its files are.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
