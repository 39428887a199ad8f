// Package facts reads what the stores keep of a result besides its
// object: its number and the value of each of engine/store's Fields (Facts),
// from the result value (Of, when a result is recorded) or from its JSON
// (FromJSON: the SQLite store's results log and both stores' migrations),
// and the day a summary counts it under (Day). Plumbing of the store
// drivers and engine/store/internal/core; engine/store's Entry carries the
// Facts of a result.
package facts

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
)

// ErrInvalid is engine/store's ErrInvalidRecord (the same value), which
// FromJSON's errors wrap.
var ErrInvalid = errors.New("invalid record")

// MaxLen bounds the characters of a fact a store keeps (a longer value is
// cut): the values are codes, numbers and short names, and each is in an
// index. engine/store's Query.Check refuses longer values.
const MaxLen = 100

// Facts are what a store keeps of a result besides its object: its number
// and the value of each field (engine/store's Field), with the names the
// result gives the country and the network (the labels of a summary).
type Facts struct {
	// Number is the number looked up: msisdn (HLR, MNP) or number (NT),
	// as the result has it (E.164 when it was valid).
	Number                                             string
	Status, Connectivity, NumberType, Country, Network string
	// Valid is an NT result's is_valid, "true" or "false" ("" for HLR
	// and MNP); InvalidReason its invalid_reason; Route the route that
	// answered the lookup (any product), as the result names it.
	Valid, InvalidReason, Route string
	CountryName, NetworkName    string
}

// fromJSON is the part of the three products' result objects that Facts
// are read from.
type fromJSON struct {
	Number             string  `json:"number"`
	MSISDN             string  `json:"msisdn"`
	QueryStatus        string  `json:"query_status"`
	ProcessingStatus   string  `json:"processing_status"`
	ConnectivityStatus string  `json:"connectivity_status"`
	NumberType         string  `json:"number_type"`
	CountryCode        *string `json:"original_country_code"`
	CountryName        *string `json:"original_country_name"`
	MCCMNC             *string `json:"mccmnc"`
	NetworkName        *string `json:"original_network_name"`
	IsValid            *bool   `json:"is_valid"`
	InvalidReason      *string `json:"invalid_reason"`
	Route              *string `json:"route"`
}

// FromJSON reads the facts of a result object of product p, as the API
// wrote it: the facts Of takes from the result value. Its errors wrap
// ErrInvalid.
func FromJSON(p engine.Product, result []byte) (Facts, error) {
	var j fromJSON
	if err := json.Unmarshal(result, &j); err != nil {
		return Facts{}, fmt.Errorf("%w: the %s result object: %w", ErrInvalid, p, err)
	}
	f := Facts{Country: str(j.CountryCode), CountryName: str(j.CountryName), Network: str(j.MCCMNC), NetworkName: str(j.NetworkName),
		Route: str(j.Route)}
	switch p {
	case engine.ProductHLR:
		f.Number, f.Status, f.Connectivity = j.MSISDN, j.ProcessingStatus, j.ConnectivityStatus
	case engine.ProductMNP:
		f.Number, f.Status = j.MSISDN, j.ProcessingStatus
	case engine.ProductNT:
		f.Number, f.Status, f.NumberType = j.Number, j.QueryStatus, j.NumberType
		f.Valid, f.InvalidReason = valid(j.IsValid), str(j.InvalidReason)
	default:
		return Facts{}, fmt.Errorf("%w: product %q: want HLR, MNP or NT", ErrInvalid, p)
	}
	return f.finish(), nil
}

// Of returns the facts of a result (not nil: engine/store's EntryOf checks
// it): what FromJSON reads from its JSON.
func Of(v apiv2.Result) Facts {
	var f Facts
	switch r := v.(type) {
	case *apiv2.HLRResult:
		f = Facts{Number: r.MSISDN, Status: r.ProcessingStatus, Connectivity: r.ConnectivityStatus,
			Country: str(r.OriginalCountryCode), CountryName: str(r.OriginalCountryName), Network: str(r.MCCMNC), NetworkName: str(r.OriginalNetworkName), Route: str(r.Route)}
	case *apiv2.MNPResult:
		f = Facts{Number: r.MSISDN, Status: r.ProcessingStatus,
			Country: str(r.OriginalCountryCode), CountryName: str(r.OriginalCountryName), Network: str(r.MCCMNC), NetworkName: str(r.OriginalNetworkName), Route: str(r.Route)}
	case *apiv2.NTResult:
		f = Facts{Number: r.Number, Status: r.QueryStatus, NumberType: r.NumberType,
			Country: str(r.OriginalCountryCode), CountryName: str(r.OriginalCountryName), Network: str(r.MCCMNC), NetworkName: str(r.OriginalNetworkName), Route: str(r.Route),
			Valid: valid(r.IsValid), InvalidReason: str(r.InvalidReason)}
	}
	return f.finish()
}

// finish cuts the values to MaxLen and drops the name of a country or
// network without a code: the summaries name values, and results without
// a code are one value ("") whatever name some of them carry (a network
// name without an MCCMNC).
func (f Facts) finish() Facts {
	f.Number, f.Status, f.Connectivity, f.NumberType = cut(f.Number), cut(f.Status), cut(f.Connectivity), cut(f.NumberType)
	if f.Country == "" {
		f.CountryName = ""
	}
	if f.Network == "" {
		f.NetworkName = ""
	}
	return f
}

// valid is the Valid fact of an is_valid: "true", "false", or "" when
// the result has none.
func valid(b *bool) string {
	switch {
	case b == nil:
		return ""
	case *b:
		return "true"
	}
	return "false"
}

// str is *s cut to MaxLen, "" for nil.
func str(s *string) string {
	if s == nil {
		return ""
	}
	return cut(*s)
}

// cut returns s, cut to MaxLen characters (runes), as the migrations'
// substr and left cut a value.
func cut(s string) string {
	if len(s) <= MaxLen {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxLen {
			return s[:i]
		}
		n++
	}
	return s
}

// DayField is the field name under which the stores keep a report's
// counts per day, beside engine/store's Fields.
const DayField = "day"

// Day returns the summary's day of a completion time in Unix
// milliseconds: its date in UTC, "2006-01-02".
func Day(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.DateOnly) }
