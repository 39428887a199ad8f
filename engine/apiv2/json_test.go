package apiv2

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// typicalNT is engine/testdata/nt_mobile.json: a valid German mobile number.
func typicalNT() *NTResult {
	return &NTResult{
		ID: "2rx2qtkeyecr", Number: "+4915123456789", NumberType: "MOBILE", QueryStatus: "OK",
		IsValid: Bool(true), IsPossiblyPorted: Bool(true), IsVanityNumber: Bool(false), QualifiesForHLRLookup: Bool(true),
		MCCMNC: String("26201"), MCC: String("262"), MNC: String("01"),
		OriginalNetworkName: String("T-Mobile"), OriginalCountryName: String("Germany"),
		OriginalCountryCode: String("DE"), OriginalCountryPrefix: String("+49"),
		Regions: []string{"Germany"}, Timezones: []string{"Europe/Berlin"},
		Cost: String("0.0010"), Timestamp: String("2026-11-22 10:04:05.678+0100"),
		Storage: String("ASYNC-API-NT-2026-11"), Route: String("NT1"),
	}
}

// every sets every field of NTResult to s (and the bools to v), by
// reflection, so that a field AppendJSON forgets, or one added to the
// struct later, shows.
func every(s string, v bool) *NTResult {
	r := new(NTResult)
	rv := reflect.ValueOf(r).Elem()
	for i := range rv.NumField() {
		switch f := rv.Field(i).Addr().Interface().(type) {
		case *string:
			*f = s
		case **string:
			*f = &s
		case **bool:
			*f = &v
		case *[]string:
			*f = []string{s, s}
		default:
			panic("every: field " + rv.Type().Field(i).Name + " of type " + rv.Field(i).Type().String())
		}
	}
	return r
}

func requireAsMarshal(t *testing.T, r *NTResult) {
	t.Helper()
	want, err := json.Marshal(r)
	require.NoError(t, err)
	require.Equal(t, string(want), string(r.AppendJSON(nil)))
	// Appending keeps what the buffer held.
	require.Equal(t, "x"+string(want), string(r.AppendJSON([]byte("x"))))
}

func TestNTResultAppendJSON(t *testing.T) {
	t.Parallel()
	tricky := []string{
		"",
		"plain",
		`quote " and backslash \ and slash /`,
		"<script>alert('x&y')</script>",
		"\x00\x01\x07\x1f control",
		"\b\f\n\r\t\v short escapes",
		"DEL \x7f",
		"line\u2028separator\u2029paragraph",
		"\u2027\u202a neighbours of U+2028",
		"héllo wörld 日本語 🇩🇪",
		"invalid \xff\xfe bytes",
		"truncated \xe2\x80",     // the start of U+2028, cut short
		"surrogate \xed\xa0\x80", // UTF-16 surrogates are invalid UTF-8
		"overlong \xc0\xaf",
		"\xf4\x90\x80\x80 beyond U+10FFFF",
		"\ufffd the replacement character itself",
		"ends with an escape <",
		"&",
	}
	for _, s := range tricky {
		requireAsMarshal(t, every(s, true))
		requireAsMarshal(t, every(s, false))
	}

	cases := map[string]*NTResult{
		"nil":           nil,
		"zero":          {},
		"typical":       typicalNT(),
		"empty slices":  {Regions: []string{}, Timezones: []string{}},
		"empty strings": {IsValid: Bool(false), InvalidReason: new(string), Regions: []string{""}},
		"failed": {ID: "2rx2qtkeyecr", Number: "hello", NumberType: "UNKNOWN", QueryStatus: "FAILED",
			IsValid: Bool(false), InvalidReason: String("not a number")},
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) { requireAsMarshal(t, r) })
	}

	// Every string of two bytes, each of them one of the interesting ASCII
	// bytes or a byte that starts, continues or cannot be in UTF-8.
	var interesting []byte
	for c := range 0x80 {
		interesting = append(interesting, byte(c))
	}
	interesting = append(interesting, 0x80, 0xbf, 0xc0, 0xc2, 0xe2, 0xed, 0xf0, 0xf4, 0xf5, 0xff)
	var sb strings.Builder
	for _, c := range interesting {
		for _, d := range interesting {
			sb.WriteByte(c)
			sb.WriteByte(d)
		}
	}
	requireAsMarshal(t, every(sb.String(), true))
}

func TestNTResultAppendJSONAllocs(t *testing.T) {
	r := every("<b>Rhein-Main & Umgebung</b>\n\u2028\xff", true)
	buf := make([]byte, 0, 4096)
	allocs := testing.AllocsPerRun(100, func() { buf = r.AppendJSON(buf[:0]) })
	require.Zero(t, allocs)
	typical := typicalNT()
	allocs = testing.AllocsPerRun(100, func() { buf = typical.AppendJSON(buf[:0]) })
	require.Zero(t, allocs)
}

var sinkBytes []byte

// BenchmarkNTResultJSON encodes engine/testdata/nt_mobile.json's result
// with json.Marshal, as the engine did, and with AppendJSON, as it does
// now: into a fresh buffer (one allocation, of the exact size, as the
// engine keeps it) and into a reused one.
func BenchmarkNTResultJSON(b *testing.B) {
	r := typicalNT()
	b.Run("Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if sinkBytes, err = json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var buf [1024]byte
			sinkBytes = bytes.Clone(r.AppendJSON(buf[:0]))
		}
	})
	b.Run("AppendJSONReused", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 1024)
		for b.Loop() {
			buf = r.AppendJSON(buf[:0])
		}
		sinkBytes = buf
	})
}

// typicalHLR is a completed HLR lookup of a ported number, as the engine
// answers it.
func typicalHLR() *HLRResult {
	return &HLRResult{
		ID: "2rx2qtkeyecr", MSISDN: "+4915123456789", ConnectivityStatus: "CONNECTED",
		MCCMNC: String("26203"), MCC: String("262"), MNC: String("03"),
		IMSI: String("26203*******4567"), MSIN: String("******4567"), MSC: String("491******000"),
		OriginalNetworkName: String("T-Mobile"), OriginalCountryName: String("Germany"),
		OriginalCountryCode: String("DE"), OriginalCountryPrefix: String("+49"),
		IsPorted: Bool(true), PortedNetworkName: String("Telefónica Germany GmbH & Co. OHG"),
		PortedCountryName: String("Germany"), PortedCountryCode: String("DE"), PortedCountryPrefix: String("+49"),
		IsRoaming: Bool(false), Cost: String("0.0100"), Timestamp: String("2026-11-22 10:04:05.678+0100"),
		Storage: String("SYNC-API-2026-11"), Route: String("DS7"), ProcessingStatus: "COMPLETED",
		DataSource: "LIVE_HLR", RoutingInstruction: "AUTO:DS7:SCORE",
	}
}

// BenchmarkHLRResultJSON encodes typicalHLR with json.Marshal, as the
// engine did, and with AppendJSON into a buffer on the stack copied out,
// as it does now.
func BenchmarkHLRResultJSON(b *testing.B) {
	r := typicalHLR()
	b.Run("Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if sinkBytes, err = json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var buf [1024]byte
			sinkBytes = bytes.Clone(r.AppendJSON(buf[:0]))
		}
	})
}

func TestHLRResultAppendJSONAllocs(t *testing.T) {
	r := typicalHLR()
	requireAsMarshalled(t, r)
	buf := make([]byte, 0, 2048)
	require.Zero(t, testing.AllocsPerRun(100, func() { buf = r.AppendJSON(buf[:0]) }))
}
