package apiv2

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// filler fills values from a fuzzer's inputs: strings in turn from strs,
// and the choices (nil or not, true or false, empty or not) from the bits
// of shape, so that every shape of a value comes up.
type filler struct {
	strs  []string
	next  int
	shape uint64
}

func (f *filler) take() string {
	s := f.strs[f.next%len(f.strs)]
	f.next++
	return s
}

func (f *filler) bit() bool {
	v := f.shape&1 == 1
	f.shape = f.shape>>1 | f.shape<<63 // rotate, so that long structs see every bit again
	return v
}

// fill sets every exported field of the struct v points to: strings,
// *string, bool, *bool, int, *int and []string.
func (f *filler) fill(v any) {
	rv := reflect.ValueOf(v).Elem()
	for i := range rv.NumField() {
		fv := rv.Field(i)
		switch p := fv.Addr().Interface().(type) {
		case *string:
			*p = f.take()
		case **string:
			if s := f.take(); f.bit() {
				*p = &s
			}
		case *bool:
			*p = f.bit()
		case **bool:
			if present, b := f.bit(), f.bit(); present {
				*p = &b
			}
		case *int:
			*p = len(f.take()) - 3
		case **int:
			if n := len(f.take()); f.bit() {
				*p = &n
			}
		case *[]string:
			*p = f.strings()
		default:
			panic("filler: field " + rv.Type().Field(i).Name + " of type " + fv.Type().String())
		}
	}
}

func (f *filler) strings() []string {
	s := f.take()
	switch present, empty := f.bit(), f.bit(); {
	case !present:
		return nil
	case empty:
		return []string{}
	}
	return strings.Split(s, ",")
}

// valid reports whether every string of strs is UTF-8: those decode back
// to themselves; others decode with U+FFFD in place of each bad byte.
func valid(strs ...string) bool {
	for _, s := range strs {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// requireRoundTrip checks that encoded is valid JSON that decodes into a
// value of v's type equal to v (for UTF-8 inputs).
func requireRoundTrip[T any](t *testing.T, encoded []byte, v *T, utf8Input bool) {
	t.Helper()
	require.True(t, json.Valid(encoded), "not JSON: %q", encoded)
	back := new(T)
	require.NoError(t, json.Unmarshal(encoded, back))
	if utf8Input {
		require.Equal(t, v, back)
	}
}

var fuzzSeeds = [][4]string{
	{"2rx2qtkeyecr", "+4915123456789", "MOBILE", "Germany,Europe/Berlin"},
	{"", "", "", ""},
	{"<&>", "\u2028\u2029", "\x00\b\f\n\r\t\x1f\x7f", "\xff\xe2\x80,"},
	{`"\`, "日本語", "\xed\xa0\x80", ",,"},
	{"+4915123456789\u0007", "\u202e", "0.0100", "http://127.0.0.1:9/hook"},
}

// FuzzReceiptAppendJSON holds the bulk receipt's encoder to json.Marshal
// of the same receipt written with plain struct tags (no hand-written
// encoder), byte for byte, and checks that it decodes back to the receipt.
func FuzzReceiptAppendJSON(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(s[0], s[1], s[2], s[3], uint64(0x9e3779b97f4a7c15)*uint64(i+1), uint8(i))
	}
	f.Fuzz(func(t *testing.T, a, b, c, d string, shape uint64, n uint8) {
		fl := &filler{strs: []string{a, b, c, d}, shape: shape}
		nt := fl.bit()
		submitted := func() []Submitted {
			if !fl.bit() {
				return nil
			}
			out := []Submitted{}
			for range int(n % 4) {
				s := Submitted{Number: fl.take(), NT: nt}
				if id := fl.take(); fl.bit() {
					s.ID = &id
				}
				out = append(out, s)
			}
			return out
		}
		r := &Receipt{
			Accepted: submitted(), AcceptedCount: int(n), Rejected: submitted(), RejectedCount: len(a),
			TotalCount: -len(b), Cost: Decimal(fl.take()), Storage: fl.take(), Route: fl.take(), WebhookURLs: fl.strings(),
		}
		got := r.AppendJSON(nil)
		want, err := json.Marshal(plainReceipt(r))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
		viaMarshal, err := json.Marshal(r)
		require.NoError(t, err)
		require.Equal(t, string(got), string(viaMarshal))
		requireRoundTrip(t, got, r, valid(a, b, c, d))
	})
}

// plainReceipt is r in types json.Marshal encodes by reflection alone.
func plainReceipt(r *Receipt) any {
	type msisdn struct {
		ID     *string `json:"id"`
		MSISDN string  `json:"msisdn"`
	}
	type number struct {
		ID     *string `json:"id"`
		Number string  `json:"number"`
	}
	list := func(ss []Submitted) []any {
		if ss == nil {
			return nil
		}
		out := []any{}
		for _, s := range ss {
			if s.NT {
				out = append(out, number{s.ID, s.Number})
			} else {
				out = append(out, msisdn{s.ID, s.Number})
			}
		}
		return out
	}
	return struct {
		Accepted      []any    `json:"accepted"`
		AcceptedCount int      `json:"accepted_count"`
		Rejected      []any    `json:"rejected"`
		RejectedCount int      `json:"rejected_count"`
		TotalCount    int      `json:"total_count"`
		Cost          string   `json:"cost"`
		Storage       string   `json:"storage"`
		Route         string   `json:"route"`
		WebhookURLs   []string `json:"webhook_urls"`
	}{list(r.Accepted), r.AcceptedCount, list(r.Rejected), r.RejectedCount, r.TotalCount, string(r.Cost), r.Storage, r.Route, r.WebhookURLs}
}

// FuzzResultJSON checks that every result object's AppendJSON writes
// json.Marshal's bytes, and that those are valid JSON that decodes back to
// the result, whatever its strings hold. The filler sets every field by
// reflection, so a field added to a result and forgotten by its encoder
// shows here.
func FuzzResultJSON(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(s[0], s[1], s[2], s[3], uint64(0x9e3779b97f4a7c15)*uint64(i+1))
	}
	f.Fuzz(func(t *testing.T, a, b, c, d string, shape uint64) {
		utf8Input := valid(a, b, c, d)
		strs := []string{a, b, c, d}

		var nt NTResult
		(&filler{strs: strs, shape: shape}).fill(&nt)
		requireAsMarshalled(t, &nt)
		requireRoundTrip(t, nt.AppendJSON(nil), &nt, utf8Input)

		var hlr HLRResult
		(&filler{strs: strs, shape: shape}).fill(&hlr)
		requireAsMarshalled(t, &hlr)
		requireRoundTrip(t, hlr.AppendJSON(nil), &hlr, utf8Input)

		var mnp MNPResult
		(&filler{strs: strs, shape: shape}).fill(&mnp)
		requireAsMarshalled(t, &mnp)
		requireRoundTrip(t, mnp.AppendJSON(nil), &mnp, utf8Input)
	})
}

// requireAsMarshalled holds r.AppendJSON to json.Marshal(r), byte for
// byte, appending to a buffer that holds something already.
func requireAsMarshalled(t *testing.T, r Result) {
	t.Helper()
	want, err := json.Marshal(r)
	require.NoError(t, err)
	require.Equal(t, "x"+string(want), string(r.AppendJSON([]byte("x"))), "%T", r)
}

func TestReceiptAppendJSONAllocatesNothing(t *testing.T) {
	r := &Receipt{
		Accepted:      []Submitted{{ID: String("abcdefghijkl"), Number: "+4915112345678", NT: true}},
		Rejected:      []Submitted{{Number: "+4915123456789\a <b>", NT: true}},
		AcceptedCount: 1, RejectedCount: 1, TotalCount: 2, Cost: "0.0010", Storage: "ASYNC-API-NT-2026-11", Route: "NT1",
		WebhookURLs: []string{"http://127.0.0.1:9/hook"},
	}
	buf := make([]byte, 0, 1024)
	require.Zero(t, testing.AllocsPerRun(100, func() { buf = r.AppendJSON(buf[:0]) }))
	require.JSONEq(t, `{"accepted":[{"id":"abcdefghijkl","number":"+4915112345678"}],"accepted_count":1,
		"rejected":[{"id":null,"number":"+4915123456789\u0007 <b>"}],"rejected_count":1,"total_count":2,"cost":"0.0010",
		"storage":"ASYNC-API-NT-2026-11","route":"NT1","webhook_urls":["http://127.0.0.1:9/hook"]}`, string(buf))
}
