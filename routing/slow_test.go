package routing

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/numenhq/numen/numbering"
)

// slowResolve is the reference: Resolve's documented order, decided by
// linear scans over the maps' rules and the coverage's scores, with none of
// the fast path's indexes.
func slowResolve(cov *Coverage, platform, account *Map, n *numbering.Result) (route, origin, confidence, mccmnc string) {
	mccmnc = n.MCCMNC
	e164 := n.Number.String()
	if !n.Valid {
		return "REJECT", "REJECT", "LOW", mccmnc
	}
	longest := func(m *Map) *PrefixRule {
		var best *PrefixRule
		for i := range m.Prefixes {
			p := &m.Prefixes[i]
			if strings.HasPrefix(e164, p.CNS) && (best == nil || len(p.CNS) > len(best.CNS)) {
				best = p
			}
		}
		return best
	}
	up, gp := longest(account), longest(platform)
	if len(mccmnc) != 5 && len(mccmnc) != 6 {
		mccmnc = ""
		if up != nil && up.MCCMNC != "" {
			mccmnc = up.MCCMNC
		} else if gp != nil && gp.MCCMNC != "" {
			mccmnc = gp.MCCMNC
		}
	}
	mostSpecific := func(m *Map, p *PrefixRule) (string, string) {
		if p != nil {
			return p.Route, "PREFIX"
		}
		for _, r := range m.MCCMNCs {
			if mccmnc != "" && r.MCCMNC == mccmnc {
				return r.Route, "MCCMNC"
			}
		}
		for _, r := range m.Countries {
			if r.CountryCode == n.CountryCode {
				return r.Route, "COUNTRY"
			}
		}
		return "", ""
	}
	product := map[string]Product{}
	for _, r := range cov.Routes {
		product[r.ID] = r.Product
	}
	countryOf := map[string]string{}
	for _, nw := range cov.Networks {
		countryOf[nw.MCCMNC] = nw.CountryCode
	}
	// score of a route for the number: by network when the network is in
	// the coverage data, else the route's lowest over the country's networks.
	score := func(route string) int {
		if _, known := countryOf[mccmnc]; known {
			for _, s := range cov.Scores {
				if s.Route == route && s.MCCMNC == mccmnc {
					return s.Score
				}
			}
			return 0
		}
		low, networks := 101, 0
		for _, nw := range cov.Networks {
			if nw.CountryCode != n.CountryCode {
				continue
			}
			networks++
			s := 0
			for _, sc := range cov.Scores {
				if sc.Route == route && sc.MCCMNC == nw.MCCMNC {
					s = sc.Score
				}
			}
			low = min(low, s)
		}
		if networks == 0 || low == 0 {
			return -1
		}
		return low
	}
	best := func(p Product) (string, int) {
		route, top := "", -1
		for _, r := range cov.Routes {
			if r.Product != p {
				continue
			}
			if s := score(r.ID); s > top || (s == top && s >= 0 && r.ID < route) {
				route, top = r.ID, s
			}
		}
		if top <= 0 { // a score of 0 means the route does not reach the network
			return "", -1
		}
		return route, top
	}
	conf := func(route string) string {
		s := score(route)
		switch {
		case s >= HighScore:
			return "HIGH"
		case s >= NormalScore:
			return "NORMAL"
		}
		return "LOW"
	}
	gr, gl := mostSpecific(platform, gp)
	ur, ul := mostSpecific(account, up)
	switch {
	case gr == RejectRoute:
		return "REJECT", "GLOBAL_REJECT", "LOW", mccmnc
	case ur == RejectRoute:
		return "REJECT", "USER_REJECT", "LOW", mccmnc
	}
	if account.MNPFallback {
		if _, s := best(HLR); s < NormalScore {
			if r, _ := best(MNP); r != "" {
				return r, "MNP_FALLBACK", "MNP_FALLBACK", mccmnc
			}
		}
	}
	switch {
	case ur != "":
		return ur, "CUSTOM_USER_" + ul, conf(ur), mccmnc
	case gr != "":
		return gr, "CUSTOM_GLOBAL_" + gl, conf(gr), mccmnc
	}
	if r, _ := best(HLR); r != "" {
		return r, "SCORE", conf(r), mccmnc
	}
	switch {
	case account.DefaultRoute == RejectRoute:
		return "REJECT", "USER_REJECT", "LOW", mccmnc
	case account.DefaultRoute != "":
		return account.DefaultRoute, "USER_DEFAULT", conf(account.DefaultRoute), mccmnc
	case platform.DefaultRoute == RejectRoute:
		return "REJECT", "GLOBAL_REJECT", "LOW", mccmnc
	case platform.DefaultRoute != "":
		return platform.DefaultRoute, "PLATFORM_DEFAULT", conf(platform.DefaultRoute), mccmnc
	}
	return "REJECT", "REJECT", "LOW", mccmnc
}

// TestAgainstSlowReference builds many random maps and compares Resolve
// with slowResolve on numbers of the countries the maps talk about.
func TestAgainstSlowReference(t *testing.T) {
	t.Parallel()
	cov := coverage(t)
	rng := rand.New(rand.NewPCG(7, 8))
	routes := []string{"HA1", "HB1", "HC1", "MA1", RejectRoute}
	mccmncs := []string{"26201", "26202", "26203", "23415", "20801", "21404", "21407", "22201", "23201", "23203"}
	type src struct{ prefix, country string }
	countries := []src{{"+49", "DE"}, {"+44", "GB"}, {"+33", "FR"}, {"+34", "ES"}, {"+39", "IT"}, {"+43", "AT"}}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	digits := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		return b.String()
	}
	// Numbers: valid numbers of each country (varied near their examples)
	// and some invalid ones.
	p := plan(t)
	var numbers []numbering.Result
	for _, in := range []string{
		"+49 151 23456789", "+49 172 3456789", "+49 176 12345678", "+49 30 1234567", "+49 160 1234567",
		"+44 7400 123456", "+44 7700 900123", "+44 20 7946 0000", "+33 6 12 34 56 78", "+33 7 81 23 45 67",
		"+34 622 123 456", "+34 612 345 678", "+34 91 123 45 67", "+39 312 345 6789", "+39 06 1234 5678",
		"+43 664 1234567", "+43 676 1234567", "+49 1", "+44 20",
	} {
		numbers = append(numbers, p.ClassifyString(in))
	}
	randomMap := func(platform bool) *Map {
		m := &Map{}
		if rng.IntN(3) > 0 {
			m.DefaultRoute = pick(routes)
		}
		if !platform {
			m.MNPFallback = rng.IntN(3) == 0
		}
		used := map[string]bool{}
		for i := rng.IntN(6); i > 0; i-- {
			c := countries[rng.IntN(len(countries))]
			cns := c.prefix + digits(rng.IntN(4))
			if used[cns] {
				continue
			}
			used[cns] = true
			rule := PrefixRule{CNS: cns, Route: pick(routes)}
			if rng.IntN(3) == 0 {
				rule.MCCMNC = pick(mccmncs)
			}
			m.Prefixes = append(m.Prefixes, rule)
		}
		for i := rng.IntN(4); i > 0; i-- {
			mk := pick(mccmncs)
			if !used[mk] {
				used[mk] = true
				m.MCCMNCs = append(m.MCCMNCs, MCCMNCRule{MCCMNC: mk, Route: pick(routes)})
			}
		}
		for i := rng.IntN(3); i > 0; i-- {
			c := countries[rng.IntN(len(countries))].country
			if !used[c] {
				used[c] = true
				m.Countries = append(m.Countries, CountryRule{CountryCode: c, Route: pick(routes)})
			}
		}
		return m
	}
	checked := 0
	for round := 0; round < 2000; round++ {
		pm, am := randomMap(true), randomMap(false)
		platform, err := NewPlatform(p, cov, pm)
		if err != nil {
			t.Fatalf("round %d: platform: %v", round, err)
		}
		r, err := platform.Resolver(am)
		if err != nil {
			t.Fatalf("round %d: account: %v", round, err)
		}
		for i := 0; i < 20; i++ {
			n := numbers[rng.IntN(len(numbers))]
			n.MCCMNC = ""
			if rng.IntN(3) > 0 {
				n.MCCMNC = pick(mccmncs)
			}
			d := r.Resolve(&n)
			route, origin, confidence, mccmnc := slowResolve(cov, pm, am, &n)
			got := fmt.Sprint(d.Route, " ", d.Origin, " ", d.Confidence, " ", d.MCCMNC)
			want := fmt.Sprint(route, " ", origin, " ", confidence, " ", mccmnc)
			if got != want {
				t.Fatalf("round %d, %s (mccmnc %q):\n got  %s\n want %s\nplatform %+v\naccount %+v", round, n.Number, n.MCCMNC, got, want, pm, am)
			}
			checked++
		}
	}
	t.Logf("%d decisions agree", checked)
}
