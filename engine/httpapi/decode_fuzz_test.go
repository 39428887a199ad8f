package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
)

// decodeSeeds are bodies with the cases decode must tell apart.
var decodeSeeds = []string{
	`{"msisdn": "+4915123456789"}`, `{"msisdn": "+49", "route": "GT1", "storage": "x"}`,
	`{"msisdn": 1}`, `{"msisdn": null}`, `{}`, `[]`, `{"msisdn": "x"} {}`, `{"msidsn": "x"}`, ``, `{`, "\xff",
	`null`, ` {"msisdn":"x"} `, `{"msisdn":"x"}]`, `{"msisdn":"x"}}`, `{"MSISDN":"x"}`, `{"\u006dsisdn":"x"}`,
	`{"msisdn":"x","msisdn":null}`, `{"msisdn":null,"msisdn":"x"}`, `{"route":"GT1"}`, `{"msisdn":""}`,
	`{"msisdn":"a\"b","route":"\\"}`, `{"storage":"msisdn","msisdn":"x"}`, `{"route":{"msisdn":1},"msisdn":"x"}`,
	"{\"msisdn\"\t:\n\"x\"\r}", `{"msisdn":"x"}` + "\v", `{"msisdn":"x"} null`,
}

// FuzzDecode: any request body is decoded or answered with a 400 that
// names what is wrong, never a panic; a decoded body has its required
// field; and decode answers exactly as decodeSlow, the two-pass reference.
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"msisdns": ["+49", "x\"]"], "route": null}`, `{"msisdns": []}`, `{"msisdns": null, "msisdns": [[]]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		// A bulk body: the required field is an array.
		bw, bref := httptest.NewRecorder(), httptest.NewRecorder()
		var bulk, bulkRef apiv2.HLRLookupsRequest
		if decode(bw, body, &bulk, "msisdns") != decodeSlow(bref, body, &bulkRef, "msisdns") || bw.Body.String() != bref.Body.String() {
			t.Fatalf("bulk body %q: decode %s; reference %s", body, bw.Body, bref.Body)
		}
		if diff := cmp.Diff(bulkRef, bulk); diff != "" {
			t.Fatalf("bulk body %q: decoded differently (-reference +decode):\n%s", body, diff)
		}

		w := httptest.NewRecorder()
		var req apiv2.HLRLookupRequest
		ok := decode(w, body, &req, "msisdn")

		ref := httptest.NewRecorder()
		var refReq apiv2.HLRLookupRequest
		refOK := decodeSlow(ref, body, &refReq, "msisdn")
		if ok != refOK || w.Code != ref.Code || w.Body.String() != ref.Body.String() {
			t.Fatalf("body %q: decode %v %d %s; reference %v %d %s", body, ok, w.Code, w.Body, refOK, ref.Code, ref.Body)
		}
		if ok {
			if diff := cmp.Diff(refReq, req); diff != "" {
				t.Fatalf("body %q: decoded differently (-reference +decode):\n%s", body, diff)
			}
			if w.Body.Len() != 0 {
				t.Fatal("decoded, yet answered")
			}
			return
		}
		if w.Code != 400 {
			t.Fatalf("status %d", w.Code)
		}
		if len(errorsOfRecorder(t, w.Body.Bytes())) == 0 {
			t.Fatal("a 400 without a message")
		}
	})
}

// TestDecodeRequired: the required field is found under its exact name,
// the last of a repeated name decides, and nothing may follow the object.
func TestDecodeRequired(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body, want string // want "" for decoded
	}{
		{`{"msisdn":"x"}`, ""},
		{` {"msisdn" : "x" } ` + "\n", ""},
		{`{"\u006dsisdn":"x"}`, ""},
		{`{"msisdn":null,"msisdn":"x"}`, ""},
		{`{"route":"{\"msisdn\":null}","msisdn":"x"}`, ""},
		{`{"msisdn":""}`, ""}, // present: the engine says it is empty
		{`{"msisdn":"x","msisdn":null}`, "msisdn: is required"},
		{`{"MSISDN":"x"}`, "msisdn: is required"},
		{`{"route":"GT1"}`, "msisdn: is required"},
		{`{"storage":"msisdn"}`, "msisdn: is required"},
		{`null`, "msisdn: is required"},
		{`[]`, "msisdn: is required"}, // PHP's empty parameters: an empty object
		{`{}`, "msisdn: is required"},
		{`[ ]`, "body: want a JSON object, got array"},
		{`["+4915123456789"]`, "body: want a JSON object, got array"},
		{`{"msisdn":"x"} {}`, "body: data after the JSON object"},
		{`{"msisdn":"x"}]`, "body: data after the JSON object"},
		{`{"msisdn":"x"}}`, "body: data after the JSON object"},
		{`{"msisdn":1}`, "msisdn: want a string, got number"},
		{`{"msisdn":"x","rout":"GT1"}`, ""},                      // unknown members are ignored
		{`{"msisdn":"x","extra":{"nested":[1,{"a":null}]}}`, ""}, // whatever their value
		{`{"msisdn":"x","route":1}`, "route: want a string, got number"},
		{` `, "body: want a JSON object with msisdn; got an empty body"},
	} {
		w := httptest.NewRecorder()
		var req apiv2.HLRLookupRequest
		ok := decode(w, []byte(tc.body), &req, "msisdn")
		if tc.want == "" {
			require.True(t, ok, "%s: %s", tc.body, w.Body)
			continue
		}
		require.False(t, ok, tc.body)
		require.Equal(t, []string{tc.want}, errorsOfRecorder(t, w.Body.Bytes()), tc.body)
	}
}

// TestDecodeAllocs: the one-pass decode of a lookup body allocates no more
// than the json.Decoder itself.
func TestDecodeAllocs(t *testing.T) {
	body := []byte(`{"number":"+44 20 7946 0000","route":"LC1"}`)
	w := httptest.NewRecorder()
	one := testing.AllocsPerRun(100, func() {
		var req apiv2.NTLookupRequest
		decode(w, body, &req, "number")
	})
	two := testing.AllocsPerRun(100, func() {
		var req apiv2.NTLookupRequest
		decodeSlow(w, body, &req, "number")
	})
	t.Logf("allocations: decode %v, decodeSlow %v", one, two)
	require.Less(t, one, two)
}

func errorsOfRecorder(t *testing.T, b []byte) []string {
	var e apiv2.ErrorBody
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("error body %q: %v", b, err)
	}
	return e.Errors
}

// FuzzDecodeLookup: decodeLookupFast, the encoding/json-free path of the
// single lookups, accepts only bodies that decode accepts, with the same
// values; decodeLookup answers as decode does.
func FuzzDecodeLookup(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"number":"+44 20 7946 0000"}`, `{"number": "1", "route": "", "storage": "s"}`, `{"number":"1","number":"2"}`,
		`{"Number":"1"}`, `{"number":"1",}`, `{"number":"1"}x`, `{"number":"\u0031"}`, "{\"number\":\"\x7f\"}",
		`{"number":"é"}`, `{"route":"GT1"}`, `{"storage":"x","number":"1","route":"NT1"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, field := range []string{"msisdn", "number"} {
			ref := httptest.NewRecorder()
			var want engine.Request
			var refOK bool
			if field == "number" {
				var b apiv2.NTLookupRequest
				if refOK = decode(ref, body, &b, field); refOK {
					want = engine.Request{Number: b.Number, Route: apiv2.Deref(b.Route), Storage: apiv2.Deref(b.Storage)}
				}
			} else {
				var b apiv2.HLRLookupRequest
				if refOK = decode(ref, body, &b, field); refOK {
					want = engine.Request{Number: b.MSISDN, Route: apiv2.Deref(b.Route), Storage: apiv2.Deref(b.Storage)}
				}
			}
			if got, ok := decodeLookupFast(body, field); ok {
				if !refOK {
					t.Fatalf("%s body %q: the fast path accepts what decode answers with %s", field, body, ref.Body)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s body %q: decoded differently (-decode +fast):\n%s", field, body, diff)
				}
			}
			w := httptest.NewRecorder()
			got, ok := decodeLookup(w, body, field)
			if ok != refOK || w.Code != ref.Code || w.Body.String() != ref.Body.String() {
				t.Fatalf("%s body %q: decodeLookup %v %d %s; decode %v %d %s", field, body, ok, w.Code, w.Body, refOK, ref.Code, ref.Body)
			}
			if diff := cmp.Diff(want, got); ok && diff != "" {
				t.Fatalf("%s body %q: decodeLookup differs (-decode +decodeLookup):\n%s", field, body, diff)
			}
		}
	})
}

// A body longer than maxFastBody is left to decode, which still reads it:
// the fast path's values share the body's one copy, and a long body must
// not be kept alive by a short value.
func TestDecodeLookupLongBody(t *testing.T) {
	t.Parallel()
	body := []byte(`{"number":"+4915123456789","storage":"` + strings.Repeat("s", maxFastBody) + `"}`)
	_, fast := decodeLookupFast(body, "number")
	require.False(t, fast)
	w := httptest.NewRecorder()
	req, ok := decodeLookup(w, body, "number")
	require.True(t, ok, "%s", w.Body)
	require.Equal(t, engine.Request{Number: "+4915123456789", Storage: strings.Repeat("s", maxFastBody)}, req)
	short := []byte(`{"number":"+4915123456789"}`)
	_, fast = decodeLookupFast(short, "number")
	require.True(t, fast)
}
