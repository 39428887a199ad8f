package routing

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// RejectRoute is the route of a rule that refuses the numbers it matches.
const RejectRoute = "REJECT"

// Map is a routing map: the rules of one account (or of the platform) that
// decide which route a lookup takes. Its JSON form is the routing map object
// of the API's GET /routing-map.
//
// A rule whose Route is RejectRoute refuses the numbers it matches.
type Map struct {
	// DefaultRoute is the route for numbers no rule and no coverage score
	// decides; "" for none.
	DefaultRoute string
	// MNPFallback sends numbers whose network has no good enough live HLR
	// coverage to a portability (MNP) route instead; it overrides conflicting
	// custom rules.
	MNPFallback bool
	MCCMNCs     []MCCMNCRule
	Prefixes    []PrefixRule
	Countries   []CountryRule
}

// MCCMNCRule routes the numbers of one mobile network.
//
// The JSON tags serve plain encoding/json (as in numen route --explain);
// Map's own JSON methods write and read the API's forms.
type MCCMNCRule struct {
	MCCMNC      string `json:"mccmnc"`                // 5 or 6 digits
	CountryCode string `json:"countrycode,omitempty"` // ISO 3166-1 alpha-2; optional
	Route       string `json:"route"`
	MNO         string `json:"mno,omitempty"` // operator name; optional
	// Confidence and Origin describe the decision for the network in an
	// effective map (Resolver.EffectiveMap); they are ignored in rules.
	Confidence string `json:"confidence,omitempty"`
	Origin     string `json:"origin,omitempty"`
}

// PrefixRule routes the numbers that start with a prefix.
type PrefixRule struct {
	CountryCode string `json:"countrycode,omitempty"` // ISO 3166-1 alpha-2; optional, must match the prefix's calling code
	CNS         string `json:"cns"`                   // the prefix with plus sign, such as "+49151"
	Route       string `json:"route"`
	MCCMNC      string `json:"mccmnc,omitempty"` // network of the range, 5 or 6 digits; optional
	MNO         string `json:"mno,omitempty"`    // operator name; optional
}

// CountryRule routes the numbers of one country.
type CountryRule struct {
	CountryCode string `json:"countrycode"` // ISO 3166-1 alpha-2
	Route       string `json:"route"`
}

// The wire forms. Input accepts the keys of the API's example
// (defaultRoute, mnpFallback) and the documented snake_case names, and an
// MCCMNC as a JSON number or string; unknown keys are errors.
type (
	wireMap struct {
		DefaultRoute      *string       `json:"defaultRoute"`
		DefaultRouteSnake *string       `json:"default_route"`
		MNPFallback       *bool         `json:"mnpFallback"`
		MNPFallbackSnake  *bool         `json:"mnp_fallback"`
		MCCMNCs           []wireMCCMNC  `json:"mccmncs"`
		Prefixes          []wirePrefix  `json:"prefixes"`
		Countries         []wireCountry `json:"countries"`
	}
	wireMCCMNC struct {
		MCCMNC      flexString `json:"mccmnc"`
		CountryCode *string    `json:"countrycode"`
		Route       *string    `json:"route"`
		MNO         *string    `json:"mno"`
		Confidence  *string    `json:"confidence"`
		Origin      *string    `json:"origin"`
	}
	wirePrefix struct {
		CountryCode *string    `json:"countrycode"`
		CNS         *string    `json:"cns"`
		Route       *string    `json:"route"`
		MCCMNC      flexString `json:"mccmnc"`
		MNO         *string    `json:"mno"`
	}
	wireCountry struct {
		CountryCode *string `json:"countrycode"`
		Route       *string `json:"route"`
	}
)

// flexString is a JSON string or integer, kept as text; null is "".
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	switch {
	case bytes.Equal(b, []byte("null")):
		*f = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
	default:
		for _, c := range b {
			if c < '0' || c > '9' {
				return fmt.Errorf("want a string or a whole number, have %s", b)
			}
		}
		*f = flexString(b)
	}
	return nil
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// ParseMap reads a routing map from JSON: either the map object itself or
// the GET /routing-map answer that wraps it ({"routing": {"map": {...}}}).
// It checks the JSON's shape only; Validate (or NewResolver) checks the
// rules against the known routes and the numbering plan.
func ParseMap(data []byte) (*Map, error) {
	var outer map[string]json.RawMessage
	if err := json.Unmarshal(data, &outer); err != nil {
		return nil, fmt.Errorf("routing map: %w", describeJSONError(data, err))
	}
	if outer == nil {
		return nil, errors.New("routing map: want a JSON object, have null")
	}
	body := data
	if raw, ok := outer["routing"]; ok && len(outer) == 1 {
		var routing map[string]json.RawMessage
		if err := json.Unmarshal(raw, &routing); err != nil {
			return nil, fmt.Errorf("routing map: routing: %w", err)
		}
		if body, ok = routing["map"]; !ok || len(routing) != 1 {
			return nil, errors.New(`routing map: "routing" must hold exactly one key, "map"`)
		}
	}
	var w wireMap
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return nil, fmt.Errorf("routing map: %w", describeJSONError(body, err))
	}
	m := &Map{}
	var problems []string
	switch {
	case w.DefaultRoute != nil && w.DefaultRouteSnake != nil && *w.DefaultRoute != *w.DefaultRouteSnake:
		problems = append(problems, fmt.Sprintf("defaultRoute %q and default_route %q disagree", *w.DefaultRoute, *w.DefaultRouteSnake))
	case w.DefaultRoute != nil:
		m.DefaultRoute = *w.DefaultRoute
	default:
		m.DefaultRoute = str(w.DefaultRouteSnake)
	}
	switch {
	case w.MNPFallback != nil && w.MNPFallbackSnake != nil && *w.MNPFallback != *w.MNPFallbackSnake:
		problems = append(problems, "mnpFallback and mnp_fallback disagree")
	case w.MNPFallback != nil:
		m.MNPFallback = *w.MNPFallback
	case w.MNPFallbackSnake != nil:
		m.MNPFallback = *w.MNPFallbackSnake
	}
	for _, r := range w.MCCMNCs {
		m.MCCMNCs = append(m.MCCMNCs, MCCMNCRule{
			MCCMNC: string(r.MCCMNC), CountryCode: str(r.CountryCode), Route: str(r.Route),
			MNO: str(r.MNO), Confidence: str(r.Confidence), Origin: str(r.Origin),
		})
	}
	for _, r := range w.Prefixes {
		m.Prefixes = append(m.Prefixes, PrefixRule{
			CountryCode: str(r.CountryCode), CNS: str(r.CNS), Route: str(r.Route),
			MCCMNC: string(r.MCCMNC), MNO: str(r.MNO),
		})
	}
	for _, r := range w.Countries {
		m.Countries = append(m.Countries, CountryRule{CountryCode: str(r.CountryCode), Route: str(r.Route)})
	}
	if len(problems) > 0 {
		return nil, &MapError{Problems: problems}
	}
	return m, nil
}

// describeJSONError adds the line and column to encoding/json's errors,
// which give byte offsets or none at all.
func describeJSONError(data []byte, err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var offset int64
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	default:
		return err
	}
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	line := 1 + bytes.Count(data[:offset], []byte{'\n'})
	col := offset - int64(bytes.LastIndexByte(data[:offset], '\n'))
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// MarshalJSON writes the map with the keys of the API's example
// (defaultRoute, mnpFallback, and mccmncs[].mccmnc as a number, unless it
// starts with 0); empty optional values are null.
func (m *Map) MarshalJSON() ([]byte, error) {
	type outMCCMNC struct {
		MCCMNC      json.RawMessage `json:"mccmnc"`
		CountryCode *string         `json:"countrycode"`
		Route       string          `json:"route"`
		MNO         *string         `json:"mno"`
		Confidence  *string         `json:"confidence"`
		Origin      *string         `json:"origin"`
	}
	type outPrefix struct {
		CountryCode *string `json:"countrycode"`
		CNS         string  `json:"cns"`
		Route       string  `json:"route"`
		MCCMNC      *string `json:"mccmnc"`
		MNO         *string `json:"mno"`
	}
	out := struct {
		DefaultRoute *string       `json:"defaultRoute"`
		MNPFallback  bool          `json:"mnpFallback"`
		MCCMNCs      []outMCCMNC   `json:"mccmncs"`
		Prefixes     []outPrefix   `json:"prefixes"`
		Countries    []CountryRule `json:"countries"`
	}{
		DefaultRoute: nullable(m.DefaultRoute), MNPFallback: m.MNPFallback,
		MCCMNCs: []outMCCMNC{}, Prefixes: []outPrefix{}, Countries: append([]CountryRule{}, m.Countries...),
	}
	for _, r := range m.MCCMNCs {
		if !isDigits(r.MCCMNC) {
			return nil, fmt.Errorf("routing map: mccmnc %q is not a number", r.MCCMNC)
		}
		num := json.RawMessage(r.MCCMNC)
		if r.MCCMNC[0] == '0' { // a number would lose the leading zero (test networks, MCC 001)
			num = json.RawMessage(`"` + r.MCCMNC + `"`)
		}
		out.MCCMNCs = append(out.MCCMNCs, outMCCMNC{num, nullable(r.CountryCode), r.Route, nullable(r.MNO), nullable(r.Confidence), nullable(r.Origin)})
	}
	for _, r := range m.Prefixes {
		out.Prefixes = append(out.Prefixes, outPrefix{nullable(r.CountryCode), r.CNS, r.Route, nullable(r.MCCMNC), nullable(r.MNO)})
	}
	return json.Marshal(out)
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
