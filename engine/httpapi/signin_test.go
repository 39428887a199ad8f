package httpapi

import (
	"encoding/csv"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/store/sqlitestore"
)

// client is a client that keeps cookies, asks for HTML and does not
// follow redirects (the test looks at each).
type client struct {
	t   *testing.T
	s   *server
	c   *http.Client
	hdr http.Header // headers added to every request
}

func newClient(t *testing.T, s *server) *client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &client{t: t, s: s, hdr: http.Header{}, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

func (b *client) send(method, path string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.s.URL+path, body)
	require.NoError(b.t, err)
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range b.hdr {
		req.Header[k] = v
	}
	resp, err := b.c.Do(req)
	require.NoError(b.t, err)
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	require.NoError(b.t, err)
	return resp, string(page)
}

var hiddenField = regexp.MustCompile(`name="csrf" value="([^"]*)"`)

// formToken returns the CSRF token of the page's form.
func formToken(t *testing.T, page string) string {
	t.Helper()
	m := hiddenField.FindStringSubmatch(page)
	require.NotNil(t, m, "no csrf field in %s", page)
	return m[1]
}

// signIn signs the client in with key and secret and returns the answer
// to the form.
func (b *client) signIn(key, secret, next string) (*http.Response, string) {
	b.t.Helper()
	resp, page := b.send("GET", "/reports/signin?next="+url.QueryEscape(next), nil)
	require.Equal(b.t, http.StatusOK, resp.StatusCode, page)
	return b.send("POST", "/reports/signin", url.Values{"key": {key}, "secret": {secret}, "csrf": {formToken(b.t, page)}, "next": {next}})
}

func cookieNamed(resp *http.Response, name string) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// storedServer is a server with a SQLite store and NT results of several
// countries for key.
func storedServer(t *testing.T, mutate func(cfg *Config, a *account.Account)) *server {
	st, err := sqlitestore.Open(t.Context(), t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	s := newServer(t, func(cfg *Config, a *account.Account) {
		cfg.Store = st
		if mutate != nil {
			mutate(cfg, a)
		}
	})
	s.sinkTo.Store(engine.Sink(st))
	for _, n := range []string{"+4915123456789", "+4915223456789", "+442079460000", "+447700900123", "+33612345678", "<img src=x onerror=alert(1)>", "=HYPERLINK(\"http://evil.example/\",\"click\")"} {
		body, _ := json.Marshal(map[string]string{"number": n})
		status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", string(body), digest(secret, 0))
		require.Equal(t, 200, status, "%s", b)
	}
	return s
}

func TestSignInSessionAndSignOut(t *testing.T) {
	t.Parallel()
	s := storedServer(t, nil)
	b := newClient(t, s)

	// Without a session, a client is sent to the sign-in page, which
	// says what to enter; a script still gets 401.
	resp, _ := b.send("GET", "/reports/SYNC-API-NT-2026-11?country=DE", nil)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/reports/signin?next="+url.QueryEscape("/reports/SYNC-API-NT-2026-11?country=DE"), resp.Header.Get("Location"))
	status, _, _ := s.do(t, "GET", "/reports", "", noAuth)
	require.Equal(t, http.StatusUnauthorized, status)

	resp, page := b.send("GET", "/reports/signin", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, page, "API key")
	require.Contains(t, page, `type="password"`)
	require.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
	require.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")
	c := cookieNamed(resp, signinCookie)
	require.NotNil(t, c)
	require.True(t, c.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, c.SameSite)
	require.Equal(t, formToken(t, page), c.Value, "double-submit token")

	// A wrong secret: 401, the form again, logged and counted.
	resp, page = b.signIn(key, "not-the-secret", "/reports")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Contains(t, page, "The API key or the secret is wrong.")
	require.Nil(t, cookieNamed(resp, sessionCookie))
	require.Contains(t, s.logs.String(), `"msg":"report pages: sign-in failed","reason":"wrong secret","key":"test-key"`)
	resp, page = b.signIn("no-such-key", secret, "/reports")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Contains(t, page, "The API key or the secret is wrong.", "the same answer: the page does not tell which keys exist")
	_, _, metrics := s.do(t, "GET", "/metrics", "", noAuth)
	require.Contains(t, string(metrics), "numen_report_signin_failures_total 2\n")
	require.Contains(t, string(metrics), "numen_auth_failures_total 3\n", "and the script's 401")

	// A form without its token (another site's, or an old one): 403.
	resp, _ = b.send("POST", "/reports/signin", url.Values{"key": {key}, "secret": {secret}, "csrf": {"forged"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Nil(t, cookieNamed(resp, sessionCookie))
	_, page = b.send("GET", "/reports/signin", nil)
	b.hdr.Set("Origin", "http://evil.example")
	resp, _ = b.send("POST", "/reports/signin", url.Values{"key": {key}, "secret": {secret}, "csrf": {formToken(t, page)}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	b.hdr.Del("Origin")

	// The right key and secret: a session cookie, and back to the page
	// asked for.
	next := "/reports/SYNC-API-NT-2026-11?country=DE"
	resp, _ = b.signIn(key, secret2, next)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, next, resp.Header.Get("Location"))
	c = cookieNamed(resp, sessionCookie)
	require.NotNil(t, c)
	require.True(t, c.HttpOnly)
	require.False(t, c.Secure, "plain HTTP (Secure over TLS)")
	require.Equal(t, http.SameSiteStrictMode, c.SameSite)
	require.Equal(t, "/reports", c.Path)
	require.Equal(t, int(SessionLifetime.Seconds()), c.MaxAge)

	resp, page = b.send("GET", next, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, page)
	require.Contains(t, text(page), "+4915123456789")
	require.NotContains(t, text(page), "+442079460000", "filtered out")
	require.Contains(t, page, "2 of 7 results")
	require.Contains(t, page, "<svg", "charts")

	// An open redirect is not possible through next.
	b2 := newClient(t, s)
	resp, _ = b2.signIn(key, secret, "https://evil.example/")
	require.Equal(t, "/reports", resp.Header.Get("Location"))

	// Sign-out needs the session's form token.
	resp, page = b.send("GET", "/reports", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	token := formToken(t, page)
	resp, _ = b.send("POST", "/reports/signout", url.Values{"csrf": {"forged"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = b.send("GET", "/reports/signout", nil)
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	resp, _ = b.send("POST", "/reports/signout", url.Values{"csrf": {token}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/reports/signin?notice=signedout", resp.Header.Get("Location"))
	c = cookieNamed(resp, sessionCookie)
	require.NotNil(t, c)
	require.Negative(t, c.MaxAge, "deleted")
	resp, _ = b.send("GET", "/reports", nil)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, "signed out")

	// A session ends at its expiry, whatever the client keeps.
	b3 := newClient(t, s)
	b3.signIn(key, secret, "/reports")
	resp, _ = b3.send("GET", "/reports", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	s.now.Add(int64(SessionLifetime.Seconds()))
	resp, _ = b3.send("GET", "/reports", nil)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Location"), "notice=expired")
}

func TestSignInRateLimitAndWhitelist(t *testing.T) {
	t.Parallel()
	s := storedServer(t, nil)
	b := newClient(t, s)
	for range signinBurst {
		resp, _ := b.signIn(key, "wrong", "/reports")
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	}
	resp, page := b.signIn(key, secret, "/reports")
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, "even the right secret waits")
	require.NotEmpty(t, resp.Header.Get("Retry-After"))
	require.Contains(t, page, "Too many failed sign-ins")
	s.now.Add(int64(signinEvery.Seconds()))
	resp, _ = b.signIn(key, secret, "/reports")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)

	// The account's whitelist applies to signing in and to every page.
	fenced := newServer(t, func(cfg *Config, a *account.Account) {
		cfg.Store = s.h.cfg.Store
		a.Whitelist = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	})
	resp, page = newClient(t, fenced).signIn(key, secret, "/reports")
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Contains(t, page, "is not whitelisted")
	require.Nil(t, cookieNamed(resp, sessionCookie))
}

func TestReportPageTableFiltersAndDownloads(t *testing.T) {
	t.Parallel()
	s := storedServer(t, nil)
	b := newClient(t, s)
	b.signIn(key, secret, "/reports")

	resp, page := b.send("GET", "/reports", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	for _, want := range []string{"SYNC-API-NT-2026-11", "<td>NT</td>", "<td>2026-11</td>", ">7<", "?format=csv", "?format=json"} {
		require.Contains(t, page, want)
	}

	resp, page = b.send("GET", "/reports/SYNC-API-NT-2026-11", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	// One column per attribute, not JSON; hostile text escaped.
	for _, want := range []string{"<th>number_type</th>", "<th>original_country_code</th>", "<td>MOBILE</td>", "Number types", "Countries", "Cost per day",
		"&lt;img src=x onerror=alert(1)&gt;", `<select name="country">`, `value="DE"`} {
		require.Contains(t, page, want)
	}
	require.NotContains(t, page, "<img src=x")
	require.NotContains(t, page, `{"id":`, "no raw JSON")

	// Sorted by number, ascending: +33 first.
	_, page = b.send("GET", "/reports/SYNC-API-NT-2026-11?sort=number", nil)
	page = text(page)
	require.Positive(t, strings.Index(page, "+33612345678"))
	require.Less(t, strings.Index(page, "+33612345678"), strings.Index(page, "+4915123456789"))
	_, page = b.send("GET", "/reports/SYNC-API-NT-2026-11?sort=number&order=desc", nil)
	page = text(page)
	require.Greater(t, strings.Index(page, "+33612345678"), strings.Index(page, "+4915123456789"))
	// A number search.
	_, page = b.send("GET", "/reports/SYNC-API-NT-2026-11?number=%2B44", nil)
	require.Contains(t, text(page), "+447700900123")
	require.NotContains(t, text(page), "+4915123456789")
	// A bad query names its problem.
	resp, page = b.send("GET", "/reports/SYNC-API-NT-2026-11?sort=cost", nil)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, page, "sort")

	// The filtered view's download: its rows only, neutralised.
	resp, body := b.send("GET", "/reports/SYNC-API-NT-2026-11?number=%2B44&format=csv", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, `attachment; filename="SYNC-API-NT-2026-11-filtered.csv"`, resp.Header.Get("Content-Disposition"))
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 3, "header and the two +44 results")
	for _, r := range rows[1:] {
		require.Equal(t, "'+44", r[1][:4], "neutralised: %v", r)
	}
	resp, body = b.send("GET", "/reports/SYNC-API-NT-2026-11?format=csv", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, `"'=HYPERLINK(""http://evil.example/"",""click"")"`)
	require.Contains(t, body, "\r\n")
}

// An account sees only its own reports: not by name, not by a tampered
// URL, not through the API.
func TestReportIsolation(t *testing.T) {
	t.Parallel()
	const otherKey, otherSecret = "other-key", "other-secret-0123456789"
	s := storedServer(t, func(cfg *Config, a *account.Account) {
		acct, err := cfg.Engine.NewProfile(engine.ProfileOptions{Key: otherKey})
		require.NoError(t, err)
		cfg.Accounts = append(cfg.Accounts, &account.Account{Key: otherKey, Secrets: []string{otherSecret}, Profile: acct})
	})
	b := newClient(t, s)
	resp, _ := b.signIn(otherKey, otherSecret, "/reports")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)

	resp, page := b.send("GET", "/reports", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotContains(t, page, `href="/reports/SYNC-API-NT-2026-11"`)
	require.Contains(t, page, "No results yet")
	for _, p := range []string{
		"/reports/SYNC-API-NT-2026-11",
		"/reports/SYNC-API-NT-2026-11?format=csv",
		"/reports/SYNC-API-NT-2026-11?format=json&country=DE",
		"/reports/sync-api-nt-2026-11",
		"/reports/SYNC-API-NT-2026-11%2F",
		"/reports/%53YNC-API-NT-2026-11",
		"/reports/x/../SYNC-API-NT-2026-11",
		"/reports/" + url.PathEscape(key) + "/SYNC-API-NT-2026-11",
	} {
		resp, page = b.send("GET", p, nil)
		require.NotEqual(t, http.StatusOK, resp.StatusCode, "%s: %s", p, page)
		require.NotContains(t, text(page), "+4915123456789", p)
		if resp.StatusCode == http.StatusMovedPermanently {
			// The mux cleans ../: the clean path is the report's, and
			// the other account is refused there.
			resp, page = b.send("GET", resp.Header.Get("Location"), nil)
			require.Equal(t, http.StatusNotFound, resp.StatusCode, p)
			require.NotContains(t, text(page), "+4915123456789", p)
		}
	}
	// A session cookie of one account with another's key in it does not
	// verify.
	for _, c := range b.c.Jar.Cookies(mustURL(t, s.URL+"/reports")) {
		if c.Name == sessionCookie {
			parts := strings.Split(c.Value, ".")
			parts[1] = b64([]byte(key))
			b.c.Jar.SetCookies(mustURL(t, s.URL+"/reports"), []*http.Cookie{{Name: sessionCookie, Value: strings.Join(parts, "."), Path: "/reports"}})
		}
	}
	resp, _ = b.send("GET", "/reports/SYNC-API-NT-2026-11", nil)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)

	// Through the API: the other account's digest finds nothing.
	other := func(t *testing.T, s *server, req *http.Request, body []byte) {
		req.Header.Set("Authorization", "Basic "+b64std(otherKey+":"+otherSecret))
	}
	status, _, body := s.do(t, "GET", "/api/v2/reports/SYNC-API-NT-2026-11?format=csv", "", other)
	require.Equal(t, http.StatusNotFound, status, "%s", body)
	status, _, body = s.do(t, "GET", "/api/v2/reports", "", other)
	require.Equal(t, http.StatusOK, status)
	require.JSONEq(t, `{"reports": []}`, string(body))
	status, _, body = s.do(t, "GET", "/api/v2/reports/SYNC-API-NT-2026-11?format=csv", "", digest(secret, 0))
	require.Equal(t, http.StatusOK, status, "%s", body)
	require.Contains(t, string(body), "'+4915123456789")
}

// text is a page's text as a client shows it (html/template writes "+"
// as "&#43;").
func text(page string) string { return html.UnescapeString(page) }

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}

// Over TLS the cookies are Secure.
func TestSessionCookieSecureOverTLS(t *testing.T) {
	t.Parallel()
	s := storedServer(t, nil)
	ts := httptest.NewTLSServer(s.h)
	t.Cleanup(ts.Close)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c := ts.Client()
	c.Jar = jar
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Get(ts.URL + "/reports/signin")
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.True(t, cookieNamed(resp, signinCookie).Secure)
	resp, err = c.PostForm(ts.URL+"/reports/signin", url.Values{"key": {key}, "secret": {secret}, "csrf": {formToken(t, string(page))}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	sc := cookieNamed(resp, sessionCookie)
	require.NotNil(t, sc)
	require.True(t, sc.Secure)
	require.True(t, sc.HttpOnly)
}
