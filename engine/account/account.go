// Package account holds the accounts of the sidecar: an API key with its
// secrets and allowed authentication methods, the client addresses it may
// call from, its rate limit, the webhook URLs of its bulk results and its
// routing and prices. The HTTP adapter (engine/httpapi) authenticates and
// limits requests with it; the bulk queue (engine/bulk) delivers to its
// webhooks. Accounts are plain values: the CLI builds them from its config
// file. An Account is what the sidecar knows of a key; its engine.Profile
// is the part the engine needs (routing and prices).
package account

import (
	"net/netip"

	"github.com/numenhq/numen/engine"
)

// Account is an API key's account as the sidecar sees it.
type Account struct {
	// Key is the API key; Secrets its secrets (more than one while a secret
	// is rotated: each works until removed).
	Key     string
	Secrets []string
	// Methods are the authentication methods allowed (auth.MethodDigest,
	// auth.MethodXBasic, auth.MethodBasic); empty allows all.
	Methods []string
	// Whitelist holds the client addresses allowed; empty allows any.
	Whitelist []netip.Prefix
	// RateLimit is the sustained number of requests per second allowed,
	// with bursts of RateBurst; zero means unlimited.
	RateLimit float64
	RateBurst int
	// WebhookURLs receive the results of bulk lookups.
	WebhookURLs []string
	// LegacyNTKeys sends NT webhook results with the key set of the spec's
	// example (numbertype, isvalid "Yes"/"No", ...) instead of the
	// documented attribute names.
	LegacyNTKeys bool
	// Limits are the account's spending limits (a prepaid balance, a
	// monthly cap), which its Profile's budget enforces and GET /balance
	// reports; the zero value limits nothing.
	Limits engine.Limits
	// Profile is the account's routing and prices: what its lookups share.
	Profile *engine.Profile
}
