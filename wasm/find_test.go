//go:build js && wasm

package main

import (
	"testing"
	"unicode/utf16"

	"github.com/numenhq/numen/numbering"
	"github.com/stretchr/testify/require"
)

// TestFind finds numbers through the exported functions, as numen.mjs
// does, and compares every match with package numbering's Find: its
// offsets in UTF-16 code units, and its classification's record.
func TestFind(t *testing.T) {
	p := openCore(t)
	text := "Ruf an: 030 901820 😀 oder +44 20 7946 0000; € 129,99 am 17.05.2024, 0800 330 1000 (Hotline), 电话 +1 650-253-0000."
	u16 := func(b int) uint32 { return uint32(len(utf16.Encode([]rune(text[:b])))) }
	for _, c := range []struct{ region, leniency string }{
		{"DE", "valid"}, {"DE", "POSSIBLE"}, {"", "valid"}, {"GB", "exact-grouping"}, {"US", "strict_grouping"},
	} {
		n := put(text)
		m := int32(-1)
		if c.region != "" {
			m = putAfter(n, c.region)
		}
		l := putAfter(n+max(m, 0), c.leniency)
		count := numenFind(n, m, l)
		_, err := answer(count)
		require.NoError(t, err)
		lenient, err := numbering.ParseLeniency(c.leniency)
		require.NoError(t, err)
		seq, err := p.Find(text, c.region, lenient)
		require.NoError(t, err)
		i := int32(0)
		for want := range seq {
			require.Less(t, i, count, "%+v", c)
			k := numenFindMatch(i) / 4
			require.Positive(t, k)
			require.Equal(t, []uint32{u16(want.Start), u16(want.End)}, []uint32{words[k-2], words[k-1]}, "%+v: %q", c, want.Raw)
			got := decodeResult(want.Raw)
			require.Equal(t, want.Result.Valid, got.Valid)
			require.Equal(t, want.Result.Type, got.Type)
			require.Equal(t, want.Result.CountryCode, got.CountryCode)
			i++
		}
		require.Equal(t, count, i, "%+v", c)
		require.Positive(t, count, "%+v", c)
	}

	for _, c := range []struct{ region, leniency, want string }{
		{"XX", "valid", `unknown region "XX"`}, {"DE", "sloppy", `unknown leniency "sloppy"`},
	} {
		n := put("030 901820")
		m := putAfter(n, c.region)
		_, err := answer(numenFind(n, m, putAfter(n+m, c.leniency)))
		require.ErrorContains(t, err, c.want)
	}
	_, err := answer(numenFind(maxFindBytes+1, -1, 0))
	require.ErrorContains(t, err, "the limit is 524288")
	_, err = answer(numenFindMatch(1000))
	require.ErrorContains(t, err, "no match 1000")
}
