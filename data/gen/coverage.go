package main

import (
	"fmt"
	"io"
	"slices"
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
	noCode   float64 // of those, held by services curated as having no MCCMNC (pagers, ...)
	unmapped map[string]float64
	// sharesWith is the main region of the calling code when this region
	// allows exactly the main region's mobile numbers (Åland's are
	// Finland's): such numbers classify as the main region, so the region
	// has no mobile space of its own to measure.
	sharesWith string
}

// share is the share of the assigned mobile number space that resolves to
// exactly one MCCMNC: the figure of the target. Numbers of ranges no
// carrier holds (unassigned, or unknown to libphonenumber) cannot resolve
// to a network by any mapping; assignedShare says how much of the plan's
// mobile space that leaves out.
//
// Ranges of services that have no mobile network code at all (paging
// networks, machine-to-machine ranges hosted on several networks), curated
// with "-" in the alias file, are left out of the denominator: no mapping
// can resolve them. strictShare keeps them in.
func (c *regionCoverage) share() float64 {
	if c.assigned-c.noCode <= 0 {
		return 0
	}
	return c.resolved / (c.assigned - c.noCode)
}

func (c *regionCoverage) strictShare() float64 {
	if c.assigned == 0 {
		return 0
	}
	return c.resolved / c.assigned
}

// validShare is the share of all the region's valid mobile numbers (those
// the plan calls MOBILE or MOBILE_OR_LANDLINE) that resolve to exactly one
// MCCMNC: what a caller sees, ranges no carrier holds counted as
// unresolved.
func (c *regionCoverage) validShare() float64 {
	if c.mobile == 0 {
		return 0
	}
	return c.resolved / c.mobile
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
//
// Carrier names resolve through matches; the prefixes of curated ranges
// resolve to their own MCCMNC.
//
// A number counts as resolved in its region when its range's MCCMNC is a
// network of that region in the list (codeRegions: MCCMNC -> regions):
// regions that share a calling code often share networks too (JT's 234-50
// serves Guernsey and Jersey).
func coverage(plan *numbering.Plan, carrierTSV []byte, matches map[[2]string]*carrierMatch, ranges []curatedRange, codeRegions map[string][]string) []*regionCoverage {
	curated := map[string]*carrierMatch{}
	for _, r := range ranges {
		curated[r.prefix] = &carrierMatch{region: r.region, carrier: r.operator, mccmnc: r.mccmnc, how: "range"}
	}
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
		m := curated[e.prefix]
		if m == nil {
			m = matches[matchKey(e.prefix, e.carrier)]
		}
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
			switch {
			case m.mccmnc != "" && (m.region == region || len(phonenumbers.GetRegionCodesForCountryCode(cc)) == 1 || slices.Contains(codeRegions[m.mccmnc], region)):
				c.resolved += own
			case m.how == "excluded":
				c.noCode += own
				c.unmapped[e.carrier+" (no MCCMNC)"] += own
			default:
				c.unmapped[e.carrier] += own
			}
		}
	}
	out := make([]*regionCoverage, 0, len(byRegion))
	for _, c := range byRegion {
		cc := phonenumbers.GetCountryCodeForRegion(c.region)
		if main := phonenumbers.GetRegionCodeForCountryCode(cc); main != c.region {
			if m := byRegion[main]; m != nil && m.mobile == c.mobile && c.mobile > 0 {
				c.sharesWith = main
			}
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].region < out[j].region })
	return out
}

// writeCoverage writes the coverage table in Markdown: every region with
// mobile numbers, its share resolved, and its largest unmapped carriers.
func writeCoverage(w io.Writer, cov []*regionCoverage) {
	target, strict, withData, valid, withMobile := 0, 0, 0, 0, 0
	var shared []string
	for _, c := range cov {
		switch {
		case c.sharesWith != "":
			shared = append(shared, c.region+" ("+c.sharesWith+")")
			continue
		case c.assigned > 0:
			withData++
			if c.share() >= 0.95 {
				target++
			}
			if c.strictShare() >= 0.95 {
				strict++
			}
		}
		if c.mobile > 0 {
			withMobile++
			if c.validShare() >= 0.95 {
				valid++
			}
		}
	}
	fmt.Fprintf(w, "Of all valid mobile numbers, at least 95%% resolve to exactly one MCCMNC in %d of the %d regions with mobile numbers. ", valid, withMobile)
	fmt.Fprintf(w, "Of the mobile number space assigned to carriers, at least 95%% resolves in %d of the %d regions with carrier range data (%d when ranges of services without any MCCMNC count as unresolved).\n\n", target, withData, strict)
	fmt.Fprintln(w, "| region | mobile numbers in the plan | of them assigned to a carrier | assigned to services without an MCCMNC | of all mobile numbers, resolved to one MCCMNC | of the assigned, resolved to one MCCMNC | of the assigned, resolved, strict | largest unresolved carriers (share of the assigned space) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---|")
	for _, c := range cov {
		if c.mobile == 0 || c.sharesWith != "" {
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
		noCode := 0.0
		if c.assigned > 0 {
			noCode = c.noCode / c.assigned
		}
		fmt.Fprintf(w, "| %s | %.3g | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %s |\n", c.region, c.mobile, 100*c.assignedShare(), 100*noCode, 100*c.validShare(), 100*c.share(), 100*c.strictShare(), strings.Join(parts, ", "))
	}
	if len(shared) > 0 {
		fmt.Fprintf(w, "\nNot listed: regions whose mobile numbers are exactly those of the main region of their calling code, and classify as that region: %s.\n", strings.Join(shared, ", "))
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

// nestedWithoutCode counts, per region, the carrier ranges that have no
// MCCMNC of their own but lie inside a shorter range of another operator
// that has one. Numbers of such a range answer their own operator's name
// with a null MCCMNC; a lookup that took the longest MCCMNC prefix on its
// own would borrow the enclosing operator's code instead (as Numen did
// before the two tables became one). Each is a candidate for an alias.
func nestedWithoutCode(carrierTSV, mccmncTSV []byte) map[string]*nestedCount {
	names, codes := map[string]string{}, map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(carrierTSV), "\n"), "\n") {
		prefix, name, _ := strings.Cut(l, "\t")
		names[prefix] = name
	}
	for _, l := range strings.Split(strings.TrimSuffix(string(mccmncTSV), "\n"), "\n") {
		prefix, code, _ := strings.Cut(l, "\t")
		codes[prefix] = code
	}
	out := map[string]*nestedCount{}
	for prefix, name := range names {
		if codes[prefix] != "" {
			continue
		}
		for l := len(prefix) - 1; l > 0; l-- {
			outer := prefix[:l]
			if codes[outer] == "" {
				continue
			}
			if names[outer] != name { // the longest prefix with a code: what the old lookup answered
				cc, _ := callingCodeOf(prefix)
				region := regionsOfPrefix(cc, prefix[len(fmt.Sprint(cc)):])[0]
				c := out[region]
				if c == nil {
					c = &nestedCount{names: map[string]bool{}}
					out[region] = c
				}
				c.ranges++
				c.names[name] = true
			}
			break
		}
	}
	return out
}

type nestedCount struct {
	ranges int
	names  map[string]bool
}

// writeNested writes nestedWithoutCode's counts as a Markdown table.
func writeNested(w io.Writer, counts map[string]*nestedCount) {
	regions := make([]string, 0, len(counts))
	total, names := 0, 0
	for r, c := range counts {
		regions = append(regions, r)
		total += c.ranges
		names += len(c.names)
	}
	sort.Strings(regions)
	fmt.Fprintf(w, "\n%d carrier ranges of %d operator names (counted per region) have no MCCMNC of their own inside a range of another operator that has one; they answer their name with a null MCCMNC.\n\n", total, names)
	fmt.Fprintln(w, "| region | ranges | operators |")
	fmt.Fprintln(w, "|---|---:|---|")
	for _, r := range regions {
		c := counts[r]
		ns := make([]string, 0, len(c.names))
		for n := range c.names {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		fmt.Fprintf(w, "| %s | %d | %s |\n", r, c.ranges, strings.Join(ns, ", "))
	}
}

// writeOverrides writes where a register's ranges, curated lines and
// prefix-limited aliases stand against the carrier that libphonenumber
// names (fillGaps): how many prefixes, and the
// pairs of names, largest first.
func writeOverrides(w io.Writer, libCarrierTSV []byte, ranges []curatedRange) {
	names := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(libCarrierTSV), "\n"), "\n") {
		prefix, name, _ := strings.Cut(l, "\t")
		names[prefix] = name
	}
	type pair struct{ region, lib, register, by string }
	count := map[pair]int{}
	total := 0
	for _, r := range ranges {
		for l := len(r.prefix); l > 0; l-- {
			if name, ok := names[r.prefix[:l]]; ok {
				by := "register"
				switch {
				case r.source == aliasRangeSource:
					by = "alias limited to prefixes"
				case r.mustFill:
					by = "curated line"
				}
				count[pair{r.region, name, r.operator, by}]++
				total++
				break
			}
		}
	}
	pairs := make([]pair, 0, len(count))
	for p := range count {
		pairs = append(pairs, p)
	}
	sort.Slice(pairs, func(i, j int) bool {
		a, b := pairs[i], pairs[j]
		return count[a] > count[b] || count[a] == count[b] && a.region+a.lib+a.register < b.region+b.lib+b.register
	})
	fmt.Fprintf(w, "\nIn %d ranges, a register's holder, a curated line (curated/ranges.tsv) or an alias limited to prefixes has an MCCMNC other than that of the carrier libphonenumber names (or one where that carrier resolves to none); its answer stands.\n\n", total)
	fmt.Fprintln(w, "| region | libphonenumber's carrier | answered as | by | ranges |")
	fmt.Fprintln(w, "|---|---|---|---|---:|")
	for _, p := range pairs {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %d |\n", p.region, p.lib, p.register, p.by, count[p])
	}
}
