package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/numenhq/numen/engine/users"
)

// Sessions of report users (engine/users).
//
// A user signs in on /reports/signin with their name and password and
// gets a session cookie of the same shape as an API key's (session.go):
//
//	numen_session = "u1" . base64url(name) . expiry (Unix seconds) . nonce . base64url(mac)
//
// where mac is HMAC-SHA256 keyed with HMAC-SHA256(password hash, "numen
// reports user session v1"): any node with the same users verifies it;
// a new password (a new hash, with a new salt) or removing the user ends
// their sessions. The cookie carries the name only: the user's role and
// accounts are read on every request, so a change takes effect at once.
// Whoever can read the users' hashes can make sessions; the users file is
// readable by its owner only, like the config that holds the API
// secrets, which are worth more.
//
// A user who may see several accounts sees one at a time: the cookie
// numen_account names it (set by POST /reports/account, a form with the
// session's CSRF token); without it, or naming an account the user may
// not see, or one that does not exist, the first of theirs (in the order
// of the keys) is shown. A viewer can name no other account: whatever the
// cookie says, the pages and downloads are those of an account the user
// may see, and a report of another account is "no report" (404), as one
// that does not exist.
//
// Signing in with an API key and secret is refused when users exist,
// unless Config.SecretSignin allows it; its sessions are refused too.

const (
	accountCookie  = "numen_account"
	userCookieKind = "u1"
)

// userSessionKeyOf derives the key that signs a user's sessions from
// their password hash.
func userSessionKeyOf(passwordHash string) []byte {
	m := hmac.New(sha256.New, []byte(passwordHash))
	m.Write([]byte("numen reports user session v1"))
	return m.Sum(nil)
}

// newUserSession makes a session for u from now.
func newUserSession(u *users.User, now time.Time) (session, string) {
	return signUserSession(u, now, randomToken())
}

func signUserSession(u *users.User, now time.Time, nonce string) (session, string) {
	s := session{user: u.Name, expires: now.Add(SessionLifetime).Truncate(time.Second), nonce: nonce, mk: userSessionKeyOf(u.PasswordHash)}
	payload := []string{userCookieKind, base64.RawURLEncoding.EncodeToString([]byte(u.Name)), strconv.FormatInt(s.expires.Unix(), 10), s.nonce}
	mac := macOf(s.mk, payload...)
	return s, strings.Join(payload, ".") + "." + base64.RawURLEncoding.EncodeToString(mac)
}

var (
	errSessionUnknownUser = errors.New("session of an unknown user")
	errSessionUserMAC     = errors.New("session signature does not match the user's password hash")
	errSessionKeySignin   = errors.New("session of an API key, and signing in with API keys is off while there are users")
)

// parseUserSession verifies a user's session cookie against the
// directory.
func parseUserSession(value string, dir *users.Directory, now time.Time) (session, users.User, error) {
	if len(value) > 1024 || strings.IndexFunc(value, notCookieByte) >= 0 {
		return session{}, users.User{}, errSessionMalformed
	}
	parts := strings.Split(value, ".")
	if len(parts) != 5 || parts[0] != userCookieKind {
		return session{}, users.User{}, errSessionMalformed
	}
	name, err := base64.RawURLEncoding.Strict().DecodeString(parts[1])
	if err != nil {
		return session{}, users.User{}, errSessionMalformed
	}
	exp, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || parts[2] != strconv.FormatInt(exp, 10) {
		return session{}, users.User{}, errSessionMalformed
	}
	mac, err := base64.RawURLEncoding.Strict().DecodeString(parts[4])
	if err != nil || len(mac) != sha256.Size {
		return session{}, users.User{}, errSessionMalformed
	}
	if dir == nil {
		return session{}, users.User{}, errSessionUnknownUser
	}
	u, ok := dir.Lookup(string(name))
	if !ok {
		return session{}, users.User{}, errSessionUnknownUser
	}
	mk := userSessionKeyOf(u.PasswordHash)
	if !hmac.Equal(mac, macOf(mk, parts[:4]...)) {
		return session{}, users.User{}, errSessionUserMAC
	}
	s := session{user: u.Name, expires: time.Unix(exp, 0), nonce: parts[3], mk: mk}
	if !now.Before(s.expires) {
		return session{}, users.User{}, errSessionExpired
	}
	return s, u, nil
}

// loggedUser is the context key of the report user a request's log line
// names (withLoggedUser).
type loggedUser struct{}

// withLoggedUser returns r with a place for the name of the report user
// who made it, which the request's log line shows (logUser sets it).
func withLoggedUser(r *http.Request, user *string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), loggedUser{}, user))
}

// logUser names the report user of r in its log line.
func logUser(r *http.Request, name string) {
	if p, ok := r.Context().Value(loggedUser{}).(*string); ok {
		*p = name
	}
}

// hasUsers reports whether people sign in with their own names.
func (h *Handler) hasUsers() bool {
	return h.cfg.Users != nil && h.cfg.Users.Len() > 0
}

// secretSignin reports whether the report pages take an API key and
// secret at sign-in.
func (h *Handler) secretSignin() bool {
	return h.cfg.SecretSignin || !h.hasUsers()
}

// parseCookie verifies a session cookie of either kind; u is set for a
// user's session.
func (h *Handler) parseCookie(value string, now time.Time) (session, *users.User, error) {
	if strings.HasPrefix(value, userCookieKind+".") {
		s, u, err := parseUserSession(value, h.cfg.Users, now)
		if err != nil {
			return s, nil, err
		}
		return s, &u, nil
	}
	s, err := parseSession(value, h.accounts, now)
	if err == nil && !h.secretSignin() {
		return session{}, nil, errSessionKeySignin
	}
	return s, nil, err
}

// userViewer returns what a signed-in user sees: the account the
// numen_account cookie names if they may see it, else the first of
// theirs; ok is false when they may see no account of this server.
func (h *Handler) userViewer(r *http.Request, s session, u *users.User) (viewer, bool) {
	visible := u.Visible(h.accountKeys)
	v := viewer{sess: &s, user: u, visible: visible}
	if len(visible) == 0 {
		return v, false
	}
	key := visible[0]
	if c, err := r.Cookie(accountCookie); err == nil && slices.Contains(visible, c.Value) {
		key = c.Value
	}
	v.a = h.accounts[key]
	return v, true
}

// userSignin signs a user in (the sign-in form's POST with a user name).
func (h *Handler) userSignin(w http.ResponseWriter, r *http.Request, f signinForm, fail func(int, signinForm, string)) {
	password := r.PostForm.Get("password")
	u, ok := users.User{}, false
	if h.hasUsers() && f.User != "" && len(f.User) <= 64 && len(password) <= 1024 {
		u, ok = h.cfg.Users.Authenticate(f.User, password)
	}
	if err := h.cfg.Users.Err(); err != nil {
		h.log.Warn("report pages: the users file's last change was not taken; its users before it stay", "error", err.Error())
	}
	if !ok {
		f.Error = "The user name or the password is wrong."
		fail(http.StatusUnauthorized, f, "wrong user name or password")
		return
	}
	_, value := newUserSession(&u, h.cfg.Clock())
	setCookie(w, r, sessionCookie, value, SessionLifetime)
	setCookie(w, r, signinCookie, "", 0)
	setCookie(w, r, accountCookie, "", 0)
	h.log.Info("report pages: signed in", "user", u.Name, "role", string(u.Role), "remote", r.RemoteAddr)
	http.Redirect(w, r, f.Next, http.StatusSeeOther)
}

// chooseAccount serves POST /reports/account: a user shows another of
// their accounts.
func (h *Handler) chooseAccount(w http.ResponseWriter, r *http.Request, key *string) {
	c, ok := sessionForm(w, r, "account form")
	if !ok {
		return
	}
	s, u, err := h.parseCookie(c, h.cfg.Clock())
	if err != nil || u == nil {
		// An API key's session has one account: nothing to choose.
		http.Redirect(w, r, "/reports/signin", http.StatusSeeOther)
		return
	}
	*key = r.PostForm.Get("account")
	if !sameOrigin(r) || !s.checkCSRF(r.PostForm.Get("csrf")) {
		h.log.Warn("report pages: account choice refused, CSRF token missing or wrong", "user", u.Name, "remote", r.RemoteAddr)
		writeErrors(w, http.StatusForbidden, "account: the form's token is missing or wrong; use the page's account form")
		return
	}
	if !u.MaySee(*key) || h.accounts[*key] == nil {
		// The same answer for an account that exists and one that does
		// not: a viewer learns nothing of the others.
		v, _ := h.userViewer(r, s, u)
		pageError(w, r, v, http.StatusNotFound, "no such account among yours")
		return
	}
	setCookie(w, r, accountCookie, *key, SessionLifetime)
	http.Redirect(w, r, "/reports", http.StatusSeeOther)
}

// sessionForm reads a form the report pages POST with their session
// cookie (sign-out, the account choice): the method, the form (at most 16
// KiB) and the cookie's value. ok is false when it has answered: 405 for
// another method (naming the page's form), 400 for a form it cannot
// read, a redirect to sign in without a session cookie.
func sessionForm(w http.ResponseWriter, r *http.Request, form string) (cookie string, ok bool) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeErrors(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: method not allowed; use POST (the page's %s)", r.Method, r.URL.Path, form))
		return "", false
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		writeErrors(w, http.StatusBadRequest, "the form could not be read: "+err.Error())
		return "", false
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		http.Redirect(w, r, "/reports/signin", http.StatusSeeOther)
		return "", false
	}
	return c.Value, true
}
