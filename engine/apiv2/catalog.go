package apiv2

// The endpoints of the hosted API that the specification names nowhere but
// that its official clients call: GET /ping, GET /mccmncs and
// GET /mnp-coverage. Their shapes are Numen's (the OpenAPI document
// describes them), with the specification's habits: snake_case names,
// country fields as in lookup results, null for what is unknown.

// Ping is the response of GET /ping: {"success": true} while the server
// answers.
type Ping struct {
	Success bool `json:"success"`
}

// MCCMNCs is the response of GET /mccmncs: the operational mobile networks
// of the numbering plan's MCC-MNC list, by MCCMNC.
type MCCMNCs struct {
	MCCMNCs []MCCMNC `json:"mccmncs"`
}

// MCCMNC is one mobile network of GET /mccmncs.
type MCCMNC struct {
	MCCMNC string `json:"mccmnc"`
	MCC    string `json:"mcc"`
	MNC    string `json:"mnc"`
	// CountryCode is the ISO 3166-1 alpha-2 code of the network's home
	// country; CountryName and CountryPrefix are null when the numbering
	// plan does not know that country.
	CountryCode   string  `json:"country_code"`
	CountryName   *string `json:"country_name"`
	CountryPrefix *string `json:"country_prefix"`
	// CountryCodes are every country whose networks list the code, home
	// first (a network that serves several territories).
	CountryCodes []string `json:"country_codes"`
	// NetworkName is the name results give the network as a ported or
	// roaming network, and the report pages' network filter (its brand,
	// else its operator); a number's original_network_name is the
	// carrier its number range names, which may differ. Brand and
	// Operator are the list's two names, null when it has none.
	NetworkName *string `json:"network_name"`
	Brand       *string `json:"brand"`
	Operator    *string `json:"operator"`
}

// MNPCoverage is the response of GET /mnp-coverage: per country, the
// portability (MNP) routes whose coverage data scores one of its networks,
// with the backends that answer each route.
type MNPCoverage struct {
	Countries []MNPCountry `json:"countries"`
}

// MNPCountry is one country of GET /mnp-coverage.
type MNPCountry struct {
	CountryCode   string     `json:"country_code"`
	CountryName   *string    `json:"country_name"`
	CountryPrefix *string    `json:"country_prefix"`
	Routes        []MNPRoute `json:"routes"`
}

// MNPRoute is one portability route of a country in GET /mnp-coverage.
type MNPRoute struct {
	Route string `json:"route"`
	Name  string `json:"name"`
	// Networks are the MCCMNCs of the country that the route's coverage
	// scores above 0; Score is the best of their scores (0 to 100).
	Networks []string `json:"networks"`
	Score    int      `json:"score"`
	// Backends answer the route's lookups, in the order they are tried.
	Backends []MNPBackend `json:"backends"`
}

// MNPBackend is a portability backend of a route in GET /mnp-coverage.
type MNPBackend struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// State is ok, failing or open (its circuit is open: lookups skip it),
	// as GET /healthz reports it.
	State string `json:"state"`
}
