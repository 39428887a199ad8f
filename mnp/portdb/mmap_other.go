//go:build !unix

package portdb

import "os"

// mapFile reads the file into memory where there is no memory mapping
// (js, wasip1, windows, plan9).
func mapFile(f *os.File, size int) ([]byte, func([]byte) error, error) {
	b, err := readAll(f, size)
	return b, nil, err
}
