package storetest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/core"
	"github.com/numenhq/numen/engine/store/internal/facts"
)

// Varied returns n records of one report that differ in every Field and
// in their numbers: the three products (NT most), several countries (and
// none), networks (and none), statuses and number types, numbers that
// share prefixes, results in the same millisecond, over two days.
func Varied(account, storage string, n int) []engine.Record {
	countries := []struct{ code, name, mccmnc, network, prefix string }{
		{"GB", "United Kingdom", "23410", "O2", "+447"},
		{"DE", "Germany", "26201", "Telekom", "+4915"},
		{"GB", "United Kingdom", "23415", "Vodafone", "+4477"},
		{"FR", "France", "", "", "+336"},
		{"", "", "", "", "+999"},
	}
	products := []engine.Product{engine.ProductNT, engine.ProductNT, engine.ProductHLR, engine.ProductNT, engine.ProductMNP}
	rs := make([]engine.Record, n)
	at := Base
	for i := range rs {
		if i%5 != 3 { // every fifth result shares the millisecond of the one before
			at = at.Add(37 * time.Minute)
		}
		p := products[i%len(products)]
		r := NewRecord(account, storage, p, fmt.Sprintf("%s-%03d%c", account, (i*37)%n, 'a'+i%26), at, i/len(products))
		c := countries[(i/2)%len(countries)]
		number := fmt.Sprintf("%s%07d", c.prefix, (i*7919)%10_000_000)
		code, name, mccmnc, network := opt(c.code), opt(c.name), opt(c.mccmnc), opt(c.network)
		switch res := r.Result.(type) {
		case *apiv2.NTResult:
			res.Number, res.OriginalCountryCode, res.OriginalCountryName = number, code, name
			res.MCCMNC, res.OriginalNetworkName = mccmnc, network
			res.NumberType = []string{"MOBILE", "LANDLINE", "MOBILE", "VOIP"}[i%4]
			// Validity and its reasons: every seventh not valid, for one of
			// two reasons.
			res.IsValid, res.InvalidReason = apiv2.Bool(true), nil
			if i%7 == 0 {
				res.IsValid = apiv2.Bool(false)
				res.InvalidReason = apiv2.String([]string{"not a number", "invalid country code"}[(i/7)%2])
			}
		case *apiv2.HLRResult:
			res.MSISDN, res.OriginalCountryCode, res.OriginalCountryName = number, code, name
			res.MCCMNC, res.OriginalNetworkName = mccmnc, network
			res.ConnectivityStatus = []string{"CONNECTED", "ABSENT", "CONNECTED"}[i%3]
		case *apiv2.MNPResult:
			res.MSISDN, res.OriginalCountryCode, res.OriginalCountryName = number, code, name
			res.MCCMNC, res.OriginalNetworkName = mccmnc, network
		}
		// Routes: two per product, and none for some.
		route := []*string{apiv2.String("R1"), apiv2.String("R2"), nil}[(i/3)%3]
		switch res := r.Result.(type) {
		case *apiv2.NTResult:
			res.Route = route
		case *apiv2.HLRResult:
			res.Route = route
		case *apiv2.MNPResult:
			res.Route = route
		}
		rs[i] = r
	}
	return rs
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// reference is a report's results as the slow, obvious implementation of
// Query reads them.
type reference struct {
	entries []store.Entry
}

func newReference(t *testing.T, rs []engine.Record) reference {
	var ref reference
	for _, r := range rs {
		e, err := store.EntryOf(r)
		require.NoError(t, err)
		ref.entries = append(ref.entries, e)
	}
	return ref
}

func value(e *store.Entry, name string) string {
	switch name {
	case store.SortTime:
		return ""
	case store.SortNumber:
		return e.Facts.Number
	case string(store.FieldProduct):
		return string(e.Product)
	case string(store.FieldStatus):
		return e.Facts.Status
	case string(store.FieldConnectivity):
		return e.Facts.Connectivity
	case string(store.FieldNumberType):
		return e.Facts.NumberType
	case string(store.FieldCountry):
		return e.Facts.Country
	case string(store.FieldNetwork):
		return e.Facts.Network
	case string(store.FieldValid):
		return e.Facts.Valid
	case string(store.FieldInvalidReason):
		return e.Facts.InvalidReason
	case string(store.FieldRoute):
		return e.Facts.Route
	}
	return ""
}

// query returns the ids q selects, in its order.
func (ref reference) query(q *store.Query) []string {
	var sel []store.Entry
	prefix := q.NumberPrefix
	if prefix != "" && !strings.HasPrefix(prefix, "+") {
		prefix = "+" + prefix
	}
next:
	for _, e := range ref.entries {
		for _, c := range q.Where {
			if value(&e, string(c.Field)) != c.Value {
				continue next
			}
		}
		if !strings.HasPrefix(e.Facts.Number, prefix) ||
			!q.From.IsZero() && e.Millis < q.From.UnixMilli() || !q.To.IsZero() && e.Millis >= q.To.UnixMilli() {
			continue
		}
		sel = append(sel, e)
	}
	slices.SortFunc(sel, func(a, b store.Entry) int {
		c := cmp.Or(strings.Compare(value(&a, q.Sort), value(&b, q.Sort)), cmp.Compare(a.Millis, b.Millis), strings.Compare(a.ID, b.ID))
		if q.Desc {
			return -c
		}
		return c
	})
	var ids []string
	for _, e := range sel {
		ids = append(ids, e.ID)
	}
	return ids
}

// queries are the queries the suite compares with the reference.
func queries() []store.Query {
	qs := []store.Query{
		{},
		{Desc: true},
		{Where: []store.Cond{{Field: store.FieldProduct, Value: "NT"}}},
		{Where: []store.Cond{{Field: store.FieldCountry, Value: "GB"}}, Desc: true},
		{Where: []store.Cond{{Field: store.FieldCountry, Value: ""}}},
		{Where: []store.Cond{{Field: store.FieldNetwork, Value: "23410"}}, Desc: true},
		{Where: []store.Cond{{Field: store.FieldStatus, Value: "OK"}, {Field: store.FieldNumberType, Value: "MOBILE"}}},
		{Where: []store.Cond{{Field: store.FieldConnectivity, Value: "CONNECTED"}}},
		{NumberPrefix: "+44", Sort: "number", Desc: true},
		{Where: []store.Cond{{Field: store.FieldStatus, Value: "OK"}, {Field: store.FieldCountry, Value: "GB"}, {Field: store.FieldNetwork, Value: "23410"}}, Desc: true},
		{Where: []store.Cond{{Field: store.FieldCountry, Value: "XX"}}},
		{NumberPrefix: "+447"},
		{NumberPrefix: "4477", Sort: "number"},
		{NumberPrefix: "+", Desc: true},
		{NumberPrefix: "+4915", Where: []store.Cond{{Field: store.FieldProduct, Value: "HLR"}}},
		{Where: []store.Cond{{Field: store.FieldValid, Value: "false"}}, Desc: true},
		{Where: []store.Cond{{Field: store.FieldValid, Value: ""}}},
		{Where: []store.Cond{{Field: store.FieldInvalidReason, Value: "invalid country code"}}},
		{Where: []store.Cond{{Field: store.FieldRoute, Value: "R2"}}, Desc: true},
		{Where: []store.Cond{{Field: store.FieldRoute, Value: ""}}},
		{Where: []store.Cond{{Field: store.FieldRoute, Value: "R1"}, {Field: store.FieldValid, Value: "true"}, {Field: store.FieldCountry, Value: "GB"}}},
	}
	// Time ranges: a day, from a time on, up to one (exclusive), with
	// conditions, in number order, and one that selects nothing.
	day2 := Base.Truncate(24 * time.Hour).Add(24 * time.Hour)
	qs = append(qs,
		store.Query{From: day2, To: day2.Add(24 * time.Hour)},
		store.Query{From: Base.Add(37 * 40 * time.Minute), Desc: true},
		store.Query{To: Base.Add(37 * 20 * time.Minute)},
		store.Query{From: day2, Where: []store.Cond{{Field: store.FieldCountry, Value: "GB"}}, Desc: true},
		store.Query{From: Base, To: day2, NumberPrefix: "+44", Sort: "number"},
		store.Query{From: Base.Add(-48 * time.Hour), To: Base.Add(-24 * time.Hour)},
	)
	return append(qs, store.Query{Sort: "number"}, store.Query{Sort: "number", Desc: true})
}

// totals are the count and cost of the results q selects, as the
// reference counts them.
func (ref reference) totals(q *store.Query) store.Totals {
	var t store.Totals
	selected := map[string]bool{}
	for _, id := range ref.query(q) {
		selected[id] = true
	}
	for _, e := range ref.entries {
		if selected[e.ID] {
			t.Count++
			t.Cost += e.Cost
			t.Days = addTally(t.Days, facts.Day(e.Millis), "", e.Cost)
		}
	}
	slices.SortFunc(t.Days, func(a, b store.Tally) int { return strings.Compare(a.Value, b.Value) })
	return t
}

// testQuery pages through a varied report under many queries, in pages
// of 7, and compares the ids with the reference's; and downloads each.
func testQuery(t *testing.T, open Opener) {
	s := openStore(t, open)
	ctx := t.Context()
	const acct, name = "acct-q", "campaign-2026-11"
	rs := Varied(acct, name, 90)
	require.NoError(t, s.RecordAll(ctx, rs))
	// Another account's report of the same name is never read.
	require.NoError(t, s.RecordAll(ctx, Varied("acct-other", name, 10)[:5]))
	ref := newReference(t, rs)
	for _, q := range queries() {
		checkQuery(t, s, acct, name, ref, len(rs), q)
	}
	checkWholeAndResults(t, s, acct, name)
}

// checkQuery checks one query against the reference: its pages by Next and
// by number, its export and its totals, with and without a limit.
func checkQuery(t *testing.T, s store.Store, acct, name string, ref reference, n int, q store.Query) {
	ctx := t.Context()
	label := fmt.Sprintf("%+v", q)
	want := ref.query(&q)
	var got []string
	after := ""
	for range n/7 + 2 {
		page, err := s.Query(ctx, acct, name, &q, after, 7)
		require.NoError(t, err, label)
		for _, r := range page.Rows {
			got = append(got, r.ID)
		}
		if page.Next == "" {
			break
		}
		require.Len(t, page.Rows, 7, label)
		after = page.Next
	}
	require.Equal(t, want, got, label)
	// Page numbers: page 3 of pages of 7, and the page after it by
	// its Next.
	page, err := s.Query(ctx, acct, name, &q, store.PageCursor(3), 7)
	require.NoError(t, err, label)
	var numbered []string
	for _, r := range page.Rows {
		numbered = append(numbered, r.ID)
	}
	if page.Next != "" {
		next, err := s.Query(ctx, acct, name, &q, page.Next, 7)
		require.NoError(t, err, label)
		for _, r := range next.Rows {
			numbered = append(numbered, r.ID)
		}
	}
	wantPages := want[min(14, len(want)):min(28, len(want))]
	if len(wantPages) == 0 {
		wantPages = nil
	}
	require.Equal(t, wantPages, numbered, "pages 3 and 4 of %s", label)

	var buf bytes.Buffer
	require.NoError(t, s.Export(ctx, acct, name, &q, store.JSON, &buf), label)
	var objects []struct{ ID string }
	require.NoError(t, json.Unmarshal(buf.Bytes(), &objects), label)
	var ids []string
	for _, o := range objects {
		ids = append(ids, o.ID)
	}
	require.Equal(t, want, ids, "export of %s", label)

	totals, err := s.Totals(ctx, acct, name, &q, 0)
	require.NoError(t, err, label)
	wantTotals := ref.totals(&q)
	require.Equal(t, wantTotals, totals, "totals of %s", label)
	// Limited: the same up to the limit, then More alone (but for
	// whole days, which the summary has).
	for _, limit := range []int{int(wantTotals.Count), max(1, int(wantTotals.Count)-1)} {
		if limit == 0 {
			continue
		}
		limited, err := s.Totals(ctx, acct, name, &q, limit)
		require.NoError(t, err, label)
		if int64(limit) >= wantTotals.Count || len(q.Where) == 0 && q.NumberPrefix == "" &&
			q.From.UnixMilli()%86_400_000 == 0 && q.To.UnixMilli()%86_400_000 == 0 {
			require.Equal(t, wantTotals, limited, "totals of %s up to %d", label, limit)
		} else {
			require.Equal(t, store.Totals{More: true}, limited, "totals of %s up to %d", label, limit)
		}
	}
}

// checkWholeAndResults checks the totals of the whole report, a row's own
// result, a filtered CSV download's columns and the queries and cursors
// every read refuses.
func checkWholeAndResults(t *testing.T, s store.Store, acct, name string) {
	ctx := t.Context()
	all, err := s.Totals(ctx, acct, name, &store.Query{}, 1)
	require.NoError(t, err)
	sum, err := s.Summary(ctx, acct, name)
	require.NoError(t, err)
	require.Equal(t, store.Totals{Count: sum.Count, Cost: sum.Cost, Days: sum.Days}, all, "the totals of the whole report are its summary's")
	_, err = s.Totals(ctx, acct, "no-such-report", &store.Query{}, 0)
	require.ErrorIs(t, err, store.ErrUnknownReport)

	// A row's own page: one result by id, only in its account's report.
	page, err := s.Query(ctx, acct, name, &store.Query{}, "", 3)
	require.NoError(t, err)
	for _, want := range page.Rows {
		got, err := s.Result(ctx, acct, name, want.ID)
		require.NoError(t, err)
		require.Equal(t, want, got)
		_, err = s.Result(ctx, "acct-other", name, want.ID)
		require.ErrorIs(t, err, store.ErrUnknownResult, "another account's report of that name")
		_, err = s.Result(ctx, "acct-none", name, want.ID)
		require.ErrorIs(t, err, store.ErrUnknownReport, "an account without reports")
		_, err = s.Result(ctx, acct, "other-2026-11", want.ID)
		require.ErrorIs(t, err, store.ErrUnknownReport, "another report")
	}
	other, err := s.Query(ctx, "acct-other", name, &store.Query{}, "", 1)
	require.NoError(t, err)
	_, err = s.Result(ctx, acct, name, other.Rows[0].ID)
	require.ErrorIs(t, err, store.ErrUnknownResult, "an id of another account's report of the same name")
	_, err = s.Result(ctx, acct, name, "nope")
	require.ErrorIs(t, err, store.ErrUnknownResult)

	// A filtered CSV download has the columns of the product it keeps.
	var buf bytes.Buffer
	require.NoError(t, s.Export(ctx, acct, name, &store.Query{Where: []store.Cond{{Field: store.FieldProduct, Value: "HLR"}}}, store.CSV, &buf))
	header, _, _ := strings.Cut(buf.String(), "\r\n")
	require.Equal(t, strings.Join(store.Columns(engine.ProductHLR), ","), header)

	for _, bad := range []store.Query{
		{Where: []store.Cond{{Field: "colour", Value: "red"}}},
		{Where: []store.Cond{{Field: store.FieldCountry, Value: "GB"}, {Field: store.FieldCountry, Value: "DE"}}},
		{Sort: "cost"},
		{Sort: "country"},
		{Sort: "number", Where: []store.Cond{{Field: store.FieldCountry, Value: "GB"}}},
		{NumberPrefix: "+44 20"},
		{NumberPrefix: "'; DROP TABLE results; --"},
		{From: Base, To: Base},
		{From: Base.Add(time.Hour), To: Base},
	} {
		_, err := s.Query(ctx, acct, name, &bad, "", 0)
		require.Error(t, err, "%+v", bad)
		require.Error(t, s.Export(ctx, acct, name, &bad, store.CSV, &bytes.Buffer{}), "%+v", bad)
		_, err = s.Totals(ctx, acct, name, &bad, 0)
		require.Error(t, err, "%+v", bad)
	}
	for _, bad := range []string{store.PageCursor(0), store.PageCursor(-1), "page:x", store.PageCursor(1 << 40)} {
		_, err := s.Query(ctx, acct, name, &store.Query{}, bad, 7)
		require.ErrorIs(t, err, store.ErrBadCursor, bad)
	}
}

// testSummary compares a report's summary with the reference's counts and
// costs per value and per day.
func testSummary(t *testing.T, open Opener) {
	s := openStore(t, open)
	ctx := t.Context()
	const acct, name = "acct-s", "campaign-2026-11"
	rs := Varied(acct, name, 90)
	// One at a time and in groups, so that both paths of a store count.
	for _, r := range rs[:10] {
		require.NoError(t, s.Record(ctx, r))
	}
	require.NoError(t, s.RecordAll(ctx, rs[10:50]))
	// A group of which some were stored before (a bulk job that runs
	// again): only the new ones are counted.
	require.ErrorIs(t, s.RecordAll(ctx, rs[40:70]), store.ErrDuplicateID)
	require.NoError(t, s.RecordAll(ctx, rs[70:]))
	// A duplicate is not counted twice.
	require.ErrorIs(t, s.Record(ctx, rs[3]), store.ErrDuplicateID)
	require.NoError(t, s.RecordAll(ctx, Varied("acct-other", name, 10)))

	want := store.Summary{Values: map[store.Field][]store.Tally{}}
	add := func(field, value, label string, e *store.Entry) {
		if field == facts.DayField {
			want.Days = addTally(want.Days, value, label, e.Cost)
			return
		}
		f := store.Field(field)
		want.Values[f] = addTally(want.Values[f], value, label, e.Cost)
	}
	for _, e := range newReference(t, rs).entries {
		want.Count++
		want.Cost += e.Cost
		add("product", string(e.Product), "", &e)
		add("status", e.Facts.Status, "", &e)
		add("connectivity", e.Facts.Connectivity, "", &e)
		add("number_type", e.Facts.NumberType, "", &e)
		add("country", e.Facts.Country, e.Facts.CountryName, &e)
		add("network", e.Facts.Network, e.Facts.NetworkName, &e)
		add("valid", e.Facts.Valid, "", &e)
		add("invalid_reason", e.Facts.InvalidReason, "", &e)
		add("route", e.Facts.Route, "", &e)
		add(facts.DayField, facts.Day(e.Millis), "", &e)
	}
	core.FinishSummary(&want)
	got, err := s.Summary(ctx, acct, name)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Len(t, got.Days, 3, "90 results 37 minutes apart from 09:30 span three days")
	require.Equal(t, "United Kingdom", got.Values[store.FieldCountry][0].Label)
}

func addTally(ts []store.Tally, value, label string, cost engine.Money) []store.Tally {
	for i := range ts {
		if ts[i].Value == value {
			ts[i].Count++
			ts[i].Cost += cost
			return ts
		}
	}
	return append(ts, store.Tally{Value: value, Label: label, Count: 1, Cost: cost})
}
