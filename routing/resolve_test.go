package routing

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPrecedence checks every origin and each precedence rule, with
// expectations taken from the spec's rules and the package's resolution
// order (see testCoverage for the scores):
//
//	spec 1: a number-prefix mapping wins over a conflicting MCCMNC mapping;
//	spec 2: an MCCMNC mapping wins over a country-level rule;
//	spec 3: the default route applies when no preference (score) exists and no custom rule applies;
//	spec 4: MNP fallback, when enabled, overrides any conflicting custom rule;
//	design: global reject, account reject, MNP fallback, account rules, platform
//	rules, score, account default, platform default; a longer prefix beats a shorter one.
func TestPrecedence(t *testing.T) {
	t.Parallel()
	const (
		deTelekom  = "+49 151 23456789" // 26201
		deVodafone = "+49 172 3456789"  // 26202
		gbVodafone = "+44 7400 123456"  // 23415
		frOrange   = "+33 6 12 34 56 78"
		esYoigo    = "+34 622 123 456"
		itTIM      = "+39 312 345 6789" // no coverage data
	)
	type want struct {
		route      string
		origin     string
		confidence string
	}
	tests := []struct {
		name              string
		platform, account string
		in, mccmnc        string
		want              want
	}{
		// SCORE: the best-scored HLR route; ties go to the lower identifier.
		{"score picks the best route", "", "", deTelekom, "26201", want{"HA1", "SCORE", "HIGH"}},
		{"score per network", "", "", deVodafone, "26202", want{"HB1", "SCORE", "HIGH"}},
		{"score tie broken by identifier", "", "", gbVodafone, "23415", want{"HA1", "SCORE", "HIGH"}},
		{"score with low coverage", "", "", frOrange, "20801", want{"HA1", "SCORE", "LOW"}},
		{"score normal confidence", "", "", "+34 612 345 678", "21407", want{"HB1", "SCORE", "NORMAL"}},
		{"score by country when the network is unknown", "", "", deTelekom, "", want{"HB1", "SCORE", "NORMAL"}},
		{"score by country for a network without data", "", "", deTelekom, "26207", want{"HB1", "SCORE", "NORMAL"}},
		{"score by country, tie", "", "", gbVodafone, "", want{"HA1", "SCORE", "HIGH"}},

		// Defaults (spec 3) and REJECT.
		{"nothing applies: reject", "", "", itTIM, "22201", want{"REJECT", "REJECT", "LOW"}},
		{"invalid number: reject", "", `{"defaultRoute": "HB1"}`, "+49 1", "", want{"REJECT", "REJECT", "LOW"}},
		{"platform default", `{"defaultRoute": "HC1"}`, "", itTIM, "22201", want{"HC1", "PLATFORM_DEFAULT", "LOW"}},
		{"account default over platform default", `{"defaultRoute": "HC1"}`, `{"defaultRoute": "HB1"}`, itTIM, "22201", want{"HB1", "USER_DEFAULT", "LOW"}},
		{"score over account default", "", `{"defaultRoute": "HB1"}`, deTelekom, "26201", want{"HA1", "SCORE", "HIGH"}},
		{"score over platform default", `{"defaultRoute": "HC1"}`, "", deTelekom, "26201", want{"HA1", "SCORE", "HIGH"}},
		{"account default REJECT", `{"defaultRoute": "HC1"}`, `{"defaultRoute": "REJECT"}`, itTIM, "22201", want{"REJECT", "USER_REJECT", "LOW"}},
		{"platform default REJECT", `{"defaultRoute": "REJECT"}`, "", itTIM, "22201", want{"REJECT", "GLOBAL_REJECT", "LOW"}},
		{"score over a default REJECT", "", `{"defaultRoute": "REJECT"}`, deTelekom, "26201", want{"HA1", "SCORE", "HIGH"}},

		// Account rules (spec 1, 2).
		{"account country", "", `{"countries": [{"countrycode": "DE", "route": "HB1"}]}`, deTelekom, "26201", want{"HB1", "CUSTOM_USER_COUNTRY", "NORMAL"}},
		{"account MCCMNC over account country", "", `{"mccmncs": [{"mccmnc": 26201, "route": "HC1"}], "countries": [{"countrycode": "DE", "route": "HB1"}]}`, deTelekom, "26201", want{"HC1", "CUSTOM_USER_MCCMNC", "LOW"}},
		{"account prefix over account MCCMNC", "", `{"mccmncs": [{"mccmnc": "26201", "route": "HC1"}], "prefixes": [{"cns": "+49151", "route": "HB1"}]}`, deTelekom, "26201", want{"HB1", "CUSTOM_USER_PREFIX", "NORMAL"}},
		{"longer account prefix wins", "", `{"prefixes": [{"cns": "+49", "route": "HC1"}, {"cns": "+49151", "route": "HB1"}]}`, deTelekom, "26201", want{"HB1", "CUSTOM_USER_PREFIX", "NORMAL"}},
		{"shorter account prefix applies", "", `{"prefixes": [{"cns": "+491", "route": "HC1"}, {"cns": "+49151", "route": "HB1"}]}`, deVodafone, "26202", want{"HC1", "CUSTOM_USER_PREFIX", "LOW"}},
		{"non-matching account prefix ignored", "", `{"prefixes": [{"cns": "+49152", "route": "HB1"}]}`, deTelekom, "26201", want{"HA1", "SCORE", "HIGH"}},
		{"account MCCMNC only for its network", "", `{"mccmncs": [{"mccmnc": 26202, "route": "HC1"}]}`, deTelekom, "26201", want{"HA1", "SCORE", "HIGH"}},
		{"account rule over score", "", `{"countries": [{"countrycode": "DE", "route": "HC1"}]}`, deTelekom, "26201", want{"HC1", "CUSTOM_USER_COUNTRY", "LOW"}},
		{"account rule over defaults", `{"defaultRoute": "HC1"}`, `{"defaultRoute": "HA1", "countries": [{"countrycode": "IT", "route": "HB1"}]}`, itTIM, "22201", want{"HB1", "CUSTOM_USER_COUNTRY", "LOW"}},

		// Platform rules.
		{"platform country", `{"countries": [{"countrycode": "DE", "route": "HC1"}]}`, "", deTelekom, "26201", want{"HC1", "CUSTOM_GLOBAL_COUNTRY", "LOW"}},
		{"platform MCCMNC over platform country", `{"mccmncs": [{"mccmnc": 26201, "route": "HB1"}], "countries": [{"countrycode": "DE", "route": "HC1"}]}`, "", deTelekom, "26201", want{"HB1", "CUSTOM_GLOBAL_MCCMNC", "NORMAL"}},
		{"platform prefix over platform MCCMNC", `{"mccmncs": [{"mccmnc": 26201, "route": "HB1"}], "prefixes": [{"cns": "+49151", "route": "HC1"}]}`, "", deTelekom, "26201", want{"HC1", "CUSTOM_GLOBAL_PREFIX", "LOW"}},
		{"longer platform prefix wins", `{"prefixes": [{"cns": "+4915", "route": "HB1"}, {"cns": "+49151", "route": "HC1"}]}`, "", deTelekom, "26201", want{"HC1", "CUSTOM_GLOBAL_PREFIX", "LOW"}},
		{"platform rule over score", `{"countries": [{"countrycode": "GB", "route": "HC1"}]}`, "", gbVodafone, "23415", want{"HC1", "CUSTOM_GLOBAL_COUNTRY", "LOW"}},
		{"platform rule over account default", `{"countries": [{"countrycode": "IT", "route": "HC1"}]}`, `{"defaultRoute": "HB1"}`, itTIM, "22201", want{"HC1", "CUSTOM_GLOBAL_COUNTRY", "LOW"}},

		// Account over platform, whatever the levels.
		{"account country over platform prefix", `{"prefixes": [{"cns": "+49151", "route": "HC1"}]}`, `{"countries": [{"countrycode": "DE", "route": "HB1"}]}`, deTelekom, "26201", want{"HB1", "CUSTOM_USER_COUNTRY", "NORMAL"}},
		{"account MCCMNC over platform prefix", `{"prefixes": [{"cns": "+49151", "route": "HC1"}]}`, `{"mccmncs": [{"mccmnc": 26201, "route": "HA1"}]}`, deTelekom, "26201", want{"HA1", "CUSTOM_USER_MCCMNC", "HIGH"}},
		{"account prefix over platform prefix", `{"prefixes": [{"cns": "+49151", "route": "HC1"}]}`, `{"prefixes": [{"cns": "+49", "route": "HB1"}]}`, deTelekom, "26201", want{"HB1", "CUSTOM_USER_PREFIX", "NORMAL"}},

		// Rejects.
		{"global reject by prefix over account rule", `{"prefixes": [{"cns": "+49151", "route": "REJECT"}]}`, `{"prefixes": [{"cns": "+49151", "route": "HB1"}]}`, deTelekom, "26201", want{"REJECT", "GLOBAL_REJECT", "LOW"}},
		{"global reject by country", `{"countries": [{"countrycode": "DE", "route": "REJECT"}]}`, "", deVodafone, "26202", want{"REJECT", "GLOBAL_REJECT", "LOW"}},
		{"global reject by MCCMNC", `{"mccmncs": [{"mccmnc": 26202, "route": "REJECT"}]}`, `{"defaultRoute": "HA1"}`, deVodafone, "26202", want{"REJECT", "GLOBAL_REJECT", "LOW"}},
		{"more specific platform rule lifts a platform country reject", `{"countries": [{"countrycode": "DE", "route": "REJECT"}], "prefixes": [{"cns": "+49151", "route": "HA1"}]}`, "", deTelekom, "26201", want{"HA1", "CUSTOM_GLOBAL_PREFIX", "HIGH"}},
		{"account reject by prefix", "", `{"prefixes": [{"cns": "+49151", "route": "REJECT"}]}`, deTelekom, "26201", want{"REJECT", "USER_REJECT", "LOW"}},
		{"account reject over platform rule", `{"countries": [{"countrycode": "DE", "route": "HC1"}]}`, `{"mccmncs": [{"mccmnc": 26201, "route": "REJECT"}]}`, deTelekom, "26201", want{"REJECT", "USER_REJECT", "LOW"}},
		{"more specific account rule lifts an account country reject", "", `{"countries": [{"countrycode": "DE", "route": "REJECT"}], "prefixes": [{"cns": "+49151", "route": "HB1"}]}`, deTelekom, "26201", want{"HB1", "CUSTOM_USER_PREFIX", "NORMAL"}},
		{"global reject over account reject", `{"countries": [{"countrycode": "DE", "route": "REJECT"}]}`, `{"countries": [{"countrycode": "DE", "route": "REJECT"}]}`, deTelekom, "26201", want{"REJECT", "GLOBAL_REJECT", "LOW"}},
		{"global reject over MNP fallback", `{"countries": [{"countrycode": "ES", "route": "REJECT"}]}`, `{"mnpFallback": true}`, esYoigo, "21404", want{"REJECT", "GLOBAL_REJECT", "LOW"}},
		{"account reject over MNP fallback", "", `{"mnpFallback": true, "mccmncs": [{"mccmnc": 21404, "route": "REJECT"}]}`, esYoigo, "21404", want{"REJECT", "USER_REJECT", "LOW"}},

		// MNP fallback (spec 4).
		{"MNP fallback when HLR coverage is poor", "", `{"mnpFallback": true}`, esYoigo, "21404", want{"MA1", "MNP_FALLBACK", "MNP_FALLBACK"}},
		{"MNP fallback overrides an account prefix rule", "", `{"mnp_fallback": true, "prefixes": [{"cns": "+34622", "route": "HB1"}]}`, esYoigo, "21404", want{"MA1", "MNP_FALLBACK", "MNP_FALLBACK"}},
		{"MNP fallback overrides a platform rule", `{"countries": [{"countrycode": "FR", "route": "HB1"}]}`, `{"mnpFallback": true}`, frOrange, "20801", want{"MA1", "MNP_FALLBACK", "MNP_FALLBACK"}},
		{"no MNP fallback when HLR coverage is good", "", `{"mnpFallback": true}`, deTelekom, "26201", want{"HA1", "SCORE", "HIGH"}},
		{"no MNP fallback without an MNP route for the network", `{"defaultRoute": "HC1"}`, `{"mnpFallback": true}`, itTIM, "22201", want{"HC1", "PLATFORM_DEFAULT", "LOW"}},
		{"MNP fallback off", "", `{"mnpFallback": false}`, esYoigo, "21404", want{"HC1", "SCORE", "LOW"}},
		{"MNP fallback for a network no HLR route reaches", "", `{"mnpFallback": true}`, "+43 664 1234567", "23201", want{"MA1", "MNP_FALLBACK", "MNP_FALLBACK"}},
		{"no score for a network nothing reaches", `{"defaultRoute": "HC1"}`, `{"mnpFallback": true}`, "+43 676 1234567", "23203", want{"HC1", "PLATFORM_DEFAULT", "LOW"}},
		{"no score for a known network without HLR routes", "", `{"defaultRoute": "HB1"}`, "+43 664 1234567", "23201", want{"HB1", "USER_DEFAULT", "LOW"}},
	}
	origins := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := resolver(t, tt.platform, tt.account)
			d := r.Resolve(number(t, tt.in, tt.mccmnc))
			require.Equal(t, tt.want, want{d.Route, d.Origin.String(), d.Confidence.String()})
			require.Equal(t, fmt.Sprintf("AUTO:%s:%s", d.Route, d.Origin), d.Instruction())
			require.Equal(t, tt.want.origin != "REJECT" && tt.want.origin != "USER_REJECT" && tt.want.origin != "GLOBAL_REJECT", !d.Rejected())
		})
		origins[tt.want.origin] = true
	}
	require.GreaterOrEqual(t, len(tests), 40)
	for _, o := range Origins() {
		require.True(t, origins[o.String()], "no case for origin %v", o)
	}
}

func TestDecisionMCCMNC(t *testing.T) {
	t.Parallel()
	// The network comes from the number, else from the most specific prefix
	// rule that names one, and decides MCCMNC rules and scores.
	r := resolver(t, `{"prefixes": [{"cns": "+4917", "route": "HA1", "mccmnc": "26202"}]}`,
		`{"prefixes": [{"cns": "+49172", "route": "HB1", "mccmnc": 26202}], "mccmncs": [{"mccmnc": 26202, "route": "HC1"}]}`)
	d := r.Resolve(number(t, "+49 172 3456789", ""))
	require.Equal(t, "26202", d.MCCMNC)
	require.Equal(t, "HB1", d.Route)
	require.Equal(t, High, d.Confidence) // HB1 scores 95 on 26202

	d = r.Resolve(number(t, "+49 176 12345678", ""))
	require.Equal(t, "26202", d.MCCMNC) // from the platform's +4917 rule
	require.Equal(t, "HC1", d.Route)    // the account's MCCMNC rule for that network
	require.Equal(t, OriginUserMCCMNC, d.Origin)

	d = r.Resolve(number(t, "+49 176 12345678", "26203"))
	require.Equal(t, "26203", d.MCCMNC) // the number's own network wins
}

func TestStatic(t *testing.T) {
	t.Parallel()
	r := resolver(t, `{"countries": [{"countrycode": "DE", "route": "REJECT"}]}`, "")
	d, err := r.Static(number(t, "+49 151 23456789", "26201"), "HB1")
	require.NoError(t, err)
	require.Equal(t, "STATIC:HB1", d.Instruction())
	require.Equal(t, "HB1", d.Route)
	require.Equal(t, Normal, d.Confidence)
	require.Equal(t, OriginStatic, d.Origin)
	require.JSONEq(t, `{"route":"HB1","confidence_level":"NORMAL","mccmnc":"26201","origin":null}`, string(d.AppendJSON(nil)))
	for _, bad := range []string{"XXX", "REJECT", "", "HB"} {
		_, err := r.Static(number(t, "+49 151 23456789", "26201"), bad)
		require.Error(t, err, bad)
	}
}

func TestDecisionJSON(t *testing.T) {
	t.Parallel()
	r := resolver(t, "", "")
	d := r.Resolve(number(t, "+49 151 23456789", "26201"))
	require.JSONEq(t, `{"route":"HA1","confidence_level":"HIGH","mccmnc":"26201","origin":"SCORE"}`, string(d.AppendJSON(nil)))
	d = r.Resolve(number(t, "+49 151 23456789", ""))
	b, err := d.MarshalJSON()
	require.NoError(t, err)
	require.JSONEq(t, `{"route":"HB1","confidence_level":"NORMAL","mccmnc":"","origin":"SCORE"}`, string(b))
}

func TestResolveDoesNotAllocate(t *testing.T) {
	r := resolver(t, `{"defaultRoute": "HC1", "prefixes": [{"cns": "+49151", "route": "HB1", "mccmnc": "26201"}], "countries": [{"countrycode": "FR", "route": "REJECT"}]}`,
		`{"mnpFallback": true, "prefixes": [{"cns": "+4917", "route": "HA1"}], "mccmncs": [{"mccmnc": 23415, "route": "HB1"}], "countries": [{"countrycode": "IT", "route": "HC1"}]}`)
	for _, n := range []struct{ in, mccmnc string }{
		{"+49 151 23456789", ""}, {"+49 172 3456789", "26202"}, {"+44 7400 123456", "23415"},
		{"+33 6 12 34 56 78", "20801"}, {"+34 622 123 456", "21404"}, {"+39 312 345 6789", ""},
		{"+1 650 253 0000", ""}, {"+49 1", ""},
	} {
		res := number(t, n.in, n.mccmnc)
		var d Decision
		if a := testing.AllocsPerRun(200, func() { d = r.Resolve(res) }); a != 0 {
			t.Errorf("Resolve(%s) allocates %.1f times", n.in, a)
		}
		buf := make([]byte, 0, 256)
		if a := testing.AllocsPerRun(200, func() { buf = d.AppendJSON(buf[:0]) }); a != 0 {
			t.Errorf("AppendJSON allocates %.1f times", a)
		}
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	r := resolver(t,
		`{"prefixes": [{"cns": "+49", "route": "HC1"}, {"cns": "+4915", "route": "HB1", "mccmnc": "26201"}], "countries": [{"countrycode": "DE", "route": "HA1"}], "mccmncs": [{"mccmnc": 26201, "route": "HA1"}]}`,
		`{"mnpFallback": true, "prefixes": [{"cns": "+491", "route": "HA1"}, {"cns": "+49151", "route": "HB1"}, {"cns": "+49152", "route": "HC1"}]}`)
	e := r.Explain(number(t, "+49 151 23456789", ""))
	require.Equal(t, "HB1", e.Decision.Route)
	require.Equal(t, OriginUserPrefix, e.Decision.Origin)
	require.Equal(t, []PrefixRule{{CNS: "+49151", Route: "HB1"}, {CNS: "+491", Route: "HA1"}}, e.AccountPrefixes)
	require.Equal(t, []PrefixRule{{CNS: "+4915", Route: "HB1", MCCMNC: "26201"}, {CNS: "+49", Route: "HC1"}}, e.PlatformPrefixes)
	require.Equal(t, "26201", e.Decision.MCCMNC) // named by the platform's +4915 rule
	require.Equal(t, &MCCMNCRule{MCCMNC: "26201", Route: "HA1"}, e.PlatformMCCMNC)
	require.Nil(t, e.AccountMCCMNC)
	require.Equal(t, &CountryRule{CountryCode: "DE", Route: "HA1"}, e.PlatformCountry)
	require.Nil(t, e.AccountCountry)
	require.Equal(t, "network", e.ScoresFor)
	require.Equal(t, []Score{{"HA1", "26201", 90}, {"MA1", "26201", 80}, {"HB1", "26201", 70}, {"HC1", "26201", 0}}, e.Scores)
	require.True(t, e.MNPFallback)

	e = r.Explain(number(t, "+44 7400 123456", ""))
	require.Empty(t, e.AccountPrefixes)
	require.Equal(t, "country", e.ScoresFor)
	require.Equal(t, []Score{{"HA1", "", 85}, {"HB1", "", 85}}, e.Scores)

	e = r.Explain(number(t, "+49 1", ""))
	require.Equal(t, OriginReject, e.Decision.Origin)
	require.Nil(t, e.AccountPrefixes)
}

// TestRadixAgreesWithTables checks the two ways of finding prefix rules on
// the large fixture: go-radix's LongestPrefix on each map's tree, and the
// flattened table that Resolve reads.
func TestRadixAgreesWithTables(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds 110,000 rules")
	}
	f := newLargeFixture(t)
	p, err := NewPlatform(plan(t), coverage(t), f.platform)
	require.NoError(t, err)
	r, err := p.Resolver(f.account)
	require.NoError(t, err)
	routeOf := func(rules *rules, digits string) routeID {
		if _, v, ok := rules.radix().LongestPrefix(digits); ok {
			return r.p.cat.index[v.(*PrefixRule).Route]
		}
		return noRoute
	}
	for i := range f.numbers {
		digits := f.numbers[i].Number.String()[1:]
		got := r.prefixes.Lookup([]byte(digits))
		require.Equal(t, routeOf(r.account, digits), got.user, digits)
		require.Equal(t, routeOf(p.rules, digits), got.global, digits)
	}
}

// TestMCCMNCRuleOnlyForItsOperator is the regression test for ranges that
// answered a shorter range's MCCMNC: an account's MCCMNC rule for one
// operator must catch that operator's numbers and never those of another
// operator's range nested inside it, which have no MCCMNC of their own or
// another one.
func TestMCCMNCRuleOnlyForItsOperator(t *testing.T) {
	t.Parallel()
	r := resolver(t, "", `{"defaultRoute": "HA1", "mccmncs": [
		{"mccmnc": "37002", "route": "HC1"}, {"mccmnc": "33805", "route": "HB1"},
		{"mccmnc": "52099", "route": "HC1"}, {"mccmnc": "44010", "route": "HB1"}]}`)
	for _, tc := range []struct {
		in, network, mccmnc, route string
	}{
		{"+1 809 350 1234", "Claro", "37002", "HC1"},
		{"+1 809 310 1234", "Tricom", "37003", "HA1"}, // inside Claro's +1 809 3, with a code of its own (Altice's, former Tricom)
		{"+1 876 503 1234", "Digicel", "33805", "HB1"},
		{"+1 876 501 2345", "Cable & Wireless", "338180", "HA1"}, // inside Digicel's +1 876 50, with a code of its own (FLOW's)
		{"+66 97 312 3456", "True Move", "52099", "HC1"},
		{"+66 97 361 2345", "TOT Mobile", "52015", "HA1"}, // inside True's +66 97 3, with a code of its own (TOT's, now NT Mobile)
		{"+81 80 1234 5678", "NTT Docomo", "44010", "HB1"},
		{"+81 70 4512 3456", "KDDI", "", "HA1"}, // inside Docomo's +81 70 4
	} {
		res := plan(t).ClassifyString(tc.in)
		require.Equal(t, tc.network, res.Network, tc.in)
		require.Equal(t, tc.mccmnc, res.MCCMNC, tc.in)
		d := r.Resolve(&res)
		require.Equal(t, tc.mccmnc, d.MCCMNC, tc.in)
		require.Equal(t, tc.route, d.Route, tc.in)
		if tc.route == "HA1" { // no rule for its code, if it has one
			require.Equal(t, OriginUserDefault, d.Origin, tc.in)
		} else {
			require.Equal(t, OriginUserMCCMNC, d.Origin, tc.in)
		}
	}
}
