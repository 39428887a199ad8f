package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
)

// Sentinels to branch on with errors.Is; an [*APIError] matches the one of
// its status code.
var (
	// ErrUnauthorized: HTTP 401, authentication failed (wrong key or secret,
	// or a stale digest timestamp, which also matches ErrStaleTimestamp).
	ErrUnauthorized = errors.New("remote: unauthorized")
	// ErrStaleTimestamp: HTTP 401 because the digest timestamp is too far
	// from the server's clock; see [Client.SyncClock].
	ErrStaleTimestamp = errors.New("remote: digest timestamp too far from server time")
	// ErrForbidden: HTTP 403, typically the client's IP address is not
	// whitelisted.
	ErrForbidden = errors.New("remote: forbidden")
	// ErrRateLimited: HTTP 429; [APIError.RetryAfter] says when to come back.
	ErrRateLimited = errors.New("remote: rate limited")
)

// APIError is a response other than 200: its status code and the messages of
// the body ({"errors": [...]}). Errors of status 429 and 5xx reach the caller
// wrapped in an [mnp.BackendError] that also wraps [mnp.ErrUnavailable]; get
// the APIError with errors.As.
type APIError struct {
	// Method and Path name the request, Path relative to the base URL and
	// without query string, such as "/hlr-lookup".
	Method, Path string
	StatusCode   int
	// Errors are the server's messages.
	Errors []string
	// Body is a bounded excerpt of a body that was not the JSON error shape
	// (for example an HTML page from a proxy), "" otherwise.
	Body string
	// RetryAfter is the server's Retry-After, 0 when it sent none.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: HTTP %d", e.Method, e.Path, e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteString(" " + t)
	}
	switch {
	case len(e.Errors) > 0:
		b.WriteString(": " + strings.Join(e.Errors, "; "))
	case e.Body != "":
		fmt.Fprintf(&b, ": body %q", e.Body)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %v)", e.RetryAfter)
	}
	return b.String()
}

// Is matches the sentinel of the status code: ErrUnauthorized,
// ErrStaleTimestamp, ErrForbidden, ErrRateLimited.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrUnauthorized:
		return e.StatusCode == http.StatusUnauthorized
	case ErrStaleTimestamp:
		return e.StaleTimestamp()
	case ErrForbidden:
		return e.StatusCode == http.StatusForbidden
	case ErrRateLimited:
		return e.StatusCode == http.StatusTooManyRequests
	}
	return false
}

// StaleTimestamp reports whether the error is a 401 about the digest
// timestamp being too far from the server's clock: the client's clock is off
// and [Client.SyncClock] will help. It recognises the messages of Numen's
// server ("... s behind server time ...") and the usual words of others
// (stale, expired, clock, skew).
func (e *APIError) StaleTimestamp() bool {
	if e.StatusCode != http.StatusUnauthorized {
		return false
	}
	for _, m := range e.Errors {
		m = strings.ToLower(m)
		if !strings.Contains(m, "timestamp") && !strings.Contains(m, "clock") {
			continue
		}
		for _, w := range []string{"server time", "stale", "expired", "clock", "skew", "too old"} {
			if strings.Contains(m, w) {
				return true
			}
		}
	}
	return false
}

// SignatureUsed reports whether the error is a 401 refusing a digest
// signature that the server accepted before (auth.MessageSignatureUsed): two
// identical requests signed in the same second. The server refused it
// before doing anything, so the client signs it again with a later
// timestamp and sends it once more (see the package documentation).
func (e *APIError) SignatureUsed() bool {
	if e.StatusCode != http.StatusUnauthorized {
		return false
	}
	for _, m := range e.Errors {
		if strings.Contains(strings.ToLower(m), auth.MessageSignatureUsed) {
			return true
		}
	}
	return false
}

// Bounds of what an error keeps of a response.
const (
	maxErrorBody = 64 << 10 // read at most this much of a non-200 body
	maxSnippet   = 200      // keep at most this much of a non-JSON body
	maxMessages  = 20       // keep at most this many messages
	maxMessage   = 1000     // and at most this many bytes of each
)

// decodeAPIError reads a non-200 body. It never fails: a body that is not
// {"errors": [...]} becomes a snippet. Every text in redact is replaced
// before anything is cut, so no part of a secret the server echoed is kept.
func decodeAPIError(method, path string, status int, body []byte, redact []string) *APIError {
	e := &APIError{Method: method, Path: path, StatusCode: status}
	var eb apiv2.ErrorBody
	if err := json.Unmarshal(body, &eb); err == nil && eb.Errors != nil {
		for _, m := range eb.Errors {
			if len(e.Errors) == maxMessages {
				e.Errors = append(e.Errors, fmt.Sprintf("(%d more)", len(eb.Errors)-maxMessages))
				break
			}
			e.Errors = append(e.Errors, clip(redactText(m, redact), maxMessage))
		}
		return e
	}
	e.Body = clip(redactText(string(body), redact), maxSnippet)
	return e
}

// clip cuts s to at most n bytes on a rune boundary, replaces invalid UTF-8
// and marks the cut.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// redactText replaces every text of redact in s.
func redactText(s string, redact []string) string {
	for _, r := range redact {
		if r != "" && strings.Contains(s, r) {
			s = strings.ReplaceAll(s, r, "[redacted]")
		}
	}
	return s
}
