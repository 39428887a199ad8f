package auth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// BasicHeader returns the value of an Authorization header for HTTP Basic authentication with
// the API key as user and the secret as password: "Basic " + base64(key + ":" + secret).
func BasicHeader(key, secret string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(key+":"+secret))
}

// XBasic returns the value of an X-Basic header: the lower-case hex SHA-256 of
// key + ":" + secret (the colon is hashed too).
func XBasic(key, secret string) string {
	sum := xbasicSum(key, secret)
	return hex.EncodeToString(sum[:])
}

func xbasicSum(key, secret string) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(key))
	h.Write([]byte{':'})
	h.Write([]byte(secret))
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}
