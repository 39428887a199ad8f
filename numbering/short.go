package numbering

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// ShortCost is the expected cost of calling a short number, in
// libphonenumber's categories. The zero value is UnknownCost.
type ShortCost uint8

// The cost categories.
const (
	UnknownCost      ShortCost = iota // no category matches
	TollFreeCost                      // free to the caller (emergency numbers are)
	StandardRateCost                  // the price of an ordinary call or message
	PremiumRateCost                   // more than an ordinary call
)

// String returns libphonenumber's name of the category: "TOLL_FREE",
// "STANDARD_RATE", "PREMIUM_RATE" or "UNKNOWN_COST".
func (c ShortCost) String() string {
	switch c {
	case TollFreeCost:
		return "TOLL_FREE"
	case StandardRateCost:
		return "STANDARD_RATE"
	case PremiumRateCost:
		return "PREMIUM_RATE"
	}
	return "UNKNOWN_COST"
}

// ShortInfo is what the plan knows of a short number dialled in a region
// (Plan.ShortNumber). Each field is the answer of the libphonenumber
// function named beside it; as there, an invalid number may still match a
// cost category or be carrier-specific.
type ShortInfo struct {
	Valid    bool // IsValidShortNumberForRegion: a short number of the region
	Possible bool // IsPossibleShortNumberForRegion: of a length short numbers of the region have
	// Emergency (IsEmergencyNumber): the input is exactly an emergency
	// number of the region.
	Emergency bool
	// ConnectsToEmergency (ConnectsToEmergencyNumber): dialling the input
	// reaches the emergency services: it is an emergency number, or, except
	// in regions where only the exact number does (Brazil, Chile,
	// Nicaragua), one followed by more digits.
	ConnectsToEmergency bool
	Cost                ShortCost // GetExpectedCostForRegion
	CarrierSpecific     bool      // IsCarrierSpecificForRegion: its meaning depends on the caller's network
	SMS                 bool      // IsSmsServiceForRegion: meant for text messages
}

// ErrNoShortNumbers is returned by Plan.ShortNumber when the plan file has
// no short-number section (a plan cut without it; see compile.Strip).
var ErrNoShortNumbers = errors.New("numbering: the plan has no short-number data")

// ShortNumber answers what libphonenumber's ShortNumberInfo answers for s
// dialled in region (an ISO 3166-1 alpha-2 code in either case, such as
// "DE"): whether it is a valid or possible short number there, an
// emergency number or one that still reaches the emergency services, its
// expected cost, and whether it is carrier-specific or an SMS service.
//
// s is read as dialled in the region: its digits, without spaces, dashes
// and other separators, are the short number, and neither a trunk nor an
// international prefix is removed, since short numbers have none. Letters
// follow Parse's rules (after three digits; a lone "x" marks an extension,
// which is refused) and libphonenumber's normalisation: three or more are
// vanity letters and become keypad digits ("0800 TAXI"), fewer are
// dropped ("112a" is 112).
// Input with "+" is read in international form (Parse), and is a short
// number of the region only when its calling code is the region's. The
// emergency answers follow libphonenumber's reading of the input as
// written: from its first digit, its digits only (letters ignored), and
// never after a leading "+".
//
// A region that the plan does not know is a *RegionError; a region without
// short numbers in libphonenumber's metadata answers false everywhere.
// A plan without short-number data returns ErrNoShortNumbers. Load reads
// the short-number data at the first call (a *FormatError then would mean
// a damaged executable). ShortNumber does not allocate.
func (p *Plan) ShortNumber(s, region string) (ShortInfo, error) {
	if err := p.shortNumbers(); err != nil {
		return ShortInfo{}, err
	}
	if p.short.regions == nil {
		return ShortInfo{}, ErrNoShortNumbers
	}
	ri := p.regionIndex(region)
	if ri < 0 {
		return ShortInfo{}, &RegionError{Region: region}
	}
	rg := &p.regions[ri]
	var info ShortInfo
	i := p.short.byRegion[regionKey(rg.id)]
	if i == 0 {
		return info, nil
	}
	sr := &p.short.regions[i-1]
	info.Emergency, info.ConnectsToEmergency = sr.emergency(s)
	var buf [maxDialled]byte
	nsn, ok := p.shortDigits(s, rg, &buf)
	if !ok {
		return info, nil
	}
	l := len(nsn)
	accept := sr.a.match(nsn)
	matches := func(d int) bool {
		return accept&(1<<d) != 0 && (sr.anyLength&(1<<d) != 0 || sr.hasLength(d, l))
	}
	info.Possible = sr.hasLength(planfmt.ShortGeneral, l)
	info.Valid = matches(planfmt.ShortGeneral) && matches(planfmt.ShortCode)
	if info.Possible {
		switch {
		case matches(planfmt.ShortPremiumRate):
			info.Cost = PremiumRateCost
		case matches(planfmt.ShortStandardRate):
			info.Cost = StandardRateCost
		case matches(planfmt.ShortTollFree), accept&(1<<planfmt.ShortEmergency) != 0:
			info.Cost = TollFreeCost // emergency numbers are toll-free
		}
	}
	info.CarrierSpecific = matches(planfmt.ShortCarrierSpecific)
	info.SMS = matches(planfmt.ShortSMSServices)
	return info, nil
}

// shortDigits returns the national significant number of a short number
// dialled in region rg (see ShortNumber), written into buf, or false when s
// holds none: no digits, a character that no number has, too many digits,
// or international input of another calling code.
func (p *Plan) shortDigits(s string, rg *region, buf *[maxDialled]byte) ([]byte, bool) {
	nd, plus, simple := collectSimple(s, buf)
	letters := false
	if !simple {
		var reason Reason
		if nd, plus, letters, reason, _ = collect(s, buf); reason != NoReason {
			return nil, false
		}
	}
	if nd > len(buf) {
		return nil, false
	}
	if !plus {
		if letters {
			nd = dropFewLetters(s, buf, nd)
		}
		return buf[:nd], true
	}
	var n Number
	cc, reason, _ := p.parse(s, &n)
	if reason != NoReason || cc.code != rg.cc {
		return nil, false
	}
	return buf[:copy(buf[:], n.national())], true
}

// dropFewLetters applies libphonenumber's normalisation of letters to a
// short number that collect read with letters into buf (nd digits):
// letters become keypad digits only when the input has three or more
// ("0800 TAXI"); fewer are dropped ("112a" is 112). It returns the digits
// in buf.
func dropFewLetters(s string, buf *[maxDialled]byte, nd int) int {
	body := strings.TrimLeftFunc(s, isSpace)
	if len(body) >= 4 && asciiEqualFold(body[:4], "tel:") {
		body = body[4:]
	}
	if countLetters(body) >= 3 {
		return nd
	}
	nd = 0
	for _, r := range body {
		if d, ok := digitValue(r); ok && nd < len(buf) {
			buf[nd] = d
			nd++
		}
	}
	return nd
}

// shortNumbers is the ShortNumbers section: libphonenumber's short-number
// metadata, one automaton per region.
type shortNumbers struct {
	regions  []shortRegion
	byRegion [26 * 26]int16 // ISO code -> index into regions + 1; 0 when none
}

type shortRegion struct {
	a         automaton // one pattern per planfmt short desc
	lengths   [planfmt.ShortDescs]uint32
	anyLength uint16 // descs that list no possible lengths
	exact     bool   // only the emergency number itself reaches the services
}

// hasLength reports whether length l is among desc d's possible lengths
// (libphonenumber's hasPossibleLength).
func (sr *shortRegion) hasLength(d, l int) bool {
	return l < 32 && sr.lengths[d]&(1<<l) != 0
}

// emergency ports libphonenumber's matchesEmergencyNumber: s is read from
// its first digit or plus sign (a plus sign: no emergency number), up to a
// second number ("/ x"), and its digits, in any script, are matched
// against the region's emergency numbers: whole (exact), or, where the
// region allows it, as a prefix of them (connects).
func (sr *shortRegion) emergency(s string) (exact, connects bool) {
	st := 0
	prefix := sr.a.acceptOf(0)&(1<<planfmt.ShortEmergency) != 0
	started := false
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		i += size
		d, isDigit := decimalDigit(r)
		if !started {
			if r == '+' || r == '\uFF0B' {
				return false, false
			}
			if !isDigit {
				continue
			}
			started = true
		}
		if r == '/' || r == '\\' {
			j := i
			for j < len(s) && s[j] == ' ' {
				j++
			}
			if j < len(s) && s[j] == 'x' {
				break // a second number starts
			}
		}
		if !isDigit {
			continue
		}
		if st = sr.a.step(st, int(d-'0')); st < 0 {
			break
		}
		prefix = prefix || sr.a.acceptOf(st)&(1<<planfmt.ShortEmergency) != 0
	}
	exact = st >= 0 && sr.a.acceptOf(st)&(1<<planfmt.ShortEmergency) != 0
	return exact, exact || prefix && !sr.exact
}

// decimalDigit returns the ASCII digit of a decimal digit of any script
// (Unicode's Nd), as libphonenumber's digit normalisation reads it. Parse
// takes fewer scripts (digitValue); the emergency matching and Find take
// all, as libphonenumber's do.
func decimalDigit(r rune) (byte, bool) {
	if r < utf8.RuneSelf {
		return byte(r), r >= '0' && r <= '9'
	}
	// Unicode encodes the decimal digits of each script as ten
	// consecutive code points from zero, and the Nd table's ranges are
	// whole runs of them.
	for _, rg := range unicode.Nd.R16 {
		if r < rune(rg.Lo) {
			return 0, false
		}
		if r <= rune(rg.Hi) {
			return byte('0' + (r-rune(rg.Lo))%10), true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if r < rune(rg.Lo) {
			return 0, false
		}
		if r <= rune(rg.Hi) {
			return byte('0' + (r-rune(rg.Lo))%10), true
		}
	}
	return 0, false
}

// readShortNumbers reads the ShortNumbers section and checks its records
// and automata.
func (p *Plan) readShortNumbers(r *reader) {
	n, at := int(r.u32(0)), int(r.u32(4))
	if r.err != nil {
		return
	}
	if n == 0 || n > 26*26 || at < 8+n*planfmt.ShortRegionSize || at%planfmt.SectionAlign != 0 || at > len(r.b) {
		r.fail(0, "%d regions with automata at %d: impossible", n, at)
		return
	}
	automata := r.sub(at)
	sn := shortNumbers{regions: make([]shortRegion, n)}
	prev := ""
	for i := range sn.regions {
		off := 8 + i*planfmt.ShortRegionSize
		rec := r.slice(off, planfmt.ShortRegionSize)
		if rec == nil {
			return
		}
		// The file's bytes, as the string pool's strings are: Load
		// allocates nothing per region.
		id := unsafe.String(&rec[planfmt.ShortRegionCode], 2)
		if id[0] < 'A' || id[0] > 'Z' || id[1] < 'A' || id[1] > 'Z' || id <= prev {
			r.fail(off, "region code %q after %q", id, prev)
			return
		}
		prev = id
		sr := &sn.regions[i]
		flags := planfmt.U16(rec, planfmt.ShortRegionFlags)
		if flags&^planfmt.ShortExactEmergency != 0 {
			r.fail(off+planfmt.ShortRegionFlags, "region %s: flags %#x", id, flags)
			return
		}
		sr.exact = flags&planfmt.ShortExactEmergency != 0
		sr.a = readAutomaton(automata, planfmt.U32(rec, planfmt.ShortAutomaton), "short numbers")
		if automata.err != nil {
			if fe, ok := automata.err.(*FormatError); ok {
				fe.Msg = "region " + id + ": " + fe.Msg
			}
			r.err = automata.err
			return
		}
		for d := range sr.lengths {
			sr.lengths[d] = planfmt.U32(rec, planfmt.ShortLengths+4*d)
		}
		sr.anyLength = planfmt.U16(rec, planfmt.ShortAnyLength)
		sn.byRegion[regionKey(id)] = int16(i) + 1
	}
	p.short = sn
}
