package httpapi

import (
	"bytes"
	"html/template"
	"math/rand/v2"
	"strings"
	"testing"
)

// pageSource is the templates the report pages were written with by
// html/template, the reference for writePage (pages.go): only the charts,
// HTML the package makes, are marked trusted with a function where the
// page's Charts were template.HTML.
const pageSource = `
{{define "top"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · Numen</title>
` + pageStyle + `</style></head><body>
<header><a href="/reports">Numen reports</a>{{if .User}}<span class="who">{{.User}} · API key {{if gt (len .Accounts) 1}}</span><form method="post" action="/reports/account"><input type="hidden" name="csrf" value="{{.CSRF}}"><select name="account" aria-label="API key">{{$key := .Key}}{{range .Accounts}}<option{{if eq . $key}} selected{{end}}>{{.}}</option>{{end}}</select> <button class="quiet" type="submit">Show</button></form>{{else}}<b>{{.Key}}</b></span>{{end}}{{else if .Key}}<span class="who">API key <b>{{.Key}}</b></span>{{end}}
{{if .SignedIn}}<form method="post" action="/reports/signout"><input type="hidden" name="csrf" value="{{.CSRF}}"><button class="quiet" type="submit">Sign out</button></form>{{end}}
</header><main>
{{end}}

{{define "bottom"}}</main></body></html>
{{end}}

{{define "signin"}}{{template "top" .}}{{with .Body}}
<div class="card signin"><h1>Sign in</h1>
{{if .Users}}<p class="muted">Sign in with your user name and password.</p>
{{else}}<p class="muted">Sign in with your account's API key and secret (the ones that sign API requests).</p>
{{end}}{{if .Notice}}<p class="notice">{{.Notice}}</p>{{end}}
{{if .Error}}<p class="error" role="alert">{{.Error}}</p>{{end}}
{{if and .Token .Users}}<form method="post" action="/reports/signin" id="usersignin">
<input type="hidden" name="csrf" value="{{.Token}}"><input type="hidden" name="next" value="{{.Next}}">
<label for="user">User name</label><input id="user" name="user" value="{{.User}}" autocomplete="username" required autofocus>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit">Sign in</button></p></form>{{if .Secret}}
<h2>Or with an API key</h2>{{end}}{{end}}{{if and .Token .Secret}}<form method="post" action="/reports/signin">
<input type="hidden" name="csrf" value="{{.Token}}"><input type="hidden" name="next" value="{{.Next}}">
<label for="key">API key</label><input id="key" name="key" value="{{.Key}}" autocomplete="username" required{{if not .Users}} autofocus{{end}}>
<label for="secret">Secret</label><input id="secret" name="secret" type="password" autocomplete="current-password" required>
<p><button type="submit">Sign in</button></p></form>{{end}}
</div>{{end}}{{template "bottom" .}}{{end}}

{{define "error"}}{{template "top" .}}<div class="card"><h1>{{.Title}}</h1><p class="error">{{.Body}}</p><p><a href="/reports">All reports</a></p></div>{{template "bottom" .}}{{end}}

{{define "list"}}{{template "top" .}}<h1>Reports</h1>
{{if .Body}}<div class="scroll"><table id="reports"><thead><tr><th>report</th><th>products</th><th>month</th><th class="n">lookups</th><th class="n">cost (EUR)</th><th>first result (UTC)</th><th>last result (UTC)</th><th>download</th></tr></thead><tbody>
{{range .Body}}<tr><td><a href="{{.URL}}">{{.Name}}</a></td><td>{{.Products}}</td><td>{{.Month}}</td><td class="n">{{.Count}}</td><td class="n">{{.Cost}}</td><td>{{.First}}</td><td>{{.Last}}</td>
<td class="downloads"><a href="{{.URL}}?format=csv">CSV</a><a href="{{.URL}}?format=json">JSON</a></td></tr>
{{end}}</tbody></table></div>{{else}}<div class="card"><p>No results yet: every lookup is added to a report of its month, named after its product (SYNC-API-NT-2026-11) or after the storage the request gave.</p></div>{{end}}
{{template "bottom" .}}{{end}}

{{define "report"}}{{template "top" .}}{{with .Body}}
<p><a href="/reports">All reports</a></p>
<h1>{{.Name}}</h1>
<div class="facts"><span><b>{{.Count}}</b> lookups</span><span><b>{{.Cost}}</b> EUR</span><span>{{.Products}}</span>{{if .First}}<span>{{.First}} to {{.Last}}</span>{{end}}</div>
{{if .Charts}}<p class="muted">Summary of the whole report; a bar filters the results by its value.</p>
<section class="charts" aria-label="Summary">{{range .Charts}}{{trusted .}}{{end}}</section>{{end}}
{{if .Notice}}<p class="notice">{{.Notice}}</p>{{end}}
{{if .Problem}}<p class="error" role="alert" id="problem">{{.Problem}}</p>{{end}}
<div class="card"><form class="filters" method="get" action="{{.URL}}" id="filters">
{{range .Filters}}<label>{{.Label}}<select name="{{.Name}}">{{range .Options}}<option value="{{.Value}}"{{if .Selected}} selected{{end}}>{{.Text}}</option>{{end}}</select></label>
{{end}}<label>Number starts with<input name="number" value="{{.Number}}" placeholder="+49 151 or 0151" inputmode="tel"></label>
<label>From (UTC)<input type="date" name="from" value="{{.From}}"{{if .First}} min="{{.First}}" max="{{.Last}}"{{end}}></label><label>To (UTC)<input type="date" name="to" value="{{.To}}"{{if .First}} min="{{.First}}" max="{{.Last}}"{{end}}></label>
<label>Order<select name="sort"><option value="time"{{if not .SortNumber}} selected{{end}}>time</option><option value="number"{{if .SortNumber}} selected{{end}}{{if not .NumberSortable}} disabled{{end}}>number</option></select></label>
<label>Direction<select name="order"><option value="desc"{{if .Desc}} selected{{end}}>descending</option><option value="asc"{{if not .Desc}} selected{{end}}>ascending</option></select></label>
<button type="submit">Apply</button>{{if .Filtered}}<a href="{{.ClearURL}}">clear filters</a>{{end}}
</form></div>
<p class="downloads"><span class="muted">{{if .Matching}}{{.Matching}} · {{end}}Download {{if .Filtered}}this view{{else}}the report{{end}}:</span> <a href="{{.CSV}}" id="download-csv">CSV</a><a href="{{.JSON}}" id="download-json">JSON</a></p>
{{if .Rows}}<div class="scroll"><table id="results"><thead><tr>{{range .Columns}}<th>{{if .URL}}<a href="{{.URL}}">{{.Name}}</a> {{.Arrow}}{{else}}{{.Name}}{{end}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{$url := .URL}}{{range $i, $c := .Cells}}{{if and (eq $i 0) $url}}<td><a href="{{$url}}">{{$c}}</a></td>{{else if long $c}}<td class="long"><details><summary>{{short $c}}</summary>{{$c}}</details></td>{{else}}<td>{{$c}}</td>{{end}}{{end}}</tr>
{{end}}</tbody></table></div>{{else}}<div class="card"><p>No results match these filters.</p></div>{{end}}
<nav class="pager" aria-label="Pages">{{if .PrevURL}}<a href="{{.PrevURL}}" id="prev" rel="prev">‹ previous</a>{{end}}{{range .Pages}}{{if .Current}}<b aria-current="page">{{.Text}}</b>{{else if .URL}}<a href="{{.URL}}">{{.Text}}</a>{{else}}<span>{{.Text}}</span>{{end}}{{end}}{{if .NextURL}}<a href="{{.NextURL}}" id="next" rel="next">next ›</a>{{end}}</nav>
{{end}}{{template "bottom" .}}{{end}}

{{define "result"}}{{template "top" .}}{{with .Body}}
<p><a href="{{.ReportURL}}">{{.Report}}</a></p>
<h1>{{.ID}}</h1>
<div class="facts"><span>{{.Product}}</span><span>{{.Time}} UTC</span><span><b>{{.Cost}}</b> EUR</span></div>
<div class="scroll"><table id="result"><tbody>
{{range .Fields}}<tr><th>{{.Name}}</th><td class="wrap">{{.Value}}</td></tr>
{{end}}</tbody></table></div>
{{end}}{{template "bottom" .}}{{end}}
`

var referencePages = template.Must(template.New("pages").Funcs(template.FuncMap{
	"trusted": func(s string) template.HTML { return template.HTML(s) }, //nolint:gosec // charts escape their own text
	"long":    longCell,
	"short":   shortCell,
}).Parse(pageSource))

// pageStrings are values a page may show: markup, quotes, '+', NUL,
// entities, percent escapes valid and not, URLs of every scheme, invalid
// UTF-8 and characters html/template treats apart.
var pageStrings = []string{
	"", "SYNC-API-NT-2026-11", "a<b>&c", `"quoted" 'single'`, "+4479", "x\x00y", "&amp; &#43;",
	"/reports/a%2Fb", "/reports/100%", "/reports/%zz%4", "/reports/a b?c=d&e=f#g", "javascript:alert(1)",
	"JavaScript:x", "http://h/p?q=1+2", "HTTPS://h/", "mailto:a@b", "data:text/html,x", "/a:b", "ftp/x:y",
	"é ü €", "Africa/Abidjan|Africa/Accra|Africa/Addis_Ababa|Africa/Algiers|Africa/Asmara", "\xff\xfe", "\ufdd0\uffff", "<script>alert(1)</script>", "a\tb\nc", "!#$*,;=@[]~", "`back`",
}

func pickString(r *rand.Rand) string {
	s := pageStrings[r.IntN(len(pageStrings))]
	if r.IntN(4) == 0 {
		s += pageStrings[r.IntN(len(pageStrings))]
	}
	return s
}

// randomPage makes the data of one page called name.
func randomPage(r *rand.Rand, name string) pageData {
	s := func() string { return pickString(r) }
	b := func() bool { return r.IntN(2) == 0 }
	d := pageData{Title: s(), Key: s(), CSRF: s(), SignedIn: b()}
	if r.IntN(3) == 0 {
		d.Key = ""
	}
	if r.IntN(2) == 0 { // a report user's page, with one or several accounts
		d.User = s()
		for range 1 + r.IntN(3) {
			d.Accounts = append(d.Accounts, s())
		}
		if b() {
			d.Key = d.Accounts[r.IntN(len(d.Accounts))]
		}
	}
	switch name {
	case "signin":
		f := signinForm{Token: s(), Next: s(), Key: s(), User: s(), Error: s(), Notice: s(), Users: b(), Secret: b()}
		d.Body = f
	case "error":
		d.Body = s()
	case "list":
		var rows []reportRow
		for range r.IntN(4) {
			rows = append(rows, reportRow{Name: s(), URL: s(), Products: s(), Month: s(), Cost: s(), First: s(), Last: s(), Count: r.Int64N(1e6)})
		}
		d.Body = rows
	case "report":
		rv := reportView{
			Name: s(), URL: s(), Month: s(), Products: s(), Cost: s(), First: s(), Last: s(), Count: r.Int64N(1e6),
			Number: s(), From: s(), To: s(), Problem: s(), SortNumber: b(), Desc: b(), Filtered: b(), NumberSortable: b(), Notice: s(), Matching: s(),
			NextURL: s(), PrevURL: s(), CSV: s(), JSON: s(), ClearURL: s(),
		}
		for range r.IntN(3) {
			rv.Charts = append(rv.Charts, `<figure class="chart"><svg><text>`+s()+`</text></svg></figure>`)
		}
		for range r.IntN(3) {
			f := filterView{Name: s(), Label: s()}
			for range r.IntN(4) {
				f.Options = append(f.Options, optionView{Value: s(), Text: s(), Selected: b()})
			}
			rv.Filters = append(rv.Filters, f)
		}
		for range r.IntN(5) {
			rv.Pages = append(rv.Pages, pageLink{Text: s(), URL: []string{"", s()}[r.IntN(2)], Current: r.IntN(3) == 0})
		}
		for range r.IntN(4) {
			rv.Columns = append(rv.Columns, columnView{Name: s(), URL: s(), Arrow: s()})
		}
		for range r.IntN(4) {
			row := rowView{Cells: make([]string, r.IntN(4))}
			if r.IntN(2) == 0 {
				row.URL = s()
			}
			for i := range row.Cells {
				row.Cells[i] = s()
			}
			rv.Rows = append(rv.Rows, row)
		}
		d.Body = rv
	case "result":
		rv := resultView{Report: s(), ReportURL: s(), ID: s(), Product: s(), Time: s(), Cost: s()}
		for range r.IntN(4) {
			rv.Fields = append(rv.Fields, fieldView{Name: s(), Value: s()})
		}
		d.Body = rv
	}
	return d
}

// TestPagesAsTemplates checks that writePage writes, byte for byte, what
// html/template wrote from pageSource, for pages of random values drawn
// from pageStrings (every escaping case), all empty values included.
func TestPagesAsTemplates(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(33, 4))
	for _, name := range []string{"signin", "error", "list", "report", "result"} {
		datas := []pageData{{}, {Body: signinForm{}}, {Body: reportView{}}, {Body: []reportRow{}}, {Body: ""}, {Body: resultView{}}}
		for range 400 {
			datas = append(datas, randomPage(r, name))
		}
		for i, d := range datas {
			if name == "signin" && d.Body != nil && !isType[signinForm](d.Body) ||
				name == "error" && d.Body != nil && !isType[string](d.Body) ||
				name == "list" && d.Body != nil && !isType[[]reportRow](d.Body) ||
				name == "report" && d.Body != nil && !isType[reportView](d.Body) ||
				name == "result" && d.Body != nil && !isType[resultView](d.Body) {
				continue // a page is only ever given its own body
			}
			var want, got bytes.Buffer
			if err := referencePages.ExecuteTemplate(&want, name, d); err != nil {
				t.Fatalf("%s %d: template: %v", name, i, err)
			}
			if err := writePage(&got, name, &d); err != nil {
				t.Fatalf("%s %d: writePage: %v", name, i, err)
			}
			if got.String() != want.String() {
				g, w := got.String(), want.String()
				at := 0
				for at < len(g) && at < len(w) && g[at] == w[at] {
					at++
				}
				t.Fatalf("%s %d (%+v): differs at byte %d:\n got  %q\n want %q", name, i, d, at, tail(g, at), tail(w, at))
			}
		}
	}
	if err := writePage(&strings.Builder{}, "nothing", &pageData{}); err == nil {
		t.Error("writePage of an unknown page: no error")
	}
}

func isType[T any](v any) bool { _, ok := v.(T); return ok }

func tail(s string, at int) string {
	return s[max(0, at-40):min(len(s), at+80)]
}
