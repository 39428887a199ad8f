package httpapi

import (
	"encoding/json"
	"testing"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/stretchr/testify/require"
)

// TestCountry: the optional country reads national input in the lookups
// and GET /route; without it, national input is refused as before; an
// unknown country is 400 naming it.
func TestCountry(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	sign := digest(secret, 0)
	nt := func(body string) (int, apiv2.NTResult, string) {
		t.Helper()
		status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", body, sign)
		var res apiv2.NTResult
		if status == 200 {
			require.NoError(t, json.Unmarshal(b, &res))
		}
		return status, res, string(b)
	}
	status, res, b := nt(`{"number": "0151 23456789", "country": "DE"}`)
	require.Equal(t, 200, status, b)
	require.Equal(t, "+4915123456789", res.Number)
	require.Equal(t, "MOBILE", res.NumberType)

	status, res, b = nt(`{"number": "011 44 20 7946 0000", "country": "us"}`)
	require.Equal(t, 200, status, b)
	require.Equal(t, "+442079460000", res.Number)

	status, res, b = nt(`{"number": "0151 23456789"}`)
	require.Equal(t, 200, status, b)
	require.Equal(t, "0151 23456789", res.Number)
	require.Equal(t, apiv2.String("missing country code"), res.InvalidReason)

	status, res, b = nt(`{"number": "0151 23456789", "country": null}`)
	require.Equal(t, 200, status, b)
	require.Equal(t, apiv2.String("missing country code"), res.InvalidReason)

	status, _, b = nt(`{"number": "0151 23456789", "country": "XY"}`)
	require.Equal(t, 400, status)
	require.JSONEq(t, `{"errors": ["country: \"XY\" is not the ISO 3166-1 alpha-2 code of a country with a calling code"]}`, b)

	status, _, body := s.do(t, "POST", "/api/v2/hlr-lookup", `{"msisdn": "(201) 555-0123", "country": "US"}`, sign)
	require.Equal(t, 200, status, "%s", body)
	var hlr apiv2.HLRResult
	require.NoError(t, json.Unmarshal(body, &hlr))
	require.Equal(t, "+12015550123", hlr.MSISDN)

	status, _, body = s.do(t, "GET", "/api/v2/route?msisdn=0151%2023456789&country=DE", "", sign)
	require.Equal(t, 200, status, "%s", body)
	var d apiv2.RouteDecision
	require.NoError(t, json.Unmarshal(body, &d))
	require.Equal(t, "DS7", d.Route)
	status, _, body = s.do(t, "GET", "/api/v2/route?msisdn=0151%2023456789", "", sign)
	require.Equal(t, 400, status, "%s", body)
	status, _, body = s.do(t, "GET", "/api/v2/route?msisdn=0151%2023456789&country=XY", "", sign)
	require.Equal(t, 400, status)
	require.Contains(t, string(body), `country: \"XY\"`)
}
