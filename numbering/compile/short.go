package compile

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/numenhq/numen/numbering/internal/planfmt"
	"github.com/nyaruka/phonenumbers/v2"
)

// exactEmergencyRegions are the regions where an emergency number followed
// by more digits no longer reaches the emergency services. libphonenumber
// keeps the list in its code, not in the metadata
// (ShortNumberInfo.REGIONS_WHERE_EMERGENCY_NUMBERS_MUST_BE_EXACT); the
// differential tests of package numbering check it against phonenumbers'
// ConnectsToEmergencyNumber in every region.
var exactEmergencyRegions = []string{"BR", "CL", "NI"}

// shortNumbers builds the ShortNumbers section from libphonenumber's
// short-number metadata: for each region, one automaton with a pattern per
// planfmt short desc, and the descs' possible lengths. The section carries
// its own automata (see planfmt).
func shortNumbers(coll *phonenumbers.PhoneMetadataCollection) ([]byte, error) {
	metas := slices.Clone(coll.GetMetadata())
	metas = slices.DeleteFunc(metas, func(m *phonenumbers.PhoneMetadata) bool {
		return m.GetId() == "001" // non-geographic: libphonenumber does not use it either
	})
	slices.SortFunc(metas, func(a, b *phonenumbers.PhoneMetadata) int {
		return cmp.Compare(a.GetId(), b.GetId())
	})
	own := &compiler{} // for its automata writer: the section's own automata
	var recs writer
	for i, m := range metas {
		id := m.GetId()
		if len(id) != 2 || id[0] < 'A' || id[0] > 'Z' || id[1] < 'A' || id[1] > 'Z' {
			return nil, fmt.Errorf("short numbers: region code %q", id)
		}
		if i > 0 && metas[i-1].GetId() == id {
			return nil, fmt.Errorf("short numbers: region %s given twice", id)
		}
		descs := [planfmt.ShortDescs]*phonenumbers.PhoneNumberDesc{
			m.GetGeneralDesc(), m.GetShortCode(), m.GetTollFree(), m.GetStandardRate(),
			m.GetPremiumRate(), m.GetEmergency(), m.GetCarrierSpecific(), m.GetSmsServices(),
		}
		patterns := make([]string, planfmt.ShortDescs)
		var lengths [planfmt.ShortDescs]uint32
		var anyLength uint16
		for d, desc := range descs {
			patterns[d] = desc.GetNationalNumberPattern()
			pl := desc.GetPossibleLength()
			if len(pl) == 0 {
				anyLength |= 1 << d
			}
			for _, l := range pl {
				if l >= 32 {
					return nil, fmt.Errorf("short numbers: region %s: possible length %d", id, l)
				}
			}
			lengths[d] = lengthMask(pl)
		}
		dfa, err := compileDFA(patterns, maxStates)
		if err != nil {
			return nil, fmt.Errorf("short numbers: region %s: %w", id, err)
		}
		off, err := own.automaton(dfa)
		if err != nil {
			return nil, fmt.Errorf("short numbers: region %s: %w", id, err)
		}
		recs.b = append(recs.b, id[0], id[1])
		var flags uint16
		if slices.Contains(exactEmergencyRegions, id) {
			flags |= planfmt.ShortExactEmergency
		}
		recs.u16(flags)
		recs.u32(off)
		for _, l := range lengths {
			recs.u32(l)
		}
		recs.u16(anyLength)
		recs.b = append(recs.b, make([]byte, planfmt.ShortRegionSize-planfmt.ShortRegionPadding)...)
	}
	var w writer
	w.u32(uint32(len(metas)))
	at := 8 + len(recs.b)
	at = (at + planfmt.SectionAlign - 1) &^ (planfmt.SectionAlign - 1)
	w.u32(uint32(at))
	w.bytes(recs.b)
	w.pad(planfmt.SectionAlign)
	w.bytes(own.automata.b)
	return w.b, nil
}
