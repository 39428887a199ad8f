package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WebhookSignature returns one signature of a webhook delivery, as the spec defines it: the
// lower-case hex SHA-256 of key + secret + body, plain concatenation without separators.
func WebhookSignature(key, secret string, body []byte) string {
	sum := webhookSum(key, secret, body)
	return hex.EncodeToString(sum[:])
}

func webhookSum(key, secret string, body []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(key))
	h.Write([]byte(secret))
	h.Write(body)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// WebhookSignatures returns the value of a delivery's X-Signatures header: one
// [WebhookSignature] per secret of the account, in the order given, joined by ";".
func WebhookSignatures(key string, secrets []string, body []byte) string {
	var b strings.Builder
	b.Grow(len(secrets) * (2*sha256.Size + 1))
	for i, s := range secrets {
		if i > 0 {
			b.WriteByte(';')
		}
		sum := webhookSum(key, s, body)
		var dst [2 * sha256.Size]byte
		hex.Encode(dst[:], sum[:])
		b.Write(dst[:])
	}
	return b.String()
}

// VerifyWebhook is the receiver's check of a delivery: it reports whether header (the value of
// X-Signatures) lists a signature equal to SHA-256(key + secret + body) for any of secrets, the
// receiver's copies of the account's secrets. Entries are separated by ";", may be surrounded
// by spaces and may use upper- or lower-case hex; entries that are not 64 hex digits are
// ignored. Comparisons take constant time.
func VerifyWebhook(key string, secrets []string, body []byte, header string) bool {
	if len(secrets) == 0 {
		return false
	}
	wants := make([][sha256.Size]byte, len(secrets))
	for i, s := range secrets {
		wants[i] = webhookSum(key, s, body)
	}
	matched := false
	for entry := range strings.SplitSeq(header, ";") {
		var got [sha256.Size]byte
		if !decodeHex32(&got, strings.TrimSpace(entry)) {
			continue
		}
		for i := range wants {
			if hmac.Equal(wants[i][:], got[:]) {
				matched = true
			}
		}
	}
	return matched
}

// Standard Webhooks (https://www.standardwebhooks.com/) headers, in canonical form.
const (
	HeaderWebhookID        = "Webhook-Id"
	HeaderWebhookTimestamp = "Webhook-Timestamp"
	HeaderWebhookSignature = "Webhook-Signature"
)

// DefaultWebhookTolerance is how far a Standard Webhooks timestamp may be from the receiver's
// clock, either side, as the standard recommends.
const DefaultWebhookTolerance = 5 * time.Minute

// StandardWebhookSecretPrefix starts a Standard Webhooks secret in its text form.
const StandardWebhookSecretPrefix = "whsec_"

// ErrInvalidWebhook is wrapped by every error of [StandardWebhookVerifier.Verify].
var ErrInvalidWebhook = errors.New("webhook not authentic")

// StandardWebhookSignature returns one Standard Webhooks signature:
//
//	"v1," + base64(HMAC-SHA256(secret, msgID + "." + decimal(timestamp) + "." + body))
//
// with standard base64 (padded). secret is the raw key: for a secret written "whsec_…", the
// bytes [DecodeStandardWebhookSecret] returns.
func StandardWebhookSignature(secret []byte, msgID string, timestamp int64, body []byte) string {
	var buf [128]byte
	prefix := appendStandardPrefix(buf[:0], msgID, strconv.FormatInt(timestamp, 10))
	var sum [sha256.Size]byte
	mac := standardMAC(sum[:0], secret, prefix, body)
	return "v1," + base64.StdEncoding.EncodeToString(mac)
}

func appendStandardPrefix(dst []byte, msgID, timestamp string) []byte {
	dst = append(dst, msgID...)
	dst = append(dst, '.')
	dst = append(dst, timestamp...)
	return append(dst, '.')
}

func standardMAC(dst, secret, prefix, body []byte) []byte {
	mac := hmac.New(sha256.New, secret)
	writeAll(mac, prefix, body)
	return mac.Sum(dst)
}

// DecodeStandardWebhookSecret returns the key bytes of a Standard Webhooks secret written as
// "whsec_" + base64; the prefix is optional. Its error does not repeat the secret.
func DecodeStandardWebhookSecret(s string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, StandardWebhookSecretPrefix))
	if err != nil {
		return nil, errors.New("auth: Standard Webhooks secret is not " + StandardWebhookSecretPrefix + " followed by standard base64")
	}
	if len(key) == 0 {
		return nil, errors.New("auth: Standard Webhooks secret is empty")
	}
	return key, nil
}

// SignStandardWebhook sets the Standard Webhooks headers of a delivery on h: webhook-id,
// webhook-timestamp, and webhook-signature with one [StandardWebhookSignature] per secret,
// separated by spaces. A retry keeps msgID and takes a fresh timestamp.
func SignStandardWebhook(h http.Header, secrets [][]byte, msgID string, timestamp int64, body []byte) {
	sigs := make([]string, len(secrets))
	for i, s := range secrets {
		sigs[i] = StandardWebhookSignature(s, msgID, timestamp, body)
	}
	h.Set(HeaderWebhookID, msgID)
	h.Set(HeaderWebhookTimestamp, strconv.FormatInt(timestamp, 10))
	h.Set(HeaderWebhookSignature, strings.Join(sigs, " "))
}

// StandardWebhookVerifier checks Standard Webhooks deliveries on the receiving side. Its zero
// Tolerance means [DefaultWebhookTolerance]. It is safe for concurrent use.
type StandardWebhookVerifier struct {
	// Secrets are the receiver's keys (raw bytes, see [DecodeStandardWebhookSecret]); a
	// signature made with any of them is accepted, so a secret can be rotated.
	Secrets [][]byte
	// Tolerance is how far webhook-timestamp may be from now, either side.
	Tolerance time.Duration
}

// Verify returns nil when h carries webhook-id, webhook-timestamp within Tolerance of now, and
// a webhook-signature list (space-separated "v1,<base64>" entries; other versions are ignored)
// with a signature of body made with one of the Secrets. Comparisons take constant time. Errors
// wrap [ErrInvalidWebhook] and name the header at fault.
func (v StandardWebhookVerifier) Verify(h http.Header, body []byte, now time.Time) error {
	msgID := value(h, HeaderWebhookID)
	tsText := value(h, HeaderWebhookTimestamp)
	sigs := value(h, HeaderWebhookSignature)
	for _, m := range [...]struct{ name, val string }{
		{HeaderWebhookID, msgID}, {HeaderWebhookTimestamp, tsText}, {HeaderWebhookSignature, sigs},
	} {
		if m.val == "" {
			return fmt.Errorf("%w: missing header %s", ErrInvalidWebhook, m.name)
		}
	}
	ts, ok := parseUnixSeconds(tsText)
	if !ok {
		return fmt.Errorf("%w: %s %s is not a Unix time in whole seconds",
			ErrInvalidWebhook, HeaderWebhookTimestamp, quoteShort(tsText))
	}
	tolerance := v.Tolerance
	if tolerance == 0 {
		tolerance = DefaultWebhookTolerance
	}
	if off, ahead := offset(ts, now.Unix()); off > uint64(tolerance/time.Second) {
		dir := "behind"
		if ahead {
			dir = "ahead of"
		}
		return fmt.Errorf("%w: %s %d is %d s %s the receiver's clock; allowed ±%d s",
			ErrInvalidWebhook, HeaderWebhookTimestamp, ts, off, dir, int64(tolerance/time.Second))
	}

	var buf [128]byte
	prefix := appendStandardPrefix(buf[:0], msgID, tsText)
	wants := make([][sha256.Size]byte, len(v.Secrets))
	for i, s := range v.Secrets {
		standardMAC(wants[i][:0], s, prefix, body)
	}
	matched := false
	for entry := range strings.FieldsSeq(sigs) {
		version, sig, ok := strings.Cut(entry, ",")
		if !ok || version != "v1" {
			continue
		}
		// A SHA-256 in padded base64 is 44 characters; the buffer takes anything up to 64.
		var got [48]byte
		if len(sig) > 64 {
			continue
		}
		n, err := base64.StdEncoding.Decode(got[:], []byte(sig))
		if err != nil || n != sha256.Size {
			continue
		}
		for i := range wants {
			if hmac.Equal(wants[i][:], got[:n]) {
				matched = true
			}
		}
	}
	if !matched {
		return fmt.Errorf("%w: no v1 signature in %s matches the body", ErrInvalidWebhook, HeaderWebhookSignature)
	}
	return nil
}
