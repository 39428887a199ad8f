package numbering

import (
	"sort"
	"sync"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// Network is a mobile network of the MCC-MNC list shipped in package data:
// what a portability or HLR answer names by its MCCMNC alone (a ported-to
// or visited network) becomes a name and a country through it.
type Network struct {
	// MCCMNC is the mobile country code and network code, 5 or 6 digits.
	MCCMNC string
	// Region is the ISO 3166-1 alpha-2 code of the network's home country.
	Region string
	// Regions are all the regions whose networks list the code, home first
	// (Telstra's 50501 serves AU, CC and CX). Shared: do not modify.
	Regions []string
	// Brand is the name the network sells under, Operator the company that
	// runs it; either may be "".
	Brand, Operator string
	// Operational is false for networks the list marks not operational,
	// withdrawn or of unknown status.
	Operational bool
}

// Name returns the network's brand, else its operator's name.
func (n Network) Name() string {
	if n.Brand != "" {
		return n.Brand
	}
	return n.Operator
}

// MCC returns the mobile country code, MNC the mobile network code.
func (n Network) MCC() string { return n.MCCMNC[:min(3, len(n.MCCMNC))] }

// MNC returns the mobile network code: the digits after the MCC.
func (n Network) MNC() string { return n.MCCMNC[min(3, len(n.MCCMNC)):] }

// networkList is the Networks section: the MCC-MNC list, read in place.
type networkList struct {
	records []byte // planfmt.NetworkSize each, by ascending MCCMNC
	n       int
	pool    stringPool  // the section's strings
	strings *stringPool // &pool
	regions []string    // the records' region lists
	mccs    []byte      // (uint32 MCC, uint32 home region string) by ascending MCC
	home    []string    // home region of each MCC record

	once     sync.Once
	byRegion map[string][]Network // operational networks by region, built on first use
}

func (l *networkList) read(r *reader) {
	// The section's strings follow its tables: find them first.
	n := int(r.u32(0))
	if n > len(r.b)/planfmt.NetworkSize {
		r.fail(0, "%d networks cannot fit in %d bytes", n, len(r.b))
		return
	}
	at := 4 + n*planfmt.NetworkSize
	total := int(r.u32(at))
	if r.err != nil || total > len(r.b)/4 {
		r.fail(at, "%d network regions cannot fit", total)
		return
	}
	mccsAt := at + 4 + 4*total
	mccs := int(r.u32(mccsAt))
	if r.err != nil || mccs > len(r.b)/8 {
		r.fail(mccsAt, "%d MCCs cannot fit", mccs)
		return
	}
	pool := r.sub(mccsAt + 4 + 8*mccs)
	l.pool = readStrings(pool)
	if pool.err != nil {
		r.err = pool.err
		return
	}
	l.decode(r, &l.pool)
}

func (l *networkList) decode(r *reader, strs *stringPool) {
	n := int(r.u32(0))
	if n > len(r.b)/planfmt.NetworkSize {
		r.fail(0, "%d networks cannot fit in %d bytes", n, len(r.b))
		return
	}
	l.records = r.slice(4, n*planfmt.NetworkSize)
	at := 4 + n*planfmt.NetworkSize
	total := int(r.u32(at))
	if r.err != nil {
		return
	}
	if total > len(r.b)/4 {
		r.fail(at, "%d network regions cannot fit", total)
		return
	}
	l.regions = make([]string, total)
	for i := range l.regions {
		l.regions[i] = r.str(strs, at+4+4*i)
	}
	at += 4 + 4*total
	mccs := int(r.u32(at))
	if r.err != nil {
		return
	}
	if mccs > len(r.b)/8 {
		r.fail(at, "%d MCCs cannot fit", mccs)
		return
	}
	l.mccs = r.slice(at+4, 8*mccs)
	l.home = make([]string, mccs)
	for i := range l.home {
		l.home[i] = r.str(strs, at+4+8*i+4)
		if i > 0 && r.u32(at+4+8*i) <= r.u32(at+4+8*i-8) {
			r.fail(at+4+8*i, "MCC %d out of order", r.u32(at+4+8*i))
		}
	}
	prev := ""
	for i := range n {
		rec := 4 + i*planfmt.NetworkSize
		code := r.str(strs, rec+planfmt.NetworkMCCMNC)
		r.str(strs, rec+planfmt.NetworkBrand)
		r.str(strs, rec+planfmt.NetworkOperator)
		first, count := int(r.u32(rec+planfmt.NetworkFirstRegion)), int(r.u32(rec+planfmt.NetworkRegionCount))
		if r.err != nil {
			return
		}
		if len(code) < 5 || len(code) > 6 || code <= prev || count == 0 || first > total || count > total-first {
			r.fail(rec, "network %d (%q): bad code, order or regions", i, code)
			return
		}
		prev = code
	}
	l.n, l.strings = n, strs
}

func (l *networkList) at(i int) Network {
	rec := l.records[i*planfmt.NetworkSize:]
	first, count := int(planfmt.U32(rec, planfmt.NetworkFirstRegion)), int(planfmt.U32(rec, planfmt.NetworkRegionCount))
	regions := l.regions[first : first+count : first+count]
	return Network{
		MCCMNC:      l.strings.get(planfmt.U32(rec, planfmt.NetworkMCCMNC)),
		Region:      regions[0],
		Regions:     regions,
		Brand:       l.strings.get(planfmt.U32(rec, planfmt.NetworkBrand)),
		Operator:    l.strings.get(planfmt.U32(rec, planfmt.NetworkOperator)),
		Operational: planfmt.U32(rec, planfmt.NetworkFlags)&planfmt.NetworkOperational != 0,
	}
}

func (l *networkList) code(i int) string {
	return l.strings.get(planfmt.U32(l.records, i*planfmt.NetworkSize+planfmt.NetworkMCCMNC))
}

// Network returns the network with the given MCCMNC. A code the list does
// not have returns false, as does every code for a plan without the
// MCC-MNC list.
func (p *Plan) Network(mccmnc string) (Network, bool) {
	l := p.networkList()
	i := sort.Search(l.n, func(i int) bool { return l.code(i) >= mccmnc })
	if i < l.n && l.code(i) == mccmnc {
		return l.at(i), true
	}
	return Network{}, false
}

// Networks returns the operational networks of a region (ISO code), by
// MCCMNC, including those it shares with other regions. The slice is
// shared: do not modify it. The first call builds the lists of every
// region.
func (p *Plan) Networks(region string) []Network {
	l := p.networkList()
	l.once.Do(func() {
		l.byRegion = map[string][]Network{}
		for i := range l.n {
			if nw := l.at(i); nw.Operational {
				for _, r := range nw.Regions {
					l.byRegion[r] = append(l.byRegion[r], nw)
				}
			}
		}
	})
	return l.byRegion[region]
}

// RegionOfMCC returns the home region of a mobile country code: the region
// most of its networks belong to ("GB" for 234), or "" when the list has no
// network under it.
func (p *Plan) RegionOfMCC(mcc string) string {
	if len(mcc) != 3 || mcc[0] < '0' || mcc[0] > '9' || mcc[1] < '0' || mcc[1] > '9' || mcc[2] < '0' || mcc[2] > '9' {
		return ""
	}
	v := uint32(mcc[0]-'0')*100 + uint32(mcc[1]-'0')*10 + uint32(mcc[2]-'0')
	l := p.networkList()
	i := sort.Search(len(l.home), func(i int) bool { return planfmt.U32(l.mccs, 8*i) >= v })
	if i < len(l.home) && planfmt.U32(l.mccs, 8*i) == v {
		return l.home[i]
	}
	return ""
}

// Country describes a region for the country fields of lookup results.
type Country struct {
	Code   string // ISO 3166-1 alpha-2, such as "DE"
	Name   string // English name, such as "Germany"
	Prefix string // calling code with plus sign, such as "+49"
}

// Country returns the country of an ISO region code (upper case); false
// when the plan has no such region.
func (p *Plan) Country(region string) (Country, bool) {
	r := p.regionByID(region)
	if r == nil {
		return Country{}, false
	}
	return Country{Code: r.id, Name: r.name, Prefix: p.codes[p.byCC[r.cc]].prefix}, true
}
