package core

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/numenhq/numen/engine/store"
)

// Cond is store.Cond, for the drivers' SQL text.
type Cond = store.Cond

// PageSize returns the page size Query uses for limit: store.DefaultPage
// for 0 or less, at most store.MaxPage.
func PageSize(limit int) int {
	switch {
	case limit <= 0:
		return store.DefaultPage
	case limit > store.MaxPage:
		return store.MaxPage
	}
	return limit
}

// sortColumn is the column q orders by before the time, or "": the
// results table has a column of each Field and "number", of its name.
func sortColumn(q *store.Query) string { return q.Sort }

// cursor is where a page ends: the sort value, time and id of its last
// row. Encoded, it is the Next of a Page.
type cursor struct {
	Sort  string `json:"s"`
	Value string `json:"v,omitempty"`
	MS    int64  `json:"t"`
	ID    string `json:"i"`
}

// NextCursor returns the cursor of the page after the one that ends with
// the row of sort value value, completion time ms and id.
func NextCursor(q *store.Query, value string, ms int64, id string) string {
	c := cursor{Sort: q.Sort, MS: ms, ID: id}
	if q.Sort != store.SortTime {
		c.Value = value
	}
	b, _ := json.Marshal(c) // strings and an integer: cannot fail
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string, q *store.Query) (cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	var c cursor
	if err == nil && len(b) < 1024 {
		err = json.Unmarshal(b, &c)
	} else if err == nil {
		err = errors.New("too long")
	}
	switch {
	case err != nil:
		return cursor{}, fmt.Errorf("%w: %q is not a cursor of this store: %v", store.ErrBadCursor, s, err)
	case c.Sort != q.Sort:
		return cursor{}, fmt.Errorf("%w: a cursor of sort order %q, given with sort %q", store.ErrBadCursor, c.Sort, q.Sort)
	case c.ID == "":
		return cursor{}, fmt.Errorf("%w: %q has no id", store.ErrBadCursor, s)
	}
	return c, nil
}

// QueryPlan is how a driver reads the results that a query's conditions
// on the Fields select, when it has the choice (PostgreSQL; SQLite's index
// per field gives them in time order).
type QueryPlan int

const (
	// PlanAuto leaves the choice to the database.
	PlanAuto QueryPlan = iota
	// PlanByTime reads the report in its order and skips the results
	// that do not match: fast when they are common.
	PlanByTime
	// PlanByValue selects the matching results by their values' index,
	// then orders them: fast when they are few.
	PlanByValue
)

// ChoosePlan chooses how to read a report of total results under
// conditions whose least frequent value holds least of them (its count in
// the report's summary), for a page of limit results (0: all of them).
// PostgreSQL's statistics are the whole table's, not the report's, and
// are missing until the table is analysed: a value rare in one report
// but common in the table, or a table not yet analysed, had it read a
// million results for a page of a rare value (420 ms). Reading by time
// scans about limit x total / least rows for a page; selecting by value
// reads least rows and sorts them: by time when the first is smaller.
func ChoosePlan(total, least int64, limit int) QueryPlan {
	if limit <= 0 {
		// A download reads every match: by value unless they are most of
		// the report.
		if least*2 < total {
			return PlanByValue
		}
		return PlanByTime
	}
	if least*least < int64(limit)*total {
		return PlanByValue
	}
	return PlanByTime
}

// MatchColumns is the condition of conds on the results' columns, one
// per field: SQLite's index per field serves it, and PostgreSQL checks it
// on each row it reads in time order.
func MatchColumns(conds []Cond, arg func(any) string) string {
	var b strings.Builder
	for _, c := range conds {
		fmt.Fprintf(&b, " AND %s = %s", c.Field, arg(c.Value))
	}
	return b.String()
}

// SelectSQL returns the statement and arguments of one page of q (rows
// after the cursor after, "" for the first page) from the results of an
// account's report, limit+1 rows (one more than the page, to tell whether
// there is a next; limit 0: all), selecting cols, in the dialect of sq.
// Every driver runs it, so that a page is the same on each.
func SelectSQL(sq *SQL, cols, account, storage string, q *store.Query, after string, limit int, plan QueryPlan) (string, []any, error) {
	if err := q.Check(); err != nil {
		return "", nil, err
	}
	var b strings.Builder
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return sq.Param(len(args))
	}
	// Arguments in the order they appear: the conditions first.
	where := fmt.Sprintf("account = %s AND storage = %s", arg(account), arg(storage))
	var match string
	sortAfter := false
	if sq.Match != nil && len(q.Where) > 0 {
		match, sortAfter = sq.Match(q.Where, plan, arg)
	} else {
		match = MatchColumns(q.Where, arg)
	}
	if sortAfter {
		// The rows the values' index selects, then ordered: OFFSET 0
		// keeps PostgreSQL's planner from reading the time index instead.
		fmt.Fprintf(&b, "SELECT %s FROM (SELECT * FROM results WHERE %s%s", cols, where, match)
	} else {
		fmt.Fprintf(&b, "SELECT %s FROM results WHERE %s%s", cols, where, match)
	}
	if p := strings.TrimPrefix(q.NumberPrefix, "+"); p != "" {
		// A range of the index rather than LIKE, which neither database
		// turns into one by itself under every collation: digits sort
		// before ":".
		fmt.Fprintf(&b, " AND number >= %s AND number < %s", arg("+"+p), arg("+"+p+":"))
	}
	if !q.From.IsZero() {
		fmt.Fprintf(&b, " AND created_ms >= %s", arg(q.From.UnixMilli()))
	}
	if !q.To.IsZero() {
		fmt.Fprintf(&b, " AND created_ms < %s", arg(q.To.UnixMilli()))
	}
	order, cmp := "ASC", ">"
	if q.Desc {
		order, cmp = "DESC", "<"
	}
	sortCol := sortColumn(q)
	offset := 0
	if n, ok := store.PageNumber(after); ok {
		if n < 1 || limit <= 0 || n > maxPageNumber/limit {
			return "", nil, fmt.Errorf("%w: %q: want a page number from 1 to %d", store.ErrBadCursor, after, maxPageNumber/max(limit, 1))
		}
		offset, after = (n-1)*limit, ""
	}
	if after != "" {
		c, err := decodeCursor(after, q)
		if err != nil {
			return "", nil, err
		}
		if sortCol != "" {
			fmt.Fprintf(&b, " AND (%s, created_ms, id) %s (%s, %s, %s)", sortCol, cmp, arg(c.Value), arg(c.MS), arg(c.ID))
		} else {
			fmt.Fprintf(&b, " AND (created_ms, id) %s (%s, %s)", cmp, arg(c.MS), arg(c.ID))
		}
	}
	if sortAfter {
		b.WriteString(" OFFSET 0) results")
	}
	b.WriteString(" ORDER BY ")
	if sortCol != "" {
		fmt.Fprintf(&b, "%s %s, ", sortCol, order)
	}
	fmt.Fprintf(&b, "created_ms %s, id %s", order, order)
	if limit > 0 {
		fmt.Fprintf(&b, " LIMIT %s", arg(limit+1))
	}
	if offset > 0 {
		fmt.Fprintf(&b, " OFFSET %s", arg(offset))
	}
	return b.String(), args, nil
}

// maxPageNumber bounds the results a page number skips (store.PageCursor):
// ten million, more than a report a page is read from by number.
const maxPageNumber = 10_000_000

// sortValueColumn is the column whose value NextCursor needs besides the
// time and id: the sort column, or an empty text in time order.
func sortValueColumn(q *store.Query) string {
	if c := sortColumn(q); c != "" {
		return c
	}
	return "''"
}
