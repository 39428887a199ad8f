package routing

import (
	"fmt"
	"strings"

	radix "github.com/armon/go-radix"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/prefixmap"
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

// catalog is the compiled coverage: routes, scores and the best route per
// network and country, with the routing instructions made in advance so
// that decisions do not build strings.
type catalog struct {
	cov     *Coverage
	ids     []string // by routeID; ids[rejectID] == "REJECT"
	index   map[string]routeID
	product []Product
	score   map[uint64]int16      // routeID<<32 | mccmncKey
	best    [2]map[uint32]choice  // [0] HLR, [1] MNP, by mccmncKey
	byCtry  [2][countries]choice  // best by country: the route's lowest score over the country's networks
	ctry    map[uint64]int16      // routeID<<32 | countryIndex -> that lowest score, when above 0
	country map[uint32]int        // mccmncKey -> countryIndex
	auto    [][originCount]string // "AUTO:<route>:<origin>"
	static  []string              // "STATIC:<route>"
}

func newCatalog(cov *Coverage) *catalog {
	c := &catalog{
		cov:     cov,
		ids:     []string{RejectRoute},
		index:   map[string]routeID{RejectRoute: rejectID},
		product: []Product{""},
		score:   map[uint64]int16{},
		ctry:    map[uint64]int16{},
		best:    [2]map[uint32]choice{{}, {}},
		country: map[uint32]int{},
	}
	for _, r := range cov.Routes {
		c.index[r.ID] = routeID(len(c.ids))
		c.ids = append(c.ids, r.ID)
		c.product = append(c.product, r.Product)
	}
	for _, n := range cov.Networks {
		c.country[mccmncKey(n.MCCMNC)] = countryIndex(n.CountryCode)
	}
	for _, s := range cov.Scores {
		id, mk := c.index[s.Route], mccmncKey(s.MCCMNC)
		c.score[uint64(id)<<32|uint64(mk)] = int16(s.Score)
		p := productSlot(c.product[id])
		if s.Score == 0 { // does not reach the network: never the best
			continue
		}
		if b, ok := c.best[p][mk]; !ok || better(id, int16(s.Score), b, c.ids) {
			c.best[p][mk] = choice{id, int16(s.Score)}
		}
	}
	// A route's score for a country is its lowest over the country's
	// networks (0 for a network it does not reach): the score it can
	// promise for a number whose network is unknown.
	for p := range c.byCtry {
		for i := range c.byCtry[p] {
			c.byCtry[p][i] = noChoice
		}
	}
	networksOf := map[int][]uint32{}
	for _, n := range cov.Networks {
		ci := countryIndex(n.CountryCode)
		networksOf[ci] = append(networksOf[ci], mccmncKey(n.MCCMNC))
	}
	for ci, nets := range networksOf {
		for id := routeID(1); int(id) < len(c.ids); id++ {
			if c.product[id] == NT {
				continue
			}
			low := int16(100)
			for _, mk := range nets {
				s, ok := c.score[uint64(id)<<32|uint64(mk)]
				if !ok {
					s = 0
				}
				low = min(low, s)
			}
			if low == 0 {
				continue
			}
			c.ctry[uint64(id)<<32|uint64(ci)] = low
			if p := productSlot(c.product[id]); better(id, low, c.byCtry[p][ci], c.ids) {
				c.byCtry[p][ci] = choice{id, low}
			}
		}
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

// scoreOf returns route id's score for a network (by MCCMNC key) or, when
// the network is unknown, for the country; -1 when there is no data.
func (c *catalog) scoreOf(id routeID, mk uint32, ci int) int16 {
	if mk != 0 {
		if s, ok := c.score[uint64(id)<<32|uint64(mk)]; ok {
			return s
		}
		if _, known := c.country[mk]; known {
			return 0 // a known network the route does not reach
		}
	}
	if ci >= 0 {
		if s, ok := c.ctry[uint64(id)<<32|uint64(ci)]; ok {
			return s
		}
	}
	return -1
}

// bestFor returns the best route of a product slot for a network known to
// the coverage data, else for the number's country; noChoice when no route
// scores above 0.
func (c *catalog) bestFor(slot int, mk uint32, ci int) choice {
	if _, known := c.country[mk]; known {
		if b, ok := c.best[slot][mk]; ok {
			return b
		}
		return noChoice
	}
	if ci >= 0 {
		return c.byCtry[slot][ci]
	}
	return noChoice
}

// rules is one compiled routing map.
type rules struct {
	m        *Map
	tree     *radix.Tree // prefix digits (no plus sign) -> index into m.Prefixes
	prefixes prefixmap.Table
	prefix   []routeID // by index into m.Prefixes
	mccmncOf []uint32  // the MCCMNC key a prefix rule names, by index; 0 for none
	mccmnc   map[uint32]routeID
	country  [countries]routeID
	def      routeID
}

// compile validates m against the catalog's routes and the numbering plan
// and compiles it. problems name every offending entry; who prefixes them
// ("platform map" or "routing map").
func compile(m *Map, cat *catalog, plan *numbering.Plan) (*rules, []string) {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	r := &rules{m: m, tree: radix.New(), mccmnc: map[uint32]routeID{}, def: noRoute}
	for i := range r.country {
		r.country[i] = noRoute
	}
	route := func(path, id string) routeID {
		if id == "" {
			add("%s: missing", path)
			return noRoute
		}
		rid, ok := cat.index[id]
		switch {
		case !ok && len(id) != 3:
			add("%s %q: want a 3-character route or %s", path, id, RejectRoute)
			return noRoute
		case !ok:
			add("%s %q: unknown route (known: %s)", path, id, strings.Join(cat.ids, ", "))
			return noRoute
		case cat.product[rid] == NT:
			add("%s %q: an NT route cannot serve HLR lookups", path, id)
			return noRoute
		}
		return rid
	}
	region := func(path, code string) bool {
		if !validISO(code) || plan.CallingCode(code) == 0 {
			add("%s %q: not an ISO 3166-1 alpha-2 country code of the numbering plan", path, code)
			return false
		}
		return true
	}

	if m.DefaultRoute != "" {
		r.def = route("defaultRoute", m.DefaultRoute)
	}

	seenMCCMNC := map[uint32]int{}
	for i, rule := range m.MCCMNCs {
		path := fmt.Sprintf("mccmncs[%d]", i)
		mk := mccmncKey(rule.MCCMNC)
		if mk == 0 {
			add("%s.mccmnc %q: want 5 or 6 digits", path, rule.MCCMNC)
		}
		if rule.CountryCode != "" {
			region(path+".countrycode", rule.CountryCode)
		}
		if rule.Confidence != "" {
			if _, ok := ParseConfidence(rule.Confidence); !ok {
				add("%s.confidence %q: want LOW, NORMAL, HIGH or MNP_FALLBACK", path, rule.Confidence)
			}
		}
		if rule.Origin != "" {
			if _, ok := ParseOrigin(rule.Origin); !ok {
				add("%s.origin %q: not an origin of the API", path, rule.Origin)
			}
		}
		rid := route(path+".route", rule.Route)
		if mk == 0 || rid == noRoute {
			continue
		}
		if j, dup := seenMCCMNC[mk]; dup {
			duplicate(add, path, "mccmncs", j, rule.MCCMNC, rule.Route, m.MCCMNCs[j].Route)
			continue
		}
		seenMCCMNC[mk] = i
		r.mccmnc[mk] = rid
	}

	r.prefix = make([]routeID, len(m.Prefixes))
	r.mccmncOf = make([]uint32, len(m.Prefixes))
	for i, rule := range m.Prefixes {
		path := fmt.Sprintf("prefixes[%d]", i)
		r.prefix[i] = route(path+".route", rule.Route)
		digits, ok := strings.CutPrefix(rule.CNS, "+")
		switch {
		case !ok || !isDigits(digits) || len(digits) > 15:
			add("%s.cns %q: want a plus sign and 1 to 15 digits", path, rule.CNS)
			continue
		}
		cc, _, ok := plan.SplitCallingCode(digits)
		if !ok {
			add("%s.cns %q: does not start with a whole country calling code", path, rule.CNS)
			continue
		}
		if rule.CountryCode != "" && region(path+".countrycode", rule.CountryCode) && plan.CallingCode(rule.CountryCode) != cc {
			add("%s: countrycode %s contradicts cns %s (calling code +%d belongs to %s)", path, rule.CountryCode, rule.CNS, cc, strings.Join(plan.Regions(cc), ", "))
		}
		if rule.MCCMNC != "" {
			if r.mccmncOf[i] = mccmncKey(rule.MCCMNC); r.mccmncOf[i] == 0 {
				add("%s.mccmnc %q: want 5 or 6 digits", path, rule.MCCMNC)
			}
		}
		if r.prefix[i] == noRoute {
			continue
		}
		if old, updated := r.tree.Insert(digits, i); updated {
			j := old.(int)
			r.tree.Insert(digits, j) // keep the first
			duplicate(add, path, "prefixes", j, rule.CNS, rule.Route, m.Prefixes[j].Route)
		}
	}
	// The radix tree walks its keys in order, enclosing prefixes first:
	// exactly the order the flattened table is built in.
	entries := make([]prefixmap.Entry, 0, r.tree.Len())
	r.tree.Walk(func(digits string, v any) bool {
		e, err := prefixmap.NewEntry(digits, int32(v.(int)))
		if err != nil { // checked above; kept for safety
			add("prefixes: %v", err)
			return true
		}
		entries = append(entries, e)
		return false
	})
	r.prefixes = prefixmap.New(entries)

	seenCountry := map[int]int{}
	for i, rule := range m.Countries {
		path := fmt.Sprintf("countries[%d]", i)
		ok := region(path+".countrycode", rule.CountryCode)
		rid := route(path+".route", rule.Route)
		if !ok || rid == noRoute {
			continue
		}
		ci := countryIndex(rule.CountryCode)
		if j, dup := seenCountry[ci]; dup {
			duplicate(add, path, "countries", j, rule.CountryCode, rule.Route, m.Countries[j].Route)
			continue
		}
		seenCountry[ci] = i
		r.country[ci] = rid
	}
	return r, problems
}

func duplicate(add func(string, ...any), path, list string, j int, key, route, earlier string) {
	if route == earlier {
		add("%s: %s repeats %s[%d]", path, key, list, j)
	} else {
		add("%s: %s routes to %s, contradicting %s[%d], which routes it to %s", path, key, route, list, j, earlier)
	}
}

// match is the most specific rule of one map for a number: the prefix rule
// found before (prefixRule, or prefixmap.None), else its MCCMNC rule, else
// its country rule. level is 0, 1, 2 for prefix, MCCMNC, country, and 3
// when no rule applies.
func (r *rules) match(prefixRule int32, mk uint32, ci int) (id routeID, level int) {
	if prefixRule != prefixmap.None {
		return r.prefix[prefixRule], 0
	}
	if mk != 0 {
		if id, ok := r.mccmnc[mk]; ok {
			return id, 1
		}
	}
	if ci >= 0 && r.country[ci] != noRoute {
		return r.country[ci], 2
	}
	return noRoute, 3
}
