package httpapi

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/numbering"
)

// pageSize is the number of results on a page of a report.
const pageSize = 50

// pageData is what every page template gets.
type pageData struct {
	Title    string
	Viewer   viewer
	Key      string // the signed-in API key
	CSRF     string // the session's form token ("" for a script)
	SignedIn bool
	// User is the signed-in report user; Accounts the keys they may see,
	// offered in the header when more than one.
	User     string
	Accounts []string
	Body     any
}

// renderPage writes a page with the headers every page has: no caching
// (an account's data), no framing, no script at all.
func renderPage(w http.ResponseWriter, status int, name string, d pageData) {
	if d.Viewer.a != nil {
		d.Key = d.Viewer.a.Key
	}
	if d.Viewer.sess != nil {
		d.SignedIn, d.CSRF = true, d.Viewer.sess.csrf()
	}
	if d.Viewer.user != nil {
		d.User, d.Accounts = d.Viewer.user.Name, d.Viewer.visible
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin")
	w.WriteHeader(status)
	_ = writePage(w, name, &d)
}

// pageError answers a page's error: a page for a browser, the API's
// {"errors": [...]} for a script.
func pageError(w http.ResponseWriter, r *http.Request, v viewer, status int, msg string) {
	if wantsHTML(r) {
		renderPage(w, status, "error", pageData{Title: http.StatusText(status), Viewer: v, Body: msg})
		return
	}
	writeErrors(w, status, msg)
}

// filterView is one filter of a report page: a select of the field's
// values.
type filterView struct {
	Name, Label string
	Options     []optionView
}

type optionView struct {
	Value, Text string
	Selected    bool
}

// reportView is what the report page shows.
type reportView struct {
	Name, URL, Month, Products, Cost, First, Last string
	Count                                         int64
	Charts                                        []string // HTML
	Filters                                       []filterView
	Number, From, To                              string
	SortNumber, Desc, Filtered, NumberSortable    bool
	Notice, Problem                               string
	Columns                                       []columnView
	Rows                                          []rowView
	Matching                                      string
	PrevURL, NextURL, CSV, JSON, ClearURL         string
	Pages                                         []pageLink
}

// rowView is a row of the results table: its cells, the first (the time)
// a link to the row's own page (URL).
type rowView struct {
	URL   string
	Cells []string
}

// resultView is a row's own page: a result's attributes, one a line, in
// full.
type resultView struct {
	Report, ReportURL, ID, Product, Time, Cost string
	Fields                                     []fieldView
}

type fieldView struct{ Name, Value string }

// pageLink is a link of the pager: a page's number, the page shown
// (Current), or a gap ("…", no URL).
type pageLink struct {
	Text, URL string
	Current   bool
}

// columnView is a column of the results table; URL sorts by it.
type columnView struct {
	Name, URL, Arrow string
}

// fieldLabel returns the label of a field in the report page's form.
func fieldLabel(f store.Field) string {
	switch f {
	case store.FieldProduct:
		return "Product"
	case store.FieldStatus:
		return "Status"
	case store.FieldConnectivity:
		return "Connectivity"
	case store.FieldNumberType:
		return "Number type"
	case store.FieldCountry:
		return "Country"
	case store.FieldNetwork:
		return "Network"
	case store.FieldValid:
		return "Valid"
	case store.FieldInvalidReason:
		return "Invalid reason"
	case store.FieldRoute:
		return "Route"
	}
	return ""
}

func (h *Handler) reportPage(w http.ResponseWriter, r *http.Request, st store.Reader, v viewer, name string) {
	vals := r.URL.Query()
	if vals.Has("id") {
		h.resultPage(w, r, st, v, name, vals.Get("id"))
		return
	}
	notice := ""
	if vals.Get("sort") == "number" {
		for _, f := range store.Fields() {
			if vals.Get(string(f)) != "" {
				// The form may send both: the filter wins.
				vals.Del("sort")
				vals.Del("order")
				notice = "Sorted by time: number order is offered without a filter by field (a number search sorts by number)."
				break
			}
		}
	}
	ctx := r.Context()
	sum, err := st.Summary(ctx, v.a.Key, name)
	if err == nil {
		d := &reportData{name: name, sum: &sum, notice: notice, form: formValues(vals)}
		var q store.Query
		q, err = h.pageQuery(vals, &sum)
		if err != nil {
			// The report, whole, with the problem above the form that
			// still shows what was typed: no dead end.
			d.problem = err.Error()
			q, vals, err = store.Query{Desc: true}, url.Values{}, nil
		}
		d.q = &q
		if t, ok := valueTotals(&q, &sum); ok {
			d.totals = &t
		} else if q.Filtered() {
			if t, err = st.Totals(ctx, v.a.Key, name, &q, maxCounted); err == nil {
				d.totals = &t
			}
		}
		after := vals.Get("after")
		if p := vals.Get("page"); p != "" && err == nil {
			n, perr := strconv.Atoi(p)
			if perr != nil || n < 1 {
				d.problem = fmt.Sprintf("page: %q: want a page number from 1", shorten(p, 20))
				d.pageNo, after = 1, ""
			} else {
				d.pageNo, after = n, store.PageCursor(n)
			}
		} else if after == "" {
			d.pageNo = 1
		}
		if err == nil {
			var page store.Page
			page, err = st.Query(ctx, v.a.Key, name, &q, after, pageSize)
			d.page = &page
		}
		if err == nil {
			status := http.StatusOK
			if d.problem != "" {
				status = http.StatusBadRequest
			}
			h.renderReport(w, r, v, d, status)
			return
		}
	}
	switch {
	case errors.Is(err, store.ErrUnknownReport):
		pageError(w, r, v, http.StatusNotFound, fmt.Sprintf("no report %q for this API key", name))
	case errors.Is(err, store.ErrBadCursor) && vals.Get("page") != "":
		pageError(w, r, v, http.StatusBadRequest, fmt.Sprintf("page: %q: too far, past the results a page may skip", vals.Get("page")))
	case errors.Is(err, store.ErrBadCursor):
		pageError(w, r, v, http.StatusBadRequest, "after: not a page cursor of this report and order")
	default:
		h.log.Error("reading a report", "report", name, "error", err)
		pageError(w, r, v, http.StatusServiceUnavailable, "service unavailable: the report cannot be read")
	}
}

// resultPage writes a row's own page: the result id of report name, its
// attributes one a line, in full.
func (h *Handler) resultPage(w http.ResponseWriter, r *http.Request, st store.Reader, v viewer, name, id string) {
	row, err := st.Result(r.Context(), v.a.Key, name, id)
	var cells, header []string
	if err == nil {
		var t *store.Table
		if t, err = store.NewTable([]engine.Product{row.Product}); err == nil {
			header = t.Header()
			cells, err = t.Row(row.Product, row.Result)
		}
	}
	switch {
	case errors.Is(err, store.ErrUnknownReport):
		pageError(w, r, v, http.StatusNotFound, fmt.Sprintf("no report %q for this API key", name))
		return
	case errors.Is(err, store.ErrUnknownResult):
		pageError(w, r, v, http.StatusNotFound, fmt.Sprintf("no result %q in report %q", shorten(id, 40), name))
		return
	case err != nil:
		h.log.Error("reading a result", "report", name, "id", id, "error", err)
		pageError(w, r, v, http.StatusServiceUnavailable, "service unavailable: the report cannot be read")
		return
	}
	rv := resultView{Report: name, ReportURL: "/reports/" + url.PathEscape(name), ID: row.ID, Product: string(row.Product),
		Time: row.Time.Format("2006-01-02 15:04:05.000"), Cost: row.Cost.String()}
	for i, c := range header {
		rv.Fields = append(rv.Fields, fieldView{Name: c, Value: cells[i]})
	}
	renderPage(w, http.StatusOK, "result", pageData{Title: row.ID + " · " + name, Viewer: v, Body: rv})
}

// maxCounted bounds the results a page counts for a filtered view's
// count and cost (store.Totals): finding 2,000 took 83 ms at most on a
// report of a million results on SQLite (GB landlines: 2% of the report,
// read through the country's 20%; benchmarks/README.md, "Counting a
// report's views"); a view of more says "more than 2000" (its download
// has them all).
const maxCounted = 2_000

// valueTotals returns the count and cost of a view of one field's value,
// and nothing else, from the report's summary, which has them: counting
// the results would read them all (a third of a report of a million
// results took 0.6 s on SQLite; store.Totals in benchmarks/README.md).
// Such a view has no cost per day of its own (Days is empty).
func valueTotals(q *store.Query, sum *store.Summary) (store.Totals, bool) {
	if len(q.Where) != 1 || q.NumberPrefix != "" || !q.From.IsZero() || !q.To.IsZero() {
		return store.Totals{}, false
	}
	var t store.Totals
	for _, v := range sum.Values[q.Where[0].Field] {
		if v.Value == q.Where[0].Value {
			t.Count, t.Cost = v.Count, v.Cost
		}
	}
	return t, true
}

// pageQuery reads a report page's query: reportQuery, after reading a
// national number search ("0151") with the country the page filters by,
// or else the report's most frequent country. Without a summary (sum nil:
// a download, the API) a national number needs the country filter: no
// E.164 number starts with 0, so read as one it would select nothing.
func (h *Handler) pageQuery(vals url.Values, sum *store.Summary) (store.Query, error) {
	number, err := searchNumber(vals.Get("number"))
	if err != nil {
		return store.Query{}, err
	}
	if len(number) > 1 && number[0] == '0' {
		region := vals.Get("country")
		if region == "" || region == noValue {
			region = ""
			if sum == nil {
				return store.Query{}, fmt.Errorf("number: %q is a national number: add the country it is dialled in (country=DE), or start it with + and the country code", vals.Get("number"))
			}
			for _, t := range sum.Values[store.FieldCountry] {
				if t.Value != "" {
					region = t.Value // the most frequent first
					break
				}
			}
		}
		intl, ok := nationalSearch(h.cfg.Engine.Plan(), number, region)
		if !ok {
			return store.Query{}, fmt.Errorf("number: %q is a national number: choose a country filter, or start it with + and the country code", vals.Get("number"))
		}
		vals = maps.Clone(vals)
		vals.Set("number", intl)
	}
	return reportQuery(vals)
}

// nationalSearch reads the start of a national number (digits, "0151")
// as the start of a number of region in E.164 ("+49151"): as
// numbering's ParseIn reads the whole numbers it starts, their trunk
// prefix dropped where the region has one. Whether a trunk prefix is
// dropped can depend on the number's length, so the start is read
// completed to the lengths of numbers (8 to 13 digits), and the shortest
// reading wins (the one that drops a trunk prefix).
func nationalSearch(p *numbering.Plan, digits, region string) (string, bool) {
	if region == "" {
		return "", false
	}
	best := ""
	for total := 8; total <= 13; total++ {
		pad := max(1, total-len(digits))
		zeros := strings.Repeat("0", pad)
		n, err := p.ParseIn(digits+zeros, region)
		if err != nil {
			continue
		}
		e := n.String()
		if !strings.HasSuffix(e, zeros) || len(e)-pad < 2 {
			continue
		}
		if c := e[:len(e)-pad]; best == "" || len(c) < len(best) {
			best = c
		}
	}
	return best, best != ""
}

// formValues are the values the filter form shows as typed (the number
// and the dates), even when they were wrong.
type formValues url.Values

func (f formValues) get(name string) string { return url.Values(f).Get(name) }

// reportData is what a report page shows: the report's name, the page's
// query, the report's summary, the totals of a filtered view, the page of
// results, a notice and a problem with the query.
type reportData struct {
	name            string
	q               *store.Query
	sum             *store.Summary
	totals          *store.Totals // nil for the whole report
	page            *store.Page
	notice, problem string
	form            formValues
	pageNo          int // the page's number; 0 for a page after a cursor
}

// renderReport writes the report page: the summary's figures, charts and
// filters, and the page of results as a table.
func (h *Handler) renderReport(w http.ResponseWriter, r *http.Request, v viewer, d *reportData, status int) {
	name, q, sum, page := d.name, d.q, d.sum, d.page
	l := reportLinks{base: "/reports/" + url.PathEscape(name), q: q, plan: h.cfg.Engine.Plan()}
	products := summaryProducts(sum)
	rv := reportView{
		Name: name, URL: l.base, Month: reportMonth(name), Count: sum.Count, Cost: sum.Cost.String(),
		Products: productList(products),
		Number:   d.form.get("number"), From: d.form.get("from"), To: d.form.get("to"),
		SortNumber: q.Sort == store.SortNumber, Desc: q.Desc,
		Filtered: q.Filtered(), ClearURL: l.base,
		NumberSortable: len(q.Where) == 0, Notice: d.notice, Problem: d.problem,
	}
	if len(sum.Days) > 0 {
		rv.First, rv.Last = sum.Days[0].Value, sum.Days[len(sum.Days)-1].Value
	}
	rv.Charts = l.charts(sum, products, d.totals)
	rv.Filters = l.filters(sum, products)
	rv.Matching = matching(sum, d.totals)
	if len(products) > 0 {
		var err error
		if rv.Columns, rv.Rows, err = l.table(products, page, rv.NumberSortable); err != nil {
			h.log.Error("reading a report", "report", name, "error", err)
			pageError(w, r, v, http.StatusServiceUnavailable, "service unavailable: the report cannot be read")
			return
		}
	}
	total := sum.Count
	if d.totals != nil {
		total = d.totals.Count
	}
	rv.PrevURL, rv.NextURL, rv.Pages = l.pager(d.pageNo, int((total+pageSize-1)/pageSize), page.Next)
	rv.CSV, rv.JSON = l.download("csv"), l.download("json")
	renderPage(w, status, "report", pageData{Title: name, Viewer: v, Body: rv})
}

// reportLinks makes the links of a report page: to the report under base,
// with the page's query q changed.
type reportLinks struct {
	base string
	q    *store.Query
	plan *numbering.Plan // names the networks
}

// pager returns the links to the pages of a view of last pages (the
// first, the last and two either side of the page shown, cur; 0 when the
// page came after a cursor), to the page before and to the page after
// (by number, or after next when cur is not known).
func (l reportLinks) pager(cur, last int, next string) (prev, nextURL string, pages []pageLink) {
	at := func(n int) string {
		vals := queryValues(l.q)
		if n > 1 {
			vals.Set("page", strconv.Itoa(n))
		}
		return l.link(vals)
	}
	switch {
	case next != "" && cur > 0:
		nextURL = at(cur + 1)
	case next != "":
		vals := queryValues(l.q)
		vals.Set("after", next)
		nextURL = l.link(vals)
	}
	if cur > 1 {
		prev = at(cur - 1)
	}
	if last <= 1 && cur <= 1 {
		return prev, nextURL, nil
	}
	gap := false
	for n := 1; n <= max(last, cur); n++ {
		if n != 1 && n != last && (n < cur-2 || n > cur+2) && !(cur == 0 && n <= 3) {
			if !gap {
				pages = append(pages, pageLink{Text: "…"})
			}
			gap = true
			continue
		}
		gap = false
		pages = append(pages, pageLink{Text: strconv.Itoa(n), URL: at(n), Current: n == cur})
	}
	return prev, nextURL, pages
}

// link is the report's URL with vals.
func (l reportLinks) link(vals url.Values) string {
	if e := vals.Encode(); e != "" {
		return l.base + "?" + e
	}
	return l.base
}

// with is the page's query with field set to value (a filter).
func (l reportLinks) with(field store.Field, value string) string {
	vals := queryValues(l.q)
	if value == "" {
		value = noValue
	}
	vals.Set(string(field), value)
	return l.link(vals)
}

// download is the page's query in format (csv, json).
func (l reportLinks) download(format string) string {
	vals := queryValues(l.q)
	vals.Set("format", format)
	return l.link(vals)
}

// sortBy is the header of the time column, or with number of the number
// column: the link that sorts by it (the other way when it sorts the page
// already) and the arrow that shows how the page is sorted.
func (l reportLinks) sortBy(number bool) columnView {
	q := l.q
	vals := queryValues(q)
	vals.Del("after")
	vals.Del("sort")
	vals.Del("order")
	arrow := ""
	switch {
	case number:
		vals.Set("sort", "number")
		if q.Sort == store.SortNumber {
			arrow = "▲"
			if q.Desc {
				arrow = "▼"
			} else {
				vals.Set("order", "desc")
			}
		}
	case q.Sort == store.SortTime:
		arrow = "▼"
		if !q.Desc {
			arrow = "▲"
		} else {
			vals.Set("order", "asc")
		}
	}
	return columnView{URL: l.link(vals), Arrow: arrow}
}

// summaryProducts are the products a report holds.
func summaryProducts(sum *store.Summary) []engine.Product {
	var products []engine.Product
	for _, t := range sum.Values[store.FieldProduct] {
		products = append(products, engine.Product(t.Value))
	}
	return products
}

// productList is the products in alphabetical order, with commas.
func productList(products []engine.Product) string {
	ps := make([]string, len(products))
	for i, p := range products {
		ps[i] = string(p)
	}
	slices.Sort(ps)
	return strings.Join(ps, ", ")
}

// charts are the report's charts: one per field its products have, whose
// bars filter by their value, then the cost per route (when results name
// one; a bar filters by its route), the cost per day of the report, and of
// the filtered view when there is one (totals).
func (l reportLinks) charts(sum *store.Summary, products []engine.Product, totals *store.Totals) []string {
	has := func(p engine.Product) bool { return slices.Contains(products, p) }
	type chart struct {
		field        store.Field
		title, empty string
		show         bool
	}
	var out []string
	for _, c := range []chart{
		{store.FieldNumberType, "Number types", "unknown", has(engine.ProductNT)},
		{store.FieldStatus, "Processing status", "none", true},
		{store.FieldConnectivity, "Connectivity status", "none", has(engine.ProductHLR)},
		{store.FieldCountry, "Countries", "unknown", true},
		{store.FieldNetwork, "Networks (MCCMNC)", "unknown", true},
		{store.FieldProduct, "Products", "", len(products) > 1},
	} {
		if !c.show || len(sum.Values[c.field]) == 0 {
			continue
		}
		field := c.field
		out = append(out, barChart(c.title, valueItems(l.labelled(field, sum.Values[field]), c.empty, func(value string) string { return l.with(field, value) })))
	}
	if routes := sum.Values[store.FieldRoute]; len(routes) > 1 || len(routes) == 1 && routes[0].Value != "" {
		out = append(out, barChart("Cost per route (EUR)", costItems(routes, "none", func(value string) string { return l.with(store.FieldRoute, value) })))
	}
	if len(sum.Days) > 0 {
		out = append(out, dayChart("Cost per day (EUR, UTC)", sum.Days))
	}
	if totals != nil && len(totals.Days) > 0 {
		out = append(out, dayChart("Cost per day of this view (EUR, UTC)", totals.Days))
	}
	return out
}

// labelled returns the tallies of field with the names the page shows:
// a network's code is named after the network the code belongs to in the
// numbering plan (the stored label is the original network's name, which
// differs for a ported or roaming number's code); other values keep the
// results' label.
func (l reportLinks) labelled(field store.Field, ts []store.Tally) []store.Tally {
	if field != store.FieldNetwork || l.plan == nil {
		return ts
	}
	out := slices.Clone(ts)
	for i, t := range out {
		if t.Value == "" {
			continue
		}
		if n, ok := l.plan.Network(t.Value); ok {
			out[i].Label = cmp.Or(n.Brand, n.Operator, t.Label)
		}
	}
	return out
}

// filters are a select per field, of the values the report holds: the
// fields its products have, and any field the query filters by.
func (l reportLinks) filters(sum *store.Summary, products []engine.Product) []filterView {
	has := func(p engine.Product) bool { return slices.Contains(products, p) }
	selected := map[store.Field]string{}
	for _, c := range l.q.Where {
		selected[c.Field] = c.Value
	}
	var out []filterView
	for _, f := range store.Fields() {
		cur, isSet := selected[f]
		if (f == store.FieldProduct && len(products) < 2) || (f == store.FieldConnectivity && !has(engine.ProductHLR)) ||
			((f == store.FieldNumberType || f == store.FieldValid || f == store.FieldInvalidReason) && !has(engine.ProductNT)) {
			if !isSet {
				continue
			}
		}
		out = append(out, filter(f, l.labelled(f, sum.Values[f]), cur, isSet))
	}
	return out
}

// filter is the select of field f with the report's values ts; cur is
// the value selected when isSet (shown with a count of 0 when the report
// holds none).
func filter(f store.Field, ts []store.Tally, cur string, isSet bool) filterView {
	fv := filterView{Name: string(f), Label: fieldLabel(f), Options: []optionView{{Value: "", Text: "any"}}}
	found := false
	for _, t := range ts {
		value, text := t.Value, t.Value
		if value == "" {
			value, text = noValue, "(none)"
		}
		if t.Label != "" {
			text = t.Label + " (" + t.Value + ")"
		}
		sel := isSet && cur == t.Value
		found = found || sel
		fv.Options = append(fv.Options, optionView{Value: value, Text: fmt.Sprintf("%s: %d", text, t.Count), Selected: sel})
	}
	if isSet && !found {
		value := cur
		if value == "" {
			value = noValue
		}
		fv.Options = append(fv.Options, optionView{Value: value, Text: cur + ": 0", Selected: true})
	}
	return fv
}

// matching is how many results the view holds and their cost: the
// report's, or of the filtered view (totals) out of the report's.
func matching(sum *store.Summary, totals *store.Totals) string {
	if totals == nil {
		return fmt.Sprintf("%d results, %s EUR", sum.Count, sum.Cost)
	}
	if totals.More {
		return fmt.Sprintf("more than %d of %d results", maxCounted, sum.Count)
	}
	return fmt.Sprintf("%d of %d results, %s EUR", totals.Count, sum.Count, totals.Cost)
}

// table is the page's results as a table: the time, then one column per
// attribute of the products; the number column sorts when numberSortable.
func (l reportLinks) table(products []engine.Product, page *store.Page, numberSortable bool) ([]columnView, []rowView, error) {
	t, err := store.NewTable(products)
	if err != nil {
		return nil, nil, err
	}
	tc := l.sortBy(false)
	tc.Name = "time (UTC)"
	columns := []columnView{tc}
	for _, c := range t.Header() {
		cv := columnView{Name: c}
		if (c == "number" || c == "msisdn") && numberSortable {
			cv = l.sortBy(true)
			cv.Name = c
		}
		columns = append(columns, cv)
	}
	var rows []rowView
	for _, row := range page.Rows {
		cells, err := t.Row(row.Product, row.Result)
		if err != nil {
			return nil, nil, fmt.Errorf("the stored result %s does not decode: %w", row.ID, err)
		}
		rows = append(rows, rowView{URL: l.base + "?id=" + url.QueryEscape(row.ID), Cells: append([]string{row.Time.Format("2006-01-02 15:04:05")}, cells...)})
	}
	return columns, rows, nil
}
