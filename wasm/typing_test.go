//go:build js && wasm

package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// aytNew makes a formatter for region through the exported function.
func aytNew(t *testing.T, region string) int32 {
	t.Helper()
	h := numenAytNew(put(region))
	_, err := answer(h)
	require.NoError(t, err)
	return h
}

// TestAsYouType types numbers key by key through the exported functions,
// as numen.mjs does, and compares every answer with package numbering's
// formatter: the text, the check, the number and the caret both ways.
func TestAsYouType(t *testing.T) {
	p := openCore(t)
	for _, c := range []struct{ region, typed string }{
		{"DE", "015123456789"}, {"DE", "+4915123456789"}, {"de", "0049 30 1234567"}, {"US", "2015550123"},
		{"GB", "02079460000"}, {"", "+442079460000"}, {"", "+1 (650) 253-0000"}, {"JP", "０３１２３４５６７８"},
		{"FR", "06 12 34 56 78 ext"}, {"", "0151"}, {"BR", "+55 11 96123 4567"},
	} {
		h := aytNew(t, c.region)
		want, err := p.NewAsYouType(c.region)
		require.NoError(t, err)
		n := 0
		for _, r := range c.typed {
			n++
			text, pr := want.Input(r)
			got, err := answer(numenAytInput(h, put(string(r))))
			require.NoError(t, err)
			require.Equal(t, string(text), got, "%q in %q", c.typed, c.region)
			_, err = answer(numenAytCheck(h))
			require.NoError(t, err)
			require.Equal(t, []uint32{uint32(pr.State), uint32(pr.Reason), uint32(pr.Types), uint32(pr.CallingCode)},
				[]uint32{words[0], uint32(words[1]), words[2], words[4]}, "check after %d of %q in %q", n, c.typed, c.region)
			num, ok := want.Number()
			e164, err := answer(numenAytNumber(h))
			require.NoError(t, err)
			if ok {
				require.Equal(t, num.String(), e164)
			} else {
				require.Empty(t, e164)
			}
			for i := range n + 2 {
				require.Equal(t, int32(want.FormattedPos(i)), numenAytPosition(h, int32(i), 0))
				require.Equal(t, int32(want.RawPos(i)), numenAytPosition(h, int32(i), 1))
			}
		}
		// Several characters in one call type them one by one.
		require.Equal(t, int32(0), numenAytReset(h))
		got, err := answer(numenAytInput(h, put(c.typed)))
		require.NoError(t, err)
		require.Equal(t, string(want.Text()), got)
		numenAytFree(h)
		require.Equal(t, int32(staleHandle), numenAytInput(h, put("1")), "a freed handle is stale")
	}

	_, err := answer(numenAytNew(put("XX")))
	require.ErrorContains(t, err, `unknown region "XX"`)
	require.Equal(t, int32(staleHandle), numenAytCheck(-1))
	require.Equal(t, int32(staleHandle), numenAytNumber(12345678))
}

// TestAsYouTypeHandles: the module keeps maxFormatters; a new one past
// them drops the one used least recently, whose handle turns stale, and
// a slot reused never answers an old handle.
func TestAsYouTypeHandles(t *testing.T) {
	openCore(t)
	for i := range formatters {
		formatters[i].f = nil
	}
	handles := make([]int32, maxFormatters)
	for i := range handles {
		handles[i] = aytNew(t, "DE")
	}
	require.Equal(t, int32(0), numenAytReset(handles[0])) // used: the second is now the oldest
	extra := aytNew(t, "US")
	require.Equal(t, int32(staleHandle), numenAytReset(handles[1]))
	require.Equal(t, int32(0), numenAytReset(handles[0]))
	require.Equal(t, int32(0), numenAytReset(extra))
	require.NotEqual(t, handles[1], extra)
	require.Equal(t, handles[1]&(1<<slotBits-1), extra&(1<<slotBits-1), "the oldest's slot was reused")
	for _, h := range append(handles, extra) {
		numenAytFree(h)
	}
	require.Equal(t, int32(staleHandle), numenAytReset(extra))
}

// TestAsYouTypeAllocs: a keystroke allocates nothing in the module.
func TestAsYouTypeAllocs(t *testing.T) {
	openCore(t)
	h := aytNew(t, "DE")
	defer numenAytFree(h)
	typed := "015123456789"
	allocs := testing.AllocsPerRun(100, func() {
		numenAytReset(h)
		for i := range len(typed) {
			io[0] = typed[i]
			if numenAytInput(h, 1) < 0 || numenAytCheck(h) < 0 || numenAytNumber(h) < 0 {
				panic("failed")
			}
			numenAytPosition(h, int32(i), 0)
		}
	})
	require.Zero(t, allocs)
}

func TestCountries(t *testing.T) {
	p := openCore(t)
	s, err := answer(numenCountries())
	require.NoError(t, err)
	var codes map[string]int
	require.NoError(t, json.Unmarshal([]byte(s), &codes))
	require.Equal(t, 49, codes["DE"])
	require.Equal(t, 1, codes["CA"])
	require.NotContains(t, codes, "001")
	require.Greater(t, len(codes), 240)
	for region, cc := range codes {
		c, ok := p.Country(region)
		require.True(t, ok, region)
		require.Equal(t, "+"+itoa(cc), c.Prefix, region)
	}
}
