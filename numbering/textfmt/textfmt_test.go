package textfmt

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSprintf(t *testing.T) {
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
	inner := errors.New("inner")
	err := Errorf("outer %q: %w", "x", inner)
	require.Equal(t, `outer "x": inner`, err.Error())
	require.ErrorIs(t, err, inner)
	require.Equal(t, "plain 3", Errorf("plain %d", 3).Error())
}

func TestVerbs(t *testing.T) {
	require.Empty(t, Verbs("%s %d %q %x %08x %#x %v %w %%"))
	require.Equal(t, []string{"%e", "%+v", "%T"}, Verbs("%e %+v %T"))
}
