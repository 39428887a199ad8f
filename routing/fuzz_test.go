package routing

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/numenhq/numen/data"
)

// FuzzParseMap feeds arbitrary bytes to ParseMap and to validation: no
// panic, and a map that parses survives a round trip through its JSON form
// unchanged and validates the same way.
func FuzzParseMap(f *testing.F) {
	platformJSON, err := data.ReadFile("routing/platform.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		string(platformJSON),
		`{"defaultRoute": "HA1", "mnpFallback": true, "mccmncs": [{"mccmnc": 26201, "route": "HB1"}], "prefixes": [{"cns": "+49151", "route": "REJECT", "mccmnc": "26201"}], "countries": [{"countrycode": "DE", "route": "HC1"}]}`,
		`{"routing": {"map": {"default_route": "HA1", "mnp_fallback": false}}}`,
		`{"prefixes": [{"cns": "+4917", "route": "HA1"}, {"cns": "+4917", "route": "HB1"}]}`,
		`{"mccmncs": [{"mccmnc": "0", "route": "HA1"}]}`,
		`{}`, `[]`, `null`, `{"prefixes": null}`, `{"defaultRoute": "\u0000"}`, `{"prefixes": [{}]}`,
	} {
		f.Add([]byte(seed))
	}
	p, err := NewPlatform(plan(f), coverage(f), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := ParseMap(in)
		if err != nil {
			return
		}
		_, buildErr := p.Resolver(m)
		out, err := json.Marshal(m)
		if err != nil {
			return // an MCCMNC that is not a number cannot be written; validation refuses it too
		}
		back, err := ParseMap(out)
		if err != nil {
			t.Fatalf("own output does not parse: %v\n%s", err, out)
		}
		if diff := cmp.Diff(m, back); diff != "" {
			t.Fatalf("round trip changed the map:\n%s", diff)
		}
		if _, err := p.Resolver(back); (err == nil) != (buildErr == nil) {
			t.Fatalf("validation differs after the round trip: %v vs %v", buildErr, err)
		}
	})
}

// FuzzDecisionJSON holds Decision.AppendJSON (GET /route's answer) to
// encoding/json byte for byte, for any route and network text and any
// confidence and origin, known or not: the same keys in the same order,
// strings escaped alike, and origin null for a static decision.
func FuzzDecisionJSON(f *testing.F) {
	f.Add("HA1", "26201", uint8(High), uint8(OriginScore))
	f.Add("REJECT", "", uint8(Low), uint8(OriginReject))
	f.Add("GT\u0007", "<&>\u2028", uint8(MNPFallback), uint8(OriginStatic))
	f.Add("\xff\xfe", "\"\\", uint8(200), uint8(200))
	f.Fuzz(func(t *testing.T, route, mccmnc string, confidence, origin uint8) {
		d := Decision{Route: route, MCCMNC: mccmnc, Confidence: Confidence(confidence), Origin: Origin(origin)}
		plain := struct {
			Route      string  `json:"route"`
			Confidence string  `json:"confidence_level"`
			MCCMNC     string  `json:"mccmnc"`
			Origin     *string `json:"origin"`
		}{Route: route, Confidence: d.Confidence.String(), MCCMNC: mccmnc}
		if o := d.Origin.String(); o != "" {
			plain.Origin = &o
		}
		want, err := json.Marshal(plain)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.AppendJSON(nil); string(got) != string(want) {
			t.Fatalf("AppendJSON\n got %s\nwant %s", got, want)
		}
	})
}
