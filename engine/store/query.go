package store

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store/internal/facts"
)

// Field is an attribute of results by which a report is filtered, sorted
// and summarised. The stores keep each in a column of its own, indexed
// with the report's time order (see Query), and count each report's
// results and costs per value of every field (Summary).
type Field string

// Fields. A field a product's results do not have is "" for them.
const (
	// FieldProduct is HLR, MNP or NT.
	FieldProduct Field = "product"
	// FieldStatus is the result's processing_status (HLR and MNP:
	// COMPLETED, REJECTED, FAILED) or, for NT, its query_status (OK,
	// FAILED).
	FieldStatus Field = "status"
	// FieldConnectivity is an HLR result's connectivity_status
	// (CONNECTED, ABSENT, INVALID_MSISDN, UNDETERMINED).
	FieldConnectivity Field = "connectivity"
	// FieldNumberType is an NT result's number_type (MOBILE, LANDLINE, ...).
	FieldNumberType Field = "number_type"
	// FieldCountry is original_country_code (ISO 3166-1 alpha-2).
	FieldCountry Field = "country"
	// FieldNetwork is the MCCMNC of the original network (mccmnc).
	FieldNetwork Field = "network"
	// FieldValid is an NT result's is_valid: "true" or "false".
	FieldValid Field = "valid"
	// FieldInvalidReason is an NT result's invalid_reason ("invalid
	// country code", "too long", ...; "" for a valid number).
	FieldInvalidReason Field = "invalid_reason"
	// FieldRoute is the route that answered the lookup (any product).
	FieldRoute Field = "route"
)

// Fields returns the fields, in the order of a report's summary.
func Fields() []Field {
	return []Field{FieldProduct, FieldStatus, FieldConnectivity, FieldNumberType, FieldCountry, FieldNetwork, FieldValid, FieldInvalidReason, FieldRoute}
}

// ParseField reads a field's name ("country").
func ParseField(s string) (Field, error) {
	for _, f := range Fields() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("field %q: want one of product, status, connectivity, number_type, country, network, valid, invalid_reason, route", s)
}

// Query selects and orders the results of one report: every condition
// must hold (a Field's value equal to the one given, "" matching results
// without one), and the number must start with NumberPrefix.
//
// Results come in time order (completion time, then id; newest first
// when Desc), or ordered by number, then by time. The stores keep an
// index for each: (account, storage, time, id) and (account, storage,
// number, time, id). Conditions on the Fields use, on SQLite, an index
// (account, storage, field, time, id) per Field, and on PostgreSQL one GIN
// index of the fields' tags (TagsSQL), which the planner weighs against
// reading the time index and skipping the rows that do not match. Sorting
// by another field is not offered: a million results sorted by country
// would need an index per field on PostgreSQL too, and filtering by the
// field serves the same purpose. Nor is number order offered with a
// condition on a field: the values of a field follow the number (a
// country is a prefix), so reading the number index skips most of the
// report before it finds a page, and reading the field's index sorts all
// it selects (Germany's 35% of a report of 1,000,000 results in number
// order took 7 s on SQLite either way).
type Query struct {
	// Where are the conditions, at most one per field.
	Where []Cond
	// NumberPrefix keeps the results whose number starts with it: "+4479"
	// (a number without "+" is read as E.164 digits: "4479" too).
	NumberPrefix string
	// Sort is "" (time), "number" or a Field.
	Sort string
	// Desc reverses the order: newest first, or Z to A.
	Desc bool
	// From and To bound the completion time: From <= time < To, to the
	// millisecond the stores keep; a zero time leaves its side open. The
	// report's time index serves the range in time order.
	From, To time.Time
}

// Filtered reports whether q selects less than the whole report: a
// condition, a number prefix or a time range.
func (q *Query) Filtered() bool {
	return len(q.Where) > 0 || q.NumberPrefix != "" || !q.From.IsZero() || !q.To.IsZero()
}

// Cond is one condition of a Query: Field equals Value.
type Cond struct {
	Field Field
	Value string
}

// Sort orders of a Query besides the Fields.
const (
	SortTime   = ""
	SortNumber = "number"
)

// Check validates q: known fields, each at most once; a known sort; a
// number prefix of digits (after an optional "+"). Errors name the part
// that is wrong.
func (q *Query) Check() error {
	seen := map[Field]bool{}
	for _, c := range q.Where {
		if _, err := ParseField(string(c.Field)); err != nil {
			return err
		}
		if seen[c.Field] {
			return fmt.Errorf("field %s: given twice", c.Field)
		}
		seen[c.Field] = true
		if n := utf8.RuneCountInString(c.Value); n > facts.MaxLen {
			return fmt.Errorf("field %s: a value of %d characters, at most %d", c.Field, n, facts.MaxLen)
		}
	}
	if q.Sort != SortTime && q.Sort != SortNumber {
		return fmt.Errorf("sort: %q: want time or number (filter by a field instead)", q.Sort)
	}
	if q.Sort == SortNumber && len(q.Where) > 0 {
		return fmt.Errorf("sort: number: not with a filter by %s (filtered results come in time order; a number search sorts by number)", q.Where[0].Field)
	}
	if !q.From.IsZero() && !q.To.IsZero() && q.To.UnixMilli() <= q.From.UnixMilli() {
		return fmt.Errorf("to: %s is not after from %s: an empty time range", q.To.UTC().Format(time.RFC3339), q.From.UTC().Format(time.RFC3339))
	}
	if p := strings.TrimPrefix(q.NumberPrefix, "+"); len(p) > 20 || strings.Trim(p, "0123456789") != "" {
		return fmt.Errorf("number %q: want the start of a number in E.164, digits after an optional +", q.NumberPrefix)
	}
	return nil
}

// Page is one page of a Query.
type Page struct {
	Rows []Row
	// Next is the cursor of the next page, "" after the last.
	Next string
}

// PageCursor returns the cursor of page n (from 1) of a query read in
// pages of one size: the Reader.Query after which that page starts, for
// page numbers. Reading it skips the (n-1) pages before, which the
// database reads (cost grows with n); the Next of the page it returns is
// an ordinary cursor. A number below 1 is ErrBadCursor.
func PageCursor(n int) string { return pagePrefix + strconv.Itoa(n) }

// pagePrefix starts the cursors of PageCursor; the stores' own cursors
// are base64url, which has no ":".
const pagePrefix = "page:"

// PageNumber returns the page number of a cursor of PageCursor, or false
// for another cursor.
func PageNumber(cursor string) (int, bool) {
	s, ok := strings.CutPrefix(cursor, pagePrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, true // a page cursor, of no page: n < 1
	}
	return n, true
}

// ErrBadCursor is a page cursor that this store did not make for the
// query it is given with (a Next of another sort order, or damaged): HTTP
// 400.
var ErrBadCursor = errors.New("invalid page cursor")

// Summary counts a report's results and their cost per value of each
// Field and per day: the data of its charts.
type Summary struct {
	// Count and Cost are the report's totals.
	Count int64
	Cost  engine.Money
	// Values are, per field, its values, the most frequent first.
	Values map[Field][]Tally
	// Days are the days with results, in order (UTC).
	Days []Tally
}

// Totals are the count and cost of the results a Query selects, in all
// and per day: the figures of a filtered view.
type Totals struct {
	Count int64
	Cost  engine.Money
	// Days are the days with selected results, in order (UTC; Value is
	// the day, "2026-11-24").
	Days []Tally
	// More reports that the query selects more results than the limit
	// of Reader.Totals; Count, Cost and Days are then zero.
	More bool
}

// Tally is the count and cost of the results with one value (or of one
// day).
type Tally struct {
	// Value is the field's value ("" for results without one) or the day
	// ("2026-11-24").
	Value string
	// Label is what the results call the value (a country's or
	// network's name), when they do.
	Label string
	Count int64
	Cost  engine.Money
}
