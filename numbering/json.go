package numbering

import (
	"strconv"

	"github.com/numenhq/numen/numbering/textfmt"
)

// AppendJSON appends r as a JSON object with the API's NT attribute names
// (number, number_type, query_status, is_valid, invalid_reason,
// is_possibly_ported, is_vanity_number, qualifies_for_hlr_lookup, mccmnc,
// mcc, mnc, original_network_name, original_country_name,
// original_country_code, original_country_prefix, regions, timezones,
// info_text, and Numen's international_format and national_format) and
// returns the extended buffer. Unknown values are null.
// "number" is the E.164 form, or the input as given when it did not parse.
// The engine adds the lookup's id, cost, timestamp, storage and route.
func (r *Result) AppendJSON(b []byte) []byte {
	b = append(b, `{"number":`...)
	if r.Number.IsZero() {
		b = textfmt.AppendJSONString(b, r.Input)
	} else {
		b = append(b, '"')
		b = r.Number.AppendTo(b)
		b = append(b, '"')
	}
	b = append(b, `,"number_type":"`...)
	b = append(b, r.Type.String()...)
	b = append(b, `","query_status":"`...)
	b = append(b, r.Status.String()...)
	b = append(b, `","is_valid":`...)
	b = strconv.AppendBool(b, r.Valid)
	b = append(b, `,"invalid_reason":`...)
	b = appendNullable(b, r.Reason.String())
	ok := r.Status == StatusOK
	b = append(b, `,"is_possibly_ported":`...)
	b = appendNullableBool(b, r.PossiblyPorted, r.Valid)
	b = append(b, `,"is_vanity_number":`...)
	b = appendNullableBool(b, r.Number.IsVanity(), ok)
	b = append(b, `,"qualifies_for_hlr_lookup":`...)
	b = appendNullableBool(b, r.QualifiesForHLR, ok)
	b = append(b, `,"mccmnc":`...)
	b = appendNullable(b, r.MCCMNC)
	b = append(b, `,"mcc":`...)
	b = appendNullable(b, r.MCC())
	b = append(b, `,"mnc":`...)
	b = appendNullable(b, r.MNC())
	b = append(b, `,"original_network_name":`...)
	b = appendNullable(b, r.Network)
	b = append(b, `,"original_country_name":`...)
	b = appendNullable(b, r.CountryName)
	b = append(b, `,"original_country_code":`...)
	b = appendNullable(b, r.CountryCode)
	b = append(b, `,"original_country_prefix":`...)
	b = appendNullable(b, r.CountryPrefix)
	b = append(b, `,"regions":`...)
	b = appendStrings(b, r.Regions)
	b = append(b, `,"timezones":`...)
	b = appendStrings(b, r.Timezones)
	b = append(b, `,"info_text":`...)
	b = appendNullable(b, r.Info)
	b = append(b, `,"international_format":`...)
	b = r.appendFormatJSON(b, International)
	b = append(b, `,"national_format":`...)
	b = r.appendFormatJSON(b, National)
	return append(b, '}')
}

// appendFormatJSON appends the number in style as a JSON string, or null.
// Formatted numbers are digits, spaces and ASCII punctuation that JSON
// writes as they are.
func (r *Result) appendFormatJSON(b []byte, style Style) []byte {
	n := len(b)
	b = append(b, '"')
	b, ok := r.AppendFormat(b, style)
	if !ok {
		return append(b[:n], "null"...)
	}
	return append(b, '"')
}

// MarshalJSON implements json.Marshaler with AppendJSON.
func (r Result) MarshalJSON() ([]byte, error) { return r.AppendJSON(make([]byte, 0, 512)), nil }

func appendNullable(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return textfmt.AppendJSONString(b, s)
}

func appendNullableBool(b []byte, v, known bool) []byte {
	if !known {
		return append(b, "null"...)
	}
	return strconv.AppendBool(b, v)
}

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
