package routing

import (
	"sync/atomic"

	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/prefixmap"
	"github.com/numenhq/numen/numbering/textfmt"
)

// Platform is the part of routing shared by all accounts: the coverage
// data and the platform's own (global) rules, compiled once. Build each
// account's Resolver from it.
type Platform struct {
	plan     *numbering.Plan
	cat      *catalog
	rules    *rules
	prefixes prefixmap.Table[prefixMatch] // the platform's prefix rules
	// networks answers, in one lookup by MCCMNC key, the coverage view of a
	// network and the platform's MCCMNC rule for it.
	networks map[uint32]network
}

type network struct {
	view     *view   // nil for a network the coverage data does not know
	platform routeID // the platform's MCCMNC rule; noRoute for none
	account  routeID // the account's MCCMNC rule (in Resolver.networks); noRoute for none
}

// NewPlatform compiles coverage and the platform's rules. The plan checks
// country codes and prefixes. A nil platform map means no global rules and
// no platform default; a nil coverage means DefaultCoverage. The error is a
// *MapError naming every offending rule.
func NewPlatform(plan *numbering.Plan, cov *Coverage, platform *Map) (*Platform, error) {
	if plan == nil {
		return nil, textfmt.Errorf("routing: NewPlatform needs a numbering plan")
	}
	if cov == nil {
		var err error
		if cov, err = DefaultCoverage(); err != nil {
			return nil, err
		}
	} else if err := cov.check(); err != nil {
		return nil, err
	}
	if platform == nil {
		platform = &Map{}
	}
	p := &Platform{plan: plan, cat: newCatalog(cov)}
	var problems []string
	p.rules, problems = compile(platform, p.cat, plan)
	if platform.MNPFallback {
		problems = append(problems, "mnpFallback: MNP fallback is an account setting, not a platform rule")
	}
	if len(problems) > 0 {
		return nil, &MapError{What: "platform map", Problems: problems}
	}
	entries := make([]prefixmap.Entry[prefixMatch], len(p.rules.sorted))
	for i, k := range p.rules.sorted {
		entries[i] = prefixmap.Entry[prefixMatch]{Prefix: k.prefix, Value: newPrefixMatch(nil, p.rules, prefixmap.None, k.index)}
	}
	p.prefixes = prefixmap.New(entries, noMatch)
	coverage := make(map[uint32]network, len(p.cat.networks))
	for mk, v := range p.cat.networks {
		coverage[mk] = network{view: v, platform: noRoute, account: noRoute}
	}
	p.networks = withMCCMNCRules(coverage, p.rules.mccmnc, func(n *network, id routeID) { n.platform = id })
	return p, nil
}

// Coverage returns the coverage data the platform was built with.
func (p *Platform) Coverage() *Coverage { return p.cat.cov }

// Map returns the platform's rules.
func (p *Platform) Map() *Map { return p.rules.m }

// Resolver compiles an account's routing map (nil for none) on top of the
// platform. The error is a *MapError naming every offending rule; a map
// with problems never yields a Resolver.
func (p *Platform) Resolver(account *Map) (*Resolver, error) {
	if account == nil {
		account = &Map{}
	}
	r, problems := compile(account, p.cat, p.plan)
	if account.MNPFallback && !p.hasMNPRoute() {
		problems = append(problems, "mnpFallback: the coverage data has no MNP route to fall back to")
	}
	if len(problems) > 0 {
		return nil, &MapError{Problems: problems}
	}
	res := &Resolver{p: p, account: r, prefixes: p.prefixes, networks: p.networks}
	if len(r.sorted) > 0 {
		res.prefixes = mergePrefixes(r, p.rules)
	}
	if len(r.mccmnc) > 0 {
		res.networks = withMCCMNCRules(p.networks, r.mccmnc, func(n *network, id routeID) { n.account = id })
	}
	return res, nil
}

// withMCCMNCRules returns a copy of networks with one map's MCCMNC rules
// set into it, adding the networks the coverage data does not know.
func withMCCMNCRules(networks map[uint32]network, rules map[uint32]routeID, set func(*network, routeID)) map[uint32]network {
	out := make(map[uint32]network, len(networks)+len(rules))
	for mk, n := range networks {
		out[mk] = n
	}
	for mk, id := range rules {
		n, ok := out[mk]
		if !ok {
			n = network{platform: noRoute, account: noRoute}
		}
		set(&n, id)
		out[mk] = n
	}
	return out
}

// prefixMatch is what the prefix table tells about a number: the routes of
// the longest account and platform prefix rules that match it (noRoute
// for none), and the network that the account's rule names, else the
// platform's (for numbers whose network the numbering plan does not know).
// The table keeps it beside each key, so a decision reads it with the key.
type prefixMatch struct {
	user, global routeID
	mk           uint32 // mccmncKey of mccmnc; 0 for none
	mccmnc       string
}

var noMatch = prefixMatch{user: noRoute, global: noRoute}

// newPrefixMatch describes the account rule ua and the platform rule ga
// (indexes into their Map.Prefixes, or prefixmap.None).
func newPrefixMatch(account, platform *rules, ua, ga int32) prefixMatch {
	m := noMatch
	if ga != prefixmap.None {
		m.global = platform.prefix[ga]
		if mk := platform.mccmncOf[ga]; mk != 0 {
			m.mk, m.mccmnc = mk, platform.m.Prefixes[ga].MCCMNC
		}
	}
	if ua != prefixmap.None {
		m.user = account.prefix[ua]
		if mk := account.mccmncOf[ua]; mk != 0 {
			m.mk, m.mccmnc = mk, account.m.Prefixes[ua].MCCMNC
		}
	}
	return m
}

// mergePrefixes builds one table over the prefixes of the account and of
// the platform, so that one lookup finds both longest matches. Each of its
// prefixes maps to the longest account prefix and the longest platform
// prefix that it starts with; for a number, the longest prefix of the union
// that matches it therefore carries the number's longest account and
// platform matches.
func mergePrefixes(account, platform *rules) prefixmap.Table[prefixMatch] {
	entries := make([]prefixmap.Entry[prefixMatch], 0, len(account.sorted)+len(platform.sorted))
	var stacks [2][]prefixKey // the enclosing prefixes of each side, innermost last
	lists := [2][]prefixKey{account.sorted, platform.sorted}
	for len(lists[0])+len(lists[1]) > 0 {
		var next prefixmap.Prefix
		switch {
		case len(lists[0]) == 0:
			next = lists[1][0].prefix
		case len(lists[1]) == 0 || lists[0][0].prefix.Key() <= lists[1][0].prefix.Key():
			next = lists[0][0].prefix
		default:
			next = lists[1][0].prefix
		}
		var innermost [2]int32
		for side := range lists {
			st := stacks[side]
			for len(st) > 0 && !st[len(st)-1].prefix.Encloses(next.Key()) {
				st = st[:len(st)-1]
			}
			if len(lists[side]) > 0 && lists[side][0].prefix.Key() == next.Key() {
				st = append(st, lists[side][0])
				lists[side] = lists[side][1:]
			}
			stacks[side] = st
			innermost[side] = prefixmap.None
			if len(st) > 0 {
				innermost[side] = st[len(st)-1].index
			}
		}
		entries = append(entries, prefixmap.Entry[prefixMatch]{Prefix: next, Value: newPrefixMatch(account, platform, innermost[0], innermost[1])})
	}
	return prefixmap.New(entries, noMatch)
}

func (p *Platform) hasMNPRoute() bool {
	for _, pr := range p.cat.product {
		if pr == MNP {
			return true
		}
	}
	return false
}

// Resolver decides routes for one account. It is immutable and safe for
// concurrent use; swap resolvers with a Router.
type Resolver struct {
	p       *Platform
	account *rules
	// For an account with prefix rules, one table over its prefixes and
	// the platform's; otherwise the platform's table.
	prefixes prefixmap.Table[prefixMatch]
	// For an account with MCCMNC rules, the platform's networks with the
	// account's rules added; otherwise the platform's.
	networks map[uint32]network
}

// Map returns the account's routing map.
func (r *Resolver) Map() *Map { return r.account.m }

// Platform returns the platform the resolver was built on.
func (r *Resolver) Platform() *Platform { return r.p }

// Decision is a route decision: the GET /route answer plus the
// routing_instruction of a lookup. Its strings are shared; it is a plain
// value, cheap to copy.
type Decision struct {
	// Route is the route to take, 3 characters, or RejectRoute.
	Route      string
	Confidence Confidence
	Origin     Origin
	// MCCMNC is the network the decision was made for: the number's
	// original network from the numbering plan, else the one a matching
	// prefix rule names; "" when neither knows.
	MCCMNC      string
	instruction string
}

// Instruction returns the routing_instruction: "STATIC:<route>" for a
// route the caller named, "AUTO:<route>:<origin>" otherwise.
func (d Decision) Instruction() string { return d.instruction }

// Rejected reports whether the number is refused.
func (d Decision) Rejected() bool { return d.Origin.Rejected() }

// Resolve decides the route for a classified number, in this order (the
// first that applies wins):
//
//  1. an invalid number is refused (REJECT);
//  2. the platform's most specific rule for the number (longest prefix,
//     else MCCMNC, else country) refuses it (GLOBAL_REJECT);
//  3. the account's most specific rule refuses it (USER_REJECT);
//  4. the account has MNP fallback on and no live HLR route reaches the
//     number's network (or, network unknown, its country) with a score of
//     NormalScore: the best MNP route answers (MNP_FALLBACK);
//  5. the account's most specific rule (CUSTOM_USER_PREFIX, _MCCMNC, _COUNTRY);
//  6. the platform's most specific rule (CUSTOM_GLOBAL_PREFIX, _MCCMNC, _COUNTRY);
//  7. the best-scored HLR route for the network, else the country (SCORE);
//  8. the account's default route (USER_DEFAULT);
//  9. the platform's default route (PLATFORM_DEFAULT);
//  10. nothing applies: REJECT.
//
// A default route of REJECT refuses as USER_REJECT or GLOBAL_REJECT.
// Confidence comes from the chosen route's score for the network (or
// country); rejections are Low. Resolve allocates nothing.
func (r *Resolver) Resolve(n *numbering.Result) Decision {
	return r.resolve(n.Number, true, n.Valid, n.MCCMNC, n.CountryCode)
}

// Static is the decision for a route the caller named, which skips every
// rule: routing_instruction "STATIC:<route>". The route must be one of the
// coverage data's routes.
func (r *Resolver) Static(n *numbering.Result, route string) (Decision, error) {
	c := r.p.cat
	id, ok := c.index[route]
	if !ok || id == rejectID {
		return Decision{}, textfmt.Errorf("routing: unknown route %q", route)
	}
	d := Decision{Route: route, Origin: OriginStatic, MCCMNC: n.MCCMNC, instruction: c.static[id]}
	v := c.countryView(countryIndex(n.CountryCode))
	if nv, ok := c.networks[mccmncKey(n.MCCMNC)]; ok {
		v = nv
	}
	if s := v.score(id); s >= 0 {
		d.Confidence = confidenceOf(int(s))
	}
	return d, nil
}

var userOrigins = [3]Origin{OriginUserPrefix, OriginUserMCCMNC, OriginUserCountry}
var globalOrigins = [3]Origin{OriginGlobalPrefix, OriginGlobalMCCMNC, OriginGlobalCountry}

func (r *Resolver) resolve(num numbering.Number, withPrefix, valid bool, mccmnc, country string) Decision {
	c := r.p.cat
	if !valid {
		return r.decide(rejectID, OriginReject, mccmnc, noView)
	}
	pm := noMatch
	if withPrefix {
		var buf [32]byte
		digits := num.AppendTo(buf[:0])
		if len(digits) > 0 {
			digits = digits[1:] // the plus sign
		}
		pm = r.prefixes.LookupKey(prefixmap.KeyOf(digits))
	}
	mk := mccmncKey(mccmnc)
	if mk == 0 && pm.mk != 0 {
		// The numbering plan does not know the network: take it from the
		// most specific prefix rule that names one.
		mk, mccmnc = pm.mk, pm.mccmnc
	}
	ci := countryIndex(country)
	net := network{platform: noRoute, account: noRoute}
	if mk != 0 {
		if n, ok := r.networks[mk]; ok {
			net = n
		}
	}
	v := net.view
	if v == nil {
		v = c.countryView(ci)
	}
	user, userLevel := r.account.match(pm.user, net.account, ci)
	global, globalLevel := r.p.rules.match(pm.global, net.platform, ci)
	switch {
	case global == rejectID:
		return r.decide(rejectID, OriginGlobalReject, mccmnc, v)
	case user == rejectID:
		return r.decide(rejectID, OriginUserReject, mccmnc, v)
	}
	if r.account.m.MNPFallback && v.best[0].score < NormalScore && v.best[1].route != noRoute {
		d := r.decide(v.best[1].route, OriginMNPFallback, mccmnc, v)
		d.Confidence = MNPFallback
		return d
	}
	switch {
	case user != noRoute:
		return r.decide(user, userOrigins[userLevel], mccmnc, v)
	case global != noRoute:
		return r.decide(global, globalOrigins[globalLevel], mccmnc, v)
	case v.best[0].route != noRoute:
		return r.decide(v.best[0].route, OriginScore, mccmnc, v)
	case r.account.def == rejectID:
		return r.decide(rejectID, OriginUserReject, mccmnc, v)
	case r.account.def != noRoute:
		return r.decide(r.account.def, OriginUserDefault, mccmnc, v)
	case r.p.rules.def == rejectID:
		return r.decide(rejectID, OriginGlobalReject, mccmnc, v)
	case r.p.rules.def != noRoute:
		return r.decide(r.p.rules.def, OriginPlatformDefault, mccmnc, v)
	}
	return r.decide(rejectID, OriginReject, mccmnc, v)
}

func (r *Resolver) decide(id routeID, o Origin, mccmnc string, v *view) Decision {
	c := r.p.cat
	d := Decision{Route: c.ids[id], Origin: o, MCCMNC: mccmnc, instruction: c.auto[id][o]}
	if id != rejectID {
		if s := v.score(id); s >= 0 {
			d.Confidence = confidenceOf(int(s))
		}
	}
	return d
}

// EffectiveMap is the account's routing map as GET /routing-map shows it:
// its default route (else the platform's), its MNP fallback setting, its
// prefix and country rules, and one MCCMNC entry for every network of the
// coverage data and of its own MCCMNC rules, saying which route, with
// which confidence and from which origin, a number of that network would
// take (prefix rules aside).
func (r *Resolver) EffectiveMap() *Map {
	m := r.account.m
	out := &Map{DefaultRoute: m.DefaultRoute, MNPFallback: m.MNPFallback, Prefixes: m.Prefixes, Countries: m.Countries}
	if out.DefaultRoute == "" {
		out.DefaultRoute = r.p.rules.m.DefaultRoute
	}
	type net struct{ mccmnc, country, mno string }
	var nets []net
	seen := map[string]bool{}
	for _, n := range r.p.cat.cov.Networks {
		nets = append(nets, net{n.MCCMNC, n.CountryCode, n.MNO})
		seen[n.MCCMNC] = true
	}
	for _, rule := range m.MCCMNCs {
		if !seen[rule.MCCMNC] {
			nets = append(nets, net{rule.MCCMNC, rule.CountryCode, rule.MNO})
			seen[rule.MCCMNC] = true
		}
	}
	for _, n := range nets {
		d := r.resolve(numbering.Number{}, false, true, n.mccmnc, n.country)
		out.MCCMNCs = append(out.MCCMNCs, MCCMNCRule{
			MCCMNC: n.mccmnc, CountryCode: n.country, Route: d.Route, MNO: n.mno,
			Confidence: d.Confidence.String(), Origin: d.Origin.String(),
		})
	}
	return out
}

// Router holds the current Resolver of an account and lets it be replaced
// while resolutions run: readers never block and always see a whole
// resolver. The zero Router has none; Resolve then panics, so store one
// before use.
type Router struct {
	cur atomic.Pointer[Resolver]
}

// Store makes r the current resolver.
func (rt *Router) Store(r *Resolver) { rt.cur.Store(r) }

// Load returns the current resolver.
func (rt *Router) Load() *Resolver { return rt.cur.Load() }

// Update compiles account on the current resolver's platform and, when it
// has no problems, makes it current. A map with problems leaves the current
// resolver in place and returns the *MapError.
func (rt *Router) Update(account *Map) error {
	cur := rt.cur.Load()
	if cur == nil {
		return textfmt.Errorf("routing: Router.Update before Store")
	}
	next, err := cur.p.Resolver(account)
	if err != nil {
		return err
	}
	rt.cur.Store(next)
	return nil
}

// Resolve resolves with the current resolver.
func (rt *Router) Resolve(n *numbering.Result) Decision { return rt.cur.Load().Resolve(n) }
