package httpapi

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/store"
)

// The report pages: the web interface where an account reviews its
// reports (storages) and downloads them as CSV or JSON.
//
//	GET /reports                        the account's reports
//	GET /reports/{name}?after=ID        one page of a report's results
//	GET /reports/{name}?format=csv|json the whole report, as a download
//
// A browser signs in with HTTP Basic authentication (the API key and
// secret; the page asks for them); scripts may use any of the API's
// methods, a digest signing the request's whole path, lower-cased (such as
// /reports/sync-api-2026-11). The account's whitelist and method list
// apply.

var reportTemplates = template.Must(template.New("list").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Numen reports</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}td.n{text-align:right}</style></head>
<body><h1>Reports of {{.Key}}</h1>
{{if .Reports}}<table><tr><th>report</th><th>products</th><th>results</th><th>cost (EUR)</th><th>first</th><th>last</th><th>download</th></tr>
{{range .Reports}}<tr><td><a href="/reports/{{.Escaped}}">{{.Name}}</a></td><td>{{.Products}}</td><td class="n">{{.Count}}</td><td class="n">{{.Cost}}</td><td>{{.First}}</td><td>{{.Last}}</td>
<td><a href="/reports/{{.Escaped}}?format=csv">CSV</a> · <a href="/reports/{{.Escaped}}?format=json">JSON</a></td></tr>
{{end}}</table>{{else}}<p>No results yet: every lookup is appended to its report.</p>{{end}}
</body></html>
`))

var reportPage = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Name}}</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}pre{margin:0;white-space:pre-wrap;max-width:60em}</style></head>
<body><p><a href="/reports">all reports</a></p><h1>{{.Name}}</h1>
<p>Download: <a href="/reports/{{.Escaped}}?format=csv">CSV</a> · <a href="/reports/{{.Escaped}}?format=json">JSON</a></p>
<table><tr><th>id</th><th>product</th><th>time (UTC)</th><th>cost (EUR)</th><th>result</th></tr>
{{range .Rows}}<tr><td>{{.ID}}</td><td>{{.Product}}</td><td>{{.Time}}</td><td>{{.Cost}}</td><td><pre>{{.Result}}</pre></td></tr>
{{end}}</table>
{{if .Next}}<p><a href="/reports/{{.Escaped}}?after={{.Next}}">next page</a></p>{{end}}
</body></html>
`))

// reports returns the handler of the report pages over st; it
// authenticates with h's accounts.
func (h *Handler) reports(st store.Reader) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &statusWriter{ResponseWriter: w}
		var key string
		defer func() {
			// Logged and counted as the API's requests are, under one name.
			elapsed := time.Since(start)
			h.metrics.observeRequest("/reports", rw.status, elapsed)
			h.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", rw.status,
				"duration_ms", float64(elapsed.Microseconds())/1000, "key", key, "remote", r.RemoteAddr, "bytes", rw.bytes)
		}()
		h.serveReports(rw, r, st, &key)
	})
}

// serveReports serves one request of the report pages; it sets *key to the
// API key the request presented, for the log line.
func (h *Handler) serveReports(w http.ResponseWriter, r *http.Request, st store.Reader, key *string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET")
		writeErrors(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: method not allowed; use GET", r.Method, r.URL.Path))
		return
	}
	id, err := h.verifier.Authenticate(r, lowerASCII(r.URL.Path), nil, h.cfg.Clock())
	if err != nil {
		// A failed sign-in is counted and logged (with the reason,
		// which the answer does not tell) like a failed API request.
		var ae *auth.Error
		if errors.As(err, &ae) {
			*key = ae.Key
			h.log.Warn("report pages: sign-in failed", "reason", ae.Reason.String(), "key", ae.Key, "remote", r.RemoteAddr)
		}
		h.metrics.authFailures.add(1)
		w.Header().Set("WWW-Authenticate", `Basic realm="Numen reports: API key and secret", charset="UTF-8"`)
		writeErrors(w, http.StatusUnauthorized, err.Error())
		return
	}
	*key = id.Key
	a := h.accounts[id.Key]
	if len(a.Methods) > 0 && !contains(a.Methods, id.Method) {
		writeErrors(w, http.StatusForbidden, fmt.Sprintf("authentication method %s is not enabled for this API key", id.Method))
		return
	}
	if client := h.clientAddr(r); !allowed(a.Whitelist, client) {
		writeErrors(w, http.StatusForbidden, fmt.Sprintf("client address %s is not whitelisted for this API key", client))
		return
	}
	// The account's rate limit covers its report pages and downloads.
	if h.rateLimited(w, a) {
		return
	}
	name := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/reports"), "/")
	switch {
	case name == "":
		h.reportList(w, r, st, a.Key)
	case r.URL.Query().Has("format"):
		h.reportDownload(w, r, st, a.Key, name)
	default:
		h.reportResults(w, r, st, a.Key, name)
	}
}

func (h *Handler) reportList(w http.ResponseWriter, r *http.Request, st store.Reader, key string) {
	reports, err := st.Reports(r.Context(), key)
	if err != nil {
		h.log.Error("listing reports", "error", err)
		writeErrors(w, http.StatusServiceUnavailable, "service unavailable: the reports cannot be read")
		return
	}
	type row struct {
		Name, Escaped, Products, Cost, First, Last string
		Count                                      int64
	}
	data := struct {
		Key     string
		Reports []row
	}{Key: key}
	for _, rep := range reports {
		ps := make([]string, len(rep.Products))
		for i, p := range rep.Products {
			ps[i] = string(p)
		}
		data.Reports = append(data.Reports, row{
			Name: rep.Name, Escaped: url.PathEscape(rep.Name), Products: strings.Join(ps, ", "), Count: rep.Count,
			Cost: rep.Cost.String(), First: rep.First.Format(time.DateTime), Last: rep.Last.Format(time.DateTime),
		})
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = reportTemplates.Execute(w, data)
}

func (h *Handler) reportDownload(w http.ResponseWriter, r *http.Request, st store.Reader, key, name string) {
	format, err := store.ParseFormat(r.URL.Query().Get("format"))
	if err != nil {
		writeErrors(w, http.StatusBadRequest, "format: "+err.Error())
		return
	}
	// Export writes nothing before it knows the report, so the headers
	// can wait for the first byte.
	dw := &downloadWriter{w: w, contentType: format.ContentType(),
		filename: strings.Map(safeFileRune, name) + "." + strings.ToLower(string(format))}
	err = st.Export(r.Context(), key, name, &store.Query{}, format, dw)
	switch {
	case errors.Is(err, store.ErrUnknownReport):
		writeErrors(w, http.StatusNotFound, fmt.Sprintf("no report %q for this API key", name))
	case err != nil && !dw.started:
		h.log.Error("exporting a report", "report", name, "error", err)
		writeErrors(w, http.StatusServiceUnavailable, "service unavailable: the report cannot be read")
	case err != nil:
		// Part of the report has gone out with 200: abort the transfer
		// (the connection is closed without the end of the chunked body, an
		// HTTP/2 stream is reset), so that the client sees the download
		// incomplete rather than a shorter report.
		h.log.Error("exporting a report, after its first bytes: transfer aborted", "report", name, "error", err)
		panic(http.ErrAbortHandler)
	}
}

// downloadWriter sets the download's headers before its first byte.
type downloadWriter struct {
	w                     http.ResponseWriter
	contentType, filename string
	started               bool
}

func (d *downloadWriter) Write(p []byte) (int, error) {
	if !d.started {
		d.started = true
		d.w.Header().Set("Content-Type", d.contentType)
		d.w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", d.filename))
	}
	return d.w.Write(p)
}

func safeFileRune(r rune) rune {
	if r == '/' || r == '\\' || r == '"' || r < 0x20 || r == 0x7f {
		return '_'
	}
	return r
}

func (h *Handler) reportResults(w http.ResponseWriter, r *http.Request, st store.Reader, key, name string) {
	page, err := st.Query(r.Context(), key, name, &store.Query{}, r.URL.Query().Get("after"), store.DefaultPage)
	switch {
	case errors.Is(err, store.ErrUnknownReport):
		writeErrors(w, http.StatusNotFound, fmt.Sprintf("no report %q for this API key", name))
		return
	case errors.Is(err, store.ErrBadCursor):
		writeErrors(w, http.StatusBadRequest, "after: not a page cursor of this report")
		return
	case err != nil:
		h.log.Error("reading a report", "report", name, "error", err)
		writeErrors(w, http.StatusServiceUnavailable, "service unavailable: the report cannot be read")
		return
	}
	type row struct{ ID, Product, Time, Cost, Result string }
	data := struct {
		Name, Escaped, Next string
		Rows                []row
	}{Name: name, Escaped: url.PathEscape(name)}
	for _, x := range page.Rows {
		data.Rows = append(data.Rows, row{ID: x.ID, Product: string(x.Product), Time: x.Time.Format("2006-01-02 15:04:05.000"), Cost: x.Cost.String(), Result: string(x.Result)})
	}
	data.Next = page.Next
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = reportPage.Execute(w, data)
}
