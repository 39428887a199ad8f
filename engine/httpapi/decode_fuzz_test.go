package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/numenhq/numen/engine/apiv2"
)

// FuzzDecode: any request body is decoded or answered with a 400 that
// names what is wrong, never a panic; a decoded body has its required field.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"msisdn": "+4915123456789"}`, `{"msisdn": "+49", "route": "GT1", "storage": "x"}`,
		`{"msisdn": 1}`, `{"msisdn": null}`, `{}`, `[]`, `{"msisdn": "x"} {}`, `{"msidsn": "x"}`, ``, `{`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		w := httptest.NewRecorder()
		var req apiv2.HLRLookupRequest
		if decode(w, body, &req, "msisdn") {
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

func errorsOfRecorder(t *testing.T, b []byte) []string {
	var e apiv2.ErrorBody
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("error body %q: %v", b, err)
	}
	return e.Errors
}
