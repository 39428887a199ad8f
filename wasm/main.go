//go:build js && wasm

// Command wasm is Numen for web pages: the numbering plan and the route
// decisions of package routing, built with GOOS=js GOARCH=wasm into
// numen.wasm and used through the JavaScript module numen.mjs beside it
// (README.md in this directory documents the JavaScript API; go run
// ./wasm/build writes the package).
//
// The module has no plan built in (that would bring package embed and, with
// it, package time: 85 KB gzip): the page fetches the core plan (validity,
// type and country: go run ./data/gen -strip ...) and hands it over
// (numen_alloc, numen_open), then adds the networks, regions and time zones
// as packs when it shows them (numen_pack).
//
// The JavaScript side calls the functions this file exports (Go's
// wasmexport directive), not syscall/js callbacks, which cost tens of
// microseconds a call: it writes its input as UTF-8 into the exchange
// buffer (numen_io), calls, and reads the answer from the buffer. A result
// is a record of little-endian uint32 words (see record.go); strings in it
// are addresses and lengths in the module's memory, which the JavaScript
// side decodes once and caches until it opens a plan or adds a pack.
//
// The routing platform (the default rules and coverage, which route
// decisions need) is built when the first routing map is compiled, not
// when the plan opens: a page that only validates does not wait for it.
package main

import (
	"strings"
	"unsafe"

	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/textfmt"
	"github.com/numenhq/numen/routing"
)

// version is the program's version; the build command sets it with
// -ldflags "-X main.version=...".
var version = "devel"

// ioSize is the exchange buffer's size: room for an input of any length
// the API takes (numbering reads at most 250 bytes of a number, routing
// maps are larger) and for every answer.
const ioSize = 1 << 20

var (
	// io is the exchange buffer, over words so that it is aligned for the
	// JavaScript side's Uint32Array.
	ioWords [ioSize / 8]uint64
	io      = (*[ioSize]byte)(unsafe.Pointer(&ioWords))

	core      []byte   // the plan file (numen_open)
	packs     [][]byte // the packs taken, kept for the plan's life
	plan      *numbering.Plan
	platform  *routing.Platform   // built with the first routing map
	resolvers []*routing.Resolver // by handle (numen_route_map)
)

func main() {
	select {} // serve the exported functions until the page goes away
}

// numen_io returns the address of the exchange buffer.
//
//lint:ignore U1000 called from JavaScript
//go:wasmexport numen_io
func numenIO() int32 { return int32(uintptr(unsafe.Pointer(&io[0]))) }

// numen_io_size returns the size of the exchange buffer.
//
//lint:ignore U1000 called from JavaScript
//go:wasmexport numen_io_size
func numenIOSize() int32 { return ioSize }

// fail writes an error message into the buffer and returns its length,
// negated: the JavaScript side throws it as an Error.
func fail(msg string) int32 {
	n := copy(io[:], msg)
	return -int32(n)
}

// input returns the first n bytes of the buffer as a string, copied: the
// buffer is reused by the answer.
func input(n int32) (string, bool) {
	if n < 0 || n > ioSize {
		return "", false
	}
	return string(io[:n]), true
}

// ready reports whether a plan is open; the functions fail when not.
func ready() bool { return plan != nil }

const notReady = "numen: no numbering plan is open (numen_open)"

// numen_open opens the plan file written into the buffer of the last
// numen_alloc: the core plan, or a whole one. It replaces any plan and
// packs opened before; routing maps are compiled anew against it.
//
//go:wasmexport numen_open
func numenOpen() int32 {
	b := pending
	pending = nil
	if b == nil {
		return fail("numen: no plan was written")
	}
	p, err := numbering.OpenBytes(b)
	if err != nil {
		return fail(err.Error())
	}
	if msg := use(p); msg != "" {
		return fail(msg)
	}
	core, packs = b, nil
	return 0
}

// use makes p the plan, and compiles the routing maps anew against it (on
// a new platform, when there are maps); it returns an error message, or "".
func use(p *numbering.Plan) string {
	var pf *routing.Platform
	fresh := make([]*routing.Resolver, len(resolvers))
	if len(resolvers) > 0 {
		var err error
		if pf, err = routing.NewPlatform(p, nil, nil); err != nil {
			return err.Error()
		}
		for i, r := range resolvers {
			if fresh[i], err = pf.Resolver(r.Map()); err != nil {
				return err.Error()
			}
		}
	}
	plan, platform, resolvers = p, pf, fresh
	return ""
}

// numen_version writes the program's and the data's versions as JSON:
// {"program": ..., "data": ..., "packs": [...]}, the packs being the
// optional parts of the plan that are loaded ("networks", "regions",
// "timezones").
//
//go:wasmexport numen_version
func numenVersion() int32 {
	if !ready() {
		return fail(notReady)
	}
	b := io[:0]
	b = append(b, `{"program":`...)
	b = textfmt.AppendJSONString(b, version)
	b = append(b, `,"data":`...)
	b = textfmt.AppendJSONString(b, plan.Version().String())
	b = append(b, `,"packs":[`...)
	for i, name := range loadedPacks() {
		if i > 0 {
			b = append(b, ',')
		}
		b = textfmt.AppendJSONString(b, name)
	}
	b = append(b, "]}"...)
	return int32(len(b))
}

// loadedPacks names the optional parts the plan has, as the JavaScript API
// names its packs.
func loadedPacks() []string {
	sections := plan.Info().Sections
	var names []string
	for _, p := range []struct{ name, section string }{
		{"networks", "network ranges"}, {"regions", "geocoding"}, {"timezones", "time zones"},
	} {
		if strings.Contains(sections, p.section) {
			names = append(names, p.name)
		}
	}
	return names
}

// numen_tables writes, as JSON, the names the records' numbers stand for:
// {"types": [...], "reasons": [...], "states": [...]}, indexed by
// numbering.Type, numbering.Reason and numbering.InputState, so that
// numen.mjs holds no copy of them.
//
//go:wasmexport numen_tables
func numenTables() int32 {
	b := append(io[:0], `{"types":[`...)
	for i, t := range numbering.Types() {
		if i > 0 {
			b = append(b, ',')
		}
		b = textfmt.AppendJSONString(b, t.String())
	}
	b = append(b, `],"reasons":[`...)
	for i, r := range numbering.Reasons() {
		if i > 0 {
			b = append(b, ',')
		}
		b = textfmt.AppendJSONString(b, r.String())
	}
	b = append(b, `],"states":[`...)
	for i, st := range []numbering.InputState{numbering.Incomplete, numbering.Valid, numbering.Impossible} {
		if i > 0 {
			b = append(b, ',')
		}
		b = textfmt.AppendJSONString(b, st.String())
	}
	b = append(b, "]}"...)
	return int32(len(b))
}

// numen_classify classifies the number of the buffer's first n bytes and
// writes its record (record.go).
//
//go:wasmexport numen_classify
func numenClassify(n int32) int32 {
	if !ready() {
		return fail(notReady)
	}
	if n < 0 || n > ioSize {
		return fail("numen: input length out of range")
	}
	// The input is read in place: ClassifyString keeps no reference to it
	// beyond the Result, which is encoded before the buffer is written.
	s := unsafe.String(&io[0], int(n))
	if n == 0 {
		s = ""
	}
	res := plan.ClassifyString(s)
	return writeResult(&res)
}

// numen_classify_in classifies the number of the buffer's first n bytes
// as written or dialled in the region of the m bytes after it (an ISO
// 3166-1 alpha-2 code, numbering.Plan.ClassifyIn) and writes its record;
// an unknown region fails, naming it.
//
//go:wasmexport numen_classify_in
func numenClassifyIn(n, m int32) int32 {
	if !ready() {
		return fail(notReady)
	}
	s, region, ok := splitInput(n, m)
	if !ok {
		return fail("numen: input length out of range")
	}
	res, err := plan.ClassifyIn(s, region)
	if err != nil {
		return fail(err.Error())
	}
	return writeResult(&res)
}

// splitInput returns, in place, the buffer's first n bytes and the m bytes
// after them: a number and a region code, which the callers read before
// they write the answer.
func splitInput(n, m int32) (s, region string, ok bool) {
	if n < 0 || m < 0 || int64(n)+int64(m) > ioSize {
		return "", "", false
	}
	return inPlace(0, n), inPlace(n, m), true
}

// inPlace returns the n bytes of the buffer at offset at as a string,
// without copying them.
func inPlace(at, n int32) string {
	if n == 0 {
		return ""
	}
	return unsafe.String(&io[at], int(n))
}

// numen_format writes the number of the buffer's first n bytes as people
// write it: read in international format, or, when country >= 0, as
// written or dialled in the region of the country bytes after it
// (numbering.Plan.ParseIn); written in style (numbering.Style), or, when
// from >= 0, as dialled from the region of the from bytes after those
// (numbering.Plan.AppendFormatFrom). Input that cannot be read, an unknown
// region and an unknown style fail with numbering's error, which names the
// reason. It allocates only when it fails.
//
//go:wasmexport numen_format
func numenFormat(n, country, style, from int32) int32 {
	if !ready() {
		return fail(notReady)
	}
	if n < 0 || country < -1 || from < -1 || int64(n)+int64(max(country, 0))+int64(max(from, 0)) > ioSize {
		return fail("numen: input length out of range")
	}
	s := inPlace(0, n)
	at := n + max(country, 0)
	// The answer goes to the buffer's second half, past any input, and
	// is moved to its start when the input has been read.
	out := io[ioSize/2 : ioSize/2]
	var b []byte
	var err error
	if from >= 0 {
		// The region dialled from is checked before the input is read,
		// as the country is: a bad option fails whatever the input.
		if _, err = plan.AppendFormatFrom(out, numbering.Number{}, inPlace(at, from)); err != nil {
			return fail(err.Error())
		}
	}
	var num numbering.Number
	if country >= 0 {
		num, err = plan.ParseIn(s, inPlace(n, country))
	} else {
		num, err = plan.Parse(s)
	}
	if err == nil {
		if from >= 0 {
			b, err = plan.AppendFormatFrom(out, num, inPlace(at, from))
		} else {
			b, err = plan.AppendFormat(out, num, numbering.Style(style))
		}
	}
	if err != nil {
		return fail(err.Error())
	}
	return int32(copy(io[:], b))
}

// numen_check tells where the input of the buffer's first n bytes, being
// typed, stands, and writes its record (record.go).
//
//go:wasmexport numen_check
func numenCheck(n int32) int32 {
	if !ready() {
		return fail(notReady)
	}
	if n < 0 || n > ioSize {
		return fail("numen: input length out of range")
	}
	s := unsafe.String(&io[0], int(n))
	if n == 0 {
		s = ""
	}
	pr := plan.Check(s)
	return writeProgress(&pr)
}

// numen_check_in is numen_check for input written or dialled in the
// region of the m bytes after the input (numbering.Plan.CheckIn); an
// unknown region fails, naming it.
//
//go:wasmexport numen_check_in
func numenCheckIn(n, m int32) int32 {
	if !ready() {
		return fail(notReady)
	}
	s, region, ok := splitInput(n, m)
	if !ok {
		return fail("numen: input length out of range")
	}
	pr, err := plan.CheckIn(s, region)
	if err != nil {
		return fail(err.Error())
	}
	return writeProgress(&pr)
}

// numen_route_map compiles the routing map of the buffer's first n bytes
// (the JSON of GET /routing-map's "map", as the sidecar reads it) and
// returns a handle for numen_route, or fails with every problem of the map.
//
//go:wasmexport numen_route_map
func numenRouteMap(n int32) int32 {
	if !ready() {
		return fail(notReady)
	}
	text, ok := input(n)
	if !ok {
		return fail("numen: input length out of range")
	}
	m, err := routing.ParseMap([]byte(text))
	if err != nil {
		return fail(err.Error())
	}
	if platform == nil {
		if platform, err = routing.NewPlatform(plan, nil, nil); err != nil {
			return fail(err.Error())
		}
	}
	r, err := platform.Resolver(m)
	if err != nil {
		return fail(err.Error())
	}
	if len(resolvers) >= maxMaps {
		resolvers = resolvers[1:] // the oldest map goes; its handle fails
		firstHandle++
	}
	resolvers = append(resolvers, r)
	return firstHandle + int32(len(resolvers)-1)
}

// maxMaps bounds the compiled maps a page keeps; firstHandle is the handle
// of resolvers[0].
const maxMaps = 64

var firstHandle int32

// numen_route decides the route of the number of the buffer's first n
// bytes with the map of a handle, and writes the decision as the JSON of
// GET /route.
//
//go:wasmexport numen_route
func numenRoute(handle, n int32) int32 {
	if !ready() {
		return fail(notReady)
	}
	i := handle - firstHandle
	if i < 0 || int(i) >= len(resolvers) {
		return fail("numen: routing map handle " + itoa(int(handle)) + " is unknown (more than 64 maps were compiled since)")
	}
	text, ok := input(n)
	if !ok {
		return fail("numen: input length out of range")
	}
	res := plan.ClassifyString(text)
	d := resolvers[i].Resolve(&res)
	b := d.AppendJSON(io[:0])
	return int32(len(b))
}

// numen_alloc returns the address of a new buffer of size bytes, where the
// JavaScript side writes a pack before numen_pack takes it.
//
//go:wasmexport numen_alloc
func numenAlloc(size int32) int32 {
	if size <= 0 || size > 64<<20 {
		return 0
	}
	b := make([]byte, size)
	pending = b
	return int32(uintptr(unsafe.Pointer(&b[0])))
}

// pending is the buffer of the last numen_alloc, until numen_pack.
var pending []byte

// numen_pack adds the pack written into the buffer of the last numen_alloc
// to the plan: the plan is opened again with every pack taken so far.
//
//go:wasmexport numen_pack
func numenPack() int32 {
	if !ready() {
		return fail(notReady)
	}
	if pending == nil {
		return fail("numen: no pack was written")
	}
	b := pending
	pending = nil
	opts := make([]numbering.Option, 0, len(packs)+1)
	for _, p := range append(packs, b) {
		opts = append(opts, numbering.WithPack(p))
	}
	p, err := numbering.OpenBytes(core, opts...)
	if err != nil {
		return fail(err.Error())
	}
	if msg := use(p); msg != "" {
		return fail(msg)
	}
	packs = append(packs, b)
	return 0
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
