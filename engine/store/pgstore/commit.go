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
	// Most groups hold no id stored already: insertNewSQL stores them,
	// with the counts the writer added up, and fails whole, storing
	// nothing, on one that is; insertSQL then stores the others.
	var inserted map[string]bool // nil: all of them
	_, err := s.pool.Exec(ctx, insertNewSQL, c.newArgs()...)
	n := len(fresh)
	if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == uniqueViolation {
		inserted, err = s.insert(ctx, fresh, &c)
		n = len(inserted)
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

// insertNewSQL stores a group of results whose ids are all new, in one
// statement (one round trip, committed on its own), and adds their counts
// to counts_pending: a row per report and combination of the values a
// summary counts (product, the Fields, the day; with the names of the
// country and network, which the summaries show and the results' columns
// lack, and the first and last times), which the writer added up
// (tallies). Under load the results of a commit share a few such rows (a
// lookup of the same kind, for the same report, on the same day), so the
// commit writes a few small rows more, not one per result. It has no ON
// CONFLICT: when an id is stored already (by then, or by a commit under
// way, which it waits for) it fails whole, a unique_violation that stores
// nothing, and insertSQL stores the others; it spares the server the
// check of every id before its insert (a speculative insertion). The
// results are inserted in the order of their ids (bytes, as Go's
// strings.Compare, which the writer sorted them by): the commits of
// several writers and nodes that hold some of the same ids lock them in
// one order. Their reports and summaries are the indexer's (index.go): a
// commit locks no row another commit writes, so the commits of several
// writers and nodes do not wait for each other.
const insertNewSQL = `
WITH ins AS (
	INSERT INTO results (id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network, valid, invalid_reason, route)
	SELECT * FROM ` + resultsSQL + `
	ORDER BY id COLLATE "C"
)
INSERT INTO counts_pending (account, storage, product, status, connectivity, number_type,
	country, network, valid, invalid_reason, route, day, country_name, network_name, count, cost, first_ms, last_ms)
SELECT * FROM unnest($17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::text[],
	$23::text[], $24::text[], $25::text[], $26::text[], $27::text[], $28::integer[], $29::text[], $30::text[],
	$31::bigint[], $32::bigint[], $33::bigint[], $34::bigint[])`

// resultsSQL are the results of a group, from the arrays of columns (as
// insertSQL's input, without the names).
const resultsSQL = `unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[],
		$8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[])
	AS t (id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network, valid, invalid_reason, route)`

// insertSQL stores those results of a group whose id is new, as
// insertNewSQL does, skips those stored already, and returns the ids it
// inserted; it adds up the counts of the results it inserts itself, as
// tallies does ($17 and $18: the names of the results' country and
// network).
const insertSQL = `
WITH input AS (
	SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[],
		$8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
		$17::text[], $18::text[])
	AS t (id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network, valid, invalid_reason, route, country_name, network_name)
), ins AS (
	INSERT INTO results (id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network, valid, invalid_reason, route)
	SELECT id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network, valid, invalid_reason, route
	FROM input ORDER BY id COLLATE "C"
	ON CONFLICT (id) DO NOTHING
	RETURNING id
), marked AS (
	INSERT INTO counts_pending (account, storage, product, status, connectivity, number_type,
		country, network, valid, invalid_reason, route, day, country_name, network_name, count, cost, first_ms, last_ms)
	SELECT account, storage, product, status, connectivity, number_type,
		country, network, valid, invalid_reason, route, ` + daySQL + `, max(country_name COLLATE "C"), max(network_name COLLATE "C"),
		count(*), sum(cost), min(created_ms), max(created_ms)
	FROM input JOIN ins USING (id)
	GROUP BY account, storage, product, status, connectivity, number_type, country, network, valid, invalid_reason, route, ` + daySQL + `
)
SELECT id FROM ins`

// daySQL is the day of a result's completion time (created_ms), in UTC,
// as days since 1970-01-01 (facts.Day; day in Go).
const daySQL = `floor(created_ms / 86400000.0)::integer`

// day is daySQL of a completion time in Unix milliseconds.
func day(ms int64) int32 {
	const perDay = 24 * 60 * 60 * 1000
	d := ms / perDay
	if ms%perDay < 0 {
		d-- // floor, not toward zero
	}
	return int32(d)
}

// columns are the arrays of a group's results, one per parameter of
// resultsSQL, and the counts of insertNewSQL.
type columns struct {
	ids, accounts, storages, products, bodies                 []string
	created, costs                                            []int64
	numbers, statuses, connectivities, numberTypes, countries []string
	networks, valids, reasons, routes                         []string
	tallies                                                   tallies
}

func (c *columns) add(e *store.Entry) {
	f := &e.Facts
	c.ids, c.accounts, c.storages = append(c.ids, e.ID), append(c.accounts, e.Account), append(c.storages, e.Storage)
	c.products, c.bodies = append(c.products, string(e.Product)), append(c.bodies, string(e.Result))
	c.created, c.costs = append(c.created, e.Millis), append(c.costs, int64(e.Cost))
	c.numbers, c.statuses, c.connectivities = append(c.numbers, f.Number), append(c.statuses, f.Status), append(c.connectivities, f.Connectivity)
	c.numberTypes, c.countries, c.networks = append(c.numberTypes, f.NumberType), append(c.countries, f.Country), append(c.networks, f.Network)
	c.valids, c.reasons, c.routes = append(c.valids, f.Valid), append(c.reasons, f.InvalidReason), append(c.routes, f.Route)
	c.tallies.add(e)
}

// rowArgs are the parameters of resultsSQL.
func (c *columns) rowArgs() []any {
	return []any{c.ids, c.accounts, c.storages, c.products, c.created, c.costs, c.bodies,
		c.numbers, c.statuses, c.connectivities, c.numberTypes, c.countries, c.networks, c.valids, c.reasons, c.routes}
}

// newArgs are the parameters of insertNewSQL.
func (c *columns) newArgs() []any {
	t := &c.tallies
	return append(c.rowArgs(), t.accounts, t.storages, t.products, t.statuses, t.connectivities, t.numberTypes,
		t.countries, t.networks, t.valids, t.reasons, t.routes, t.days, t.countryNames, t.networkNames, t.counts, t.costs, t.first, t.last)
}

// tallies are the rows of counts_pending of a group's results, each the
// count, cost and first and last times of the results of one kind (a row
// of the group of insertSQL's marked), as arrays.
type tallies struct {
	at                                               map[tallyKey]int // index in the arrays
	accounts, storages, products, statuses           []string
	connectivities, numberTypes, countries, networks []string
	valids, reasons, routes                          []string
	days                                             []int32
	countryNames, networkNames                       []string // the greatest, in bytes
	counts, costs, first, last                       []int64
}

// tallyKey is a kind of result: what a row of counts_pending counts.
type tallyKey struct {
	account, storage, product, status, connectivity, numberType, country, network string
	valid, reason, route                                                          string
	day                                                                           int32
}

func (t *tallies) add(e *store.Entry) {
	f := &e.Facts
	k := tallyKey{e.Account, e.Storage, string(e.Product), f.Status, f.Connectivity, f.NumberType, f.Country, f.Network, f.Valid, f.InvalidReason, f.Route, day(e.Millis)}
	i, ok := t.at[k]
	if !ok {
		if t.at == nil {
			t.at = map[tallyKey]int{}
		}
		i, t.at[k] = len(t.counts), len(t.counts)
		t.accounts, t.storages, t.products = append(t.accounts, k.account), append(t.storages, k.storage), append(t.products, k.product)
		t.statuses, t.connectivities, t.numberTypes = append(t.statuses, k.status), append(t.connectivities, k.connectivity), append(t.numberTypes, k.numberType)
		t.countries, t.networks, t.days = append(t.countries, k.country), append(t.networks, k.network), append(t.days, k.day)
		t.valids, t.reasons, t.routes = append(t.valids, k.valid), append(t.reasons, k.reason), append(t.routes, k.route)
		t.countryNames, t.networkNames = append(t.countryNames, f.CountryName), append(t.networkNames, f.NetworkName)
		t.counts, t.costs, t.first, t.last = append(t.counts, 0), append(t.costs, 0), append(t.first, e.Millis), append(t.last, e.Millis)
	}
	t.countryNames[i], t.networkNames[i] = max(t.countryNames[i], f.CountryName), max(t.networkNames[i], f.NetworkName)
	t.counts[i]++
	t.costs[i] += int64(e.Cost)
	t.first[i], t.last[i] = min(t.first[i], e.Millis), max(t.last[i], e.Millis)
}

// insert runs insertSQL for the results of fresh, and returns the ids it
// inserted.
func (s *Store) insert(ctx context.Context, fresh []*pending, c *columns) (map[string]bool, error) {
	countryNames, networkNames := make([]string, len(fresh)), make([]string, len(fresh))
	for i, p := range fresh {
		countryNames[i], networkNames[i] = p.entry.Facts.CountryName, p.entry.Facts.NetworkName
	}
	rows, err := s.pool.Query(ctx, insertSQL, append(c.rowArgs(), countryNames, networkNames)...)
	if err != nil {
		return nil, err
	}
	inserted := make(map[string]bool, len(fresh))
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
