package numbering

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/numenhq/numen/data"
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

// Network returns the network with the given MCCMNC. A code the list does
// not have returns false.
func (p *Plan) Network(mccmnc string) (Network, bool) {
	i := sort.Search(len(p.networkList), func(i int) bool { return p.networkList[i].MCCMNC >= mccmnc })
	if i < len(p.networkList) && p.networkList[i].MCCMNC == mccmnc {
		return p.networkList[i], true
	}
	return Network{}, false
}

// Networks returns the operational networks of a region (ISO code), by
// MCCMNC, including those it shares with other regions. The slice is
// shared: do not modify it.
func (p *Plan) Networks(region string) []Network { return p.networksOf[region] }

// RegionOfMCC returns the home region of a mobile country code: the region
// most of its networks belong to ("GB" for 234), or "" when the list has no
// network under it.
func (p *Plan) RegionOfMCC(mcc string) string { return p.mccRegion[mcc] }

// Country describes a region for the country fields of lookup results.
type Country struct {
	Code   string // ISO 3166-1 alpha-2, such as "DE"
	Name   string // English name, such as "Germany"
	Prefix string // calling code with plus sign, such as "+49"
}

// Country returns the country of an ISO region code (upper case); false
// when the plan has no such region.
func (p *Plan) Country(region string) (Country, bool) {
	cc, ok := p.byRegion[region]
	if !ok {
		return Country{}, false
	}
	c := &p.codes[p.byCC[cc]]
	for i, id := range c.ids {
		if id == region {
			return Country{Code: region, Name: p.regions[c.regions[i]].name, Prefix: c.prefix}, true
		}
	}
	return Country{}, false
}

// loadNetworks reads numbering/networks.tsv: mccmnc, regions (home first,
// comma-separated), brand, operator, status; sorted by mccmnc.
func (p *Plan) loadNetworks() error {
	const name = "numbering/networks.tsv"
	raw, err := data.ReadFile(name)
	if err != nil {
		return err
	}
	p.networksOf = map[string][]Network{}
	mccCount := map[string]map[string]int{}
	for line := 1; len(raw) > 0; line++ {
		var text []byte
		text, raw, _ = bytes.Cut(raw, []byte{'\n'})
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		f := strings.Split(string(text), "\t")
		if len(f) != 5 || len(f[0]) < 5 || len(f[0]) > 6 || f[1] == "" {
			return fmt.Errorf("numbering: %s line %d: want mccmnc, regions, brand, operator, status", name, line)
		}
		if _, err := strconv.Atoi(f[0]); err != nil {
			return fmt.Errorf("numbering: %s line %d: mccmnc %q is not a number", name, line, f[0])
		}
		if n := len(p.networkList); n > 0 && p.networkList[n-1].MCCMNC >= f[0] {
			return fmt.Errorf("numbering: %s line %d: %s out of order", name, line, f[0])
		}
		regions := strings.Split(f[1], ",")
		nw := Network{MCCMNC: f[0], Region: regions[0], Regions: regions, Brand: f[2], Operator: f[3], Operational: f[4] == "Operational"}
		p.networkList = append(p.networkList, nw)
		if mccCount[nw.MCC()] == nil {
			mccCount[nw.MCC()] = map[string]int{}
		}
		mccCount[nw.MCC()][nw.Region]++
		if nw.Operational {
			for _, r := range regions {
				p.networksOf[r] = append(p.networksOf[r], nw)
			}
		}
	}
	p.mccRegion = make(map[string]string, len(mccCount))
	for mcc, counts := range mccCount {
		best := ""
		for r, n := range counts {
			if best == "" || n > counts[best] || n == counts[best] && r < best {
				best = r
			}
		}
		p.mccRegion[mcc] = best
	}
	return nil
}
