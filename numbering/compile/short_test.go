package compile

import (
	"testing"

	"github.com/numenhq/numen/numbering/internal/planfmt"
	"github.com/nyaruka/phonenumbers/v2"
)

func shortMeta(id, emergency string, lengths ...int32) *phonenumbers.PhoneMetadata {
	return &phonenumbers.PhoneMetadata{
		Id:          &id,
		GeneralDesc: &phonenumbers.PhoneNumberDesc{NationalNumberPattern: &emergency, PossibleLength: lengths},
		Emergency:   &phonenumbers.PhoneNumberDesc{NationalNumberPattern: &emergency},
	}
}

// TestShortNumbers: regions in order, the non-geographic entry left out,
// BR flagged exact, and bad input refused.
func TestShortNumbers(t *testing.T) {
	t.Parallel()
	b, err := shortNumbers(&phonenumbers.PhoneMetadataCollection{Metadata: []*phonenumbers.PhoneMetadata{
		shortMeta("DE", "11[02]", 3), shortMeta("001", "112"), shortMeta("BR", "19[0-3]", 3),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n := planfmt.U32(b, 0); n != 2 {
		t.Fatalf("%d regions, want 2", n)
	}
	first, second := b[8:8+planfmt.ShortRegionSize], b[8+planfmt.ShortRegionSize:8+2*planfmt.ShortRegionSize]
	if string(first[:2]) != "BR" || string(second[:2]) != "DE" {
		t.Fatalf("regions %q, %q: want BR, DE", first[:2], second[:2])
	}
	if planfmt.U16(first, planfmt.ShortRegionFlags) != planfmt.ShortExactEmergency || planfmt.U16(second, planfmt.ShortRegionFlags) != 0 {
		t.Error("only BR must be flagged exact")
	}
	if got := planfmt.U32(second, planfmt.ShortLengths+4*planfmt.ShortGeneral); got != 1<<3 {
		t.Errorf("DE general lengths %#x, want 1<<3", got)
	}
	if got := planfmt.U16(second, planfmt.ShortAnyLength); got&(1<<planfmt.ShortEmergency) == 0 || got&(1<<planfmt.ShortGeneral) != 0 {
		t.Errorf("DE any-length mask %#x: the emergency desc lists no lengths, the general one does", got)
	}
	if at := planfmt.U32(b, 4); at%planfmt.SectionAlign != 0 {
		t.Errorf("automata at %d: not aligned", at)
	}

	for name, coll := range map[string][]*phonenumbers.PhoneMetadata{
		"bad region code": {shortMeta("D1", "112", 3)},
		"region twice":    {shortMeta("DE", "112", 3), shortMeta("DE", "110", 3)},
		"bad pattern":     {shortMeta("DE", "11(", 3)},
		"absurd length":   {shortMeta("DE", "112", 40)},
	} {
		if _, err := shortNumbers(&phonenumbers.PhoneMetadataCollection{Metadata: coll}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
