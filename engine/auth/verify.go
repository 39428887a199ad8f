package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
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
// the caller (empty for GET); now is the server's clock. It is [Verifier.Begin] and
// [Verifier.Finish] in one call.
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
// of spaces. An unknown API key and a wrong secret or signature get the same message, and cost
// the same time.
func (v *Verifier) Authenticate(req *http.Request, relPath string, body []byte, now time.Time) (Identity, error) {
	p, err := v.Begin(req, relPath, now)
	if err != nil {
		var ae *Error
		if errors.As(err, &ae) && ae.Reason == ReasonUnknownKey && ae.Method == MethodDigest {
			// Spend the HMAC a known key costs, so that timing does not tell whether the
			// key exists.
			var sum [sha256.Size]byte
			var buf [256]byte
			prefix := appendDigestPrefix(buf[:0], relPath, req.Method, p.timestamp)
			_ = hmac.Equal(v.macs.sum(sum[:0], dummySecret, prefix, body), p.signature[:])
		}
		return Identity{}, err
	}
	return v.Finish(&p, req, relPath, body)
}

// Pending is a request's credentials checked as far as they can be without its body: what
// [Verifier.Begin] returns and [Verifier.Finish] completes.
type Pending struct {
	// Key and Method are the API key and the method the request presents. After Begin
	// without an error, the key is one the credentials know.
	Key, Method string
	// Done is true when nothing is left to check: X-Basic and Authorization: Basic, which
	// do not sign the body, are checked whole by Begin.
	Done      bool
	timestamp int64
	signature [sha256.Size]byte
}

// Begin checks what can be checked of a request's credentials before its body is read: the
// method, the headers' form, the digest timestamp's window, that the API key is known, and the
// whole of X-Basic and Basic authentication. A server calls it before reading a body, so that
// a client without a known key cannot make it buffer one, then checks the account's whitelist,
// reads the body and calls [Verifier.Finish]. Its errors are those of
// [Verifier.Authenticate]. It answers an unknown digest key without waiting for the body, so
// its timing differs from a known key's: API keys name accounts, the secrets stay secret.
func (v *Verifier) Begin(req *http.Request, relPath string, now time.Time) (Pending, error) {
	h := req.Header
	switch {
	case present(h, HeaderDigestKey) || present(h, HeaderDigestSignature) || present(h, HeaderDigestTimestamp):
		return v.digestBegin(req, relPath, now)
	case present(h, HeaderXBasic):
		id, err := v.xBasic(h)
		return Pending{Key: id.Key, Method: MethodXBasic, Done: err == nil}, err
	case present(h, HeaderAuthorization):
		id, err := v.basic(h)
		return Pending{Key: id.Key, Method: MethodBasic, Done: err == nil}, err
	}
	return Pending{}, &Error{
		Reason: ReasonMissingCredentials,
		msg: "authentication required: send the headers X-Digest-Key, X-Digest-Signature and " +
			"X-Digest-Timestamp, or X-Basic, or Authorization: Basic",
	}
}

// Finish completes the authentication that [Verifier.Begin] began on the same request, with
// its body: for digest authentication it checks the signature over relPath, the method, the
// timestamp and the body.
//
// The signed path may be written three ways, and each is accepted: relPath lower-cased (the
// specification's rule), relPath as it is (a client that signs a report's name as it writes
// it, /reports/SYNC-API-2026-11), and the path as the client escaped it on the wire
// (req.URL.EscapedPath(), relative to the same base: a client that signs
// /reports/Kunden%2FQ4-2026-11 as it sends it). The signed body is the body as received; a
// body of exactly "[]" or "{}" (a request without parameters, as clients written in PHP and
// Ruby send it) is also accepted signed as the empty body they sign. Each form costs one more
// HMAC per secret, and only for requests where it differs from the others.
func (v *Verifier) Finish(p *Pending, req *http.Request, relPath string, body []byte) (Identity, error) {
	if p.Done {
		return Identity{Key: p.Key, Method: p.Method}, nil
	}
	if p.Method != MethodDigest || p.Key == "" {
		return Identity{}, &Error{Reason: ReasonMissingCredentials, msg: "auth: Finish without a successful Begin"}
	}
	// The buffer escapes to the heap (the HMAC's Write is an interface
	// call): one for the common case, the other forms only when they differ.
	var buf [256]byte
	var prefixes [3][]byte
	prefixes[0] = appendDigestPrefix(buf[:0], relPath, req.Method, p.timestamp)
	n := 1
	// The path as sent is signed too by clients that keep a report name's
	// case; checked only when it differs from the lower-cased one.
	if hasUpperASCII(relPath) {
		prefixes[n] = appendSignedText(nil, relPath, req.Method, p.timestamp)
		n++
	}
	if esc, ok := escapedRelPath(req, relPath); ok {
		prefixes[n] = appendSignedText(nil, esc, req.Method, p.timestamp)
		n++
	}
	bodies := [2][]byte{body}
	nb := 1
	if isEmptyParams(body) {
		nb = 2 // bodies[1] is the empty body
	}
	secrets, _ := v.creds.Secrets(p.Key)
	matched := 0
	for _, secret := range secrets {
		for _, prefix := range prefixes[:n] {
			for _, b := range bodies[:nb] {
				var sum [sha256.Size]byte
				if hmac.Equal(v.macs.sum(sum[:0], secret, prefix, b), p.signature[:]) {
					matched = 1 // keep going: every secret costs the same whichever one matches
				}
			}
		}
	}
	if matched == 0 {
		return Identity{}, digestMismatch(ReasonBadSignature, req, p.Key, relPath, p.timestamp)
	}
	return Identity{Key: p.Key, Method: MethodDigest}, nil
}

// appendSignedText appends the signed text that precedes the body with the path as it is
// (not lower-cased).
func appendSignedText(dst []byte, path, method string, timestamp int64) []byte {
	dst = append(dst, path...)
	dst = strconv.AppendInt(dst, timestamp, 10)
	return appendUpperASCII(dst, method)
}

// isEmptyParams reports whether body is exactly "[]" or "{}": the JSON encoding of no
// parameters that PHP's json_encode(array()) and Ruby's {}.to_json send for a request their
// clients sign over an empty body.
func isEmptyParams(body []byte) bool {
	return len(body) == 2 && (body[0] == '[' && body[1] == ']' || body[0] == '{' && body[1] == '}')
}

// escapedRelPath returns the request's path relative to the base as the client escaped it
// (url.URL.EscapedPath), when it differs from relPath, the decoded one: the part of the escaped
// path after a base segment whose unescaping is relPath, or the whole escaped path when relPath
// is the whole decoded one. A path that needs no escaping, sent without any, costs a scan and
// allocates nothing.
func escapedRelPath(req *http.Request, relPath string) (string, bool) {
	if req.URL == nil || req.URL.RawPath == "" && !needsEscaping(req.URL.Path) {
		return "", false
	}
	esc := req.URL.EscapedPath()
	if esc == req.URL.Path {
		return "", false
	}
	// A caller that signs the whole path (the report pages, outside the base).
	if dec, err := url.PathUnescape(esc); err == nil && dec == relPath {
		return esc, true
	}
	// The base may occur in the path again (a report named "x/api/v2/y"): take the
	// occurrence whose remainder unescapes to relPath.
	for i := 0; i+len(BasePath) <= len(esc); i++ {
		end := i + len(BasePath)
		if !equalFoldASCII(esc[i:end], BasePath) || (end < len(esc) && esc[end] != '/') {
			continue
		}
		rest := esc[end:]
		if rest == "" {
			rest = "/"
		}
		if dec, err := url.PathUnescape(rest); err == nil && dec == relPath && rest != relPath {
			return rest, true
		}
	}
	return "", false
}

// needsEscaping reports whether net/url's EscapedPath escapes a byte of the decoded path p:
// anything but letters, digits and -._~$&+,/:;=@ (it escapes !'()* too).
func needsEscaping(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-._~$&+,/:;=@", c) >= 0:
		default:
			return true
		}
	}
	return false
}

// Timestamp returns the digest timestamp (Unix seconds) of a digest request, 0 for others.
func (p *Pending) Timestamp() int64 { return p.timestamp }

// Signature returns the digest signature of a digest request as sent (decoded), zero for
// others: with the key and timestamp, what a [ReplayGuard] remembers.
func (p *Pending) Signature() [sha256.Size]byte { return p.signature }

func hasUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

func present(h http.Header, name string) bool { return len(h.Values(name)) > 0 }

func value(h http.Header, name string) string { return strings.TrimSpace(h.Get(name)) }

func (v *Verifier) digestBegin(req *http.Request, relPath string, now time.Time) (Pending, error) {
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
		return Pending{}, &Error{
			Reason: ReasonIncompleteDigest, Method: MethodDigest, Header: missing[0], Key: key,
			msg: "incomplete digest authentication: missing " + strings.Join(missing, " and ") +
				"; send X-Digest-Key, X-Digest-Signature and X-Digest-Timestamp together",
		}
	}

	ts, ok := parseUnixSeconds(tsText)
	if !ok {
		return Pending{}, &Error{
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
		return Pending{}, &Error{
			Reason: ReasonStaleTimestamp, Method: MethodDigest, Header: HeaderDigestTimestamp, Key: key,
			msg: fmt.Sprintf("%s %d is %d s %s server time; allowed ±%d s (GET /time returns the server's clock)",
				HeaderDigestTimestamp, ts, off, dir, v.maxSkew),
		}
	}

	p := Pending{Key: key, Method: MethodDigest, timestamp: ts}
	if !decodeHex32(&p.signature, sigText) {
		return Pending{}, &Error{
			Reason: ReasonBadSignature, Method: MethodDigest, Header: HeaderDigestSignature, Key: key,
			msg: HeaderDigestSignature + " is not a hex-encoded HMAC-SHA256 (64 hexadecimal digits)",
		}
	}
	if secrets, known := v.creds.Secrets(key); !known {
		return p, digestMismatch(ReasonUnknownKey, req, key, relPath, ts)
	} else if len(secrets) == 0 {
		return p, digestMismatch(ReasonBadSignature, req, key, relPath, ts)
	}
	return p, nil
}

// digestMismatch is the error of an unknown API key and of a signature that does not match:
// one message for both, so that it does not tell whether the key exists. It gives the body's
// length from Content-Length, which Begin knows too (a server reads a body of that length).
func digestMismatch(reason Reason, req *http.Request, key, relPath string, ts int64) *Error {
	body := "the body as received (no Content-Length)"
	if req.ContentLength >= 0 {
		body = fmt.Sprintf("a %d-byte body", req.ContentLength)
	}
	return &Error{
		Reason: reason, Method: MethodDigest, Header: HeaderDigestSignature, Key: key,
		msg: fmt.Sprintf("%s does not match the API key and this request; the server signed path %s, timestamp %d, "+
			"method %s and %s (path lower-cased or as sent, relative to %s, without query string)",
			HeaderDigestSignature, quoteShort(string(appendLowerASCII(nil, relPath))), ts,
			quoteShort(string(appendUpperASCII(nil, req.Method))), body, BasePath),
	}
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
	if !known || matched == 0 {
		// One message for both, so that it does not tell whether the key exists.
		reason := ReasonBadBasicCredentials
		if !known {
			reason = ReasonUnknownKey
		}
		return Identity{}, &Error{
			Reason: reason, Method: MethodBasic, Header: HeaderAuthorization, Key: key,
			msg: "Authorization: Basic API key and secret do not match an account",
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
