package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// The second source of network names: mobile-broadband-provider-info
// (GNOME; public domain), the database of mobile providers that
// NetworkManager and ModemManager use, as Debian packages it
// (mobile-broadband-provider-info 20230416-1). Its serviceproviders.xml
// is committed and pinned by its SHA-256.
const (
	providersVersion = "20230416-1"
	providersSHA256  = "c07e8e7f59f3e92b9dbd7ccaab699c785cab760c84698090ef0fe6f1f1f828eb"
)

// providersFile is serviceproviders.xml, relative to the repository root.
var providersFile = filepath.Join("data", "sources", "serviceproviders.xml")

// providers are the second source's networks: region -> normalized provider
// name -> the MCCMNCs it lists.
type providers map[string]map[string][]string

// readProviders checks serviceproviders.xml against its pinned digest and
// reads its GSM providers' names and network ids.
func readProviders(b []byte) (providers, error) {
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != providersSHA256 {
		return nil, fmt.Errorf("%s: SHA-256 %s, want %s (mobile-broadband-provider-info %s)", providersFile, got, providersSHA256, providersVersion)
	}
	var doc struct {
		Countries []struct {
			Code      string `xml:"code,attr"`
			Providers []struct {
				Names []string `xml:"name"`
				GSM   struct {
					IDs []struct {
						MCC string `xml:"mcc,attr"`
						MNC string `xml:"mnc,attr"`
					} `xml:"network-id"`
				} `xml:"gsm"`
			} `xml:"provider"`
		} `xml:"country"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", providersFile, err)
	}
	out := providers{}
	for _, c := range doc.Countries {
		region := strings.ToUpper(c.Code)
		for _, p := range c.Providers {
			for _, name := range p.Names {
				n := normName(name)
				if n == "" {
					continue
				}
				if out[region] == nil {
					out[region] = map[string][]string{}
				}
				for _, id := range p.GSM.IDs {
					if code := id.MCC + id.MNC; !slices.Contains(out[region][n], code) {
						out[region][n] = append(out[region][n], code)
					}
				}
			}
		}
	}
	return out, nil
}

// disagreement is a carrier that the MCC-MNC list resolved by name to an
// MCCMNC that the second source does not give a provider of that name.
type disagreement struct {
	region, carrier, mccmnc string
	theirs                  []string
}

func (d disagreement) String() string {
	return fmt.Sprintf("%s\t%s\t%s by name in the MCC-MNC list; mobile-broadband-provider-info lists %q under %s",
		d.region, d.carrier, d.mccmnc, d.carrier, strings.Join(d.theirs, ", "))
}

// crossCheck returns the carriers resolved by name (curated aliases are
// decided by hand, with their reason) to an MCCMNC that the second source
// contradicts: it has a provider of the same name in the region, under
// other codes only. A source that does not know the name neither supports
// nor contradicts.
func crossCheck(matches map[[2]string]*carrierMatch, second providers) []disagreement {
	var out []disagreement
	for _, m := range matches {
		if m.how != "name" {
			continue
		}
		theirs := second[m.region][normName(m.carrier)]
		if len(theirs) == 0 || slices.Contains(theirs, m.mccmnc) {
			continue
		}
		out = append(out, disagreement{region: m.region, carrier: m.carrier, mccmnc: m.mccmnc, theirs: slices.Sorted(slices.Values(theirs))})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].region != out[j].region {
			return out[i].region < out[j].region
		}
		return out[i].carrier < out[j].carrier
	})
	return out
}
