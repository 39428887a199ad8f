package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

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
	inserted, err := s.insert(ctx, &c)
	if len(inserted) > 0 || err != nil { // an error may follow the commit
		s.woke()
	}
	for _, p := range fresh {
		switch {
		case err != nil:
			p.done <- fmt.Errorf("pgstore: record %q: %w", p.entry.ID, err)
		case !inserted[p.entry.ID]:
			p.done <- fmt.Errorf("pgstore: record %q: %w", p.entry.ID, store.ErrDuplicateID)
		default:
			p.done <- nil
		}
	}
}

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
const insertSQL = `
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
	FROM input ORDER BY id COLLATE "C"
	ON CONFLICT (id) DO NOTHING
	RETURNING id
), marked AS (
	INSERT INTO reports_pending (account, storage, product, status, connectivity, number_type,
		country, network, day, country_name, network_name, count, cost, first_ms, last_ms)
	SELECT account, storage, product, status, connectivity, number_type,
		country, network, ` + daySQL + `, max(country_name), max(network_name),
		count(*), sum(cost), min(created_ms), max(created_ms)
	FROM input JOIN ins USING (id)
	GROUP BY account, storage, product, status, connectivity, number_type, country, network, ` + daySQL + `
)
SELECT id FROM ins`

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

func (s *Store) insert(ctx context.Context, c *columns) (map[string]bool, error) {
	rows, err := s.pool.Query(ctx, insertSQL, c.ids, c.accounts, c.storages, c.products, c.created, c.costs, c.bodies,
		c.numbers, c.statuses, c.connectivities, c.numberTypes, c.countries, c.networks, c.countryNames, c.networkNames)
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
