package sqlitestore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
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
// benchmarks/README.md). A zero length is therefore the end of the
// records. A record that is cut short or whose checksum does not match is
// the end of the log too, if it is in the last segment: a write that a
// crash interrupted, never acknowledged (the writer acknowledges a group
// only once it is flushed, and starts a new segment only after that). In
// an earlier segment it is damage, and Open refuses the log rather than
// skip results.
//
// The writer takes a new segment when the next group would not fit. Segments
// are prepared ahead (segmentPreparer), under a temporary name, and renamed
// by the writer. The indexer deletes a segment once all its records are
// committed in the database.
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
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

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
	binary.LittleEndian.PutUint32(buf[start+4:], crc32.Checksum(payload, castagnoli))
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
	if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(b[4:]) {
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
	if e.Facts, err = store.FactsOf(e.Product, e.Result); err != nil {
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
	records []logged
	end     int64 // offset past the last good record
	torn    bool  // the records end in bytes that are not zeros
	size    int64 // the file's size
}

// readSegment reads the records of segment n in dir from offset from (0:
// from the first record). It stops at the end of the records (errLogEnd)
// and reports whether non-zero bytes follow them.
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
	sc := segmentScan{end: from, size: int64(len(data))}
	for {
		e, size, err := readRecord(data[sc.end:])
		if errors.Is(err, errLogEnd) {
			break
		}
		if err != nil {
			return segmentScan{}, fmt.Errorf("%s at offset %d: %w", path, sc.end, err)
		}
		sc.end += int64(size)
		sc.records = append(sc.records, logged{entry: e, segment: n, end: sc.end})
	}
	rest := data[sc.end:]
	sc.torn = len(bytes.TrimRight(rest, "\x00")) > 0
	return sc, nil
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
