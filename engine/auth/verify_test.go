package auth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Test accounts. The secrets are long and distinctive so that a test can search error messages
// for them.
const (
	testKey     = "demo-key"
	testSecret  = "demo-secret-3f9a1c"
	testSecret2 = "rotated-secret-7b2e4d" // the second secret of testKey, during rotation
	otherKey    = "other-key"
	otherSecret = "other-secret-c81d05"
)

var testAccounts = map[string][]string{
	testKey:  {testSecret, testSecret2},
	otherKey: {otherSecret},
}

var allSecrets = []string{testSecret, testSecret2, otherSecret}

func testVerifier(t testing.TB, opts ...VerifierOption) *Verifier {
	t.Helper()
	creds, err := NewStaticCredentials(testAccounts)
	require.NoError(t, err)
	return NewVerifier(creds, opts...)
}

var testNow = time.Unix(1700000000, 0)

// request is one request to the server: what the server passes to Verify.
type request struct {
	method  string
	path    string // relative to /api/v2, as the server received it
	query   string
	body    string
	headers map[string]string
}

func (r request) build() *http.Request {
	url := "http://numen.test/api/v2" + r.path
	if r.query != "" {
		url += "?" + r.query
	}
	req := httptest.NewRequest(r.method, url, strings.NewReader(r.body))
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	return req
}

// digestHeaders are the three digest headers for a request signed with secret at ts.
func digestHeaders(key, secret, path, method string, ts int64, body string) map[string]string {
	return map[string]string{
		HeaderDigestKey:       key,
		HeaderDigestSignature: SignDigest(secret, path, method, ts, []byte(body)),
		HeaderDigestTimestamp: strconv.FormatInt(ts, 10),
	}
}

func with(h map[string]string, kv ...string) map[string]string {
	out := make(map[string]string, len(h)+len(kv)/2)
	for k, v := range h {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func without(h map[string]string, names ...string) map[string]string {
	out := with(h)
	for _, n := range names {
		delete(out, n)
	}
	return out
}

func TestVerify(t *testing.T) {
	t.Parallel()
	const body = `{"msisdn":"+14156226819"}`
	ts := testNow.Unix()
	post := func(h map[string]string) request {
		return request{method: "POST", path: "/hlr-lookup", body: body, headers: h}
	}
	signedPost := digestHeaders(testKey, testSecret, "/hlr-lookup", "POST", ts, body)
	get := func(h map[string]string) request { return request{method: "GET", path: "/routes", headers: h} }
	signedGet := digestHeaders(testKey, testSecret, "/routes", "GET", ts, "")
	signedAt := func(offset int64) map[string]string {
		return digestHeaders(testKey, testSecret, "/routes", "GET", ts+offset, "")
	}

	tests := []struct {
		name    string
		req     request
		wantKey string
		method  string // the method of the Identity, or of the Error
		// On failure:
		reason Reason
		header string
		msgHas []string
		errKey string
	}{
		// Digest, accepted.
		{name: "digest POST", req: post(signedPost), wantKey: testKey, method: MethodDigest},
		{name: "digest GET", req: get(signedGet), wantKey: testKey, method: MethodDigest},
		{
			name: "digest GET with query string, not signed",
			req: request{method: "GET", path: "/route", query: "msisdn=%2B14156226819",
				headers: digestHeaders(testKey, testSecret, "/route", "GET", ts, "")},
			wantKey: testKey, method: MethodDigest,
		},
		{
			name: "digest POST with empty body",
			req: request{method: "POST", path: "/auth-test",
				headers: digestHeaders(testKey, testSecret, "/auth-test", "POST", ts, "")},
			wantKey: testKey, method: MethodDigest,
		},
		{
			name: "digest path received in upper case, signed lower-case",
			req: request{method: "POST", path: "/HLR-Lookup", body: body,
				headers: digestHeaders(testKey, testSecret, "/hlr-lookup", "POST", ts, body)},
			wantKey: testKey, method: MethodDigest,
		},
		{
			name: "digest signature in upper-case hex",
			req: post(with(signedPost, HeaderDigestSignature,
				strings.ToUpper(SignDigest(testSecret, "/hlr-lookup", "POST", ts, []byte(body))))),
			wantKey: testKey, method: MethodDigest,
		},
		{
			name: "digest headers with surrounding spaces",
			req: post(with(signedPost, HeaderDigestKey, " "+testKey+" ", HeaderDigestTimestamp,
				" "+strconv.FormatInt(ts, 10))),
			wantKey: testKey, method: MethodDigest,
		},
		{
			name:    "digest with the second secret (rotation)",
			req:     post(digestHeaders(testKey, testSecret2, "/hlr-lookup", "POST", ts, body)),
			wantKey: testKey, method: MethodDigest,
		},
		{
			name:    "digest of another account",
			req:     post(digestHeaders(otherKey, otherSecret, "/hlr-lookup", "POST", ts, body)),
			wantKey: otherKey, method: MethodDigest,
		},
		{name: "skew -29 s", req: get(signedAt(-29)), wantKey: testKey, method: MethodDigest},
		{name: "skew -30 s", req: get(signedAt(-30)), wantKey: testKey, method: MethodDigest},
		{name: "skew +29 s", req: get(signedAt(29)), wantKey: testKey, method: MethodDigest},
		{name: "skew +30 s", req: get(signedAt(30)), wantKey: testKey, method: MethodDigest},

		// Digest, rejected.
		{
			name: "skew -31 s", req: get(signedAt(-31)), method: MethodDigest,
			reason: ReasonStaleTimestamp, header: HeaderDigestTimestamp, errKey: testKey,
			msgHas: []string{"X-Digest-Timestamp 1699999969 is 31 s behind server time; allowed ±30 s"},
		},
		{
			name: "skew +31 s", req: get(signedAt(31)), method: MethodDigest,
			reason: ReasonStaleTimestamp, header: HeaderDigestTimestamp,
			msgHas: []string{"X-Digest-Timestamp 1700000031 is 31 s ahead of server time; allowed ±30 s"},
		},
		{
			name: "timestamp 0", req: get(signedAt(-ts)), method: MethodDigest,
			reason: ReasonStaleTimestamp, header: HeaderDigestTimestamp,
			msgHas: []string{"1700000000 s behind"},
		},
		{
			name: "largest timestamp", req: get(with(signedGet, HeaderDigestTimestamp, "9223372036854775807")),
			method: MethodDigest, reason: ReasonStaleTimestamp, header: HeaderDigestTimestamp,
			msgHas: []string{"9223372035154775807 s ahead of"},
		},
		{
			name: "unknown key", req: post(digestHeaders("nobody", testSecret, "/hlr-lookup", "POST", ts, body)),
			method: MethodDigest, reason: ReasonUnknownKey, header: HeaderDigestSignature, errKey: "nobody",
			msgHas: []string{"X-Digest-Signature does not match the API key and this request"},
		},
		{
			name: "key of another account", req: post(digestHeaders(otherKey, testSecret, "/hlr-lookup", "POST", ts, body)),
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature, errKey: otherKey,
		},
		{
			name: "tampered body", req: request{method: "POST", path: "/hlr-lookup", body: `{"msisdn":"+14156226810"}`, headers: signedPost},
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature,
			msgHas: []string{`X-Digest-Signature does not match the API key and this request; the server signed path "/hlr-lookup", timestamp 1700000000, method "POST" and a 25-byte body`},
		},
		{
			name: "other path", req: request{method: "POST", path: "/hlr-lookups", body: body, headers: signedPost},
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature,
			msgHas: []string{`path "/hlr-lookups"`},
		},
		{
			name: "other method", req: request{method: "PUT", path: "/hlr-lookup", body: body, headers: signedPost},
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature,
		},
		{
			name: "other timestamp", req: post(with(signedPost, HeaderDigestTimestamp, strconv.FormatInt(ts+1, 10))),
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature,
		},
		{
			// The path as sent is signed too (a report's name as the
			// client writes it), and so is its lower-cased form.
			name: "client signed the path without lower-casing",
			req: request{method: "GET", path: "/Reports/SYNC-API-2026-11", headers: with(signedGet,
				HeaderDigestSignature, refDigest(testSecret, "/Reports/SYNC-API-2026-111700000000GET"))},
			wantKey: testKey, method: MethodDigest,
		},
		{
			name: "client signed the path lower-cased, sent in capitals",
			req: request{method: "GET", path: "/Reports/SYNC-API-2026-11", headers: with(signedGet,
				HeaderDigestSignature, refDigest(testSecret, "/reports/sync-api-2026-111700000000GET"))},
			wantKey: testKey, method: MethodDigest,
		},
		{
			name: "client signed another mix of cases",
			req: request{method: "GET", path: "/Reports/SYNC-API-2026-11", headers: with(signedGet,
				HeaderDigestSignature, refDigest(testSecret, "/reports/SYNC-API-2026-111700000000GET"))},
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature,
			msgHas: []string{`path "/reports/sync-api-2026-11"`},
		},
		{
			// PHP's rawurlencode and Node's encodeURIComponent escape a
			// report name's slash and spaces; the client signs what it sends.
			name: "client signed the escaped path as sent",
			req: request{method: "GET", path: "/reports/Kunden%2FQ4%20a-2026-11", headers: with(signedGet,
				HeaderDigestSignature, refDigest(testSecret, "/reports/Kunden%2FQ4%20a-2026-111700000000GET"))},
			wantKey: testKey, method: MethodDigest,
		},
		{
			name: "client signed the decoded path of an escaped one",
			req: request{method: "GET", path: "/reports/Kunden%2FQ4%20a-2026-11", headers: with(signedGet,
				HeaderDigestSignature, refDigest(testSecret, "/reports/Kunden/Q4 a-2026-111700000000GET"))},
			wantKey: testKey, method: MethodDigest,
		},
		{
			name: "client signed another escaping than it sent",
			req: request{method: "GET", path: "/reports/Kunden%2FQ4-2026-11", headers: with(signedGet,
				HeaderDigestSignature, refDigest(testSecret, "/reports/Kunden%2fQ4-2026-111700000000GET"))},
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature,
		},
		{
			// PHP's json_encode(array()) and Ruby's {}.to_json: the client
			// signs no body and sends one.
			name: "empty-body signature, body []",
			req: request{method: "POST", path: "/hlr-lookup", body: "[]",
				headers: digestHeaders(testKey, testSecret, "/hlr-lookup", "POST", ts, "")},
			wantKey: testKey, method: MethodDigest,
		},
		{
			name: "empty-body signature, body {}",
			req: request{method: "POST", path: "/hlr-lookup", body: "{}",
				headers: digestHeaders(testKey, testSecret2, "/hlr-lookup", "POST", ts, "")},
			wantKey: testKey, method: MethodDigest,
		},
		{
			name: "body [] signed as sent",
			req: request{method: "POST", path: "/hlr-lookup", body: "[]",
				headers: digestHeaders(testKey, testSecret, "/hlr-lookup", "POST", ts, "[]")},
			wantKey: testKey, method: MethodDigest,
		},
		{
			name: "empty-body signature, body { } with a space",
			req: request{method: "POST", path: "/hlr-lookup", body: "{ }",
				headers: digestHeaders(testKey, testSecret, "/hlr-lookup", "POST", ts, "")},
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature,
		},
		{
			name: "empty-body signature, body null",
			req: request{method: "POST", path: "/hlr-lookup", body: "null",
				headers: digestHeaders(testKey, testSecret, "/hlr-lookup", "POST", ts, "")},
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature,
		},
		{
			name: "[] signature, body empty",
			req: request{method: "POST", path: "/hlr-lookup",
				headers: digestHeaders(testKey, testSecret, "/hlr-lookup", "POST", ts, "[]")},
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature,
		},
		{
			name: "client signed the query string",
			req: request{method: "GET", path: "/route", query: "msisdn=1", headers: with(signedGet,
				HeaderDigestSignature, refDigest(testSecret, "/route?msisdn=11700000000GET"))},
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature,
		},
		{
			name: "signature not hex", req: post(with(signedPost, HeaderDigestSignature, strings.Repeat("zz", 32))),
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature,
			msgHas: []string{"64 hexadecimal digits"},
		},
		{
			name: "signature too short", req: post(with(signedPost, HeaderDigestSignature, "abcd")),
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature,
		},
		{
			name: "signature base64 instead of hex", req: post(with(signedPost, HeaderDigestSignature,
				base64.StdEncoding.EncodeToString(make([]byte, 32)))),
			method: MethodDigest, reason: ReasonBadSignature, header: HeaderDigestSignature,
		},
		{
			name: "missing X-Digest-Key", req: post(without(signedPost, HeaderDigestKey)),
			method: MethodDigest, reason: ReasonIncompleteDigest, header: HeaderDigestKey,
			msgHas: []string{"missing X-Digest-Key;"},
		},
		{
			name: "missing X-Digest-Signature", req: post(without(signedPost, HeaderDigestSignature)),
			method: MethodDigest, reason: ReasonIncompleteDigest, header: HeaderDigestSignature,
			msgHas: []string{"missing X-Digest-Signature;"},
		},
		{
			name: "missing X-Digest-Timestamp", req: post(without(signedPost, HeaderDigestTimestamp)),
			method: MethodDigest, reason: ReasonIncompleteDigest, header: HeaderDigestTimestamp,
			msgHas: []string{"missing X-Digest-Timestamp;"},
		},
		{
			name: "only X-Digest-Key", req: post(without(signedPost, HeaderDigestSignature, HeaderDigestTimestamp)),
			method: MethodDigest, reason: ReasonIncompleteDigest, header: HeaderDigestSignature,
			msgHas: []string{"missing X-Digest-Signature and X-Digest-Timestamp;"},
		},
		{
			name: "empty X-Digest-Key", req: post(with(signedPost, HeaderDigestKey, "  ")),
			method: MethodDigest, reason: ReasonIncompleteDigest, header: HeaderDigestKey,
		},
		{
			name: "digest attempt does not fall back to valid basic",
			req: post(with(without(signedPost, HeaderDigestSignature),
				HeaderXBasic, XBasic(testKey, testSecret), HeaderAuthorization, BasicHeader(testKey, testSecret))),
			method: MethodDigest, reason: ReasonIncompleteDigest, header: HeaderDigestSignature,
		},
		{
			name: "timestamp with letters", req: get(with(signedGet, HeaderDigestTimestamp, "17e8")),
			method: MethodDigest, reason: ReasonMalformedTimestamp, header: HeaderDigestTimestamp,
			msgHas: []string{`X-Digest-Timestamp "17e8" is not a Unix time in whole seconds`},
		},
		{
			name: "timestamp in milliseconds is only stale", req: get(signedAt(ts * 999)),
			method: MethodDigest, reason: ReasonStaleTimestamp, header: HeaderDigestTimestamp,
		},
		{
			name: "timestamp with fraction", req: get(with(signedGet, HeaderDigestTimestamp, "1700000000.5")),
			method: MethodDigest, reason: ReasonMalformedTimestamp, header: HeaderDigestTimestamp,
		},
		{
			name: "negative timestamp", req: get(with(signedGet, HeaderDigestTimestamp, "-1700000000")),
			method: MethodDigest, reason: ReasonMalformedTimestamp, header: HeaderDigestTimestamp,
		},
		{
			name: "timestamp with plus sign", req: get(with(signedGet, HeaderDigestTimestamp, "+1700000000")),
			method: MethodDigest, reason: ReasonMalformedTimestamp, header: HeaderDigestTimestamp,
		},
		{
			name: "timestamp with leading zero", req: get(with(signedGet, HeaderDigestTimestamp, "01700000000")),
			method: MethodDigest, reason: ReasonMalformedTimestamp, header: HeaderDigestTimestamp,
		},
		{
			name: "timestamp beyond int64", req: get(with(signedGet, HeaderDigestTimestamp, "9223372036854775808")),
			method: MethodDigest, reason: ReasonMalformedTimestamp, header: HeaderDigestTimestamp,
		},
		{
			name: "long garbage timestamp is cut in the message", req: get(with(signedGet, HeaderDigestTimestamp, strings.Repeat("x", 500))),
			method: MethodDigest, reason: ReasonMalformedTimestamp, header: HeaderDigestTimestamp,
			msgHas: []string{`"` + strings.Repeat("x", 64) + `"…`},
		},

		// No credentials.
		{
			name: "no auth headers", req: get(nil), reason: ReasonMissingCredentials,
			msgHas: []string{"X-Digest-Key, X-Digest-Signature and X-Digest-Timestamp, or X-Basic, or Authorization: Basic"},
		},

		// X-Basic.
		{name: "X-Basic", req: get(map[string]string{HeaderXBasic: XBasic(testKey, testSecret)}), wantKey: testKey, method: MethodXBasic},
		{name: "X-Basic second secret", req: get(map[string]string{HeaderXBasic: XBasic(testKey, testSecret2)}), wantKey: testKey, method: MethodXBasic},
		{name: "X-Basic other account", req: get(map[string]string{HeaderXBasic: XBasic(otherKey, otherSecret)}), wantKey: otherKey, method: MethodXBasic},
		{
			name: "X-Basic upper-case hex", req: get(map[string]string{HeaderXBasic: strings.ToUpper(XBasic(testKey, testSecret))}),
			wantKey: testKey, method: MethodXBasic,
		},
		{
			name: "X-Basic wrong secret", req: get(map[string]string{HeaderXBasic: XBasic(testKey, otherSecret)}),
			method: MethodXBasic, reason: ReasonBadBasicCredentials, header: HeaderXBasic,
			msgHas: []string{"X-Basic matches no API key and secret"},
		},
		{
			name: "X-Basic without the colon", req: get(map[string]string{HeaderXBasic: refSHA256(testKey + testSecret)}),
			method: MethodXBasic, reason: ReasonBadBasicCredentials, header: HeaderXBasic,
		},
		{
			name: "X-Basic not hex", req: get(map[string]string{HeaderXBasic: testKey + ":" + testSecret}),
			method: MethodXBasic, reason: ReasonBadBasicCredentials, header: HeaderXBasic,
			msgHas: []string{"64 hexadecimal digits"},
		},
		{
			name: "X-Basic empty", req: get(map[string]string{HeaderXBasic: ""}),
			method: MethodXBasic, reason: ReasonBadBasicCredentials, header: HeaderXBasic,
		},
		{
			name:   "X-Basic wins over Authorization and does not fall back",
			req:    get(map[string]string{HeaderXBasic: XBasic(testKey, "wrong"), HeaderAuthorization: BasicHeader(testKey, testSecret)}),
			method: MethodXBasic, reason: ReasonBadBasicCredentials, header: HeaderXBasic,
		},

		// Authorization: Basic.
		{name: "Basic", req: get(map[string]string{HeaderAuthorization: BasicHeader(testKey, testSecret)}), wantKey: testKey, method: MethodBasic},
		{name: "Basic second secret", req: get(map[string]string{HeaderAuthorization: BasicHeader(testKey, testSecret2)}), wantKey: testKey, method: MethodBasic},
		{
			name:    "Basic scheme in lower case, unpadded base64",
			req:     get(map[string]string{HeaderAuthorization: "basic " + base64.RawStdEncoding.EncodeToString([]byte(otherKey+":"+otherSecret))}),
			wantKey: otherKey, method: MethodBasic,
		},
		{
			name:   "Basic secret with a colon is the rest after the first colon",
			req:    get(map[string]string{HeaderAuthorization: BasicHeader(testKey, testSecret+":x")}),
			method: MethodBasic, reason: ReasonBadBasicCredentials, header: HeaderAuthorization, errKey: testKey,
		},
		{
			name: "Basic wrong secret", req: get(map[string]string{HeaderAuthorization: BasicHeader(testKey, otherSecret)}),
			method: MethodBasic, reason: ReasonBadBasicCredentials, header: HeaderAuthorization, errKey: testKey,
			msgHas: []string{"Authorization: Basic API key and secret do not match an account"},
		},
		{
			name: "Basic empty secret", req: get(map[string]string{HeaderAuthorization: BasicHeader(testKey, "")}),
			method: MethodBasic, reason: ReasonBadBasicCredentials, header: HeaderAuthorization,
		},
		{
			name: "Basic unknown key", req: get(map[string]string{HeaderAuthorization: BasicHeader("nobody", testSecret)}),
			method: MethodBasic, reason: ReasonUnknownKey, header: HeaderAuthorization, errKey: "nobody",
		},
		{
			name: "Bearer", req: get(map[string]string{HeaderAuthorization: "Bearer " + testSecret}),
			method: MethodBasic, reason: ReasonMalformedAuthorization, header: HeaderAuthorization,
			msgHas: []string{"Authorization header is not Basic"},
		},
		{
			name: "Basic without credentials", req: get(map[string]string{HeaderAuthorization: "Basic"}),
			method: MethodBasic, reason: ReasonMalformedAuthorization, header: HeaderAuthorization,
			msgHas: []string{"no colon"},
		},
		{
			name: "Basic not base64", req: get(map[string]string{HeaderAuthorization: "Basic " + testKey + ":" + testSecret}),
			method: MethodBasic, reason: ReasonMalformedAuthorization, header: HeaderAuthorization,
			msgHas: []string{"not valid base64"},
		},
		{
			name: "Basic without colon", req: get(map[string]string{HeaderAuthorization: "Basic " + base64.StdEncoding.EncodeToString([]byte(testSecret))}),
			method: MethodBasic, reason: ReasonMalformedAuthorization, header: HeaderAuthorization,
			msgHas: []string{"no colon between API key and secret"},
		},
		{
			name: "Basic empty key", req: get(map[string]string{HeaderAuthorization: BasicHeader("", testSecret)}),
			method: MethodBasic, reason: ReasonMalformedAuthorization, header: HeaderAuthorization,
			msgHas: []string{"empty API key"},
		},
		{
			name: "Authorization empty", req: get(map[string]string{HeaderAuthorization: ""}),
			method: MethodBasic, reason: ReasonMalformedAuthorization, header: HeaderAuthorization,
		},
	}

	v := testVerifier(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := tt.req.build()
			rel, err := RelativePath(req.URL.Path, BasePath)
			require.NoError(t, err)
			body := []byte(tt.req.body)

			id, err := v.Authenticate(req, rel, body, testNow)
			key, verr := v.Verify(req, rel, body, testNow)
			require.Equal(t, id.Key, key)
			require.Equal(t, err, verr)

			if tt.wantKey != "" {
				require.NoError(t, err)
				require.Equal(t, Identity{Key: tt.wantKey, Method: tt.method}, id)
				return
			}
			require.Error(t, err)
			require.Zero(t, id)
			require.ErrorIs(t, err, ErrUnauthorized)
			var aerr *Error
			require.ErrorAs(t, err, &aerr)
			require.Equal(t, tt.reason, aerr.Reason, "error: %v", err)
			require.Equal(t, tt.method, aerr.Method)
			require.Equal(t, tt.header, aerr.Header)
			if tt.errKey != "" {
				require.Equal(t, tt.errKey, aerr.Key)
			}
			for _, s := range tt.msgHas {
				require.Contains(t, err.Error(), s)
			}
			requireNoSecretIn(t, err.Error(), req, rel, body)
		})
	}
}

// requireNoSecretIn checks that msg contains no secret, no signature the server would accept
// for this request and no Authorization header value.
func requireNoSecretIn(t *testing.T, msg string, req *http.Request, rel string, body []byte) {
	t.Helper()
	ts, _ := strconv.ParseInt(strings.TrimSpace(req.Header.Get(HeaderDigestTimestamp)), 10, 64)
	for _, s := range allSecrets {
		require.NotContains(t, msg, s)
		for _, key := range []string{testKey, otherKey} {
			require.NotContains(t, msg, XBasic(key, s))
			require.NotContains(t, msg, base64.StdEncoding.EncodeToString([]byte(key+":"+s)))
		}
		sig := SignDigest(s, rel, req.Method, ts, body)
		require.NotContains(t, msg, sig)
		require.NotContains(t, strings.ToLower(msg), sig)
		require.NotContains(t, msg, SignDigest(s, rel, req.Method, testNow.Unix(), body))
	}
	if a := req.Header.Get(HeaderAuthorization); len(a) > len("Basic ") {
		require.NotContains(t, msg, a[len("Basic "):])
	}
}

// TestVerifyEscapedPathWithBase: a report name holding the base path, escaped by the client
// and signed as sent, is found after the base the server stripped (the first one).
func TestVerifyEscapedPathWithBase(t *testing.T) {
	t.Parallel()
	v := testVerifier(t)
	req := request{method: "GET", path: "/reports/x%2Fapi%2Fv2%2Fy", headers: with(
		digestHeaders(testKey, testSecret, "/routes", "GET", testNow.Unix(), ""),
		HeaderDigestSignature, refDigest(testSecret, "/reports/x%2Fapi%2Fv2%2Fy1700000000GET"))}.build()
	rel := strings.TrimPrefix(req.URL.Path, BasePath)
	require.Equal(t, "/reports/x/api/v2/y", rel)
	id, err := v.Authenticate(req, rel, nil, testNow)
	require.NoError(t, err)
	require.Equal(t, testKey, id.Key)
}

func TestVerifySubSecondClock(t *testing.T) {
	t.Parallel()
	// Both sides take whole seconds: 30.9 s of real difference is 30 s and accepted.
	v := testVerifier(t)
	req := request{method: "GET", path: "/routes", headers: digestHeaders(testKey, testSecret, "/routes", "GET", 1699999970, "")}.build()
	_, err := v.Verify(req, "/routes", nil, time.Unix(1700000000, 900_000_000))
	require.NoError(t, err)
}

func TestWithMaxSkew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		skew   time.Duration
		offset int64
		ok     bool
	}{
		{skew: 5 * time.Second, offset: 5, ok: true},
		{skew: 5 * time.Second, offset: -6},
		{skew: 5 * time.Second, offset: 6},
		{skew: 0, offset: 0, ok: true},
		{skew: 0, offset: 1},
		{skew: 2*time.Second + 999*time.Millisecond, offset: 3}, // truncated to 2 s
		{skew: 10 * time.Minute, offset: -600, ok: true},
		{skew: 10 * time.Minute, offset: 601},
	}
	for _, tt := range tests {
		t.Run(tt.skew.String()+" "+strconv.FormatInt(tt.offset, 10), func(t *testing.T) {
			v := testVerifier(t, WithMaxSkew(tt.skew))
			require.Equal(t, tt.skew.Truncate(time.Second), v.MaxSkew())
			ts := testNow.Unix() + tt.offset
			req := request{method: "GET", path: "/routes", headers: digestHeaders(testKey, testSecret, "/routes", "GET", ts, "")}.build()
			_, err := v.Verify(req, "/routes", nil, testNow)
			if tt.ok {
				require.NoError(t, err)
				return
			}
			var aerr *Error
			require.ErrorAs(t, err, &aerr)
			require.Equal(t, ReasonStaleTimestamp, aerr.Reason)
			require.Contains(t, err.Error(), "allowed ±"+strconv.FormatInt(int64(tt.skew/time.Second), 10)+" s")
		})
	}
	require.Equal(t, DefaultMaxSkew, testVerifier(t).MaxSkew())
	require.Panics(t, func() { WithMaxSkew(-time.Second) })
	require.Panics(t, func() { NewVerifier(nil) })
}

// secretsOnly is Credentials without XBasicLookup.
type secretsOnly map[string][]string

func (s secretsOnly) Secrets(key string) ([]string, bool) { v, ok := s[key]; return v, ok }

// lyingLookup answers every X-Basic lookup with testKey.
type lyingLookup struct{ secretsOnly }

func (lyingLookup) LookupXBasic([32]byte) (string, bool) { return testKey, true }

func TestVerifyXBasicNeedsLookup(t *testing.T) {
	t.Parallel()
	req := request{method: "GET", path: "/routes", headers: map[string]string{HeaderXBasic: XBasic(testKey, testSecret)}}.build()

	v := NewVerifier(secretsOnly(testAccounts))
	_, err := v.Verify(req, "/routes", nil, testNow)
	var aerr *Error
	require.ErrorAs(t, err, &aerr)
	require.Equal(t, ReasonBadBasicCredentials, aerr.Reason)
	require.Contains(t, err.Error(), "X-Basic authentication is not available on this server")

	// Digest and Basic still work.
	req = request{method: "GET", path: "/routes", headers: map[string]string{HeaderAuthorization: BasicHeader(testKey, testSecret)}}.build()
	key, err := v.Verify(req, "/routes", nil, testNow)
	require.NoError(t, err)
	require.Equal(t, testKey, key)

	// The verifier checks the store's answer.
	v = NewVerifier(lyingLookup{secretsOnly(testAccounts)})
	req = request{method: "GET", path: "/routes", headers: map[string]string{HeaderXBasic: XBasic(testKey, "guess")}}.build()
	_, err = v.Verify(req, "/routes", nil, testNow)
	require.ErrorAs(t, err, &aerr)
	require.Equal(t, ReasonBadBasicCredentials, aerr.Reason)
}

func TestVerifyAccountWithoutSecrets(t *testing.T) {
	t.Parallel()
	v := NewVerifier(secretsOnly{"empty": nil})
	req := request{method: "GET", path: "/routes", headers: digestHeaders("empty", "", "/routes", "GET", testNow.Unix(), "")}.build()
	_, err := v.Verify(req, "/routes", nil, testNow)
	var aerr *Error
	require.ErrorAs(t, err, &aerr)
	require.Equal(t, ReasonBadSignature, aerr.Reason)

	req = request{method: "GET", path: "/routes", headers: map[string]string{HeaderAuthorization: BasicHeader("empty", "")}}.build()
	_, err = v.Verify(req, "/routes", nil, testNow)
	require.ErrorAs(t, err, &aerr)
	require.Equal(t, ReasonBadBasicCredentials, aerr.Reason)
}

func TestReasonString(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for r := ReasonMissingCredentials; r <= ReasonMalformedAuthorization; r++ {
		s := r.String()
		require.NotEqual(t, "unknown reason", s, "reason %d", int(r))
		require.False(t, seen[s], "duplicate %q", s)
		seen[s] = true
		require.Equal(t, s, (&Error{Reason: r}).Error())
	}
	require.Equal(t, "unknown reason", Reason(0).String())
	require.Equal(t, "unknown reason", Reason(99).String())
	require.True(t, errors.Is(&Error{}, ErrUnauthorized))
}

func TestNewStaticCredentials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		accounts map[string][]string
		msgHas   string
	}{
		{name: "empty key", accounts: map[string][]string{"": {testSecret}}, msgHas: "empty API key"},
		{name: "colon", accounts: map[string][]string{"a:b": {testSecret}}, msgHas: `"a:b" contains a colon`},
		{name: "spaces", accounts: map[string][]string{" a": {testSecret}}, msgHas: "spaces"},
		{name: "control", accounts: map[string][]string{"a\nb": {testSecret}}, msgHas: "control character"},
		{name: "no secret", accounts: map[string][]string{"a": nil}, msgHas: `"a" has no secret`},
		{name: "empty secret", accounts: map[string][]string{"a": {testSecret, ""}}, msgHas: "secret 2 of 2 is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewStaticCredentials(tt.accounts)
			require.Nil(t, c)
			require.ErrorContains(t, err, tt.msgHas)
			require.NotContains(t, err.Error(), testSecret)
		})
	}

	// The credentials are a copy.
	accounts := map[string][]string{"a": {"s1"}}
	c, err := NewStaticCredentials(accounts)
	require.NoError(t, err)
	accounts["a"][0] = "changed"
	accounts["b"] = []string{"s2"}
	got, ok := c.Secrets("a")
	require.True(t, ok)
	require.Equal(t, []string{"s1"}, got)
	_, ok = c.Secrets("b")
	require.False(t, ok)
	key, ok := c.LookupXBasic(xbasicSum("a", "s1"))
	require.True(t, ok)
	require.Equal(t, "a", key)
	_, ok = c.LookupXBasic(xbasicSum("a", "changed"))
	require.False(t, ok)
}

func TestVerifierConcurrent(t *testing.T) {
	t.Parallel()
	v := testVerifier(t)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 50 {
				secret := allSecrets[(i+j)%2] // both secrets of testKey
				body := strconv.Itoa(i*1000 + j)
				req := request{method: "POST", path: "/hlr-lookup", body: body,
					headers: digestHeaders(testKey, secret, "/hlr-lookup", "POST", testNow.Unix(), body)}.build()
				key, err := v.Verify(req, "/hlr-lookup", []byte(body), testNow)
				if err != nil || key != testKey {
					t.Errorf("goroutine %d request %d: key %q, error %v", i, j, key, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func benchmarkVerify(b *testing.B, key, secret string) {
	v := testVerifier(b)
	body := []byte(`{"msisdn":"+14156226819","route":"IP1","storage":"CAMPAIGN"}`)
	req := request{method: "POST", path: "/hlr-lookup", body: string(body),
		headers: digestHeaders(key, secret, "/hlr-lookup", "POST", testNow.Unix(), string(body))}.build()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = v.Verify(req, "/hlr-lookup", body, testNow)
	}
}

// The first three should cost about the same (one HMAC each): rejecting an unknown key is not
// cheaper. An account in the middle of a rotation costs one HMAC per secret.
func BenchmarkVerifyDigest(b *testing.B)             { benchmarkVerify(b, otherKey, otherSecret) }
func BenchmarkVerifyDigestBadSignature(b *testing.B) { benchmarkVerify(b, otherKey, testSecret) }
func BenchmarkVerifyDigestUnknownKey(b *testing.B)   { benchmarkVerify(b, "nobody", testSecret) }
func BenchmarkVerifyDigestTwoSecrets(b *testing.B)   { benchmarkVerify(b, testKey, testSecret) }

func refSHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// An unknown API key and a wrong secret or signature get the same message, so that answers do
// not tell whether a key exists.
func TestUnknownKeyAndWrongSecretSameMessage(t *testing.T) {
	t.Parallel()
	v := testVerifier(t)
	const body = `{"msisdn":"+491788735000"}`
	ts := testNow.Unix()
	msg := func(headers map[string]string) string {
		req := request{method: "POST", path: "/hlr-lookup", body: body, headers: headers}.build()
		_, err := v.Authenticate(req, "/hlr-lookup", []byte(body), testNow)
		require.Error(t, err)
		return err.Error()
	}
	assert.Equal(t,
		msg(digestHeaders("nobody", testSecret, "/hlr-lookup", "POST", ts, body)),
		msg(digestHeaders(testKey, "wrong-secret", "/hlr-lookup", "POST", ts, body)))
	assert.Equal(t,
		msg(map[string]string{HeaderAuthorization: BasicHeader("nobody", testSecret)}),
		msg(map[string]string{HeaderAuthorization: BasicHeader(testKey, "wrong-secret")}))
}

// Begin decides all it can without the body; Finish checks the digest signature over it.
func TestBeginFinish(t *testing.T) {
	t.Parallel()
	v := testVerifier(t)
	const body = `{"msisdn":"+491788735000"}`
	ts := testNow.Unix()
	build := func(headers map[string]string) *http.Request {
		return request{method: "POST", path: "/hlr-lookup", body: body, headers: headers}.build()
	}

	// A known key: Begin leaves the signature to Finish, which needs the very body signed.
	req := build(digestHeaders(testKey, testSecret, "/hlr-lookup", "POST", ts, body))
	p, err := v.Begin(req, "/hlr-lookup", testNow)
	require.NoError(t, err)
	assert.Equal(t, testKey, p.Key)
	assert.Equal(t, MethodDigest, p.Method)
	assert.False(t, p.Done)
	_, err = v.Finish(&p, req, "/hlr-lookup", []byte(body+" "))
	require.ErrorIs(t, err, ErrUnauthorized)
	id, err := v.Finish(&p, req, "/hlr-lookup", []byte(body))
	require.NoError(t, err)
	assert.Equal(t, Identity{Key: testKey, Method: MethodDigest}, id)

	// An unknown key, a stale timestamp or a malformed signature fail at Begin.
	for _, h := range []map[string]string{
		digestHeaders("nobody", testSecret, "/hlr-lookup", "POST", ts, body),
		digestHeaders(testKey, testSecret, "/hlr-lookup", "POST", ts-3600, body),
		with(digestHeaders(testKey, testSecret, "/hlr-lookup", "POST", ts, body), HeaderDigestSignature, "zz"),
		{},
	} {
		_, err := v.Begin(build(h), "/hlr-lookup", testNow)
		require.ErrorIs(t, err, ErrUnauthorized, "%v", h)
	}

	// Basic does not sign the body: Begin decides it whole.
	p, err = v.Begin(build(map[string]string{HeaderAuthorization: BasicHeader(testKey, testSecret)}), "/hlr-lookup", testNow)
	require.NoError(t, err)
	assert.True(t, p.Done)
	id, err = v.Finish(&p, req, "/hlr-lookup", nil)
	require.NoError(t, err)
	assert.Equal(t, Identity{Key: testKey, Method: MethodBasic}, id)

	// Finish without a successful Begin refuses.
	_, err = v.Finish(&Pending{}, req, "/hlr-lookup", []byte(body))
	require.ErrorIs(t, err, ErrUnauthorized)
}

// TestVerifyEscapedWholePath: a caller that signs the whole path (the
// report pages, outside the API's base) may sign it as escaped on the wire.
func TestVerifyEscapedWholePath(t *testing.T) {
	t.Parallel()
	v := testVerifier(t)
	req := httptest.NewRequest("GET", "http://numen.test/reports/Kunden%2FQ4%20a-2026-11", nil)
	for k, val := range digestHeaders(testKey, testSecret, "/routes", "GET", testNow.Unix(), "") {
		req.Header.Set(k, val)
	}
	req.Header.Set(HeaderDigestSignature, refDigest(testSecret, "/reports/Kunden%2FQ4%20a-2026-111700000000GET"))
	id, err := v.Authenticate(req, req.URL.Path, nil, testNow)
	require.NoError(t, err)
	require.Equal(t, testKey, id.Key)
}
