package numbering

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
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
		{"%s: %s", []any{errors.New("boom"), TooShort}},
		{"100%% sure, %d", []any{int16(-1)}},
	} {
		require.Equal(t, fmt.Sprintf(tc.format, tc.args...), sprintf(tc.format, tc.args...), tc.format)
	}
	require.Equal(t, "%!v", sprintf("%v", 1))
	require.Equal(t, "%!s", sprintf("%s", 42))
	require.Equal(t, "%!(bad format)", sprintf("%0"))
}

// TestFormatVerbs keeps the package's messages (its string literals) to
// the verbs sprintf knows.
func TestFormatVerbs(t *testing.T) {
	verb := regexp.MustCompile(`%(#?[0-9]*[a-zA-Z]|%)`)
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "sprintf.go" {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			for _, m := range verb.FindAllString(lit.Value, -1) {
				switch last := m[len(m)-1]; {
				case m == "%%", last == 's', last == 'd', last == 'q', last == 'x':
				default:
					t.Errorf("%s: verb %s in %s, which sprintf does not know", fset.Position(lit.Pos()), m, lit.Value)
				}
			}
			return true
		})
	}
}
