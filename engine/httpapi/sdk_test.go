package httpapi

// Requests shaped as the hosted API's three official clients (the Node,
// PHP and Ruby SDKs, as their public source builds them) send them, against
// every endpoint. The builders below are written from reading those
// clients, not taken from them; what each does is said beside it:
//
//   - Node (axios): signs the endpoint as written + timestamp + METHOD +
//     JSON.stringify(params) (nothing for GET); GET parameters go to the
//     query string (encodeURIComponent, then ":$,[]" and "+" for spaces, as
//     axios writes them); POST sends the same JSON, application/json.
//   - PHP (curl): asks GET /time first (no credentials; of the hosted
//     service, whatever base URL it was given, falling back to its own
//     clock) and signs with that time; signs the endpoint as written + timestamp + METHOD +
//     json_encode(params), or nothing when there are no parameters, yet
//     sends json_encode(array()) = "[]" then; json_encode escapes "/" as
//     "\/" and non-ASCII as \uXXXX; GET parameters by http_build_query
//     (urlencode: "+" for spaces, "~" escaped); Content-Type
//     application/json; charset=UTF-8 on every request, GET included.
//   - Ruby (rest-client): always appends "?" and URI.encode_www_form(params)
//     to a GET's URL, so a GET without parameters ends in "?"; signs like
//     PHP but sends {}.to_json = "{}" without parameters; its string payload
//     goes out without a content type of its own, so Net::HTTP labels it
//     application/x-www-form-urlencoded.
//
// A report's name is a path segment the caller writes: as it is (Node's
// axios then escapes spaces and non-ASCII, not "/"), or escaped by the
// caller (PHP's rawurlencode, Ruby's ERB::Util.url_encode, JavaScript's
// encodeURIComponent), and each client signs what it was given.

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/engine/store/sqlitestore"
)

// param is one request parameter; its value is a string or a []string.
// Parameters keep their order, as the clients' objects, arrays and hashes
// do.
type param struct {
	key string
	val any
}

// jsonStyle is how one client's JSON encoder writes strings.
type jsonStyle struct {
	escapeSlash bool // "\/" (PHP's json_encode)
	asciiOnly   bool // non-ASCII as \uXXXX, UTF-16, lower-case hex (PHP's json_encode)
}

// encode writes params as a JSON object, or, without parameters, as PHP's
// empty array "[]" or JavaScript's and Ruby's empty object "{}".
func (st jsonStyle) encode(params []param, emptyArray bool) string {
	if len(params) == 0 {
		if emptyArray {
			return "[]"
		}
		return "{}"
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range params {
		if i > 0 {
			b.WriteByte(',')
		}
		st.str(&b, p.key)
		b.WriteByte(':')
		switch v := p.val.(type) {
		case string:
			st.str(&b, v)
		case []string:
			b.WriteByte('[')
			for j, s := range v {
				if j > 0 {
					b.WriteByte(',')
				}
				st.str(&b, s)
			}
			b.WriteByte(']')
		}
	}
	b.WriteByte('}')
	return b.String()
}

func (st jsonStyle) str(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '/' && st.escapeSlash:
			b.WriteString(`\/`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case r >= 0x80 && st.asciiOnly:
			var units [2]uint16
			n := 1
			if r >= 0x10000 {
				r -= 0x10000
				units[0], units[1] = uint16(0xd800+(r>>10)), uint16(0xdc00+(r&0x3ff))
				n = 2
			} else {
				units[0] = uint16(r)
			}
			for _, u := range units[:n] {
				fmt.Fprintf(b, `\u%04x`, u)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// percent escapes every byte of s but those keep allows, in upper-case hex;
// space as "+" when plus is set.
func percent(s string, keep func(c byte) bool, plus bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case keep(c):
			b.WriteByte(c)
		case c == ' ' && plus:
			b.WriteByte('+')
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func alnum(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }

// encodeURIComponent is JavaScript's: A-Z a-z 0-9 - _ . ! ~ * ' ( ) stay.
func encodeURIComponent(s string) string {
	return percent(s, func(c byte) bool { return alnum(c) || strings.IndexByte("-_.!~*'()", c) >= 0 }, false)
}

// axiosValue is how axios writes a query value: encodeURIComponent, then
// %3A %24 %2C %5B %5D back to : $ , [ ] and %20 as "+".
func axiosValue(s string) string {
	e := encodeURIComponent(s)
	return strings.NewReplacer("%3A", ":", "%24", "$", "%2C", ",", "%20", "+", "%5B", "[", "%5D", "]").Replace(e)
}

// phpURLEncode is urlencode: A-Z a-z 0-9 - _ . stay, space is "+".
func phpURLEncode(s string) string {
	return percent(s, func(c byte) bool { return alnum(c) || strings.IndexByte("-_.", c) >= 0 }, true)
}

// rawURLEncode is PHP's rawurlencode (and Ruby's ERB::Util.url_encode):
// A-Z a-z 0-9 - _ . ~ stay.
func rawURLEncode(s string) string {
	return percent(s, func(c byte) bool { return alnum(c) || strings.IndexByte("-_.~", c) >= 0 }, false)
}

// wwwForm is Ruby's URI.encode_www_form_component: A-Z a-z 0-9 * - . _
// stay, space is "+".
func wwwForm(s string) string {
	return percent(s, func(c byte) bool { return alnum(c) || strings.IndexByte("*-._", c) >= 0 }, true)
}

// whatwgPath escapes a path as Node's URL parser does before axios sends
// it: spaces, quotes, <>`#?{} and non-ASCII; "/" and "%" stay.
func whatwgPath(s string) string {
	return percent(s, func(c byte) bool { return c > 0x20 && c < 0x7f && strings.IndexByte("\"#<>?`{}", c) < 0 }, false)
}

// query joins params with a value encoder; arrays as key[]=v (axios) or
// key[i]=v (PHP) or repeated keys (Ruby).
func query(params []param, enc func(string) string, array func(key string, i int) string) string {
	var parts []string
	for _, p := range params {
		switch v := p.val.(type) {
		case string:
			parts = append(parts, enc(p.key)+"="+enc(v))
		case []string:
			for i, s := range v {
				parts = append(parts, enc(array(p.key, i))+"="+enc(s))
			}
		}
	}
	return strings.Join(parts, "&")
}

// sdkCall is one call of a client: client.get(endpoint, params) or
// client.post(endpoint, params), endpoint as the caller wrote it.
type sdkCall struct {
	method, endpoint string
	params           []param
}

// sdkClient builds the request one official client sends for a call,
// signed at ts.
type sdkClient struct {
	name string
	// clock: the client asks GET /time before each call (PHP's asks the
	// hosted service's, which stands for a clock in step with Numen's: here
	// Numen's own, in the request shape PHP sends).
	clock bool
	build func(t *testing.T, base string, ts int64, c sdkCall) *http.Request
}

// hmacHex is hex(HMAC-SHA256(secret, text)) over the text as given: the
// clients do not lower-case the path, as auth.SignDigest does.
func hmacHex(text string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(text))
	return hex.EncodeToString(mac.Sum(nil))
}

func newSDKRequest(t *testing.T, method, url, body string) *http.Request {
	t.Helper()
	var rd io.Reader = http.NoBody
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	return req
}

var sdkClients = []sdkClient{
	{
		name: "node",
		build: func(t *testing.T, base string, ts int64, c sdkCall) *http.Request {
			url := base + whatwgPath(c.endpoint)
			signed, body := "", ""
			if c.method == http.MethodGet {
				if q := query(c.params, axiosValue, func(k string, _ int) string { return k + "[]" }); q != "" {
					url += "?" + q
				}
			} else {
				signed = jsonStyle{}.encode(c.params, false)
				body = signed
			}
			req := newSDKRequest(t, c.method, url, body)
			req.Header.Set("User-Agent", "node-sdk 1.0.0 ("+key+")")
			req.Header.Set("Accept", "application/json")
			if body != "" {
				req.Header.Set("Content-Type", "application/json;charset=utf-8")
			}
			setDigest(req, ts, hmacHex(c.endpoint+strconv.FormatInt(ts, 10)+c.method+signed))
			return req
		},
	},
	{
		name:  "php",
		clock: true,
		build: func(t *testing.T, base string, ts int64, c sdkCall) *http.Request {
			url := base + c.endpoint
			signed, body := "", ""
			if c.method == http.MethodGet {
				if q := query(c.params, phpURLEncode, func(k string, i int) string { return fmt.Sprintf("%s[%d]", k, i) }); q != "" {
					url += "?" + q
				}
			} else {
				body = jsonStyle{escapeSlash: true, asciiOnly: true}.encode(c.params, true)
				if len(c.params) > 0 {
					signed = body
				}
			}
			req := newSDKRequest(t, c.method, url, body)
			req.Header.Set("User-Agent", "php-sdk 2.0.0 ("+key+")")
			req.Header.Set("Content-Type", "application/json; charset=UTF-8")
			setDigest(req, ts, hmacHex(c.endpoint+strconv.FormatInt(ts, 10)+c.method+signed))
			return req
		},
	},
	{
		name: "ruby",
		build: func(t *testing.T, base string, ts int64, c sdkCall) *http.Request {
			url := base + c.endpoint
			signed, body := "", ""
			if c.method == http.MethodGet {
				url += "?" + query(c.params, wwwForm, func(k string, _ int) string { return k })
			} else {
				body = jsonStyle{}.encode(c.params, false)
				if len(c.params) > 0 {
					signed = body
				}
			}
			req := newSDKRequest(t, c.method, url, body)
			req.Header.Set("User-Agent", "ruby_hlr_client 2.0.2 ("+key+")")
			req.Header.Set("Accept", "*/*")
			if body != "" {
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			}
			setDigest(req, ts, hmacHex(c.endpoint+strconv.FormatInt(ts, 10)+c.method+signed))
			return req
		},
	},
}

func setDigest(req *http.Request, ts int64, sig string) {
	req.Header.Set(auth.HeaderDigestKey, key)
	req.Header.Set(auth.HeaderDigestSignature, sig)
	req.Header.Set(auth.HeaderDigestTimestamp, strconv.FormatInt(ts, 10))
}

// sdkServer is a server with a store (reports) and a bulk handler, with a
// report of a name that needs escaping and one of the default name.
func sdkServer(t *testing.T) *server {
	t.Helper()
	st, err := sqlitestore.Open(t.Context(), t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	s := newServer(t, func(cfg *Config, a *account.Account) {
		cfg.Store = st
		cfg.Bulk = &receiptBulk{eng: cfg.Engine, seen: map[string][32]byte{}}
		a.WebhookURLs = []string{"https://example.com/numen-results"}
	})
	s.sinkTo.Store(engine.Sink(st))
	return s
}

// sdkDo sends one call as client c would and returns the status and body.
func sdkDo(t *testing.T, s *server, c sdkClient, call sdkCall) (int, []byte, *http.Request) {
	t.Helper()
	ts := s.now.Load()
	if c.clock {
		// PHP's client asks a clock, without credentials and with its JSON
		// content type, before each signed call (see sdkClient.clock).
		req := newSDKRequest(t, http.MethodGet, s.URL+apiv2.Base+"/time", "")
		req.Header.Set("Content-Type", "application/json; charset=UTF-8")
		resp, err := s.Client().Do(req)
		require.NoError(t, err)
		var tm apiv2.Time
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&tm))
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		ts = tm.Time
	}
	req := c.build(t, s.URL+apiv2.Base, ts, call)
	resp, err := s.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b, req
}

// TestOfficialClientsEveryEndpoint sends every endpoint's call as each
// official client builds it: all are authenticated and answered 200.
func TestOfficialClientsEveryEndpoint(t *testing.T) {
	t.Parallel()
	s := sdkServer(t)
	storage := "Kunden/Q4 (DE) ü!"              // PHP escapes "/" and "ü" in JSON; the path escapers differ on "(", ")", "!"
	report := storage + "-2026-11"              // its report
	const defaultReport = "SYNC-API-NT-2026-11" // the default name, in capitals
	lookups := []sdkCall{
		{"POST", "/nt-lookup", []param{{"number", "+4915123456789"}, {"storage", storage}}},
		{"POST", "/nt-lookup", []param{{"number", "+4915123456789"}}},
	}
	calls := []sdkCall{
		{"GET", "/time", nil},
		{"GET", "/ping", nil},
		{"GET", "/openapi.json", nil},
		{"GET", "/auth-test", nil},
		{"POST", "/hlr-lookup", []param{{"msisdn", "+4915123456789"}, {"storage", storage}}},
		{"POST", "/mnp-lookup", []param{{"msisdn", "+4915123456789"}, {"route", "MP1"}}},
		{"POST", "/hlr-lookups", []param{{"msisdns", []string{"+4915123456789", "+491512"}}, {"storage", storage}}},
		{"POST", "/nt-lookups", []param{{"numbers", []string{"+4915123456789", "0151 23456789"}}, {"country", "DE"}}},
		{"GET", "/route", []param{{"msisdn", "+4915123456789"}}},
		{"GET", "/route", []param{{"msisdn", "0151 23456789"}, {"country", "DE"}}},
		{"GET", "/routes", nil},
		{"GET", "/routing-map", nil},
		{"GET", "/hlr-coverage", nil},
		{"GET", "/mccmncs", nil},
		{"GET", "/mccmncs", []param{{"country", "DE"}}},
		{"GET", "/mnp-coverage", nil},
		{"GET", "/balance", nil},
		{"GET", "/reports", nil},
		// Report downloads: the default name as written, in capitals, and
		// a name with "/", a space and "ü", as written and escaped.
		{"GET", "/reports/" + defaultReport, nil},
		{"GET", "/reports/" + defaultReport, []param{{"format", "csv"}}},
		{"GET", "/reports/" + rawURLEncode(report), []param{{"format", "json"}}},
		{"GET", "/reports/" + encodeURIComponent(report), []param{{"format", "csv"}, {"number", "+49"}}},
	}
	covered := map[string]bool{}
	for _, c := range sdkClients {
		t.Run(c.name, func(t *testing.T) {
			for _, call := range append(lookups, calls...) {
				status, b, req := sdkDo(t, s, c, call)
				require.Equal(t, http.StatusOK, status, "%s %s (%s): %s", call.method, call.endpoint, req.URL, b)
				e := s.h.endpointOf(strings.TrimPrefix(req.URL.Path, apiv2.Base), true)
				require.NotNil(t, e, req.URL.Path)
				covered[e.method+" "+e.path] = true
				if strings.HasPrefix(call.endpoint, "/reports/") {
					require.Contains(t, string(b), "+4915123456789", "%s: the report's results", call.endpoint)
				}
			}
			// Node's axios sends a report name as written, escaping the
			// space and "ü" but not "/"; the client signed it unescaped.
			if c.name == "node" {
				status, b, req := sdkDo(t, s, c, sdkCall{"GET", "/reports/" + report, nil})
				require.Equal(t, http.StatusOK, status, "%s: %s", req.URL, b)
				require.Contains(t, string(b), "+4915123456789")
			}
		})
	}
	for _, e := range Endpoints() {
		require.True(t, covered[e], "%s: no client-shaped request", e)
	}
}

// TestOfficialClientsWithoutParameters: a POST without parameters, signed
// over no body and sent with "[]" (PHP) or "{}" (Ruby), is authenticated
// and answered for what it lacks (400 naming the field), not 401; every
// POST endpoint.
func TestOfficialClientsWithoutParameters(t *testing.T) {
	t.Parallel()
	s := sdkServer(t)
	fields := map[string]string{
		"/hlr-lookup": "msisdn", "/mnp-lookup": "msisdn", "/nt-lookup": "number",
		"/hlr-lookups": "msisdns", "/nt-lookups": "numbers",
	}
	n := 0
	for _, e := range endpoints() {
		if e.method != http.MethodPost {
			continue
		}
		n++
		for _, c := range sdkClients[1:] { // PHP and Ruby
			status, b, _ := sdkDo(t, s, c, sdkCall{e.method, e.path, nil})
			require.Equal(t, http.StatusBadRequest, status, "%s %s: %s", c.name, e.path, b)
			msg := strings.Join(errorsOf(t, b), " ")
			require.Contains(t, msg, fields[e.path], "%s %s", c.name, e.path)
			require.NotContains(t, msg, "X-Digest", "%s %s", c.name, e.path)
		}
	}
	require.Equal(t, len(fields), n, "every POST endpoint has its field")
}

// TestOfficialClientShapes pins the builders to what the clients send,
// byte for byte, for one call each.
func TestOfficialClientShapes(t *testing.T) {
	t.Parallel()
	params := []param{{"number", "+49 151/2"}, {"storage", "Q4 ü~"}}
	require.Equal(t, `{"number":"+49 151/2","storage":"Q4 ü~"}`, jsonStyle{}.encode(params, false))
	require.Equal(t, `{"number":"+49 151\/2","storage":"Q4 \u00fc~"}`, jsonStyle{escapeSlash: true, asciiOnly: true}.encode(params, true))
	require.Equal(t, `"\ud83d\ude00"`, func() string {
		var b strings.Builder
		jsonStyle{asciiOnly: true}.str(&b, "😀")
		return b.String()
	}())
	require.Equal(t, "[]", jsonStyle{}.encode(nil, true))
	require.Equal(t, "{}", jsonStyle{}.encode(nil, false))
	require.Equal(t, "number=%2B49+151%2F2&storage=Q4+%C3%BC~", query(params, axiosValue, nil))
	require.Equal(t, "number=%2B49+151%2F2&storage=Q4+%C3%BC%7E", query(params, phpURLEncode, nil))
	require.Equal(t, "number=%2B49+151%2F2&storage=Q4+%C3%BC%7E", query(params, wwwForm, nil))
	require.Equal(t, "Kunden%2FQ4%20%C3%BC~", rawURLEncode("Kunden/Q4 ü~"))
	require.Equal(t, "/reports/Kunden/Q4%20%C3%BC", whatwgPath("/reports/Kunden/Q4 ü"))
	require.True(t, utf8.ValidString(whatwgPath("ü")))

	base := "http://numen.test/api/v2"
	ruby := sdkClients[2].build(t, base, 1700000000, sdkCall{"GET", "/auth-test", nil})
	require.Equal(t, "/api/v2/auth-test?", ruby.URL.RequestURI(), "Ruby's trailing ?")
	require.Equal(t, hmacHex("/auth-test1700000000GET"), ruby.Header.Get(auth.HeaderDigestSignature))
	post := sdkClients[2].build(t, base, 1700000000, sdkCall{"POST", "/nt-lookup", nil})
	b, err := io.ReadAll(post.Body)
	require.NoError(t, err)
	require.Equal(t, "{}", string(b))
	require.Equal(t, "application/x-www-form-urlencoded", post.Header.Get("Content-Type"))
	require.Equal(t, hmacHex("/nt-lookup1700000000POST"), post.Header.Get(auth.HeaderDigestSignature), "signed over no body")
	php := sdkClients[1].build(t, base, 1700000000, sdkCall{"GET", "/reports/" + rawURLEncode("a/B c"), nil})
	require.Equal(t, "/api/v2/reports/a%2FB%20c", php.URL.RequestURI(), "sent as escaped")
	require.Equal(t, hmacHex("/reports/a%2FB%20c1700000000GET"), php.Header.Get(auth.HeaderDigestSignature), "signed as escaped")
	node := sdkClients[0].build(t, base, 1700000000, sdkCall{"POST", "/hlr-lookup", []param{{"msisdn", "+1"}}})
	b, err = io.ReadAll(node.Body)
	require.NoError(t, err)
	require.True(t, bytes.Equal([]byte(`{"msisdn":"+1"}`), b))
	require.Equal(t, hmacHex(`/hlr-lookup1700000000POST{"msisdn":"+1"}`), node.Header.Get(auth.HeaderDigestSignature))
}

// TestReportNamesExact: report names keep their case and a download finds
// the report of its exact name, whichever way the path was signed (as sent,
// or lower-cased as the specification signs it).
func TestReportNamesExact(t *testing.T) {
	t.Parallel()
	s := sdkServer(t)
	for storage, number := range map[string]string{"q4": "+4915111111111", "Q4": "+4915122222222"} {
		status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", `{"number": "`+number+`", "storage": "`+storage+`"}`, digest(secret, 0))
		require.Equal(t, http.StatusOK, status, "%s", b)
	}
	for _, tc := range []struct{ name, has, hasNot string }{
		{"Q4-2026-11", "+4915122222222", "+4915111111111"},
		{"q4-2026-11", "+4915111111111", "+4915122222222"},
	} {
		// As sent (the official clients) and lower-cased (auth.SignRequest).
		for _, sg := range []signer{
			func(t *testing.T, s *server, req *http.Request, body []byte) {
				setDigest(req, s.now.Load(), hmacHex("/reports/"+tc.name+strconv.FormatInt(s.now.Load(), 10)+"GET"))
			},
			digest(secret, 0),
		} {
			status, _, b := s.do(t, "GET", "/api/v2/reports/"+tc.name+"?format=csv", "", sg)
			require.Equal(t, http.StatusOK, status, "%s: %s", tc.name, b)
			require.Contains(t, string(b), tc.has, tc.name)
			require.NotContains(t, string(b), tc.hasNot, tc.name)
		}
	}
	status, _, b := s.do(t, "GET", "/api/v2/reports/Q4-2026-12", "", digest(secret, 0))
	require.Equal(t, http.StatusNotFound, status, "%s", b)
}
