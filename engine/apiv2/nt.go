package apiv2

import (
	"unsafe"

	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/textfmt"
)

// This file is the NT result whole: its attributes (NTResult), how a
// classification fills them (NewNTResult) and its encoder (AppendJSON). A
// new attribute is a field here, a line in each of the two functions, and
// its description in the OpenAPI document.

// NTResult is the NT lookup result with the documented attribute names: the
// response of POST /nt-lookup and an element of NT webhook batches.
type NTResult struct {
	ID                    string   `json:"id"`
	Number                string   `json:"number"`
	NumberType            string   `json:"number_type"`
	QueryStatus           string   `json:"query_status"`
	IsValid               *bool    `json:"is_valid"`
	InvalidReason         *string  `json:"invalid_reason"`
	IsPossiblyPorted      *bool    `json:"is_possibly_ported"`
	IsVanityNumber        *bool    `json:"is_vanity_number"`
	QualifiesForHLRLookup *bool    `json:"qualifies_for_hlr_lookup"`
	MCCMNC                *string  `json:"mccmnc"`
	MCC                   *string  `json:"mcc"`
	MNC                   *string  `json:"mnc"`
	OriginalNetworkName   *string  `json:"original_network_name"`
	OriginalCountryName   *string  `json:"original_country_name"`
	OriginalCountryCode   *string  `json:"original_country_code"`
	OriginalCountryPrefix *string  `json:"original_country_prefix"`
	Regions               []string `json:"regions"`
	Timezones             []string `json:"timezones"`
	InfoText              *string  `json:"info_text"`
	// InternationalFormat and NationalFormat are the number as people
	// write it ("+49 30 1234567", "030 1234567"), null for a number that
	// is not valid: Numen's additions to the documented attributes.
	InternationalFormat *string `json:"international_format"`
	NationalFormat      *string `json:"national_format"`
	Cost                *string `json:"cost"`
	Timestamp           *string `json:"timestamp"`
	Storage             *string `json:"storage"`
	Route               *string `json:"route"`
}

// NewNTResult returns the NT result object of a classification, with the
// null rules of numbering.Result.AppendJSON, the lookup's id, and the
// route, cost, timestamp and report of f. The result and the values its
// nullable fields point to take one allocation.
func NewNTResult(res *numbering.Result, id string, f Filing) *NTResult {
	box := new(ntBox)
	box.fill(res)
	box.out.ID = id
	box.out.file(&box.v, f)
	return &box.out
}

// File sets the route, cost, timestamp and report of the result (see
// Filing).
func (r *NTResult) File(f Filing) { r.file(nil, f) }

func (r *NTResult) file(v *values, f Filing) {
	r.Route, r.Cost, r.Storage = v.str(f.Route), v.str(f.Cost), v.str(f.Storage)
	if f.Timestamp != "" {
		r.Timestamp = v.str(f.Timestamp)
	}
}

// Product returns "NT".
func (*NTResult) Product() string { return "NT" }

func (*NTResult) sealed() {}

// ntBox is an NT result with room for the values its pointers refer to.
type ntBox struct {
	out NTResult
	v   values
}

// fill sets the attributes that come from the classification.
func (b *ntBox) fill(res *numbering.Result) {
	out, v := &b.out, &b.v
	ok := res.Status == numbering.StatusOK
	*out = NTResult{
		Number:                NumberOf(res),
		NumberType:            res.Type.String(),
		QueryStatus:           res.Status.String(),
		IsValid:               v.bool(res.Valid),
		InvalidReason:         v.str(res.Reason.String()),
		MCCMNC:                v.str(res.MCCMNC),
		MCC:                   v.str(res.MCC()),
		MNC:                   v.str(res.MNC()),
		OriginalNetworkName:   v.str(res.Network),
		OriginalCountryName:   v.str(res.CountryName),
		OriginalCountryCode:   v.str(res.CountryCode),
		OriginalCountryPrefix: v.str(res.CountryPrefix),
		Regions:               res.Regions,
		Timezones:             res.Timezones,
		InfoText:              v.str(res.Info),
	}
	if res.Valid {
		out.IsPossiblyPorted = v.bool(res.PossiblyPorted)
		out.InternationalFormat = v.formatted(res, numbering.International)
		out.NationalFormat = v.formatted(res, numbering.National)
	}
	if ok {
		out.IsVanityNumber = v.bool(res.Number.IsVanity())
		out.QualifiesForHLRLookup = v.bool(res.QualifiesForHLR)
	}
}

// maxFormatted is room for a formatted number: a calling code, 17 digits
// and their punctuation take less.
const maxFormatted = 48

// values holds the values that a result's nullable fields point to, so
// that a result and its values take one allocation instead of one each.
// The nil *values allocates each value apart (String, Bool), as does a
// full one.
type values struct {
	s       [16]string
	b       [4]bool
	formats [2][maxFormatted]byte // the bytes of the formatted numbers
	ns, nb  int
	nf      int
}

// formatted is the number of res in style, kept in v; nil when it has no
// format (a plan without number formats).
func (v *values) formatted(res *numbering.Result, style numbering.Style) *string {
	if v == nil || v.nf == len(v.formats) {
		b, ok := res.AppendFormat(nil, style)
		if !ok {
			return nil
		}
		return v.str(string(b))
	}
	buf := &v.formats[v.nf]
	b, ok := res.AppendFormat(buf[:0], style)
	if !ok {
		return nil
	}
	v.nf++
	if len(b) > 0 && &b[0] != &buf[0] { // longer than the room: appended elsewhere
		return v.str(string(b))
	}
	// The string shares v's bytes, which nothing writes again: v lives as
	// long as the result that points into it.
	return v.str(unsafe.String(&buf[0], len(b)))
}

// str is String(s), kept in v.
func (v *values) str(s string) *string {
	if s == "" {
		return nil
	}
	if v == nil || v.ns == len(v.s) {
		p := new(string) // here, not String: its s would be moved to the heap on every call
		*p = s
		return p
	}
	p := &v.s[v.ns]
	v.ns++
	*p = s
	return p
}

// bool is Bool(b), kept in v.
func (v *values) bool(b bool) *bool {
	if v == nil || v.nb == len(v.b) {
		p := new(bool)
		*p = b
		return p
	}
	p := &v.b[v.nb]
	v.nb++
	*p = b
	return p
}

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
