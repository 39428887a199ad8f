package simnet

import (
	"slices"

	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
)

// state is a simulated subscriber's connectivity.
type state uint8

const (
	connected state = iota
	absent
	unassigned
)

// subscriber is everything simulated about a number, the same for every
// query of it: HLR and Portability answer from it.
type subscriber struct {
	state state
	// current is the network the number belongs to now: the ported-to
	// network, else the original; zero when the number has no home
	// network.
	current mnp.NetworkRef
	ported  mnp.Bool
	roaming mnp.Bool
	visited mnp.NetworkRef // when roaming
	hash    uint64         // the number's hash, for the identity's digits
}

// Slots of a number's hash: each property draws from its own, so that
// changing one rate does not reshuffle the others.
const (
	slotState = iota + 1
	slotHome
	slotPorted
	slotPortTo
	slotRoaming
	slotVisitRegion
	slotVisitNet
	slotIdentity
)

func (n *Net) subscriber(q mnp.Query) subscriber {
	h := n.numberHash(q.Number)
	s := subscriber{hash: h, state: unassigned}
	switch u := unit(draw(h, slotState)); {
	case u < n.connected:
		s.state = connected
	case u < n.absent:
		s.state = absent
	}

	region, home := q.Region, q.MCCMNC
	if home == "" {
		nets := n.plan.Networks(region)
		if len(nets) == 0 {
			return s // no home network: porting and roaming unknown
		}
		home = nets[draw(h, slotHome)%uint64(len(nets))].MCCMNC
	} else if region == "" {
		if nw, ok := n.plan.Network(home); ok {
			region = nw.Region
		}
	}
	s.current, s.ported = n.ref(home), mnp.False
	if s.state == unassigned {
		return s // nobody to have ported or to roam
	}

	if unit(draw(h, slotPorted)) < n.ported {
		if to, ok := portTo(n.plan.Networks(region), home, draw(h, slotPortTo)); ok {
			s.current, s.ported = refOf(to), mnp.True
		}
	}
	s.roaming = mnp.False
	if unit(draw(h, slotRoaming)) < n.roaming {
		if v, ok := n.visit(region, draw(h, slotVisitRegion), draw(h, slotVisitNet)); ok {
			s.visited, s.roaming = refOf(v), mnp.True
		}
	}
	return s
}

// portTo picks the network a number of home moved to among its region's
// networks: any but home, none when the region has fewer than two.
func portTo(nets []numbering.Network, home string, r uint64) (numbering.Network, bool) {
	if len(nets) < 2 {
		return numbering.Network{}, false
	}
	others := len(nets)
	if slices.ContainsFunc(nets, func(nw numbering.Network) bool { return nw.MCCMNC == home }) {
		others--
	}
	k := int(r % uint64(others))
	for _, nw := range nets {
		if nw.MCCMNC == home {
			continue
		}
		if k == 0 {
			return nw, true
		}
		k--
	}
	return numbering.Network{}, false // not reached
}

// visit picks the network a subscriber of home region roams on: one of
// the roaming regions other than home, and there a network that does not
// serve home too (GB networks that also serve JE are no roaming for a JE
// number). False when there is none.
func (n *Net) visit(home string, rRegion, rNet uint64) (numbering.Network, bool) {
	regions := len(n.visits)
	if slices.ContainsFunc(n.visits, func(v visitRegion) bool { return v.region == home }) {
		regions--
	}
	if regions == 0 {
		return numbering.Network{}, false
	}
	k := int(rRegion % uint64(regions))
	var nets []numbering.Network
	for _, v := range n.visits {
		if v.region == home {
			continue
		}
		if k == 0 {
			nets = v.nets
			break
		}
		k--
	}
	foreign := 0
	for _, nw := range nets {
		if !slices.Contains(nw.Regions, home) {
			foreign++
		}
	}
	if foreign == 0 {
		return numbering.Network{}, false
	}
	k = int(rNet % uint64(foreign))
	for _, nw := range nets {
		if slices.Contains(nw.Regions, home) {
			continue
		}
		if k == 0 {
			return nw, true
		}
		k--
	}
	return numbering.Network{}, false // not reached
}

// ref names the network mccmnc as completely as the plan can.
func (n *Net) ref(mccmnc string) mnp.NetworkRef {
	if nw, ok := n.plan.Network(mccmnc); ok {
		return refOf(nw)
	}
	return mnp.NetworkRef{MCCMNC: mccmnc}
}

func refOf(nw numbering.Network) mnp.NetworkRef {
	return mnp.NetworkRef{MCCMNC: nw.MCCMNC, Name: nw.Name(), Region: nw.Region}
}

// identity makes the masked IMSI, MSIN and MSC of a subscriber of network
// mccmnc, in one allocation: "26201*******123", "*******123" and
// "SIMULATOR456". The IMSI has 15 characters, as real ones do; the MSC
// says what it is.
func identity(mccmnc string, h uint64) (imsi, msin, msc string) {
	const imsiLen, mscLen = 15, 12
	if len(mccmnc) != 5 && len(mccmnc) != 6 {
		return "", "", ""
	}
	var b [imsiLen + mscLen]byte
	copy(b[:], mccmnc)
	for i := len(mccmnc); i < imsiLen-3; i++ {
		b[i] = '*'
	}
	r := draw(h, slotIdentity)
	putDigits(b[imsiLen-3:imsiLen], r)
	copy(b[imsiLen:], "SIMULATOR")
	putDigits(b[imsiLen+mscLen-3:], r>>32)
	s := string(b[:])
	return s[:imsiLen], s[len(mccmnc):imsiLen], s[imsiLen:]
}

// putDigits writes the last len(b) decimal digits of r into b.
func putDigits(b []byte, r uint64) {
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte('0' + r%10)
		r /= 10
	}
}

// numberHash hashes a number's E.164 digits (FNV-1a) with the seed.
func (n *Net) numberHash(num numbering.Number) uint64 {
	var buf [24]byte
	h := uint64(14695981039346656037)
	for _, c := range num.AppendTo(buf[:0]) {
		if c != '+' {
			h = (h ^ uint64(c)) * 1099511628211
		}
	}
	return mix(h ^ n.seed)
}

// draw returns the value of a hash's slot: independent 64-bit values, as
// consecutive outputs of a SplitMix64 generator seeded with h.
func draw(h uint64, slot uint64) uint64 { return mix(h + slot*0x9e3779b97f4a7c15) }

// mix is SplitMix64's finaliser: a bijection whose output bits each
// depend on every input bit.
func mix(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// unit maps a 64-bit draw onto [0, 1).
func unit(x uint64) float64 { return float64(x>>11) / (1 << 53) }
