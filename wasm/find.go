//go:build js && wasm

package main

// Numbers found in a text (numen.find).

import (
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/numenhq/numen/numbering"
)

// maxFindBytes bounds the text numen_find reads: the text is copied out of
// the exchange buffer, whose other half holds the answers.
const maxFindBytes = ioSize / 2

var (
	findText []byte            // the text of the last numen_find, kept while its matches are read
	found    []numbering.Match // its matches, with their offsets in UTF-16 code units
	found16  [][2]int32
)

// numen_find finds the numbers in the text of the buffer's first n bytes,
// read in the region of the m bytes after it (m < 0: international format
// only), at the leniency named by the l bytes after those, and returns
// their count; numen_find_match writes each. An unknown region or
// leniency fails, naming it, and so does a text over maxFindBytes.
//
//go:wasmexport numen_find
func numenFind(n, m, l int32) int32 {
	if !ready() {
		return fail(notReady)
	}
	if n < 0 || m < -1 || l < 0 || int64(n)+int64(max(m, 0))+int64(l) > ioSize {
		return fail("numen: input length out of range")
	}
	if n > maxFindBytes {
		return fail("numen.find: a text of " + itoa(int(n)) + " bytes (UTF-8) is too long: the limit is " + itoa(maxFindBytes))
	}
	region := inPlace(n, max(m, 0))
	lenient, err := numbering.ParseLeniency(inPlace(n+max(m, 0), l))
	if err != nil {
		return fail(err.Error())
	}
	findText = append(findText[:0], io[:n]...)
	text := unsafe.String(unsafe.SliceData(findText), len(findText))
	if n == 0 {
		text = ""
	}
	seq, err := plan.Find(text, region, lenient)
	if err != nil {
		return fail(err.Error())
	}
	found, found16 = found[:0], found16[:0]
	// Offsets in UTF-16 code units, as JavaScript indexes strings: counted
	// once over the text, the matches being in order.
	at, at16 := 0, 0
	to16 := func(b int) int32 {
		for at < b {
			c, size := utf8.DecodeRuneInString(text[at:])
			at += size
			at16 += utf16.RuneLen(c) // 2 above U+FFFF, else 1 (a TextEncoder's text is valid UTF-8)
		}
		return int32(at16)
	}
	for m := range seq {
		start := to16(m.Start)
		found = append(found, m)
		found16 = append(found16, [2]int32{start, to16(m.End)})
	}
	return int32(len(found))
}

// numen_find_match writes the i-th match of the last numen_find: the
// record of its classification (as numen_classify_in writes it) followed
// by two words, its start and end in UTF-16 code units.
//
//go:wasmexport numen_find_match
func numenFindMatch(i int32) int32 {
	if i < 0 || int(i) >= len(found) {
		return fail("numen: no match " + itoa(int(i)))
	}
	k := writeResult(&found[i].Result) / 4
	words[k], words[k+1] = uint32(found16[i][0]), uint32(found16[i][1])
	return 4 * (k + 2)
}
