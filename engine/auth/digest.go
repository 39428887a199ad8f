package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names of the lookup API's authentication and of its webhook deliveries.
const (
	HeaderDigestKey       = "X-Digest-Key"
	HeaderDigestSignature = "X-Digest-Signature"
	HeaderDigestTimestamp = "X-Digest-Timestamp"
	HeaderXBasic          = "X-Basic"
	HeaderAuthorization   = "Authorization"
	// HeaderSignatures carries a webhook delivery's signatures (see [WebhookSignatures]).
	HeaderSignatures = "X-Signatures"
)

// BasePath is the path prefix of every endpoint of the lookup API, version 2. Signed paths are
// relative to it.
const BasePath = "/api/v2"

// SignDigest returns the digest signature of one request: the lower-case hex encoding of
//
//	HMAC-SHA256(secret, lower(path) + decimal(timestamp) + upper(method) + body)
//
// path is the endpoint path relative to [BasePath] (for example "/hlr-lookup"), without query
// string; SignDigest lower-cases it (ASCII letters only) and upper-cases method, so callers need
// not. timestamp is Unix time in seconds, the same value sent in X-Digest-Timestamp. body is the
// raw request body, empty for GET.
func SignDigest(secret, path, method string, timestamp int64, body []byte) string {
	var buf [256]byte
	msg := appendDigestPrefix(buf[:0], path, method, timestamp)
	var sum [sha256.Size]byte
	return hex.EncodeToString(digestMAC(sum[:0], []byte(secret), msg, body))
}

// appendDigestPrefix appends the signed text that precedes the body: lower(path), the decimal
// timestamp and upper(method).
func appendDigestPrefix(dst []byte, path, method string, timestamp int64) []byte {
	dst = appendLowerASCII(dst, path)
	dst = strconv.AppendInt(dst, timestamp, 10)
	return appendUpperASCII(dst, method)
}

// digestMAC appends HMAC-SHA256(secret, prefix + body) to dst.
func digestMAC(dst, secret, prefix, body []byte) []byte {
	mac := hmac.New(sha256.New, secret)
	writeAll(mac, prefix, body)
	return mac.Sum(dst)
}

func writeAll(h hash.Hash, parts ...[]byte) {
	for _, p := range parts {
		h.Write(p) // a hash.Hash never returns an error
	}
}

// SignOption configures [SignRequest].
type SignOption func(*signOptions)

type signOptions struct {
	base string
}

// WithBasePath sets the base path that [SignRequest] strips from the request path; the default
// is [BasePath]. An empty base (or "/") means the request path is already relative and is signed
// as it is.
func WithBasePath(base string) SignOption {
	return func(o *signOptions) { o.base = base }
}

// SignRequest signs req for digest authentication: it sets X-Digest-Key, X-Digest-Signature and
// X-Digest-Timestamp (now, in whole Unix seconds). body must be the exact bytes req will send
// (nil or empty for GET); SignRequest does not read or change req.Body.
//
// The signed path is req.URL.Path (decoded, without query string) made relative with
// [RelativePath]: everything up to and including the last base-path segment ([BasePath] unless
// [WithBasePath] says otherwise) is stripped, so a client whose base URL is
// http://host/prefix/api/v2 signs "/hlr-lookup" for http://host/prefix/api/v2/hlr-lookup. An
// empty req.Method is signed as GET, as net/http sends it.
//
// SignRequest fails only when req has no URL or its path does not contain the base path.
func SignRequest(req *http.Request, key, secret string, now time.Time, body []byte, opts ...SignOption) error {
	if req == nil || req.URL == nil {
		return errors.New("auth: SignRequest needs a request with a URL")
	}
	o := signOptions{base: BasePath}
	for _, opt := range opts {
		opt(&o)
	}
	rel, err := RelativePath(req.URL.Path, o.base)
	if err != nil {
		return err
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	ts := now.Unix()
	if req.Header == nil {
		req.Header = make(http.Header)
	}
	req.Header.Set(HeaderDigestKey, key)
	req.Header.Set(HeaderDigestSignature, SignDigest(secret, rel, method, ts, body))
	req.Header.Set(HeaderDigestTimestamp, strconv.FormatInt(ts, 10))
	return nil
}

// RelativePath returns urlPath with everything up to and including the last occurrence of the
// path segments base stripped, for example "/hlr-lookup" for "/prefix/api/v2/hlr-lookup" and
// base "/api/v2". base matches whole segments only ("/api/v2x/..." does not match "/api/v2") and
// ASCII case-insensitively; a missing leading slash and trailing slashes on base are ignored.
// When nothing follows the base, the relative path is "/". An empty base (or "/") returns
// urlPath unchanged ("/" when empty). It is an error when urlPath does not contain base.
//
// The server and the client both call it on the decoded URL path (url.URL.Path), so they sign
// the same text.
func RelativePath(urlPath, base string) (string, error) {
	base = strings.TrimRight(base, "/")
	if base == "" {
		if urlPath == "" {
			return "/", nil
		}
		return urlPath, nil
	}
	if base[0] != '/' {
		base = "/" + base
	}
	for i := len(urlPath) - len(base); i >= 0; i-- {
		end := i + len(base)
		if equalFoldASCII(urlPath[i:end], base) && (end == len(urlPath) || urlPath[end] == '/') {
			if end == len(urlPath) {
				return "/", nil
			}
			return urlPath[end:], nil
		}
	}
	return "", fmt.Errorf("auth: path %q does not contain the base path %q", urlPath, base)
}

func appendLowerASCII(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func appendUpperASCII(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
