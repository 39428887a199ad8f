package pgstore

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// The indexer adds the counts that commits left in counts_pending to
// their reports (reports) and summaries (report_facets), off the
// lookups' path; see "Reports and summaries" in the package
// documentation.
const (
	// indexBatch is the most rows of counts_pending (each the counts of
	// one or more results) one transaction of the indexer takes.
	indexBatch = 4096
	// indexDrainTimeout bounds the indexer's last pass when the store
	// closes (what it leaves is indexed by the next store to open).
	indexDrainTimeout = 10 * time.Second
)

// indexDelay is how long the indexer lets results gather after a commit
// woke it: larger groups cost the server less per result, and reads count
// the pending results meanwhile. Tests change it (SetIndexDelay).
var indexDelay = 20 * time.Millisecond

// vacuumAfter is how long after a pass that took results the indexer
// vacuums counts_pending (vacuumPending): under load once a second, and
// once after the last pass of a burst.
const vacuumAfter = time.Second

// indexRetry is the pause before the indexer tries a failed transaction
// again. Tests change it (SetIndexRetry).
var indexRetry = time.Second

// indexSQL moves up to $1 rows of counts_pending into their reports and
// summaries, in one statement (a transaction of its own): it deletes
// them, skipping the rows another node's indexer has locked (so that
// indexers share the work and count each result once), and adds their
// counts and costs to reports and report_facets, both in the order of
// the rows' keys (so that indexers lock the rows in the same order and
// never deadlock). A crash before the commit leaves the counts pending;
// after it, counted: the deletion and the counts commit together. It
// returns the number of rows it took and of the results they counted.
// The comment names the statement in pg_stat_activity.
const indexSQL = `/* pgstore indexer */
WITH taken AS (
	DELETE FROM counts_pending p
	WHERE p.ctid = ANY (ARRAY(SELECT ctid FROM counts_pending LIMIT $1 FOR UPDATE SKIP LOCKED))
	RETURNING p.*
), reported AS (
	INSERT INTO reports AS r (account, storage, product, count, cost, first_ms, last_ms)
	SELECT account, storage, product, sum(count), sum(cost), min(first_ms), max(last_ms)
	FROM taken GROUP BY account, storage, product
	ORDER BY account, storage, product
	ON CONFLICT (account, storage, product) DO UPDATE SET
		count    = r.count + excluded.count,
		cost     = r.cost + excluded.cost,
		first_ms = least(r.first_ms, excluded.first_ms),
		last_ms  = greatest(r.last_ms, excluded.last_ms)
), tallied AS (
	INSERT INTO report_facets AS f (account, storage, field, value, label, count, cost)
	SELECT a.account, a.storage, v.field, v.value, max(v.label), sum(a.count), sum(a.cost)
	FROM taken a CROSS JOIN LATERAL (VALUES ` + factsSQL + `) AS v (field, value, label)
	GROUP BY a.account, a.storage, v.field, v.value
	ORDER BY a.account, a.storage, v.field, v.value
	ON CONFLICT (account, storage, field, value) DO UPDATE SET
		count = f.count + excluded.count,
		cost  = f.cost + excluded.cost,
		label = CASE WHEN excluded.label <> '' THEN excluded.label ELSE f.label END
)
SELECT count(*), coalesce(sum(count), 0)::bigint FROM taken`

// factsSQL are the rows of report_facets that a row a of counts_pending
// counts in: a field, its value and label, each. The day is the date in
// UTC of the completion time (facts.Day), a's whole days since 1970 added
// to its first.
const factsSQL = `('product', a.product, ''), ('status', a.status, ''),
		('connectivity', a.connectivity, ''), ('number_type', a.number_type, ''),
		('country', a.country, a.country_name), ('network', a.network, a.network_name),
		('valid', a.valid, ''), ('invalid_reason', a.invalid_reason, ''), ('route', a.route, ''),
		('day', to_char(date '1970-01-01' + a.day, 'YYYY-MM-DD'), '')`

// summarySQL reads a report's summary ($1 account, $2 report): its rows of
// report_facets, then the counts of its pending results (pending true), in
// one statement, so in one snapshot: a result is counted in one or the
// other, never both or neither. readSummary adds them up.
const summarySQL = `
SELECT field, value, label, count, cost, false FROM report_facets WHERE account = $1 AND storage = $2
UNION ALL
SELECT v.field, v.value, max(v.label), sum(a.count)::bigint, sum(a.cost)::bigint, true
FROM counts_pending a
CROSS JOIN LATERAL (VALUES ` + factsSQL + `) AS v (field, value, label)
WHERE a.account = $1 AND a.storage = $2
GROUP BY v.field, v.value`

// reportsSQL reads the rows of an account's reports ($1) per report and
// product, then the counts of their pending results, as summarySQL does.
const reportsSQL = `
SELECT storage, product, count, cost, first_ms, last_ms FROM reports WHERE account = $1
UNION ALL
SELECT storage, product, sum(count)::bigint, sum(cost)::bigint, min(first_ms), max(last_ms)
FROM counts_pending WHERE account = $1
GROUP BY storage, product`

// reportProductsSQL reads the products of a report ($1 account, $2
// report), indexed or pending.
const reportProductsSQL = `
SELECT product FROM reports WHERE account = $1 AND storage = $2
UNION
SELECT product FROM counts_pending WHERE account = $1 AND storage = $2`

// indexer is the state of a store's indexer goroutine.
type indexer struct {
	wake chan struct{} // a commit added pending results; room for one
	stop chan struct{} // closed by Close
	done chan struct{} // closed when the goroutine has returned
	log  *slog.Logger
	// conn is the indexer's own connection, outside the pool: a
	// connection that fails or is killed while indexing is never handed
	// to a lookup's commit, and the indexer never waits for the pool.
	// Nil until a pass connects, and again after a pass fails.
	conn *pgx.Conn
}

// startIndexer starts the indexer. Its first pass indexes what the
// database holds pending already: what a node that stopped or died left.
func (s *Store) startIndexer() {
	s.ix = indexer{
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		log: s.logger,
	}
	s.ix.wake <- struct{}{}
	go s.index(indexDelay)
}

// woke tells the indexer that a commit added pending results.
func (s *Store) woke() {
	select {
	case s.ix.wake <- struct{}{}:
	default:
	}
}

// stopIndexer stops the indexer once the writers have stopped: its last
// pass indexes what is pending, within indexDrainTimeout.
func (s *Store) stopIndexer() {
	close(s.ix.stop)
	<-s.ix.done
}

// index is the indexer goroutine: woken by a commit, it waits delay for
// more, then indexes every pending result, a transaction per indexBatch,
// until none is left; when a transaction fails it logs the error and
// tries again after indexRetry. A second after a pass that took results
// it vacuums counts_pending (vacuum). It polls nothing: what a node that
// died left pending is indexed by the next pass of any node.
func (s *Store) index(delay time.Duration) {
	defer close(s.ix.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	vacuum := time.NewTimer(time.Hour)
	vacuum.Stop()
	vacuumArmed := false
	// pause waits d, or returns false when the store closes, after the
	// last pass.
	pause := func(d time.Duration) bool {
		timer.Reset(d)
		select {
		case <-timer.C:
			return true
		case <-s.ix.stop:
			timer.Stop()
			s.drainOnClose()
			return false
		}
	}
	for {
		select {
		case <-s.ix.wake:
		case <-vacuum.C:
			vacuumArmed = false
			if err := s.vacuumPending(context.Background()); err != nil {
				s.ix.log.Warn("pgstore: vacuuming counts_pending failed", "database", s.name, "err", err)
			}
			continue
		case <-s.ix.stop:
			vacuum.Stop()
			s.drainOnClose()
			return
		}
		if !pause(delay) {
			return
		}
		n, err := s.indexPass(context.Background())
		if n > 0 && !vacuumArmed {
			vacuum.Reset(vacuumAfter)
			vacuumArmed = true
		}
		if err != nil {
			s.ix.log.Error("pgstore: indexing results into their reports failed; trying again", "database", s.name, "err", err, "retry", indexRetry)
			if !pause(indexRetry) { // commits that wake it meanwhile wait too
				return
			}
			s.woke()
		}
	}
}

// vacuumPending vacuums counts_pending on the indexer's connection: the
// rows the indexer deletes stay in the table, dead, until a vacuum, and
// every read and every pass of the indexer reads them, while autovacuum
// comes once a minute at best (autovacuum_naptime): by then a busy node
// would have left a minute of lookups for each read to skip. A vacuum
// that another node runs is not waited for (SKIP_LOCKED).
func (s *Store) vacuumPending(ctx context.Context) error {
	conn, err := s.indexConn(ctx)
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `VACUUM (SKIP_LOCKED) counts_pending`); err != nil {
		s.dropIndexConn(ctx)
		return err
	}
	return nil
}

// drainOnClose is the indexer's last pass, and a last vacuum when it
// took results.
func (s *Store) drainOnClose() {
	ctx, cancel := context.WithTimeout(context.Background(), indexDrainTimeout)
	defer cancel()
	n, err := s.indexPass(ctx)
	if err != nil {
		s.ix.log.Warn("pgstore: results left pending at close; the next store to open indexes them", "database", s.name, "err", err)
	} else if n > 0 {
		if err := s.vacuumPending(ctx); err != nil {
			s.ix.log.Warn("pgstore: vacuuming counts_pending failed", "database", s.name, "err", err)
		}
	}
	if s.ix.conn != nil {
		s.ix.conn.Close(ctx)
	}
}

// indexPass indexes the pending results on the indexer's connection, and
// returns how many it indexed.
func (s *Store) indexPass(ctx context.Context) (int64, error) {
	conn, err := s.indexConn(ctx)
	if err != nil {
		return 0, err
	}
	n, err := indexAll(ctx, conn)
	if err != nil {
		s.dropIndexConn(ctx)
	}
	return n, err
}

// indexConn returns the indexer's connection, connecting first if it has
// none.
func (s *Store) indexConn(ctx context.Context) (*pgx.Conn, error) {
	if s.ix.conn == nil {
		conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
		if err != nil {
			return nil, err
		}
		s.ix.conn = conn
	}
	return s.ix.conn, nil
}

// dropIndexConn closes the indexer's connection after an error: the next
// pass connects again.
func (s *Store) dropIndexConn(ctx context.Context) {
	s.ix.conn.Close(context.WithoutCancel(ctx))
	s.ix.conn = nil
}

// rowQuerier is a connection or a pool.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// indexAll indexes pending counts until none is left that another
// indexer has not taken, and returns how many results it counted.
func indexAll(ctx context.Context, q rowQuerier) (int64, error) {
	var total int64
	for {
		var rows, n int64
		if err := q.QueryRow(ctx, indexSQL, indexBatch).Scan(&rows, &n); err != nil {
			return total, err
		}
		total += n
		if rows < indexBatch {
			return total, nil
		}
	}
}
