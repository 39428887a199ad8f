package sqlitestore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/facts"
)

// The results log is where a result becomes durable: the writer appends
// each group of results to it in one write and flushes it with one
// fdatasync before their Records return, and the indexer copies them into
// the database afterwards, off the lookups' path ("Durability" in the
// package documentation).
//
// The log is a directory (LogDir, in the store's directory) of segment
// files named by their number, 0000000000000001.log and up. A segment
// starts with a 12-byte header, "NUMENLOG" and a little-endian uint32
// version (1), and holds records one after another:
//
//	uint32 LE  n, the length of the payload (1 to maxRecord)
//	uint32 LE  CRC-32C (Castagnoli) of the payload
//	payload    uvarint length and bytes of the id, account, storage name
//	           and product, in that order; varint completion time in Unix
//	           milliseconds; varint cost; then the result object (JSON)
//	           to the end of the payload
//
// A new segment is filled with zeros to segmentSize and flushed before the
// writer takes it, so that a flush of appended records changes no file
// size or extent (an fdatasync then writes only data: half the CPU and
// latency of one that grows the file, on the machine of
// benchmarks/README.md). A zero length followed by zeros only is therefore
// the end of the records.
//
// # Damage
//
// A record whose checksum does not match is read again with each one bit
// flipped, in its payload, its length or its checksum: CRC-32C has a
// Hamming distance of at least 4 at any length a record can have, so one
// flipped bit is found and undone exactly, and two never pass for one.
// Open writes the repaired bytes back and reports the repair.
//
// Bytes that hold no readable record otherwise are skipped: the reader
// looks for the next offset at which a whole record reads with its
// checksum (resynchronising), and goes on from there, so the records after
// the damage are kept. What it skipped is reported (segment and offset):
//
//   - at the end of the last segment, with no record after it, it is a
//     write that a crash interrupted, never acknowledged (the writer
//     acknowledges a group only once it is flushed, and starts a new
//     segment only after that): Open copies the bytes to the damaged
//     directory of the log and zeroes them, and the log goes on there;
//   - anywhere else it is damage to acknowledged results: Open refuses to
//     start, naming the segment and offset, unless told to start anyway
//     (WithStartAnyway, which "numen data recover" uses): then it copies
//     the damaged bytes to the damaged directory, commits the records
//     after them, and reports them as lost.
//
// The writer takes a new segment when the next group would not fit. Segments
// are prepared ahead (segmentPreparer), under a temporary name, and renamed
// by the writer. A segment is deleted only once all its records are
// committed in the database, the database has passed a check since and
// the segment is older than the log's retention (prune.go).
const (
	// LogDir is the directory of the results log in the store's directory.
	LogDir = "results-log"

	segmentMagic   = "NUMENLOG"
	segmentVersion = 1
	segmentHeader  = 12
	recordHeader   = 8
	// maxRecord bounds the payload length a reader accepts: a length
	// beyond it is damage, not a record.
	maxRecord = 64 << 20
	// segmentSize is the size segments are prepared to: about 20,000
	// results of 800 bytes.
	segmentSize = 16 << 20
	// preparedName is the name of the next segment while it is prepared
	// and until the writer takes it.
	preparedName = "next.prepared"
	// damagedDir is the directory of the log where the bytes of damaged
	// records are copied (damagedName) before they are zeroed or skipped.
	damagedDir = "damaged"
)

// damagedName is the name, in damagedDir, of the copy of the damaged bytes
// at offset off of segment seg.
func damagedName(seg uint64, off int64) string { return fmt.Sprintf("%016d-%d.bad", seg, off) }

// castagnoli returns the CRC-32C table, built at its first use rather than
// when the program starts.
func castagnoli() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// segmentName is the file name of segment n.
func segmentName(n uint64) string { return fmt.Sprintf("%016d.log", n) }

// parseSegmentName returns the number of a segment's file name.
func parseSegmentName(name string) (uint64, bool) {
	num, ok := strings.CutSuffix(name, ".log")
	if !ok || len(num) != 16 {
		return 0, false
	}
	n, err := strconv.ParseUint(num, 10, 64)
	return n, err == nil && n > 0
}

// appendRecord appends e's record to buf.
func appendRecord(buf []byte, e *store.Entry) []byte {
	start := len(buf)
	buf = append(buf, make([]byte, recordHeader)...)
	for _, s := range [...]string{e.ID, e.Account, e.Storage, string(e.Product)} {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	buf = binary.AppendVarint(buf, e.Millis)
	buf = binary.AppendVarint(buf, int64(e.Cost))
	buf = append(buf, e.Result...)
	payload := buf[start+recordHeader:]
	binary.LittleEndian.PutUint32(buf[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(buf[start+4:], crc32.Checksum(payload, castagnoli()))
	return buf
}

// errLogEnd is what readRecord returns at the end of the records: zeros,
// or a record cut short or damaged.
var errLogEnd = errors.New("end of the log")

// readRecord decodes the record at the start of b and returns it and its
// size. Its strings and result refer to b. At zeros, or a record that is
// cut short or does not match its checksum, it returns errLogEnd; a record
// whose checksum matches but whose payload does not decode is an error
// that names the problem.
func readRecord(b []byte) (e store.Entry, size int, err error) {
	if len(b) < recordHeader {
		return e, 0, errLogEnd
	}
	n := binary.LittleEndian.Uint32(b)
	if n == 0 || n > maxRecord || int64(n) > int64(len(b)-recordHeader) {
		return e, 0, errLogEnd
	}
	payload := b[recordHeader : recordHeader+int(n)]
	if crc32.Checksum(payload, castagnoli()) != binary.LittleEndian.Uint32(b[4:]) {
		return e, 0, errLogEnd
	}
	var fields [4]string
	for i := range fields {
		l, k := binary.Uvarint(payload)
		if k <= 0 || l > uint64(len(payload)-k) {
			return e, 0, fmt.Errorf("record field %d: bad length", i+1)
		}
		fields[i] = string(payload[k : k+int(l)])
		payload = payload[k+int(l):]
	}
	millis, k := binary.Varint(payload)
	if k <= 0 {
		return e, 0, errors.New("record time: bad varint")
	}
	payload = payload[k:]
	cost, k := binary.Varint(payload)
	if k <= 0 {
		return e, 0, errors.New("record cost: bad varint")
	}
	e = store.Entry{
		ID: fields[0], Account: fields[1], Storage: fields[2], Product: engine.Product(fields[3]),
		Millis: millis, Cost: engine.Money(cost), Result: payload[k:],
	}
	if e.ID == "" || e.Account == "" || e.Storage == "" || len(e.Result) == 0 {
		return e, 0, errors.New("record: an empty field")
	}
	// The facts are not in the record: read from the result, as EntryOf
	// took them from the result before it was encoded.
	if e.Facts, err = facts.FromJSON(e.Product, e.Result); err != nil {
		return e, 0, fmt.Errorf("record %q: %w", e.ID, err)
	}
	return e, recordHeader + int(n), nil
}

// logged is a result in the log: its entry and where its record ends.
type logged struct {
	entry   store.Entry
	segment uint64
	end     int64 // offset just past its record
}

// segmentScan is what readSegment found in a segment.
type segmentScan struct {
	records  []logged
	end      int64    // offset past the last good record
	size     int64    // the file's size
	damaged  []damage // bytes that hold no readable record, in order
	repaired []int64  // offsets of records repaired of one flipped bit
	data     []byte   // the segment's bytes, with the repairs
}

// damage is a stretch of a segment that holds no readable record.
type damage struct {
	segment      uint64
	offset, size int64
	// tail: no record reads after it in its segment. At the end of the
	// last segment, that is a write a crash interrupted.
	tail bool
}

func (d damage) String() string {
	return fmt.Sprintf("%s has %d unreadable bytes at offset %d", segmentName(d.segment), d.size, d.offset)
}

// readSegment reads the records of segment n in dir from offset from (0:
// from the first record). It repairs records with one flipped bit, skips
// bytes that hold no readable record to the next record that reads
// (resync), and stops at zeros that go to the end of the file.
func readSegment(dir string, n uint64, from int64) (segmentScan, error) {
	path := filepath.Join(dir, segmentName(n))
	data, err := os.ReadFile(path)
	if err != nil {
		return segmentScan{}, err
	}
	if len(data) < segmentHeader || string(data[:8]) != segmentMagic {
		return segmentScan{}, fmt.Errorf("%s: not a segment of the results log (no %s header)", path, segmentMagic)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != segmentVersion {
		return segmentScan{}, fmt.Errorf("%s: results log version %d, want %d: open it with a newer numen", path, v, segmentVersion)
	}
	if from < segmentHeader {
		from = segmentHeader
	}
	if from > int64(len(data)) {
		return segmentScan{}, fmt.Errorf("%s: the database has indexed it to offset %d, past its end (%d)", path, from, len(data))
	}
	sc := segmentScan{end: from, size: int64(len(data)), data: data}
	used := int64(len(bytes.TrimRight(data, "\x00"))) // past it, zeros only
	off := from
	for off < used {
		e, size, err := readRecord(data[off:])
		if errors.Is(err, errLogEnd) && repairBit(data[off:used]) {
			sc.repaired = append(sc.repaired, off)
			e, size, err = readRecord(data[off:])
		}
		if errors.Is(err, errLogEnd) {
			next := resync(data[:used], off)
			d := damage{segment: n, offset: off, size: next - off, tail: next == used}
			sc.damaged = append(sc.damaged, d)
			off = next
			continue
		}
		if err != nil {
			return segmentScan{}, fmt.Errorf("%s at offset %d: %w", path, off, err)
		}
		off += int64(size)
		sc.end = off
		sc.records = append(sc.records, logged{entry: e, segment: n, end: off})
	}
	return sc, nil
}

// resync returns the offset after off at which the next whole record of b
// reads, or len(b) when none does.
func resync(b []byte, off int64) int64 {
	for q := off + 1; q+recordHeader <= int64(len(b)); q++ {
		n := binary.LittleEndian.Uint32(b[q:])
		if n == 0 || n > maxRecord || int64(n) > int64(len(b))-q-recordHeader {
			continue
		}
		if crc32.Checksum(b[q+recordHeader:q+recordHeader+int64(n)], castagnoli()) != binary.LittleEndian.Uint32(b[q+4:]) {
			continue
		}
		if _, _, err := readRecord(b[q:]); err == nil {
			return q
		}
	}
	return int64(len(b))
}

// repairBit repairs, in place, a record at the start of b that is one
// flipped bit away from one whose checksum matches, and reports whether it
// did. The bit may be in the payload, the checksum or the length (then the
// bytes after the repaired record must be another record or zeros).
func repairBit(b []byte) bool {
	if len(b) < recordHeader {
		return false
	}
	n := binary.LittleEndian.Uint32(b)
	stored := binary.LittleEndian.Uint32(b[4:])
	fits := func(n uint32) bool { return n > 0 && n <= maxRecord && int64(n) <= int64(len(b)-recordHeader) }
	if fits(n) {
		payload := b[recordHeader : recordHeader+int(n)]
		syndrome := crc32.Checksum(payload, castagnoli()) ^ stored
		if bits.OnesCount32(syndrome) == 1 { // the checksum's bit
			binary.LittleEndian.PutUint32(b[4:], stored^syndrome)
			return true
		}
		if pos, ok := flippedBit(syndrome, len(payload)); ok {
			payload[pos/8] ^= 1 << (pos % 8)
			return true
		}
	}
	for k := range 32 {
		m := n ^ 1<<k
		if !fits(m) || crc32.Checksum(b[recordHeader:recordHeader+int(m)], castagnoli()) != stored {
			continue
		}
		rest := b[recordHeader+int(m):]
		if _, _, err := readRecord(rest); err == nil || len(bytes.TrimRight(rest, "\x00")) == 0 {
			binary.LittleEndian.PutUint32(b, m)
			return true
		}
	}
	return false
}

// flippedBit returns the position (byte*8 + bit) of the one bit of an
// n-byte payload whose flip changes its CRC-32C by syndrome, if there is
// one. CRC is linear: the change a bit makes depends only on its distance
// from the end, and is the CRC register, from zero, after that bit and the
// zeros that follow it. Walked from the last byte back, one table step per
// byte and bit.
func flippedBit(syndrome uint32, n int) (int, bool) {
	if syndrome == 0 {
		return 0, false
	}
	tab := castagnoli()
	var reg [8]uint32
	for k := range reg {
		reg[k] = tab[byte(1<<k)] // the register after the byte 1<<k
	}
	for i := n - 1; i >= 0; i-- {
		for k := range reg {
			if reg[k] == syndrome {
				return i*8 + k, true
			}
			reg[k] = tab[byte(reg[k])] ^ reg[k]>>8 // one zero byte more
		}
	}
	return 0, false
}

// listSegments returns the numbers of the segments in dir, in order.
func listSegments(dir string) ([]uint64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var segs []uint64
	for _, de := range entries {
		if n, ok := parseSegmentName(de.Name()); ok {
			segs = append(segs, n)
		}
	}
	slices.Sort(segs)
	return segs, nil
}

// prepareSegment writes a new segment's file under tmp: the header, then
// zeros to size, flushed to disk.
func prepareSegment(tmp string, size int64) (err error) {
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(tmp)
		}
	}()
	header := make([]byte, segmentHeader)
	copy(header, segmentMagic)
	binary.LittleEndian.PutUint32(header[8:], segmentVersion)
	if _, err := f.Write(header); err != nil {
		return err
	}
	if err := writeZeros(f, size-segmentHeader); err != nil {
		return err
	}
	return f.Sync()
}

// writeZeros writes n zero bytes to f at its offset.
func writeZeros(f *os.File, n int64) error {
	zeros := make([]byte, min(n, 1<<20))
	for n > 0 {
		k, err := f.Write(zeros[:min(n, int64(len(zeros)))])
		if err != nil {
			return err
		}
		n -= int64(k)
	}
	return nil
}

// resultsLog is the writer's side of the log: the segment it appends to.
// Only the writer goroutine uses it (and Open and Close, before and after).
type resultsLog struct {
	dir  string
	max  int64 // the size of a segment
	f    *os.File
	seg  uint64 // the segment f is
	size int64  // where the next record goes in f

	// The next segment, prepared by a goroutine while the writer fills
	// this one: the result arrives on prepared.
	prepared chan error
	sync     func(*os.File) error
}

// openLog opens the log in dir to append at offset end of segment seg, or,
// when seg is 0, in a new segment numbered next; and it starts preparing
// the segment after.
func openLog(dir string, size int64, seg uint64, end int64, next uint64, sync func(*os.File) error) (*resultsLog, error) {
	l := &resultsLog{dir: dir, max: size, sync: sync}
	if seg == 0 {
		if err := prepareSegment(filepath.Join(dir, preparedName), size); err != nil {
			return nil, err
		}
		if err := l.take(next); err != nil {
			return nil, err
		}
	} else {
		f, err := os.OpenFile(filepath.Join(dir, segmentName(seg)), os.O_RDWR, 0)
		if err != nil {
			return nil, err
		}
		l.f, l.seg, l.size = f, seg, end
	}
	l.prepare()
	return l, nil
}

// prepare starts preparing the next segment.
func (l *resultsLog) prepare() {
	l.prepared = make(chan error, 1)
	go func(done chan<- error) { done <- prepareSegment(filepath.Join(l.dir, preparedName), l.max) }(l.prepared)
}

// take makes the prepared segment segment n, the one the writer appends
// to, and syncs the directory so that its name is on disk before any
// record in it is acknowledged.
func (l *resultsLog) take(n uint64) error {
	if err := os.Rename(filepath.Join(l.dir, preparedName), filepath.Join(l.dir, segmentName(n))); err != nil {
		return err
	}
	if err := syncDir(l.dir); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(l.dir, segmentName(n)), os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if l.f != nil {
		l.f.Close()
	}
	l.f, l.seg, l.size = f, n, segmentHeader
	return nil
}

// append writes records (whole records, appendRecord's) in one write and
// flushes them. It returns the segment they are in and where they start.
// When they would not fit in the segment, it moves to the next one first
// (a group larger than a segment still goes into one, which grows).
func (l *resultsLog) append(records []byte) (seg uint64, start int64, err error) {
	if l.size > segmentHeader && l.size+int64(len(records)) > l.max {
		if err := <-l.prepared; err != nil {
			l.prepared = nil
			return 0, 0, fmt.Errorf("prepare the next segment of the results log: %w", err)
		}
		if err := l.take(l.seg + 1); err != nil {
			return 0, 0, fmt.Errorf("start segment %s of the results log: %w", segmentName(l.seg+1), err)
		}
		l.prepare()
	}
	if _, err := l.f.WriteAt(records, l.size); err != nil {
		return 0, 0, fmt.Errorf("write %s: %w", l.f.Name(), err)
	}
	if err := l.sync(l.f); err != nil {
		return 0, 0, fmt.Errorf("flush %s: %w", l.f.Name(), err)
	}
	start = l.size
	l.size += int64(len(records))
	return l.seg, start, nil
}

// close closes the segment file and waits for the preparation of the next
// one (its file stays for the next Open, which prepares again).
func (l *resultsLog) close() error {
	if l.prepared != nil {
		<-l.prepared
	}
	return l.f.Close()
}

// zeroTail writes zeros over the bytes of segment n from offset end to
// size (a record a crash cut short) and flushes them, so that the records
// appended at end are followed by zeros again.
func zeroTail(dir string, n uint64, end, size int64) error {
	f, err := os.OpenFile(filepath.Join(dir, segmentName(n)), os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		return err
	}
	if err := writeZeros(f, size-end); err != nil {
		return err
	}
	return f.Sync()
}
