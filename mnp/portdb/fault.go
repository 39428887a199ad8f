package portdb

import (
	"errors"
	"runtime/debug"
	"unsafe"
)

// ErrChanged is the error of a read of a database file that shrank while
// it was open: truncated in place, as rewriting it in place also does
// for a while (cp over it truncates it first). A mapped file is read
// where it lies; a read of a page past its new end is a fault of the
// processor, which would kill the process (SIGBUS) had the read not asked
// the runtime to turn it into a panic (debug.SetPanicOnFault), which the
// package recovers as this error. Replace a database file by renaming a
// new file over it, never by writing into it.
var ErrChanged = errors.New("portdb: the database file changed underneath while open " +
	"(truncated or modified in place); replace a database file by renaming a new file over it, never by writing or truncating it in place")

// The reads of the file (Lookup, Verify, Open's indexes) run with
// debug.SetPanicOnFault set for their goroutine, and restore the previous
// setting when they return: a fault on the mapped file then panics
// instead of killing the process, and the deferred function turns the
// panic into ErrChanged. The setting is per goroutine and the goroutines
// are the caller's, so it is set for each read, not once: it costs two
// calls into the runtime and a deferred call, 5-8 ns of a lookup's 300 or
// more on a large file (benchmarks/README.md, The fault guard).

// faultIn reports whether p, a recovered panic value, is a memory fault
// at an address inside data: a read of the mapped file that failed.
// Any other panic is not the file's and is raised again by the caller.
func faultIn(p any, data []byte) bool {
	f, ok := p.(interface{ Addr() uintptr }) // runtime.Error of a fault, with SetPanicOnFault
	if !ok || len(data) == 0 {
		return false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	addr := f.Addr()
	return addr >= base && addr-base < uintptr(len(data))
}

// endSearch is deferred by the search of a lookup: it restores the
// goroutine's fault setting and turns a fault on data into searchFaulted.
func endSearch(data []byte, old bool, st *searchState) {
	debug.SetPanicOnFault(old)
	if p := recover(); p != nil {
		if !faultIn(p, data) {
			panic(p)
		}
		*st = searchFaulted
	}
}

// endRead is deferred by the reads of the whole file (Verify, and Open's
// indexes): it restores the goroutine's fault setting and turns a fault
// on data into ErrChanged.
func endRead(data []byte, old bool, err *error) {
	debug.SetPanicOnFault(old)
	if p := recover(); p != nil {
		if !faultIn(p, data) {
			panic(p)
		}
		*err = ErrChanged
	}
}
