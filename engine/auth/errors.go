package auth

import (
	"errors"
)

// ErrUnauthorized is wrapped by every error [Verifier.Verify] returns: the request is not
// authenticated (HTTP 401). Test with errors.Is; use errors.As with [*Error] for the reason.
var ErrUnauthorized = errors.New("unauthorized")

// Reason says why a request was not authenticated.
type Reason int

// The reasons a [Verifier] rejects a request.
const (
	// ReasonMissingCredentials: no X-Digest-*, X-Basic or Authorization header at all.
	ReasonMissingCredentials Reason = iota + 1
	// ReasonIncompleteDigest: some but not all of the three X-Digest-* headers.
	ReasonIncompleteDigest
	// ReasonMalformedTimestamp: X-Digest-Timestamp is not a Unix time in whole seconds.
	ReasonMalformedTimestamp
	// ReasonStaleTimestamp: X-Digest-Timestamp is further from the server's clock than the
	// verifier's MaxSkew.
	ReasonStaleTimestamp
	// ReasonUnknownKey: no account has the API key given (digest or Authorization: Basic).
	ReasonUnknownKey
	// ReasonBadSignature: X-Digest-Signature is not hex of 32 bytes, or matches none of the
	// account's secrets for this path, timestamp, method and body.
	ReasonBadSignature
	// ReasonBadBasicCredentials: X-Basic matches no account, or the secret in Authorization:
	// Basic is wrong.
	ReasonBadBasicCredentials
	// ReasonMalformedAuthorization: the Authorization header is not Basic, not base64, or has no
	// colon between key and secret.
	ReasonMalformedAuthorization
	// ReasonReplayedSignature: a digest signature already accepted, presented again with the
	// same API key and timestamp within the timestamp's window ([ReplayGuard]).
	ReasonReplayedSignature
)

var reasonNames = [...]string{
	ReasonMissingCredentials:     "missing credentials",
	ReasonIncompleteDigest:       "incomplete digest headers",
	ReasonMalformedTimestamp:     "malformed timestamp",
	ReasonStaleTimestamp:         "stale timestamp",
	ReasonUnknownKey:             "unknown API key",
	ReasonBadSignature:           "bad signature",
	ReasonBadBasicCredentials:    "bad basic credentials",
	ReasonMalformedAuthorization: "malformed Authorization header",
	ReasonReplayedSignature:      "replayed signature",
}

// String returns a short English name of the reason, such as "stale timestamp".
func (r Reason) String() string {
	if r > 0 && int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "unknown reason"
}

// Authentication methods, as named in [Error.Method] and [Identity.Method].
const (
	MethodDigest = "digest"  // X-Digest-Key, X-Digest-Signature, X-Digest-Timestamp
	MethodXBasic = "x-basic" // X-Basic: hex SHA-256 of key:secret
	MethodBasic  = "basic"   // Authorization: Basic
)

// Error is a failed authentication. Its message is English, names the header at fault and never
// contains a secret, an expected signature or the Authorization header's value, so a server may
// return it to the client as it is.
//
// An unknown API key and a wrong secret or signature get the same message (Reason tells them
// apart, for the server's logs), so that answers do not tell whether a key exists.
type Error struct {
	Reason Reason
	// Method is the authentication method the request attempted (MethodDigest, MethodXBasic,
	// MethodBasic), or "" for ReasonMissingCredentials.
	Method string
	// Header is the canonical name of the header at fault, or "" when none is.
	Header string
	// Key is the API key the request presented, when it named one; it is for the server's logs
	// and rate limits and is not part of the message.
	Key string

	msg string
}

// Error returns the English message.
func (e *Error) Error() string {
	if e.msg == "" {
		return e.Reason.String()
	}
	return e.msg
}

// Unwrap returns [ErrUnauthorized].
func (e *Error) Unwrap() error { return ErrUnauthorized }
