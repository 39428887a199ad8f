package enumserver

import (
	"testing"
	"unsafe"
)

// The limiter's memory is what the documentation says: 16,384 buckets of
// 64 bytes.
func TestLimiterSize(t *testing.T) {
	if n := unsafe.Sizeof(bucket{}); n != 64 {
		t.Fatalf("a bucket is %d bytes", n)
	}
}
