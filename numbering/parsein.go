package numbering

import (
	"errors"
	"unicode/utf8"
)

// ErrNoDialling is the error ParseIn, ClassifyIn and ValidateIn return for a
// plan file without the dialling rules of its regions (one written before
// they were compiled into plans): it reads numbers in international format
// only. Regenerate the file with go run ./data/gen.
var ErrNoDialling = errors.New("numbering: the plan file has no dialling section, so it reads numbers in international format only (regenerate it with go run ./data/gen)")

// ParseIn reads a phone number as it is written or dialled in region, an
// ISO 3166-1 alpha-2 code such as "DE" (either case): national format with
// or without the region's national (trunk) prefix ("0151 23456789" in DE,
// "(201) 555-0123" in US), the region's international prefix and a calling
// code ("00 33 1 23 45 67 89" in DE, "011 44 20 7946 0000" in US), or a
// number in international format with "+", for which the region does not
// matter. It reads every input exactly as libphonenumber's
// parse(number, region) does, national-prefix-for-parsing and transform
// rules included (Argentina's 0 and 15, Brazil's carrier selection codes,
// the short local numbers of Jersey or the Virgin Islands), and so does not
// take "00" or bare digits as international form unless the region does:
// "0049..." is international in DE and national in US, "4915123456789" is
// read in DE as libphonenumber reads it (the calling code, when the number
// is not possible without it). Separators, vanity letters and other digit
// scripts are read as Parse reads them; extensions are refused.
//
// Input that cannot be read returns a *ParseError with the Reason and the
// region; an unknown region returns a *RegionError (ErrUnknownRegion), and
// a plan file without the regions' dialling rules ErrNoDialling. ParseIn
// does not allocate unless it fails.
func (p *Plan) ParseIn(s, region string) (Number, error) {
	rg, err := p.dialRegion(region)
	if err != nil {
		return Number{}, err
	}
	var n Number
	_, reason, off := p.parseIn(s, rg, &n)
	if reason != NoReason {
		return Number{}, &ParseError{Input: s, Reason: reason, Offset: off, Region: rg.id}
	}
	return n, nil
}

// ClassifyIn is ClassifyString for input written or dialled in region (see
// ParseIn): it parses and classifies in one step. Input that does not parse
// gives an invalid Result with the Reason, as ClassifyString's does; the
// error is only for an unknown region (*RegionError) or a plan without the
// dialling rules (ErrNoDialling). It does not allocate for a known region.
func (p *Plan) ClassifyIn(s, region string) (Result, error) {
	rg, err := p.dialRegion(region)
	if err != nil {
		return Result{Input: s, Status: StatusFailed, Reason: MissingCountryCode}, err
	}
	var n Number
	cc, reason, _ := p.parseIn(s, rg, &n)
	var res Result
	p.classifyParsed(&res, s, &n, cc, reason)
	return res, nil
}

// ValidateIn is Validate for input written or dialled in region (see
// ParseIn and ClassifyIn): validity, type and country only, ClassifyIn's
// answers. The error is only for an unknown region or a plan without the
// dialling rules. It does not allocate for a known region.
func (p *Plan) ValidateIn(s, region string) (Validity, error) {
	rg, err := p.dialRegion(region)
	if err != nil {
		return Validity{Reason: MissingCountryCode}, err
	}
	var v Validity
	cc, reason, _ := p.parseIn(s, rg, &v.Number)
	p.validateParsed(&v, cc, reason)
	return v, nil
}

// dialRegion returns the region of an ISO code (either case) for reading
// national input.
func (p *Plan) dialRegion(id string) (*region, error) {
	if !p.dialling {
		return nil, ErrNoDialling
	}
	ri := p.regionIndex(id)
	if ri < 0 {
		return nil, &RegionError{Region: id}
	}
	return &p.regions[ri], nil
}

// parseIn is ParseIn without allocation, with parse's results. It follows
// libphonenumber's parseHelper step by step: the digits; a "+" and the
// calling code after it; else the region's international prefix and a
// calling code (maybeStripInternationalPrefixAndNormalize,
// maybeExtractCountryCode); else the region's own calling code at the
// start, taken when the number is not possible without it; else a national
// number of the region; then the national prefix
// (maybeStripNationalPrefixAndCarrierCode) and the length checks.
func (p *Plan) parseIn(s string, rg *region, n *Number) (cc *callingCode, reason Reason, offset int) {
	var buf [maxDialled]byte
	nd, plus, letters, reason, offset := readDigits(s, &buf)
	if reason != NoReason {
		return nil, reason, offset
	}
	digits := buf[:nd]
	if nd == minNationalDigits && !plus && !adjacentDigits(s) {
		// libphonenumber takes two digits for a number only when
		// nothing stands between them ("01", not "0 1").
		return nil, NotANumber, -1
	}
	cc, reason, _ = p.parseDigits(n, digits, plus, letters, rg)
	return cc, reason, -1
}

// ccSource says where a reading found the calling code, as
// libphonenumber's CountryCodeSource: after a "+", after the region's
// international prefix, as the region's own code written without either,
// or not at all (the default region's).
type ccSource uint8

const (
	fromDefaultCountry ccSource = iota
	fromPlus
	fromIDD
	fromWithoutPlus
)

// parseDigits is parseIn once the digits are read: plus says whether a
// "+" came before them. rg may be nil (no default region): then only
// numbers after a "+" are read.
func (p *Plan) parseDigits(n *Number, digits []byte, plus, letters bool, rg *region) (cc *callingCode, reason Reason, src ccSource) {
	if plus {
		if len(digits) <= minNationalDigits {
			return nil, TooShort, fromPlus // libphonenumber: too short after the "+"
		}
		if cc, reason = p.international(n, digits, letters); reason != InvalidCountryCode {
			return cc, reason, fromPlus
		}
		if rg == nil {
			return nil, InvalidCountryCode, fromPlus
		}
		// libphonenumber tries once more without the plus sign, and keeps
		// that reading only when it finds a calling code: "+0049 ..." in
		// DE, or "+" before the region's own international prefix.
		if cc, reason, src = p.dialled(n, digits, rg, letters, true); reason == NoReason && cc == nil {
			return nil, InvalidCountryCode, src
		}
		return cc, reason, src
	}
	if rg == nil {
		return nil, InvalidCountryCode, fromDefaultCountry
	}
	return p.dialled(n, digits, rg, letters, false)
}

// dialled reads digits dialled in region rg without a plus sign into n.
// With codeOnly (libphonenumber's second reading of a "+" number) it stops
// before a national number of the region, returning cc nil and NoReason.
func (p *Plan) dialled(n *Number, digits []byte, rg *region, letters, codeOnly bool) (cc *callingCode, reason Reason, src ccSource) {
	if rg.idd != nil {
		// The international prefix counts only before a digit other
		// than 0, as calling codes never start with 0.
		if end, ok := rg.idd.prefixLen(digits); ok && (end == len(digits) || digits[end] != '0') {
			rest := digits[end:]
			if len(rest) <= minNationalDigits {
				return nil, TooShort, fromIDD
			}
			cc, reason = p.international(n, rest, letters)
			return cc, reason, fromIDD
		}
	}
	home := &p.codes[p.byCC[rg.cc]]
	code := home.prefix[1:]
	if len(digits) > len(code) && hasPrefix(digits, code) {
		// The region's calling code without "+" or a prefix: taken when
		// the number is not possible without it but is with it, or is
		// too long without it. The national prefix is stripped once by
		// the region's rule here, and once more by the main region's below.
		national := digits[len(code):]
		if rg.natPrefix != nil {
			var stripped [maxStripped]byte
			if nsn, ok := rg.natPrefix.strip(rg, national, &stripped); ok {
				national = nsn
			}
		}
		if !rg.possible(digits) && rg.possible(national) || rg.testLength(len(digits)) == TooLong {
			return home, p.national(n, home, national, &p.regions[home.regions[0]], home.strip, letters), fromWithoutPlus
		}
	}
	if codeOnly {
		return nil, NoReason, fromDefaultCountry
	}
	return home, p.national(n, home, digits, rg, rg.natPrefix, letters), fromDefaultCountry
}

// adjacentDigits reports whether the first two digits of s follow each
// other without a character between them.
func adjacentDigits(s string) bool {
	after := -1 // the byte offset after the first digit
	for i, r := range s {
		if _, ok := digitValue(r); ok {
			if after >= 0 {
				return i == after
			}
			after = i + utf8.RuneLen(r)
		} else if after >= 0 {
			return false
		}
	}
	return false
}

// possible reports whether national matches the region's general pattern
// (libphonenumber's check that a national number is viable).
func (r *region) possible(national []byte) bool {
	return r.automata().types.match(national)&(1<<descGeneral) != 0
}

// classifyParsed is ClassifyString's and ClassifyIn's answer for a reading
// of input s, written into res, which must be the zero Result.
func (p *Plan) classifyParsed(res *Result, s string, n *Number, cc *callingCode, reason Reason) {
	if reason != NoReason {
		res.Input, res.Status, res.Reason = s, StatusFailed, reason
		if cc != nil {
			res.Status = StatusOK
			res.CountryPrefix = cc.prefix
			if len(cc.regions) == 1 {
				p.setCountry(res, &p.regions[cc.regions[0]])
			}
		}
		return
	}
	p.classify(res, n)
	res.Input = s
}
