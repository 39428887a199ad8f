package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestWebhookSignaturesKnownAnswers(t *testing.T) {
	t.Parallel()
	body := []byte(`{"type":"NT","results":[]}`)
	// The values printed in the package documentation.
	const (
		first  = "f36c14e6d1fba5c32eb4f561ce3ad5ae4e9a5ce6b01aec08047d0341c3da6946"
		second = "f890ac5f9e1ceca49b51644700def9d197c2bd8ad6659909fce234c0d02a31f0"
	)
	require.Equal(t, refSHA256(`demo-keydemo-secret{"type":"NT","results":[]}`), first)
	require.Equal(t, refSHA256(`demo-keynext-secret{"type":"NT","results":[]}`), second)

	require.Equal(t, first, WebhookSignature("demo-key", "demo-secret", body))
	require.Equal(t, first+";"+second, WebhookSignatures("demo-key", []string{"demo-secret", "next-secret"}, body))
	require.Equal(t, first, WebhookSignatures("demo-key", []string{"demo-secret"}, body))
	require.Empty(t, WebhookSignatures("demo-key", nil, body))
	require.Equal(t, refSHA256("demo-keydemo-secret"), WebhookSignatures("demo-key", []string{"demo-secret"}, nil))
}

func TestVerifyWebhook(t *testing.T) {
	t.Parallel()
	body := []byte(`{"type":"HLR","results":[{"id":"abc123def456"}]}`)
	both := WebhookSignatures(testKey, []string{testSecret, testSecret2}, body)
	sig1 := WebhookSignature(testKey, testSecret, body)
	sig2 := WebhookSignature(testKey, testSecret2, body)
	tests := []struct {
		name    string
		key     string
		secrets []string // the receiver's
		body    []byte
		header  string
		want    bool
	}{
		{name: "both listed, receiver has both", secrets: []string{testSecret, testSecret2}, header: both, want: true},
		{name: "both listed, receiver has the first", secrets: []string{testSecret}, header: both, want: true},
		{name: "both listed, receiver has the second", secrets: []string{testSecret2}, header: both, want: true},
		{name: "one listed, receiver has another too", secrets: []string{otherSecret, testSecret2}, header: sig2, want: true},
		{name: "upper-case hex and spaces", secrets: []string{testSecret}, header: " " + strings.ToUpper(sig1) + " ; " + sig2, want: true},
		{name: "garbage entries ignored", secrets: []string{testSecret2}, header: "x;;" + sig1[:10] + ";" + sig2 + ";", want: true},
		{name: "receiver has neither", secrets: []string{otherSecret}, header: both},
		{name: "receiver has no secret", secrets: nil, header: both},
		{name: "other key", key: otherKey, secrets: []string{testSecret}, header: both},
		{name: "tampered body", secrets: []string{testSecret}, body: append([]byte(nil), append(body, ' ')...), header: both},
		{name: "empty header", secrets: []string{testSecret}, header: ""},
		{name: "comma-separated is not the format", secrets: []string{testSecret2}, header: sig1 + "," + sig2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := tt.key
			if key == "" {
				key = testKey
			}
			b := body
			if tt.body != nil {
				b = tt.body
			}
			require.Equal(t, tt.want, VerifyWebhook(key, tt.secrets, b, tt.header))
		})
	}
}

// The Standard Webhooks test vector, published with the standard's reference libraries.
const (
	swSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	swMsgID     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	swTimestamp = int64(1614265330)
	swBody      = `{"test": 2432232314}`
	swSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestStandardWebhookSignatureKnownAnswer(t *testing.T) {
	t.Parallel()
	secret, err := DecodeStandardWebhookSecret(swSecret)
	require.NoError(t, err)
	require.Equal(t, swSignature, StandardWebhookSignature(secret, swMsgID, swTimestamp, []byte(swBody)))

	// The same, computed directly.
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(swSecret, "whsec_"))
	require.NoError(t, err)
	mac := hmac.New(sha256.New, raw)
	mac.Write([]byte(swMsgID + "." + strconv.FormatInt(swTimestamp, 10) + "." + swBody))
	require.Equal(t, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)), swSignature)

	// The prefix is optional.
	secret2, err := DecodeStandardWebhookSecret(strings.TrimPrefix(swSecret, "whsec_"))
	require.NoError(t, err)
	require.Equal(t, secret, secret2)
}

func TestDecodeStandardWebhookSecret(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"whsec_", "", "whsec_not base64!", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS"} {
		_, err := DecodeStandardWebhookSecret(s)
		require.Error(t, err, s)
		if len(s) > len("whsec_") {
			require.NotContains(t, err.Error(), s[len("whsec_"):])
		}
	}
}

func TestStandardWebhookVerifier(t *testing.T) {
	t.Parallel()
	published, err := DecodeStandardWebhookSecret(swSecret)
	require.NoError(t, err)
	oldSecret := []byte("an older secret of the endpoint")
	body := []byte(`{"type":"NT","results":[]}`)
	now := time.Unix(1700000000, 0)
	signed := func(secrets [][]byte, ts int64) http.Header {
		h := make(http.Header)
		SignStandardWebhook(h, secrets, "msg_1", ts, body)
		return h
	}
	set := func(h http.Header, kv ...string) http.Header {
		h = h.Clone()
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	del := func(h http.Header, name string) http.Header {
		h = h.Clone()
		h.Del(name)
		return h
	}
	good := signed([][]byte{published}, now.Unix())

	tests := []struct {
		name      string
		secrets   [][]byte // the receiver's
		tolerance time.Duration
		header    http.Header
		body      []byte
		now       time.Time
		errHas    string // "" means accepted
	}{
		{name: "signed", header: good},
		{
			name: "published vector", now: time.Unix(swTimestamp, 0), body: []byte(swBody),
			header: http.Header{"Webhook-Id": {swMsgID}, "Webhook-Timestamp": {"1614265330"}, "Webhook-Signature": {swSignature}},
		},
		{name: "two signatures, rotation", header: signed([][]byte{oldSecret, published}, now.Unix())},
		{name: "receiver still on the old secret", secrets: [][]byte{oldSecret}, header: signed([][]byte{oldSecret, published}, now.Unix())},
		{name: "receiver has two, sender one", secrets: [][]byte{oldSecret, published}, header: good},
		{name: "other versions ignored", header: set(good, HeaderWebhookSignature, "v1a,xyz v2,abc  "+good.Get(HeaderWebhookSignature))},
		{name: "300 s old", header: signed([][]byte{published}, now.Unix()-300)},
		{name: "300 s ahead", header: signed([][]byte{published}, now.Unix()+300)},
		{name: "301 s old", header: signed([][]byte{published}, now.Unix()-301), errHas: "Webhook-Timestamp 1699999699 is 301 s behind the receiver's clock; allowed ±300 s"},
		{name: "301 s ahead", header: signed([][]byte{published}, now.Unix()+301), errHas: "301 s ahead of"},
		{name: "custom tolerance", tolerance: time.Hour, header: signed([][]byte{published}, now.Unix()-3600)},
		{name: "custom tolerance exceeded", tolerance: time.Minute, header: signed([][]byte{published}, now.Unix()-61), errHas: "allowed ±60 s"},
		{name: "tampered body", body: []byte(`{"type":"NT","results":[{}]}`), header: good, errHas: "no v1 signature in Webhook-Signature matches the body"},
		{name: "other id", header: set(good, HeaderWebhookID, "msg_2"), errHas: "no v1 signature"},
		{name: "other secret", secrets: [][]byte{oldSecret}, header: good, errHas: "no v1 signature"},
		{name: "no receiver secret", secrets: [][]byte{}, header: good, errHas: "no v1 signature"},
		{name: "only other versions", header: set(good, HeaderWebhookSignature, "v2,"+strings.TrimPrefix(good.Get(HeaderWebhookSignature), "v1,")), errHas: "no v1 signature"},
		{name: "signature not base64", header: set(good, HeaderWebhookSignature, "v1,!!!"), errHas: "no v1 signature"},
		{name: "signature too long", header: set(good, HeaderWebhookSignature, "v1,"+strings.Repeat("A", 200)), errHas: "no v1 signature"},
		{name: "missing id", header: del(good, HeaderWebhookID), errHas: "missing header Webhook-Id"},
		{name: "missing timestamp", header: del(good, HeaderWebhookTimestamp), errHas: "missing header Webhook-Timestamp"},
		{name: "missing signature", header: del(good, HeaderWebhookSignature), errHas: "missing header Webhook-Signature"},
		{name: "malformed timestamp", header: set(good, HeaderWebhookTimestamp, "1700000000.0"), errHas: `Webhook-Timestamp "1700000000.0" is not a Unix time`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := StandardWebhookVerifier{Secrets: [][]byte{published}, Tolerance: tt.tolerance}
			if tt.secrets != nil {
				v.Secrets = tt.secrets
			}
			b := body
			if tt.body != nil {
				b = tt.body
			}
			n := now
			if !tt.now.IsZero() {
				n = tt.now
			}
			err := v.Verify(tt.header, b, n)
			if tt.errHas == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalidWebhook)
			require.ErrorContains(t, err, tt.errHas)
		})
	}
}

func TestSignStandardWebhookHeaders(t *testing.T) {
	t.Parallel()
	secret, err := DecodeStandardWebhookSecret(swSecret)
	require.NoError(t, err)
	h := make(http.Header)
	SignStandardWebhook(h, [][]byte{secret, secret}, swMsgID, swTimestamp, []byte(swBody))
	require.Equal(t, swMsgID, h.Get("webhook-id"))
	require.Equal(t, "1614265330", h.Get("webhook-timestamp"))
	require.Equal(t, swSignature+" "+swSignature, h.Get("webhook-signature"))
}
