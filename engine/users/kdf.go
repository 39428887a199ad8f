package users

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are the argon2id parameters of a password hash. They are written
// into the hash (the PHC string format), so a hash made with other
// parameters still verifies after the defaults change.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
	SaltLen uint32 // bytes
	KeyLen  uint32 // bytes
}

// DefaultParams are the parameters new hashes get: RFC 9106's second
// recommended option (argon2id, 64 MiB, 3 passes, 4 lanes) with a 16-byte
// salt and a 32-byte key. One verification takes 64 MiB for about 0.1 s
// of one core; the report pages limit failed sign-ins per address.
var DefaultParams = Params{Memory: 64 << 10, Time: 3, Threads: 4, SaltLen: 16, KeyLen: 32}

// The bounds of the parameters a hash may carry, so that a hash written
// by hand cannot make one sign-in take gigabytes or minutes.
const (
	maxMemory = 1 << 20 // KiB: 1 GiB
	maxTime   = 64
	minSalt   = 8
	maxSalt   = 64
	minKey    = 16
	maxKey    = 64
)

// ErrMalformedHash is returned for a password hash that is not an argon2id
// hash in the PHC string format within the bounds above.
var ErrMalformedHash = errors.New("not an argon2id password hash ($argon2id$v=19$m=...,t=...,p=...$salt$key)")

// HashPassword hashes a password with argon2id, a new random salt and p,
// in the PHC string format:
//
//	$argon2id$v=19$m=65536,t=3,p=4$<salt>$<key>
//
// (salt and key in unpadded standard base64).
func HashPassword(password string, p Params) (string, error) {
	if err := p.check(); err != nil {
		return "", err
	}
	salt := make([]byte, p.SaltLen)
	_, _ = rand.Read(salt) // crypto/rand.Read never fails (Go 1.24)
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

func (p Params) check() error {
	switch {
	case p.Threads == 0:
		return fmt.Errorf("%w: p (threads) is 0", ErrMalformedHash)
	case p.Time == 0 || p.Time > maxTime:
		return fmt.Errorf("%w: t (passes) %d is outside 1-%d", ErrMalformedHash, p.Time, maxTime)
	case p.Memory < 8*uint32(p.Threads) || p.Memory > maxMemory:
		return fmt.Errorf("%w: m (memory) %d KiB is outside %d-%d", ErrMalformedHash, p.Memory, 8*uint32(p.Threads), maxMemory)
	case p.SaltLen < minSalt || p.SaltLen > maxSalt:
		return fmt.Errorf("%w: the salt's %d bytes are outside %d-%d", ErrMalformedHash, p.SaltLen, minSalt, maxSalt)
	case p.KeyLen < minKey || p.KeyLen > maxKey:
		return fmt.Errorf("%w: the key's %d bytes are outside %d-%d", ErrMalformedHash, p.KeyLen, minKey, maxKey)
	}
	return nil
}

// hash is a parsed password hash.
type hash struct {
	p         Params
	salt, key []byte
}

// ParseHash checks that s is a password hash HashPassword could have
// made, and returns its parameters.
func ParseHash(s string) (Params, error) {
	h, err := parseHash(s)
	return h.p, err
}

func parseHash(s string) (hash, error) {
	var h hash
	parts := strings.Split(s, "$")
	// Go's base64 decoders skip CR and LF: refused, so that a hash has
	// one spelling.
	if len(s) > 512 || strings.ContainsAny(s, "\r\n") || len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return h, ErrMalformedHash
	}
	ps := strings.Split(parts[3], ",")
	if len(ps) != 3 {
		return h, ErrMalformedHash
	}
	var vals [3]uint64
	for i, name := range []string{"m=", "t=", "p="} {
		v, ok := strings.CutPrefix(ps[i], name)
		n, err := strconv.ParseUint(v, 10, 32)
		if !ok || err != nil || v != strconv.FormatUint(n, 10) {
			return h, ErrMalformedHash
		}
		vals[i] = n
	}
	if vals[2] > 255 {
		return h, ErrMalformedHash
	}
	var err error
	if h.salt, err = base64.RawStdEncoding.Strict().DecodeString(parts[4]); err != nil {
		return h, ErrMalformedHash
	}
	if h.key, err = base64.RawStdEncoding.Strict().DecodeString(parts[5]); err != nil {
		return h, ErrMalformedHash
	}
	h.p = Params{Memory: uint32(vals[0]), Time: uint32(vals[1]), Threads: uint8(vals[2]), SaltLen: uint32(len(h.salt)), KeyLen: uint32(len(h.key))}
	if err := h.p.check(); err != nil {
		return hash{}, err
	}
	return h, nil
}

// VerifyPassword reports whether password is the one encoded was made
// from, comparing the keys in constant time. An encoded hash that is not
// well formed is an error (ErrMalformedHash), never a match.
func VerifyPassword(encoded, password string) (bool, error) {
	h, err := parseHash(encoded)
	if err != nil {
		return false, err
	}
	key := argon2.IDKey([]byte(password), h.salt, h.p.Time, h.p.Memory, h.p.Threads, h.p.KeyLen)
	return subtle.ConstantTimeCompare(key, h.key) == 1, nil
}
