package main

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/nyaruka/phonenumbers/v2"
)

// curatedNetworksFile adds to the MCC-MNC list the networks it lacks: codes
// the ITU has assigned (its E.212 list of mobile network codes, annexed to
// its Operational Bulletin, and the bulletins' E.212 amendments) to an
// operator that runs a network of its own, which the list, a scrape of
// Wikipedia, does not have. Each line cites the ITU's record.
const curatedNetworksFile = "networks.tsv"

// ituCitation is what a curated network's source must contain: the
// bulletin that records the code's assignment.
var ituCitation = regexp.MustCompile(`ITU OB No\. [0-9]{3,4} \([0-9]{4}-[0-9]{2}-[0-9]{2}\)`)

// curatedNetworkNote marks the list entries read from curatedNetworksFile.
const curatedNetworkNote = "curated/networks.tsv: "

// readNetworkList reads the MCC-MNC list's JSON (parseMCCMNCList) and adds
// the curated networks (curatedNetworks) after the list's own entries, as
// operational national networks, and confirms those of its entries whose
// status is unknown that the file names. Everything that reads the list reads it
// through here, so a curated network is one of its region's networks for
// name matching, aliases, curated ranges, the rename audit and the plan's
// list of networks alike.
func readNetworkList(listJSON []byte, curated fs.FS) ([]mccEntry, error) {
	list, err := parseMCCMNCList(listJSON)
	if err != nil {
		return nil, err
	}
	added, err := curatedNetworks(curated, list)
	if err != nil {
		return nil, err
	}
	return append(list, added...), nil
}

// curatedNetworks reads curatedNetworksFile: region, MCC, MNC, brand,
// operator and source, tab-separated, and returns the networks to add to
// the list. A line for a code the list has with the status "Unknown" in
// the same region (836 entries of the list: Wikipedia does not know
// whether they run) instead confirms that entry as operational, in list
// (its names stay the list's; the line's must be given all the same); a
// line for an operational code that the list files under other regions
// only adds the line's region to that network (Sure's 658-01 serves Saint
// Helena and Ascension), with the list's names. A line fails when the
// code is in the list otherwise (in its region with another status, or
// not operational elsewhere: an alias uses it as it is), when its region has
// no calling code, when it gives neither brand nor operator, when its
// source does not cite the ITU's record ("ITU OB No. N (YYYY-MM-DD)"), and
// when it repeats a code. A missing file adds nothing.
func curatedNetworks(curated fs.FS, list []mccEntry) ([]mccEntry, error) {
	src, err := fs.ReadFile(curated, curatedNetworksFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	inList := map[string]*mccEntry{}
	countryName := map[string]string{}
	for i := range list {
		e := &list[i]
		if inList[e.mccmnc()] == nil {
			inList[e.mccmnc()] = e
		}
		if countryName[e.CountryCode] == "" {
			countryName[e.CountryCode] = e.CountryName
		}
	}
	var out []mccEntry
	seen := map[string]int{}
	for n, l := range strings.Split(string(src), "\n") {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		where := fmt.Sprintf("%s line %d", curatedNetworksFile, n+1)
		f := strings.Split(l, "\t")
		if len(f) != 6 {
			return nil, fmt.Errorf("%s: %d fields, want region<TAB>MCC<TAB>MNC<TAB>brand<TAB>operator<TAB>source", where, len(f))
		}
		region, mcc, mnc, brand, operator, source := f[0], f[1], f[2], strings.TrimSpace(f[3]), strings.TrimSpace(f[4]), f[5]
		switch {
		case phonenumbers.GetCountryCodeForRegion(region) == 0:
			return nil, fmt.Errorf("%s: region %q has no calling code", where, region)
		case len(mcc) != 3 || !allDigits(mcc):
			return nil, fmt.Errorf("%s: MCC %q: want 3 digits", where, mcc)
		case (len(mnc) != 2 && len(mnc) != 3) || !allDigits(mnc):
			return nil, fmt.Errorf("%s: MNC %q: want 2 or 3 digits", where, mnc)
		case brand == "" && operator == "":
			return nil, fmt.Errorf("%s: %s%s: give the brand, the operator or both", where, mcc, mnc)
		case !ituCitation.MatchString(source):
			return nil, fmt.Errorf("%s: %s%s: the source must cite the ITU's record of the code, as \"ITU OB No. N (YYYY-MM-DD)\"", where, mcc, mnc)
		}
		code := mcc + mnc
		if first, ok := seen[code]; ok {
			return nil, fmt.Errorf("%s: %s is given on line %d already", where, code, first)
		}
		seen[code] = n + 1
		notes := curatedNetworkNote + source
		name := countryName[region]
		if name == "" {
			name = region
		}
		if e := inList[code]; e != nil {
			var own *mccEntry // the region's entry of the code
			for i := range list {
				if list[i].mccmnc() == code && list[i].CountryCode == region {
					own = &list[i]
				}
			}
			switch {
			case own != nil && own.Status == "Unknown":
				own.Status, own.Notes = "Operational", &notes
				continue
			case own == nil && e.Status == "Operational":
				// A network the list files under another region only,
				// which serves this one too.
				also := *e
				also.CountryCode, also.CountryName, also.Notes = region, name, &notes
				out = append(out, also)
				continue
			}
			return nil, fmt.Errorf("%s: %s is in the MCC-MNC list already (%s, %s, %s): map carriers to it with an alias", where, code, e.CountryCode, orDash(deref(e.Brand), deref(e.Operator)), e.Status)
		}
		e := mccEntry{Type: "National", CountryName: name, CountryCode: region, MCC: mcc, MNC: mnc, Status: "Operational", Notes: &notes}
		if brand != "" {
			e.Brand = &brand
		}
		if operator != "" {
			e.Operator = &operator
		}
		out = append(out, e)
	}
	return out, nil
}

// orDash is the first of names that is not empty, or "-".
func orDash(names ...string) string {
	for _, s := range names {
		if s != "" {
			return s
		}
	}
	return "-"
}
