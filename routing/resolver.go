package routing

import (
	"fmt"
	"sync/atomic"

	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/prefixmap"
)

// Platform is the part of routing shared by all accounts: the coverage
// data and the platform's own (global) rules, compiled once. Build each
// account's Resolver from it.
type Platform struct {
	plan  *numbering.Plan
	cat   *catalog
	rules *rules
}

// NewPlatform compiles coverage and the platform's rules. The plan checks
// country codes and prefixes. A nil platform map means no global rules and
// no platform default; a nil coverage means DefaultCoverage. The error is a
// *MapError naming every offending rule.
func NewPlatform(plan *numbering.Plan, cov *Coverage, platform *Map) (*Platform, error) {
	if plan == nil {
		return nil, fmt.Errorf("routing: NewPlatform needs a numbering plan")
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
	return &Resolver{p: p, account: r}, nil
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
		return Decision{}, fmt.Errorf("routing: unknown route %q", route)
	}
	d := Decision{Route: route, Origin: OriginStatic, MCCMNC: n.MCCMNC, instruction: c.static[id]}
	if s := c.scoreOf(id, mccmncKey(n.MCCMNC), countryIndex(n.CountryCode)); s >= 0 {
		d.Confidence = confidenceOf(int(s))
	}
	return d, nil
}

var userOrigins = [3]Origin{OriginUserPrefix, OriginUserMCCMNC, OriginUserCountry}
var globalOrigins = [3]Origin{OriginGlobalPrefix, OriginGlobalMCCMNC, OriginGlobalCountry}

func (r *Resolver) resolve(num numbering.Number, withPrefix, valid bool, mccmnc, country string) Decision {
	c := r.p.cat
	if !valid {
		return r.decide(rejectID, OriginReject, mccmnc, 0, -1)
	}
	var key prefixmap.Key
	userPrefix, globalPrefix := int32(prefixmap.None), int32(prefixmap.None)
	if withPrefix {
		var buf [32]byte
		digits := num.AppendTo(buf[:0])
		if len(digits) > 0 {
			digits = digits[1:] // the plus sign
		}
		key = prefixmap.KeyOf(digits)
		userPrefix = r.account.prefixes.LookupKey(key)
		globalPrefix = r.p.rules.prefixes.LookupKey(key)
	}
	mk := mccmncKey(mccmnc)
	if mk == 0 {
		// The numbering plan does not know the network: take it from the
		// most specific prefix rule that names one.
		switch {
		case userPrefix != prefixmap.None && r.account.mccmncOf[userPrefix] != 0:
			mk, mccmnc = r.account.mccmncOf[userPrefix], r.account.m.Prefixes[userPrefix].MCCMNC
		case globalPrefix != prefixmap.None && r.p.rules.mccmncOf[globalPrefix] != 0:
			mk, mccmnc = r.p.rules.mccmncOf[globalPrefix], r.p.rules.m.Prefixes[globalPrefix].MCCMNC
		}
	}
	ci := countryIndex(country)
	user, userLevel := r.account.match(userPrefix, mk, ci)
	global, globalLevel := r.p.rules.match(globalPrefix, mk, ci)
	switch {
	case global == rejectID:
		return r.decide(rejectID, OriginGlobalReject, mccmnc, mk, ci)
	case user == rejectID:
		return r.decide(rejectID, OriginUserReject, mccmnc, mk, ci)
	}
	if r.account.m.MNPFallback && c.bestFor(0, mk, ci).score < NormalScore {
		if b := c.bestFor(1, mk, ci); b.route != noRoute {
			d := r.decide(b.route, OriginMNPFallback, mccmnc, mk, ci)
			d.Confidence = MNPFallback
			return d
		}
	}
	switch {
	case user != noRoute:
		return r.decide(user, userOrigins[userLevel], mccmnc, mk, ci)
	case global != noRoute:
		return r.decide(global, globalOrigins[globalLevel], mccmnc, mk, ci)
	}
	if b := c.bestFor(0, mk, ci); b.route != noRoute {
		return r.decide(b.route, OriginScore, mccmnc, mk, ci)
	}
	switch {
	case r.account.def == rejectID:
		return r.decide(rejectID, OriginUserReject, mccmnc, mk, ci)
	case r.account.def != noRoute:
		return r.decide(r.account.def, OriginUserDefault, mccmnc, mk, ci)
	case r.p.rules.def == rejectID:
		return r.decide(rejectID, OriginGlobalReject, mccmnc, mk, ci)
	case r.p.rules.def != noRoute:
		return r.decide(r.p.rules.def, OriginPlatformDefault, mccmnc, mk, ci)
	}
	return r.decide(rejectID, OriginReject, mccmnc, mk, ci)
}

func (r *Resolver) decide(id routeID, o Origin, mccmnc string, mk uint32, ci int) Decision {
	c := r.p.cat
	d := Decision{Route: c.ids[id], Origin: o, MCCMNC: mccmnc, instruction: c.auto[id][o]}
	if id != rejectID {
		if s := c.scoreOf(id, mk, ci); s >= 0 {
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
		return fmt.Errorf("routing: Router.Update before Store")
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
