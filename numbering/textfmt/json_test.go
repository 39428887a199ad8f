package textfmt

import (
	"encoding/json"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// jsonTricky are strings whose encodings differ between careless JSON
// encoders: every escape encoding/json makes, and broken UTF-8.
var jsonTricky = []string{
	"",
	"plain +4915123456789",
	`quote " and backslash \ and slash /`,
	"<script>alert('x&y')</script>",
	"\x00\x01\x07\x1f control",
	"+4915123456789\u0007",
	"\b\f\n\r\t\v short escapes",
	"DEL \x7f",
	"line\u2028separator\u2029paragraph",
	"\u2027\u202a neighbours of U+2028",
	"héllo wörld 日本語 🇩🇪",
	"invalid \xff\xfe bytes",
	"truncated \xe2\x80",     // the start of U+2028, cut short
	"surrogate \xed\xa0\x80", // UTF-16 surrogates are invalid UTF-8
	"overlong \xc0\xaf",
	"\xf4\x90\x80\x80 beyond U+10FFFF",
	"\ufffd the replacement character itself",
	"ends with an escape <",
	"&",
	"\u202e right-to-left override",
}

// requireAsEncodingJSON holds AppendJSONString to json.Marshal, byte for
// byte, and checks that the output decodes back to s (to s with each
// invalid byte replaced when s is not UTF-8).
func requireAsEncodingJSON(t *testing.T, s string) {
	t.Helper()
	want, err := json.Marshal(s)
	require.NoError(t, err)
	got := AppendJSONString(nil, s)
	require.Equal(t, string(want), string(got), "%q", s)
	require.Equal(t, "x"+string(want), string(AppendJSONString([]byte("x"), s)), "appending keeps what the buffer held")
	var back string
	require.NoError(t, json.Unmarshal(got, &back))
	if utf8.ValidString(s) {
		require.Equal(t, s, back)
	}
}

func TestAppendJSONString(t *testing.T) {
	t.Parallel()
	for _, s := range jsonTricky {
		requireAsEncodingJSON(t, s)
	}
	for c := range 256 { // every byte alone
		requireAsEncodingJSON(t, string([]byte{byte(c)}))
	}
}

func TestAppendJSONStringAllocatesNothing(t *testing.T) {
	buf := make([]byte, 0, 256)
	s := "héllo <wörld> \u2028 \xff \x07 \"+4915123456789\""
	if n := testing.AllocsPerRun(100, func() { buf = AppendJSONString(buf[:0], s) }); n != 0 {
		t.Fatalf("AppendJSONString allocates %v times per call", n)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonTricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		requireAsEncodingJSON(t, s)
	})
}

func ExampleAppendJSONString() {
	b := []byte(`{"number":`)
	b = AppendJSONString(b, "+4915123456789\a <b>")
	b = append(b, '}')
	fmt.Println(string(b))
	// Output: {"number":"+4915123456789\u0007 \u003cb\u003e"}
}
