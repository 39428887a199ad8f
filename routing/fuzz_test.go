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
