package auth

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// refSignedText is the digest's signed text written the slow, obvious way from the
// description: ASCII letters of the path to lower case, of the method to upper case.
func refSignedText(path, method string, ts int64, body []byte) string {
	var b strings.Builder
	for i := 0; i < len(path); i++ { // byte by byte: only ASCII changes, invalid UTF-8 stays
		c := path[i]
		if c < 0x80 {
			c = strings.ToLower(string(c))[0]
		}
		b.WriteByte(c)
	}
	b.WriteString(strconv.FormatInt(ts, 10))
	for i := 0; i < len(method); i++ {
		c := method[i]
		if c < 0x80 {
			c = strings.ToUpper(string(c))[0]
		}
		b.WriteByte(c)
	}
	b.Write(body)
	return b.String()
}

// FuzzVerify feeds arbitrary headers, paths, methods and bodies to a Verifier. It checks that
// nothing panics, that every failure is a well-formed *Error whose message holds no secret or
// valid signature, that a success names a real account, and that the same request correctly
// signed with any of an account's secrets (within the allowed skew) always verifies.
func FuzzVerify(f *testing.F) {
	ts := strconv.FormatInt(testNow.Unix(), 10)
	sig := SignDigest(testSecret, "/hlr-lookup", "POST", testNow.Unix(), []byte(`{"msisdn":"1"}`))
	f.Add("POST", "/hlr-lookup", []byte(`{"msisdn":"1"}`), testKey, sig, ts, "", "", uint8(0b00111), int64(0), uint8(0))
	f.Add("GET", "/route", []byte(nil), testKey, sig, "17e8", "", "", uint8(0b00111), int64(-31), uint8(1))
	f.Add("get", "/HLR-Lookup", []byte(""), "", strings.ToUpper(sig), " "+ts+" ", "", "", uint8(0b00110), int64(30), uint8(2))
	f.Add("GET", "/routes", []byte(nil), "", "", "", XBasic(testKey, testSecret), "", uint8(0b01000), int64(7), uint8(0))
	f.Add("GET", "/routes", []byte(nil), "", "", "", "", BasicHeader(otherKey, otherSecret), uint8(0b10000), int64(-7), uint8(2))
	f.Add("GET", "/routes", []byte(nil), "", "", "", "", "Basic Og==", uint8(0b10000), int64(0), uint8(1))
	f.Add("PUT", "/api/v2/x/api/v2", []byte("\x00\xff"), "k:e:y", "zz", "00", "zz", "Bearer x", uint8(0b11111), int64(1<<62), uint8(0))
	f.Add("DELETE", "/É/ä", []byte("body"), otherKey, "", "9223372036854775807", "", "basic ", uint8(0b10111), int64(-1<<62), uint8(2))

	v := testVerifier(f)
	accounts := []struct{ key, secret string }{{testKey, testSecret}, {testKey, testSecret2}, {otherKey, otherSecret}}

	f.Fuzz(func(t *testing.T, method, path string, body []byte, key, sig, tsText, xbasic, authz string,
		present uint8, offset int64, account uint8) {
		h := make(http.Header)
		for i, kv := range [...][2]string{
			{HeaderDigestKey, key}, {HeaderDigestSignature, sig}, {HeaderDigestTimestamp, tsText},
			{HeaderXBasic, xbasic}, {HeaderAuthorization, authz},
		} {
			if present&(1<<i) != 0 {
				h[kv[0]] = []string{kv[1]}
			}
		}
		req := &http.Request{Method: method, URL: &url.URL{Path: path}, Header: h}
		id, err := v.Authenticate(req, path, body, testNow)
		if err == nil {
			if id.Key != testKey && id.Key != otherKey {
				t.Fatalf("authenticated as %q", id.Key)
			}
		} else {
			checkFuzzError(t, err, id, []string{method, path, string(body), key, sig, tsText, xbasic, authz}, req, path, body)
		}

		// The same request, correctly signed at a time within the allowed skew, verifies, and
		// its signature is the reference one.
		a := accounts[int(account)%len(accounts)]
		signTS := testNow.Unix() + offset%31
		want := refDigest(a.secret, refSignedText(path, method, signTS, body))
		got := SignDigest(a.secret, path, method, signTS, body)
		if got != want {
			t.Fatalf("SignDigest = %s, reference %s", got, want)
		}
		signed := &http.Request{Method: method, URL: &url.URL{Path: path}, Header: http.Header{
			HeaderDigestKey:       {a.key},
			HeaderDigestSignature: {got},
			HeaderDigestTimestamp: {strconv.FormatInt(signTS, 10)},
		}}
		if key, err := v.Verify(signed, path, body, testNow); err != nil || key != a.key {
			t.Fatalf("correctly signed request: key %q, error %v", key, err)
		}

		// Through the client helper and the server's RelativePath, on a URL under /api/v2.
		if path != "" && path[0] != '/' {
			return // not a path below /api/v2
		}
		clientReq := &http.Request{Method: method, URL: &url.URL{Path: "/prefix" + BasePath + path}}
		if err := SignRequest(clientReq, a.key, a.secret, time.Unix(signTS, 0), body); err != nil {
			t.Fatalf("SignRequest: %v", err)
		}
		if clientReq.Method == "" {
			clientReq.Method = http.MethodGet // as net/http sends it
		}
		rel, err := RelativePath(clientReq.URL.Path, BasePath)
		if err != nil {
			t.Fatalf("RelativePath: %v", err)
		}
		if key, err := v.Verify(clientReq, rel, body, testNow); err != nil || key != a.key {
			t.Fatalf("request signed by SignRequest: key %q, error %v", key, err)
		}
	})
}

func checkFuzzError(t *testing.T, err error, id Identity, inputs []string, req *http.Request, rel string, body []byte) {
	t.Helper()
	if id != (Identity{}) {
		t.Fatalf("error %v with identity %+v", err, id)
	}
	if !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("error %v does not wrap ErrUnauthorized", err)
	}
	var aerr *Error
	if !errors.As(err, &aerr) {
		t.Fatalf("error %T is not *Error", err)
	}
	if aerr.Reason < ReasonMissingCredentials || aerr.Reason > ReasonMalformedAuthorization {
		t.Fatalf("reason %d", aerr.Reason)
	}
	msg := err.Error()
	if msg == "" {
		t.Fatal("empty message")
	}
	for _, s := range allSecrets {
		inInput := false
		for _, in := range inputs {
			if strings.Contains(strings.ToLower(in), strings.ToLower(s)) { // messages lower-case the path
				inInput = true
			}
		}
		if !inInput && strings.Contains(msg, s) {
			t.Fatalf("message %q contains a secret", msg)
		}
		ts, perr := strconv.ParseInt(strings.TrimSpace(req.Header.Get(HeaderDigestTimestamp)), 10, 64)
		if perr == nil {
			if want := SignDigest(s, rel, req.Method, ts, body); strings.Contains(strings.ToLower(msg), want) {
				t.Fatalf("message %q contains the expected signature", msg)
			}
		}
	}
}

// FuzzRelativePath checks that RelativePath does not panic and returns a suffix of the path.
func FuzzRelativePath(f *testing.F) {
	for _, s := range [][2]string{
		{"/api/v2/hlr-lookup", BasePath}, {"/p/api/v2", "api/v2/"}, {"/API/v2/x/api/v2/y", BasePath},
		{"", ""}, {"/x", "/"}, {"/api/v2x", BasePath}, {"//", "//"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, path, base string) {
		rel, err := RelativePath(path, base)
		if err != nil {
			return
		}
		if !strings.HasPrefix(rel, "/") && strings.Trim(base, "/") != "" {
			t.Fatalf("RelativePath(%q, %q) = %q does not start with /", path, base, rel)
		}
		if rel != "/" && !strings.HasSuffix(path, rel) {
			t.Fatalf("RelativePath(%q, %q) = %q is not a suffix", path, base, rel)
		}
	})
}

// FuzzSignedAsSent sends a request path as a client writes it on the wire (any escaping) with
// a body, signed the ways the official clients sign: over the path as escaped on the wire, over
// the decoded path as it is, and over the empty body when the body is "[]" or "{}". Each must
// verify, a signature over another path or body must not, and nothing panics.
func FuzzSignedAsSent(f *testing.F) {
	for _, s := range [][2]string{
		{"/api/v2/reports/SYNC-API-2026-11", ""}, {"/api/v2/reports/Kunden%2FQ4%20%C3%BC-2026-11", ""},
		{"/api/v2/hlr-lookup", "[]"}, {"/api/v2/nt-lookup", "{}"}, {"/api/v2/reports/a%2fb%7E", "{ }"},
		{"/api/v2/reports/x%2Fapi%2Fv2%2Fy", ""}, {"/api/v2/reports/%25", "[]"}, {"/api/v2/r/%", ""},
	} {
		f.Add(s[0], s[1])
	}
	v := testVerifier(f)
	ts := testNow.Unix()
	f.Fuzz(func(t *testing.T, target, body string) {
		u, err := url.Parse("http://numen.test" + target)
		if err != nil || u.EscapedPath() != target || !strings.HasPrefix(target, BasePath+"/") {
			return // not a path as a client writes it on the wire, or not under the base
		}
		rel := strings.TrimPrefix(u.Path, BasePath)
		wire := strings.TrimPrefix(u.EscapedPath(), BasePath)
		verify := func(signed, signedBody string) error {
			req := &http.Request{Method: "POST", URL: u, Header: http.Header{
				HeaderDigestKey: {testKey}, HeaderDigestTimestamp: {strconv.FormatInt(ts, 10)},
				HeaderDigestSignature: {refDigest(testSecret, signed+strconv.FormatInt(ts, 10)+"POST"+signedBody)},
			}}
			_, err := v.Authenticate(req, rel, []byte(body), testNow)
			return err
		}
		for _, signed := range []string{wire, rel, string(appendLowerASCII(nil, rel))} {
			if err := verify(signed, body); err != nil {
				t.Fatalf("%q signed over %q: %v", target, signed, err)
			}
			emptyParams := body == "[]" || body == "{}"
			if err := verify(signed, ""); (err == nil) != (emptyParams || body == "") {
				t.Fatalf("%q with body %q signed over no body: %v", target, body, err)
			}
			if err := verify(signed+"x", body); err == nil {
				t.Fatalf("%q signed over another path %q: accepted", target, signed+"x")
			}
		}
	})
}

// FuzzWebhook checks that the webhook verifiers do not panic on any header and accept what the
// signers produce.
func FuzzWebhook(f *testing.F) {
	f.Add("demo-key", "demo-secret", []byte(`{"type":"NT","results":[]}`), "a;b;;", "msg_1", int64(1700000000), "v1,abc v2,x")
	f.Add("", "s", []byte(nil), strings.Repeat(";", 100), "", int64(0), "v1,")
	f.Add("k", "\x00", []byte("\xff"), " F36C ; ", "msg.with.dots", int64(-5), "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	f.Fuzz(func(t *testing.T, key, secret string, body []byte, header, msgID string, ts int64, swHeader string) {
		VerifyWebhook(key, []string{secret}, body, header)
		if !VerifyWebhook(key, []string{"another", secret}, body, WebhookSignatures(key, []string{"x", secret}, body)) {
			t.Fatal("signed delivery not verified")
		}

		v := StandardWebhookVerifier{Secrets: [][]byte{[]byte(secret)}}
		h := http.Header{HeaderWebhookID: {msgID}, HeaderWebhookTimestamp: {strconv.FormatInt(ts, 10)}, HeaderWebhookSignature: {swHeader}}
		if err := v.Verify(h, body, time.Unix(ts, 0)); err != nil && !errors.Is(err, ErrInvalidWebhook) {
			t.Fatalf("error %v does not wrap ErrInvalidWebhook", err)
		}

		if ts < 0 || strings.TrimSpace(msgID) != msgID || msgID == "" {
			return // not a delivery a sender would make
		}
		h = make(http.Header)
		SignStandardWebhook(h, [][]byte{[]byte("other"), []byte(secret)}, msgID, ts, body)
		if err := v.Verify(h, body, time.Unix(ts, 0)); err != nil {
			t.Fatalf("signed delivery: %v", err)
		}
	})
}
