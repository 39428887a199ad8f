package textfmt

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSprintf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format string
		args   []any
	}{
		{"plain", nil},
		{"%d bytes at %d of %d", []any{3, int64(-4), uint32(5)}},
		{"%s and %q", []any{"a\tb", "c\"d"}},
		{"checksum %08x, %x, %#x", []any{uint32(0xbeef), uint16(255), byte(7)}},
		{"%s: %s %v %v", []any{errors.New("boom"), stringer{}, stringer{}, 7}},
		{"100%% sure, %d", []any{int16(-1)}},
	} {
		require.Equal(t, fmt.Sprintf(tc.format, tc.args...), Sprintf(tc.format, tc.args...), tc.format)
	}
	require.Equal(t, "%!s", Sprintf("%s", 42))
	require.Equal(t, "%!e", Sprintf("%e", 1.5))
	require.Equal(t, "%!(bad format)", Sprintf("%0"))
}

type stringer struct{}

func (stringer) String() string { return "str" }

func TestErrorf(t *testing.T) {
	t.Parallel()
	inner := errors.New("inner")
	err := Errorf("outer %q: %w", "x", inner)
	require.Equal(t, `outer "x": inner`, err.Error())
	require.ErrorIs(t, err, inner)
	require.Equal(t, "plain 3", Errorf("plain %d", 3).Error())
}

func TestVerbs(t *testing.T) {
	t.Parallel()
	require.Empty(t, Verbs("%s %d %q %x %08x %#x %v %w %%"))
	require.Equal(t, []string{"%e", "%+v", "%T"}, Verbs("%e %+v %T"))
}

// Invisible characters are written as escapes, as strconv.Quote writes
// them, so that a message quoting a name shows what the name holds and
// does not reorder the text around it.
func TestAppendQuoteInvisible(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"evil\u202eliboM", "a\u0085b", "\u2066x\u2069", "zero\u200bwidth", "soft\u00adhyphen",
		"\ufeffbom", "tag\U000E0041", "a\u2028b", "\u061c\u200e\u200f",
	} {
		require.Equal(t, fmt.Sprintf("%q", s), Sprintf("%q", s), "%+q", s)
	}
	// Printable text, and the joiners names are spelt with, stay as they are.
	for _, s := range []string{"Telefónica", "همراه\u200cاول", "क्\u200dष", "日本"} {
		require.Equal(t, `"`+s+`"`, Sprintf("%q", s))
	}
	require.Equal(t, "a control character", Invisible(0))
	require.Equal(t, "a control character", Invisible(0x9f))
	require.Equal(t, "a bidirectional formatting character", Invisible(0x202e))
	require.Equal(t, "an invisible formatting character", Invisible(0xfeff))
	require.Equal(t, "a line or paragraph separator", Invisible(0x2029))
	require.Empty(t, Invisible('a'))
	require.Empty(t, Invisible(0x200c))
	require.Empty(t, Invisible(0xa0))
}
