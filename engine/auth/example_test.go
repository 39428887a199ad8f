package auth_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/numenhq/numen/engine/auth"
)

func ExampleSignDigest() {
	// POST /api/v2/hlr-lookup at Unix time 1700000000: the path is relative to /api/v2.
	body := []byte(`{"msisdn":"+14156226819"}`)
	fmt.Println(auth.SignDigest("demo-secret", "/hlr-lookup", "POST", 1700000000, body))
	// Output: 0074d4248681d9f99ce67776f39795dfce161a8ad42bb4ae92e26ea2a8336f12
}

func ExampleSignRequest() {
	// A client whose base URL has its own prefix; the query string is not signed.
	req, _ := http.NewRequest(http.MethodGet, "https://lookup.example.com/numen/api/v2/route?msisdn=%2B14156226819", nil)
	if err := auth.SignRequest(req, "demo-key", "demo-secret", time.Unix(1700000000, 0), nil); err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range []string{auth.HeaderDigestKey, auth.HeaderDigestTimestamp, auth.HeaderDigestSignature} {
		fmt.Printf("%s: %s\n", h, req.Header.Get(h))
	}
	// Output:
	// X-Digest-Key: demo-key
	// X-Digest-Timestamp: 1700000000
	// X-Digest-Signature: 02751dcd3542ca7e33373bf37205e56f228794feb036bd081ae32c329dfeafa9
}

func ExampleRelativePath() {
	for _, p := range []string{"/api/v2/hlr-lookup", "/numen/api/v2/routes", "/v1/route"} {
		rel, err := auth.RelativePath(p, auth.BasePath)
		fmt.Printf("%q %v\n", rel, err)
	}
	// Output:
	// "/hlr-lookup" <nil>
	// "/routes" <nil>
	// "" auth: path "/v1/route" does not contain the base path "/api/v2"
}

func ExampleVerifier() {
	creds, err := auth.NewStaticCredentials(map[string][]string{
		"demo-key": {"demo-secret", "next-secret"}, // rotating: both secrets work
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	v := auth.NewVerifier(creds)
	now := time.Unix(1700000000, 0)

	// What a server does with each request; body is the raw body it read.
	verify := func(req *http.Request, body []byte) {
		rel, err := auth.RelativePath(req.URL.Path, auth.BasePath)
		if err != nil {
			fmt.Println(err)
			return
		}
		key, err := v.Verify(req, rel, body, now)
		if err != nil {
			fmt.Println("401:", err)
			return
		}
		fmt.Println("authenticated:", key)
	}

	body := []byte(`{"msisdn":"+14156226819"}`)
	req := httptest.NewRequest(http.MethodPost, "/api/v2/hlr-lookup", strings.NewReader(string(body)))
	_ = auth.SignRequest(req, "demo-key", "next-secret", now, body)
	verify(req, body)

	// Signed 31 s before the server's clock.
	req = httptest.NewRequest(http.MethodGet, "/api/v2/routes", nil)
	_ = auth.SignRequest(req, "demo-key", "demo-secret", now.Add(-31*time.Second), nil)
	verify(req, nil)

	req = httptest.NewRequest(http.MethodGet, "/api/v2/routes", nil)
	req.Header.Set(auth.HeaderXBasic, auth.XBasic("demo-key", "wrong-secret"))
	verify(req, nil)

	req = httptest.NewRequest(http.MethodGet, "/api/v2/routes", nil)
	verify(req, nil)
	// Output:
	// authenticated: demo-key
	// 401: X-Digest-Timestamp 1699999969 is 31 s behind server time; allowed ±30 s (GET /time returns the server's clock)
	// 401: X-Basic matches no API key and secret; it must be the hex SHA-256 of "key:secret"
	// 401: authentication required: send the headers X-Digest-Key, X-Digest-Signature and X-Digest-Timestamp, or X-Basic, or Authorization: Basic
}

func ExampleXBasic() {
	fmt.Println(auth.XBasic("demo-key", "demo-secret"))
	// Output: 148a0900d1850f88dcf294b4d899e93f1e0c53dc6b22abb516728ace3b71d6aa
}

func ExampleBasicHeader() {
	fmt.Println(auth.BasicHeader("demo-key", "demo-secret"))
	// Output: Basic ZGVtby1rZXk6ZGVtby1zZWNyZXQ=
}

func ExampleWebhookSignatures() {
	body := []byte(`{"type":"NT","results":[]}`)
	header := auth.WebhookSignatures("demo-key", []string{"demo-secret", "next-secret"}, body)
	for sig := range strings.SplitSeq(header, ";") {
		fmt.Println(sig)
	}
	// Output:
	// f36c14e6d1fba5c32eb4f561ce3ad5ae4e9a5ce6b01aec08047d0341c3da6946
	// f890ac5f9e1ceca49b51644700def9d197c2bd8ad6659909fce234c0d02a31f0
}

func ExampleVerifyWebhook() {
	body := []byte(`{"type":"NT","results":[]}`)
	header := auth.WebhookSignatures("demo-key", []string{"demo-secret", "next-secret"}, body)

	// The receiver knows only the new secret.
	fmt.Println(auth.VerifyWebhook("demo-key", []string{"next-secret"}, body, header))
	fmt.Println(auth.VerifyWebhook("demo-key", []string{"next-secret"}, []byte(`{"type":"NT"}`), header))
	// Output:
	// true
	// false
}

func ExampleStandardWebhookSignature() {
	// The test vector published with the Standard Webhooks reference libraries.
	secret, err := auth.DecodeStandardWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(auth.StandardWebhookSignature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`)))
	// Output: v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=
}

func ExampleStandardWebhookVerifier_Verify() {
	secret, _ := auth.DecodeStandardWebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	body := []byte(`{"type":"HLR","results":[]}`)
	sent := time.Unix(1700000000, 0)

	// Sender.
	h := make(http.Header)
	auth.SignStandardWebhook(h, [][]byte{secret}, "msg_2Yx9", sent.Unix(), body)

	// Receiver.
	v := auth.StandardWebhookVerifier{Secrets: [][]byte{secret}}
	fmt.Println(v.Verify(h, body, sent.Add(10*time.Second)))
	fmt.Println(v.Verify(h, body, sent.Add(6*time.Minute)))
	// Output:
	// <nil>
	// webhook not authentic: Webhook-Timestamp 1700000000 is 360 s behind the receiver's clock; allowed ±300 s
}

// The hosted API's official clients sign the path as the caller wrote it
// and sign a call without parameters over an empty body while sending "[]"
// (PHP) or "{}" (Ruby): a Verifier accepts both.
func ExampleVerifier_Finish_officialClients() {
	creds, err := auth.NewStaticCredentials(map[string][]string{"demo-key": {"demo-secret"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	v := auth.NewVerifier(creds)
	now := time.Unix(1700000000, 0)
	// What the clients compute: HMAC-SHA256 over the text as they build
	// it, path not lower-cased ([auth.SignDigest] would lower-case it).
	hmacHex := func(text string) string {
		mac := hmac.New(sha256.New, []byte("demo-secret"))
		mac.Write([]byte(text))
		return hex.EncodeToString(mac.Sum(nil))
	}
	for _, c := range []struct{ method, target, body, signed string }{
		{"GET", "/api/v2/reports/SYNC-API-2026-11", "", "/reports/SYNC-API-2026-111700000000GET"},
		{"GET", "/api/v2/reports/Kunden%2FQ4-2026-11", "", "/reports/Kunden%2FQ4-2026-111700000000GET"},
		{"POST", "/api/v2/hlr-lookup", "[]", "/hlr-lookup1700000000POST"},
	} {
		req := httptest.NewRequest(c.method, "http://numen.test"+c.target, strings.NewReader(c.body))
		req.Header.Set(auth.HeaderDigestKey, "demo-key")
		req.Header.Set(auth.HeaderDigestTimestamp, "1700000000")
		req.Header.Set(auth.HeaderDigestSignature, hmacHex(c.signed))
		rel := strings.TrimPrefix(req.URL.Path, auth.BasePath) // the decoded path
		id, err := v.Authenticate(req, rel, []byte(c.body), now)
		fmt.Println(c.method, c.target, id.Key, err)
	}
	// Output:
	// GET /api/v2/reports/SYNC-API-2026-11 demo-key <nil>
	// GET /api/v2/reports/Kunden%2FQ4-2026-11 demo-key <nil>
	// POST /api/v2/hlr-lookup demo-key <nil>
}
