package pgstore

import (
	"cmp"
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
	var c columns
	for _, p := range fresh {
		c.add(&p.entry)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inserted, err := s.insert(ctx, &c)
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

// insertSQL stores a group of results, adds them to their reports and
// counts them in their reports' summaries, in one statement (one round
// trip, committed on its own): the results whose id is new are inserted;
// their counts and costs are added to their reports and to the rows of
// report_facets of their fields' values and their day (both in the order
// of the rows' keys, so that the statements of several nodes lock the
// rows in the same order and never deadlock); and the ids inserted are
// returned. A result whose id is stored already is left out of all three.
const insertSQL = `
WITH input AS (
	SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[],
		$8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[])
	AS t (id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network, country_name, network_name, day)
), ins AS (
	INSERT INTO results (id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network)
	SELECT id, account, storage, product, created_ms, cost, body,
		number, status, connectivity, number_type, country, network
	FROM input
	ON CONFLICT (id) DO NOTHING
	RETURNING id
), added AS (
	SELECT input.* FROM input JOIN ins USING (id)
), reported AS (
	INSERT INTO reports AS r (account, storage, product, count, cost, first_ms, last_ms)
	SELECT account, storage, product, count(*), sum(cost), min(created_ms), max(created_ms)
	FROM added GROUP BY account, storage, product
	ORDER BY account, storage, product
	ON CONFLICT (account, storage, product) DO UPDATE SET
		count    = r.count + excluded.count,
		cost     = r.cost + excluded.cost,
		first_ms = least(r.first_ms, excluded.first_ms),
		last_ms  = greatest(r.last_ms, excluded.last_ms)
), tallied AS (
	INSERT INTO report_facets AS f (account, storage, field, value, label, count, cost)
	SELECT * FROM (
		-- Every result is new (the rule): the group's tallies, summed by the writer.
		SELECT * FROM unnest($17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::bigint[], $23::bigint[])
			AS t (account, storage, field, value, label, count, cost)
		WHERE (SELECT count(*) FROM ins) = cardinality($1::text[])
		UNION ALL
		-- Some were stored before: the tallies of those added only.
		SELECT a.account, a.storage, v.field, v.value, max(v.label), count(*), sum(a.cost)
		FROM added a CROSS JOIN LATERAL (VALUES
			('product', a.product, ''), ('status', a.status, ''), ('connectivity', a.connectivity, ''),
			('number_type', a.number_type, ''), ('country', a.country, a.country_name),
			('network', a.network, a.network_name), ('day', a.day, '')
		) AS v (field, value, label)
		WHERE (SELECT count(*) FROM ins) < cardinality($1::text[])
		GROUP BY a.account, a.storage, v.field, v.value
	) x
	ORDER BY account, storage, field, value
	ON CONFLICT (account, storage, field, value) DO UPDATE SET
		count = f.count + excluded.count,
		cost  = f.cost + excluded.cost,
		label = CASE WHEN excluded.label <> '' THEN excluded.label ELSE f.label END
)
SELECT id FROM ins`

// columns are the arrays of a group's results, one per parameter of
// insertSQL, and the group's tallies (tally).
type columns struct {
	ids, accounts, storages, products, bodies                 []string
	created, costs                                            []int64
	numbers, statuses, connectivities, numberTypes, countries []string
	networks, countryNames, networkNames, days                []string
	tallies                                                   map[tallyKey]*tallyRow
}

// tallyKey is a row of report_facets.
type tallyKey struct{ account, storage, field, value string }

// tallyRow is what a group adds to a row of report_facets.
type tallyRow struct {
	label       string
	count, cost int64
}

// tally counts a result's value of a field in the group's tallies (the
// label the greatest, as SQL's max).
func (c *columns) tally(e *store.Entry, field, value, label string) {
	k := tallyKey{e.Account, e.Storage, field, value}
	t := c.tallies[k]
	if t == nil {
		t = &tallyRow{}
		c.tallies[k] = t
	}
	t.count++
	t.cost += int64(e.Cost)
	t.label = max(t.label, label)
}

// tallyArrays returns the group's tallies as insertSQL's arrays, in the
// order of their keys (the order of the rows' locks).
func (c *columns) tallyArrays() []any {
	keys := make([]tallyKey, 0, len(c.tallies))
	for k := range c.tallies {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b tallyKey) int {
		return cmp.Or(strings.Compare(a.account, b.account), strings.Compare(a.storage, b.storage),
			strings.Compare(a.field, b.field), strings.Compare(a.value, b.value))
	})
	var accounts, storages, fields, values, labels []string
	var counts, costs []int64
	for _, k := range keys {
		t := c.tallies[k]
		accounts, storages, fields, values = append(accounts, k.account), append(storages, k.storage), append(fields, k.field), append(values, k.value)
		labels, counts, costs = append(labels, t.label), append(counts, t.count), append(costs, t.cost)
	}
	return []any{accounts, storages, fields, values, labels, counts, costs}
}

func (c *columns) add(e *store.Entry) {
	f := &e.Facts
	c.ids, c.accounts, c.storages = append(c.ids, e.ID), append(c.accounts, e.Account), append(c.storages, e.Storage)
	c.products, c.bodies = append(c.products, string(e.Product)), append(c.bodies, string(e.Result))
	c.created, c.costs = append(c.created, e.Millis), append(c.costs, int64(e.Cost))
	c.numbers, c.statuses, c.connectivities = append(c.numbers, f.Number), append(c.statuses, f.Status), append(c.connectivities, f.Connectivity)
	c.numberTypes, c.countries, c.networks = append(c.numberTypes, f.NumberType), append(c.countries, f.Country), append(c.networks, f.Network)
	c.countryNames, c.networkNames = append(c.countryNames, f.CountryName), append(c.networkNames, f.NetworkName)
	day := store.Day(e.Millis)
	c.days = append(c.days, day)
	if c.tallies == nil {
		c.tallies = map[tallyKey]*tallyRow{}
	}
	c.tally(e, string(store.FieldProduct), string(e.Product), "")
	c.tally(e, string(store.FieldStatus), f.Status, "")
	c.tally(e, string(store.FieldConnectivity), f.Connectivity, "")
	c.tally(e, string(store.FieldNumberType), f.NumberType, "")
	c.tally(e, string(store.FieldCountry), f.Country, f.CountryName)
	c.tally(e, string(store.FieldNetwork), f.Network, f.NetworkName)
	c.tally(e, store.DayField, day, "")
}

func (s *Store) insert(ctx context.Context, c *columns) (map[string]bool, error) {
	args := append([]any{c.ids, c.accounts, c.storages, c.products, c.created, c.costs, c.bodies,
		c.numbers, c.statuses, c.connectivities, c.numberTypes, c.countries, c.networks, c.countryNames, c.networkNames, c.days},
		c.tallyArrays()...)
	rows, err := s.pool.Query(ctx, insertSQL, args...)
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
