package auth

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// A cached keyed HMAC gives digestMAC's result, however often it is
// reused, for every secret, also once the cache is full, and concurrently.
func TestMACCache(t *testing.T) {
	t.Parallel()
	var c macCache
	prefix, body := []byte("/nt-lookup1700000000POST"), []byte(`{"number":"+4915123456789"}`)
	check := func(secret string) {
		want := digestMAC(nil, []byte(secret), prefix, body)
		for range 3 {
			require.Equal(t, want, c.sum(nil, secret, prefix, body), "secret %q", secret)
		}
	}
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for i := range maxCachedSecrets/2 + 8 {
				check(fmt.Sprintf("secret-%d-%d", g, i))
			}
		})
	}
	wg.Wait()
	require.EqualValues(t, maxCachedSecrets, c.n.Load())
	// A secret past the bound is not kept, and still verifies.
	check("one more")
	_, kept := c.pools.Load("one more")
	require.False(t, kept)
	// A cached secret whose MAC is wanted with another message: the state
	// was reset after the last use.
	check("secret-0-0")
	require.Equal(t, digestMAC(nil, []byte("secret-0-0"), nil, nil), c.sum(nil, "secret-0-0", nil, nil))
}
