package core

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/facts"
)

// Store is the logic of a store.Database over a driver: its reads and its
// queue. A driver embeds it (with a Writer for Record), fills in its
// fields, and adds what is its own.
type Store[T any] struct {
	// Name names the driver ("pgstore") and Where its database (a path,
	// a URL without its password), in errors.
	Name, Where string
	SQL         *SQL
	// Version is the schema version of this build (Ping).
	Version int
	// Results is where results and reports are read; Jobs where the
	// queue's tables are (the same database, possibly other
	// connections).
	Results, Jobs DB[T]

	// Open returns store.ErrClosed once the store is closed; every method
	// calls it first.
	Open func() error
	// CaughtUp, when not nil, runs before every read of results: it
	// returns once the results acknowledged before are readable.
	CaughtUp func(ctx context.Context) error
	// ReadFailed, when not nil, sees every failed read (SQLite notes a
	// damaged file).
	ReadFailed func(error) error
	// Writable, when not nil, is checked before a job is queued.
	Writable func() error

	inserts *river.Client[T]
	sw      Switch
}

// InitQueue makes the client that inserts jobs, and the switch that runs
// a working client (on driver, polling only when pollOnly) only while the
// queue has work (Switch).
func (s *Store[T]) InitQueue(driver riverdriver.Driver[T], pollOnly bool, idleCheck time.Duration) error {
	s.sw = Switch{
		Name: s.Name + ": " + s.Where, IdleCheck: idleCheck,
		NewRunner: func(cfg store.QueueConfig) (Runner, error) {
			return river.NewClient(driver, riverConfig(cfg, pollOnly))
		},
		Unfinished: func(ctx context.Context) (bool, error) {
			var work int
			err := s.Jobs.QueryRow(ctx, s.SQL.Unfinished).Scan(&work)
			return work == 1, err
		},
	}
	var err error
	s.inserts, err = river.NewClient(driver, &river.Config{})
	return err
}

// riverConfig is the working client's configuration.
func riverConfig(cfg store.QueueConfig, pollOnly bool) *river.Config {
	return &river.Config{
		Logger:                      cfg.Logger,
		FetchPollInterval:           cfg.PollInterval,
		FetchCooldown:               min(cfg.PollInterval, 100*time.Millisecond),
		PollOnly:                    pollOnly,
		RescueStuckJobsAfter:        cfg.RescueAfter,
		JobTimeout:                  -1, // per worker
		Queues:                      cfg.Queues,
		Workers:                     cfg.Workers,
		CompletedJobRetentionPeriod: cfg.CompletedRetention,
		DiscardedJobRetentionPeriod: cfg.DiscardedRetention,
	}
}

// Ping checks that the database answers and has this build's schema.
func (s *Store[T]) Ping(ctx context.Context) error {
	if err := s.Open(); err != nil {
		return err
	}
	var version int
	if err := s.Results.QueryRow(ctx, s.SQL.Version).Scan(&version); err != nil {
		return fmt.Errorf("%s: ping %s: %w", s.Name, s.Where, err)
	}
	if version != s.Version {
		return fmt.Errorf("%s: ping %s: schema version %d, want %d", s.Name, s.Where, version, s.Version)
	}
	return nil
}

// Switch returns the queue's switch (for the driver's notifications and
// tests).
func (s *Store[T]) Switch() *Switch { return &s.sw }

// failf wraps a failed read.
func (s *Store[T]) failf(err error, format string, args ...any) error {
	err = fmt.Errorf("%s: %s in %s: %w", s.Name, fmt.Sprintf(format, args...), s.Where, err)
	if s.ReadFailed != nil {
		return s.ReadFailed(err)
	}
	return err
}

// ready checks that the store is open and, for a read, waits for the
// results acknowledged before.
func (s *Store[T]) ready(ctx context.Context, read bool) error {
	if err := s.Open(); err != nil {
		return err
	}
	if read && s.CaughtUp != nil {
		return s.CaughtUp(ctx)
	}
	return nil
}

// each calls f for every row of a query.
func each(ctx context.Context, ex Executor, f func(Rows) error, sql string, args ...any) error {
	rows, err := ex.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Reports implements store.Reader. The driver's rows may come in any
// order, and a report's product more than once (counted in parts, such as
// indexed and pending): they are added up.
func (s *Store[T]) Reports(ctx context.Context, account string) ([]store.Report, error) {
	if err := s.ready(ctx, true); err != nil {
		return nil, s.failf(err, "reports of %q", account)
	}
	var reports []store.Report
	at := map[string]int{} // report name -> index in reports
	err := each(ctx, s.Results, func(rows Rows) error {
		var (
			name, product   string
			count, cost     int64
			firstMS, lastMS int64
		)
		if err := rows.Scan(&name, &product, &count, &cost, &firstMS, &lastMS); err != nil {
			return err
		}
		first, last := time.UnixMilli(firstMS).UTC(), time.UnixMilli(lastMS).UTC()
		i, ok := at[name]
		if !ok {
			i, at[name] = len(reports), len(reports)
			reports = append(reports, store.Report{Name: name, First: first, Last: last})
		}
		r := &reports[i]
		if !slices.Contains(r.Products, engine.Product(product)) {
			r.Products = append(r.Products, engine.Product(product))
		}
		r.Count += count
		r.Cost += engine.Money(cost)
		r.First, r.Last = minTime(r.First, first), maxTime(r.Last, last)
		return nil
	}, s.SQL.Reports, account)
	if err != nil {
		return nil, s.failf(err, "reports of %q", account)
	}
	SortReports(reports)
	return reports, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// SortReports puts reports in the order Reports returns them: most
// recently written first, then by name; and the products of each in the
// order of store.Products.
func SortReports(reports []store.Report) {
	rank := func(p engine.Product) int { return slices.Index(store.Products(), p) }
	for _, r := range reports {
		slices.SortFunc(r.Products, func(a, b engine.Product) int { return rank(a) - rank(b) })
	}
	slices.SortFunc(reports, func(a, b store.Report) int {
		return cmp.Or(b.Last.Compare(a.Last), strings.Compare(a.Name, b.Name))
	})
}

// products returns the products of a report, or store.ErrUnknownReport.
func (s *Store[T]) products(ctx context.Context, ex Executor, account, storage string) ([]engine.Product, error) {
	var ps []engine.Product
	err := each(ctx, ex, func(rows Rows) error {
		var p string
		err := rows.Scan(&p)
		ps = append(ps, engine.Product(p))
		return err
	}, s.SQL.Products, account, storage)
	if err == nil && len(ps) == 0 {
		err = store.ErrUnknownReport
	}
	return ps, err
}

// plan reads how many results of the report have each value q's
// conditions name, and its total, and chooses how to read them
// (ChoosePlan); PlanAuto for a driver without the choice.
func (s *Store[T]) plan(ctx context.Context, ex Executor, account, storage string, q *store.Query, limit int) (QueryPlan, error) {
	if len(q.Where) == 0 || s.SQL.Facets == "" {
		return PlanAuto, nil
	}
	fields, values := make([]string, len(q.Where)), make([]string, len(q.Where))
	for i, c := range q.Where {
		fields[i], values[i] = string(c.Field), c.Value
	}
	var total int64
	counts := map[Cond]int64{}
	err := each(ctx, ex, func(rows Rows) error {
		var field, value string
		var count int64
		if err := rows.Scan(&field, &value, &count); err != nil {
			return err
		}
		if field == string(store.FieldProduct) {
			total += count
		}
		counts[Cond{Field: store.Field(field), Value: value}] = count
		return nil
	}, s.SQL.Facets, account, storage, fields, values)
	if err != nil {
		return 0, err
	}
	least := total
	for _, c := range q.Where {
		least = min(least, counts[c]) // a value the report lacks: 0
	}
	return ChoosePlan(total, least, limit), nil
}

// Export implements store.Reader, in one read-only transaction.
func (s *Store[T]) Export(ctx context.Context, account, storage string, q *store.Query, format store.Format, w io.Writer) error {
	fail := func(err error) error { return s.failf(err, "export report %q of %q", storage, account) }
	if err := s.Open(); err != nil {
		return err
	}
	if _, err := store.ParseFormat(string(format)); err != nil {
		return fail(err)
	}
	r, err := s.read(ctx, account, storage, q, "product, body", "", 0)
	if err != nil {
		return fail(err)
	}
	defer r.tx.Rollback(context.WithoutCancel(ctx))
	ex, err := NewExporter(w, format, exportProducts(r.products, q))
	if err != nil {
		return fail(err)
	}
	var product string
	var body RawBytes
	err = each(ctx, r.tx, func(rows Rows) error {
		if err := rows.Scan(&product, &body); err != nil {
			return err
		}
		return ex.Write(engine.Product(product), body)
	}, r.query, r.args...)
	if err == nil {
		err = ex.Close()
	}
	if err != nil {
		return fail(err)
	}
	return nil
}

// reading is a read of a report's results under way: its transaction,
// the report's products, and the statement.
type reading[T any] struct {
	tx       Tx[T]
	products []engine.Product
	query    string
	args     []any
}

// read begins a read of the results of a report that q selects (cols,
// after the cursor after, limit+1 rows; 0: all): it checks q, waits for
// the results acknowledged before, begins a read-only transaction (the
// caller rolls it back), reads the report's products and chooses the
// plan. A report the account does not have is store.ErrUnknownReport.
func (s *Store[T]) read(ctx context.Context, account, storage string, q *store.Query, cols, after string, limit int) (*reading[T], error) {
	if err := q.Check(); err != nil {
		return nil, err
	}
	if err := s.ready(ctx, true); err != nil {
		return nil, err
	}
	tx, err := s.Results.Begin(ctx, true)
	if err != nil {
		return nil, err
	}
	r := &reading[T]{tx: tx}
	r.products, err = s.products(ctx, tx, account, storage)
	var plan QueryPlan
	if err == nil {
		plan, err = s.plan(ctx, tx, account, storage, q, limit)
	}
	if err == nil {
		r.query, r.args, err = SelectSQL(s.SQL, cols, account, storage, q, after, limit, plan)
	}
	if err != nil {
		tx.Rollback(context.WithoutCancel(ctx))
		return nil, err
	}
	return r, nil
}

// exportProducts returns the products of a download of a report that
// holds products, under q: the product q's condition names, if it names
// one the report holds, else all of them.
func exportProducts(products []engine.Product, q *store.Query) []engine.Product {
	for _, c := range q.Where {
		if c.Field == store.FieldProduct && slices.Contains(products, engine.Product(c.Value)) {
			return []engine.Product{engine.Product(c.Value)}
		}
	}
	return products
}

// Query implements store.Reader, in one read-only transaction.
func (s *Store[T]) Query(ctx context.Context, account, storage string, q *store.Query, after string, limit int) (store.Page, error) {
	fail := func(err error) (store.Page, error) {
		return store.Page{}, s.failf(err, "results of report %q of %q", storage, account)
	}
	if err := s.Open(); err != nil {
		return store.Page{}, err
	}
	limit = PageSize(limit)
	r, err := s.read(ctx, account, storage, q, "id, product, created_ms, cost, body, "+sortValueColumn(q), after, limit)
	if err != nil {
		return fail(err)
	}
	defer r.tx.Rollback(context.WithoutCancel(ctx))
	page := store.Page{Rows: make([]store.Row, 0, min(limit, 64))}
	var value, lastValue string
	err = each(ctx, r.tx, func(rows Rows) error {
		var (
			row           store.Row
			product       string
			createdMS, ct int64
			body          []byte
		)
		if err := rows.Scan(&row.ID, &product, &createdMS, &ct, &body, &value); err != nil {
			return err
		}
		if len(page.Rows) == limit {
			last := page.Rows[limit-1]
			page.Next = NextCursor(q, lastValue, last.Time.UnixMilli(), last.ID)
			return errStop
		}
		row.Product, row.Time, row.Cost, row.Result = engine.Product(product), time.UnixMilli(createdMS).UTC(), engine.Money(ct), body
		page.Rows = append(page.Rows, row)
		lastValue = value
		return nil
	}, r.query, r.args...)
	if err != nil && !errors.Is(err, errStop) {
		return fail(err)
	}
	return page, nil
}

// Result implements store.Reader, in one read-only transaction.
func (s *Store[T]) Result(ctx context.Context, account, storage, id string) (store.Row, error) {
	fail := func(err error) (store.Row, error) {
		return store.Row{}, s.failf(err, "result %q of report %q of %q", id, storage, account)
	}
	if err := s.ready(ctx, true); err != nil {
		return fail(err)
	}
	tx, err := s.Results.Begin(ctx, true)
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := s.products(ctx, tx, account, storage); err != nil {
		return fail(err)
	}
	var (
		row           store.Row
		product       string
		createdMS, ct int64
		body          []byte
	)
	p := s.SQL.Param
	err = tx.QueryRow(ctx, fmt.Sprintf("SELECT id, product, created_ms, cost, body FROM results WHERE account = %s AND storage = %s AND id = %s", p(1), p(2), p(3)),
		account, storage, id).Scan(&row.ID, &product, &createdMS, &ct, &body)
	if errors.Is(err, ErrNoRows) {
		err = store.ErrUnknownResult
	}
	if err != nil {
		return fail(err)
	}
	row.Product, row.Time, row.Cost, row.Result = engine.Product(product), time.UnixMilli(createdMS).UTC(), engine.Money(ct), body
	return row, nil
}

// dayMillis is a day in milliseconds: created_ms / dayMillis is the day
// of a result (UTC, as facts.Day has it).
const dayMillis = 24 * 60 * 60 * 1000

// Totals implements store.Reader, in one read-only transaction: the
// results q selects, read as a download reads them (the same plan),
// counted per day by the database.
func (s *Store[T]) Totals(ctx context.Context, account, storage string, q *store.Query, limit int) (store.Totals, error) {
	fail := func(err error) (store.Totals, error) {
		return store.Totals{}, s.failf(err, "totals of report %q of %q", storage, account)
	}
	if err := s.Open(); err != nil {
		return store.Totals{}, err
	}
	if daysOnly(q) {
		if err := q.Check(); err != nil {
			return fail(err)
		}
		sum, err := s.Summary(ctx, account, storage)
		if err != nil {
			return store.Totals{}, err
		}
		return totalsOfDays(sum.Days, q), nil
	}
	// The order does not matter to a count: a number search reads the
	// numbers' index in its order rather than sort what it selects by
	// time (288 ms for the first 10,001 of 350,000, 38 ms in number order).
	counted := *q
	if counted.NumberPrefix != "" && len(counted.Where) == 0 {
		counted.Sort, counted.Desc = store.SortNumber, false
	}
	r, err := s.read(ctx, account, storage, &counted, "created_ms, cost", "", max(limit, 0))
	if err != nil {
		return fail(err)
	}
	defer r.tx.Rollback(context.WithoutCancel(ctx))
	var t store.Totals
	err = each(ctx, r.tx, func(rows Rows) error {
		var day, count, cost int64
		if err := rows.Scan(&day, &count, &cost); err != nil {
			return err
		}
		t.Count += count
		t.Cost += engine.Money(cost)
		t.Days = append(t.Days, store.Tally{Value: facts.Day(day * dayMillis), Count: count, Cost: engine.Money(cost)})
		return nil
	}, fmt.Sprintf("SELECT created_ms / %d, count(*), CAST(sum(cost) AS bigint) FROM (%s) selected GROUP BY 1 ORDER BY 1", dayMillis, r.query), r.args...)
	if err != nil {
		return fail(err)
	}
	if limit > 0 && t.Count > int64(limit) {
		return store.Totals{More: true}, nil // read limit+1
	}
	return t, nil
}

// daysOnly reports whether q selects whole days of a report and nothing
// else: its totals are the summary's days, which Totals reads rather than
// count the results (a range of a report of a million results would read
// them all).
func daysOnly(q *store.Query) bool {
	whole := func(t time.Time) bool { return t.IsZero() || t.UnixMilli()%dayMillis == 0 }
	return len(q.Where) == 0 && q.NumberPrefix == "" && whole(q.From) && whole(q.To)
}

// totalsOfDays adds up the days (of a summary) that q's range holds.
func totalsOfDays(days []store.Tally, q *store.Query) store.Totals {
	var t store.Totals
	from, to := "", "~" // "~" sorts after every day
	if !q.From.IsZero() {
		from = facts.Day(q.From.UnixMilli())
	}
	if !q.To.IsZero() {
		to = facts.Day(q.To.UnixMilli())
	}
	for _, d := range days {
		if d.Value >= from && d.Value < to {
			t.Count += d.Count
			t.Cost += d.Cost
			t.Days = append(t.Days, d)
		}
	}
	return t
}

// errStop ends a walk over rows early, without an error.
var errStop = errors.New("stop")

// Summary implements store.Reader. The driver's rows may hold a value
// more than once (counted in parts, such as indexed and pending): they
// are added up, the label of a row marked newer taking precedence.
func (s *Store[T]) Summary(ctx context.Context, account, storage string) (store.Summary, error) {
	if err := s.Open(); err != nil {
		return store.Summary{}, err
	}
	type key struct{ field, value string }
	var keys []key // in the order read
	tallies := map[key]*store.Tally{}
	err := s.ready(ctx, true)
	if err == nil {
		err = each(ctx, s.Results, func(rows Rows) error {
			var (
				k           key
				label       string
				count, cost int64
				newer       bool
			)
			if err := rows.Scan(&k.field, &k.value, &label, &count, &cost, &newer); err != nil {
				return err
			}
			t := tallies[k]
			if t == nil {
				t = &store.Tally{Value: k.value}
				tallies[k] = t
				keys = append(keys, k)
			}
			t.Count += count
			t.Cost += engine.Money(cost)
			if label != "" && (newer || t.Label == "") {
				t.Label = label
			}
			return nil
		}, s.SQL.Summary, account, storage)
	}
	if err == nil && len(keys) == 0 {
		err = store.ErrUnknownReport
	}
	if err != nil {
		return store.Summary{}, s.failf(err, "summary of report %q of %q", storage, account)
	}
	var sum store.Summary
	for _, k := range keys {
		addTally(&sum, k.field, *tallies[k])
	}
	FinishSummary(&sum)
	return sum, nil
}

// addTally counts the tally of one value of field (a Field or
// facts.DayField) into s. Rows of unknown fields are skipped (a newer
// version's).
func addTally(s *store.Summary, field string, t store.Tally) {
	if field == facts.DayField {
		s.Days = append(s.Days, t)
		return
	}
	f, err := store.ParseField(field)
	if err != nil {
		return
	}
	if s.Values == nil {
		s.Values = map[store.Field][]store.Tally{}
	}
	s.Values[f] = append(s.Values[f], t)
	if f == store.FieldProduct {
		s.Count += t.Count
		s.Cost += t.Cost
	}
}

// FinishSummary orders each field's values most frequent first (then by
// value), the days in order.
func FinishSummary(s *store.Summary) {
	for _, ts := range s.Values {
		slices.SortFunc(ts, func(a, b store.Tally) int {
			return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Value, b.Value))
		})
	}
	slices.SortFunc(s.Days, func(a, b store.Tally) int { return strings.Compare(a.Value, b.Value) })
}

// Bodies implements store.Recorder.
func (s *Store[T]) Bodies(ctx context.Context, ids []string) (map[string]json.RawMessage, error) {
	if err := s.Open(); err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(ids))
	err := s.ready(ctx, true)
	if err == nil {
		err = s.ByID(ctx, ids, func(id string, body []byte) { out[id] = body })
	}
	if err != nil {
		return nil, s.failf(err, "read results")
	}
	return out, nil
}

// ByID calls f with the id and body of every result of ids that the
// database has, reading them in the driver's chunks.
func (s *Store[T]) ByID(ctx context.Context, ids []string, f func(id string, body []byte)) error {
	chunk := s.SQL.BodiesChunk
	if chunk <= 0 {
		chunk = max(len(ids), 1)
	}
	for start := 0; start < len(ids); start += chunk {
		query, args := s.SQL.Bodies(ids[start:min(start+chunk, len(ids))])
		err := each(ctx, s.Results, func(rows Rows) error {
			var id string
			var body []byte
			err := rows.Scan(&id, &body)
			f(id, body)
			return err
		}, query, args...)
		if err != nil {
			return err
		}
	}
	return nil
}
