package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/numenhq/numen/engine/store"
)

// commit stores a group of results in one transaction and answers each.
func (s *Store) commit(batch []*pending) {
	// An id twice in the group: the later ones fail, as they would after
	// the first's commit.
	seen := make(map[string]bool, len(batch))
	var fresh []*pending
	for _, p := range batch {
		if seen[p.entry.ID] {
			p.done <- fmt.Errorf("pgstore: record %q: %w", p.entry.ID, store.ErrDuplicateID)
			continue
		}
		seen[p.entry.ID] = true
		fresh = append(fresh, p)
	}
	// In the order of their ids (insertSQL): two commits that insert
	// some of the same ids wait for each other in that order, never in a
	// cycle (a deadlock).
	slices.SortFunc(fresh, func(a, b *pending) int { return strings.Compare(a.entry.ID, b.entry.ID) })
	var c columns
	for _, p := range fresh {
		c.add(&p.entry)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Most groups hold no id stored already: insertNewSQL stores them
	// without the checks of ON CONFLICT, and fails whole, storing
	// nothing, on one that is; insertSQL then stores the others.
	var inserted map[string]bool // nil: all of them
	n, err := s.insertNew(ctx, &c)
	if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == uniqueViolation {
		inserted, err = s.insert(ctx, &c)
		n = int64(len(inserted))
	}
	if n > 0 || err != nil { // an error may follow the commit
		s.woke()
	}
	for _, p := range fresh {
		switch {
		case err != nil:
			p.done <- fmt.Errorf("pgstore: record %q: %w", p.entry.ID, err)
		case inserted != nil && !inserted[p.entry.ID]:
			p.done <- fmt.Errorf("pgstore: record %q: %w", p.entry.ID, store.ErrDuplicateID)
		default:
			p.done <- nil
		}
	}
}

// uniqueViolation is PostgreSQL's SQLSTATE of a duplicate key.
const uniqueViolation = "23505"

// insertSQL stores a group of results in one statement (one round trip,
// committed on its own): the results whose id is new are inserted, and
// their counts are added to reports_pending, a row per report and
// combination of the values a summary counts (product, the Fields, the
// day; with the names of the country and network, which the summaries
// show and the results' columns lack): under load the results of a
// commit share a few such rows (a lookup of the same kind, for the same
// report, on the same day), so the commit writes a few small rows more,
// not one per result. The ids inserted are returned. A result whose id is
// stored already is left out of both. The results are inserted in the
// order of their ids (bytes, as Go's strings.Compare, which the writer
// sorted them by): the commits of several writers and nodes that hold
// some of the same ids lock them in one order. Their reports and
// summaries are the indexer's (index.go): a commit locks no row another
// commit writes, so the commits of several writers and nodes do not wait
// for each other.
const insertSQL = insertHead + `
	ON CONFLICT (id) DO NOTHING
	RETURNING id` + insertTail + `
SELECT id FROM ins`

// insertNewSQL is insertSQL for a group whose ids are all new, with no
// ON CONFLICT: it fails whole, a unique_violation that stores nothing,
// when one is stored already (by then, or by a commit under way, which
// it waits for), and returns the number of results inserted, all of the
// group. It spares the server insertSQL's check of every id before its
// insert (a speculative insertion), and the ids returned.
const insertNewSQL = insertHead + `
	RETURNING id` + insertTail + `
SELECT count(*) FROM ins`

// insertHead and insertTail are the parts of insertSQL and insertNewSQL
// before and after their differences.
const insertHead = `
WITH input AS (
	SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[],
		$8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[])
	AS t (id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network, country_name, network_name)
), ins AS (
	INSERT INTO results (id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network)
	SELECT id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network
	FROM input ORDER BY id COLLATE "C"`

const insertTail = `
), marked AS (
	INSERT INTO reports_pending (account, storage, product, status, connectivity, number_type,
		country, network, day, country_name, network_name, count, cost, first_ms, last_ms)
	SELECT account, storage, product, status, connectivity, number_type,
		country, network, ` + daySQL + `, max(country_name), max(network_name),
		count(*), sum(cost), min(created_ms), max(created_ms)
	FROM input JOIN ins USING (id)
	GROUP BY account, storage, product, status, connectivity, number_type, country, network, ` + daySQL + `
)`

// daySQL is the day of a result's completion time (created_ms), in UTC,
// as days since 1970-01-01 (facts.Day).
const daySQL = `floor(created_ms / 86400000.0)::integer`

// columns are the arrays of a group's results, one per parameter of
// insertSQL.
type columns struct {
	ids, accounts, storages, products, bodies                 []string
	created, costs                                            []int64
	numbers, statuses, connectivities, numberTypes, countries []string
	networks, countryNames, networkNames                      []string
}

func (c *columns) add(e *store.Entry) {
	f := &e.Facts
	c.ids, c.accounts, c.storages = append(c.ids, e.ID), append(c.accounts, e.Account), append(c.storages, e.Storage)
	c.products, c.bodies = append(c.products, string(e.Product)), append(c.bodies, string(e.Result))
	c.created, c.costs = append(c.created, e.Millis), append(c.costs, int64(e.Cost))
	c.numbers, c.statuses, c.connectivities = append(c.numbers, f.Number), append(c.statuses, f.Status), append(c.connectivities, f.Connectivity)
	c.numberTypes, c.countries, c.networks = append(c.numberTypes, f.NumberType), append(c.countries, f.Country), append(c.networks, f.Network)
	c.countryNames, c.networkNames = append(c.countryNames, f.CountryName), append(c.networkNames, f.NetworkName)
}

// insertNew runs insertNewSQL.
// args are the parameters of insertSQL and insertNewSQL.
func (c *columns) args() []any {
	return []any{c.ids, c.accounts, c.storages, c.products, c.created, c.costs, c.bodies,
		c.numbers, c.statuses, c.connectivities, c.numberTypes, c.countries, c.networks, c.countryNames, c.networkNames}
}

func (s *Store) insertNew(ctx context.Context, c *columns) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, insertNewSQL, c.args()...).Scan(&n)
	return n, err
}

// insert runs insertSQL, and returns the ids it inserted.
func (s *Store) insert(ctx context.Context, c *columns) (map[string]bool, error) {
	rows, err := s.pool.Query(ctx, insertSQL, c.args()...)
	if err != nil {
		return nil, err
	}
	inserted := make(map[string]bool, len(c.ids))
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		inserted[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return inserted, nil
}
