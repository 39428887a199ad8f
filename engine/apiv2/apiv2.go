// Package apiv2 holds the wire types of Numen's lookup API, /api/v2: the
// request bodies and result objects of the API's specification with its
// field names, and Numen's decisions where the specification shows nothing
// (each documented on its type and in the OpenAPI document). The
// engine fills them, the HTTP adapter writes them, and the Go client
// (package mnp/remote) reads them, so the three cannot drift apart.
//
// Nullable fields are pointers (nil is JSON null); every field is always
// written, null or not, as the spec's examples do. Use [String], [Bool] and
// [Int] to fill them.
//
// The result objects are one sealed type, [Result], each with its own
// encoder (AppendJSON, json.Marshal's bytes without reflection); the NT
// result is built from a classification here too ([NewNTResult]), and the
// network groups of HLR and MNP results from [Network] values, so that a
// new attribute is a change in one struct, its encoder and the OpenAPI
// document. The package imports nothing of Numen's but numbering (the
// classification an NT result is built from) and numbering/textfmt, whose
// AppendJSONString is the one JSON string encoder of every hand-written
// encoder.
package apiv2

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/numenhq/numen/numbering/textfmt"
)

// Base is the path under which every endpoint lives.
const Base = "/api/v2"

// String returns a pointer to s, or nil when s is "": the API writes
// unknown text as null.
func String(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Bool returns a pointer to b.
func Bool(b bool) *bool { return &b }

// Int returns a pointer to i.
func Int(i int) *int { return &i }

// Deref returns *s, or "" for nil.
func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// HLRLookupRequest is the body of POST /hlr-lookup (and, with the number
// under msisdn, of POST /mnp-lookup).
type HLRLookupRequest struct {
	MSISDN  string  `json:"msisdn"`
	Route   *string `json:"route,omitempty"`
	Storage *string `json:"storage,omitempty"`
	// Country is Numen's extension: the ISO 3166-1 alpha-2 code of the
	// country the number is written in (national format), nil for
	// international format only.
	Country *string `json:"country,omitempty"`
}

// MNPLookupRequest is the body of POST /mnp-lookup.
type MNPLookupRequest = HLRLookupRequest

// NTLookupRequest is the body of POST /nt-lookup.
type NTLookupRequest struct {
	Number  string  `json:"number"`
	Route   *string `json:"route,omitempty"`
	Storage *string `json:"storage,omitempty"`
	Country *string `json:"country,omitempty"` // as HLRLookupRequest's
}

// HLRLookupsRequest is the body of POST /hlr-lookups: up to 1000 numbers.
type HLRLookupsRequest struct {
	MSISDNs []string `json:"msisdns"`
	Route   *string  `json:"route,omitempty"`
	Storage *string  `json:"storage,omitempty"`
	Country *string  `json:"country,omitempty"` // as HLRLookupRequest's, for every number
}

// NTLookupsRequest is the body of POST /nt-lookups: up to 1000 numbers.
type NTLookupsRequest struct {
	Numbers []string `json:"numbers"`
	Route   *string  `json:"route,omitempty"`
	Storage *string  `json:"storage,omitempty"`
	Country *string  `json:"country,omitempty"` // as HLRLookupRequest's, for every number
}

// HLRResult is the HLR lookup result: the response of POST /hlr-lookup and
// an element of HLR webhook batches.
type HLRResult struct {
	ID                    string  `json:"id"`
	MSISDN                string  `json:"msisdn"`
	ConnectivityStatus    string  `json:"connectivity_status"`
	MCCMNC                *string `json:"mccmnc"`
	MCC                   *string `json:"mcc"`
	MNC                   *string `json:"mnc"`
	IMSI                  *string `json:"imsi"`
	MSIN                  *string `json:"msin"`
	MSC                   *string `json:"msc"`
	OriginalNetworkName   *string `json:"original_network_name"`
	OriginalCountryName   *string `json:"original_country_name"`
	OriginalCountryCode   *string `json:"original_country_code"`
	OriginalCountryPrefix *string `json:"original_country_prefix"`
	IsPorted              *bool   `json:"is_ported"`
	PortedNetworkName     *string `json:"ported_network_name"`
	PortedCountryName     *string `json:"ported_country_name"`
	PortedCountryCode     *string `json:"ported_country_code"`
	PortedCountryPrefix   *string `json:"ported_country_prefix"`
	IsRoaming             *bool   `json:"is_roaming"`
	RoamingNetworkName    *string `json:"roaming_network_name"`
	RoamingCountryName    *string `json:"roaming_country_name"`
	RoamingCountryCode    *string `json:"roaming_country_code"`
	RoamingCountryPrefix  *string `json:"roaming_country_prefix"`
	Cost                  *string `json:"cost"`
	Timestamp             *string `json:"timestamp"`
	Storage               *string `json:"storage"`
	Route                 *string `json:"route"`
	ProcessingStatus      string  `json:"processing_status"`
	ErrorCode             *int    `json:"error_code"`
	ErrorDescription      *string `json:"error_description"`
	DataSource            string  `json:"data_source"`
	RoutingInstruction    string  `json:"routing_instruction"`
	// Cached marks an answer served from the result cache (not charged
	// again); an addition to the spec's fields.
	Cached bool `json:"cached"`
}

// MNPResult is the response of POST /mnp-lookup: Numen's fields (the API's
// specification shows none for it), plus processing_status and error_description as in HLR results,
// so that a client tells a rejected lookup (no charge) from a completed one
// without a table of codes.
type MNPResult struct {
	ID                    string  `json:"id"`
	MSISDN                string  `json:"msisdn"`
	QueryStatus           string  `json:"query_status"`
	MCCMNC                *string `json:"mccmnc"`
	MCC                   *string `json:"mcc"`
	MNC                   *string `json:"mnc"`
	IsPorted              *bool   `json:"is_ported"`
	OriginalNetworkName   *string `json:"original_network_name"`
	OriginalCountryName   *string `json:"original_country_name"`
	OriginalCountryCode   *string `json:"original_country_code"`
	OriginalCountryPrefix *string `json:"original_country_prefix"`
	PortedNetworkName     *string `json:"ported_network_name"`
	PortedCountryName     *string `json:"ported_country_name"`
	PortedCountryCode     *string `json:"ported_country_code"`
	PortedCountryPrefix   *string `json:"ported_country_prefix"`
	Extra                 *string `json:"extra"`
	Cost                  *string `json:"cost"`
	Timestamp             *string `json:"timestamp"`
	Storage               *string `json:"storage"`
	Route                 *string `json:"route"`
	ProcessingStatus      string  `json:"processing_status"`
	ErrorCode             *int    `json:"error_code"`
	ErrorDescription      *string `json:"error_description"`
	// Cached marks an answer served from the result cache (not charged
	// again); an addition to the MNP result's fields.
	Cached bool `json:"cached"`
}

// RouteDecision is the response of GET /route.
type RouteDecision struct {
	Route           string `json:"route"`
	ConfidenceLevel string `json:"confidence_level"`
	// MCCMNC is the number's network code from the numbering plan (or the
	// one a matching prefix rule names); "" when neither knows it, as for
	// most North American numbers. The spec makes it a string that is
	// never null.
	MCCMNC string `json:"mccmnc"`
	Origin string `json:"origin"`
}

// Routes is the response of GET /routes.
type Routes struct {
	Routes RouteLists `json:"routes"`
}

// RouteLists are the route identifiers of each product.
type RouteLists struct {
	HLR []string `json:"HLR"`
	MNP []string `json:"MNP"`
	NT  []string `json:"NT"`
}

// RoutingMap is the response of GET /routing-map. The map itself is kept as
// JSON: package routing reads it (routing.ParseMap) and writes it.
type RoutingMap struct {
	Routing struct {
		Map json.RawMessage `json:"map"`
	} `json:"routing"`
}

// Receipt is the response of the bulk endpoints, POST /hlr-lookups and
// POST /nt-lookups.
type Receipt struct {
	Accepted      []Submitted `json:"accepted"`
	AcceptedCount int         `json:"accepted_count"`
	Rejected      []Submitted `json:"rejected"`
	RejectedCount int         `json:"rejected_count"`
	TotalCount    int         `json:"total_count"`
	// Cost is written as a decimal string; reading accepts the bare number
	// of the spec's NT example too.
	Cost        Decimal  `json:"cost"`
	Storage     string   `json:"storage"`
	Route       string   `json:"route"`
	WebhookURLs []string `json:"webhook_urls"`
}

// Submitted is one number of a receipt. Its JSON key is msisdn in HLR
// receipts and number in NT receipts (set Key); ID is nil for rejected
// numbers.
type Submitted struct {
	ID     *string
	Number string
	// NT selects the key "number" instead of "msisdn".
	NT bool
}

// MarshalJSON writes {"id": ..., "msisdn"|"number": ...} with AppendJSON.
func (s Submitted) MarshalJSON() ([]byte, error) { return s.AppendJSON(make([]byte, 0, 64)), nil }

// AppendJSON appends {"id": ..., "msisdn"|"number": ...} to b, the number
// escaped as encoding/json escapes it (a rejected number is echoed as
// given, control characters and broken UTF-8 included).
func (s Submitted) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	if s.ID == nil {
		b = append(b, "null"...)
	} else {
		b = textfmt.AppendJSONString(b, *s.ID)
	}
	if s.NT {
		b = append(b, `,"number":`...)
	} else {
		b = append(b, `,"msisdn":`...)
	}
	b = textfmt.AppendJSONString(b, s.Number)
	return append(b, '}')
}

// UnmarshalJSON reads either key.
func (s *Submitted) UnmarshalJSON(b []byte) error {
	var w struct {
		ID     *string `json:"id"`
		MSISDN *string `json:"msisdn"`
		Number *string `json:"number"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	switch {
	case w.MSISDN != nil:
		*s = Submitted{ID: w.ID, Number: *w.MSISDN}
	case w.Number != nil:
		*s = Submitted{ID: w.ID, Number: *w.Number, NT: true}
	default:
		return errors.New("apiv2: submitted number without msisdn or number")
	}
	return nil
}

// Decimal is a cost in EUR as the API writes it: a decimal string such as
// "0.0100". It reads a JSON string or a bare JSON number.
type Decimal string

// MarshalJSON writes the decimal as a JSON string.
func (d Decimal) MarshalJSON() ([]byte, error) {
	return textfmt.AppendJSONString(make([]byte, 0, len(d)+2), string(d)), nil
}

// UnmarshalJSON accepts "0.01" and 0.01.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*d = Decimal(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("apiv2: cost is neither a decimal string nor a number")
	}
	*d = Decimal(n.String())
	return nil
}

// WebhookBatch is the body of a webhook delivery: {"type": "HLR"|"NT",
// "results": [...]}, at most 1000 results.
type WebhookBatch struct {
	Type    string          `json:"type"`
	Results json.RawMessage `json:"results"`
}

// ErrorBody is the body of every response that is not 200.
type ErrorBody struct {
	Errors []string `json:"errors"`
}

// Time is the response of GET /time.
type Time struct {
	Time int64 `json:"time"`
}

// AuthTest is the response of GET /auth-test.
type AuthTest struct {
	Success bool `json:"success"`
}
