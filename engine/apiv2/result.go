package apiv2

import "github.com/numenhq/numen/numbering"

// Result is the result object of one lookup: *HLRResult, *MNPResult or
// *NTResult, and no other type (the interface is sealed), so that a result
// of the wrong kind, or something that is not a result, cannot be handed
// on where a result is expected (engine.Record, a sink).
type Result interface {
	// Product returns the product of the lookup that answers with this
	// object: "HLR", "MNP" or "NT" (routing.Product's values).
	Product() string
	// AppendJSON appends the result as json.Marshal writes it.
	AppendJSON(b []byte) []byte
	// File sets the route, cost, timestamp and report of the result: what
	// a lookup fills when it finishes.
	File(f Filing)
	sealed()
}

// Filing is what a finished lookup files its result under. Empty strings
// are null, but for Timestamp: an empty one keeps the result's own (an
// answer from the cache keeps the time it was looked up).
type Filing struct {
	// Route is the route the lookup took; "" when it took none.
	Route string
	// Cost is what the lookup was charged, as the API writes it ("0.0100").
	Cost string
	// Timestamp is when the lookup completed, as the API writes it.
	Timestamp string
	// Storage is the name of the report the result goes to, with month.
	Storage string
}

// NumberOf returns the number a result names: E.164 when it parsed, else
// the input as given.
func NumberOf(res *numbering.Result) string {
	if res.Number.IsZero() {
		return res.Input
	}
	return res.Number.String()
}

// Network is one network group of a result: the original_*, ported_* or
// roaming_* attributes. Empty strings are null.
type Network struct {
	Name          string // *_network_name
	CountryName   string // *_country_name
	CountryCode   string // *_country_code, ISO 3166-1 alpha-2
	CountryPrefix string // *_country_prefix, "+49"
}

// OriginalNetwork returns the network that the numbering plan assigns a
// number to (the original_* group), named by name: the classification's
// network, or the one its MCCMNC names, which the caller looks up.
func OriginalNetwork(res *numbering.Result, name string) Network {
	return Network{Name: name, CountryName: res.CountryName, CountryCode: res.CountryCode, CountryPrefix: res.CountryPrefix}
}

// NetworkIn returns the network group of a network named name in country.
func NetworkIn(name string, country numbering.Country) Network {
	return Network{Name: name, CountryName: country.Name, CountryCode: country.Code, CountryPrefix: country.Prefix}
}

// fields returns the four fields of a group: name, country name, code
// and prefix.
func (n Network) fields() (name, country, code, prefix *string) {
	return String(n.Name), String(n.CountryName), String(n.CountryCode), String(n.CountryPrefix)
}

// mccmncFields returns mccmnc, and mcc and mnc from it ("" and a code
// shorter than five digits leave those null).
func mccmncFields(mccmnc string) (all, mcc, mnc *string) {
	if len(mccmnc) < 5 {
		return String(mccmnc), nil, nil
	}
	return String(mccmnc), String(mccmnc[:3]), String(mccmnc[3:])
}

// SetOriginal sets the original_* group.
func (r *HLRResult) SetOriginal(n Network) {
	r.OriginalNetworkName, r.OriginalCountryName, r.OriginalCountryCode, r.OriginalCountryPrefix = n.fields()
}

// SetPorted sets the ported_* group.
func (r *HLRResult) SetPorted(n Network) {
	r.PortedNetworkName, r.PortedCountryName, r.PortedCountryCode, r.PortedCountryPrefix = n.fields()
}

// SetRoaming sets the roaming_* group.
func (r *HLRResult) SetRoaming(n Network) {
	r.RoamingNetworkName, r.RoamingCountryName, r.RoamingCountryCode, r.RoamingCountryPrefix = n.fields()
}

// SetMCCMNC sets mccmnc, mcc and mnc.
func (r *HLRResult) SetMCCMNC(mccmnc string) { r.MCCMNC, r.MCC, r.MNC = mccmncFields(mccmnc) }

// File sets the route, cost, timestamp and report of the result (see
// Filing).
func (r *HLRResult) File(f Filing) {
	r.Route, r.Cost, r.Storage = String(f.Route), String(f.Cost), String(f.Storage)
	if f.Timestamp != "" {
		r.Timestamp = String(f.Timestamp)
	}
}

// Product returns "HLR".
func (*HLRResult) Product() string { return "HLR" }

func (*HLRResult) sealed() {}

// SetOriginal sets the original_* group.
func (r *MNPResult) SetOriginal(n Network) {
	r.OriginalNetworkName, r.OriginalCountryName, r.OriginalCountryCode, r.OriginalCountryPrefix = n.fields()
}

// SetPorted sets the ported_* group.
func (r *MNPResult) SetPorted(n Network) {
	r.PortedNetworkName, r.PortedCountryName, r.PortedCountryCode, r.PortedCountryPrefix = n.fields()
}

// SetMCCMNC sets mccmnc, mcc and mnc.
func (r *MNPResult) SetMCCMNC(mccmnc string) { r.MCCMNC, r.MCC, r.MNC = mccmncFields(mccmnc) }

// File sets the route, cost, timestamp and report of the result (see
// Filing).
func (r *MNPResult) File(f Filing) {
	r.Route, r.Cost, r.Storage = String(f.Route), String(f.Cost), String(f.Storage)
	if f.Timestamp != "" {
		r.Timestamp = String(f.Timestamp)
	}
}

// Product returns "MNP".
func (*MNPResult) Product() string { return "MNP" }

func (*MNPResult) sealed() {}
