package numbering

// MobileNumbers counts the national significant numbers of a region that
// start with prefix (digits after the calling code) and are valid numbers of
// type MOBILE or MOBILE_OR_LANDLINE there. It measures number space, as the
// MCCMNC coverage report does ("what share of a country's mobile numbers
// resolves to a network"), by counting paths through the region's automaton:
// no enumeration. It returns 0 for an unknown region.
func (p *Plan) MobileNumbers(regionCode, prefix string) float64 {
	r := p.regionByID(regionCode)
	if r == nil {
		return 0
	}
	d := &r.automata().types
	s := 0
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		if c < '0' || c > '9' {
			return 0
		}
		if s = d.step(s, int(c-'0')); s < 0 {
			return 0
		}
	}
	// memo[state][l]: completions of the remaining digits that end, at total
	// length l, in a state where the number is mobile.
	memo := map[[2]int32]float64{}
	var count func(s, length int) float64
	count = func(s, length int) float64 {
		key := [2]int32{int32(s), int32(length)}
		if v, ok := memo[key]; ok {
			return v
		}
		var n float64
		if t := r.typeOfMask(d.acceptOf(s), length); t == typeMobile || t == typeFixedOrMobile {
			n = 1
		}
		if length < maxNationalDigits {
			for digit := 0; digit < 10; digit++ {
				if next := d.step(s, digit); next >= 0 {
					n += count(next, length+1)
				}
			}
		}
		memo[key] = n
		return n
	}
	return count(s, len(prefix))
}
