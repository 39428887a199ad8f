// Package users holds the people who sign in to the report pages of the
// sidecar (engine/httpapi): each has a name, a password hash (argon2id
// from golang.org/x/crypto, parameters stored in the hash), a role and the
// API accounts they may see.
//
// Roles: an admin sees the reports of every account; a viewer sees those
// of the accounts listed. Neither sees an account's secrets (the report
// pages never show them), and both are held to the account's whitelist and
// rate limit when they read its reports.
//
// Users come from two places, merged by a Directory: the "users" section
// of the server's config file (hashes only, never a password) and a users
// file beside it that the admin command (numen users) writes. The file is
// read again when it changes, so a user added, removed or given a new
// password takes effect without a restart. A cluster of sidecars shares
// users the way it shares accounts: the same config and users file on
// every node.
//
// Why a file and not the store (engine/store): users are configuration
// like the accounts they name, which come from the config file; the
// admin command must work while the server runs, and a SQLite store is
// held by the running server alone (one process per data directory); and
// a file needs no schema migration in two drivers. The cost: on a
// PostgreSQL cluster the file is distributed to every node with the
// config, rather than shared through the database.
//
// A Directory is safe for concurrent use. Verifying a password costs the
// KDF's memory and time (DefaultParams: 64 MiB, about 0.1 s of one core)
// by design.
package users

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Role is what a user may see.
type Role string

// The roles.
const (
	// Admin sees the reports of every account.
	Admin Role = "admin"
	// Viewer sees the reports of the accounts listed for them.
	Viewer Role = "viewer"
)

// ParseRole reads a role's name.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case Admin, Viewer:
		return r, nil
	}
	return "", fmt.Errorf("role %q: want %s or %s", s, Admin, Viewer)
}

// User is a person who signs in to the report pages.
type User struct {
	Name string `json:"name"`
	// PasswordHash is HashPassword's result.
	PasswordHash string `json:"password_hash"`
	Role         Role   `json:"role"`
	// Accounts are the API keys whose reports a viewer sees (an admin
	// sees all and needs none).
	Accounts []string `json:"accounts,omitempty"`
}

// MaySee reports whether u may see the reports of the API key.
func (u *User) MaySee(key string) bool {
	return u.Role == Admin || slices.Contains(u.Accounts, key)
}

// Visible returns the keys among all (the server's accounts) that u may
// see, sorted.
func (u *User) Visible(all []string) []string {
	var out []string
	for _, k := range all {
		if u.MaySee(k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// maxName is the longest user name.
const maxName = 64

// CheckName reports whether s may be a user's name: 1 to 64 letters,
// digits and . _ @ -.
func CheckName(s string) error {
	if s == "" || len(s) > maxName || strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '@' || r == '-')
	}) >= 0 {
		return fmt.Errorf("user name %q: want 1 to %d letters, digits and . _ @ -", s, maxName)
	}
	return nil
}

// Check reports what is wrong with u, every problem at once; known
// reports whether an API key is one of the server's accounts (nil skips
// that check).
func (u *User) Check(known func(key string) bool) error {
	var errs []error
	if err := CheckName(u.Name); err != nil {
		errs = append(errs, err)
	}
	if _, err := ParseRole(string(u.Role)); err != nil {
		errs = append(errs, err)
	}
	if _, err := ParseHash(u.PasswordHash); err != nil {
		errs = append(errs, fmt.Errorf("password_hash: %w", err))
	}
	if u.Role == Viewer && len(u.Accounts) == 0 {
		errs = append(errs, errors.New("accounts: a viewer needs at least one API key"))
	}
	for _, k := range u.Accounts {
		if known != nil && !known(k) {
			errs = append(errs, fmt.Errorf("accounts: no account has the API key %q", k))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("user %q: %w", u.Name, err)
	}
	return nil
}

// sortUsers sorts users by name.
func sortUsers(us []User) {
	slices.SortFunc(us, func(a, b User) int { return cmp.Compare(a.Name, b.Name) })
}
