package routing

import (
	"slices"

	"github.com/numenhq/numen/numbering"
)

// Explanation says why Resolve decided as it did: the decision, and every
// rule and score that took part.
type Explanation struct {
	Decision Decision
	// AccountPrefixes and PlatformPrefixes are every prefix rule of the two
	// maps that the number starts with, longest (the one that counts) first.
	AccountPrefixes, PlatformPrefixes []PrefixRule
	// AccountMCCMNC and PlatformMCCMNC are the maps' rules for the
	// decision's network, AccountCountry and PlatformCountry for the
	// number's country; nil when there is none.
	AccountMCCMNC, PlatformMCCMNC   *MCCMNCRule
	AccountCountry, PlatformCountry *CountryRule
	// Scores are the routes' coverage scores for the decision's network,
	// or, when the coverage data does not know it, for the country (each
	// route's lowest over the country's networks), best first.
	Scores []Score
	// ScoresFor says which: "network", "country" or "" when there are none.
	ScoresFor string
	// MNPFallback is the account's MNP fallback setting.
	MNPFallback bool
}

// Explain resolves n and reports every rule and score behind the decision.
// It finds prefix rules by walking the number's path through the maps'
// go-radix trees, independently of the flattened tables Resolve uses. It
// allocates; use it to answer "why", not on the hot path.
func (r *Resolver) Explain(n *numbering.Result) Explanation {
	e := Explanation{Decision: r.Resolve(n), MNPFallback: r.account.m.MNPFallback}
	if !n.Valid {
		return e
	}
	digits := n.Number.String()[1:]
	e.AccountPrefixes = pathRules(r.account, digits)
	e.PlatformPrefixes = pathRules(r.p.rules, digits)
	mccmnc := e.Decision.MCCMNC
	e.AccountMCCMNC = findMCCMNC(r.account.m, mccmnc)
	e.PlatformMCCMNC = findMCCMNC(r.p.rules.m, mccmnc)
	e.AccountCountry = findCountry(r.account.m, n.CountryCode)
	e.PlatformCountry = findCountry(r.p.rules.m, n.CountryCode)

	c := r.p.cat
	v, ok := c.networks[mccmncKey(mccmnc)]
	e.ScoresFor = "network"
	if !ok {
		v, e.ScoresFor = c.countryView(countryIndex(n.CountryCode)), "country"
	}
	for id := routeID(1); int(id) < len(c.ids); id++ {
		if s := v.score(id); s >= 0 && c.product[id] != NT {
			e.Scores = append(e.Scores, Score{Route: c.ids[id], MCCMNC: mccmnc, Score: int(s)})
		}
	}
	if len(e.Scores) == 0 {
		e.ScoresFor = ""
	}
	slices.SortStableFunc(e.Scores, func(a, b Score) int { return b.Score - a.Score })
	return e
}

// pathRules returns the rules whose prefixes start digits, longest first.
func pathRules(r *rules, digits string) []PrefixRule {
	var out []PrefixRule
	r.radix().WalkPath(digits, func(_ string, v any) bool {
		out = append(out, *v.(*PrefixRule))
		return false
	})
	slices.Reverse(out)
	return out
}

func findMCCMNC(m *Map, mccmnc string) *MCCMNCRule {
	if mccmnc == "" {
		return nil
	}
	for i := range m.MCCMNCs {
		if m.MCCMNCs[i].MCCMNC == mccmnc {
			return &m.MCCMNCs[i]
		}
	}
	return nil
}

func findCountry(m *Map, country string) *CountryRule {
	for i := range m.Countries {
		if m.Countries[i].CountryCode == country {
			return &m.Countries[i]
		}
	}
	return nil
}
