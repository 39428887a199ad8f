package portdb

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// sealBody recomputes the body checksum and then the header's, so that a
// fixture reaches the check it is about.
func sealBody(b []byte) {
	h := int(binary.LittleEndian.Uint32(b[offHeaderLen:]))
	binary.LittleEndian.PutUint32(b[offBodyCRC:], crc32.Checksum(b[h:], castagnoli))
	sealHeader(b)
}

func sealHeader(b []byte) {
	h := int(binary.LittleEndian.Uint32(b[offHeaderLen:]))
	binary.LittleEndian.PutUint32(b[offHeaderCRC:], 0)
	binary.LittleEndian.PutUint32(b[offHeaderCRC:], crc32.Checksum(b[:h], castagnoli))
}

// entryOffset returns the file offset of number entry i (ranges: range
// entry i).
func entryOffset(b []byte, i int, ranges bool) int {
	h, err := parseHeader(b)
	if err != nil {
		panic(err)
	}
	_, nums, _, rngs, _ := h.bodyLayout()
	if ranges {
		return h.headerLen + rngs + 8*i
	}
	return h.headerLen + nums + 8*i
}

func TestCorruptFiles(t *testing.T) {
	good := buildBytes(t, readSample(t), "DE", "AT")
	le := binary.LittleEndian
	tests := []struct {
		name    string
		corrupt func(b []byte) []byte
		atOpen  bool   // Open refuses it; else Open accepts and Verify refuses
		want    string // in the error
		version bool   // ErrVersion rather than ErrCorrupt
	}{
		{name: "empty", atOpen: true, want: "truncated header", corrupt: func(b []byte) []byte { return b[:0] }},
		{name: "truncated header", atOpen: true, want: "truncated header", corrupt: func(b []byte) []byte { return b[:40] }},
		{name: "truncated variable header", atOpen: true, want: "header length", corrupt: func(b []byte) []byte { return b[:fixedHeaderSize+4] }},
		{name: "truncated body", atOpen: true, want: "truncated or padded", corrupt: func(b []byte) []byte { return b[:len(b)-8] }},
		{name: "body cut mid-entry", atOpen: true, want: "truncated or padded", corrupt: func(b []byte) []byte { return b[:len(b)-3] }},
		{name: "trailing bytes", atOpen: true, want: "truncated or padded", corrupt: func(b []byte) []byte { return append(b, 0, 0, 0, 0, 0, 0, 0, 0) }},
		{name: "bad magic", atOpen: true, want: "bad magic", corrupt: func(b []byte) []byte { b[0] = 'X'; return b }},
		{name: "short garbage", atOpen: true, want: "bad magic", corrupt: func(b []byte) []byte { return []byte("hello, world") }},
		{name: "newer version", atOpen: true, want: "format version 2", version: true, corrupt: func(b []byte) []byte {
			le.PutUint16(b[offVersion:], 2)
			return b
		}},
		{name: "flipped bit in header", atOpen: true, want: "header checksum", corrupt: func(b []byte) []byte { b[fixedHeaderSize+1] ^= 0x20; return b }},
		{name: "flipped bit in count", atOpen: true, want: "header checksum", corrupt: func(b []byte) []byte { b[offNumbers] ^= 1; return b }},
		{name: "count disagrees with body", atOpen: true, want: "body length", corrupt: func(b []byte) []byte {
			le.PutUint64(b[offNumbers:], le.Uint64(b[offNumbers:])+1)
			sealHeader(b)
			return b
		}},
		{name: "huge count", atOpen: true, want: "entry counts", corrupt: func(b []byte) []byte {
			le.PutUint64(b[offNumbers:], 1<<62)
			sealHeader(b)
			return b
		}},
		{name: "header length unaligned", atOpen: true, want: "header length", corrupt: func(b []byte) []byte {
			le.PutUint32(b[offHeaderLen:], le.Uint32(b[offHeaderLen:])+4)
			sealHeader(b)
			return b
		}},
		{name: "header length beyond file", atOpen: true, want: "header length", corrupt: func(b []byte) []byte {
			le.PutUint32(b[offHeaderLen:], 1<<30)
			return b
		}},
		{name: "sample stride", atOpen: true, want: "sample stride", corrupt: func(b []byte) []byte {
			b[offShift] = 40
			sealHeader(b)
			return b
		}},
		{name: "range mask without ranges", atOpen: true, want: "range length mask", corrupt: func(b []byte) []byte {
			le.PutUint16(b[offRangeMask:], 0)
			sealHeader(b)
			return b
		}},
		{name: "range mask beyond 15 digits", atOpen: true, want: "range length mask", corrupt: func(b []byte) []byte {
			le.PutUint16(b[offRangeMask:], 1<<0|1<<5)
			sealHeader(b)
			return b
		}},
		{name: "bad region", atOpen: true, want: "region", corrupt: func(b []byte) []byte {
			b[fixedHeaderSize] = 'a'
			sealHeader(b)
			return b
		}},
		{name: "bad MCCMNC", atOpen: true, want: "MCCMNC", corrupt: func(b []byte) []byte {
			b[fixedHeaderSize+2*regionSize] = 'x'
			sealHeader(b)
			return b
		}},
		{name: "network name overrun", atOpen: true, want: "network name", corrupt: func(b []byte) []byte {
			le.PutUint16(b[fixedHeaderSize+2*regionSize+6:], 60000)
			sealHeader(b)
			return b
		}},
		{name: "reserved field", atOpen: true, want: "reserved", corrupt: func(b []byte) []byte {
			b[offReserved11] = 1
			sealHeader(b)
			return b
		}},
		{name: "flipped bit in body", want: "body checksum", corrupt: func(b []byte) []byte { b[len(b)-5] ^= 0x10; return b }},
		{name: "unsorted entries", want: "not above the previous entry", corrupt: func(b []byte) []byte {
			i, j := entryOffset(b, 0, false), entryOffset(b, 1, false)
			x, y := slices.Clone(b[i:i+8]), slices.Clone(b[j:j+8])
			copy(b[i:], y)
			copy(b[j:], x)
			sealBody(b)
			return b
		}},
		{name: "duplicate entry", want: "not above the previous entry", corrupt: func(b []byte) []byte {
			i, j := entryOffset(b, 1, false), entryOffset(b, 2, false)
			copy(b[j:j+8], b[i:i+8])
			sealBody(b)
			return b
		}},
		{name: "network index out of range", want: "network index 99 out of range", corrupt: func(b []byte) []byte {
			i := entryOffset(b, 1, false)
			le.PutUint64(b[i:], le.Uint64(b[i:])&^netMask|99)
			sealBody(b)
			return b
		}},
		{name: "sixteen-digit value", want: "not 1 to 15 digits", corrupt: func(b []byte) []byte {
			i := entryOffset(b, 3, false)
			le.PutUint64(b[i:], (1<<50-1)<<netBits)
			sealBody(b)
			return b
		}},
		{name: "zero value", want: "not 1 to 15 digits", corrupt: func(b []byte) []byte {
			i := entryOffset(b, 0, true)
			le.PutUint64(b[i:], 0)
			sealBody(b)
			return b
		}},
		{name: "uncovered calling code", want: "not in a covered calling code", corrupt: func(b []byte) []byte {
			i := entryOffset(b, 3, false)
			le.PutUint64(b[i:], 99999999999999<<netBits)
			sealBody(b)
			return b
		}},
		{name: "number that is only a calling code", want: "not in a covered calling code", corrupt: func(b []byte) []byte {
			i := entryOffset(b, 0, false)
			le.PutUint64(b[i:], 43<<netBits)
			sealBody(b)
			return b
		}},
		{name: "wrong sample", want: "sample 0", corrupt: func(b []byte) []byte {
			i := entryOffset(b, 0, false) - 8 // the only sample of the numbers
			le.PutUint64(b[i:], le.Uint64(b[i:])+1)
			sealBody(b)
			return b
		}},
		{name: "range mask disagrees", want: "range length mask", corrupt: func(b []byte) []byte {
			le.PutUint16(b[offRangeMask:], le.Uint16(b[offRangeMask:])|1<<14)
			sealHeader(b)
			return b
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.corrupt(slices.Clone(good))
			db, err := OpenBytes(b)
			if tt.atOpen {
				require.Error(t, err)
			} else {
				require.NoError(t, err, "Open checks only the structure")
				// Whatever the damage, lookups stay in bounds.
				for _, d := range []string{"4915112345678", "4917612345678", "436641234567", "4915112000000", "4930123"} {
					db.Lookup(d)
				}
				err = db.Verify()
				require.Error(t, err)
				_, err2 := OpenBytes(b, WithVerify())
				require.Equal(t, err, err2, "WithVerify refuses what Verify finds")
			}
			var fe *FormatError
			require.ErrorAs(t, err, &fe)
			require.Contains(t, fe.Error(), tt.want)
			if tt.version {
				require.ErrorIs(t, err, ErrVersion)
				require.NotErrorIs(t, err, ErrCorrupt)
			} else {
				require.ErrorIs(t, err, ErrCorrupt)
			}
			if fe.Offset >= 0 {
				require.LessOrEqual(t, fe.Offset, int64(max(len(b), len(good))))
			}
		})
	}
}

// A damaged network index that Open cannot see is an error of the
// lookup, never another network's answer.
func TestLookupCorruptNetwork(t *testing.T) {
	b := buildBytes(t, readSample(t), "DE", "AT")
	for i := range 4 {
		off := entryOffset(b, i, false)
		binary.LittleEndian.PutUint64(b[off:], binary.LittleEndian.Uint64(b[off:])|netMask)
	}
	db, err := OpenBytes(b)
	require.NoError(t, err)
	r := db.Lookup("4915112345678")
	require.False(t, r.Found())
	require.Empty(t, r.MCCMNC())
	require.ErrorIs(t, r.Err(), ErrCorrupt)
}
