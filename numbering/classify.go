package numbering

import "github.com/numenhq/numen/numbering/internal/planfmt"

// Result is the numbering part of an NT lookup result: every field of the
// API's NT result that the numbering plan decides. Strings and slices in it
// are shared with the Plan and must not be modified. A valid Result also
// refers to the Plan that classified it, which writes its formats
// (AppendFormat, AppendJSON): compare Results by their exported fields.
type Result struct {
	// Input is the text that was classified, as given.
	Input string
	// Number is the normalised number; the zero Number when parsing failed.
	Number Number
	Type   Type
	Status Status
	// Valid reports whether Number is a valid number of its country.
	Valid bool
	// Reason says why the number is not valid; NoReason when it is.
	Reason Reason
	// PossiblyPorted reports that the number is mobile and its country has
	// mobile number portability, so it may have left its original network.
	PossiblyPorted bool
	// QualifiesForHLR reports that the number is valid and MOBILE or
	// MOBILE_OR_LANDLINE.
	QualifiesForHLR bool
	// Network is the name of the network the number range was originally
	// assigned to, for mobile and pager numbers; "" when unknown.
	Network string
	// MCCMNC is the mobile country and network code of the original network
	// (the one the number's range was assigned to), 5 or 6 digits; "" when
	// the shipped data does not know it (see data/README.md for coverage).
	// Network and MCCMNC always come from the same range: a range whose
	// operator has no known code has an empty MCCMNC, never the code of an
	// enclosing range of another operator.
	MCCMNC string
	// CountryCode is the ISO 3166-1 alpha-2 code of the number's country; ""
	// for non-geographic numbers (such as +800) and when not determined.
	CountryCode string
	// CountryName is the English name of the country, or of the
	// non-geographic service; "" when not determined.
	CountryName string
	// CountryPrefix is the calling code with a plus sign, such as "+49"; ""
	// when the calling code could not be read.
	CountryPrefix string
	// Regions are the English geographic descriptions: the area of a
	// geographic number, else the country; nil for invalid numbers.
	Regions []string
	// Timezones are Olson time-zone names; nil when unknown.
	Timezones []string
	// Info is extra English text, such as "personal number"; "" when none.
	Info string

	plan *Plan // the plan that found the number valid, which formats it; nil otherwise
}

// MCC returns the mobile country code part of MCCMNC, "" when unknown.
func (r *Result) MCC() string {
	if len(r.MCCMNC) < 5 {
		return ""
	}
	return r.MCCMNC[:3]
}

// MNC returns the mobile network code part of MCCMNC, "" when unknown.
func (r *Result) MNC() string {
	if len(r.MCCMNC) < 5 {
		return ""
	}
	return r.MCCMNC[3:]
}

// Texts of Result.Info.
const (
	infoPersonal    = "personal number: libphonenumber's PERSONAL_NUMBER, which the API has no type for"
	infoNonGeo      = "non-geographic number of a global service"
	infoAmbiguousCC = "the calling code is shared by several countries and the number matches none of them"
)

// ClassifyString parses and classifies s in one step. Input that does not
// parse gives an invalid Result with the Reason, and with Status
// StatusFailed unless its calling code could be read. It never panics and
// does not allocate.
func (p *Plan) ClassifyString(s string) Result {
	var n Number
	cc, reason, _ := p.parse(s, &n)
	var res Result
	p.classifyParsed(&res, s, &n, cc, reason)
	return res
}

// verdict is what decides a number's validity: its calling code, the
// region and libphonenumber type it matched (typeNone when invalid), and
// the overlay line of its prefix, if any.
type verdict struct {
	cc *callingCode
	r  *region // nil when the calling code is shared and no region matches
	t  lpnType
	ov *overlayEntry
}

// judge decides the type and region of a parsed number, with the
// overlays. It fails with NotANumber for the zero Number and with
// InvalidCountryCode for a calling code no country has.
func (p *Plan) judge(n *Number) (v verdict, failed Reason) {
	if n.IsZero() || int(n.ccLen) > len(n.digits) {
		return v, NotANumber
	}
	code := n.CountryCode()
	if code >= len(p.byCC) || p.byCC[code] < 0 {
		return v, InvalidCountryCode
	}
	v.cc = &p.codes[p.byCC[code]]
	national := n.national()
	v.r, v.t = p.regionAndType(v.cc, national)
	if p.overlay != nil {
		// An overlay line's type applies to numbers of its lengths; its
		// network to numbers whose type has one.
		if v.ov = p.overlay.lookup(n.all()); v.ov != nil && !v.ov.keepTyp && len(national) < 32 && v.ov.lengths&(1<<len(national)) != 0 {
			v.r, v.t = v.ov.region, v.ov.typ
		}
	}
	if v.r == nil && len(v.cc.regions) == 1 {
		v.r = &p.regions[v.cc.regions[0]]
	}
	return v, NoReason
}

// invalidReason says why a number its calling code's regions do not match
// is invalid: its length, by the main region's rules, else its prefix.
func (p *Plan) invalidReason(cc *callingCode, n *Number) Reason {
	if reason := p.regions[cc.regions[0]].testLength(len(n.national())); reason != NoReason {
		return reason
	}
	return InvalidPrefix
}

// Validity answers the first questions about a number: is it valid, of
// which type, in which country; the fields of Result that decide them.
type Validity struct {
	Number Number // the normalised number; the zero Number when parsing failed
	Valid  bool
	Type   Type   // Unknown for invalid numbers
	Reason Reason // why it is invalid; NoReason when valid
	// Region is the ISO 3166-1 alpha-2 code of the number's country; "" for
	// non-geographic numbers and when it is not determined.
	Region string
}

// Validate parses s and decides its validity, type and country only:
// ClassifyString without the network, geography, time zones and texts, at
// a fraction of the cost. The answers are ClassifyString's. It never panics
// and does not allocate.
func (p *Plan) Validate(s string) Validity {
	var v Validity
	cc, reason, _ := p.parse(s, &v.Number)
	p.validateParsed(&v, cc, reason)
	return v
}

// validateParsed is Validate's and ValidateIn's answer for a reading of
// the input: v holds the Number read (the zero Number when reason says
// why none could be) and receives the rest.
func (p *Plan) validateParsed(v *Validity, cc *callingCode, reason Reason) {
	if reason != NoReason {
		*v = Validity{Reason: reason}
		if cc != nil && len(cc.regions) == 1 && p.regions[cc.regions[0]].id != nonGeoRegion {
			v.Region = p.regions[cc.regions[0]].id
		}
		return
	}
	verdict, failed := p.judge(&v.Number)
	v.Reason = failed
	switch {
	case failed != NoReason:
		return
	case verdict.t == typeNone:
		v.Reason = p.invalidReason(verdict.cc, &v.Number)
	default:
		v.Valid, v.Type = true, verdict.t.api()
	}
	if verdict.r != nil && verdict.r.id != nonGeoRegion {
		v.Region = verdict.r.id
	}
}

// Classify classifies a parsed number: its type, validity and reason,
// country, original network, geographic regions and time zones. It follows
// libphonenumber's rules exactly (the package tests compare the two on every
// example number and on mutations of them) and allocates nothing.
func (p *Plan) Classify(n Number) Result {
	var res Result
	p.classify(&res, &n)
	return res
}

// classify is Classify into res, which must be the zero Result: the
// result is filled where the caller keeps it, not copied out.
func (p *Plan) classify(res *Result, n *Number) {
	res.Number, res.Status = *n, StatusOK
	v, failed := p.judge(n)
	if failed != NoReason {
		res.Status, res.Reason = StatusFailed, failed
		return
	}
	cc, r, t := v.cc, v.r, v.t
	res.CountryPrefix = cc.prefix
	if r != nil {
		p.setCountry(res, r)
	} else {
		res.Info = infoAmbiguousCC
	}
	if t == typePersonal {
		res.Info = infoPersonal
	}
	if t == typeNone {
		res.Reason = p.invalidReason(cc, n)
		return
	}
	res.Valid = true
	res.plan = p
	res.Type = t.api()
	if r.id == nonGeoRegion && res.Info == "" {
		res.Info = infoNonGeo
	}
	res.QualifiesForHLR = res.Type.IsMobile()
	res.PossiblyPorted = res.QualifiesForHLR && r.mnp
	all := n.all()
	key := planfmt.Key(all)
	if t == typeMobile || t == typeFixedOrMobile || t == typePager {
		if v.ov != nil && !v.ov.keepNet {
			res.Network, res.MCCMNC = v.ov.network, v.ov.mccmnc
		} else if i := p.ranges.lookup(key); i >= 0 {
			nw := p.rangeNetwork(i)
			res.Network, res.MCCMNC = nw.name, nw.mccmnc
		}
	}
	res.Regions = p.describe(cc, r, t, n, key)
	if !t.geographic(cc.code) {
		res.Timezones = cc.zones // the calling code's, looked up at load
	} else if i := p.zones.lookup(key); i >= 0 {
		res.Timezones = p.zoneSets[i]
	}
}

const nonGeoRegion = "001"

func (p *Plan) setCountry(res *Result, r *region) {
	res.CountryName = r.name
	if r.id != nonGeoRegion {
		res.CountryCode = r.id
	}
}

// describe ports libphonenumber's geocoder (GetDescriptionForNumber): the
// area of a geographic number, else the name of the country; one element.
// Where libphonenumber gives no country name because the number is valid in
// several regions of its calling code (Italian mobiles are valid in the
// Vatican too), it names the region that GetRegionCodeForNumber picked, r.
func (p *Plan) describe(cc *callingCode, r *region, t lpnType, n *Number, key uint32) []string {
	if !t.geographic(cc.code) {
		return r.nameList
	}
	if cc.code == 54 && len(n.national()) > 0 && n.national()[0] == '9' {
		// Argentina's mobile token 9 stands before the area code; the
		// geocoder looks the number up without it.
		var buf [maxDigits]byte
		k := copy(buf[:], n.all()[:n.ccLen])
		k += copy(buf[k:], n.national()[1:])
		key = planfmt.Key(buf[:k])
	}
	geo, places := p.geocoding()
	if v := geo.lookup(key); v >= 0 {
		return places.get(v)
	}
	return r.nameList
}

// regionAndType ports libphonenumber's GetRegionCodeForNumber followed by
// GetNumberType: for a calling code shared by several regions, the first
// region whose leading digits match, or, for regions without leading digits,
// where the number is valid.
func (p *Plan) regionAndType(cc *callingCode, national []byte) (*region, lpnType) {
	if len(cc.regions) == 1 {
		r := &p.regions[cc.regions[0]]
		return r, r.typeOf(national)
	}
	candidates := ^uint32(0)
	if cc.dispatch != nil && len(national) >= planfmt.DispatchDigits {
		k := int(national[0]-'0')*100 + int(national[1]-'0')*10 + int(national[2]-'0')
		candidates = planfmt.U32(cc.dispatch, 4*k)
	}
	for j, i := range cc.regions {
		if candidates&(1<<j) == 0 {
			continue // not a region of these first digits: its walk would fail
		}
		r := &p.regions[i]
		if r.hasLead {
			if r.automata().leading.longestPrefix(national) > 0 {
				return r, r.typeOf(national)
			}
		} else if t := r.typeOf(national); t != typeNone {
			return r, t
		}
	}
	return nil, typeNone
}

// lpnType is libphonenumber's PhoneNumberType; typeNone is its UNKNOWN.
type lpnType uint8

const (
	typeNone lpnType = iota
	typeFixed
	typeMobile
	typeFixedOrMobile
	typeTollFree
	typePremium
	typeShared
	typeVoIP
	typePersonal
	typePager
	typeUAN
	typeVoicemail
)

// api maps libphonenumber's type onto the API's (see the package overview).
func (t lpnType) api() Type {
	switch t {
	case typeFixed:
		return Landline
	case typeMobile:
		return Mobile
	case typeFixedOrMobile:
		return MobileOrLandline
	case typeTollFree:
		return TollFree
	case typePremium:
		return PremiumRate
	case typeShared:
		return SharedCost
	case typeVoIP:
		return VoIP
	case typePager:
		return Pager
	case typeUAN:
		return UAN
	case typeVoicemail:
		return Voicemail
	}
	return Unknown // typeNone, typePersonal
}

// geographic ports libphonenumber's IsNumberGeographicalForType.
func (t lpnType) geographic(cc int) bool {
	switch t {
	case typeFixed, typeFixedOrMobile:
		return true
	case typeMobile:
		switch cc {
		case 52, 54, 55, 62, 86: // libphonenumber's GEO_MOBILE_COUNTRIES
			return true
		}
	}
	return false
}

// typeOf ports libphonenumber's getNumberTypeHelper: one automaton walk gives
// every pattern that matches; the possible lengths and libphonenumber's order
// of precedence decide.
func (r *region) typeOf(national []byte) lpnType {
	return r.typeOfMask(r.automata().types.match(national), len(national))
}

// typeOfMask decides the type from the automaton's mask for a number of
// length l.
func (r *region) typeOfMask(mask uint16, l int) lpnType {
	if l >= 32 {
		return typeNone
	}
	is := func(d int) bool { return mask&(1<<d) != 0 && r.lengths[d]&(1<<l) != 0 }
	switch {
	case !is(descGeneral):
		return typeNone
	case is(descPremium):
		return typePremium
	case is(descTollFree):
		return typeTollFree
	case is(descShared):
		return typeShared
	case is(descVoIP):
		return typeVoIP
	case is(descPersonal):
		return typePersonal
	case is(descPager):
		return typePager
	case is(descUAN):
		return typeUAN
	case is(descVoicemail):
		return typeVoicemail
	case is(descFixed):
		if r.sameMF || is(descMobile) {
			return typeFixedOrMobile
		}
		return typeFixed
	case !r.sameMF && is(descMobile):
		return typeMobile
	}
	return typeNone
}
