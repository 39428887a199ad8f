package httpapi

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/numenhq/numen/engine/account"
)

// Sessions of the report pages.
//
// A browser signs in on /reports/signin with the account's API key and
// secret (with report users, a user name and password instead:
// usersession.go) and gets a session cookie:
//
//	numen_session = "v1" . base64url(key) . expiry (Unix seconds) . nonce . base64url(mac)
//
// where mac is HMAC-SHA256 of everything before it, keyed with a key
// derived from one of the account's secrets (HMAC-SHA256 of the secret and
// "numen reports session v1", so the secret itself never signs anything but
// API requests). Any node with the same accounts verifies it, with no
// shared state; removing the secret from the account (rotation) ends its
// sessions. The cookie is HttpOnly, SameSite=Strict, Path=/reports, Secure
// when the request came over TLS, and expires after SessionLifetime; the
// server checks the expiry too.
//
// Forms that change something (sign-in, sign-out) are POSTs with a CSRF
// token: sign-in uses a double-submit token (a random value in the cookie
// numen_signin and in the form, which a page of another site can neither
// read nor send: SameSite=Strict); sign-out a token derived from the
// session (HMAC of its nonce with the session key). Requests with an
// Origin header of another host are refused as well.
//
// Sign-out removes the cookie from the browser. The token is stateless:
// a copy taken before sign-out stays valid until it expires, or until the
// secret it was made with is removed from the account.

const (
	sessionCookie = "numen_session"
	signinCookie  = "numen_signin"
	cookiePath    = "/reports"
	// SessionLifetime is how long a sign-in lasts.
	SessionLifetime = 8 * time.Hour
	// signinFormLifetime is how long a sign-in form may be sent.
	signinFormLifetime = time.Hour
)

// session is a signed-in browser.
type session struct {
	key     string // an API key's session
	user    string // a user's session (usersession.go)
	expires time.Time
	nonce   string
	// mk is the session key (derived from the secret that verified it).
	mk []byte
}

// sessionKeyOf derives the key that signs sessions from an API secret.
func sessionKeyOf(secret string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("numen reports session v1"))
	return m.Sum(nil)
}

func macOf(key []byte, parts ...string) []byte {
	m := hmac.New(sha256.New, key)
	for i, p := range parts {
		if i > 0 {
			m.Write([]byte{'.'})
		}
		m.Write([]byte(p))
	}
	return m.Sum(nil)
}

// randomToken returns 16 random bytes, base64url-encoded.
func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b)
}

// newSession makes a session for key, signed with secret, from now.
func newSession(key, secret string, now time.Time) (session, string) {
	return signSession(key, secret, now, randomToken())
}

// signSession makes the session of newSession with a given nonce.
func signSession(key, secret string, now time.Time, nonce string) (session, string) {
	s := session{key: key, expires: now.Add(SessionLifetime).Truncate(time.Second), nonce: nonce, mk: sessionKeyOf(secret)}
	payload := []string{"v1", base64.RawURLEncoding.EncodeToString([]byte(key)), strconv.FormatInt(s.expires.Unix(), 10), s.nonce}
	mac := macOf(s.mk, payload...)
	return s, strings.Join(payload, ".") + "." + base64.RawURLEncoding.EncodeToString(mac)
}

// Reasons a session cookie is refused (logged, never shown in detail).
var (
	errSessionMalformed = errors.New("malformed session cookie")
	errSessionUnknown   = errors.New("session of an unknown API key")
	errSessionSignature = errors.New("session signature does not match any of the account's secrets")
	errSessionExpired   = errors.New("session expired")
)

// parseSession verifies a session cookie's value against the accounts.
func parseSession(value string, accounts map[string]*account.Account, now time.Time) (session, error) {
	// Only the characters a cookie this code signs can hold: Go's base64
	// decoders skip CR and LF, so without this one session would have
	// many cookies ("…_\rFqq…" verifying as "…_Fqq…").
	if len(value) > 1024 || strings.IndexFunc(value, notCookieByte) >= 0 {
		return session{}, errSessionMalformed
	}
	parts := strings.Split(value, ".")
	if len(parts) != 5 || parts[0] != "v1" {
		return session{}, errSessionMalformed
	}
	rawKey, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return session{}, errSessionMalformed
	}
	exp, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return session{}, errSessionMalformed
	}
	// Strict: a MAC has one encoding (its padding bits zero), so that a
	// session has one cookie.
	mac, err := base64.RawURLEncoding.Strict().DecodeString(parts[4])
	if err != nil || len(mac) != sha256.Size {
		return session{}, errSessionMalformed
	}
	a := accounts[string(rawKey)]
	if a == nil {
		return session{}, errSessionUnknown
	}
	for _, secret := range a.Secrets {
		mk := sessionKeyOf(secret)
		if hmac.Equal(mac, macOf(mk, parts[:4]...)) {
			s := session{key: a.Key, expires: time.Unix(exp, 0), nonce: parts[3], mk: mk}
			if !now.Before(s.expires) {
				return session{}, errSessionExpired
			}
			return s, nil
		}
	}
	return session{}, errSessionSignature
}

// notCookieByte reports whether r is outside the characters of a session
// cookie: base64url, digits and the dots between its parts.
func notCookieByte(r rune) bool {
	return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
}

// csrf returns the token the session's forms carry.
func (s session) csrf() string {
	return base64.RawURLEncoding.EncodeToString(macOf(s.mk, "csrf", s.nonce))
}

// checkCSRF reports whether token is the session's.
func (s session) checkCSRF(token string) bool {
	return subtle.ConstantTimeCompare([]byte(token), []byte(s.csrf())) == 1
}

// secretMatches reports whether secret is one of a's, in constant time
// per secret.
func secretMatches(a *account.Account, secret string) bool {
	ok := false
	for _, s := range a.Secrets {
		if subtle.ConstantTimeCompare([]byte(s), []byte(secret)) == 1 {
			ok = true
		}
	}
	return ok
}

// setCookie sets a cookie of the report pages: HttpOnly, SameSite=Strict,
// on /reports, Secure over TLS; maxAge 0 deletes it.
func setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge time.Duration) {
	c := &http.Cookie{Name: name, Value: value, Path: cookiePath, HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode}
	if maxAge > 0 {
		c.MaxAge = int(maxAge / time.Second)
	} else {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// sameOrigin reports whether a form's POST may be served: without an
// Origin header (older browsers, scripts) or with this host's.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return r.Header.Get("Sec-Fetch-Site") == "" || r.Header.Get("Sec-Fetch-Site") == "same-origin" || r.Header.Get("Sec-Fetch-Site") == "none"
	}
	_, host, ok := strings.Cut(o, "://")
	return ok && strings.EqualFold(host, r.Host)
}

// signinLimiter limits failed sign-ins per client address: Burst at once,
// then one per Every. It keeps at most maxAddrs addresses; when full it
// forgets those whose limiter has filled up again.
type signinLimiter struct {
	mu    sync.Mutex
	addrs map[netip.Addr]*rate.Limiter
}

const (
	signinBurst    = 10
	signinEvery    = 6 * time.Second // 10 a minute
	signinMaxAddrs = 10000
)

// wait returns how long the address must wait before its next sign-in
// attempt (0: it may try now).
func (l *signinLimiter) wait(addr netip.Addr, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.addrs[addr]
	if lim == nil || lim.TokensAt(now) >= 1 {
		return 0
	}
	return time.Duration((1 - lim.TokensAt(now)) * float64(signinEvery))
}

// failed counts a failed sign-in of the address.
func (l *signinLimiter) failed(addr netip.Addr, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.addrs == nil {
		l.addrs = map[netip.Addr]*rate.Limiter{}
	}
	lim := l.addrs[addr]
	if lim == nil {
		if len(l.addrs) >= signinMaxAddrs {
			for a, x := range l.addrs {
				if x.TokensAt(now) >= signinBurst {
					delete(l.addrs, a)
				}
			}
			if len(l.addrs) >= signinMaxAddrs {
				clear(l.addrs) // every one of them failed within the last minute: start again
			}
		}
		lim = rate.NewLimiter(rate.Every(signinEvery), signinBurst)
		l.addrs[addr] = lim
	}
	lim.AllowN(now, 1)
}
