package benchmarks

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/numenhq/numen/numbering"
	"github.com/nyaruka/phonenumbers/v2"
)

// shortInput is one short number dialled in a region.
type shortInput struct{ number, region string }

// shortCorpus returns the inputs of the short-number benchmarks, the same
// on every call: for every region of libphonenumber's short-number
// metadata, every example short number of each kind (short code, toll-free,
// standard and premium rate, emergency, carrier-specific, SMS), written
// as it is and with one digit changed or appended (mostly not valid), and
// each emergency example with two to six digits after it, shuffled so that
// consecutive inputs come from unrelated regions.
var shortCorpus = sync.OnceValue(func() []shortInput {
	coll, err := phonenumbers.ShortNumberMetadataCollection()
	if err != nil {
		panic(err)
	}
	rnd := rand.New(rand.NewPCG(corpusSeed1, 29))
	metas := slices.Clone(coll.GetMetadata())
	slices.SortFunc(metas, func(a, b *phonenumbers.PhoneMetadata) int {
		return cmp.Compare(a.GetId(), b.GetId())
	})
	var out []shortInput
	for _, m := range metas {
		region := m.GetId()
		if region == "001" {
			continue
		}
		for _, d := range []*phonenumbers.PhoneNumberDesc{m.GetShortCode(), m.GetTollFree(), m.GetStandardRate(),
			m.GetPremiumRate(), m.GetEmergency(), m.GetCarrierSpecific(), m.GetSmsServices()} {
			s := d.GetExampleNumber()
			if s == "" {
				continue
			}
			i := rnd.IntN(len(s))
			changed := s[:i] + strconv.Itoa((int(s[i]-'0')+1+rnd.IntN(9))%10) + s[i+1:]
			out = append(out, shortInput{s, region}, shortInput{changed, region}, shortInput{s + strconv.Itoa(rnd.IntN(10)), region})
			if d == m.GetEmergency() {
				longer := s
				for n := 2 + rnd.IntN(5); n > 0; n-- {
					longer += strconv.Itoa(rnd.IntN(10))
				}
				out = append(out, shortInput{longer, region})
			}
		}
	}
	rnd.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	// Warm phonenumbers up: its short-number metadata and regular
	// expressions are read and compiled on first use.
	for _, in := range out {
		phonenumbersShortNumber(in)
	}
	return out
})

var (
	shortSink numbering.ShortInfo
	costSink  phonenumbers.ShortNumberCost
)

// phonenumbersShortNumber asks phonenumbers everything Plan.ShortNumber
// answers: the number (Parse with the region), then each ShortNumberInfo
// function.
func phonenumbersShortNumber(in shortInput) {
	boolSink = phonenumbers.IsEmergencyNumber(in.number, in.region)
	boolSink = phonenumbers.ConnectsToEmergencyNumber(in.number, in.region)
	n, err := phonenumbers.Parse(in.number, in.region)
	if err != nil {
		return
	}
	boolSink = phonenumbers.IsValidShortNumberForRegion(n, in.region)
	boolSink = phonenumbers.IsPossibleShortNumberForRegion(n, in.region)
	costSink = phonenumbers.GetExpectedCostForRegion(n, in.region)
	boolSink = phonenumbers.IsCarrierSpecificForRegion(n, in.region)
	boolSink = phonenumbers.IsSmsServiceForRegion(n, in.region)
}

// BenchmarkShortNumber compares Plan.ShortNumber with phonenumbers'
// ShortNumberInfo over the short-number corpus, one input per iteration:
// everything ShortInfo holds (phonenumbers), and the two questions asked
// most, valid and emergency (phonenumbers-valid).
func BenchmarkShortNumber(b *testing.B) {
	b.Run("impl=numen", func(b *testing.B) {
		p, c := plan(b), shortCorpus()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			in := c[i%len(c)]
			shortSink, errSink = p.ShortNumber(in.number, in.region)
		}
	})
	b.Run("impl=phonenumbers", func(b *testing.B) {
		c := shortCorpus()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			phonenumbersShortNumber(c[i%len(c)])
		}
	})
	b.Run("impl=phonenumbers-valid", func(b *testing.B) {
		c := shortCorpus()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			in := c[i%len(c)]
			boolSink = phonenumbers.IsEmergencyNumber(in.number, in.region)
			if n, err := phonenumbers.Parse(in.number, in.region); err == nil {
				boolSink = phonenumbers.IsValidShortNumberForRegion(n, in.region)
			}
		}
	})
}

// TestShortCorpus: the corpus covers every region with short numbers and
// is the same on every call.
func TestShortCorpus(t *testing.T) {
	t.Parallel()
	c := shortCorpus()
	regions := map[string]bool{}
	for _, in := range c {
		regions[in.region] = true
	}
	if len(c) < 3000 || len(regions) < 240 {
		t.Fatalf("%d inputs in %d regions", len(c), len(regions))
	}
	t.Logf("%d inputs in %d regions", len(c), len(regions))
}
