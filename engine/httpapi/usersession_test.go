package httpapi

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/users"
)

const (
	otherKey    = "other-key"
	otherSecret = "other-secret"
)

// cheapKDF are argon2id parameters fast enough for tests (never for real
// passwords).
var cheapKDF = users.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func testUser(t *testing.T, name, password string, role users.Role, accounts ...string) users.User {
	t.Helper()
	h, err := users.HashPassword(password, cheapKDF)
	require.NoError(t, err)
	return users.User{Name: name, PasswordHash: h, Role: role, Accounts: accounts}
}

// usersServer is storedServer with a second account (otherKey, whose
// only report is OTHER-2026-11) and these users: root (admin), ana
// (viewer of otherKey), bo (viewer of key), multi (viewer of both); each
// one's password is their name + "-pw".
func usersServer(t *testing.T, mutate func(cfg *Config)) *server {
	t.Helper()
	s := storedServer(t, func(cfg *Config, a *account.Account) {
		prof, err := cfg.Engine.NewProfile(engine.ProfileOptions{Key: otherKey})
		require.NoError(t, err)
		cfg.Accounts = append(cfg.Accounts, &account.Account{Key: otherKey, Secrets: []string{otherSecret}, Profile: prof})
		known := func(k string) bool { return k == key || k == otherKey }
		dir, err := users.NewDirectory([]users.User{
			testUser(t, "root", "root-pw", users.Admin),
			testUser(t, "ana", "ana-pw", users.Viewer, otherKey),
			testUser(t, "bo", "bo-pw", users.Viewer, key),
			testUser(t, "multi", "multi-pw", users.Viewer, key, otherKey),
		}, "", known)
		require.NoError(t, err)
		cfg.Users = dir
		if mutate != nil {
			mutate(cfg)
		}
	})
	status, _, body := s.do(t, "POST", "/api/v2/nt-lookup", `{"number":"+4915123456789","storage":"OTHER"}`,
		func(t *testing.T, s *server, req *http.Request, body []byte) {
			require.NoError(t, auth.SignRequest(req, otherKey, otherSecret, time.Unix(s.now.Load(), 0), body))
		})
	require.Equal(t, 200, status, "%s", body)
	return s
}

// userSignIn signs the client in as a user.
func (b *client) userSignIn(name, password, next string) (*http.Response, string) {
	b.t.Helper()
	resp, page := b.send("GET", "/reports/signin?next="+url.QueryEscape(next), nil)
	require.Equal(b.t, http.StatusOK, resp.StatusCode, page)
	return b.send("POST", "/reports/signin", url.Values{"user": {name}, "password": {password}, "csrf": {formToken(b.t, page)}, "next": {next}})
}

func TestUserSignInAndOut(t *testing.T) {
	t.Parallel()
	s := usersServer(t, nil)
	b := newClient(t, s)

	// With users, the form asks for a user name, not an API key.
	resp, page := b.send("GET", "/reports/signin", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, page, `name="user"`)
	require.Contains(t, page, `name="password"`)
	require.NotContains(t, page, `name="secret"`)

	// An API key and secret are refused, even right ones.
	resp, page = b.signIn(key, secret, "/reports")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Contains(t, page, "signing in with an API key is off")
	require.Nil(t, cookieNamed(resp, sessionCookie))

	// A wrong password and an unknown user get one answer.
	resp, wrong := b.userSignIn("bo", "nope", "/reports")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Contains(t, wrong, "The user name or the password is wrong.")
	resp, unknown := b.userSignIn("nobody", "bo-pw", "/reports")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	same := func(page string) string {
		page = hiddenField.ReplaceAllString(page, `name="csrf" value="TOKEN"`)
		return strings.Replace(strings.Replace(page, `value="bo"`, `value="NAME"`, 1), `value="nobody"`, `value="NAME"`, 1)
	}
	require.Equal(t, same(wrong), same(unknown))

	resp, _ = b.userSignIn("bo", "bo-pw", "/reports/SYNC-API-NT-2026-11")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, "/reports/SYNC-API-NT-2026-11", resp.Header.Get("Location"))
	c := cookieNamed(resp, sessionCookie)
	require.NotNil(t, c)
	require.True(t, strings.HasPrefix(c.Value, "u1."), c.Value)
	require.True(t, c.HttpOnly)
	require.Equal(t, http.SameSiteStrictMode, c.SameSite)

	resp, page = b.send("GET", "/reports/SYNC-API-NT-2026-11", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, page)
	require.Contains(t, page, `<span class="who">bo · API key <b>test-key</b></span>`)
	require.NotContains(t, page, secret, "a user never sees the account's secrets")
	resp, csv := b.send("GET", "/reports/SYNC-API-NT-2026-11?format=csv", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, csv, "4915123456789")
	// The download's log line names the user as well as the account.
	require.Contains(t, s.logs.String(), `"path":"/reports/SYNC-API-NT-2026-11","status":200,`)
	require.Regexp(t, `"path":"/reports/SYNC-API-NT-2026-11","status":200,[^\n]*"key":"test-key","user":"bo"`, s.logs.String())

	// Sign-out needs the session's form token.
	resp, _ = b.send("POST", "/reports/signout", url.Values{"csrf": {"wrong"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp, _ = b.send("POST", "/reports/signout", url.Values{"csrf": {formToken(t, page)}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	resp, _ = b.send("GET", "/reports", nil)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.True(t, strings.HasPrefix(resp.Header.Get("Location"), "/reports/signin"))
}

func TestUserSignInCSRF(t *testing.T) {
	t.Parallel()
	s := usersServer(t, nil)
	b := newClient(t, s)
	// No form token (and no sign-in cookie): refused before the password
	// is looked at.
	resp, page := b.send("POST", "/reports/signin", url.Values{"user": {"bo"}, "password": {"bo-pw"}, "next": {"/reports"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Contains(t, page, "came from another site")
	require.Nil(t, cookieNamed(resp, sessionCookie))

	// A right token sent from another origin.
	resp, page = b.send("GET", "/reports/signin", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b.hdr.Set("Origin", "http://evil.example")
	resp, _ = b.send("POST", "/reports/signin", url.Values{"user": {"bo"}, "password": {"bo-pw"}, "csrf": {formToken(t, page)}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Nil(t, cookieNamed(resp, sessionCookie))
}

// TestViewerScoping: a viewer sees the accounts listed for them and
// nothing of the others, whose reports answer as reports that do not
// exist.
func TestViewerScoping(t *testing.T) {
	t.Parallel()
	s := usersServer(t, nil)
	b := newClient(t, s)
	resp, _ := b.userSignIn("ana", "ana-pw", "/reports")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)

	resp, page := b.send("GET", "/reports", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, page, "OTHER-2026-11")
	require.NotContains(t, page, "SYNC-API-NT-2026-11")
	require.NotContains(t, page, key, "nor the other account's key")
	require.NotContains(t, page, otherSecret)

	resp, _ = b.send("GET", "/reports/OTHER-2026-11?format=csv", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)

	// Another account's report, page and download, answers as a report
	// that exists nowhere.
	for _, q := range []string{"", "?format=csv", "?format=json"} {
		resp, theirs := b.send("GET", "/reports/SYNC-API-NT-2026-11"+q, nil)
		require.Equal(t, http.StatusNotFound, resp.StatusCode, q)
		_, none := b.send("GET", "/reports/NOWHERE-2026-11"+q, nil)
		require.Equal(t, strings.ReplaceAll(none, "NOWHERE", "SYNC-API-NT"), theirs, q)
	}

	// The account cookie cannot name another account ...
	u, _ := url.Parse(s.URL + "/reports")
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: accountCookie, Value: key, Path: "/reports"}})
	resp, page = b.send("GET", "/reports", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, page, "OTHER-2026-11")
	require.NotContains(t, page, "SYNC-API-NT-2026-11")
	resp, _ = b.send("GET", "/reports/SYNC-API-NT-2026-11?format=csv", nil)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	// ... nor the account form, which answers an account that exists as
	// one that does not.
	resp, theirs := b.send("POST", "/reports/account", url.Values{"account": {key}, "csrf": {formToken(t, page)}})
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	_, none := b.send("POST", "/reports/account", url.Values{"account": {"no-such-key"}, "csrf": {formToken(t, page)}})
	require.Equal(t, none, theirs)
	require.NotContains(t, theirs, key)
}

func TestAdminSeesEveryAccount(t *testing.T) {
	t.Parallel()
	s := usersServer(t, nil)
	for _, name := range []string{"root", "multi"} {
		b := newClient(t, s)
		resp, _ := b.userSignIn(name, name+"-pw", "/reports")
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		// The first account in key order is shown first: other-key.
		resp, page := b.send("GET", "/reports", nil)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, page, `<select name="account" aria-label="API key"><option selected>other-key</option><option>test-key</option></select>`)
		require.Contains(t, page, "OTHER-2026-11")

		// The account form needs the session's token.
		resp, _ = b.send("POST", "/reports/account", url.Values{"account": {key}, "csrf": {"x"}})
		require.Equal(t, http.StatusForbidden, resp.StatusCode)
		resp, _ = b.send("POST", "/reports/account", url.Values{"account": {key}, "csrf": {formToken(t, page)}})
		require.Equal(t, http.StatusSeeOther, resp.StatusCode, name)
		resp, page = b.send("GET", "/reports", nil)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, page, "SYNC-API-NT-2026-11")
		require.NotContains(t, page, "OTHER-2026-11")
		require.NotContains(t, page, secret)
		resp, _ = b.send("GET", "/reports/SYNC-API-NT-2026-11?format=json", nil)
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
}

// TestKeySessionsWithUsers: with users, an API key's session is refused
// unless SecretSignin keeps that way of signing in; scripts keep the
// API's authentication either way.
func TestKeySessionsWithUsers(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	_, keySession := newSession(key, secret, now)
	for _, on := range []bool{false, true} {
		s := usersServer(t, func(cfg *Config) { cfg.SecretSignin = on })
		b := newClient(t, s)
		u, _ := url.Parse(s.URL + "/reports")
		b.c.Jar.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: keySession, Path: "/reports"}})
		resp, _ := b.send("GET", "/reports", nil)
		if on {
			require.Equal(t, http.StatusOK, resp.StatusCode)
			_, page := b.send("GET", "/reports/signin", nil)
			require.Contains(t, page, `name="user"`)
			require.Contains(t, page, `name="secret"`)
			resp, _ = newClient(t, s).signIn(key, secret, "/reports")
			require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		} else {
			require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		}
		status, _, body := s.do(t, "GET", "/reports", "", basic)
		require.Equal(t, http.StatusOK, status, "%s", body)
	}
}

// TestUserSessionEnds: a session ends with a new password, the user's
// removal, its expiry; a cookie that was changed is refused.
func TestUserSessionEnds(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ana := testUser(t, "ana", "pw", users.Viewer, key)
	dir := func(us ...users.User) *users.Directory {
		d, err := users.NewDirectory(us, "", nil)
		require.NoError(t, err)
		return d
	}
	s, value := newUserSession(&ana, now)
	got, u, err := parseUserSession(value, dir(ana), now.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, "ana", u.Name)
	require.Equal(t, s.csrf(), got.csrf())

	_, _, err = parseUserSession(value, dir(ana), now.Add(SessionLifetime))
	require.ErrorIs(t, err, errSessionExpired)
	_, _, err = parseUserSession(value, dir(testUser(t, "ana", "pw", users.Viewer, key)), now)
	require.ErrorIs(t, err, errSessionUserMAC, "a new hash (the same password, a new salt) ends it")
	_, _, err = parseUserSession(value, dir(testUser(t, "bo", "pw", users.Viewer, key)), now)
	require.ErrorIs(t, err, errSessionUnknownUser)

	parts := strings.Split(value, ".")
	for name, v := range map[string]string{
		"another name": join(parts[0], "Ym8", parts[2], parts[3], parts[4]),
		"later expiry": join(parts[0], parts[1], "9999999999", parts[3], parts[4]),
		"a CR inside":  join(parts[0], parts[1], parts[2], parts[3], parts[4][:9]+"\r"+parts[4][9:]),
		"v1 kind":      join("v1", parts[1], parts[2], parts[3], parts[4]),
		"four parts":   join(parts[0], parts[1], parts[2], parts[3]),
	} {
		_, _, err := parseUserSession(v, dir(ana), now)
		require.Error(t, err, name)
	}
}

func FuzzParseUserSession(f *testing.F) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	ana := users.User{Name: "ana", Role: users.Admin, PasswordHash: "$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U"}
	d, err := users.NewDirectory([]users.User{ana}, "", nil)
	if err != nil {
		f.Fatal(err)
	}
	_, good := signUserSession(&ana, now, "nonce")
	f.Add(good)
	f.Add("u1.YW5h.1.n.x")
	f.Fuzz(func(t *testing.T, v string) {
		s, u, err := parseUserSession(v, d, now)
		if err != nil {
			return
		}
		// Accepted: it is the one cookie this code signs for it.
		_, again := signUserSession(&u, s.expires.Add(-SessionLifetime), s.nonce)
		if again != v {
			t.Fatalf("accepted %q, which signs as %q", v, again)
		}
	})
}

func join(parts ...string) string { return strings.Join(parts, ".") }

// TestUserHeldToAccountLimits: a user reading an account's reports is
// held to its whitelist, as the account's own sign-in is.
func TestUserHeldToAccountLimits(t *testing.T) {
	t.Parallel()
	s := usersServer(t, nil)
	// After its lookups: from now on the account takes none from here.
	s.h.accounts[key].Whitelist = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}
	b := newClient(t, s)
	resp, _ := b.userSignIn("bo", "bo-pw", "/reports")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	resp, page := b.send("GET", "/reports/SYNC-API-NT-2026-11?format=csv", nil)
	require.Equal(t, http.StatusForbidden, resp.StatusCode, page)
	require.Contains(t, page, "not whitelisted")
	// ana's account has no whitelist.
	b = newClient(t, s)
	resp, _ = b.userSignIn("ana", "ana-pw", "/reports")
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	resp, _ = b.send("GET", "/reports/OTHER-2026-11?format=csv", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
}
