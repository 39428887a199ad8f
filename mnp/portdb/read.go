package portdb

import (
	"io"
	"os"
	"unsafe"
)

// readAll reads the first size bytes of f into 8-byte aligned memory, so
// that the entries can be read in place.
func readAll(f *os.File, size int) ([]byte, error) {
	words := make([]uint64, (size+7)/8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)[:size]
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, int64(size)), b); err != nil {
		return nil, err
	}
	return b, nil
}
