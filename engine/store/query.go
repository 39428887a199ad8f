package store

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
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
)

// Fields returns the fields, in the order of a report's summary.
func Fields() []Field {
	return []Field{FieldProduct, FieldStatus, FieldConnectivity, FieldNumberType, FieldCountry, FieldNetwork}
}

// ParseField reads a field's name ("country").
func ParseField(s string) (Field, error) {
	for _, f := range Fields() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("field %q: want one of product, status, connectivity, number_type, country, network", s)
}

// maxFactLen bounds the characters of a fact a store keeps (a longer
// value is cut): the values are codes, numbers and short names, and each
// is in an index.
const maxFactLen = 100

// Facts are what a store keeps of a result besides its object: its number
// and the value of each Field, with the names the result gives the
// country and the network (the labels of a summary).
type Facts struct {
	// Number is the number looked up: msisdn (HLR, MNP) or number (NT),
	// as the result has it (E.164 when it was valid).
	Number                                             string
	Status, Connectivity, NumberType, Country, Network string
	CountryName, NetworkName                           string
}

// Value returns the value of field f ("" for FieldProduct, which the
// Entry has).
func (f *Facts) Value(field Field) string {
	switch field {
	case FieldStatus:
		return f.Status
	case FieldConnectivity:
		return f.Connectivity
	case FieldNumberType:
		return f.NumberType
	case FieldCountry:
		return f.Country
	case FieldNetwork:
		return f.Network
	}
	return ""
}

// factsJSON is the part of the three products' result objects that Facts
// are read from.
type factsJSON struct {
	Number             string  `json:"number"`
	MSISDN             string  `json:"msisdn"`
	QueryStatus        string  `json:"query_status"`
	ProcessingStatus   string  `json:"processing_status"`
	ConnectivityStatus string  `json:"connectivity_status"`
	NumberType         string  `json:"number_type"`
	CountryCode        *string `json:"original_country_code"`
	CountryName        *string `json:"original_country_name"`
	MCCMNC             *string `json:"mccmnc"`
	NetworkName        *string `json:"original_network_name"`
}

// FactsOf reads the facts of a result object of product p, as the API
// wrote it. The stores call it for every result they add, and their
// migrations read the same attributes from results stored before.
func FactsOf(p engine.Product, result []byte) (Facts, error) {
	var j factsJSON
	if err := json.Unmarshal(result, &j); err != nil {
		return Facts{}, fmt.Errorf("%w: the %s result object: %w", ErrInvalidRecord, p, err)
	}
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return cut(*s)
	}
	f := Facts{
		Country: str(j.CountryCode), CountryName: str(j.CountryName),
		Network: str(j.MCCMNC), NetworkName: str(j.NetworkName),
	}
	switch p {
	case engine.ProductHLR:
		f.Number, f.Status, f.Connectivity = j.MSISDN, j.ProcessingStatus, j.ConnectivityStatus
	case engine.ProductMNP:
		f.Number, f.Status = j.MSISDN, j.ProcessingStatus
	case engine.ProductNT:
		f.Number, f.Status, f.NumberType = j.Number, j.QueryStatus, j.NumberType
	default:
		return Facts{}, fmt.Errorf("%w: product %q: want HLR, MNP or NT", ErrInvalidRecord, p)
	}
	f.Number, f.Status, f.Connectivity, f.NumberType = cut(f.Number), cut(f.Status), cut(f.Connectivity), cut(f.NumberType)
	f.unlabel()
	return f, nil
}

// unlabel drops the name of a country or network without a code: the
// summaries name values, and results without a code are one value ("")
// whatever name some of them carry (a network name without an MCCMNC).
func (f *Facts) unlabel() {
	if f.Country == "" {
		f.CountryName = ""
	}
	if f.Network == "" {
		f.NetworkName = ""
	}
}

// factsOfResult returns the facts of a result (not nil: EntryOf checked
// it): what FactsOf reads from its JSON.
func factsOfResult(v apiv2.Result) Facts {
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return cut(*s)
	}
	var f Facts
	switch r := v.(type) {
	case *apiv2.HLRResult:
		f = Facts{Number: r.MSISDN, Status: r.ProcessingStatus, Connectivity: r.ConnectivityStatus,
			Country: str(r.OriginalCountryCode), CountryName: str(r.OriginalCountryName), Network: str(r.MCCMNC), NetworkName: str(r.OriginalNetworkName)}
	case *apiv2.MNPResult:
		f = Facts{Number: r.MSISDN, Status: r.ProcessingStatus,
			Country: str(r.OriginalCountryCode), CountryName: str(r.OriginalCountryName), Network: str(r.MCCMNC), NetworkName: str(r.OriginalNetworkName)}
	case *apiv2.NTResult:
		f = Facts{Number: r.Number, Status: r.QueryStatus, NumberType: r.NumberType,
			Country: str(r.OriginalCountryCode), CountryName: str(r.OriginalCountryName), Network: str(r.MCCMNC), NetworkName: str(r.OriginalNetworkName)}
	}
	f.Number, f.Status, f.Connectivity, f.NumberType = cut(f.Number), cut(f.Status), cut(f.Connectivity), cut(f.NumberType)
	f.unlabel()
	return f
}

// cut returns s, cut to maxFactLen characters (runes), as the
// migrations' substr and left cut a value.
func cut(s string) string {
	if len(s) <= maxFactLen {
		return s
	}
	n := 0
	for i := range s {
		if n == maxFactLen {
			return s[:i]
		}
		n++
	}
	return s
}

// Day returns the summary's day of a completion time in Unix
// milliseconds: its date in UTC, "2006-01-02".
func Day(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.DateOnly) }

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
		if n := utf8.RuneCountInString(c.Value); n > maxFactLen {
			return fmt.Errorf("field %s: a value of %d characters, at most %d", c.Field, n, maxFactLen)
		}
	}
	if q.Sort != SortTime && q.Sort != SortNumber {
		return fmt.Errorf("sort: %q: want time or number (filter by a field instead)", q.Sort)
	}
	if q.Sort == SortNumber && len(q.Where) > 0 {
		return fmt.Errorf("sort: number: not with a filter by %s (filtered results come in time order; a number search sorts by number)", q.Where[0].Field)
	}
	if p := strings.TrimPrefix(q.NumberPrefix, "+"); len(p) > 20 || strings.Trim(p, "0123456789") != "" {
		return fmt.Errorf("number %q: want the start of a number in E.164, digits after an optional +", q.NumberPrefix)
	}
	return nil
}

// sortColumn is the column q orders by before the time, or "".
func (q *Query) sortColumn() string {
	if q.Sort == SortTime {
		return ""
	}
	return column(q.Sort)
}

// column is the results table's column of a Field or "number".
func column(name string) string {
	if name == string(FieldProduct) {
		return "product"
	}
	return name // status, connectivity, number_type, country, network, number
}

// Page is one page of a Query.
type Page struct {
	Rows []Row
	// Next is the cursor of the next page, "" after the last.
	Next string
}

// cursor is where a page ends: the sort value, time and id of its last
// row. Encoded, it is the Next of a Page.
type cursor struct {
	Sort  string `json:"s"`
	Value string `json:"v,omitempty"`
	MS    int64  `json:"t"`
	ID    string `json:"i"`
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c) // strings and an integer: cannot fail
	return base64.RawURLEncoding.EncodeToString(b)
}

// ErrBadCursor is a page cursor that this store did not make for the
// query it is given with (a Next of another sort order, or damaged): HTTP
// 400.
var ErrBadCursor = errors.New("invalid page cursor")

func decodeCursor(s string, q *Query) (cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	var c cursor
	if err == nil && len(b) < 1024 {
		err = json.Unmarshal(b, &c)
	} else if err == nil {
		err = errors.New("too long")
	}
	switch {
	case err != nil:
		return cursor{}, fmt.Errorf("%w: %q is not a cursor of this store: %v", ErrBadCursor, s, err)
	case c.Sort != q.Sort:
		return cursor{}, fmt.Errorf("%w: a cursor of sort order %q, given with sort %q", ErrBadCursor, c.Sort, q.Sort)
	case c.ID == "":
		return cursor{}, fmt.Errorf("%w: %q has no id", ErrBadCursor, s)
	}
	return c, nil
}

// TagsSQL is PostgreSQL's expression of a result's tags, one
// "field=value" per Field (a field's name has no "=", so a tag names one
// value of one field): the expression of its GIN index, and the one a
// query's conditions must use to be served by it.
const TagsSQL = `ARRAY['product=' || product, 'status=' || status, 'connectivity=' || connectivity, ` +
	`'number_type=' || number_type, 'country=' || country, 'network=' || network]`

// Dialect is how a store's SQL writes a query's parameters.
type Dialect int

// Dialects.
const (
	SQLite   Dialect = iota // ?
	Postgres                // $1, $2, ...
)

// SelectSQL returns the statement and arguments of one page of q (rows
// after the cursor after, "" for the first page) from the results of an
// account's report, limit+1 rows (one more than the page, to tell whether
// there is a next), selecting cols. Both stores run it, so that a page is
// the same on either.
func SelectSQL(d Dialect, cols, account, storage string, q *Query, after string, limit int, plan Plan) (string, []any, error) {
	if err := q.Check(); err != nil {
		return "", nil, err
	}
	var b strings.Builder
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		if d == Postgres {
			return "$" + strconv.Itoa(len(args))
		}
		return "?"
	}
	byValue := d == Postgres && plan == PlanByValue && len(q.Where) > 0
	if byValue {
		// The rows the GIN index selects, then ordered: OFFSET 0 keeps the
		// planner from reading the time index instead.
		fmt.Fprintf(&b, "SELECT %s FROM (SELECT * FROM results WHERE account = %s AND storage = %s", cols, arg(account), arg(storage))
	} else {
		fmt.Fprintf(&b, "SELECT %s FROM results WHERE account = %s AND storage = %s", cols, arg(account), arg(storage))
	}
	if d == Postgres && len(q.Where) > 0 && plan != PlanByTime {
		// One GIN index over the fields' tags (TagsSQL) serves every
		// combination of conditions.
		tags := make([]string, len(q.Where))
		for i, c := range q.Where {
			tags[i] = string(c.Field) + "=" + c.Value
		}
		fmt.Fprintf(&b, " AND %s @> %s::text[]", TagsSQL, arg(tags))
	} else {
		// SQLite: an index per field; PostgreSQL by time: the columns,
		// which no index of PostgreSQL's serves, checked on each row.
		for _, c := range q.Where {
			fmt.Fprintf(&b, " AND %s = %s", column(string(c.Field)), arg(c.Value))
		}
	}
	if p := strings.TrimPrefix(q.NumberPrefix, "+"); p != "" {
		// A range of the index rather than LIKE, which neither
		// database turns into one by itself under every collation: digits
		// sort before ":".
		fmt.Fprintf(&b, " AND number >= %s AND number < %s", arg("+"+p), arg("+"+p+":"))
	}
	order := "ASC"
	cmp := ">"
	if q.Desc {
		order, cmp = "DESC", "<"
	}
	sortCol := q.sortColumn()
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
	if byValue {
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
	return b.String(), args, nil
}

// Plan is how a store reads the results that a Query's conditions on
// the Fields select, when it has the choice (PostgreSQL: SQLite's index
// per field gives them in time order).
type Plan int

const (
	// PlanAuto leaves the choice to the database.
	PlanAuto Plan = iota
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
func ChoosePlan(total, least int64, limit int) Plan {
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

// NextCursor returns the cursor of the page after the one that ends with
// the row last (its sort value, completion time and id).
func NextCursor(q *Query, value string, ms int64, id string) string {
	c := cursor{Sort: q.Sort, MS: ms, ID: id}
	if q.Sort != SortTime {
		c.Value = value
	}
	return c.encode()
}

// SortValueColumn is the column whose value NextCursor needs besides the
// time and id: the sort column, or an empty text in time order.
func (q *Query) SortValueColumn() string {
	if c := q.sortColumn(); c != "" {
		return c
	}
	return "''"
}

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

// DayField is the field name under which the stores keep a report's
// counts per day, beside the Fields.
const DayField = "day"

// Add counts the row of a store's summary table for one value of field
// (a Field or DayField) into s: the stores build a Summary with it, then
// call Finish. Rows of unknown fields are skipped (a newer version's).
func (s *Summary) Add(field, value, label string, count int64, cost engine.Money) {
	t := Tally{Value: value, Label: label, Count: count, Cost: cost}
	if field == DayField {
		s.Days = append(s.Days, t)
		return
	}
	f, err := ParseField(field)
	if err != nil {
		return
	}
	if s.Values == nil {
		s.Values = map[Field][]Tally{}
	}
	s.Values[f] = append(s.Values[f], t)
	if f == FieldProduct {
		s.Count += count
		s.Cost += cost
	}
}

// SummaryRows are the rows of a store's summary table (field, value,
// label, count, cost), as database/sql and pgx both return them.
type SummaryRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ReadSummary builds the Summary of a report from the rows of its summary
// table (SELECT field, value, label, count, cost). A report without rows
// is ErrUnknownReport.
func ReadSummary(rows SummaryRows) (Summary, error) {
	var sum Summary
	n := 0
	for rows.Next() {
		var (
			field, value, label string
			count, cost         int64
		)
		if err := rows.Scan(&field, &value, &label, &count, &cost); err != nil {
			return Summary{}, err
		}
		sum.Add(field, value, label, count, engine.Money(cost))
		n++
	}
	if err := rows.Err(); err != nil {
		return Summary{}, err
	}
	if n == 0 {
		return Summary{}, ErrUnknownReport
	}
	sum.Finish()
	return sum, nil
}

// Finish orders what Add gathered: each field's values most frequent first
// (then by value), the days in order.
func (s *Summary) Finish() {
	for _, ts := range s.Values {
		slices.SortFunc(ts, func(a, b Tally) int {
			if a.Count != b.Count {
				return cmp.Compare(b.Count, a.Count)
			}
			return strings.Compare(a.Value, b.Value)
		})
	}
	slices.SortFunc(s.Days, func(a, b Tally) int { return strings.Compare(a.Value, b.Value) })
}

// ExportProducts returns the products of a download of a report that
// holds products, under q: the product q's condition names, if it names
// one the report holds, else all of them.
func ExportProducts(products []engine.Product, q *Query) []engine.Product {
	for _, c := range q.Where {
		if c.Field == FieldProduct && slices.Contains(products, engine.Product(c.Value)) {
			return []engine.Product{engine.Product(c.Value)}
		}
	}
	return products
}
