//go:build js && wasm

package main

// The as-you-type formatters (numen.asYouType), and the countries of the
// plan (numen.getCountries).
//
// A formatter's state lives here, in a numbering.AsYouType, behind a
// handle: a keystroke is one call that appends the key and writes the
// field's text, without replaying what was typed before and without
// allocating. The module keeps at most maxFormatters of them; when a page
// makes more, the one used least recently is dropped, and its handle
// answers staleHandle: numen.mjs, which keeps what was typed, then makes a
// new one and types it again. numen.mjs frees a formatter's handle when its
// object is garbage collected (FinalizationRegistry).

import (
	"math"
	"unicode/utf8"

	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/textfmt"
)

const (
	// maxFormatters bounds the formatters the module keeps.
	maxFormatters = 1024
	// slotBits of a handle are the formatter's slot; the bits above them
	// its generation, which changes when the slot is reused, so that an
	// old handle never reaches another object's formatter.
	slotBits = 12
	// staleHandle is the answer for a handle whose formatter was dropped
	// (or freed): not an error message's negated length, which is never
	// this long.
	staleHandle = math.MinInt32
)

// formatter is a slot of the formatters' table.
type formatter struct {
	f    *numbering.AsYouType // nil: the slot is free
	gen  int32
	used uint64 // the tick of its last use, for dropping the least recently used
}

var (
	formatters []formatter
	tick       uint64
)

// formatterOf returns the formatter of a handle, or nil when the handle is
// stale or was never given.
func formatterOf(h int32) *numbering.AsYouType {
	if h < 0 {
		return nil
	}
	i := int(h & (1<<slotBits - 1))
	if i >= len(formatters) || formatters[i].f == nil || formatters[i].gen != h>>slotBits {
		return nil
	}
	tick++
	formatters[i].used = tick
	return formatters[i].f
}

// numen_ayt_new makes an as-you-type formatter for the region of the
// buffer's first m bytes ("" for input in international format only) and
// returns its handle; an unknown region fails, naming it.
//
//go:wasmexport numen_ayt_new
func numenAytNew(m int32) int32 {
	if !ready() {
		return fail(notReady)
	}
	if m < 0 || m > ioSize {
		return fail("numen: input length out of range")
	}
	// The region is copied: the formatter may keep it, and the buffer
	// is overwritten by the next call.
	f, err := plan.NewAsYouType(string(io[:m]))
	if err != nil {
		return fail(err.Error())
	}
	i := -1
	for j := range formatters {
		if formatters[j].f == nil {
			i = j
			break
		}
	}
	if i < 0 && len(formatters) < maxFormatters {
		formatters = append(formatters, formatter{})
		i = len(formatters) - 1
	}
	if i < 0 { // full: the least recently used goes
		i = 0
		for j := range formatters {
			if formatters[j].used < formatters[i].used {
				i = j
			}
		}
	}
	tick++
	s := &formatters[i]
	s.f, s.gen, s.used = f, (s.gen+1)&(math.MaxInt32>>slotBits), tick
	return s.gen<<slotBits | int32(i)
}

// numen_ayt_free drops the formatter of a handle; a stale handle is no
// error.
//
//go:wasmexport numen_ayt_free
func numenAytFree(h int32) {
	if formatterOf(h) != nil {
		formatters[h&(1<<slotBits-1)].f = nil
	}
}

// numen_ayt_input appends the characters of the buffer's first n bytes
// (UTF-8), one by one as if typed, to the formatter of a handle, and
// writes the text the field shows.
//
//go:wasmexport numen_ayt_input
func numenAytInput(h, n int32) int32 {
	f := formatterOf(h)
	if f == nil {
		return staleHandle
	}
	if n < 0 || n > ioSize {
		return fail("numen: input length out of range")
	}
	// The characters are read before the text is written: the text goes
	// to the buffer's start, over them, when the last one is in.
	for i := int32(0); i < n; {
		c, size := utf8.DecodeRune(io[i:n])
		f.Input(c)
		i += int32(size)
	}
	return int32(copy(io[:], f.Text()))
}

// numen_ayt_reset empties the formatter of a handle, as a new one is.
//
//go:wasmexport numen_ayt_reset
func numenAytReset(h int32) int32 {
	f := formatterOf(h)
	if f == nil {
		return staleHandle
	}
	f.Reset()
	return 0
}

// numen_ayt_check writes the check of what was typed (numbering's
// Progress) as numen_check's record.
//
//go:wasmexport numen_ayt_check
func numenAytCheck(h int32) int32 {
	f := formatterOf(h)
	if f == nil {
		return staleHandle
	}
	pr := f.Progress()
	return writeProgress(&pr)
}

// numen_ayt_number writes the number typed so far in E.164, or nothing
// when it does not parse yet.
//
//go:wasmexport numen_ayt_number
func numenAytNumber(h int32) int32 {
	f := formatterOf(h)
	if f == nil {
		return staleHandle
	}
	num, ok := f.Number()
	if !ok {
		return 0
	}
	return int32(len(num.AppendTo(io[:0])))
}

// numen_ayt_position maps a caret: with toRaw 0, the position in the
// field's text (in characters) after at typed characters; with toRaw 1,
// the number of typed characters before position at of the text.
//
//go:wasmexport numen_ayt_position
func numenAytPosition(h, at, toRaw int32) int32 {
	f := formatterOf(h)
	if f == nil {
		return staleHandle
	}
	if toRaw != 0 {
		return int32(f.RawPos(int(at)))
	}
	return int32(f.FormattedPos(int(at)))
}

// numen_countries writes the regions the plan dials, as JSON: {"DE": 49,
// ...}, ISO 3166-1 alpha-2 codes and their calling codes (numen.mjs's
// getCountries, getCountryCallingCode).
//
//go:wasmexport numen_countries
func numenCountries() int32 {
	if !ready() {
		return fail(notReady)
	}
	b := append(io[:0], '{')
	for cc := 1; cc < 1000; cc++ {
		for _, r := range plan.Regions(cc) {
			if r == "001" {
				continue
			}
			if len(b) > 1 {
				b = append(b, ',')
			}
			b = textfmt.AppendJSONString(b, r)
			b = append(b, ':')
			b = append(b, itoa(cc)...)
		}
	}
	b = append(b, '}')
	return int32(len(b))
}
