//go:build !linux && !windows

package sqlitestore

import "os"

// datasync flushes f to disk: File.Sync (fsync(2); F_FULLFSYNC on macOS).
func datasync(f *os.File) error { return f.Sync() }
