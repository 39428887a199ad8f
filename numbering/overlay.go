package numbering

import (
	"bytes"
	"errors"
	"hash/crc32"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/numenhq/numen/numbering/prefixmap"
	"github.com/numenhq/numen/numbering/textfmt"
)

// ErrOverlay is wrapped by every *OverlayError.
var ErrOverlay = errors.New("invalid overlay")

// OverlayError reports a line of an overlay that cannot be compiled over
// the plan: its source, its line and the problem. It wraps ErrOverlay.
type OverlayError struct {
	Name string // the overlay's name: its file, or "overlay"
	Line int    // 1-based; 0 when the problem is not one line's
	Msg  string
	Err  error // the underlying error, such as the file's, or nil
}

func (e *OverlayError) Error() string {
	if e.Line > 0 {
		return sprintf("numbering: %s line %d: %s", e.Name, e.Line, e.Msg)
	}
	return sprintf("numbering: %s: %s", e.Name, e.Msg)
}

// Unwrap returns ErrOverlay and the underlying error, if any.
func (e *OverlayError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrOverlay, e.Err}
	}
	return []error{ErrOverlay}
}

// castagnoli returns the CRC-32C table, built at its first use rather than
// when the program starts.
func castagnoli() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// overlay is the lines of the overlays given to Load, compiled over the
// plan: a longest-prefix table over the full digits (calling code
// included), consulted before the plan's own answer.
type overlay struct {
	table   prefixmap.Table[int32]
	entries []overlayEntry
}

// overlayEntry is one line of an overlay.
type overlayEntry struct {
	prefix  string // digits, calling code included
	typ     lpnType
	keepTyp bool   // "-": the plan's type and validity stand
	lengths uint32 // national lengths the type applies to
	region  *region
	keepNet bool // "-": the plan's network stands
	network string
	mccmnc  string
	note    string
	name    string // the overlay it came from
	line    int
}

// overlayType returns the libphonenumber type that a type name of an
// overlay line stands for. (A switch, not a map: no package state to build
// when the program starts.)
func overlayType(name string) (lpnType, bool) {
	switch name {
	case "LANDLINE":
		return typeFixed, true
	case "MOBILE":
		return typeMobile, true
	case "MOBILE_OR_LANDLINE":
		return typeFixedOrMobile, true
	case "TOLL_FREE":
		return typeTollFree, true
	case "PREMIUM_RATE":
		return typePremium, true
	case "SHARED_COST":
		return typeShared, true
	case "VOIP":
		return typeVoIP, true
	case "PAGER":
		return typePager, true
	case "UAN":
		return typeUAN, true
	case "VOICEMAIL":
		return typeVoicemail, true
	}
	return typeNone, false
}

// typeDesc is the automaton pattern (desc) whose possible lengths a type
// uses, by type (an array of constant slices, laid out by the compiler).
var typeDesc = [...][]int{
	typeFixed: {descFixed}, typeMobile: {descMobile}, typeFixedOrMobile: {descFixed, descMobile},
	typeTollFree: {descTollFree}, typePremium: {descPremium}, typeShared: {descShared},
	typeVoIP: {descVoIP}, typePager: {descPager}, typeUAN: {descUAN}, typeVoicemail: {descVoicemail},
}

// applyOverlays reads and compiles the overlays, and sets the plan's
// version to name them.
func (p *Plan) applyOverlays(sources []overlaySource) error {
	ov := &overlay{}
	seen := map[string]int{} // prefix -> index in ov.entries
	var names []string
	for _, src := range sources {
		r := src.r
		if r == nil {
			f, err := openFile(src.name)
			if err != nil {
				return &OverlayError{Name: src.name, Msg: err.Error(), Err: err}
			}
			defer f.Close()
			r = f
		}
		sum := crc32.New(castagnoli())
		lines, err := p.parseOverlay(src.name, io.TeeReader(r, sum), func(e overlayEntry) error {
			if i, ok := seen[e.prefix]; ok {
				prev := &ov.entries[i]
				return errorf("prefix +%s is also given in %s line %d: one line per prefix", e.prefix, prev.name, prev.line)
			}
			seen[e.prefix] = len(ov.entries)
			ov.entries = append(ov.entries, e)
			return nil
		})
		if err != nil {
			return err
		}
		names = append(names, sprintf("%s (%d lines, crc32c %s)", src.name, lines, hexString(sum.Sum(nil))))
	}
	list := make([]prefixmap.Entry[int32], len(ov.entries))
	for i, e := range ov.entries {
		pre, err := prefixmap.ParsePrefix(e.prefix)
		if err != nil {
			return &OverlayError{Name: e.name, Line: e.line, Msg: err.Error()}
		}
		list[i] = prefixmap.Entry[int32]{Prefix: pre, Value: int32(i)}
	}
	ov.table = prefixmap.New(list, prefixmap.None)
	p.overlay = ov
	p.version.Overlay = strings.Join(names, ", ")
	return nil
}

// Bounds of one overlay, so that a wrong file given as an overlay fails
// fast rather than filling memory.
const (
	maxOverlayBytes = 64 << 20
	maxOverlayLine  = 64 << 10
)

// parseOverlay reads one overlay and calls add for each line; it returns
// the number of lines that are not comments or blank.
func (p *Plan) parseOverlay(name string, r io.Reader, add func(overlayEntry) error) (int, error) {
	text, err := io.ReadAll(io.LimitReader(r, maxOverlayBytes+1))
	switch {
	case err != nil:
		return 0, &OverlayError{Name: name, Msg: err.Error(), Err: err}
	case len(text) > maxOverlayBytes:
		return 0, &OverlayError{Name: name, Msg: sprintf("larger than %d MiB", maxOverlayBytes>>20)}
	}
	// A byte order mark, which some editors write at the start of UTF-8
	// text, is not part of the first line.
	text = bytes.TrimPrefix(text, []byte("\uFEFF"))
	n, count := 0, 0
	for len(text) > 0 {
		var raw []byte
		raw, text, _ = bytes.Cut(text, []byte{'\n'})
		n++
		if len(raw) > maxOverlayLine {
			return 0, &OverlayError{Name: name, Line: n, Msg: sprintf("line longer than %d KiB", maxOverlayLine>>10)}
		}
		line := strings.TrimSuffix(string(raw), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		count++
		e, err := p.overlayLine(line)
		if err == nil {
			e.name, e.line = name, n
			err = add(e)
		}
		if err != nil {
			return 0, &OverlayError{Name: name, Line: n, Msg: err.Error()}
		}
	}
	if count == 0 {
		return 0, &OverlayError{Name: name, Msg: "no lines: an overlay needs at least one"}
	}
	return count, nil
}

// overlayLine compiles one line: prefix, type, network, MCCMNC and an
// optional note, separated by tabs.
func (p *Plan) overlayLine(line string) (overlayEntry, error) {
	var e overlayEntry
	if !utf8.ValidString(line) {
		return e, errors.New("not valid UTF-8")
	}
	f := strings.Split(line, "\t")
	if len(f) < 4 || len(f) > 5 {
		return e, errorf("%d tab-separated fields; want prefix, type, network, MCCMNC and an optional note (fields are separated by tabs, not spaces)", len(f))
	}
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
		if r, what := unprintable(f[i]); what != "" {
			return e, errorf("%s %q: %s (%s) is not allowed: fields are printable text", fieldNames[i], f[i], what, codePoint(r))
		}
	}
	prefix := strings.ReplaceAll(strings.TrimPrefix(f[0], "+"), " ", "")
	if prefix == "" || !isDigits(prefix) {
		return e, errorf("prefix %q: want digits in international form, such as +4915510 or +49 15510", f[0])
	}
	cc, national, ok := p.SplitCallingCode(prefix)
	switch {
	case !ok:
		return e, errorf("prefix %s: no country uses its leading digits as a calling code", f[0])
	case national == "":
		return e, errorf("prefix %s: a whole calling code; give at least one digit after it", f[0])
	case len(national) > maxNationalDigits:
		return e, errorf("prefix %s: longer than any number", f[0])
	}
	e.prefix = prefix
	code := &p.codes[p.byCC[cc]]
	e.region = p.overlayRegion(code, national)

	if f[1] == "-" {
		e.keepTyp = true
	} else {
		t, ok := overlayType(f[1])
		if !ok {
			return e, errorf("type %q: want one of MOBILE, LANDLINE, MOBILE_OR_LANDLINE, TOLL_FREE, PREMIUM_RATE, SHARED_COST, VOIP, PAGER, UAN, VOICEMAIL, or - to keep the plan's", f[1])
		}
		e.typ = t
		for _, d := range typeDesc[t] {
			if l := e.region.lengths[d]; l != ^uint32(0) {
				e.lengths |= l
			}
		}
		if e.lengths == 0 { // the region has no numbers of the type: its numbers' lengths
			e.lengths = e.region.lengths[descGeneral]
		}
	}

	switch {
	case f[2] == "-" && f[3] != "-":
		return e, errorf("MCCMNC %s without a network: a code goes with the network it belongs to (give the network's name, or - for both)", f[3])
	case f[2] == "-":
		e.keepNet = true
	case f[2] == "":
		return e, errors.New("empty network name: give the name, or - to keep the plan's network")
	default:
		e.network = f[2]
		if f[3] != "-" {
			if len(f[3]) < 5 || len(f[3]) > 6 || !isDigits(f[3]) {
				return e, errorf("MCCMNC %q: want 5 or 6 digits, or - for none", f[3])
			}
			e.mccmnc = f[3]
		}
	}
	if e.keepTyp && e.keepNet {
		return e, errors.New("type and network are both -: the line changes nothing")
	}
	if !e.keepNet {
		switch {
		case !e.keepTyp && !e.typ.hasNetwork():
			return e, errorf("network %q on a %s line: only MOBILE, MOBILE_OR_LANDLINE and PAGER numbers have an original network; give - for the network", e.network, f[1])
		case e.keepTyp && !e.region.hasNetworkNumbers(national):
			return e, errorf("network %q with type -: the plan has no MOBILE, MOBILE_OR_LANDLINE or PAGER numbers under %s, so no answer would carry it; give their type", e.network, f[0])
		}
	}
	if len(f) == 5 {
		e.note = f[4]
	}
	return e, nil
}

// fieldNames are the names of an overlay line's fields, for errors.
var fieldNames = [...]string{"prefix", "type", "network", "MCCMNC", "note"}

// unprintable returns the first rune of s that an overlay's fields may
// not hold, and what it is (textfmt.Invisible: control, bidirectional and
// other invisible formatting characters); "" when there is none.
func unprintable(s string) (rune, string) {
	for _, r := range s {
		if what := textfmt.Invisible(r); what != "" {
			return r, what
		}
	}
	return 0, ""
}

// codePoint writes r as Unicode does, "U+202E". (Not strings.ToUpper of
// %x, which would bring Unicode's case tables into the browser module.)
func codePoint(r rune) string {
	const hex = "0123456789ABCDEF"
	b := []byte("U+")
	n := 4
	for n < 8 && r>>(4*n) != 0 {
		n++
	}
	for i := n - 1; i >= 0; i-- {
		b = append(b, hex[r>>(4*i)&15])
	}
	return string(b)
}

// hasNetwork reports whether numbers of type t have an original network
// in answers (Result.Network): mobile, mobile or landline, and pager
// numbers, as ClassifyString answers them.
func (t lpnType) hasNetwork() bool {
	return t == typeMobile || t == typeFixedOrMobile || t == typePager
}

// hasNetworkNumbers reports whether the region has numbers under prefix
// (national digits) of a type that has a network (lpnType.hasNetwork).
func (r *region) hasNetworkNumbers(prefix string) bool {
	descs := uint16(1<<descMobile | 1<<descPager)
	if r.sameMF {
		descs |= 1 << descFixed // its landlines are MOBILE_OR_LANDLINE
	}
	return r.hasNumbersOf(prefix, descs)
}

// overlayRegion decides which region of a calling code an overlay prefix
// belongs to, as libphonenumber decides for a number: the first region
// whose leading digits the prefix starts with; else the first region
// without leading digits that has numbers of some type starting with the
// prefix (the NANPA countries share +1 and differ by area code); else the
// main region (a range the plan does not know at all).
func (p *Plan) overlayRegion(code *callingCode, national string) *region {
	if len(code.regions) > 1 {
		digits := []byte(national)
		for _, i := range code.regions {
			if r := &p.regions[i]; r.hasLead && r.automata().leading.longestPrefix(digits) > 0 {
				return r
			}
		}
		for _, i := range code.regions {
			if r := &p.regions[i]; !r.hasLead && r.hasTypedNumbers(national) {
				return r
			}
		}
	}
	return &p.regions[code.regions[0]]
}

// hasTypedNumbers reports whether some number of the region that starts
// with prefix matches one of its number types, not only its general
// pattern.
func (r *region) hasTypedNumbers(prefix string) bool {
	return r.hasNumbersOf(prefix, ^uint16(1<<descGeneral))
}

// hasNumbersOf reports whether some number of the region that starts with
// prefix matches one of the patterns descs (a mask of 1<<desc): a search
// of the automaton's states from the prefix's.
func (r *region) hasNumbersOf(prefix string, descs uint16) bool {
	a, s := &r.automata().types, 0
	for j := 0; j < len(prefix) && s >= 0; j++ {
		s = a.step(s, int(prefix[j]-'0'))
	}
	if s < 0 {
		return false
	}
	seen := map[int]bool{s: true}
	for queue := []int{s}; len(queue) > 0; queue = queue[1:] {
		if a.acceptOf(queue[0])&descs != 0 {
			return true
		}
		for d := range 10 {
			if n := a.step(queue[0], d); n >= 0 && !seen[n] {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	return false
}

// lookup returns the overlay line of the longest prefix of digits, or nil.
func (ov *overlay) lookup(digits []byte) *overlayEntry {
	if v := ov.table.Lookup(digits); v != prefixmap.None {
		return &ov.entries[v]
	}
	return nil
}

// OverlayLine is one line of an overlay as Plan.Overlay reports it.
type OverlayLine struct {
	Source  string // the overlay's name
	Line    int
	Prefix  string // E.164 prefix, such as "+4915510"
	Type    string // API type, or "-" when the line keeps the plan's
	Network string // "-" when the line keeps the plan's network
	MCCMNC  string // "" for none
	Note    string
}

// Overlay returns the lines of the overlays compiled over the plan, in the
// order given; nil without overlays.
func (p *Plan) Overlay() []OverlayLine {
	if p.overlay == nil {
		return nil
	}
	out := make([]OverlayLine, len(p.overlay.entries))
	for i, e := range p.overlay.entries {
		l := OverlayLine{Source: e.name, Line: e.line, Prefix: "+" + e.prefix, Type: "-", Network: "-", MCCMNC: e.mccmnc, Note: e.note}
		if !e.keepTyp {
			l.Type = e.typ.api().String()
		}
		if !e.keepNet {
			l.Network = e.network
		}
		out[i] = l
	}
	return out
}
