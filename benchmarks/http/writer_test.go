package httpbench

import (
	"bytes"
	"database/sql"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the driver engine/store/sqlitestore uses
)

// The store's writer is the serial part of every lookup (BenchmarkSidecar's
// trace: the one writer goroutine is busy all the run). BenchmarkWriter
// repeats, outside the package, what engine/store/sqlitestore's writer did
// for one batch of results before its redesign: the same schema (migration
// 1 of schema.go), the same pragmas (WAL, synchronous=FULL, BEGIN
// IMMEDIATE) and the same statements (insert of each result, one upsert of
// the report), in batches of 16 results (about what the writer commits at
// 32 connections), on the disk. Only the variable of each sub-benchmark
// changes. Its figures are why the store now uses time-ordered ids
// (engine/id.go) and checkpoints off the writer's path (sqlitestore's
// checkpoint.go); the third change, the WAL flushed by a goroutine of its
// own while the writer commits the next batch, is an overlap that a
// one-goroutine benchmark cannot show (BenchmarkSidecar and run.sh do).
//
//	ids=random       12 random [0-9a-z] characters, as engine's ids were before they began with the time
//	ids=ordered      the same length, but increasing (a time-ordered id)
//	checkpoint=off   wal_autocheckpoint=0: no checkpoint in the commits
//	cache=64MiB      cache_size=-65536 instead of the default 2 MiB
//	sync=normal      synchronous=NORMAL: no fsync per commit. Not a
//	                 proposal (an acknowledged result could be lost with the
//	                 machine); it prices the fsync.
//
// The database holds prefill results before the timer starts, so that the
// id index is of a size the sidecar reaches in a minute. One op is one
// result; results/s and written-B/result (bytes the process wrote to the
// storage layer, /proc/self/io, WAL and checkpoints) are reported.
//
//	go test -run '^$' -bench Writer -benchtime 20000x -count 5 ./benchmarks/http
func BenchmarkWriter(b *testing.B) {
	type config struct {
		name                   string
		ordered                bool
		sync                   string
		noCheckpoint, bigCache bool
	}
	for _, c := range []config{
		{name: "ids=random", sync: "FULL"},
		{name: "ids=ordered", ordered: true, sync: "FULL"},
		{name: "ids=random/checkpoint=off", sync: "FULL", noCheckpoint: true},
		{name: "ids=random/cache=64MiB", sync: "FULL", bigCache: true},
		{name: "ids=ordered/checkpoint=off/cache=64MiB", ordered: true, sync: "FULL", noCheckpoint: true, bigCache: true},
		{name: "ids=random/sync=normal", sync: "NORMAL"},
	} {
		b.Run(c.name, func(b *testing.B) {
			const prefill, batch = 100_000, 16
			q := url.Values{}
			q.Add("_pragma", "busy_timeout(5000)")
			q.Add("_pragma", "foreign_keys(1)")
			q.Add("_pragma", "journal_mode(WAL)")
			q.Add("_pragma", "synchronous("+c.sync+")")
			q.Add("_pragma", "journal_size_limit(67108864)")
			if c.noCheckpoint {
				q.Add("_pragma", "wal_autocheckpoint(0)")
			}
			if c.bigCache {
				q.Add("_pragma", "cache_size(-65536)")
			}
			q.Set("_txlock", "immediate")
			path := filepath.Join(b.TempDir(), "numen.db")
			db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String())
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(1)
			if _, err := db.Exec(schema); err != nil {
				b.Fatal(err)
			}
			insert, err := db.Prepare(insertSQL)
			if err != nil {
				b.Fatal(err)
			}
			upsert, err := db.Prepare(upsertSQL)
			if err != nil {
				b.Fatal(err)
			}
			ids := newIDs(c.ordered)
			appendBatch := func(n int) {
				tx, err := db.Begin()
				if err != nil {
					b.Fatal(err)
				}
				ins, ups := tx.Stmt(insert), tx.Stmt(upsert)
				ms := time.Now().UnixMilli()
				for range n {
					id := ids()
					res, err := ins.Exec(id, benchKey, "SYNC-API-NT-2026-11", "NT", ms, 10, resultBody(id))
					if err != nil {
						b.Fatal(err)
					}
					if k, err := res.RowsAffected(); err != nil || k != 1 {
						b.Fatalf("insert %s: %d rows, %v", id, k, err)
					}
				}
				if _, err := ups.Exec(benchKey, "SYNC-API-NT-2026-11", "NT", n, 10*n, ms, ms); err != nil {
					b.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			for range prefill / 1000 {
				appendBatch(1000)
			}
			if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
				b.Fatal(err)
			}
			written := writeBytes(b)
			b.ResetTimer()
			for done := 0; done < b.N; done += batch {
				appendBatch(min(batch, b.N-done))
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "results/s")
			b.ReportMetric(float64(writeBytes(b)-written)/float64(b.N), "written-B/result")
		})
	}
}

// schema, insertSQL and upsertSQL are engine/store/sqlitestore's
// (schema.go, migration 1; sqlitestore.go, setUp).
const schema = `
CREATE TABLE results (
	id         TEXT    NOT NULL PRIMARY KEY,
	account    TEXT    NOT NULL,
	storage    TEXT    NOT NULL,
	product    TEXT    NOT NULL CHECK (product IN ('HLR', 'MNP', 'NT')),
	created_ms INTEGER NOT NULL,
	cost       INTEGER NOT NULL,
	body       TEXT    NOT NULL
) STRICT;
CREATE INDEX results_report ON results (account, storage, created_ms, id);
CREATE TABLE reports (
	account  TEXT    NOT NULL,
	storage  TEXT    NOT NULL,
	product  TEXT    NOT NULL,
	count    INTEGER NOT NULL,
	cost     INTEGER NOT NULL,
	first_ms INTEGER NOT NULL,
	last_ms  INTEGER NOT NULL,
	PRIMARY KEY (account, storage, product)
) STRICT, WITHOUT ROWID;`

const insertSQL = `
INSERT INTO results (id, account, storage, product, created_ms, cost, body)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO NOTHING`

const upsertSQL = `
INSERT INTO reports (account, storage, product, count, cost, first_ms, last_ms)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (account, storage, product) DO UPDATE SET
	count    = count + excluded.count,
	cost     = cost + excluded.cost,
	first_ms = min(first_ms, excluded.first_ms),
	last_ms  = max(last_ms, excluded.last_ms)`

// newIDs returns a source of 12-character [0-9a-z] ids: random, or
// increasing (8 characters of a counter, then 4 random ones).
func newIDs(ordered bool) func() string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	r := rand.New(rand.NewPCG(1, 2))
	var n int64
	return func() string {
		var id [12]byte
		i := 0
		if ordered {
			n++
			c := strconv.FormatInt(n, 36)
			i = copy(id[:], strings.Repeat("0", 8-len(c))+c)
		}
		for ; i < len(id); i++ {
			id[i] = alphabet[r.IntN(36)]
		}
		return string(id[:])
	}
}

// resultBody is the stored JSON of the benchmark's NT result (what numen
// serve answers to run.sh's request), with its id.
func resultBody(id string) string {
	return `{"id":"` + id + `","number":"+442079460000","number_type":"LANDLINE","query_status":"OK","is_valid":true,"invalid_reason":null,"is_possibly_ported":false,"is_vanity_number":false,"qualifies_for_hlr_lookup":false,"mccmnc":null,"mcc":null,"mnc":null,"original_network_name":null,"original_country_name":"United Kingdom","original_country_code":"GB","original_country_prefix":"+44","regions":["London"],"timezones":["Europe/London"],"info_text":null,"cost":"0.0010","timestamp":"2026-11-22 02:35:38.184+0000","storage":"SYNC-API-NT-2026-11","route":"NT1"}`
}

// writeBytes is this process's write_bytes of /proc/self/io (bytes sent to
// the storage layer); 0 where there is no such file.
func writeBytes(b *testing.B) int64 {
	raw, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(raw) {
		if v, ok := bytes.CutPrefix(line, []byte("write_bytes: ")); ok {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	return 0
}
