package routing

import "strconv"

// AppendJSON appends the decision as the API's route decision object
// (GET /route): route, confidence_level, mccmnc and origin, with null for
// an unknown MCCMNC and for the origin of a static route.
func (d Decision) AppendJSON(b []byte) []byte {
	b = append(b, `{"route":`...)
	b = strconv.AppendQuote(b, d.Route)
	b = append(b, `,"confidence_level":"`...)
	b = append(b, d.Confidence.String()...)
	b = append(b, `","mccmnc":`...)
	b = appendNullable(b, d.MCCMNC)
	b = append(b, `,"origin":`...)
	b = appendNullable(b, d.Origin.String())
	return append(b, '}')
}

// MarshalJSON implements json.Marshaler with AppendJSON.
func (d Decision) MarshalJSON() ([]byte, error) { return d.AppendJSON(make([]byte, 0, 96)), nil }

// appendNullable appends s quoted, or null when empty. Decisions hold only
// route identifiers (printable ASCII: Coverage checks them), origin names
// and MCCMNC digits, for which strconv.AppendQuote writes valid JSON.
func appendNullable(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return strconv.AppendQuote(b, s)
}
