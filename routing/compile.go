package routing

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	radix "github.com/armon/go-radix"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/prefixmap"
	"github.com/numenhq/numen/numbering/textfmt"
)

// routeID indexes catalog.ids; rejectID is the REJECT pseudo-route and
// noRoute means "no rule".
type routeID int16

const (
	rejectID routeID = 0
	noRoute  routeID = -1
)

// choice is the best route of a product for a network or country.
type choice struct {
	route routeID
	score int16
}

var noChoice = choice{noRoute, -1}

const countries = 26 * 26

// countryIndex maps an ISO 3166-1 alpha-2 code to 0..675, -1 otherwise.
func countryIndex(s string) int {
	if !validISO(s) {
		return -1
	}
	return int(s[0]-'A')*26 + int(s[1]-'A')
}

// mccmncKey packs an MCCMNC's digits and length (so that "31026" and
// "310260" differ) into one integer; 0 for anything that is not 5 or 6 digits.
func mccmncKey(s string) uint32 {
	if len(s) != 5 && len(s) != 6 {
		return 0
	}
	var v uint32
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0
		}
		v = v*10 + uint32(c-'0')
	}
	return v*10 + uint32(len(s))
}

// view is what the coverage data says about the numbers of one network,
// or of one country when their network is unknown: each route's score (by
// routeID; -1 for no data) and the best HLR and MNP route.
type view struct {
	scores []int16
	best   [2]choice // [0] HLR, [1] MNP; noChoice when no route scores above 0
}

// noView answers for numbers of which the coverage data knows nothing.
var noView = &view{best: [2]choice{noChoice, noChoice}}

func (v *view) score(id routeID) int16 {
	if int(id) < len(v.scores) {
		return v.scores[id]
	}
	return -1
}

// catalog is the compiled coverage: routes, and a view per network and per
// country, with the routing instructions made in advance so that decisions
// do not build strings.
type catalog struct {
	cov       *Coverage
	ids       []string // by routeID; ids[rejectID] == "REJECT"
	index     map[string]routeID
	product   []Product
	networks  map[uint32]*view      // by mccmncKey
	countries [countries]*view      // a route's score for a country is its lowest over the country's networks
	usable    []string              // the routes rules may name: REJECT and the HLR and MNP routes
	auto      [][originCount]string // "AUTO:<route>:<origin>"
	static    []string              // "STATIC:<route>"
}

func newCatalog(cov *Coverage) *catalog {
	c := &catalog{
		cov:      cov,
		ids:      append(make([]string, 0, 1+len(cov.Routes)), RejectRoute),
		index:    make(map[string]routeID, 1+len(cov.Routes)),
		product:  make([]Product, 1, 1+len(cov.Routes)),
		networks: make(map[uint32]*view, len(cov.Networks)),
	}
	c.index[RejectRoute] = rejectID
	c.usable = append(make([]string, 0, 1+len(cov.Routes)), RejectRoute)
	for _, r := range cov.Routes {
		c.index[r.ID] = routeID(len(c.ids))
		c.ids = append(c.ids, r.ID)
		c.product = append(c.product, r.Product)
		if r.Product != NT {
			c.usable = append(c.usable, r.ID)
		}
	}
	newView := func() *view {
		v := &view{scores: make([]int16, len(c.ids)), best: [2]choice{noChoice, noChoice}}
		for i := range v.scores {
			v.scores[i] = -1
		}
		return v
	}
	networksOf := map[int][]*view{}
	for _, n := range cov.Networks {
		v := newView()
		for id := range v.scores[1:] {
			v.scores[id+1] = 0 // a known network: a route without a score does not reach it
		}
		c.networks[mccmncKey(n.MCCMNC)] = v
		ci := countryIndex(n.CountryCode)
		networksOf[ci] = append(networksOf[ci], v)
	}
	for _, s := range cov.Scores {
		c.networks[mccmncKey(s.MCCMNC)].scores[c.index[s.Route]] = int16(s.Score)
	}
	pick := func(v *view) {
		for id := routeID(1); int(id) < len(c.ids); id++ {
			if c.product[id] == NT || v.scores[id] <= 0 {
				continue
			}
			if p := productSlot(c.product[id]); better(id, v.scores[id], v.best[p], c.ids) {
				v.best[p] = choice{id, v.scores[id]}
			}
		}
	}
	for _, v := range c.networks {
		pick(v)
	}
	// A number whose network is unknown gets, per route, the route's lowest
	// score over its country's networks: what the route can promise.
	for ci, nets := range networksOf {
		v := newView()
		for id := routeID(1); int(id) < len(c.ids); id++ {
			low := int16(100)
			for _, n := range nets {
				low = min(low, n.scores[id])
			}
			if low > 0 {
				v.scores[id] = low
			}
		}
		pick(v)
		c.countries[ci] = v
	}
	c.auto = make([][originCount]string, len(c.ids))
	c.static = make([]string, len(c.ids))
	for id, name := range c.ids {
		for o := OriginScore; o < originCount; o++ {
			c.auto[id][o] = "AUTO:" + name + ":" + o.String()
		}
		c.static[id] = "STATIC:" + name
	}
	return c
}

// countryView returns the coverage view for numbers of a country whose
// network is unknown to the coverage data, else noView.
func (c *catalog) countryView(ci int) *view {
	if ci >= 0 && c.countries[ci] != nil {
		return c.countries[ci]
	}
	return noView
}

func productSlot(p Product) int {
	if p == MNP {
		return 1
	}
	return 0
}

// better orders candidates by score, then by route identifier, so that
// ties are decided the same way every time.
func better(id routeID, score int16, than choice, ids []string) bool {
	if than.route == noRoute || score > than.score {
		return true
	}
	return score == than.score && ids[id] < ids[than.route]
}

// rules is one compiled routing map.
type rules struct {
	m        *Map
	sorted   []prefixKey // the valid prefix rules, in lexical order, without repetitions
	treeOnce sync.Once
	tree     *radix.Tree // built on first use: prefix digits (no plus sign) -> *PrefixRule
	prefix   []routeID   // by index into m.Prefixes
	mccmncOf []uint32    // the MCCMNC key a prefix rule names, by index; 0 for none
	mccmnc   map[uint32]routeID
	country  [countries]routeID
	def      routeID
}

type prefixKey struct {
	prefix prefixmap.Prefix
	index  int32 // into Map.Prefixes
	digits string
}

// at names an entry of a map in problems, formatted only when one is found.
type at struct {
	list  string
	index int
}

func (a at) String() string { return textfmt.Sprintf("%s[%d]", a.list, a.index) }

// compile validates m against the catalog's routes and the numbering plan
// and compiles it. problems name every offending entry.
func compile(m *Map, cat *catalog, plan *numbering.Plan) (*rules, []string) {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, textfmt.Sprintf(format, args...)) }
	r := &rules{m: m, mccmnc: map[uint32]routeID{}, def: noRoute}
	for i := range r.country {
		r.country[i] = noRoute
	}
	route := func(where any, id string) routeID {
		if id == "" {
			add("%v: missing", where)
			return noRoute
		}
		rid, ok := cat.index[id]
		switch {
		case !ok && len(id) != 3:
			add("%v %q: want a 3-character route or %s", where, id, RejectRoute)
			return noRoute
		case !ok:
			add("%v %q: unknown route (known: %s)", where, id, strings.Join(cat.usable, ", "))
			return noRoute
		case cat.product[rid] == NT:
			add("%v %q: an NT route cannot serve HLR lookups", where, id)
			return noRoute
		}
		return rid
	}
	region := func(where at, field, code string) bool {
		if !validISO(code) || plan.CallingCode(code) == 0 {
			add("%v.%s %q: not an ISO 3166-1 alpha-2 country code of the numbering plan", where, field, code)
			return false
		}
		return true
	}

	if m.DefaultRoute != "" {
		r.def = route("defaultRoute", m.DefaultRoute)
	}

	seenMCCMNC := map[uint32]int{}
	for i, rule := range m.MCCMNCs {
		where := at{"mccmncs", i}
		mk := mccmncKey(rule.MCCMNC)
		if mk == 0 {
			add("%v.mccmnc %q: want 5 or 6 digits", where, rule.MCCMNC)
		}
		if rule.CountryCode != "" {
			region(where, "countrycode", rule.CountryCode)
		}
		if rule.Confidence != "" {
			if _, ok := ParseConfidence(rule.Confidence); !ok {
				add("%v.confidence %q: want LOW, NORMAL, HIGH or MNP_FALLBACK", where, rule.Confidence)
			}
		}
		if rule.Origin != "" {
			if _, ok := ParseOrigin(rule.Origin); !ok {
				add("%v.origin %q: not an origin of the API", where, rule.Origin)
			}
		}
		rid := route(routeField{where}, rule.Route)
		if mk == 0 || rid == noRoute {
			continue
		}
		if j, dup := seenMCCMNC[mk]; dup {
			duplicate(add, where, j, rule.MCCMNC, rule.Route, m.MCCMNCs[j].Route)
			continue
		}
		seenMCCMNC[mk] = i
		r.mccmnc[mk] = rid
	}

	r.prefix = make([]routeID, len(m.Prefixes))
	r.mccmncOf = make([]uint32, len(m.Prefixes))
	valid := make([]prefixKey, 0, len(m.Prefixes))
	for i, rule := range m.Prefixes {
		where := at{"prefixes", i}
		r.prefix[i] = route(routeField{where}, rule.Route)
		digits, ok := strings.CutPrefix(rule.CNS, "+")
		if !ok || !isDigits(digits) || len(digits) > 15 {
			add("%v.cns %q: want a plus sign and 1 to 15 digits", where, rule.CNS)
			continue
		}
		cc, _, ok := plan.SplitCallingCode(digits)
		if !ok {
			add("%v.cns %q: does not start with a whole country calling code", where, rule.CNS)
			continue
		}
		if rule.CountryCode != "" && region(where, "countrycode", rule.CountryCode) && plan.CallingCode(rule.CountryCode) != cc {
			add("%v: countrycode %s contradicts cns %s (calling code +%d belongs to %s)", where, rule.CountryCode, rule.CNS, cc, strings.Join(plan.Regions(cc), ", "))
		}
		if rule.MCCMNC != "" {
			if r.mccmncOf[i] = mccmncKey(rule.MCCMNC); r.mccmncOf[i] == 0 {
				add("%v.mccmnc %q: want 5 or 6 digits", where, rule.MCCMNC)
			}
		}
		if r.prefix[i] != noRoute {
			pre, err := prefixmap.ParsePrefix(digits)
			if err != nil { // checked above: 1 to 15 digits
				add("%v.cns %q: %v", where, rule.CNS, err)
				continue
			}
			valid = append(valid, prefixKey{pre, int32(i), digits})
		}
	}
	// Lexical order (a prefix's key orders like its digits, and distinct
	// prefixes have distinct keys) puts repetitions side by side and is the
	// order the flattened tables and go-radix want. Of two equal prefixes
	// the first in the map is kept.
	slices.SortFunc(valid, func(a, b prefixKey) int {
		if c := cmp.Compare(a.prefix.Key(), b.prefix.Key()); c != 0 {
			return c
		}
		return cmp.Compare(a.index, b.index)
	})
	r.sorted = make([]prefixKey, 0, len(valid))
	for _, k := range valid {
		if n := len(r.sorted); n > 0 && r.sorted[n-1].digits == k.digits {
			first := r.sorted[n-1].index
			rule := m.Prefixes[k.index]
			duplicate(add, at{"prefixes", int(k.index)}, int(first), rule.CNS, rule.Route, m.Prefixes[first].Route)
			continue
		}
		r.sorted = append(r.sorted, k)
	}

	seenCountry := map[int]int{}
	for i, rule := range m.Countries {
		where := at{"countries", i}
		ok := region(where, "countrycode", rule.CountryCode)
		rid := route(routeField{where}, rule.Route)
		if !ok || rid == noRoute {
			continue
		}
		ci := countryIndex(rule.CountryCode)
		if j, dup := seenCountry[ci]; dup {
			duplicate(add, where, j, rule.CountryCode, rule.Route, m.Countries[j].Route)
			continue
		}
		seenCountry[ci] = i
		r.country[ci] = rid
	}
	return r, problems
}

// routeField names the route field of an entry.
type routeField struct{ entry at }

func (f routeField) String() string { return f.entry.String() + ".route" }

func duplicate(add func(string, ...any), where at, j int, key, route, earlier string) {
	first := at{where.list, j}
	if route == earlier {
		add("%v: %s repeats %v", where, key, first)
	} else {
		add("%v: %s routes to %s, contradicting %v, which routes it to %s", where, key, route, first, earlier)
	}
}

// radix returns the map's prefix rules in a go-radix tree, keyed by their
// digits, for queries that the flattened tables do not answer, such as
// every rule on a number's path (Resolver.Explain). It is built on first use.
func (r *rules) radix() *radix.Tree {
	r.treeOnce.Do(func() {
		r.tree = radix.New()
		for _, k := range r.sorted {
			r.tree.Insert(k.digits, &r.m.Prefixes[k.index])
		}
	})
	return r.tree
}

// match is the most specific rule of one map for a number: its longest
// prefix rule, else its MCCMNC rule, else its country rule, given the
// routes of the first two (noRoute for none). level is 0, 1, 2 for prefix,
// MCCMNC, country, and 3 when no rule applies.
func (r *rules) match(prefixRoute, mccmncRoute routeID, ci int) (id routeID, level int) {
	switch {
	case prefixRoute != noRoute:
		return prefixRoute, 0
	case mccmncRoute != noRoute:
		return mccmncRoute, 1
	case ci >= 0 && r.country[ci] != noRoute:
		return r.country[ci], 2
	}
	return noRoute, 3
}
