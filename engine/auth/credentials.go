package auth

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
)

// Credentials is where a [Verifier] finds an account's secrets. Implementations must be safe for
// concurrent use.
type Credentials interface {
	// Secrets returns the secrets of the account with API key key, and whether such an account
	// exists. An account may have several secrets while one is being rotated; a request signed
	// with any of them is accepted. The caller does not modify the returned slice.
	Secrets(key string) (secrets []string, ok bool)
}

// XBasicLookup is implemented by [Credentials] that can serve X-Basic authentication. An X-Basic
// header carries only SHA-256(key + ":" + secret), not the key, so the verifier needs a way from
// the hash back to the account. A database-backed store would keep that hash in an indexed
// column. Without it, a [Verifier] rejects X-Basic requests and says so.
type XBasicLookup interface {
	// LookupXBasic returns the API key of the account that has a secret with
	// SHA-256(key + ":" + secret) == sum. The verifier checks the match again itself.
	LookupXBasic(sum [sha256.Size]byte) (key string, ok bool)
}

// StaticCredentials is a fixed, in-memory set of accounts: the simple [Credentials] for
// configuration files and tests. It implements [XBasicLookup]. It is immutable and safe for
// concurrent use.
type StaticCredentials struct {
	secrets map[string][]string
	xbasic  map[[sha256.Size]byte]string
}

// NewStaticCredentials copies accounts, a map from API key to that account's secrets, and
// indexes it for X-Basic. Every key must be non-empty without a colon, control characters or
// surrounding spaces (a colon would make "key:secret" ambiguous for both basic methods), and
// every account needs at least one non-empty secret. Error messages name the key, never a
// secret.
func NewStaticCredentials(accounts map[string][]string) (*StaticCredentials, error) {
	c := &StaticCredentials{
		secrets: make(map[string][]string, len(accounts)),
		xbasic:  make(map[[sha256.Size]byte]string, len(accounts)),
	}
	for key, secrets := range accounts {
		if err := checkKey(key); err != nil {
			return nil, err
		}
		if len(secrets) == 0 {
			return nil, fmt.Errorf("auth: API key %q has no secret", key)
		}
		for i, s := range secrets {
			if s == "" {
				return nil, fmt.Errorf("auth: API key %q: secret %d of %d is empty", key, i+1, len(secrets))
			}
			c.xbasic[xbasicSum(key, s)] = key
		}
		c.secrets[key] = slices.Clone(secrets)
	}
	return c, nil
}

func checkKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("auth: empty API key")
	case strings.TrimSpace(key) != key:
		return fmt.Errorf("auth: API key %q has leading or trailing spaces", key)
	case strings.Contains(key, ":"):
		return fmt.Errorf("auth: API key %q contains a colon", key)
	case strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("auth: API key %q contains a control character", key)
	}
	return nil
}

// Secrets implements [Credentials].
func (c *StaticCredentials) Secrets(key string) ([]string, bool) {
	s, ok := c.secrets[key]
	return s, ok
}

// LookupXBasic implements [XBasicLookup].
func (c *StaticCredentials) LookupXBasic(sum [sha256.Size]byte) (string, bool) {
	key, ok := c.xbasic[sum]
	return key, ok
}
