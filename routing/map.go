package routing

import (
	"errors"
	"strconv"

	"github.com/numenhq/numen/numbering/textfmt"
	"github.com/numenhq/numen/numbering/textfmt/jsonpos"
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

// ParseMap reads a routing map from JSON: either the map object itself or
// the GET /routing-map answer that wraps it ({"routing": {"map": {...}}}).
// It accepts the keys of the API's example (defaultRoute, mnpFallback) and
// the documented snake_case names, and an MCCMNC as a JSON number or
// string; an unknown key, a key given twice or a value of the wrong kind is
// an error naming its line and column. It checks the JSON's shape only;
// NewPlatform and Platform.Resolver check the rules against the known
// routes and the numbering plan.
func ParseMap(data []byte) (*Map, error) {
	v, err := jsonpos.Parse(data)
	if err != nil {
		return nil, textfmt.Errorf("routing map: %w", err)
	}
	if v.Kind == jsonpos.Object && len(v.Keys) == 1 && v.Keys[0].Name == "routing" {
		r := &v.Values[0]
		if r.Kind != jsonpos.Object || len(r.Keys) != 1 || r.Keys[0].Name != "map" {
			return nil, errors.New(`routing map: "routing" must hold exactly one key, "map"`)
		}
		v = r.Values[0]
	}
	m, err := decodeMap(data, &v)
	if err != nil {
		var me *MapError
		if errors.As(err, &me) {
			return nil, err
		}
		return nil, textfmt.Errorf("routing map: %w", err)
	}
	return m, nil
}

// MarshalJSON writes the map with the keys of the API's example
// (defaultRoute, mnpFallback, and mccmncs[].mccmnc as a number, unless it
// starts with 0); empty optional values are null.
func (m *Map) MarshalJSON() ([]byte, error) {
	b := append(make([]byte, 0, 256), `{"defaultRoute":`...)
	b = appendJSONNullable(b, m.DefaultRoute)
	b = append(b, `,"mnpFallback":`...)
	b = strconv.AppendBool(b, m.MNPFallback)
	b = append(b, `,"mccmncs":[`...)
	for i, r := range m.MCCMNCs {
		if !isDigits(r.MCCMNC) {
			return nil, errors.New("routing map: mccmnc " + string(textfmt.AppendQuote(nil, r.MCCMNC)) + " is not a number")
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"mccmnc":`...)
		if r.MCCMNC[0] == '0' { // a number would lose the leading zero (test networks, MCC 001)
			b = textfmt.AppendJSONString(b, r.MCCMNC)
		} else {
			b = append(b, r.MCCMNC...)
		}
		b = append(b, `,"countrycode":`...)
		b = appendJSONNullable(b, r.CountryCode)
		b = append(b, `,"route":`...)
		b = textfmt.AppendJSONString(b, r.Route)
		b = append(b, `,"mno":`...)
		b = appendJSONNullable(b, r.MNO)
		b = append(b, `,"confidence":`...)
		b = appendJSONNullable(b, r.Confidence)
		b = append(b, `,"origin":`...)
		b = appendJSONNullable(b, r.Origin)
		b = append(b, '}')
	}
	b = append(b, `],"prefixes":[`...)
	for i, r := range m.Prefixes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"countrycode":`...)
		b = appendJSONNullable(b, r.CountryCode)
		b = append(b, `,"cns":`...)
		b = textfmt.AppendJSONString(b, r.CNS)
		b = append(b, `,"route":`...)
		b = textfmt.AppendJSONString(b, r.Route)
		b = append(b, `,"mccmnc":`...)
		b = appendJSONNullable(b, r.MCCMNC)
		b = append(b, `,"mno":`...)
		b = appendJSONNullable(b, r.MNO)
		b = append(b, '}')
	}
	b = append(b, `],"countries":[`...)
	for i, r := range m.Countries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"countrycode":`...)
		b = textfmt.AppendJSONString(b, r.CountryCode)
		b = append(b, `,"route":`...)
		b = textfmt.AppendJSONString(b, r.Route)
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
}

// appendJSONNullable appends s as a JSON string, or null when empty.
func appendJSONNullable(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return textfmt.AppendJSONString(b, s)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
