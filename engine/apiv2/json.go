package apiv2

import "unicode/utf8"

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
	b = appendJSONString(b, r.ID)
	b = append(b, `,"number":`...)
	b = appendJSONString(b, r.Number)
	b = append(b, `,"number_type":`...)
	b = appendJSONString(b, r.NumberType)
	b = append(b, `,"query_status":`...)
	b = appendJSONString(b, r.QueryStatus)
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
	return appendJSONString(b, *s)
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
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// jsonSafe marks the ASCII bytes encoding/json writes as they are: not
// control characters, quote and backslash, nor <, > and &, which it
// escapes so that JSON can be embedded in HTML. DEL is written as is.
var jsonSafe = func() (safe [utf8.RuneSelf]bool) {
	for c := byte(' '); c < utf8.RuneSelf; c++ {
		safe[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return safe
}()

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a quoted JSON string exactly as
// json.Marshal writes a string: ", \ and the control characters \b, \f,
// \n, \r, \t by their short escapes, other control characters and <, >, &
// as \u00XX, U+2028 and U+2029 as \u2028 and \u2029 (they end lines in
// JavaScript), and each byte of invalid UTF-8 as \ufffd. Runs of bytes
// that need no escape are copied whole.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0 // s[start:i] is pending, to be copied as is
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
