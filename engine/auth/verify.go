package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxSkew is how far X-Digest-Timestamp may be from the server's clock, either side.
const DefaultMaxSkew = 30 * time.Second

// dummySecret stands in for the secret of an unknown API key, so that rejecting an unknown key
// costs the same HMAC as rejecting a bad signature. Its value does not matter.
const dummySecret = "numen-auth-dummy-secret-for-unknown-keys"

// Verifier authenticates requests to the lookup API. Build one with [NewVerifier]; it is
// immutable and safe for concurrent use as long as its [Credentials] are.
type Verifier struct {
	creds   Credentials
	xbasic  XBasicLookup // nil when creds cannot serve X-Basic
	maxSkew int64        // seconds
	macs    macCache
}

// VerifierOption configures [NewVerifier].
type VerifierOption func(*Verifier)

// WithMaxSkew sets how far X-Digest-Timestamp may be from the server's clock, either side;
// the default is [DefaultMaxSkew]. Timestamps are whole seconds, so d is truncated to whole
// seconds. It panics when d is negative.
func WithMaxSkew(d time.Duration) VerifierOption {
	if d < 0 {
		panic(fmt.Sprintf("auth: negative MaxSkew %v", d))
	}
	return func(v *Verifier) { v.maxSkew = int64(d / time.Second) }
}

// NewVerifier returns a Verifier that finds secrets in creds. When creds also implements
// [XBasicLookup], the Verifier accepts X-Basic; otherwise it rejects X-Basic with a message
// saying so. It panics when creds is nil.
func NewVerifier(creds Credentials, opts ...VerifierOption) *Verifier {
	if creds == nil {
		panic("auth: NewVerifier with nil Credentials")
	}
	v := &Verifier{creds: creds, maxSkew: int64(DefaultMaxSkew / time.Second)}
	v.xbasic, _ = creds.(XBasicLookup)
	for _, opt := range opts {
		opt(v)
	}
	return v
}

// MaxSkew returns how far X-Digest-Timestamp may be from the server's clock, either side.
func (v *Verifier) MaxSkew() time.Duration { return time.Duration(v.maxSkew) * time.Second }

// Identity is an authenticated caller.
type Identity struct {
	Key    string // the account's API key
	Method string // MethodDigest, MethodXBasic or MethodBasic
}

// Verify authenticates req and returns the API key of the account that sent it. It is
// [Verifier.Authenticate] without the method.
func (v *Verifier) Verify(req *http.Request, relPath string, body []byte, now time.Time) (key string, err error) {
	id, err := v.Authenticate(req, relPath, body, now)
	return id.Key, err
}

// Authenticate authenticates req and returns who sent it and how. relPath is the path relative
// to [BasePath] without query string (see [RelativePath]); body is the raw request body read by
// the caller (empty for GET); now is the server's clock.
//
// The first method present decides, in this order, and a request that fails it is rejected
// without trying the next:
//
//  1. digest, when any X-Digest-* header is present; all three must then be present and
//     non-empty;
//  2. X-Basic, when that header is present;
//  3. Authorization: Basic, when an Authorization header is present.
//
// With none of them the error's reason is ReasonMissingCredentials. Every error is an [*Error]
// and wraps [ErrUnauthorized]. Of a repeated header, the first value counts; values are trimmed
// of spaces.
func (v *Verifier) Authenticate(req *http.Request, relPath string, body []byte, now time.Time) (Identity, error) {
	h := req.Header
	switch {
	case present(h, HeaderDigestKey) || present(h, HeaderDigestSignature) || present(h, HeaderDigestTimestamp):
		return v.digest(req, relPath, body, now)
	case present(h, HeaderXBasic):
		return v.xBasic(h)
	case present(h, HeaderAuthorization):
		return v.basic(h)
	}
	return Identity{}, &Error{
		Reason: ReasonMissingCredentials,
		msg: "authentication required: send the headers X-Digest-Key, X-Digest-Signature and " +
			"X-Digest-Timestamp, or X-Basic, or Authorization: Basic",
	}
}

func present(h http.Header, name string) bool { return len(h.Values(name)) > 0 }

func value(h http.Header, name string) string { return strings.TrimSpace(h.Get(name)) }

func (v *Verifier) digest(req *http.Request, relPath string, body []byte, now time.Time) (Identity, error) {
	key := value(req.Header, HeaderDigestKey)
	sigText := value(req.Header, HeaderDigestSignature)
	tsText := value(req.Header, HeaderDigestTimestamp)

	var missing []string
	for _, m := range [...]struct{ name, val string }{
		{HeaderDigestKey, key}, {HeaderDigestSignature, sigText}, {HeaderDigestTimestamp, tsText},
	} {
		if m.val == "" {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		return Identity{}, &Error{
			Reason: ReasonIncompleteDigest, Method: MethodDigest, Header: missing[0], Key: key,
			msg: "incomplete digest authentication: missing " + strings.Join(missing, " and ") +
				"; send X-Digest-Key, X-Digest-Signature and X-Digest-Timestamp together",
		}
	}

	ts, ok := parseUnixSeconds(tsText)
	if !ok {
		return Identity{}, &Error{
			Reason: ReasonMalformedTimestamp, Method: MethodDigest, Header: HeaderDigestTimestamp, Key: key,
			msg: fmt.Sprintf("%s %s is not a Unix time in whole seconds (decimal digits, no sign)",
				HeaderDigestTimestamp, quoteShort(tsText)),
		}
	}
	if off, ahead := offset(ts, now.Unix()); off > uint64(v.maxSkew) {
		dir := "behind"
		if ahead {
			dir = "ahead of"
		}
		return Identity{}, &Error{
			Reason: ReasonStaleTimestamp, Method: MethodDigest, Header: HeaderDigestTimestamp, Key: key,
			msg: fmt.Sprintf("%s %d is %d s %s server time; allowed ±%d s (GET /time returns the server's clock)",
				HeaderDigestTimestamp, ts, off, dir, v.maxSkew),
		}
	}

	var got [sha256.Size]byte
	if !decodeHex32(&got, sigText) {
		return Identity{}, &Error{
			Reason: ReasonBadSignature, Method: MethodDigest, Header: HeaderDigestSignature, Key: key,
			msg: HeaderDigestSignature + " is not a hex-encoded HMAC-SHA256 (64 hexadecimal digits)",
		}
	}

	var buf [256]byte
	prefix := appendDigestPrefix(buf[:0], relPath, req.Method, ts)
	secrets, known := v.creds.Secrets(key)
	matched := 0
	if len(secrets) == 0 {
		// Spend one HMAC, as for a known key, so that timing does not tell whether the key exists.
		var sum [sha256.Size]byte
		_ = hmac.Equal(v.macs.sum(sum[:0], dummySecret, prefix, body), got[:])
	}
	for _, secret := range secrets {
		var sum [sha256.Size]byte
		if hmac.Equal(v.macs.sum(sum[:0], secret, prefix, body), got[:]) {
			matched = 1 // keep going: every secret costs the same whichever one matches
		}
	}
	if !known {
		return Identity{}, &Error{
			Reason: ReasonUnknownKey, Method: MethodDigest, Header: HeaderDigestKey, Key: key,
			msg: HeaderDigestKey + " is not a known API key",
		}
	}
	if matched == 0 {
		return Identity{}, &Error{
			Reason: ReasonBadSignature, Method: MethodDigest, Header: HeaderDigestSignature, Key: key,
			msg: fmt.Sprintf("%s does not match this request; the server signed path %s, timestamp %d, "+
				"method %s and a %d-byte body (path lower-cased, relative to %s, without query string)",
				HeaderDigestSignature, quoteShort(string(appendLowerASCII(nil, relPath))), ts,
				quoteShort(string(appendUpperASCII(nil, req.Method))), len(body), BasePath),
		}
	}
	return Identity{Key: key, Method: MethodDigest}, nil
}

func (v *Verifier) xBasic(h http.Header) (Identity, error) {
	fail := func(msg string) (Identity, error) {
		return Identity{}, &Error{Reason: ReasonBadBasicCredentials, Method: MethodXBasic, Header: HeaderXBasic, msg: msg}
	}
	var got [sha256.Size]byte
	if !decodeHex32(&got, value(h, HeaderXBasic)) {
		return fail(HeaderXBasic + ` is not a hex-encoded SHA-256 (64 hexadecimal digits) of "key:secret"`)
	}
	if v.xbasic == nil {
		return fail(HeaderXBasic + " authentication is not available on this server; use digest authentication or Authorization: Basic")
	}
	key, ok := v.xbasic.LookupXBasic(got)
	matched := 0
	if ok {
		// Check the store's answer: the hash must be one of this key's secrets.
		secrets, _ := v.creds.Secrets(key)
		for _, secret := range secrets {
			want := xbasicSum(key, secret)
			matched |= subtle.ConstantTimeCompare(want[:], got[:])
		}
	}
	if matched == 0 {
		return fail(HeaderXBasic + ` matches no API key and secret; it must be the hex SHA-256 of "key:secret"`)
	}
	return Identity{Key: key, Method: MethodXBasic}, nil
}

func (v *Verifier) basic(h http.Header) (Identity, error) {
	malformed := func(msg string) (Identity, error) {
		return Identity{}, &Error{Reason: ReasonMalformedAuthorization, Method: MethodBasic, Header: HeaderAuthorization, msg: msg}
	}
	// Never echo the header: it holds the secret.
	scheme, creds, _ := strings.Cut(value(h, HeaderAuthorization), " ")
	if !equalFoldASCII(scheme, "Basic") {
		return malformed("Authorization header is not Basic; use Authorization: Basic base64(key:secret), X-Basic or digest authentication")
	}
	creds = strings.TrimSpace(creds)
	raw, err := base64.StdEncoding.DecodeString(creds)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(creds)
	}
	if err != nil {
		return malformed("Authorization: Basic credentials are not valid base64")
	}
	key, secret, ok := strings.Cut(string(raw), ":")
	if !ok {
		return malformed("Authorization: Basic credentials have no colon between API key and secret")
	}
	if key == "" {
		return malformed("Authorization: Basic credentials have an empty API key")
	}

	// Compare hashes, so the comparison's time does not depend on the secrets' lengths.
	got := sha256.Sum256([]byte(secret))
	secrets, known := v.creds.Secrets(key)
	matched := 0
	if len(secrets) == 0 {
		want := sha256.Sum256([]byte(dummySecret))
		_ = subtle.ConstantTimeCompare(want[:], got[:])
	}
	for _, s := range secrets {
		want := sha256.Sum256([]byte(s))
		matched |= subtle.ConstantTimeCompare(want[:], got[:])
	}
	if !known {
		return Identity{}, &Error{
			Reason: ReasonUnknownKey, Method: MethodBasic, Header: HeaderAuthorization, Key: key,
			msg: "Authorization: Basic names an API key that is not known",
		}
	}
	if matched == 0 {
		return Identity{}, &Error{
			Reason: ReasonBadBasicCredentials, Method: MethodBasic, Header: HeaderAuthorization, Key: key,
			msg: "Authorization: Basic secret does not match the API key",
		}
	}
	return Identity{Key: key, Method: MethodBasic}, nil
}

// parseUnixSeconds parses a canonical non-negative decimal integer: digits only, no sign, no
// leading zeros. Canonical form means the header text is exactly what both sides sign.
func parseUnixSeconds(s string) (int64, bool) {
	if s == "" || len(s) > 19 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// offset returns |ts − now| without overflow, and whether ts is ahead of now.
func offset(ts, now int64) (diff uint64, ahead bool) {
	if ts >= now {
		return uint64(ts) - uint64(now), ts > now
	}
	return uint64(now) - uint64(ts), false
}

// decodeHex32 decodes 64 hexadecimal digits, either case, into dst.
func decodeHex32(dst *[sha256.Size]byte, s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	_, err := hex.Decode(dst[:], []byte(s))
	return err == nil
}

// quoteShort quotes s for a message, cut to a length that keeps messages readable.
func quoteShort(s string) string {
	const limit = 64
	if len(s) > limit {
		return strconv.Quote(s[:limit]) + "…"
	}
	return strconv.Quote(s)
}
