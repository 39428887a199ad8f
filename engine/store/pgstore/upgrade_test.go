package pgstore_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/facts"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/engine/store/storetest"
)

// TestUpgradeFromSchema1 opens a database of schema version 1 (before the
// columns of the report filters and summaries) holding results, as a
// version before them wrote it: migration 2 gives the stored results their
// facts and their reports their summaries, the same as new results get.
func TestUpgradeFromSchema1(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Database(t)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE TABLE numen_schema (version integer NOT NULL); INSERT INTO numen_schema VALUES (1);`+pgstore.Migration(1))
	require.NoError(t, err)
	const acct, name = "acct-u", "campaign-2026-11"
	rs := storetest.Varied(acct, name, 45)
	var entries []store.Entry
	for _, r := range rs {
		e, err := store.EntryOf(r)
		require.NoError(t, err)
		entries = append(entries, e)
		// Schema 1's statements: the result, and its report's row.
		_, err = conn.Exec(ctx, `INSERT INTO results (id, account, storage, product, created_ms, cost, body) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			e.ID, e.Account, e.Storage, string(e.Product), e.Millis, int64(e.Cost), string(e.Result))
		require.NoError(t, err)
		_, err = conn.Exec(ctx, `
INSERT INTO reports AS r VALUES ($1, $2, $3, 1, $4, $5, $5)
ON CONFLICT (account, storage, product) DO UPDATE SET count = r.count + 1, cost = r.cost + excluded.cost,
	first_ms = least(r.first_ms, excluded.first_ms), last_ms = greatest(r.last_ms, excluded.last_ms)`,
			e.Account, e.Storage, string(e.Product), int64(e.Cost), e.Millis)
		require.NoError(t, err)
	}

	s, err := pgstore.Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	var version int
	require.NoError(t, conn.QueryRow(ctx, `SELECT version FROM numen_schema`).Scan(&version))
	require.Equal(t, pgstore.SchemaVersion, version)

	// The same summary as a store that recorded them gets.
	fresh, err := pgstore.Open(ctx, pgtest.Database(t))
	require.NoError(t, err)
	defer fresh.Close()
	require.NoError(t, fresh.RecordAll(ctx, rs))
	want, err := fresh.Summary(ctx, acct, name)
	require.NoError(t, err)
	got, err := s.Summary(ctx, acct, name)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.EqualValues(t, len(rs), requireExact(t, s, dsn))

	// And every result is found by its facts.
	for _, e := range entries {
		q := &store.Query{Where: []store.Cond{
			{Field: store.FieldStatus, Value: e.Facts.Status}, {Field: store.FieldCountry, Value: e.Facts.Country},
			{Field: store.FieldNetwork, Value: e.Facts.Network}, {Field: store.FieldNumberType, Value: e.Facts.NumberType},
			{Field: store.FieldConnectivity, Value: e.Facts.Connectivity}, {Field: store.FieldProduct, Value: string(e.Product)},
		}, NumberPrefix: e.Facts.Number}
		page, err := s.Query(ctx, acct, name, q, "", store.MaxPage)
		require.NoError(t, err)
		var found bool
		for _, r := range page.Rows {
			found = found || r.ID == e.ID
			var v json.RawMessage
			require.NoError(t, json.Unmarshal(r.Result, &v))
		}
		require.True(t, found, "%s by its facts %+v", e.ID, e.Facts)
	}
}

// TestUpgradeFromSchema3 opens a database of schema version 3, whose
// writers counted results in reports and report_facets in the commit that
// added them (nothing pending): migration 4 adds the pending table, the
// counts read are those stored, and results recorded after are counted
// with them.
func TestUpgradeFromSchema3(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Database(t)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE TABLE numen_schema (version integer NOT NULL); INSERT INTO numen_schema VALUES (3);`+
		pgstore.Migration(1)+pgstore.Migration(2)+pgstore.Migration(3))
	require.NoError(t, err)
	const acct, name = "acct-u", "campaign-2026-11"
	rs := storetest.Varied(acct, name, 45)
	for _, r := range rs {
		e, err := store.EntryOf(r)
		require.NoError(t, err)
		f := e.Facts
		_, err = conn.Exec(ctx, `
INSERT INTO results (id, account, storage, product, created_ms, cost, body, number, status, connectivity, number_type, country, network)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			e.ID, e.Account, e.Storage, string(e.Product), e.Millis, int64(e.Cost), string(e.Result),
			f.Number, f.Status, f.Connectivity, f.NumberType, f.Country, f.Network)
		require.NoError(t, err)
		// Schema 3's writer: the counts in the same commit.
		_, err = conn.Exec(ctx, `
INSERT INTO reports AS r VALUES ($1, $2, $3, 1, $4, $5, $5)
ON CONFLICT (account, storage, product) DO UPDATE SET count = r.count + 1, cost = r.cost + excluded.cost,
	first_ms = least(r.first_ms, excluded.first_ms), last_ms = greatest(r.last_ms, excluded.last_ms)`,
			e.Account, e.Storage, string(e.Product), int64(e.Cost), e.Millis)
		require.NoError(t, err)
		_, err = conn.Exec(ctx, `
INSERT INTO report_facets AS f
SELECT $1, $2, field, value, label, 1, $3 FROM unnest($4::text[], $5::text[], $6::text[]) AS t (field, value, label)
ON CONFLICT (account, storage, field, value) DO UPDATE SET count = f.count + 1, cost = f.cost + excluded.cost,
	label = CASE WHEN excluded.label <> '' THEN excluded.label ELSE f.label END`,
			e.Account, e.Storage, int64(e.Cost),
			[]string{"product", "status", "connectivity", "number_type", "country", "network", "day"},
			[]string{string(e.Product), f.Status, f.Connectivity, f.NumberType, f.Country, f.Network, facts.Day(e.Millis)},
			[]string{"", "", "", "", f.CountryName, f.NetworkName, ""})
		require.NoError(t, err)
	}

	s, err := pgstore.Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	var version int
	require.NoError(t, conn.QueryRow(ctx, `SELECT version FROM numen_schema`).Scan(&version))
	require.Equal(t, pgstore.SchemaVersion, version)
	require.EqualValues(t, len(rs), requireExact(t, s, dsn))

	fresh, err := pgstore.Open(ctx, pgtest.Database(t))
	require.NoError(t, err)
	defer fresh.Close()
	require.NoError(t, fresh.RecordAll(ctx, rs))
	want, err := fresh.Summary(ctx, acct, name)
	require.NoError(t, err)
	got, err := s.Summary(ctx, acct, name)
	require.NoError(t, err)
	require.Equal(t, want, got)

	// Results recorded after the upgrade are counted with those before.
	more := storetest.Varied("acct-v", name, 30)
	require.NoError(t, s.RecordAll(ctx, append(more, storetest.NewRecord(acct, name, "NT", "after-1", storetest.Base, 0))))
	require.EqualValues(t, len(rs)+31, requireExact(t, s, dsn))
}

// TestUpgradeFromSchema4 opens a database of schema version 4, whose
// writers left a row of results_pending per result for the indexer, some
// of them still pending and some counted: migration 5 moves the pending
// ones into reports_pending (which migration 7 then counts), and the
// reads count every result once, with the same labels as a store that
// recorded them.
func TestUpgradeFromSchema4(t *testing.T) {
	pgstore.SetIndexDelay(t, time.Hour) // the indexer: only when asked
	dsn := pgtest.Database(t)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE TABLE numen_schema (version integer NOT NULL); INSERT INTO numen_schema VALUES (4);`+
		pgstore.Migration(1)+pgstore.Migration(2)+pgstore.Migration(3)+pgstore.Migration(4))
	require.NoError(t, err)
	const acct, name = "acct-u4", "campaign-2026-11"
	rs := append(storetest.Varied(acct, name, 60), storetest.Varied("acct-w4", name, 15)...)
	for i, r := range rs {
		e, err := store.EntryOf(r)
		require.NoError(t, err)
		f := e.Facts
		_, err = conn.Exec(ctx, `
INSERT INTO results (id, account, storage, product, created_ms, cost, body, number, status, connectivity, number_type, country, network)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			e.ID, e.Account, e.Storage, string(e.Product), e.Millis, int64(e.Cost), string(e.Result),
			f.Number, f.Status, f.Connectivity, f.NumberType, f.Country, f.Network)
		require.NoError(t, err)
		if i%3 == 0 {
			// Counted already by schema 4's indexer.
			_, err = conn.Exec(ctx, `
INSERT INTO reports AS r VALUES ($1, $2, $3, 1, $4, $5, $5)
ON CONFLICT (account, storage, product) DO UPDATE SET count = r.count + 1, cost = r.cost + excluded.cost,
	first_ms = least(r.first_ms, excluded.first_ms), last_ms = greatest(r.last_ms, excluded.last_ms)`,
				e.Account, e.Storage, string(e.Product), int64(e.Cost), e.Millis)
			require.NoError(t, err)
			_, err = conn.Exec(ctx, `
INSERT INTO report_facets AS f
SELECT $1, $2, field, value, label, 1, $3 FROM unnest($4::text[], $5::text[], $6::text[]) AS t (field, value, label)
ON CONFLICT (account, storage, field, value) DO UPDATE SET count = f.count + 1, cost = f.cost + excluded.cost,
	label = CASE WHEN excluded.label <> '' THEN excluded.label ELSE f.label END`,
				e.Account, e.Storage, int64(e.Cost),
				[]string{"product", "status", "connectivity", "number_type", "country", "network", "day"},
				[]string{string(e.Product), f.Status, f.Connectivity, f.NumberType, f.Country, f.Network, facts.Day(e.Millis)},
				[]string{"", "", "", "", f.CountryName, f.NetworkName, ""})
		} else {
			// Schema 4's commit: pending, with the names.
			_, err = conn.Exec(ctx, `INSERT INTO results_pending VALUES ($1, $2, $3)`, e.ID, f.CountryName, f.NetworkName)
		}
		require.NoError(t, err)
	}

	s, err := pgstore.Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	var version int
	require.NoError(t, conn.QueryRow(ctx, `SELECT version FROM numen_schema`).Scan(&version))
	require.Equal(t, pgstore.SchemaVersion, version)
	var table *string
	require.NoError(t, conn.QueryRow(ctx, `SELECT to_regclass('results_pending')::text`).Scan(&table))
	require.Nil(t, table, "schema 4's pending table is gone")
	require.Zero(t, pendingCount(t, dsn), "what was pending is counted by migration 7")
	require.EqualValues(t, len(rs), requireExact(t, s, dsn))

	fresh, err := pgstore.Open(ctx, pgtest.Database(t))
	require.NoError(t, err)
	defer fresh.Close()
	require.NoError(t, fresh.RecordAll(ctx, rs))
	want, err := fresh.Summary(ctx, acct, name)
	require.NoError(t, err)
	got, err := s.Summary(ctx, acct, name)
	require.NoError(t, err)
	require.Equal(t, want, got, "pending")
	indexed(t, s, dsn)
	got, err = s.Summary(ctx, acct, name)
	require.NoError(t, err)
	require.Equal(t, want, got, "indexed")
	require.EqualValues(t, len(rs), requireExact(t, s, dsn))
}

// TestUpgradeFromSchema6 opens a database of schema version 6, before the
// fields of validity, invalid reason and route, whose commits left counts
// in reports_pending, some indexed and some still pending: migration 7
// counts what was pending, gives the stored results the new fields, and
// the reads count every result once under every field, as a store that
// recorded them does; filters by the new fields select what they should.
func TestUpgradeFromSchema6(t *testing.T) {
	pgstore.SetIndexDelay(t, time.Hour) // the indexer: only when asked
	dsn := pgtest.Database(t)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE TABLE numen_schema (version integer NOT NULL); INSERT INTO numen_schema VALUES (6);`+
		pgstore.Migration(1)+pgstore.Migration(2)+pgstore.Migration(3)+pgstore.Migration(4)+pgstore.Migration(5)+pgstore.Migration(6))
	require.NoError(t, err)
	const acct, name = "acct-u6", "campaign-2026-11"
	rs := append(storetest.Varied(acct, name, 60), storetest.Varied("acct-w6", name, 15)...)
	for i, r := range rs {
		e, err := store.EntryOf(r)
		require.NoError(t, err)
		f := e.Facts
		_, err = conn.Exec(ctx, `
INSERT INTO results (id, account, storage, product, created_ms, cost, body, number, status, connectivity, number_type, country, network)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			e.ID, e.Account, e.Storage, string(e.Product), e.Millis, int64(e.Cost), string(e.Result),
			f.Number, f.Status, f.Connectivity, f.NumberType, f.Country, f.Network)
		require.NoError(t, err)
		// Schema 6's commit: a row of reports_pending (one per result
		// here), some of them indexed since.
		_, err = conn.Exec(ctx, `
INSERT INTO reports_pending (account, storage, product, status, connectivity, number_type, country, network, day,
	country_name, network_name, count, cost, first_ms, last_ms)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, floor($9 / 86400000.0)::integer, $10, $11, 1, $12, $9, $9)`,
			e.Account, e.Storage, string(e.Product), f.Status, f.Connectivity, f.NumberType, f.Country, f.Network,
			e.Millis, f.CountryName, f.NetworkName, int64(e.Cost))
		require.NoError(t, err)
		if i%3 == 0 {
			_, err = conn.Exec(ctx, `/* schema 6's indexer */
WITH taken AS (DELETE FROM reports_pending RETURNING *),
reported AS (
	INSERT INTO reports AS r (account, storage, product, count, cost, first_ms, last_ms)
	SELECT account, storage, product, sum(count), sum(cost), min(first_ms), max(last_ms) FROM taken GROUP BY 1, 2, 3
	ON CONFLICT (account, storage, product) DO UPDATE SET count = r.count + excluded.count, cost = r.cost + excluded.cost,
		first_ms = least(r.first_ms, excluded.first_ms), last_ms = greatest(r.last_ms, excluded.last_ms))
INSERT INTO report_facets AS f (account, storage, field, value, label, count, cost)
SELECT a.account, a.storage, v.field, v.value, max(v.label), sum(a.count), sum(a.cost)
FROM taken a CROSS JOIN LATERAL (VALUES ('product', a.product, ''), ('status', a.status, ''),
	('connectivity', a.connectivity, ''), ('number_type', a.number_type, ''),
	('country', a.country, a.country_name), ('network', a.network, a.network_name),
	('day', to_char(date '1970-01-01' + a.day, 'YYYY-MM-DD'), '')) AS v (field, value, label)
GROUP BY 1, 2, 3, 4
ON CONFLICT (account, storage, field, value) DO UPDATE SET count = f.count + excluded.count, cost = f.cost + excluded.cost,
	label = CASE WHEN excluded.label <> '' THEN excluded.label ELSE f.label END`)
			require.NoError(t, err)
		}
	}

	s, err := pgstore.Open(ctx, dsn)
	require.NoError(t, err)
	defer s.Close()
	var version int
	require.NoError(t, conn.QueryRow(ctx, `SELECT version FROM numen_schema`).Scan(&version))
	require.Equal(t, pgstore.SchemaVersion, version)
	require.Zero(t, pendingCount(t, dsn), "migration 7 counts what was pending")
	var table *string
	require.NoError(t, conn.QueryRow(ctx, `SELECT to_regclass('reports_pending')::text`).Scan(&table))
	require.Nil(t, table, "schema 6's pending table is gone")
	require.EqualValues(t, len(rs), requireExact(t, s, dsn))

	fresh, err := pgstore.Open(ctx, pgtest.Database(t))
	require.NoError(t, err)
	defer fresh.Close()
	require.NoError(t, fresh.RecordAll(ctx, rs))
	want, err := fresh.Summary(ctx, acct, name)
	require.NoError(t, err)
	got, err := s.Summary(ctx, acct, name)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.NotEmpty(t, got.Values[store.FieldRoute])
	for _, q := range []store.Query{
		{Where: []store.Cond{{Field: store.FieldValid, Value: "false"}}},
		{Where: []store.Cond{{Field: store.FieldInvalidReason, Value: "invalid country code"}}, Desc: true},
		{Where: []store.Cond{{Field: store.FieldRoute, Value: "R2"}, {Field: store.FieldCountry, Value: "GB"}}},
	} {
		a, err := fresh.Query(ctx, acct, name, &q, "", store.MaxPage)
		require.NoError(t, err)
		b, err := s.Query(ctx, acct, name, &q, "", store.MaxPage)
		require.NoError(t, err)
		require.NotEmpty(t, a.Rows, "%+v", q)
		require.Equal(t, ids(a.Rows), ids(b.Rows), "%+v", q)
	}

	// Results recorded after the upgrade are counted with those before.
	more := storetest.Varied("acct-v6", name, 30)
	require.NoError(t, s.RecordAll(ctx, append(more, storetest.NewRecord(acct, name, "NT", "after-1", storetest.Base, 1))))
	indexed(t, s, dsn)
	require.EqualValues(t, len(rs)+31, requireExact(t, s, dsn))
}

func ids(rows []store.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}
