package apiv2

import (
	"strconv"

	"github.com/numenhq/numen/numbering/textfmt"
)

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
