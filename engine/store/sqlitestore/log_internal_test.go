package sqlitestore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/facts"
)

// FuzzReadRecord reads a record back from what appendRecord wrote of the
// fuzzed fields, and reads the fuzzed bytes as a log: a record that reads
// is one whose checksum matches, and nothing panics.
func FuzzReadRecord(f *testing.F) {
	f.Add("2rwwh8ke2zy1", "acct", "SYNC-API-NT-2026-11", "NT", int64(1_763_000_000_000), int64(10), []byte(`{"id":"2rwwh8ke2zy1"}`), []byte{})
	f.Add("a", "b", "c", "HLR", int64(-1), int64(0), []byte("x"), []byte{5, 0, 0, 0, 1, 2, 3, 4, 'a'})
	f.Add("b", "acct", "S", "HLR", int64(1), int64(0), []byte(`{"msisdn":"+4915123456789","connectivity_status":"CONNECTED","mccmnc":"26201","original_network_name":"Telekom"}`), []byte{})
	f.Fuzz(func(t *testing.T, id, account, storage, product string, millis, cost int64, result, raw []byte) {
		e := store.Entry{ID: id, Account: account, Storage: storage, Product: engine.Product(product), Millis: millis, Cost: engine.Money(cost), Result: result}
		rec := appendRecord([]byte("prefix"), &e)
		got, size, err := readRecord(rec[len("prefix"):])
		facts, factsErr := facts.FromJSON(e.Product, result)
		if id == "" || account == "" || storage == "" || len(result) == 0 || factsErr != nil {
			if err == nil {
				t.Fatalf("a record with an empty field or a result that is not a result object read back: %+v", got)
			}
		} else {
			e.Facts = facts
			if err != nil {
				t.Fatal(err)
			}
			if size != len(rec)-len("prefix") {
				t.Fatalf("size %d, want %d", size, len(rec)-len("prefix"))
			}
			if diff := cmp.Diff(e, got); diff != "" {
				t.Fatalf("read back (-wrote +read):\n%s", diff)
			}
		}

		// Any bytes: a record, the end, or an error; never a panic.
		got, size, err = readRecord(raw)
		switch {
		case errors.Is(err, errLogEnd):
		case err != nil:
		default:
			if size > len(raw) || size < recordHeader {
				t.Fatalf("size %d of %d bytes", size, len(raw))
			}
			n := binary.LittleEndian.Uint32(raw)
			if int(n)+recordHeader != size {
				t.Fatalf("size %d for a payload of %d", size, n)
			}
			again, _, err := readRecord(appendRecord(nil, &got))
			if err != nil {
				t.Fatalf("record %q reads as %+v, which does not read back: %v", raw[:size], got, err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Fatalf("record %q read back (-first +second):\n%s", raw[:size], diff)
			}
		}
	})
}

// FuzzRepairBit flips any one bit of a record, followed by zeros as in a
// prepared segment, and requires repairBit to restore the record exactly;
// and reads fuzzed bytes as a segment's tail without panicking, any
// repair leaving a record that reads.
func FuzzRepairBit(f *testing.F) {
	f.Add("2rwwh8ke2zy1", "acct", "SYNC-API-NT-2026-11", []byte(`{"id":"2rwwh8ke2zy1","number":"+4915123456789"}`), uint32(0), []byte{})
	f.Add("a", "b", "c", []byte(`{}`), uint32(37), []byte{9, 0, 0, 0, 1, 2, 3, 4, 'a', 'b'})
	f.Add("id", "account", "S", []byte(`{"x":1}`), uint32(1<<20), []byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, id, account, storage string, result []byte, bit uint32, raw []byte) {
		e := store.Entry{ID: id, Account: account, Storage: storage, Product: engine.ProductNT, Millis: 1, Cost: 2, Result: result}
		rec := appendRecord(nil, &e)
		seg := append(append([]byte(nil), rec...), make([]byte, 64)...)
		pos := int(bit % uint32(len(rec)*8))
		seg[pos/8] ^= 1 << (pos % 8)
		if !repairBit(seg) {
			t.Fatalf("bit %d of a %d-byte record not repaired", pos, len(rec))
		}
		if !bytes.Equal(seg[:len(rec)], rec) {
			t.Fatalf("bit %d: repaired to other bytes", pos)
		}

		b := append([]byte(nil), raw...)
		if repairBit(b) {
			if _, _, err := readRecord(b); errors.Is(err, errLogEnd) {
				t.Fatalf("repaired %q to %q, which does not read", raw, b)
			}
		}
		_ = resync(raw, 0)
	})
}
