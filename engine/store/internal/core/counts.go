package core

import (
	"cmp"
	"slices"
	"strings"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/facts"
)

// Counts are what a group of results adds to the tables a driver keeps
// per report: its reports rows (count, cost, first and last times per
// product) and its summary rows (count and cost per value of each Field
// and per day, with the value's label). Every driver's indexer counts
// with it, so that the two count alike.
type Counts struct {
	reports map[ReportKey]*ReportRow
	facets  map[FacetKey]*FacetRow
}

// ReportKey names a row of the reports table.
type ReportKey struct {
	Account, Storage string
	Product          engine.Product
}

// ReportRow is what a group adds to a row of the reports table.
type ReportRow struct{ Count, Cost, FirstMS, LastMS int64 }

// FacetKey names a row of the summary table.
type FacetKey struct{ Account, Storage, Field, Value string }

// FacetRow is what a group adds to a row of the summary table (Label:
// the greatest label of the value, "" when none has one).
type FacetRow struct {
	Label       string
	Count, Cost int64
}

// Add counts e.
func (c *Counts) Add(e *store.Entry) {
	if c.reports == nil {
		c.reports, c.facets = map[ReportKey]*ReportRow{}, map[FacetKey]*FacetRow{}
	}
	k := ReportKey{e.Account, e.Storage, e.Product}
	r := c.reports[k]
	if r == nil {
		r = &ReportRow{FirstMS: e.Millis, LastMS: e.Millis}
		c.reports[k] = r
	}
	r.Count++
	r.Cost += int64(e.Cost)
	r.FirstMS, r.LastMS = min(r.FirstMS, e.Millis), max(r.LastMS, e.Millis)
	f := &e.Facts
	for _, v := range [...][3]string{
		{string(store.FieldProduct), string(e.Product), ""},
		{string(store.FieldStatus), f.Status, ""},
		{string(store.FieldConnectivity), f.Connectivity, ""},
		{string(store.FieldNumberType), f.NumberType, ""},
		{string(store.FieldCountry), f.Country, f.CountryName},
		{string(store.FieldNetwork), f.Network, f.NetworkName},
		{string(store.FieldValid), f.Valid, ""},
		{string(store.FieldInvalidReason), f.InvalidReason, ""},
		{string(store.FieldRoute), f.Route, ""},
		{facts.DayField, facts.Day(e.Millis), ""},
	} {
		k := FacetKey{e.Account, e.Storage, v[0], v[1]}
		t := c.facets[k]
		if t == nil {
			t = &FacetRow{}
			c.facets[k] = t
		}
		t.Count++
		t.Cost += int64(e.Cost)
		t.Label = max(t.Label, v[2])
	}
}

// Reports calls f for each reports row, in the order of their keys (the
// order of the rows' locks: writers that lock in one order never
// deadlock), and returns its first error.
func (c *Counts) Reports(f func(ReportKey, ReportRow) error) error {
	keys := make([]ReportKey, 0, len(c.reports))
	for k := range c.reports {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b ReportKey) int {
		return cmp.Or(strings.Compare(a.Account, b.Account), strings.Compare(a.Storage, b.Storage), strings.Compare(string(a.Product), string(b.Product)))
	})
	for _, k := range keys {
		if err := f(k, *c.reports[k]); err != nil {
			return err
		}
	}
	return nil
}

// Facets calls f for each summary row, in the order of their keys, and
// returns its first error.
func (c *Counts) Facets(f func(FacetKey, FacetRow) error) error {
	keys := make([]FacetKey, 0, len(c.facets))
	for k := range c.facets {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b FacetKey) int {
		return cmp.Or(strings.Compare(a.Account, b.Account), strings.Compare(a.Storage, b.Storage),
			strings.Compare(a.Field, b.Field), strings.Compare(a.Value, b.Value))
	})
	for _, k := range keys {
		if err := f(k, *c.facets[k]); err != nil {
			return err
		}
	}
	return nil
}
