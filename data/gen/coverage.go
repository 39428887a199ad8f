package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/numenhq/numen/numbering"
	"github.com/nyaruka/phonenumbers/v2"
)

// regionCoverage is how much of one region's mobile number space the
// MCCMNC table resolves.
type regionCoverage struct {
	region   string
	mobile   float64 // mobile numbers the numbering plan allows in the region
	assigned float64 // of them, under a carrier prefix: ranges assigned to a network
	resolved float64 // of those, under a prefix mapped to exactly one MCCMNC
	unmapped map[string]float64
}

// share is the share of the assigned mobile number space that resolves to
// exactly one MCCMNC: the figure of the target. Numbers of ranges no
// carrier holds (unassigned, or unknown to libphonenumber) cannot resolve
// to a network by any mapping; assignedShare says how much of the plan's
// mobile space that leaves out.
func (c *regionCoverage) share() float64 {
	if c.assigned == 0 {
		return 0
	}
	return c.resolved / c.assigned
}

func (c *regionCoverage) assignedShare() float64 {
	if c.mobile == 0 {
		return 0
	}
	return c.assigned / c.mobile
}

// coverage measures, per region, the share of the mobile number space (by
// count of numbers, not of prefixes) that falls under a carrier prefix
// whose carrier maps to exactly one MCCMNC. Each number counts under its
// longest carrier prefix only.
func coverage(plan *numbering.Plan, carrierTSV []byte, matches map[[2]string]*carrierMatch) []*regionCoverage {
	type entry struct{ prefix, carrier string }
	var entries []entry
	for _, l := range strings.Split(strings.TrimSuffix(string(carrierTSV), "\n"), "\n") {
		prefix, name, _ := strings.Cut(l, "\t")
		entries = append(entries, entry{prefix, name})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].prefix < entries[j].prefix })
	byRegion := map[string]*regionCoverage{}
	get := func(region string) *regionCoverage {
		c := byRegion[region]
		if c == nil {
			c = &regionCoverage{region: region, mobile: plan.MobileNumbers(region, ""), unmapped: map[string]float64{}}
			byRegion[region] = c
		}
		return c
	}
	for cc := range phonenumbers.GetSupportedCallingCodes() {
		for _, region := range phonenumbers.GetRegionCodesForCountryCode(cc) {
			if region != phonenumbers.REGION_CODE_FOR_NON_GEO_ENTITY {
				get(region)
			}
		}
	}
	// own counts the numbers of prefix i that no longer prefix claims:
	// its count less its direct children's.
	for i, e := range entries {
		cc, _ := callingCodeOf(e.prefix)
		national := e.prefix[len(fmt.Sprint(cc)):]
		m := matches[matchKey(e.prefix, e.carrier)]
		for _, region := range phonenumbers.GetRegionCodesForCountryCode(cc) {
			if region == phonenumbers.REGION_CODE_FOR_NON_GEO_ENTITY {
				continue
			}
			own := plan.MobileNumbers(region, national)
			if own == 0 {
				continue
			}
			// Direct children: the following prefixes that extend this one
			// and are not inside an earlier child.
			for j := i + 1; j < len(entries) && strings.HasPrefix(entries[j].prefix, e.prefix); {
				own -= plan.MobileNumbers(region, entries[j].prefix[len(fmt.Sprint(cc)):])
				child := entries[j].prefix
				for j++; j < len(entries) && strings.HasPrefix(entries[j].prefix, child); j++ {
				}
			}
			c := get(region)
			c.assigned += own
			if m.mccmnc != "" && (m.region == region || len(phonenumbers.GetRegionCodesForCountryCode(cc)) == 1) {
				c.resolved += own
			} else {
				c.unmapped[e.carrier] += own
			}
		}
	}
	out := make([]*regionCoverage, 0, len(byRegion))
	for _, c := range byRegion {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].region < out[j].region })
	return out
}

// writeCoverage writes the coverage table in Markdown: every region with
// mobile numbers, its share resolved, and its largest unmapped carriers.
func writeCoverage(w io.Writer, cov []*regionCoverage) {
	target, withData := 0, 0
	for _, c := range cov {
		if c.assigned > 0 {
			withData++
			if c.share() >= 0.95 {
				target++
			}
		}
	}
	fmt.Fprintf(w, "%d of the %d regions with carrier range data have at least 95%% of their assigned mobile number space resolved to exactly one MCCMNC.\n\n", target, withData)
	fmt.Fprintln(w, "| region | mobile numbers in the plan | of them assigned to a carrier | assigned space resolved to one MCCMNC | largest unmapped carriers (share of the assigned space) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---|")
	for _, c := range cov {
		if c.mobile == 0 {
			continue
		}
		type u struct {
			name string
			n    float64
		}
		var us []u
		for name, n := range c.unmapped {
			if n > 0 {
				us = append(us, u{name, n})
			}
		}
		sort.Slice(us, func(i, j int) bool { return us[i].n > us[j].n || us[i].n == us[j].n && us[i].name < us[j].name })
		var parts []string
		for i, x := range us {
			if i == 4 {
				parts = append(parts, fmt.Sprintf("%d more", len(us)-4))
				break
			}
			parts = append(parts, fmt.Sprintf("%s (%.1f%%)", x.name, 100*x.n/c.assigned))
		}
		fmt.Fprintf(w, "| %s | %.3g | %.1f%% | %.1f%% | %s |\n", c.region, c.mobile, 100*c.assignedShare(), 100*c.share(), strings.Join(parts, ", "))
	}
}

// writeCurationHints lists, for the alias file's curators, the carriers
// that hold at least 1% of a region's mobile numbers without an MCCMNC,
// with the candidate networks of the ambiguous ones.
func writeCurationHints(w io.Writer, cov []*regionCoverage, matches map[[2]string]*carrierMatch, list []mccEntry) {
	names := map[string]string{}
	for _, e := range list {
		names[e.CountryCode+" "+e.mccmnc()] = deref(e.Brand) + " / " + deref(e.Operator) + " [" + e.Status + "]"
	}
	for _, c := range cov {
		for carrier, n := range c.unmapped {
			if c.assigned == 0 || n/c.assigned < 0.01 {
				continue
			}
			var m *carrierMatch
			for _, x := range matches {
				if x.carrier == carrier && (x.region == c.region || slicesContainsRegion(x.candidates, c.region)) {
					m = x
				}
			}
			how, cands := "?", ""
			if m != nil {
				how = m.how
				for _, cand := range m.candidates {
					cands += "\n      " + cand + " " + names[cand]
				}
			}
			fmt.Fprintf(w, "%s\t%s\t%.1f%%\t%s%s\n", c.region, carrier, 100*n/c.assigned, how, cands)
		}
	}
}

func slicesContainsRegion(cands []string, region string) bool {
	for _, c := range cands {
		if strings.HasPrefix(c, region+" ") {
			return true
		}
	}
	return false
}
