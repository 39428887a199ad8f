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
// Classify (numen_classify, numen_classify_in), words:
//
//	0      flags (flag* below)
//	1      number type (numbering.Type)
//	2      invalid reason (numbering.Reason)
//	3, 4   the number in E.164, when parsed (flagParsed); else the input stands
//	       (flagE164Input: it is the input, byte for byte)
//	5, 6   mccmnc      7, 8   original network name
//	9, 10  country name    11, 12 country code    13, 14 country prefix
//	15, 16 info text
//	17, 18 regions: count, identity (flagRegions: not null)
//	19, 20 time zones: count, identity (flagZones: not null)
//	21, 22 international format    23, 24 national format (valid numbers)
//	25 ... the regions' strings, then the time zones', as pairs
//
// A list's identity is the address of its backing array in the plan, the
// same for every answer that shares the list: numen.mjs caches the list's
// array by it.
//
// Check (numen_check, numen_check_in), words: 0 state (numbering.InputState), 1 reason,
// 2 types (numbering.TypeSet), 3 longer (0 or 1), 4 calling code, 5 region
// count k, 6 the region set (Progress.RegionSet: with the calling code, the
// identity of the list), then k region codes as pairs.
const (
	flagValid      = 1 << 0
	flagFailed     = 1 << 1 // query_status FAILED
	flagPorted     = 1 << 2 // is_possibly_ported (known when valid)
	flagVanity     = 1 << 3 // is_vanity_number (known when the status is OK)
	flagHLR        = 1 << 4 // qualifies_for_hlr_lookup (known when the status is OK)
	flagParsed     = 1 << 5
	flagRegions    = 1 << 6
	flagZones      = 1 << 7
	flagE164Input  = 1 << 8 // the E.164 form is the input as given
	maxListStrings = 64     // a list longer than this is cut (the longest, +1's zones, has 42)
	e164At         = ioSize - 64
	formatsAt      = e164At - 2*formatRoom // the international format, then the national one
	formatRoom     = 64                    // more than any formatted number takes
)

// words is the exchange buffer as words (wasm is little-endian).
var words = (*[ioSize / 4]uint32)(unsafe.Pointer(&ioWords))

// addr returns the address of a string's bytes, 0 for "".
func addr(s string) uint32 {
	if s == "" {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.StringData(s))))
}

func boolFlag(v bool, f uint32) uint32 {
	if v {
		return f
	}
	return 0
}

// writeResult writes a classification's record and returns its length in
// bytes. (Written word by word, without helper calls: a call costs Go's
// wasm code more than the store it makes.)
func writeResult(r *numbering.Result) int32 {
	// The E.164 text goes to the buffer's end, past any record; when it is
	// the input as given (which the record is about to overwrite), the
	// JavaScript side returns its own string instead of making one.
	var e164 []byte
	same := false
	if !r.Number.IsZero() {
		e164 = r.Number.AppendTo(io[e164At:e164At])
		same = string(e164) == r.Input
	}
	w := words
	w[0] = boolFlag(r.Valid, flagValid) | boolFlag(r.Status == numbering.StatusFailed, flagFailed) |
		boolFlag(r.PossiblyPorted, flagPorted) | boolFlag(r.Number.IsVanity(), flagVanity) |
		boolFlag(r.QualifiesForHLR, flagHLR) | boolFlag(!r.Number.IsZero(), flagParsed) |
		boolFlag(r.Regions != nil, flagRegions) | boolFlag(r.Timezones != nil, flagZones) |
		boolFlag(same, flagE164Input)
	w[1], w[2] = uint32(r.Type), uint32(r.Reason)
	w[3], w[4] = 0, 0
	if e164 != nil {
		w[3], w[4] = uint32(uintptr(unsafe.Pointer(&io[e164At]))), uint32(len(e164))
	}
	w[5], w[6] = addr(r.MCCMNC), uint32(len(r.MCCMNC))
	w[7], w[8] = addr(r.Network), uint32(len(r.Network))
	w[9], w[10] = addr(r.CountryName), uint32(len(r.CountryName))
	w[11], w[12] = addr(r.CountryCode), uint32(len(r.CountryCode))
	w[13], w[14] = addr(r.CountryPrefix), uint32(len(r.CountryPrefix))
	w[15], w[16] = addr(r.Info), uint32(len(r.Info))
	for i, style := range [2]numbering.Style{numbering.International, numbering.National} {
		at := formatsAt + i*formatRoom
		w[21+2*i], w[22+2*i] = 0, 0
		if b, ok := r.AppendFormat(io[at:at:at+formatRoom], style); ok && len(b) > 0 && &b[0] == &io[at] {
			w[21+2*i], w[22+2*i] = uint32(uintptr(unsafe.Pointer(&io[at]))), uint32(len(b))
		}
	}
	regions, zones := r.Regions[:min(len(r.Regions), maxListStrings)], r.Timezones[:min(len(r.Timezones), maxListStrings)]
	w[17], w[18] = uint32(len(regions)), uint32(uintptr(unsafe.Pointer(unsafe.SliceData(r.Regions))))
	w[19], w[20] = uint32(len(zones)), uint32(uintptr(unsafe.Pointer(unsafe.SliceData(r.Timezones))))
	n := 25
	for _, s := range regions {
		w[n], w[n+1] = addr(s), uint32(len(s))
		n += 2
	}
	for _, s := range zones {
		w[n], w[n+1] = addr(s), uint32(len(s))
		n += 2
	}
	return int32(4 * n)
}

// writeProgress writes a Check's record and returns its length in bytes.
func writeProgress(pr *numbering.Progress) int32 {
	var buf [32]string
	regions := pr.AppendRegions(buf[:0])
	w := words
	w[0], w[1], w[2], w[3], w[4], w[5], w[6] = uint32(pr.State), uint32(pr.Reason), uint32(pr.Types), boolFlag(pr.Longer, 1), uint32(pr.CallingCode), uint32(len(regions)), pr.RegionSet()
	n := 7
	for _, s := range regions {
		w[n], w[n+1] = addr(s), uint32(len(s))
		n += 2
	}
	return int32(4 * n)
}
