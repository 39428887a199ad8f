package compile

import (
	"bytes"
	"strings"
	"testing"
)

func TestCompileLayout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern string
		want    []byte // nil: refused
		err     string
	}{
		{`(\d{3})(\d{4})`, []byte{2, 2, 7, 0xFF, 0xFF, 3, 3, 3, 0xFF, 3, 4, 4, 0, 1, 1, 1}, ""},
		{`(9)(\d{2,3})`, []byte{2, 2, 1, 1, 0x00, 2, 1, 1, 0xFF, 3, 2, 3, 0, 1, 1, 1}, ""},
		{`([2-9]\d)(\d)`, []byte{3, 2, 3, 0xFF, 0xFC, 3, 1, 1, 0xFF, 3, 1, 1, 0xFF, 3, 1, 1, 0, 2, 2, 1}, ""},
		{`(\d{3}|\d{4})`, nil, "not supported"},
		{`(\d{2,3})(\d{2,3})`, nil, "more than one repetition of variable length"},
		{`(\d+)`, nil, "not supported"},
		{`((\d{2}))`, nil, "nested groups"},
		{`(\d{2,3}?)(\d)`, nil, "not supported"},
		{`(\d{0,3})`, nil, "matches the empty string"},
		{`\d{3}`, nil, "0 groups"},
	} {
		got, _, err := compileLayout(tc.pattern)
		switch {
		case tc.want == nil && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want an error containing %q", tc.pattern, err, tc.err)
		case tc.want != nil && (err != nil || !bytes.Equal(got, tc.want)):
			t.Errorf("%s: % x, %v; want % x", tc.pattern, got, err, tc.want)
		}
	}
}

func TestReplaceFirstGroup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ format, rule, want string }{
		{"$1 $2", "0$1", "0$1 $2"},
		{"$1 $2", "($1)", "($1) $2"},
		{"$2 $1", "8 ($1)", "8 ($2) $1"}, // the first "$n", whatever n
		{"$1-$2", "$1", "$1-$2"},
		{"no groups", "0$1", "no groups"},
		{"$CC $1", "0$1", "$CC 0$1"}, // "$C" is no group
	} {
		if got := replaceFirstGroup(tc.format, tc.rule); got != tc.want {
			t.Errorf("replaceFirstGroup(%q, %q) = %q, want %q", tc.format, tc.rule, got, tc.want)
		}
	}
	f := &formatCompiler{templateAt: map[string]uint32{}}
	for _, bad := range []string{"$12 $2", "$1x", "$", "$0", "$3", "é$1"} {
		if _, err := f.template(bad, 2); err == nil {
			t.Errorf("template %q accepted", bad)
		}
	}
	if _, err := f.template("0$1 $2", 2); err != nil {
		t.Error(err)
	}
}
