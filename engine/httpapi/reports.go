package httpapi

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/users"
	"github.com/numenhq/numen/numbering"
)

// The report pages: the web interface where an account reviews its
// reports and downloads them.
//
//	GET  /reports/signin                  the sign-in form (user name and password, or API key and secret)
//	POST /reports/signin                  signs in: a session cookie (session.go, usersession.go)
//	POST /reports/signout                 signs out
//	POST /reports/account                 a user shows another of their accounts (usersession.go)
//	GET  /reports                         the account's reports
//	GET  /reports/{name}?QUERY            a report: charts, filters, one page of results
//	GET  /reports/{name}?QUERY&format=csv the results QUERY selects, as a download (or json)
//
// QUERY (every part optional; reportQuery): product, status,
// connectivity, number_type, country, network (a value, or "-" for the
// results without one), number (the start of a number, as typed: "+49
// 151", "0049151"; on a page "0151" too, read with the country filter or
// the report's most frequent country), from and to (days in UTC,
// YYYY-MM-DD, both included), sort (time or number), order (asc or desc;
// time is newest first unless asc), after (a page cursor).
//
// A browser without a session is sent to the sign-in page. Scripts may
// instead authenticate each request with any of the API's methods
// (Authorization: Basic, X-Basic, or a digest signing the request's whole
// path, lower-cased, such as /reports/sync-api-2026-11); the account's
// method list applies to them. The account's whitelist and rate limit
// apply to every request, sessions included.

// reports returns the handler of the report pages over st.
func (h *Handler) reports(st store.Reader) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &statusWriter{ResponseWriter: w}
		var key, user string
		r = withLoggedUser(r, &user)
		defer func() {
			// Logged and counted as the API's requests are, under one name.
			elapsed := time.Since(start)
			h.metrics.observeRequest("/reports", rw.status, elapsed)
			h.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", rw.status,
				"duration_ms", float64(elapsed.Microseconds())/1000, "key", key, "user", user, "remote", r.RemoteAddr, "bytes", rw.bytes)
		}()
		h.serveReports(rw, r, st, &key)
	})
}

// viewer is who reads a report page.
type viewer struct {
	a    *account.Account
	sess *session // nil for a script that authenticated its request
	// user is the signed-in report user (nil for an API key's session or
	// a script); visible the keys of the accounts they may see.
	user    *users.User
	visible []string
}

// serveReports serves one request of the report pages; it sets *key to the
// API key the request presented, for the log line.
func (h *Handler) serveReports(w http.ResponseWriter, r *http.Request, st store.Reader, key *string) {
	sub := strings.TrimPrefix(r.URL.Path, "/reports")
	switch sub {
	case "/signin":
		h.signin(w, r, key)
		return
	case "/signout":
		h.signout(w, r, key)
		return
	case "/account":
		h.chooseAccount(w, r, key)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET")
		writeErrors(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: method not allowed; use GET", r.Method, r.URL.Path))
		return
	}
	v, ok := h.pageAuth(w, r, key)
	if !ok {
		return
	}
	if client := h.clientAddr(r); !allowed(v.a.Whitelist, client) {
		writeErrors(w, http.StatusForbidden, fmt.Sprintf("client address %s is not whitelisted for this API key", client))
		return
	}
	// The account's rate limit covers its report pages and downloads.
	if h.rateLimited(w, v.a) {
		return
	}
	name := strings.TrimPrefix(sub, "/")
	switch {
	case name == "":
		h.reportList(w, r, st, v)
	case r.URL.Query().Has("format"):
		h.reportDownload(w, r, st, v.a.Key, name)
	default:
		h.reportPage(w, r, st, v, name)
	}
}

// hasCredentials reports whether a request carries any of the API's
// authentication headers.
func hasCredentials(r *http.Request) bool {
	for _, k := range []string{auth.HeaderAuthorization, auth.HeaderXBasic, auth.HeaderDigestKey, auth.HeaderDigestSignature, auth.HeaderDigestTimestamp} {
		if _, ok := r.Header[k]; ok {
			return true
		}
	}
	return false
}

// wantsHTML reports whether the client is a browser (it accepts HTML).
func wantsHTML(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// pageAuth authenticates a request of the report pages: its session
// cookie, or the API's credentials. A browser without either is sent to
// the sign-in page; a script gets 401.
func (h *Handler) pageAuth(w http.ResponseWriter, r *http.Request, key *string) (viewer, bool) {
	now := h.cfg.Clock()
	if !hasCredentials(r) {
		notice := ""
		if c, err := r.Cookie(sessionCookie); err == nil {
			s, u, err := h.parseCookie(c.Value, now)
			if err == nil && u != nil {
				v, ok := h.userViewer(r, s, u)
				if !ok {
					pageError(w, r, v, http.StatusForbidden, fmt.Sprintf("user %s may see no account of this server", u.Name))
					return v, false
				}
				*key = v.a.Key
				logUser(r, u.Name)
				return v, true
			}
			if err == nil {
				*key = s.key
				return viewer{a: h.accounts[s.key], sess: &s}, true
			}
			h.log.Info("report pages: session refused", "reason", err.Error(), "remote", r.RemoteAddr)
			setCookie(w, r, sessionCookie, "", 0)
			notice = "expired"
		}
		if wantsHTML(r) {
			q := url.Values{"next": {r.URL.RequestURI()}}
			if notice != "" {
				q.Set("notice", notice)
			}
			http.Redirect(w, r, "/reports/signin?"+q.Encode(), http.StatusSeeOther)
			return viewer{}, false
		}
	}
	id, err := h.verifier.Authenticate(r, r.URL.Path, nil, now)
	if err != nil {
		// A failed sign-in is counted and logged (with the reason,
		// which the answer does not tell) like a failed API request.
		var ae *auth.Error
		if errors.As(err, &ae) {
			*key = ae.Key
			h.log.Warn("report pages: authentication failed", "reason", ae.Reason.String(), "key", ae.Key, "remote", r.RemoteAddr)
		}
		h.metrics.authFailures.add(1)
		w.Header().Set("WWW-Authenticate", `Basic realm="Numen reports: API key and secret", charset="UTF-8"`)
		writeErrors(w, http.StatusUnauthorized, err.Error()+"; a browser signs in at /reports/signin")
		return viewer{}, false
	}
	*key = id.Key
	a := h.accounts[id.Key]
	if len(a.Methods) > 0 && !contains(a.Methods, id.Method) {
		writeErrors(w, http.StatusForbidden, fmt.Sprintf("authentication method %s is not enabled for this API key", id.Method))
		return viewer{}, false
	}
	return viewer{a: a}, true
}

// localNext returns where to go after signing in: next if it is a page of
// the reports on this server, else the list (no open redirect).
func localNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.HasPrefix(next, "//") ||
		strings.Contains(next, "\\") || (u.Path != "/reports" && !strings.HasPrefix(u.Path, "/reports/")) ||
		u.Path == "/reports/signin" || u.Path == "/reports/signout" {
		return "/reports"
	}
	return u.RequestURI()
}

// signinForm is what the sign-in page shows: the user form when Users,
// the API key form when Secret.
type signinForm struct {
	Token, Next, Key, User, Error, Notice string
	Users, Secret                         bool
}

func (h *Handler) signin(w http.ResponseWriter, r *http.Request, key *string) {
	w.Header().Set("Cache-Control", "no-store")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		f := signinForm{Token: randomToken(), Next: localNext(r.URL.Query().Get("next")), Users: h.hasUsers(), Secret: h.secretSignin()}
		switch r.URL.Query().Get("notice") {
		case "expired":
			f.Notice = "Your session has ended; sign in again."
		case "signedout":
			f.Notice = "Signed out."
		}
		setCookie(w, r, signinCookie, f.Token, signinFormLifetime)
		renderPage(w, http.StatusOK, "signin", pageData{Title: "Sign in", Body: f})
		return
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, POST")
		writeErrors(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: method not allowed; use GET or POST", r.Method, r.URL.Path))
		return
	}
	now := h.cfg.Clock()
	client := h.clientAddr(r)
	fail := func(status int, f signinForm, reason string) {
		h.metrics.authFailures.add(1)
		h.metrics.signinFailures.add(1)
		h.signins.failed(client, now)
		h.log.Warn("report pages: sign-in failed", "reason", reason, "key", f.Key, "user", f.User, "remote", r.RemoteAddr)
		f.Token = randomToken()
		setCookie(w, r, signinCookie, f.Token, signinFormLifetime)
		renderPage(w, status, "signin", pageData{Title: "Sign in", Body: f})
	}
	if wait := h.signins.wait(client, now); wait > 0 {
		secs := max(1, int(math.Ceil(wait.Seconds())))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		h.log.Warn("report pages: sign-in refused, too many failures", "remote", r.RemoteAddr)
		renderPage(w, http.StatusTooManyRequests, "signin", pageData{Title: "Sign in", Body: signinForm{
			Token: "", Users: h.hasUsers(), Secret: h.secretSignin(), Error: fmt.Sprintf("Too many failed sign-ins from %s: try again in %d s.", client, secs)}})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		fail(http.StatusBadRequest, signinForm{Users: h.hasUsers(), Secret: h.secretSignin(), Error: "The form could not be read: " + err.Error()}, "unreadable form")
		return
	}
	f := signinForm{Key: r.PostForm.Get("key"), Next: localNext(r.PostForm.Get("next")), Users: h.hasUsers(), Secret: h.secretSignin()}
	_, byUser := r.PostForm["user"]
	if byUser {
		f.User, f.Key = r.PostForm.Get("user"), ""
	}
	*key = f.Key
	c, err := r.Cookie(signinCookie)
	if err != nil || !sameOrigin(r) || !tokensEqual(c.Value, r.PostForm.Get("csrf")) {
		f.Error = "This sign-in form has expired or came from another site; please sign in again."
		fail(http.StatusForbidden, f, "CSRF token missing or wrong")
		return
	}
	if byUser {
		h.userSignin(w, r, f, fail)
		return
	}
	if !f.Secret {
		f.Error = "Sign in with your user name and password: signing in with an API key is off on this server."
		fail(http.StatusUnauthorized, f, "API key sign-in is off (there are users)")
		return
	}
	a := h.accounts[f.Key]
	if a == nil || !secretMatches(a, r.PostForm.Get("secret")) {
		f.Error = "The API key or the secret is wrong."
		reason := "wrong secret"
		if a == nil {
			reason = "unknown API key"
		}
		fail(http.StatusUnauthorized, f, reason)
		return
	}
	if !allowed(a.Whitelist, client) {
		f.Error = fmt.Sprintf("Client address %s is not whitelisted for this API key.", client)
		fail(http.StatusForbidden, f, "address not whitelisted")
		return
	}
	if h.rateLimited(w, a) {
		return
	}
	_, value := newSession(a.Key, r.PostForm.Get("secret"), now)
	setCookie(w, r, sessionCookie, value, SessionLifetime)
	setCookie(w, r, signinCookie, "", 0)
	h.log.Info("report pages: signed in", "key", a.Key, "remote", r.RemoteAddr)
	http.Redirect(w, r, f.Next, http.StatusSeeOther)
}

// tokensEqual compares two form tokens in constant time; an empty one
// matches nothing.
func tokensEqual(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

func (h *Handler) signout(w http.ResponseWriter, r *http.Request, key *string) {
	c, ok := sessionForm(w, r, "sign-out button")
	if !ok {
		return
	}
	s, _, err := h.parseCookie(c, h.cfg.Clock())
	if err != nil {
		setCookie(w, r, sessionCookie, "", 0)
		http.Redirect(w, r, "/reports/signin", http.StatusSeeOther)
		return
	}
	*key = s.key
	if !sameOrigin(r) || !s.checkCSRF(r.PostForm.Get("csrf")) {
		h.log.Warn("report pages: sign-out refused, CSRF token missing or wrong", "key", s.key, "user", s.user, "remote", r.RemoteAddr)
		writeErrors(w, http.StatusForbidden, "sign-out: the form's token is missing or wrong; use the page's sign-out button")
		return
	}
	setCookie(w, r, sessionCookie, "", 0)
	setCookie(w, r, accountCookie, "", 0)
	h.log.Info("report pages: signed out", "key", s.key, "user", s.user, "remote", r.RemoteAddr)
	http.Redirect(w, r, "/reports/signin?notice=signedout", http.StatusSeeOther)
}

// reportRow is a report in the list.
type reportRow struct {
	Name, URL, Products, Month, Cost, First, Last string
	Count                                         int64
}

func reportRows(reports []store.Report) []reportRow {
	var rows []reportRow
	for _, rep := range reports {
		ps := make([]string, len(rep.Products))
		for i, p := range rep.Products {
			ps[i] = string(p)
		}
		rows = append(rows, reportRow{
			Name: rep.Name, URL: "/reports/" + url.PathEscape(rep.Name), Products: strings.Join(ps, ", "), Month: reportMonth(rep.Name),
			Count: rep.Count, Cost: rep.Cost.String(), First: rep.First.Format(time.DateTime), Last: rep.Last.Format(time.DateTime),
		})
	}
	return rows
}

// reportMonth is the month of a report: its name ends with it
// (engine.StorageName).
func reportMonth(name string) string {
	if len(name) >= 7 {
		if m := name[len(name)-7:]; m[4] == '-' && strings.Trim(m[:4]+m[5:], "0123456789") == "" {
			return m
		}
	}
	return ""
}

func (h *Handler) reportList(w http.ResponseWriter, r *http.Request, st store.Reader, v viewer) {
	reports, err := st.Reports(r.Context(), v.a.Key)
	if err != nil {
		h.log.Error("listing reports", "error", err)
		writeErrors(w, http.StatusServiceUnavailable, "service unavailable: the reports cannot be read")
		return
	}
	renderPage(w, http.StatusOK, "list", pageData{Title: "Reports", Viewer: v, Body: reportRows(reports)})
}

// noValue is the query value of "results without a value".
const noValue = "-"

// reportQuery reads a store.Query from a page's or the API's query
// parameters (see the package's report pages). Errors name the parameter.
func reportQuery(vals url.Values) (store.Query, error) {
	var q store.Query
	for _, f := range store.Fields() { // the query parameters of the fields' conditions
		v := vals.Get(string(f))
		switch v {
		case "":
			continue
		case noValue:
			v = ""
		default:
			if err := checkFieldValue(f, v); err != nil {
				return q, err
			}
		}
		q.Where = append(q.Where, store.Cond{Field: f, Value: v})
	}
	number, err := searchNumber(vals.Get("number"))
	if err != nil {
		return q, err
	}
	q.NumberPrefix = number
	if q.From, err = reportDay("from", vals.Get("from")); err != nil {
		return q, err
	}
	if q.To, err = reportDay("to", vals.Get("to")); err != nil {
		return q, err
	}
	if !q.From.IsZero() && !q.To.IsZero() && q.To.Before(q.From) {
		return q, fmt.Errorf("to: %s is before from %s: the range is empty", q.To.Format(time.DateOnly), q.From.Format(time.DateOnly))
	}
	if !q.To.IsZero() {
		q.To = q.To.AddDate(0, 0, 1) // the whole last day
	}
	switch s := vals.Get("sort"); s {
	case "", "time":
	case "number":
		q.Sort = store.SortNumber
	default:
		return q, fmt.Errorf("sort: %q: want time or number", s)
	}
	switch o := vals.Get("order"); o {
	case "":
		q.Desc = q.Sort == store.SortTime // newest first
	case "asc":
	case "desc":
		q.Desc = true
	default:
		return q, fmt.Errorf("order: %q: want asc or desc", o)
	}
	if err := q.Check(); err != nil {
		return q, err
	}
	return q, nil
}

// reportParamsBesideFields are the query parameters of GET
// /api/v2/reports/{name} other than its filters (store.Fields()).
var reportParamsBesideFields = [...]string{"format", "number", "from", "to", "sort", "order"}

// isReportParam reports whether name is a query parameter of GET
// /api/v2/reports/{name}: another is refused (reportParamList), so that a
// misspelt filter (contry=GB) is not a download of the whole report.
func isReportParam(name string) bool {
	return slices.Contains(reportParamsBesideFields[:], name) || slices.Contains(store.Fields(), store.Field(name))
}

// reportParamList names the query parameters of GET
// /api/v2/reports/{name}, for the message that refuses another.
func reportParamList() string {
	names := []string{reportParamsBesideFields[0]}
	for _, f := range store.Fields() {
		names = append(names, string(f))
	}
	return strings.Join(append(names, reportParamsBesideFields[1:]...), ", ")
}

// fieldValues are the values of the fields whose values the API fixes
// (its enumerations), or nil: a filter by another value would select
// nothing, which reads as an answer ("no such results") to a typing
// mistake, so it is refused naming the parameter. Country, network,
// invalid reason and route are open: a value without results selects
// none, correctly. (Functions, not package variables: the report pages
// build nothing when the program starts.)
func fieldValues(f store.Field) []string {
	switch f {
	case store.FieldProduct:
		return []string{"HLR", "MNP", "NT"}
	case store.FieldStatus:
		return []string{"COMPLETED", "REJECTED", "FAILED", "OK"}
	case store.FieldConnectivity:
		return []string{"CONNECTED", "ABSENT", "INVALID_MSISDN", "UNDETERMINED"}
	case store.FieldNumberType:
		var out []string
		for _, t := range numbering.Types() {
			out = append(out, t.String())
		}
		return out
	case store.FieldValid:
		return []string{"true", "false"}
	}
	return nil
}

// checkFieldValue checks the value of a filter by f (not "" nor noValue)
// against f's values, if f has a fixed set.
func checkFieldValue(f store.Field, v string) error {
	vs := fieldValues(f)
	if vs == nil || slices.Contains(vs, v) {
		return nil
	}
	return fmt.Errorf("%s: %q: want %s, or %s for results without one", f, shorten(v, 40), strings.Join(vs, ", "), noValue)
}

// reportDay reads the date of the query parameter name (from, to):
// YYYY-MM-DD, a day in UTC; "" is the zero time (no bound).
func reportDay(name, s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil || d.Year() < 2000 || d.Year() > 9998 {
		return time.Time{}, fmt.Errorf("%s: %q is not a date: want YYYY-MM-DD (a day in UTC, 2000 to 9998)", name, shorten(s, 40))
	}
	return d, nil
}

// searchNumber reads the number search as people type it: spaces,
// dashes, dots, slashes and brackets are dropped ("+49 151-23"), "00"
// stands for "+"; the rest must be digits after an optional "+" (a
// national number starting with one 0 is read by the report page with a
// country: nationalSearch). Errors name the parameter.
func searchNumber(s string) (string, error) {
	in := strings.TrimSpace(s)
	out := strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '.', '/', '(', ')', '\u00a0', '\t':
			return -1
		}
		return r
	}, in)
	if strings.HasPrefix(out, "00") {
		out = "+" + out[2:]
	}
	if p := strings.TrimPrefix(out, "+"); len(p) > 20 || strings.Trim(p, "0123456789") != "" || strings.Count(out, "+") > 1 {
		return "", fmt.Errorf("number: %q: want the start of a number, digits after an optional + (spaces, dashes and brackets are ignored)", shorten(in, 40))
	}
	return out, nil
}

// queryValues writes q back as query parameters (reportQuery's inverse).
func queryValues(q *store.Query) url.Values {
	vals := url.Values{}
	for _, c := range q.Where {
		v := c.Value
		if v == "" {
			v = noValue
		}
		vals.Set(string(c.Field), v)
	}
	if q.NumberPrefix != "" {
		vals.Set("number", q.NumberPrefix)
	}
	if !q.From.IsZero() {
		vals.Set("from", q.From.UTC().Format(time.DateOnly))
	}
	if !q.To.IsZero() {
		vals.Set("to", q.To.UTC().AddDate(0, 0, -1).Format(time.DateOnly))
	}
	if q.Sort == store.SortNumber {
		vals.Set("sort", "number")
		if q.Desc {
			vals.Set("order", "desc")
		}
	} else if !q.Desc {
		vals.Set("order", "asc")
	}
	return vals
}

func (h *Handler) reportDownload(w http.ResponseWriter, r *http.Request, st store.Reader, key, name string) {
	format, err := store.ParseFormat(r.URL.Query().Get("format"))
	if err != nil {
		writeErrors(w, http.StatusBadRequest, err.Error()) // "format \"xml\": want csv or json"
		return
	}
	q, err := h.pageQuery(r.URL.Query(), nil)
	if err != nil {
		writeErrors(w, http.StatusBadRequest, err.Error())
		return
	}
	h.download(w, r, st, key, name, &q, format)
}

// download streams the results of a report that q selects (the report
// pages' and the API's downloads).
func (h *Handler) download(w http.ResponseWriter, r *http.Request, st store.Reader, key, name string, q *store.Query, format store.Format) {
	filename := strings.Map(safeFileRune, name)
	if q.Filtered() {
		filename += "-filtered"
	}
	// Export writes nothing before it knows the report, so the headers
	// can wait for the first byte.
	dw := &downloadWriter{w: w, rc: http.NewResponseController(w), contentType: format.ContentType(),
		filename: filename + "." + strings.ToLower(string(format))}
	err := st.Export(r.Context(), key, name, q, format, dw)
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

// downloadWriter sets the download's headers before its first byte, and
// moves the connection's write deadline on while bytes flow, so that a
// download longer than the server's WriteTimeout is not cut (a client that
// stops reading is still cut after downloadStall).
type downloadWriter struct {
	w                     http.ResponseWriter
	rc                    *http.ResponseController
	contentType, filename string
	started               bool
	moved                 time.Time
}

const downloadStall = time.Minute

func (d *downloadWriter) Write(p []byte) (int, error) {
	if !d.started {
		d.started = true
		d.w.Header().Set("Content-Type", d.contentType)
		d.w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", d.filename))
		d.w.Header().Set("X-Content-Type-Options", "nosniff")
	}
	if now := time.Now(); now.Sub(d.moved) > time.Second {
		d.moved = now
		_ = d.rc.SetWriteDeadline(now.Add(downloadStall)) // a recorder in tests has none
	}
	return d.w.Write(p)
}

func safeFileRune(r rune) rune {
	if r == '/' || r == '\\' || r == '"' || r < 0x20 || r == 0x7f {
		return '_'
	}
	return r
}

// The reports over the API (documented in openapi.json), with the API's
// authentication:
//
//	GET /api/v2/reports                  the account's reports, as JSON
//	GET /api/v2/reports/{name}?QUERY     a download of the results QUERY selects
//	                                     (format=json, the default, or csv)
const (
	reportPrefix = "/reports/"
	reportPath   = "/reports/{name}"
)

// apiReportJSON is a report in GET /reports.
type apiReportJSON struct {
	Name     string   `json:"name"`
	Products []string `json:"products"`
	Month    string   `json:"month"`
	Lookups  int64    `json:"lookups"`
	Cost     string   `json:"cost"`
	First    string   `json:"first_result"`
	Last     string   `json:"last_result"`
	CSV      string   `json:"csv_url"`
	JSON     string   `json:"json_url"`
}

func (h *Handler) apiReports(w http.ResponseWriter, r *request) {
	if h.cfg.Store == nil {
		writeErrors(w, http.StatusNotFound, "this server stores no reports")
		return
	}
	reports, err := h.cfg.Store.Reports(r.Context(), r.account.Key)
	if err != nil {
		h.log.Error("listing reports", "error", err)
		writeErrors(w, http.StatusServiceUnavailable, "service unavailable: the reports cannot be read")
		return
	}
	out := struct {
		Reports []apiReportJSON `json:"reports"`
	}{Reports: []apiReportJSON{}}
	for _, rep := range reports {
		ps := make([]string, len(rep.Products))
		for i, p := range rep.Products {
			ps[i] = string(p)
		}
		u := apiv2.Base + "/reports/" + url.PathEscape(rep.Name)
		out.Reports = append(out.Reports, apiReportJSON{
			Name: rep.Name, Products: ps, Month: reportMonth(rep.Name), Lookups: rep.Count, Cost: rep.Cost.String(),
			First: rep.First.Format("2006-01-02 15:04:05.000-0700"), Last: rep.Last.Format("2006-01-02 15:04:05.000-0700"),
			CSV: u + "?format=csv", JSON: u + "?format=json",
		})
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) apiReport(w http.ResponseWriter, r *request) {
	if h.cfg.Store == nil {
		writeErrors(w, http.StatusNotFound, "this server stores no reports")
		return
	}
	rel := strings.TrimPrefix(r.URL.Path, apiv2.Base)
	name := rel[len(reportPrefix):]
	vals := r.URL.Query()
	format := store.JSON
	if f := vals.Get("format"); f != "" {
		var err error
		if format, err = store.ParseFormat(f); err != nil {
			writeErrors(w, http.StatusBadRequest, err.Error()) // "format \"xml\": want csv or json"
			return
		}
	}
	for k := range vals {
		if !isReportParam(k) {
			writeErrors(w, http.StatusBadRequest, fmt.Sprintf("%s: unknown parameter; a report download takes %s", shorten(k, 40), reportParamList()))
			return
		}
	}
	q, err := h.pageQuery(vals, nil)
	if err != nil {
		writeErrors(w, http.StatusBadRequest, err.Error())
		return
	}
	// The download's own context: a long download is not cut at the
	// request timeout (downloadWriter keeps the connection's deadline).
	h.download(w, r.Request, h.cfg.Store, r.account.Key, name, &q, format)
}
