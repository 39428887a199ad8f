package routing

import (
	"slices"
	"strings"

	"github.com/numenhq/numen/numbering/textfmt"
	"github.com/numenhq/numen/numbering/textfmt/jsonpos"
)

// Product is what a route looks up: live subscriber state (HLR), the
// portability database (MNP) or the numbering plan (NT).
type Product string

// Products.
const (
	HLR Product = "HLR"
	MNP Product = "MNP"
	NT  Product = "NT"
)

// Route is one route a lookup can take, identified by 3 printable ASCII
// characters.
type Route struct {
	ID      string  `json:"id"`
	Product Product `json:"product"`
	Name    string  `json:"name"`
}

// Network is a mobile network known to the coverage data.
type Network struct {
	MCCMNC      string `json:"mccmnc"`
	CountryCode string `json:"countrycode"`
	MNO         string `json:"mno"`
}

// Score rates how well a route reaches a network, from 0 (not at all) to
// 100.
type Score struct {
	Route  string `json:"route"`
	MCCMNC string `json:"mccmnc"`
	Score  int    `json:"score"`
}

// Coverage is the data behind automatic route selection (origin SCORE) and
// confidence levels: the routes, the networks and a quality score per route
// and network. Its JSON form is what GET /hlr-coverage returns.
type Coverage struct {
	About    string    `json:"about,omitempty"`
	Routes   []Route   `json:"routes"`
	Networks []Network `json:"networks"`
	Scores   []Score   `json:"scores"`
}

// Confidence thresholds on a route's score for a number: HIGH from
// HighScore, NORMAL from NormalScore, LOW below. MNP fallback takes over
// when no live HLR route reaches NormalScore.
const (
	HighScore   = 80
	NormalScore = 50
)

// ParseCoverage reads coverage data from JSON and checks it: route
// identifiers of 3 printable ASCII characters and a known product, MCCMNCs of 5 or 6
// digits with an ISO country, scores from 0 to 100 for declared routes and
// networks, nothing twice. All problems are reported together.
func ParseCoverage(b []byte) (*Coverage, error) {
	v, err := jsonpos.Parse(b)
	if err != nil {
		return nil, textfmt.Errorf("coverage: %w", err)
	}
	c, err := decodeCoverage(b, &v)
	if err != nil {
		return nil, textfmt.Errorf("coverage: %w", err)
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

// DefaultCoverage returns the coverage embedded from data/routing/coverage.json:
// Numen's illustrative routes DS7, GT1, GT2 (HLR), MP1 (MNP) and NT1 (NT)
// with made-up scores for about 60 real networks. See data/README.md. Each
// call returns a copy of its own; the error is always nil (go run ./data/gen
// checks the file when it writes it in).
func DefaultCoverage() (*Coverage, error) {
	// builtin.go holds the file as ParseCoverage reads it, laid out by the
	// compiler: nothing parsed, little allocated (issue 33).
	c := builtinCoverage
	c.Routes = slices.Clone(c.Routes)
	c.Networks = slices.Clone(c.Networks)
	c.Scores = slices.Clone(c.Scores)
	return &c, nil
}

// DefaultPlatformMap returns the platform rules embedded from
// data/routing/platform.json: default route GT1, Iridium satellite ranges
// rejected, the United States and Brazil on GT2. Each call returns a copy
// of its own; the error is always nil.
func DefaultPlatformMap() (*Map, error) {
	m := builtinPlatformMap
	m.MCCMNCs = slices.Clone(m.MCCMNCs)
	m.Prefixes = slices.Clone(m.Prefixes)
	m.Countries = slices.Clone(m.Countries)
	return &m, nil
}

func (c *Coverage) check() error {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, textfmt.Sprintf(format, args...)) }
	routes := make(map[string]Product, len(c.Routes))
	for i, r := range c.Routes {
		switch {
		case len(r.ID) != 3 || r.ID == RejectRoute || !printableASCII(r.ID):
			add("routes[%d].id %q: want 3 characters, printable ASCII", i, r.ID)
		case r.Product != HLR && r.Product != MNP && r.Product != NT:
			add("routes[%d].product %q: want HLR, MNP or NT", i, r.Product)
		case routes[r.ID] != "":
			add("routes[%d].id %q: declared twice", i, r.ID)
		}
		routes[r.ID] = r.Product
	}
	networks := make(map[string]bool, len(c.Networks))
	for i, n := range c.Networks {
		switch {
		case !validMCCMNC(n.MCCMNC):
			add("networks[%d].mccmnc %q: want 5 or 6 digits", i, n.MCCMNC)
		case !validISO(n.CountryCode):
			add("networks[%d].countrycode %q: want an ISO 3166-1 alpha-2 code", i, n.CountryCode)
		case networks[n.MCCMNC]:
			add("networks[%d].mccmnc %q: declared twice", i, n.MCCMNC)
		}
		networks[n.MCCMNC] = true
	}
	type pair struct{ route, mccmnc string }
	scored := make(map[pair]bool, len(c.Scores))
	for i, s := range c.Scores {
		switch {
		case routes[s.Route] == "":
			add("scores[%d].route %q: not declared in routes", i, s.Route)
		case routes[s.Route] == NT:
			add("scores[%d].route %q: NT routes are not scored", i, s.Route)
		case !networks[s.MCCMNC]:
			add("scores[%d].mccmnc %q: not declared in networks", i, s.MCCMNC)
		case s.Score < 0 || s.Score > 100:
			add("scores[%d].score %d: want 0 to 100", i, s.Score)
		case scored[pair{s.Route, s.MCCMNC}]:
			add("scores[%d]: route %s and mccmnc %s scored twice", i, s.Route, s.MCCMNC)
		default:
			scored[pair{s.Route, s.MCCMNC}] = true
		}
	}
	if len(problems) > 0 {
		return &MapError{What: "coverage", Problems: problems}
	}
	return nil
}

// RoutesOf returns the identifiers of the routes for one product, sorted:
// the lists of GET /routes.
func (c *Coverage) RoutesOf(p Product) []string {
	var ids []string
	for _, r := range c.Routes {
		if r.Product == p {
			ids = append(ids, r.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

func validMCCMNC(s string) bool { return (len(s) == 5 || len(s) == 6) && isDigits(s) }

// validISO checks the form of a region code; the numbering plan decides
// whether it exists.
func validISO(s string) bool {
	return len(s) == 2 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z'
}

// MapError reports every problem found in a routing map (or coverage
// data), each naming the offending entry, such as
// `prefixes[3].cns "+49x": want a plus sign and digits`.
type MapError struct {
	What     string // "routing map" when empty
	Problems []string
}

func (e *MapError) Error() string {
	what := e.What
	if what == "" {
		what = "routing map"
	}
	if len(e.Problems) == 1 {
		return what + ": " + e.Problems[0]
	}
	return textfmt.Sprintf("%s: %d problems: %s", what, len(e.Problems), strings.Join(e.Problems, "; "))
}

// printableASCII reports whether s is made of the bytes 0x20-0x7E only: a
// route id that routing instructions and logs show as it is.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
