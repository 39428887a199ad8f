// Package remote is the Go client of Numen's lookup API, /api/v2: the SDK for
// any service that speaks it (a lookup provider, or a Numen sidecar), and an
// HLR and portability backend ([mnp.HLRBackend], [mnp.PortabilityBackend])
// that sends a Numen engine's lookups to such a service.
//
// # Quick start
//
//	c, err := remote.New("https://lookup.example/api/v2", key, secret)
//	if err != nil {
//		return err
//	}
//	res, err := c.HLRLookup(ctx, "+14156226819", nil)
//	if err != nil {
//		return err // transport, HTTP status or unreadable answer; see Errors
//	}
//	fmt.Println(res.ProcessingStatus, res.ConnectivityStatus, apiv2.Deref(res.MCCMNC))
//
// Every endpoint of the API has a method that returns its wire type from
// package [github.com/numenhq/numen/engine/apiv2]: [Client.HLRLookup],
// [Client.MNPLookup], [Client.NTLookup], the bulk submissions
// [Client.HLRLookups] and [Client.NTLookups], [Client.Route], [Client.Routes],
// [Client.RoutingMap], [Client.HLRCoverage], [Client.AuthTest] and
// [Client.Time]. A lookup that is REJECTED or FAILED is a result with that
// processing_status, not an error.
//
// As a backend, give the client to the engine; [WithUpstreamRoute] picks the
// provider's route, [WithName] names the backend in errors, and
// [WithAutoSyncClock] keeps a drifting host clock from failing lookups.
//
// # Authentication
//
// Every request is authenticated with package
// [github.com/numenhq/numen/engine/auth], the same code the server verifies
// with. The default is digest (the spec's recommendation): each attempt is
// signed anew over the path relative to /api/v2 (lower-cased, without query
// string), the current Unix time, the method and the exact body bytes sent.
// [WithXBasic] and [WithBasicAuth] select the basic methods.
//
// The server accepts a digest timestamp within 30 s of its own clock. When the
// client's clock is further off, calls fail with a 401 that matches
// [ErrStaleTimestamp]; [Client.SyncClock] reads the server's clock (GET /time)
// and keeps the difference, which every later signature includes.
// [WithAutoSyncClock] does that by itself, once per call, and repeats the
// refused request.
//
// The secret never appears in an error: the client does not put it in one,
// and removes it (and the basic credentials made from it) from any message a
// server echoes back. Redirects are not followed (a 3xx is an [*APIError]):
// net/http would forward the X-Basic and X-Digest-* headers to wherever they
// point.
//
// # Retries
//
// One call makes at most 1 + [WithRetries] attempts (2 retries by default,
// at most [MaxRetries]); each has its own timeout ([WithTimeout], 10 s by
// default), a fresh timestamp and signature, and the same body bytes. Which
// failures are retried depends on whether sending the request again could do
// something twice:
//
//   - GET requests are idempotent. They are retried after a transport error
//     (refused or reset connection, timeout of the attempt) and after HTTP
//     429, 502, 503 and 504.
//   - Lookups (POST /hlr-lookup, /mnp-lookup, /nt-lookup) are charged. They are
//     retried only when the request surely never reached the server: the
//     dial failed (a *net.OpError with Op "dial", such as connection refused)
//     and no connection was obtained (httptrace's GotConn never ran). Any
//     other failure, a 503 or 429 included, is returned after one attempt, so
//     that a lookup is never charged twice; an engine with several backends
//     then fails over to the next.
//   - Bulk submissions (POST /hlr-lookups, /nt-lookups) are retried like
//     lookups, unless [BulkOptions].IdempotencyKey is set: then they are sent
//     with an Idempotency-Key header and retried like GETs.
//   - A 401 about a stale timestamp is sent once more after a clock sync, with
//     [WithAutoSyncClock] only.
//   - A digest signature covers path, timestamp, method and body, so two
//     identical requests in one second have one signature, and a server that
//     refuses replays (Numen's does, for POSTs) accepts it once. The client
//     never sends one signature twice: a POST identical to one it sent with
//     the same timestamp is signed with the next free second (up to 20 s
//     ahead of the clock). A 401 "signature already used"
//     ([APIError.SignatureUsed]; another client with the key sent the same
//     request) is sent again at once with a later timestamp: the server
//     refused it before doing anything, so nothing is charged twice.
//
// Before retry n (from 0) the client waits [WithBackoff]'s base·2ⁿ, capped at
// its max (defaults 100 ms and 2 s), less a random part of up to half, or the
// server's Retry-After (of a 429 or 503, typically) when it sent one. A Retry-After longer
// than [WithMaxRetryAfter] (5 s by default), or a wait longer than the
// context's deadline allows, ends the call at once with the server's answer.
// The caller's context bounds the whole call.
//
// # Errors
//
// Responses other than 200 become an [*APIError] with the status code, the
// server's messages ({"errors": [...]}, or an excerpt of a body of another
// shape) and Retry-After; branch on [ErrUnauthorized], [ErrStaleTimestamp],
// [ErrForbidden] and [ErrRateLimited] with errors.Is, and get the details
// with errors.As. Errors after which another backend may answer wrap
// [mnp.ErrUnavailable] (built with [mnp.Unavailable], so [mnp.Retryable] and
// [mnp.CodeOf] read them):
//
//	context deadline or attempt timeout      mnp.CodeTimeout
//	dial or connection error (no response)   mnp.CodeNetworkUnreachable
//	HTTP 429 or 5xx                          mnp.CodeUnavailable (the *APIError inside)
//
// A 200 whose body cannot be read is a *mnp.BackendError with
// mnp.CodeBadProviderAnswer. Other 4xx responses are the *APIError wrapped
// with the backend's name. A cancelled context is returned as such, wrapped,
// and does not wrap ErrUnavailable.
//
// # Backend answers
//
// [Client.HLR] sends q.Number in E.164 and reads the HLR result into an
// [mnp.HLRAnswer]:
//
//   - processing_status is the Status; a value other than COMPLETED,
//     REJECTED or FAILED makes the answer unreadable (CodeBadProviderAnswer).
//     A REJECTED result is an answer with Status Rejected, not an error.
//   - error_code becomes the Code through [WithErrorCodes], by default
//     [NumenErrorCode]: codes of Numen's table carry over when the
//     description agrees. Another code cannot be carried by the answer, which
//     then has CodeNone; the function given to WithErrorCodes sees every code
//     and is where to log or translate them. The SDK methods return the
//     provider's error_code untouched.
//   - connectivity_status is read with [mnp.ParseConnectivity]; an unknown
//     value is Undetermined. mccmnc (or mcc and mnc), imsi, msin and msc are
//     copied; an mccmnc that is not 5 or 6 digits and a country code that is
//     not two letters are dropped as unknown.
//   - is_ported and is_roaming are [mnp.Bool]s, null being Unknown. When
//     ported, PortedTo has ported_network_name and ported_country_code, and
//     the serving mccmnc unless the number is roaming; when roaming, RoamingOn
//     has the serving mccmnc, roaming_network_name and roaming_country_code.
//   - an answer about another msisdn than the one asked for is unreadable.
//
// [Client.Portability] reads the MNP result into an [mnp.PortAnswer] the same
// way (processing_status, or query_status OK/FAILED when a provider sends
// only that); its Network has the mccmnc and, when ported, the ported network's
// name and country, else the original network's.
//
// # Thread Safety
//
// A Client is safe for concurrent use; only the clock offset changes after
// New, atomically.
//
// # Performance
//
// A call costs one HTTP round trip per attempt, one HMAC-SHA256 over the body
// for the digest and one JSON decoding of the answer; connections are reused
// through the http.Client's transport.
package remote
