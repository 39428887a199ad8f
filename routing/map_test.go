package routing

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestParseMapKeys(t *testing.T) {
	t.Parallel()
	want := &Map{
		DefaultRoute: "HA1", MNPFallback: true,
		MCCMNCs:   []MCCMNCRule{{MCCMNC: "26201", CountryCode: "DE", Route: "HB1", MNO: "Telekom"}, {MCCMNC: "310260", Route: "HC1"}},
		Prefixes:  []PrefixRule{{CountryCode: "DE", CNS: "+49151", Route: "HB1", MCCMNC: "26201", MNO: "Telekom"}},
		Countries: []CountryRule{{CountryCode: "FR", Route: "REJECT"}},
	}
	body := `"mccmncs": [{"mccmnc": 26201, "countrycode": "DE", "route": "HB1", "mno": "Telekom"}, {"mccmnc": "310260", "route": "HC1", "mno": null}],
		"prefixes": [{"countrycode": "DE", "cns": "+49151", "route": "HB1", "mccmnc": 26201, "mno": "Telekom"}],
		"countries": [{"countrycode": "FR", "route": "REJECT"}]`
	for _, in := range []string{
		`{"defaultRoute": "HA1", "mnpFallback": true, ` + body + `}`,
		`{"default_route": "HA1", "mnp_fallback": true, ` + body + `}`,
		`{"default_route": "HA1", "defaultRoute": "HA1", "mnpFallback": true, ` + body + `}`,
		`{"routing": {"map": {"defaultRoute": "HA1", "mnpFallback": true, ` + body + `}}}`,
	} {
		m, err := ParseMap([]byte(in))
		require.NoError(t, err, in)
		if diff := cmp.Diff(want, m); diff != "" {
			t.Errorf("%s:\n%s", in, diff)
		}
	}
}

func TestMapJSONRoundTrip(t *testing.T) {
	t.Parallel()
	m := &Map{
		DefaultRoute: "HA1",
		MCCMNCs:      []MCCMNCRule{{MCCMNC: "26201", Route: "HB1", Confidence: "HIGH", Origin: "CUSTOM_USER_MCCMNC"}, {MCCMNC: "00101", Route: "HA1"}},
		Prefixes:     []PrefixRule{{CNS: "+49151", Route: "HB1"}},
	}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	require.JSONEq(t, `{"defaultRoute":"HA1","mnpFallback":false,
		"mccmncs":[{"mccmnc":26201,"countrycode":null,"route":"HB1","mno":null,"confidence":"HIGH","origin":"CUSTOM_USER_MCCMNC"},
		           {"mccmnc":"00101","countrycode":null,"route":"HA1","mno":null,"confidence":null,"origin":null}],
		"prefixes":[{"countrycode":null,"cns":"+49151","route":"HB1","mccmnc":null,"mno":null}],
		"countries":[]}`, string(b))
	back, err := ParseMap(b)
	require.NoError(t, err)
	require.Empty(t, cmp.Diff(m, back))

	empty, err := json.Marshal(&Map{})
	require.NoError(t, err)
	require.JSONEq(t, `{"defaultRoute":null,"mnpFallback":false,"mccmncs":[],"prefixes":[],"countries":[]}`, string(empty))
}

func TestParseMapErrors(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"defaultRoute": "HA1", "colour": "red"}`:          `unknown field "colour"`,
		`{"defaultRoute": "HA1" "mnpFallback": true}`:       "line 1, column",
		"{\n  \"defaultRoute\": 12\n}":                      "line 2",
		`{"defaultRoute": "HA1", "default_route": "HB1"}`:   `defaultRoute "HA1" and default_route "HB1" disagree`,
		`{"mnpFallback": true, "mnp_fallback": false}`:      "disagree",
		`{"mccmncs": [{"mccmnc": 262.01, "route": "HA1"}]}`: "whole number",
		`{"mccmncs": [{"mccmnc": true, "route": "HA1"}]}`:   "whole number",
		`{"routing": {"map": {}, "extra": 1}}`:              `exactly one key, "map"`,
		`[]`:                                                "routing map",
		`{} {}`:                                             "data after the JSON value",
		``:                                                  "routing map",
	} {
		_, err := ParseMap([]byte(in))
		require.Error(t, err, in)
		require.Contains(t, err.Error(), want, in)
	}
}

func TestValidationNamesEveryProblem(t *testing.T) {
	t.Parallel()
	p, err := NewPlatform(plan(t), coverage(t), nil)
	require.NoError(t, err)
	m := parseMap(t, `{
		"defaultRoute": "HA",
		"mccmncs": [
			{"mccmnc": 2620, "route": "HA1"},
			{"mccmnc": 26201, "route": "ZZ9"},
			{"mccmnc": 26202, "route": "HA1", "countrycode": "XX", "confidence": "SURE", "origin": "GUESS"},
			{"mccmnc": 26203, "route": "HA1"},
			{"mccmnc": "26203", "route": "HA1"},
			{"mccmnc": 23415, "route": "HA1"},
			{"mccmnc": 23415, "route": "HB1"}
		],
		"prefixes": [
			{"cns": "49151", "route": "HA1"},
			{"cns": "+49x", "route": "HA1"},
			{"cns": "+999", "route": "HA1"},
			{"cns": "+49151", "route": "HA1", "countrycode": "FR"},
			{"cns": "+49172", "route": "HA1", "mccmnc": "2620x"},
			{"cns": "+4917", "route": "HA1"},
			{"cns": "+4917", "route": "HB1"},
			{"cns": "+4915", "route": ""},
			{"cns": "+4916", "route": "NT1"}
		],
		"countries": [
			{"countrycode": "de", "route": "HA1"},
			{"countrycode": "ZZ", "route": "HA1"},
			{"countrycode": "FR", "route": "HA1"},
			{"countrycode": "FR", "route": "HA1"}
		]
	}`)
	_, err = p.Resolver(m)
	var me *MapError
	require.ErrorAs(t, err, &me)
	for _, want := range []string{
		`defaultRoute "HA": want a 3-character route or REJECT`,
		`mccmncs[0].mccmnc "2620": want 5 or 6 digits`,
		`mccmncs[1].route "ZZ9": unknown route (known: REJECT, HA1, HB1, HC1, MA1)`,
		`mccmncs[2].countrycode "XX": not an ISO 3166-1 alpha-2 country code`,
		`mccmncs[2].confidence "SURE"`,
		`mccmncs[2].origin "GUESS"`,
		`mccmncs[4]: 26203 repeats mccmncs[3]`,
		`mccmncs[6]: 23415 routes to HB1, contradicting mccmncs[5], which routes it to HA1`,
		`prefixes[0].cns "49151": want a plus sign and 1 to 15 digits`,
		`prefixes[1].cns "+49x": want a plus sign`,
		`prefixes[2].cns "+999": does not start with a whole country calling code`,
		`prefixes[3]: countrycode FR contradicts cns +49151 (calling code +49 belongs to DE)`,
		`prefixes[4].mccmnc "2620x": want 5 or 6 digits`,
		`prefixes[6]: +4917 routes to HB1, contradicting prefixes[5], which routes it to HA1`,
		`prefixes[7].route: missing`,
		`prefixes[8].route "NT1": an NT route cannot serve HLR lookups`,
		`countries[0].countrycode "de": not an ISO`,
		`countries[1].countrycode "ZZ": not an ISO`,
		`countries[3]: FR repeats countries[2]`,
	} {
		found := false
		for _, p := range me.Problems {
			found = found || strings.Contains(p, want)
		}
		require.True(t, found, "missing problem %q in:\n%s", want, strings.Join(me.Problems, "\n"))
	}
	require.Len(t, me.Problems, 19, strings.Join(me.Problems, "\n"))
	require.Contains(t, err.Error(), "routing map: 19 problems: ")
}

func TestPlatformValidation(t *testing.T) {
	t.Parallel()
	_, err := NewPlatform(plan(t), coverage(t), parseMap(t, `{"mnpFallback": true, "countries": [{"countrycode": "DE", "route": "XX1"}]}`))
	var me *MapError
	require.ErrorAs(t, err, &me)
	require.Equal(t, "platform map", me.What)
	require.Len(t, me.Problems, 2)
	_, err = NewPlatform(nil, nil, nil)
	require.Error(t, err)
}

func TestCoverageValidation(t *testing.T) {
	t.Parallel()
	_, err := ParseCoverage([]byte(`{
		"routes": [{"id": "HA", "product": "HLR"}, {"id": "HB1", "product": "SMS"}, {"id": "HC1", "product": "HLR"}, {"id": "HC1", "product": "HLR"}, {"id": "NT1", "product": "NT"}],
		"networks": [{"mccmnc": "2620", "countrycode": "DE"}, {"mccmnc": "26201", "countrycode": "Germany"}, {"mccmnc": "26202", "countrycode": "DE"}, {"mccmnc": "26202", "countrycode": "DE"}],
		"scores": [{"route": "XX1", "mccmnc": "26202", "score": 5}, {"route": "HC1", "mccmnc": "99999", "score": 5},
		           {"route": "HC1", "mccmnc": "26202", "score": 101}, {"route": "NT1", "mccmnc": "26202", "score": 5},
		           {"route": "HC1", "mccmnc": "26202", "score": 50}, {"route": "HC1", "mccmnc": "26202", "score": 60}]
	}`))
	var me *MapError
	require.ErrorAs(t, err, &me)
	require.Equal(t, "coverage", me.What)
	require.Len(t, me.Problems, 11, strings.Join(me.Problems, "\n"))

	_, err = ParseCoverage([]byte(`{"routes": [], "bogus": 1}`))
	require.ErrorContains(t, err, "bogus")
	// A route id that strconv.AppendQuote would write as invalid JSON.
	for _, id := range []string{`H\u0001A`, `\u00e9A`, `H\u007fA`} {
		_, err = ParseCoverage([]byte(`{"routes": [{"id": "` + id + `", "product": "HLR"}]}`))
		require.ErrorContains(t, err, "want 3 characters, printable ASCII", id)
	}
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	cov, err := DefaultCoverage()
	require.NoError(t, err)
	require.Equal(t, []string{"DS7", "GT1", "GT2"}, cov.RoutesOf(HLR))
	require.Equal(t, []string{"MP1"}, cov.RoutesOf(MNP))
	require.Equal(t, []string{"NT1"}, cov.RoutesOf(NT))
	require.GreaterOrEqual(t, len(cov.Networks), 50)
	pm, err := DefaultPlatformMap()
	require.NoError(t, err)
	p, err := NewPlatform(plan(t), cov, pm)
	require.NoError(t, err)
	r, err := p.Resolver(nil)
	require.NoError(t, err)

	d := r.Resolve(number(t, "+49 151 23456789", "26201"))
	require.Equal(t, "DS7", d.Route) // the default coverage's best route for Telekom Deutschland
	require.Equal(t, OriginScore, d.Origin)
	d = r.Resolve(number(t, "+1 650 253 0000", ""))
	require.Equal(t, "GT2", d.Route)
	require.Equal(t, OriginGlobalCountry, d.Origin)
	d = r.Resolve(number(t, "+39 06 1234 5678", ""))
	require.Equal(t, "GT1", d.Route)
	require.Equal(t, OriginScore, d.Origin)
}

func TestEffectiveMap(t *testing.T) {
	t.Parallel()
	r := resolver(t, `{"defaultRoute": "HC1"}`, `{"mnpFallback": true, "mccmncs": [{"mccmnc": 26202, "route": "HC1"}, {"mccmnc": 22201, "route": "HB1", "countrycode": "IT", "mno": "TIM"}], "countries": [{"countrycode": "GB", "route": "REJECT"}]}`)
	m := r.EffectiveMap()
	require.Equal(t, "HC1", m.DefaultRoute) // the platform's, as the account has none
	require.True(t, m.MNPFallback)
	require.Equal(t, r.Map().Countries, m.Countries)
	byNet := map[string]MCCMNCRule{}
	for _, e := range m.MCCMNCs {
		byNet[e.MCCMNC] = e
	}
	require.Len(t, byNet, 9) // eight networks of the coverage and the account's 22201
	require.Equal(t, MCCMNCRule{MCCMNC: "26201", CountryCode: "DE", Route: "HA1", MNO: "Telekom", Confidence: "HIGH", Origin: "SCORE"}, byNet["26201"])
	require.Equal(t, MCCMNCRule{MCCMNC: "26202", CountryCode: "DE", Route: "HC1", MNO: "Vodafone", Confidence: "LOW", Origin: "CUSTOM_USER_MCCMNC"}, byNet["26202"])
	require.Equal(t, "USER_REJECT", byNet["23415"].Origin)
	require.Equal(t, "MNP_FALLBACK", byNet["21404"].Origin)
	require.Equal(t, MCCMNCRule{MCCMNC: "22201", CountryCode: "IT", Route: "HB1", MNO: "TIM", Confidence: "LOW", Origin: "CUSTOM_USER_MCCMNC"}, byNet["22201"])
	_, err := json.Marshal(m)
	require.NoError(t, err)
}

// TestRouterSwap resolves from several goroutines while maps are swapped,
// good and bad: every decision comes from one whole map, and a bad map
// never replaces a good one. Run it with -race.
func TestRouterSwap(t *testing.T) {
	t.Parallel()
	p, err := NewPlatform(plan(t), coverage(t), nil)
	require.NoError(t, err)
	first, err := p.Resolver(parseMap(t, `{"countries": [{"countrycode": "DE", "route": "HB1"}]}`))
	require.NoError(t, err)
	var rt Router
	require.Error(t, rt.Update(&Map{}))
	rt.Store(first)
	res := number(t, "+49 151 23456789", "26201")

	good := []*Map{
		parseMap(t, `{"countries": [{"countrycode": "DE", "route": "HB1"}]}`),
		parseMap(t, `{"countries": [{"countrycode": "DE", "route": "HC1"}]}`),
	}
	bad := parseMap(t, `{"countries": [{"countrycode": "DE", "route": "NOPE"}]}`)
	var wg sync.WaitGroup
	var seen [2]atomic.Int64
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20000; i++ {
				switch d := rt.Resolve(res); d.Route {
				case "HB1":
					seen[0].Add(1)
				case "HC1":
					seen[1].Add(1)
				default:
					t.Errorf("decision from no map: %+v", d)
					return
				}
			}
		}()
	}
	for i := 0; i < 200; i++ {
		require.NoError(t, rt.Update(good[i%2]))
		err := rt.Update(bad)
		var me *MapError
		require.True(t, errors.As(err, &me))
		require.Same(t, good[i%2], rt.Load().Map(), "a bad map replaced a good one")
	}
	wg.Wait()
	require.Equal(t, int64(4*20000), seen[0].Load()+seen[1].Load())
}
