package sqlitestore

import "os"

// datasync flushes f to disk: File.Sync (FlushFileBuffers).
func datasync(f *os.File) error { return f.Sync() }

// syncDir does nothing: Windows cannot open a directory to flush it, and
// NTFS journals the names of files.
func syncDir(string) error { return nil }
