package bulk

import (
	"testing"
	"time"
)

func TestCallbackCache(t *testing.T) {
	t.Parallel()
	var c callbackCache
	c.put("wh_1", []byte("one"), 2)
	for range 2 {
		if b, ok := c.take("wh_1"); !ok || string(b) != "one" {
			t.Fatalf("take = %q, %v; want one, true", b, ok)
		}
	}
	if _, ok := c.take("wh_1"); ok {
		t.Fatal("a third take of a body for two deliveries found it")
	}
	if c.size != 0 || len(c.entries) != 0 {
		t.Fatalf("size %d, %d entries after the last take; want 0", c.size, len(c.entries))
	}

	c.put("wh_2", []byte("two"), 1)
	c.drop("wh_2")
	if _, ok := c.take("wh_2"); ok {
		t.Fatal("take found a dropped body")
	}

	big := make([]byte, callbackCacheBytes/2+1)
	c.put("wh_3", big, 1)
	c.put("wh_4", big, 1) // over the bound: not kept
	if _, ok := c.take("wh_4"); ok {
		t.Fatal("a body over the bound was kept")
	}
	c.entries["wh_3"].added = time.Now().Add(-2 * callbackCacheAge)
	c.put("wh_5", []byte("five"), 1) // sweeps wh_3, never taken
	if _, ok := c.take("wh_3"); ok {
		t.Fatal("a body older than callbackCacheAge was kept")
	}
	if b, ok := c.take("wh_5"); !ok || string(b) != "five" {
		t.Fatalf("take = %q, %v; want five, true", b, ok)
	}
	if c.size != 0 {
		t.Fatalf("size %d after every take; want 0", c.size)
	}
}
