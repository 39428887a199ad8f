package remote

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/mnp"
)

// FuzzDecodeHLRAnswer: any bytes give an answer or an error, never a panic,
// and an answer always has a valid Status and a code of the table.
func FuzzDecodeHLRAnswer(f *testing.F) {
	f.Add([]byte(mustJSON(f, cannedHLR)))
	f.Add([]byte(mustJSON(f, hlrWith(func(r *hlrResult) { r.IsRoaming = boolPtr(true) }))))
	f.Add([]byte(`{"processing_status":"REJECTED","connectivity_status":"UNDETERMINED","error_code":6}`))
	f.Add([]byte(`{"processing_status":"COMPLETED","error_code":-1,"mcc":"262","mnc":"01","is_ported":true}`))
	f.Add([]byte(`{"processing_status":"FAILED","msisdn":"00 1 415","error_code":99999999999999999999}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{`))
	f.Add([]byte("\xff\xfe{}"))
	f.Fuzz(func(t *testing.T, body []byte) {
		a, err := decodeHLRAnswer(body, "+14156226819", NumenErrorCode)
		if err != nil {
			return
		}
		checkStatusAndCode(t, a.Status, a.Code)
		if a.MCCMNC != "" && !isDigits(a.MCCMNC, 5, 6) {
			t.Fatalf("MCCMNC %q", a.MCCMNC)
		}
		if a.Ported != mnp.True && !a.PortedTo.IsZero() || a.Roaming != mnp.True && !a.RoamingOn.IsZero() {
			t.Fatalf("network refs without the flag: %+v", a)
		}
	})
}

// FuzzDecodePortAnswer is FuzzDecodeHLRAnswer for MNP results.
func FuzzDecodePortAnswer(f *testing.F) {
	f.Add([]byte(mustJSON(f, cannedMNP)))
	f.Add([]byte(`{"query_status":"OK","is_ported":false,"original_country_code":"de"}`))
	f.Add([]byte(`{"processing_status":"REJECTED","error_code":9}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		a, err := decodePortAnswer(body, "", NumenErrorCode)
		if err != nil {
			return
		}
		checkStatusAndCode(t, a.Status, a.Code)
		if r := a.Network.Region; r != "" && (len(r) != 2 || strings.ToUpper(r) != r) {
			t.Fatalf("region %q", r)
		}
	})
}

func checkStatusAndCode(t *testing.T, s mnp.Status, c mnp.ErrorCode) {
	t.Helper()
	if _, ok := mnp.ParseStatus(s.String()); !ok {
		t.Fatalf("status %d", s)
	}
	if c != mnp.CodeNone && c.Description() == "" {
		t.Fatalf("code %d is not in the table", c)
	}
}

// FuzzDecodeAPIError: any error body gives an error whose texts are bounded,
// valid UTF-8 and free of the secret.
func FuzzDecodeAPIError(f *testing.F) {
	f.Add(503, []byte(`{"errors":["service unavailable"]}`))
	f.Add(401, []byte(`{"errors":["bad `+testSecret+`"]}`))
	f.Add(502, []byte("<html>"+strings.Repeat("x", 300)+testSecret+"</html>"))
	f.Add(400, []byte(`{"errors":[1,2]}`))
	f.Add(429, []byte("\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := decodeAPIError("POST", "/hlr-lookup", status, body, []string{testSecret})
		msg := e.Error()
		if strings.Contains(msg, testSecret) {
			t.Fatalf("secret in %q", msg)
		}
		if len(e.Body) > maxSnippet+len("…") || !utf8.ValidString(e.Body) {
			t.Fatalf("body snippet %q", e.Body)
		}
		if len(e.Errors) > maxMessages+1 {
			t.Fatalf("%d messages", len(e.Errors))
		}
		for _, m := range e.Errors {
			if len(m) > maxMessage+len("…") || !utf8.ValidString(m) {
				t.Fatalf("message %q", m)
			}
		}
	})
}

type hlrResult = apiv2.HLRResult

func boolPtr(b bool) *bool { return &b }
