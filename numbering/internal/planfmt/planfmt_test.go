package planfmt

import (
	"strings"
	"testing"
)

// slowKey is Key one digit at a time, as its documentation defines it.
func slowKey(s string) uint32 {
	var k uint32
	for i := 0; i < KeyDigits; i++ {
		k *= 11
		if i < len(s) {
			k += uint32(s[i]-'0') + 1
		}
	}
	return k
}

func TestKey(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "0", "9", "49", "491", "4915", "999999999", "9999999999999", "000000000", "123456789012"} {
		if got, want := Key(s), slowKey(s); got != want {
			t.Errorf("Key(%q) = %d, want %d", s, got, want)
		}
	}
	if Key(strings.Repeat("9", KeyDigits)) >= KeySpan {
		t.Error("the largest key is not below KeySpan")
	}
	for n := 0; n <= KeyDigits; n++ {
		p := uint64(1)
		for range n {
			p *= 11
		}
		if uint64(Pow11(n)) != p {
			t.Errorf("Pow11(%d) = %d", n, Pow11(n))
		}
	}
}

func FuzzKey(f *testing.F) {
	f.Add("4915123456789")
	f.Fuzz(func(t *testing.T, s string) {
		digits := strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, s)
		if got, want := Key(digits), slowKey(digits); got != want {
			t.Fatalf("Key(%q) = %d, want %d", digits, got, want)
		}
	})
}
