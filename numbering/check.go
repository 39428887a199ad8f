package numbering

import (
	"strings"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// InputState says where input that is still being typed stands.
type InputState uint8

// The states of Check.
const (
	// Incomplete input is the beginning of some valid number: more digits
	// can make it valid. Nothing typed yet is incomplete too.
	Incomplete InputState = iota
	// Valid input is a valid number as it stands (ClassifyString agrees);
	// Progress.Longer says whether more digits could still make a valid
	// number too.
	Valid
	// Impossible input cannot become a valid number by adding digits:
	// Progress.Reason says why.
	Impossible
)

var inputStateNames = [...]string{Incomplete: "incomplete", Valid: "valid", Impossible: "impossible"}

// String returns "incomplete", "valid" or "impossible".
func (s InputState) String() string {
	if int(s) < len(inputStateNames) {
		return inputStateNames[s]
	}
	return "impossible"
}

// TypeSet is a set of number types.
type TypeSet uint16

// Has reports whether t is in the set.
func (s TypeSet) Has(t Type) bool { return s&(1<<t) != 0 }

// Types lists the set's types in declaration order.
func (s TypeSet) Types() []Type {
	var out []Type
	for _, t := range Types() {
		if s.Has(t) {
			out = append(out, t)
		}
	}
	return out
}

// String returns the API names joined by "|", such as "MOBILE|LANDLINE".
func (s TypeSet) String() string {
	var b strings.Builder
	for _, t := range s.Types() {
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString(t.String())
	}
	return b.String()
}

// Progress is the answer of Check for input being typed.
type Progress struct {
	State InputState
	// Reason says why Impossible input is impossible; NoReason otherwise.
	Reason Reason
	// Types is the type of Valid input, or the types Incomplete input can
	// still become (empty while no calling code is complete). Unknown in
	// it stands for personal numbers, valid numbers of no API type.
	Types TypeSet
	// Longer reports, for Valid input, that more digits could make another
	// valid number (a country with numbers of several lengths).
	Longer bool
	// CallingCode is the calling code the input starts with, 0 while it is
	// not complete.
	CallingCode int

	code    *callingCode
	regions uint32 // bit j: the code's j-th region is still possible
}

// Regions returns the regions (ISO 3166-1 alpha-2 codes, or "001" for
// non-geographic services) that the input can still be a number of: the
// number's region for Valid input, nil for Impossible input and before the
// calling code is complete.
func (pr Progress) Regions() []string { return pr.AppendRegions(nil) }

// RegionSet identifies Regions within the calling code: bit j stands for
// the code's j-th region. Two Progress values of one calling code with
// the same set have the same Regions, so a caller can keep the list by
// (CallingCode, RegionSet) instead of building it anew.
func (pr Progress) RegionSet() uint32 { return pr.regions }

// AppendRegions appends Regions to dst and returns the extended slice,
// without allocating when dst has room (a calling code has at most 32).
func (pr Progress) AppendRegions(dst []string) []string {
	if pr.code == nil {
		return dst
	}
	for j, id := range pr.code.ids {
		if pr.regions&(1<<j) != 0 {
			dst = append(dst, id)
		}
	}
	return dst
}

// Check tells whether input that is being typed, digit by digit, can still
// become a valid number: Valid when it is one (the answer of
// ClassifyString), Incomplete when more digits can make it one (with the
// types and regions it can still become), Impossible when no digits can,
// with the reason. It accepts what Parse accepts, read leniently where the
// input is unfinished: "+", "00" and a calling code's first digits are
// incomplete, and a national prefix after the calling code ("+44 (0)2") is
// taken off as it would be from the whole number. It never panics and does
// not allocate.
func (p *Plan) Check(s string) Progress {
	var buf [maxDialled]byte
	nd, plus, simple := collectSimple(s, &buf)
	if !simple || p.mayBeValid(buf[:min(nd, maxDigits+4)], plus) {
		if pr, ok := p.checkValid(s); ok {
			return pr
		}
	}
	return p.checkPartial(s, &buf, nd, plus, simple)
}

// CheckIn is Check for input written or dialled in region, an ISO 3166-1
// alpha-2 code such as "DE" (either case), as ParseIn reads it: national
// format with or without the region's national (trunk) prefix, the
// region's international prefix and a calling code, or "+" and a calling
// code, for which the region does not matter. Input is Valid exactly when
// ValidateIn finds it valid. National input that is not yet valid is
// Incomplete when more digits can make a valid number of the region's
// calling code (read as ParseIn would read the whole number: "0151 2" in
// DE can become a German mobile number, "(204) 5" in US a Canadian one),
// with the types and regions it can still become and CallingCode set from
// the region; Impossible otherwise. Digits that may still become the
// region's international prefix ("0" in DE, "01" in US) are Incomplete
// with no calling code, types or regions yet (the calling code is still
// open, as after Check's "0"), and after the prefix the input reads as
// after "+" in Check.
//
// An unknown region is a *RegionError (ErrUnknownRegion), a plan file
// without the regions' dialling rules ErrNoDialling. CheckIn never panics
// and does not allocate for a known region.
func (p *Plan) CheckIn(s, region string) (Progress, error) {
	rg, err := p.dialRegion(region)
	if err != nil {
		return Progress{}, err
	}
	return p.checkIn(s, rg), nil
}

// checkIn is CheckIn for a region of the plan.
func (p *Plan) checkIn(s string, rg *region) Progress {
	var v Validity
	cc, reason, _ := p.parseIn(s, rg, &v.Number)
	p.validateParsed(&v, cc, reason)
	if pr, ok := p.validProgress(&v); ok {
		return pr
	}
	return p.checkInPartial(s, rg)
}

// checkInPartial is checkIn for input that is not valid as it stands.
func (p *Plan) checkInPartial(s string, rg *region) Progress {
	var buf [maxDialled]byte
	var reason Reason
	nd, plus, simple := collectSimple(s, &buf)
	if !simple {
		nd, plus, _, reason, _ = collect(s, &buf)
		if reason == NotANumber && strings.TrimSpace(s) == "(" {
			return Progress{State: Incomplete} // "(030) ...", "(201) ..."
		}
		if reason != NoReason {
			return p.checkPartial(s, &buf, 0, false, false) // Check's answer for what no digits follow
		}
	}
	if nd > maxDigits+4 {
		return Progress{State: Impossible, Reason: InputTooLong}
	}
	digits := buf[:nd]
	iddAlive := false
	// As ParseIn reads it: the international prefix counts before a digit
	// other than 0, and a calling code follows; after "+" too, as
	// libphonenumber's second reading ("+00 49 ..." in DE).
	if rg.idd != nil && (!plus || nd > 0 && digits[0] == '0') {
		iddAlive = rg.idd.quick.alive(digits)
		if end, ok := rg.idd.prefixLen(digits); ok && (end == len(digits) || digits[end] != '0') {
			if end < len(digits) && iddAlive {
				// A longer international prefix may be being typed
				// ("001" of "0010" in BO): the calling code is open.
				return Progress{State: Incomplete}
			}
			n := copy(buf[:], digits[end:])
			return p.checkPartial(s, &buf, n, true, true)
		}
	}
	if iddAlive {
		// The beginning of the international prefix ("0" of "00" in DE),
		// which may also begin a national number: the calling code is
		// still open, as after Check's "0".
		return Progress{State: Incomplete}
	}
	if plus {
		return p.checkPartial(s, &buf, nd, true, true)
	}
	home := &p.codes[p.byCC[rg.cc]]
	var alts [3][]byte
	// The region's calling code without "+" or a prefix, which ParseIn
	// takes when the number needs it ("49151..." in DE).
	switch code := home.prefix[1:]; {
	case len(digits) > len(code) && hasPrefix(digits, code):
		alts[0] = digits[len(code):]
	case len(digits) <= len(code) && string(digits) == code[:len(digits)]:
		alts[0] = digits[:0] // the calling code's beginning: any number may follow
	}
	var stripped, local, localStripped [maxStripped]byte
	if np := rg.natPrefix; np != nil && len(np.transform) > 0 && len(digits) > 0 {
		// A rule with a transform may make a local number whole ("234
		// 5678" in BM is +1 441 234 5678): the digits, and the digits
		// without a national prefix, after the transform's first digits.
		alts[1] = transformed(np, digits, &local)
		if np.always || np.quick.longestPrefix(digits) > 0 {
			if rest := stripPartial(np, digits, &stripped); rest != nil {
				alts[2] = transformed(np, rest, &localStripped)
			}
		}
	}
	pr := p.checkNational(home, rg.natPrefix, digits, alts, &stripped)
	if pr.State == Impossible {
		longest := 0
		for _, i := range home.regions {
			longest = max(longest, p.regions[i].possMax)
		}
		if len(digits) > longest && (rg.natPrefix == nil || !rg.natPrefix.mayMatch(digits)) {
			pr.Reason = TooLong
		}
	}
	return pr
}

// splitCode splits digits after "+" into the calling code and the national
// digits; code is nil when no calling code is complete.
func (p *Plan) splitCode(digits []byte) (code *callingCode, national []byte) {
	cc := 0
	for l := 1; l <= maxCallingCodeDigits && l <= len(digits); l++ {
		cc = cc*10 + int(digits[l-1]-'0')
		if i := p.byCC[cc]; i >= 0 {
			return &p.codes[i], digits[l:]
		}
	}
	return nil, digits
}

// mayBeValid reports whether the digits of plain input (collectSimple's)
// are as many as some number of their calling code has: shorter input,
// the common case while a number is typed, cannot be valid, and Check
// skips Validate for it.
func (p *Plan) mayBeValid(digits []byte, plus bool) bool {
	if !plus && len(digits) >= 2 && digits[0] == '0' && digits[1] == '0' {
		digits = digits[2:]
	}
	if len(digits) == 0 || digits[0] == '0' {
		return false
	}
	code, national := p.splitCode(digits)
	if code == nil {
		return false
	}
	if code.strip != nil && len(code.strip.transform) > 0 {
		return true // a transform may add digits ("+672 10660" is +672 310660)
	}
	return code.minLength >= 0 && len(national) >= code.minLength
}

// checkValid is Check for input that Validate finds valid; ok is false
// for other input.
func (p *Plan) checkValid(s string) (Progress, bool) {
	v := p.Validate(s)
	return p.validProgress(&v)
}

// validProgress is Check's answer for a valid reading v of the input; ok is
// false when v is not valid.
func (p *Plan) validProgress(v *Validity) (Progress, bool) {
	if v.Valid {
		pr := Progress{State: Valid, Types: 1 << v.Type}
		if v.Number.n > 0 {
			code := &p.codes[p.byCC[v.Number.CountryCode()]]
			pr.CallingCode, pr.code = code.code, code
			for j, id := range code.ids {
				if id == v.Region || v.Region == "" && id == nonGeoRegion {
					pr.regions |= 1 << j
				}
			}
			national := v.Number.national()
			for _, i := range code.regions {
				if _, longer := p.regions[i].futureTypes(national); longer {
					pr.Longer = true
				}
			}
		}
		return pr, true
	}
	return Progress{}, false
}

// checkPartial is Check for input that is not valid as it stands: buf
// holds collectSimple's reading of s when simple.
func (p *Plan) checkPartial(s string, buf *[maxDialled]byte, nd int, plus, simple bool) Progress {
	if !simple {
		var reason Reason
		nd, plus, _, reason, _ = collect(s, buf)
		switch reason {
		case NoReason:
		case Empty:
			return Progress{State: Incomplete}
		case NotANumber:
			if t := strings.TrimSpace(s); t == "+" || t == "\uFF0B" {
				return Progress{State: Incomplete} // the calling code is still to come
			}
			return Progress{State: Impossible, Reason: reason}
		default:
			return Progress{State: Impossible, Reason: reason}
		}
	}
	if nd > maxDigits+4 {
		return Progress{State: Impossible, Reason: InputTooLong}
	}
	digits := buf[:nd]
	if !plus {
		switch {
		case len(digits) == 1 && digits[0] == '0':
			return Progress{State: Incomplete} // the start of "00"
		case len(digits) >= 2 && digits[0] == '0' && digits[1] == '0':
			digits = digits[2:]
		case digits[0] == '0' || formatted(s):
			return Progress{State: Impossible, Reason: MissingCountryCode}
		}
	}
	if len(digits) == 0 {
		return Progress{State: Incomplete}
	}
	if digits[0] == '0' {
		return Progress{State: Impossible, Reason: InvalidCountryCode}
	}
	// The calling code: complete, the beginning of one, or none.
	code, digits := p.splitCode(digits)
	if code == nil {
		if len(digits) < maxCallingCodeDigits && p.beginsCallingCode(digits) {
			return Progress{State: Incomplete}
		}
		return Progress{State: Impossible, Reason: InvalidCountryCode}
	}
	var stripped [maxStripped]byte
	pr := p.checkNational(code, code.strip, digits, [3][]byte{}, &stripped)
	if pr.State == Impossible && pr.Reason == InvalidPrefix {
		longest := 0
		for _, i := range code.regions {
			longest = max(longest, p.regions[i].possMax)
		}
		if len(digits) > longest {
			pr.Reason = TooLong
		}
	}
	return pr
}

// checkNational is Check's answer for the national digits of unfinished
// input of calling code code: the regions of the code that numbers
// beginning with them (as typed, or without a national prefix by rule np,
// nil for none, or beginning with one of alts, the non-nil ones) can be
// in, and their types; Impossible with InvalidPrefix when none can.
// stripped is scratch space.
func (p *Plan) checkNational(code *callingCode, np *nationalPrefix, digits []byte, alts [3][]byte, stripped *[maxStripped]byte) Progress {
	pr := Progress{CallingCode: code.code, code: code}
	// The national number as typed, and without a national prefix.
	candidates := [6][]byte{digits, nil, nil, alts[0], alts[1], alts[2]}
	if np != nil {
		if len(digits) > 0 && (np.always || np.quick.longestPrefix(digits) > 0) {
			candidates[1] = stripPartial(np, digits, stripped)
		}
		if np.quick.alive(digits) {
			// The digits may be the beginning of a national prefix
			// ("+36 0" of "+36 06 ..."): any number may follow it.
			candidates[2] = digits[:0]
		}
	}
	var types TypeSet
	for _, national := range candidates {
		if national == nil {
			continue
		}
		// A shared calling code's dispatch table names the regions that
		// can hold numbers of these first digits; the others' automata
		// would die on them.
		mask := ^uint32(0)
		if code.dispatch != nil && len(national) >= planfmt.DispatchDigits {
			k := int(national[0]-'0')*100 + int(national[1]-'0')*10 + int(national[2]-'0')
			mask = planfmt.U32(code.dispatch, 4*k)
		}
		for j, i := range code.regions {
			if mask&(1<<j) == 0 {
				continue
			}
			if t, ok := p.regions[i].futureTypes(national); ok {
				types |= t
				pr.regions |= 1 << j
			}
		}
	}
	if p.overlay != nil {
		types |= p.overlay.futureTypes(code.prefix[1:], digits)
	}
	if types == 0 {
		pr.State, pr.Reason, pr.regions = Impossible, InvalidPrefix, 0
		return pr
	}
	pr.State, pr.Types = Incomplete, types
	return pr
}

// transformed writes into buf the digits of rule np's transform before its
// first group, then digits, as the transform makes a whole local number
// of them; nil when they do not fit.
func transformed(np *nationalPrefix, digits []byte, buf *[maxStripped]byte) []byte {
	n := 0
	for _, c := range np.transform {
		if c&planfmt.TransformGroup != 0 {
			break
		}
		buf[n] = c
		n++
	}
	if n+len(digits) > len(buf) {
		return nil
	}
	return buf[:n+copy(buf[n:], digits)]
}

// beginsCallingCode reports whether digits (one or two) are the first
// digits of an assigned calling code.
func (p *Plan) beginsCallingCode(digits []byte) bool {
	prefix := 0
	for _, d := range digits {
		prefix = prefix*10 + int(d-'0')
	}
	lo, hi := prefix, prefix+1
	for l := len(digits); l < maxCallingCodeDigits; l++ {
		lo, hi = lo*10, hi*10
		for cc := lo; cc < hi && cc < len(p.byCC); cc++ {
			if p.byCC[cc] >= 0 {
				return true
			}
		}
	}
	return false
}

// stripPartial takes a national prefix off unfinished national digits by
// rule np, as stripNationalPrefix would from the whole number, without the
// length and viability checks that only a whole number can pass; nil when
// the rule does not apply. The caller has checked that a prefix may begin
// them (the rule's quick automaton, or a rule that always runs).
func stripPartial(np *nationalPrefix, national []byte, buf *[maxStripped]byte) []byte {
	var st matchState
	if !np.run(&st, national) || st.caps[1] == 0 && len(np.transform) == 0 {
		return nil
	}
	out, ok := np.expand(&st, national, buf)
	if !ok {
		return nil
	}
	return out
}

// futureTypes returns the types that numbers of the region beginning with
// national can have: a walk to the digits' state, whose future patterns
// (the compiler's) are kept when their possible lengths leave room for more
// digits or for none. ok is false when no number of the region begins so.
func (r *region) futureTypes(national []byte) (types TypeSet, ok bool) {
	a, s := &r.automata().types, 0
	for _, c := range national {
		if s = a.step(s, int(c-'0')); s < 0 {
			return 0, false
		}
	}
	future := a.future(s)
	if future&(1<<descGeneral) == 0 {
		return 0, false
	}
	l := len(national)
	longer := ^uint32(0) << (l + 1) // lengths after more digits
	for d := descFixed; d < descCount; d++ {
		if future&(1<<d) == 0 || r.lengths[d]&r.lengths[descGeneral]&longer == 0 {
			continue
		}
		switch {
		case d == descFixed && r.sameMF, d == descMobile && r.sameMF:
			types |= 1 << MobileOrLandline
		default:
			types |= 1 << descTypes[d]
		}
	}
	if types.Has(Landline) && types.Has(Mobile) {
		// A number both patterns match is MOBILE_OR_LANDLINE (typeOfMask).
		types |= 1 << MobileOrLandline
	}
	return types, types != 0
}

// descTypes maps the automata's patterns to API types (personal numbers
// are valid numbers of no API type: Unknown).
var descTypes = [descCount]Type{
	descGeneral: Unknown, descFixed: Landline, descMobile: Mobile, descTollFree: TollFree,
	descPremium: PremiumRate, descShared: SharedCost, descPersonal: Unknown, descVoIP: VoIP,
	descPager: Pager, descUAN: UAN, descVoicemail: Voicemail,
}

// futureTypes returns the types of the overlay's lines that numbers
// beginning with the calling code and national digits can fall under.
func (ov *overlay) futureTypes(cc string, national []byte) TypeSet {
	var types TypeSet
	for i := range ov.entries {
		e := &ov.entries[i]
		if e.keepTyp || !strings.HasPrefix(e.prefix, cc) {
			continue
		}
		line := e.prefix[len(cc):]
		n := min(len(line), len(national))
		if line[:n] != string(national[:n]) {
			continue
		}
		if e.lengths&(^uint32(0)<<(len(national)+1)) != 0 {
			types |= 1 << e.typ.api()
		}
	}
	return types
}
