package routing

import "github.com/numenhq/numen/numbering/textfmt"

// AppendJSON appends the decision as the API's route decision object
// (GET /route): route, confidence_level, mccmnc and origin. The spec makes
// mccmnc a string that is never null: "" when neither the numbering plan
// nor a matching rule knows the network, as GET /route answers. A static
// route (Resolver.Static), which GET /route never gives, has origin null.
func (d Decision) AppendJSON(b []byte) []byte {
	b = append(b, `{"route":`...)
	b = textfmt.AppendJSONString(b, d.Route)
	b = append(b, `,"confidence_level":"`...)
	b = append(b, d.Confidence.String()...)
	b = append(b, `","mccmnc":`...)
	b = textfmt.AppendJSONString(b, d.MCCMNC)
	b = append(b, `,"origin":`...)
	b = appendJSONNullable(b, d.Origin.String())
	return append(b, '}')
}

// MarshalJSON implements json.Marshaler with AppendJSON.
func (d Decision) MarshalJSON() ([]byte, error) { return d.AppendJSON(make([]byte, 0, 96)), nil }
