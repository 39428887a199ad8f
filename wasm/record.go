//go:build js && wasm

package main

import (
	"unsafe"

	"github.com/numenhq/numen/numbering"
)

// A result record is little-endian uint32 words at the start of the
// exchange buffer. Strings are (address, length) pairs in the module's
// memory; a length of 0 is null (the API has no empty strings). numen.mjs
// reads it; the two must change together.
//
// Classify (numen_classify), words:
//
//	0      flags (flag* below)
//	1      number type (numbering.Type)
//	2      invalid reason (numbering.Reason)
//	3, 4   the number in E.164, when parsed (flagParsed); else the input stands
//	5, 6   mccmnc      7, 8   original network name
//	9, 10  country name    11, 12 country code    13, 14 country prefix
//	15, 16 info text
//	17, 18 regions: count, identity (flagRegions: not null)
//	19, 20 time zones: count, identity (flagZones: not null)
//	21 ... the regions' strings, then the time zones', as pairs
//
// A list's identity is the address of its backing array in the plan, the
// same for every answer that shares the list: numen.mjs caches the list's
// array by it.
//
// Check (numen_check), words: 0 state (numbering.InputState), 1 reason,
// 2 types (numbering.TypeSet), 3 longer (0 or 1), 4 calling code, 5 region
// count k, then k region codes as pairs.
const (
	flagValid      = 1 << 0
	flagFailed     = 1 << 1 // query_status FAILED
	flagPorted     = 1 << 2 // is_possibly_ported (known when valid)
	flagVanity     = 1 << 3 // is_vanity_number (known when the status is OK)
	flagHLR        = 1 << 4 // qualifies_for_hlr_lookup (known when the status is OK)
	flagParsed     = 1 << 5
	flagRegions    = 1 << 6
	flagZones      = 1 << 7
	maxListStrings = 64 // a list longer than this is cut (the longest, +1's zones, has 42)
	e164At         = ioSize - 64
)

// rec writes words into the exchange buffer.
type rec struct{ n int }

func (w *rec) u32(v uint32) {
	b := io[4*w.n : 4*w.n+4]
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	w.n++
}

func (w *rec) str(s string) {
	if s == "" {
		w.u32(0)
		w.u32(0)
		return
	}
	w.u32(uint32(uintptr(unsafe.Pointer(unsafe.StringData(s)))))
	w.u32(uint32(len(s)))
}

func boolFlag(v bool, f uint32) uint32 {
	if v {
		return f
	}
	return 0
}

// writeResult writes a classification's record and returns its length in
// bytes.
func writeResult(r *numbering.Result) int32 {
	var w rec
	flags := boolFlag(r.Valid, flagValid) | boolFlag(r.Status == numbering.StatusFailed, flagFailed) |
		boolFlag(r.PossiblyPorted, flagPorted) | boolFlag(r.Number.IsVanity(), flagVanity) |
		boolFlag(r.QualifiesForHLR, flagHLR) | boolFlag(!r.Number.IsZero(), flagParsed) |
		boolFlag(r.Regions != nil, flagRegions) | boolFlag(r.Timezones != nil, flagZones)
	w.u32(flags)
	w.u32(uint32(r.Type))
	w.u32(uint32(r.Reason))
	if r.Number.IsZero() {
		w.str("")
	} else {
		// The E.164 text goes to the buffer's end, past any record.
		b := r.Number.AppendTo(io[e164At:e164At])
		w.u32(uint32(uintptr(unsafe.Pointer(&io[e164At]))))
		w.u32(uint32(len(b)))
	}
	w.str(r.MCCMNC)
	w.str(r.Network)
	w.str(r.CountryName)
	w.str(r.CountryCode)
	w.str(r.CountryPrefix)
	w.str(r.Info)
	regions, zones := r.Regions[:min(len(r.Regions), maxListStrings)], r.Timezones[:min(len(r.Timezones), maxListStrings)]
	w.u32(uint32(len(regions)))
	w.u32(uint32(uintptr(unsafe.Pointer(unsafe.SliceData(r.Regions)))))
	w.u32(uint32(len(zones)))
	w.u32(uint32(uintptr(unsafe.Pointer(unsafe.SliceData(r.Timezones)))))
	for _, s := range regions {
		w.str(s)
	}
	for _, s := range zones {
		w.str(s)
	}
	return int32(4 * w.n)
}

// writeProgress writes a Check's record and returns its length in bytes.
func writeProgress(pr *numbering.Progress) int32 {
	var w rec
	var buf [32]string
	regions := pr.AppendRegions(buf[:0])
	w.u32(uint32(pr.State))
	w.u32(uint32(pr.Reason))
	w.u32(uint32(pr.Types))
	w.u32(uint32(boolFlag(pr.Longer, 1)))
	w.u32(uint32(pr.CallingCode))
	w.u32(uint32(len(regions)))
	for _, s := range regions {
		w.str(s)
	}
	return int32(4 * w.n)
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
