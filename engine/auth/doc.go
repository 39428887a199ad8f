// Package auth signs and verifies the lookup API's authentication (digest, X-Basic and HTTP
// Basic) and signs webhook deliveries (the spec's X-Signatures and Standard Webhooks). The
// sidecar's HTTP server verifies with it and the Go client for remote providers signs with it,
// so both sides share one implementation of every algorithm. It imports nothing of ours and
// contains no HTTP server.
//
// # Digest authentication
//
// A request carries three headers:
//
//	X-Digest-Key:       the API key
//	X-Digest-Timestamp: Unix time in whole seconds, decimal, no sign, no leading zeros
//	X-Digest-Signature: hex(HMAC-SHA256(secret, PATH + TIMESTAMP + METHOD + BODY))
//
// with, concatenated without separators:
//
//   - PATH: the endpoint path relative to the base path /api/v2, without query string, with
//     ASCII letters lower-cased: "/hlr-lookup" for https://host/api/v2/hlr-lookup?x=1. A base
//     URL may carry its own prefix (https://host/prefix/api/v2); everything up to and including
//     the last /api/v2 segment is stripped ([RelativePath]). The path is the decoded one
//     (Go's url.URL.Path), as the endpoints' paths are plain ASCII anyway.
//   - TIMESTAMP: the X-Digest-Timestamp text.
//   - METHOD: the HTTP method, upper-cased ("GET", "POST").
//   - BODY: the raw body bytes as sent; empty for GET.
//
// The server accepts a signature over the lower-cased path, over the path as sent (a client
// may sign a report's name as it writes it, /reports/SYNC-API-2026-11) and over the path as the
// client escaped it on the wire (/reports/Kunden%2FQ4-2026-11, signed as sent); [SignDigest]
// and [SignRequest] sign the lower-cased path. A request without parameters whose body is
// exactly "[]" or "{}" is also accepted when signed over the empty body: the official PHP and
// Ruby clients sign an empty body and send the JSON of no parameters. The signature may
// be sent in lower- or upper-case hex: the server decodes it and compares bytes. The timestamp
// must be within 30 s of the server's clock, either side, both taken in whole seconds:
// |now − ts| ≤ 30 is accepted, 31 is not ([WithMaxSkew] changes the window). GET /time gives a
// client the server's clock.
//
// Worked example, which a test checks: API key "demo-key", secret "demo-secret", a POST to
// /api/v2/hlr-lookup at Unix time 1700000000 with body {"msisdn":"+14156226819"} signs the text
//
//	/hlr-lookup1700000000POST{"msisdn":"+14156226819"}
//
// and sends
//
//	X-Digest-Key: demo-key
//	X-Digest-Timestamp: 1700000000
//	X-Digest-Signature: 0074d4248681d9f99ce67776f39795dfce161a8ad42bb4ae92e26ea2a8336f12
//
// A GET /api/v2/route?msisdn=+14156226819 at the same time signs "/route1700000000GET"; its
// signature is 02751dcd3542ca7e33373bf37205e56f228794feb036bd081ae32c329dfeafa9.
//
// # Basic authentication
//
// Two variants, both without a timestamp, so digest is preferred:
//
//	X-Basic: hex(SHA-256(key + ":" + secret))        148a0900d1850f88dcf294b4d899e93f1e0c53dc6b22abb516728ace3b71d6aa
//	Authorization: Basic base64(key + ":" + secret)  Basic ZGVtby1rZXk6ZGVtby1zZWNyZXQ=
//
// (values for "demo-key" and "demo-secret"). An X-Basic header does not name the key, so the
// server finds the account by the hash ([XBasicLookup]). API keys never contain a colon.
//
// # Verification
//
// A [Verifier] takes the first method the request attempts, in the order digest (any X-Digest-*
// header present), X-Basic, Authorization, and does not fall back to the next when it fails.
// An account may have several secrets while one is rotated; any of them authenticates
// ([Credentials]). Every failure is an [*Error] with a [Reason], wrapping [ErrUnauthorized]
// (HTTP 401); its English message names the header at fault and never contains a secret, the
// expected signature or the Authorization header's value. Signatures and secrets are compared
// in constant time. An unknown API key and a wrong secret or signature get the same message;
// [Verifier.Authenticate] also spends one HMAC on an unknown key, as checking a key with one
// secret does.
//
// # Replays
//
// A digest signature covers the path, the timestamp, the method and the body, so a request
// captured on its way could be sent again, unchanged, while its timestamp is within the
// window. A server that gives its [ReplayGuard] every verified signature accepts each once:
// the same API key, timestamp and signature again is [ReasonReplayedSignature], "signature
// already used" (401). So two identical requests (same path, method and body) signed in the
// same second collide: a client that means to send both signs the second with the next
// second's timestamp (the window allows 30 s ahead), as Numen's Go client does when refused.
// [ReplayMemory] keeps the signatures in the process, bounded per API key; a shared store keeps
// them for a cluster. Numen's server guards its POST requests (every lookup, which is charged
// and stored); a GET signs no query string and changes nothing.
//
// A server should not buffer a body for a client it knows nothing of: [Verifier.Begin] checks
// everything but the digest signature before the body is read (the method, the headers, the
// timestamp's window, that the key is known, and Basic and X-Basic whole), and
// [Verifier.Finish] checks the signature over the body read after it. Answering an unknown key
// before its body arrives lets timing tell that the key is unknown; API keys name accounts and
// are not secrets, and refusing to buffer bodies for strangers is worth more.
//
// # Webhook signatures
//
// A delivery of asynchronous results carries X-Signatures: one signature per secret of the
// account, separated by ";", each hex(SHA-256(key + secret + body)), plain concatenation of
// the API key, the secret and the raw body ([WebhookSignatures]). A receiver accepts the
// delivery when any listed signature equals the hash for any of its secrets ([VerifyWebhook]).
// Example: key "demo-key", secrets "demo-secret" and "next-secret", body
// {"type":"NT","results":[]}:
//
//	X-Signatures: f36c14e6d1fba5c32eb4f561ce3ad5ae4e9a5ce6b01aec08047d0341c3da6946;f890ac5f9e1ceca49b51644700def9d197c2bd8ad6659909fce234c0d02a31f0
//
// Deliveries may also carry Standard Webhooks (https://www.standardwebhooks.com/) headers:
// webhook-id, webhook-timestamp (Unix seconds) and webhook-signature, a space-separated list of
// "v1," + base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)), where key is the
// base64-decoded part of a "whsec_…" secret ([StandardWebhookSignature],
// [SignStandardWebhook], [StandardWebhookVerifier]; receivers reject timestamps more than
// 5 minutes off). The standard's published vector, checked by a test: secret
// "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp
// 1614265330, body {"test": 2432232314} give "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=".
//
// # Performance
//
// Verifying a digest costs one HMAC-SHA256 over the body per secret of the account (about 2 µs
// and a few small allocations for a typical lookup body; see BenchmarkVerifyDigest*); the basic
// methods cost one SHA-256 of a short text per secret. Nothing is cached between requests.
//
// # Thread Safety
//
// Every function is pure or works on the request it is given. A [Verifier] and
// [StaticCredentials] are immutable after construction and safe for concurrent use; other
// [Credentials] implementations must be safe for concurrent use too.
package auth
