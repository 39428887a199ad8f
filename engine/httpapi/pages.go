package httpapi

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The report pages, written by hand: the output html/template made from
// the templates the package had (kept in pages_test.go, where
// TestPagesAsTemplates checks that both write the same bytes), with the
// same escaping. Linking html/template costs every numen command its
// initialisation and the code pages it touches, 0.7-0.9 MiB of peak RSS for
// `numen nt` (benchmarks/README.md, "Issue 33: start-up of the numbering
// commands"), for four pages only serve writes. A change to a page is made
// in both, the template and the writer here, so that the test keeps holding
// this escaping to html/template's.

// pageWriter accumulates a page.
type pageWriter struct{ b []byte }

// raw appends s as it is: markup of the page.
func (p *pageWriter) raw(s string) { p.b = append(p.b, s...) }

// text appends s escaped as html/template escapes a value in text, in
// RCDATA (<title>) and in a quoted attribute.
func (p *pageWriter) text(s string) { p.b = appendEscaped(p.b, s) }

// url appends s as html/template writes a value at the start of a URL
// attribute (href, action): "#ZgotmplZ" for a scheme other than http,
// https and mailto, normalised and escaped.
func (p *pageWriter) url(s string) {
	if !isSafeURL(s) {
		s = "#ZgotmplZ"
	}
	p.b = appendEscaped(p.b, normalizeURL(s))
}

// int appends n in decimal.
func (p *pageWriter) int(n int64) { p.b = strconv.AppendInt(p.b, n, 10) }

// appendEscaped appends s with NUL, quotes, '&', '+', '<' and '>' replaced
// as html/template's htmlEscaper and attrEscaper replace them; other bytes,
// invalid UTF-8 included, are kept.
func appendEscaped(b []byte, s string) []byte {
	written := 0
	for i := 0; i < len(s); i++ {
		var repl string
		switch s[i] {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '&':
			repl = "&amp;"
		case '\'':
			repl = "&#39;"
		case '+':
			repl = "&#43;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		default:
			continue
		}
		b = append(append(b, s[written:i]...), repl...)
		written = i + 1
	}
	return append(b, s[written:]...)
}

// isSafeURL reports whether s is relative or its scheme is http, https or
// mailto (html/template's urlFilter).
func isSafeURL(s string) bool {
	if scheme, _, ok := strings.Cut(s, ":"); ok && !strings.Contains(scheme, "/") {
		return strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https") || strings.EqualFold(scheme, "mailto")
	}
	return true
}

// normalizeURL percent-encodes the bytes of s that may not appear in a URL
// as they are, keeping reserved and unreserved characters and valid
// escapes (html/template's urlNormalizer).
func normalizeURL(s string) string {
	var b strings.Builder
	written := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~!#$&*+,/:;=?@[]", c) >= 0:
			continue
		case c == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]):
			continue
		}
		b.WriteString(s[written:i])
		fmt.Fprintf(&b, "%%%02x", c)
		written = i + 1
	}
	if written == 0 {
		return s
	}
	b.WriteString(s[written:])
	return b.String()
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// writePage writes the page called name ("signin", "error", "list",
// "report" or "result") of d.
func writePage(w io.Writer, name string, d *pageData) error {
	var p pageWriter
	p.top(d)
	switch name {
	case "signin":
		if f, ok := d.Body.(signinForm); ok {
			p.signin(&f)
		}
	case "error":
		p.raw(`<div class="card"><h1>`)
		p.text(d.Title)
		p.raw(`</h1><p class="error">`)
		if msg, ok := d.Body.(string); ok {
			p.text(msg)
		}
		p.raw(`</p><p><a href="/reports">All reports</a></p></div>`)
	case "list":
		rows, _ := d.Body.([]reportRow)
		p.list(rows)
	case "report":
		if rv, ok := d.Body.(reportView); ok {
			p.report(&rv)
		}
	case "result":
		if rv, ok := d.Body.(resultView); ok {
			p.result(&rv)
		}
	default:
		return fmt.Errorf("no page %q", name)
	}
	p.raw("</main></body></html>\n")
	_, err := w.Write(p.b)
	return err
}

// top is the start of every page, to its <main>.
func (p *pageWriter) top(d *pageData) {
	p.raw("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
	p.text(d.Title)
	p.raw(" · Numen</title>\n" + pageStyle + "</style></head><body>\n<header><a href=\"/reports\">Numen reports</a>")
	if d.User != "" {
		p.userAccounts(d)
	} else if d.Key != "" {
		p.raw(`<span class="who">API key <b>`)
		p.text(d.Key)
		p.raw(`</b></span>`)
	}
	p.raw("\n")
	if d.SignedIn {
		p.raw(`<form method="post" action="/reports/signout"><input type="hidden" name="csrf" value="`)
		p.text(d.CSRF)
		p.raw(`"><button class="quiet" type="submit">Sign out</button></form>`)
	}
	p.raw("\n</header><main>\n")
}

// userAccounts is the header's part for a report user: their name and
// the account shown, a form to show another when they have several.
func (p *pageWriter) userAccounts(d *pageData) {
	p.raw(`<span class="who">`)
	p.text(d.User)
	p.raw(` · API key `)
	if len(d.Accounts) > 1 {
		p.raw(`</span><form method="post" action="/reports/account"><input type="hidden" name="csrf" value="`)
		p.text(d.CSRF)
		p.raw(`"><select name="account" aria-label="API key">`)
		for _, k := range d.Accounts {
			p.raw(`<option`)
			if k == d.Key {
				p.raw(` selected`)
			}
			p.raw(`>`)
			p.text(k)
			p.raw(`</option>`)
		}
		p.raw(`</select> <button class="quiet" type="submit">Show</button></form>`)
		return
	}
	p.raw(`<b>`)
	p.text(d.Key)
	p.raw(`</b></span>`)
}

func (p *pageWriter) signin(f *signinForm) {
	p.raw("\n<div class=\"card signin\"><h1>Sign in</h1>\n")
	if f.Users {
		p.raw("<p class=\"muted\">Sign in with your user name and password.</p>\n")
	} else {
		p.raw("<p class=\"muted\">Sign in with your account's API key and secret (the ones that sign API requests).</p>\n")
	}
	if f.Notice != "" {
		p.raw(`<p class="notice">`)
		p.text(f.Notice)
		p.raw(`</p>`)
	}
	p.raw("\n")
	if f.Error != "" {
		p.raw(`<p class="error" role="alert">`)
		p.text(f.Error)
		p.raw(`</p>`)
	}
	p.raw("\n")
	if f.Token != "" && f.Users {
		p.raw("<form method=\"post\" action=\"/reports/signin\" id=\"usersignin\">\n<input type=\"hidden\" name=\"csrf\" value=\"")
		p.text(f.Token)
		p.raw(`"><input type="hidden" name="next" value="`)
		p.text(f.Next)
		p.raw("\">\n<label for=\"user\">User name</label><input id=\"user\" name=\"user\" value=\"")
		p.text(f.User)
		p.raw("\" autocomplete=\"username\" required autofocus>\n" +
			"<label for=\"password\">Password</label><input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"current-password\" required>\n" +
			"<p><button type=\"submit\">Sign in</button></p></form>")
		if f.Secret {
			p.raw("\n<h2>Or with an API key</h2>")
		}
	}
	if f.Token != "" && f.Secret {
		p.raw("<form method=\"post\" action=\"/reports/signin\">\n<input type=\"hidden\" name=\"csrf\" value=\"")
		p.text(f.Token)
		p.raw(`"><input type="hidden" name="next" value="`)
		p.text(f.Next)
		p.raw("\">\n<label for=\"key\">API key</label><input id=\"key\" name=\"key\" value=\"")
		p.text(f.Key)
		p.raw("\" autocomplete=\"username\" required")
		if !f.Users {
			p.raw(" autofocus")
		}
		p.raw(">\n" +
			"<label for=\"secret\">Secret</label><input id=\"secret\" name=\"secret\" type=\"password\" autocomplete=\"current-password\" required>\n" +
			"<p><button type=\"submit\">Sign in</button></p></form>")
	}
	p.raw("\n</div>")
}

func (p *pageWriter) list(rows []reportRow) {
	p.raw("<h1>Reports</h1>\n")
	if len(rows) == 0 {
		p.raw(`<div class="card"><p>No results yet: every lookup is added to a report of its month, named after its product (SYNC-API-NT-2026-11) or after the storage the request gave.</p></div>`)
	} else {
		p.raw(`<div class="scroll"><table id="reports"><thead><tr><th>report</th><th>products</th><th>month</th><th class="n">lookups</th><th class="n">cost (EUR)</th><th>first result (UTC)</th><th>last result (UTC)</th><th>download</th></tr></thead><tbody>` + "\n")
		for i := range rows {
			r := &rows[i]
			p.raw(`<tr><td><a href="`)
			p.url(r.URL)
			p.raw(`">`)
			p.text(r.Name)
			p.raw(`</a></td><td>`)
			p.text(r.Products)
			p.raw(`</td><td>`)
			p.text(r.Month)
			p.raw(`</td><td class="n">`)
			p.int(r.Count)
			p.raw(`</td><td class="n">`)
			p.text(r.Cost)
			p.raw(`</td><td>`)
			p.text(r.First)
			p.raw(`</td><td>`)
			p.text(r.Last)
			p.raw("</td>\n<td class=\"downloads\"><a href=\"")
			p.url(r.URL)
			p.raw(`?format=csv">CSV</a><a href="`)
			p.url(r.URL)
			p.raw("?format=json\">JSON</a></td></tr>\n")
		}
		p.raw(`</tbody></table></div>`)
	}
	p.raw("\n")
}

// report writes the page of a report's view, part by part.
func (p *pageWriter) report(rv *reportView) {
	p.reportHead(rv)
	p.reportFilters(rv)
	p.reportDownloads(rv)
	p.reportTable(rv)
	p.reportPager(rv)
}

// reportHead writes the name, the facts of the whole report, its charts and the notices.
func (p *pageWriter) reportHead(rv *reportView) {
	p.raw("\n<p><a href=\"/reports\">All reports</a></p>\n<h1>")
	p.text(rv.Name)
	p.raw("</h1>\n<div class=\"facts\"><span><b>")
	p.int(rv.Count)
	p.raw(`</b> lookups</span><span><b>`)
	p.text(rv.Cost)
	p.raw(`</b> EUR</span><span>`)
	p.text(rv.Products)
	p.raw(`</span>`)
	if rv.First != "" {
		p.raw(`<span>`)
		p.text(rv.First)
		p.raw(` to `)
		p.text(rv.Last)
		p.raw(`</span>`)
	}
	p.raw("</div>\n")
	if len(rv.Charts) > 0 {
		p.raw("<p class=\"muted\">Summary of the whole report; a bar filters the results by its value.</p>\n<section class=\"charts\" aria-label=\"Summary\">")
		for _, c := range rv.Charts {
			p.raw(c)
		}
		p.raw(`</section>`)
	}
	p.raw("\n")
	if rv.Notice != "" {
		p.raw(`<p class="notice">`)
		p.text(rv.Notice)
		p.raw(`</p>`)
	}
	p.raw("\n")
	if rv.Problem != "" {
		p.raw(`<p class="error" role="alert" id="problem">`)
		p.text(rv.Problem)
		p.raw(`</p>`)
	}
}

// reportFilters writes the form of the view's filters, date range and order.
func (p *pageWriter) reportFilters(rv *reportView) {
	p.raw("\n<div class=\"card\"><form class=\"filters\" method=\"get\" action=\"")
	p.url(rv.URL)
	p.raw("\" id=\"filters\">\n")
	for _, f := range rv.Filters {
		p.raw(`<label>`)
		p.text(f.Label)
		p.raw(`<select name="`)
		p.text(f.Name)
		p.raw(`">`)
		for _, o := range f.Options {
			p.raw(`<option value="`)
			p.text(o.Value)
			p.raw(`"`)
			if o.Selected {
				p.raw(` selected`)
			}
			p.raw(`>`)
			p.text(o.Text)
			p.raw(`</option>`)
		}
		p.raw("</select></label>\n")
	}
	p.raw(`<label>Number starts with<input name="number" value="`)
	p.text(rv.Number)
	p.raw("\" placeholder=\"+49 151 or 0151\" inputmode=\"tel\"></label>\n<label>From (UTC)<input type=\"date\" name=\"from\" value=\"")
	p.text(rv.From)
	p.raw(`"`)
	p.dayBounds(rv)
	p.raw(`></label><label>To (UTC)<input type="date" name="to" value="`)
	p.text(rv.To)
	p.raw(`"`)
	p.dayBounds(rv)
	p.raw("></label>\n<label>Order<select name=\"sort\"><option value=\"time\"")
	p.when(!rv.SortNumber, ` selected`)
	p.raw(`>time</option><option value="number"`)
	p.when(rv.SortNumber, ` selected`)
	p.when(!rv.NumberSortable, ` disabled`)
	p.raw(">number</option></select></label>\n<label>Direction<select name=\"order\"><option value=\"desc\"")
	p.when(rv.Desc, ` selected`)
	p.raw(`>descending</option><option value="asc"`)
	p.when(!rv.Desc, ` selected`)
	p.raw(">ascending</option></select></label>\n<button type=\"submit\">Apply</button>")
	if rv.Filtered {
		p.raw(`<a href="`)
		p.url(rv.ClearURL)
		p.raw(`">clear filters</a>`)
	}
}

// reportDownloads writes the count of the view and its download links.
func (p *pageWriter) reportDownloads(rv *reportView) {
	p.raw("\n</form></div>\n<p class=\"downloads\"><span class=\"muted\">")
	if rv.Matching != "" {
		p.text(rv.Matching)
		p.raw(` · `)
	}
	p.raw(`Download `)
	if rv.Filtered {
		p.raw(`this view`)
	} else {
		p.raw(`the report`)
	}
	p.raw(`:</span> <a href="`)
	p.url(rv.CSV)
	p.raw(`" id="download-csv">CSV</a><a href="`)
	p.url(rv.JSON)
	p.raw("\" id=\"download-json\">JSON</a></p>\n")
}

// reportTable writes the table of the page's results, or a line saying there are none.
func (p *pageWriter) reportTable(rv *reportView) {
	if len(rv.Rows) > 0 {
		p.raw(`<div class="scroll"><table id="results"><thead><tr>`)
		for _, c := range rv.Columns {
			p.raw(`<th>`)
			if c.URL != "" {
				p.raw(`<a href="`)
				p.url(c.URL)
				p.raw(`">`)
				p.text(c.Name)
				p.raw(`</a> `)
				p.text(c.Arrow)
			} else {
				p.text(c.Name)
			}
			p.raw(`</th>`)
		}
		p.raw("</tr></thead><tbody>\n")
		for _, row := range rv.Rows {
			p.raw(`<tr>`)
			for i, cell := range row.Cells {
				if i == 0 && row.URL != "" {
					p.raw(`<td><a href="`)
					p.url(row.URL)
					p.raw(`">`)
					p.text(cell)
					p.raw(`</a></td>`)
					continue
				}
				if longCell(cell) {
					p.raw(`<td class="long"><details><summary>`)
					p.text(shortCell(cell))
					p.raw(`</summary>`)
					p.text(cell)
					p.raw(`</details></td>`)
					continue
				}
				p.raw(`<td>`)
				p.text(cell)
				p.raw(`</td>`)
			}
			p.raw("</tr>\n")
		}
		p.raw(`</tbody></table></div>`)
	} else {
		p.raw(`<div class="card"><p>No results match these filters.</p></div>`)
	}
}

// reportPager writes the page numbers and the links to the pages before and after.
func (p *pageWriter) reportPager(rv *reportView) {
	p.raw("\n<nav class=\"pager\" aria-label=\"Pages\">")
	if rv.PrevURL != "" {
		p.raw(`<a href="`)
		p.url(rv.PrevURL)
		p.raw(`" id="prev" rel="prev">‹ previous</a>`)
	}
	for _, pg := range rv.Pages {
		switch {
		case pg.Current:
			p.raw(`<b aria-current="page">`)
			p.text(pg.Text)
			p.raw(`</b>`)
		case pg.URL != "":
			p.raw(`<a href="`)
			p.url(pg.URL)
			p.raw(`">`)
			p.text(pg.Text)
			p.raw(`</a>`)
		default:
			p.raw(`<span>`)
			p.text(pg.Text)
			p.raw(`</span>`)
		}
	}
	if rv.NextURL != "" {
		p.raw(`<a href="`)
		p.url(rv.NextURL)
		p.raw(`" id="next" rel="next">next ›</a>`)
	}
	p.raw("</nav>\n")
}

// longCell reports whether a cell of the results table is collapsed:
// longer than 32 characters (lists of time zones and regions), it would
// widen its column for every row; its first part is shown, the rest on
// a click (a <details>, no script).
func longCell(s string) bool { return utf8.RuneCountInString(s) > 32 }

// shortCell is what a collapsed cell shows: its start, and how many
// items a list ("|"-separated, as the downloads write them) has.
func shortCell(s string) string {
	if n := strings.Count(s, "|") + 1; n > 1 {
		first, _, _ := strings.Cut(s, "|")
		return shorten(first, 24) + " and " + strconv.Itoa(n-1) + " more"
	}
	return shorten(s, 24)
}

func (p *pageWriter) result(rv *resultView) {
	p.raw("\n<p><a href=\"")
	p.url(rv.ReportURL)
	p.raw(`">`)
	p.text(rv.Report)
	p.raw("</a></p>\n<h1>")
	p.text(rv.ID)
	p.raw("</h1>\n<div class=\"facts\"><span>")
	p.text(rv.Product)
	p.raw(`</span><span>`)
	p.text(rv.Time)
	p.raw(` UTC</span><span><b>`)
	p.text(rv.Cost)
	p.raw("</b> EUR</span></div>\n<div class=\"scroll\"><table id=\"result\"><tbody>\n")
	for _, f := range rv.Fields {
		p.raw(`<tr><th>`)
		p.text(f.Name)
		p.raw(`</th><td class="wrap">`)
		p.text(f.Value)
		p.raw("</td></tr>\n")
	}
	p.raw("</tbody></table></div>\n")
}

// dayBounds appends the min and max of a date input: the report's first
// and last days, when it has results.
func (p *pageWriter) dayBounds(rv *reportView) {
	if rv.First != "" {
		p.raw(` min="`)
		p.text(rv.First)
		p.raw(`" max="`)
		p.text(rv.Last)
		p.raw(`"`)
	}
}

// when appends s if cond.
func (p *pageWriter) when(cond bool, s string) {
	if cond {
		p.raw(s)
	}
}

// pageStyle is the style sheet of every page, from its <style> tag.
const pageStyle = `<style>
:root{--fg:#1d2733;--muted:#5b6675;--line:#e3e7ed;--bg:#f6f8fb;--accent:#1f6feb}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:var(--fg);background:var(--bg)}
header{display:flex;align-items:center;gap:1em;padding:.7em 1.5em;background:#16202c;color:#fff}
header a{color:#fff;text-decoration:none;font-weight:600}
header .who{margin-left:auto;color:#c9d3df}
header form{margin:0}
main{padding:1.2em 1.5em;max-width:1400px}
h1{font-size:1.4em;margin:.2em 0 .6em}
a{color:var(--accent)}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:1em;margin-bottom:1em}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{padding:.35em .7em;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
th{background:#eef2f7;position:sticky;top:0;font-weight:600}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tbody tr:nth-child(even){background:#fafbfd}
.scroll{overflow-x:auto;border:1px solid var(--line);border-radius:8px}
.facts{display:flex;flex-wrap:wrap;gap:1.5em;margin:.3em 0 1em;color:var(--muted)}
.facts b{color:var(--fg);font-size:1.15em}
.charts{display:flex;flex-wrap:wrap;gap:1em;margin-bottom:1em}
figure.chart{margin:0;background:#fff;border:1px solid var(--line);border-radius:8px;padding:.7em}
figcaption{font-weight:600;margin-bottom:.3em}
svg text{font:12px system-ui,sans-serif;fill:var(--fg)} svg text.v{fill:var(--muted)}
svg a:hover rect{opacity:.75}
svg .axis{stroke:#9aa5b1}
.c0{fill:#1f6feb}.c1{fill:#2da44e}.c2{fill:#bf8700}.c3{fill:#8250df}.c4{fill:#cf222e}.c5{fill:#0a7d8c}
form.filters{display:flex;flex-wrap:wrap;gap:.8em;align-items:flex-end}
form.filters label{display:flex;flex-direction:column;font-size:.85em;color:var(--muted)}
select,input{font:inherit;padding:.3em .4em;border:1px solid #c4ccd6;border-radius:5px;background:#fff;min-width:9em}
button{font:inherit;padding:.35em 1em;border-radius:5px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.quiet{background:transparent;border-color:#8b98a8;color:#fff}
.pager{display:flex;flex-wrap:wrap;gap:.4em 1em;margin:.8em 0}
.downloads a{margin-right:.8em}
.error{color:#cf222e;font-weight:600}
.notice{color:#2da44e;font-weight:600}
.signin{max-width:26em;margin:4em auto}
.signin label{display:block;margin:.8em 0 .2em}
.signin input{width:100%}
.muted{color:var(--muted)}
h1{overflow-wrap:anywhere}
figure.chart{max-width:100%}
figure.chart svg{max-width:100%;height:auto}
td.long{white-space:normal;min-width:10em;max-width:22em;overflow-wrap:anywhere}
td.long summary{cursor:pointer}
td.wrap{white-space:normal;overflow-wrap:anywhere}
@media (max-width:600px){main{padding:.8em .6em}header{flex-wrap:wrap;padding:.6em .8em}header .who{margin-left:0}.facts{gap:.8em}form.filters label{flex:1 1 9em}select,input{min-width:0;width:100%}.charts{display:block}figure.chart{margin-bottom:.8em}}
`
