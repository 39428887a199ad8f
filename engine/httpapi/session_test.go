package httpapi

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/account"
)

func sessionAccounts() map[string]*account.Account {
	return map[string]*account.Account{
		"key-a": {Key: "key-a", Secrets: []string{"secret-a1", "secret-a2"}},
		"key-b": {Key: "key-b", Secrets: []string{"secret-b"}},
	}
}

func TestSessionRoundTrip(t *testing.T) {
	t.Parallel()
	accounts := sessionAccounts()
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	made, value := newSession("key-a", "secret-a2", now)
	require.Equal(t, now.Add(SessionLifetime), made.expires)

	s, err := parseSession(value, accounts, now.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, "key-a", s.key)
	require.Equal(t, made.nonce, s.nonce)
	require.True(t, s.checkCSRF(made.csrf()))
	require.False(t, s.checkCSRF(""))

	// Two sign-ins are two sessions with their own form tokens.
	other, value2 := newSession("key-a", "secret-a2", now)
	require.NotEqual(t, value, value2)
	require.NotEqual(t, made.csrf(), other.csrf())
	require.False(t, s.checkCSRF(other.csrf()))

	// It ends at its expiry, checked by the server whatever the cookie's
	// Max-Age.
	_, err = parseSession(value, accounts, now.Add(SessionLifetime))
	require.ErrorIs(t, err, errSessionExpired)

	// Removing the secret it was made with ends it (rotation).
	accounts["key-a"].Secrets = []string{"secret-a1"}
	_, err = parseSession(value, accounts, now)
	require.ErrorIs(t, err, errSessionSignature)
	delete(accounts, "key-a")
	_, err = parseSession(value, accounts, now)
	require.ErrorIs(t, err, errSessionUnknown)
}

func TestSessionTampering(t *testing.T) {
	t.Parallel()
	accounts := sessionAccounts()
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	_, value := newSession("key-a", "secret-a1", now)
	parts := strings.Split(value, ".")
	_, valueB := newSession("key-b", "secret-b", now)
	partsB := strings.Split(valueB, ".")
	join := func(p ...string) string { return strings.Join(p, ".") }

	for name, v := range map[string]string{
		"another key":        join(parts[0], partsB[1], parts[2], parts[3], parts[4]),
		"a later expiry":     join(parts[0], parts[1], "9999999999", parts[3], parts[4]),
		"another nonce":      join(parts[0], parts[1], parts[2], partsB[3], parts[4]),
		"another mac":        join(parts[0], parts[1], parts[2], parts[3], partsB[4]),
		"a truncated mac":    join(parts[0], parts[1], parts[2], parts[3], parts[4][:20]),
		"another version":    join("v2", parts[1], parts[2], parts[3], parts[4]),
		"a part missing":     join(parts[0], parts[1], parts[2], parts[4]),
		"a part more":        value + ".x",
		"not base64":         join(parts[0], "%%%", parts[2], parts[3], parts[4]),
		"not a number":       join(parts[0], parts[1], "soon", parts[3], parts[4]),
		"empty":              "",
		"the mac of another": join(parts[0], partsB[1], partsB[2], partsB[3], parts[4]),
		"oversized":          value + strings.Repeat("A", 2000),
		// The MAC's 32 bytes take 43 base64 characters, whose last 2 bits
		// are padding: set, they decode to the same bytes unless decoding
		// is strict, and one session would have several cookies.
		// Go's base64 decoders skip CR and LF (found by FuzzParseSession).
		"a CR inside the mac":         join(parts[0], parts[1], parts[2], parts[3], parts[4][:20]+"\r"+parts[4][20:]),
		"a LF inside the key":         join(parts[0], parts[1][:2]+"\n"+parts[1][2:], parts[2], parts[3], parts[4]),
		"a mac with padding bits set": join(parts[0], parts[1], parts[2], parts[3], parts[4][:42]+string(b64alphabet[strings.IndexByte(b64alphabet, parts[4][42])^1])),
	} {
		_, err := parseSession(v, accounts, now)
		require.Error(t, err, name)
	}
	// The session key is derived, not the secret: a MAC made with the bare
	// secret does not verify.
	_, err := parseSession(join(parts[0], parts[1], parts[2], parts[3], b64(macOf([]byte("secret-a1"), parts[:4]...))), accounts, now)
	require.ErrorIs(t, err, errSessionSignature)
}

const b64alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

func FuzzParseSession(f *testing.F) {
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	// A fixed nonce: the seed must be the same in every fuzzing worker,
	// which each run this function (a random one made the seed fail its
	// own check under -fuzz).
	_, value := signSession("key-a", "secret-a1", now, "fuzz-seed-nonce")
	f.Add(value)
	f.Add("v1....")
	f.Add("v1.a2V5LWE.1.x.y")
	accounts := sessionAccounts()
	f.Fuzz(func(t *testing.T, v string) {
		s, err := parseSession(v, accounts, now)
		if err != nil {
			return
		}
		// Only a cookie this code signed verifies: it must be the one
		// above (the fuzzer cannot forge a MAC).
		require.Equal(t, value, v)
		require.Equal(t, "key-a", s.key)
	})
}

func TestLocalNext(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                                    "/reports",
		"/reports":                            "/reports",
		"/reports/SYNC-API-2026-11?status=OK": "/reports/SYNC-API-2026-11?status=OK",
		"/reports/signin":                     "/reports",
		"/reports/signout":                    "/reports",
		"https://evil.example/reports":        "/reports",
		"//evil.example/reports":              "/reports",
		"/\\evil.example":                     "/reports",
		"/metrics":                            "/reports",
		"/reportsx":                           "/reports",
		"javascript:alert(1)":                 "/reports",
	} {
		require.Equal(t, want, localNext(in), in)
	}
}

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	req := func(h ...string) *http.Request {
		r := httptest.NewRequest("POST", "http://127.0.0.1:8080/reports/signin", nil)
		for i := 0; i+1 < len(h); i += 2 {
			r.Header.Set(h[i], h[i+1])
		}
		return r
	}
	require.True(t, sameOrigin(req()))
	require.True(t, sameOrigin(req("Origin", "http://127.0.0.1:8080")))
	require.True(t, sameOrigin(req("Sec-Fetch-Site", "same-origin")))
	require.False(t, sameOrigin(req("Origin", "http://evil.example")))
	require.False(t, sameOrigin(req("Origin", "null")))
	require.False(t, sameOrigin(req("Sec-Fetch-Site", "cross-site")))
	require.False(t, sameOrigin(req("Sec-Fetch-Site", "same-site")))
}

func TestSigninLimiter(t *testing.T) {
	t.Parallel()
	var l signinLimiter
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	a := netip.MustParseAddr("192.0.2.1")
	b := netip.MustParseAddr("192.0.2.2")
	for range signinBurst {
		require.Zero(t, l.wait(a, now))
		l.failed(a, now)
	}
	require.Positive(t, l.wait(a, now), "after %d failures", signinBurst)
	require.LessOrEqual(t, l.wait(a, now), signinEvery)
	require.Zero(t, l.wait(b, now), "another address is not limited")
	require.Zero(t, l.wait(a, now.Add(signinEvery)), "one attempt more after %s", signinEvery)

	// The table stays bounded: full of addresses whose limiters have
	// filled up again, it forgets them.
	for i := range signinMaxAddrs + 10 {
		l.failed(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), now.Add(time.Duration(i)*time.Millisecond))
	}
	require.LessOrEqual(t, len(l.addrs), signinMaxAddrs)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func b64std(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// FuzzReportQuery: any query string of a report page or download is a
// valid store.Query or an error, never a panic; a valid one survives the
// round trip through the links the page writes (queryValues).
func FuzzReportQuery(f *testing.F) {
	for _, s := range []string{"", "country=DE&sort=time", "number=%2B4915&sort=number&order=desc", "status=-&network=26201",
		"sort=number&country=GB", "order=sideways", "number=+44 20", "country=" + strings.Repeat("x", 101),
		"from=2026-11-02&to=2026-11-03", "from=2026-11-05&to=2026-11-01", "to=2026-02-30", "from=9998-12-31", "number=0049%20(151)-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		vals, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		q, err := reportQuery(vals)
		if err != nil {
			return
		}
		require.NoError(t, q.Check())
		again, err := reportQuery(queryValues(&q))
		require.NoError(t, err, "%q", raw)
		require.Equal(t, q, again, "%q", raw)
	})
}
