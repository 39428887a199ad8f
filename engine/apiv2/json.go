package apiv2

import (
	"strconv"

	"github.com/numenhq/numen/numbering/textfmt"
)

// AppendJSON appends r as JSON to b and returns the extended buffer: the
// very bytes json.Marshal(r) writes (fields in declaration order under
// their tag names, null for nil pointers and slices, strings escaped as
// encoding/json escapes them, HTML characters included), without
// reflection. A nil r appends null, as json.Marshal does for a nil pointer.
// It allocates nothing when b has room; a typical result needs about
// 600 bytes. The engine encodes every NT result with it, once, for the
// caller and the sink alike; FuzzNTResultAppendJSON holds it to
// json.Marshal.
func (r *NTResult) AppendJSON(b []byte) []byte {
	if r == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"id":`...)
	b = textfmt.AppendJSONString(b, r.ID)
	b = append(b, `,"number":`...)
	b = textfmt.AppendJSONString(b, r.Number)
	b = append(b, `,"number_type":`...)
	b = textfmt.AppendJSONString(b, r.NumberType)
	b = append(b, `,"query_status":`...)
	b = textfmt.AppendJSONString(b, r.QueryStatus)
	b = append(b, `,"is_valid":`...)
	b = appendNullableBool(b, r.IsValid)
	b = append(b, `,"invalid_reason":`...)
	b = appendNullableString(b, r.InvalidReason)
	b = append(b, `,"is_possibly_ported":`...)
	b = appendNullableBool(b, r.IsPossiblyPorted)
	b = append(b, `,"is_vanity_number":`...)
	b = appendNullableBool(b, r.IsVanityNumber)
	b = append(b, `,"qualifies_for_hlr_lookup":`...)
	b = appendNullableBool(b, r.QualifiesForHLRLookup)
	b = append(b, `,"mccmnc":`...)
	b = appendNullableString(b, r.MCCMNC)
	b = append(b, `,"mcc":`...)
	b = appendNullableString(b, r.MCC)
	b = append(b, `,"mnc":`...)
	b = appendNullableString(b, r.MNC)
	b = append(b, `,"original_network_name":`...)
	b = appendNullableString(b, r.OriginalNetworkName)
	b = append(b, `,"original_country_name":`...)
	b = appendNullableString(b, r.OriginalCountryName)
	b = append(b, `,"original_country_code":`...)
	b = appendNullableString(b, r.OriginalCountryCode)
	b = append(b, `,"original_country_prefix":`...)
	b = appendNullableString(b, r.OriginalCountryPrefix)
	b = append(b, `,"regions":`...)
	b = appendStrings(b, r.Regions)
	b = append(b, `,"timezones":`...)
	b = appendStrings(b, r.Timezones)
	b = append(b, `,"info_text":`...)
	b = appendNullableString(b, r.InfoText)
	b = append(b, `,"international_format":`...)
	b = appendNullableString(b, r.InternationalFormat)
	b = append(b, `,"national_format":`...)
	b = appendNullableString(b, r.NationalFormat)
	b = append(b, `,"cost":`...)
	b = appendNullableString(b, r.Cost)
	b = append(b, `,"timestamp":`...)
	b = appendNullableString(b, r.Timestamp)
	b = append(b, `,"storage":`...)
	b = appendNullableString(b, r.Storage)
	b = append(b, `,"route":`...)
	b = appendNullableString(b, r.Route)
	return append(b, '}')
}

func appendNullableString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return textfmt.AppendJSONString(b, *s)
}

func appendNullableBool(b []byte, v *bool) []byte {
	switch {
	case v == nil:
		return append(b, "null"...)
	case *v:
		return append(b, "true"...)
	default:
		return append(b, "false"...)
	}
}

// appendStrings writes a nil slice as null and an empty one as [], as
// encoding/json does.
func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = textfmt.AppendJSONString(b, s)
	}
	return append(b, ']')
}

// AppendJSON appends the receipt as JSON to b and returns the extended
// buffer: the bytes json.Marshal(r) writes, without reflection and without
// an error, so that a bulk submission's receipt is encoded before anything
// is queued or charged (package engine/bulk). A nil r appends null.
func (r *Receipt) AppendJSON(b []byte) []byte {
	if r == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"accepted":`...)
	b = appendSubmitted(b, r.Accepted)
	b = append(b, `,"accepted_count":`...)
	b = strconv.AppendInt(b, int64(r.AcceptedCount), 10)
	b = append(b, `,"rejected":`...)
	b = appendSubmitted(b, r.Rejected)
	b = append(b, `,"rejected_count":`...)
	b = strconv.AppendInt(b, int64(r.RejectedCount), 10)
	b = append(b, `,"total_count":`...)
	b = strconv.AppendInt(b, int64(r.TotalCount), 10)
	b = append(b, `,"cost":`...)
	b = textfmt.AppendJSONString(b, string(r.Cost))
	b = append(b, `,"storage":`...)
	b = textfmt.AppendJSONString(b, r.Storage)
	b = append(b, `,"route":`...)
	b = textfmt.AppendJSONString(b, r.Route)
	b = append(b, `,"webhook_urls":`...)
	b = appendStrings(b, r.WebhookURLs)
	return append(b, '}')
}

func appendSubmitted(b []byte, ss []Submitted) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = ss[i].AppendJSON(b)
	}
	return append(b, ']')
}
