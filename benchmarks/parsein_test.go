package benchmarks

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/nyaruka/phonenumbers/v2"
)

// regionalNumber is one number of the regional benchmarks, written three
// ways: as dialled at home (national format, in region), and in
// international and E.164 form, which ClassifyString reads.
type regionalNumber struct {
	national, region, international, e164 string
}

// regionalCorpus is every example number of every region, and mutations of
// it (the Corpus's, about one in seven invalid), in national format as
// libphonenumber writes it, with its region, shuffled; numbers that
// libphonenumber does not read back in their region are left out, so that
// every side reads the same numbers.
var regionalCorpus = sync.OnceValue(func() []regionalNumber {
	rng := rand.New(rand.NewPCG(corpusSeed1, 29))
	var out []regionalNumber
	for _, ex := range exampleNumbers() {
		region := phonenumbers.GetRegionCodeForNumber(ex)
		if region == "" || region == "001" {
			continue
		}
		cc := strconv.Itoa(int(ex.GetCountryCode()))
		nsn := phonenumbers.GetNationalSignificantNumber(ex)
		for range 6 {
			num, err := phonenumbers.Parse("+"+cc+mutate(rng, nsn), "ZZ")
			if err != nil {
				continue
			}
			national := phonenumbers.Format(num, phonenumbers.NATIONAL)
			again, err := phonenumbers.Parse(national, region)
			if err != nil || phonenumbers.Format(again, phonenumbers.E164) != phonenumbers.Format(num, phonenumbers.E164) {
				continue
			}
			out = append(out, regionalNumber{national, region,
				phonenumbers.Format(num, phonenumbers.INTERNATIONAL), phonenumbers.Format(num, phonenumbers.E164)})
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	// Warm libphonenumber up: its metadata and regular expressions are
	// read and compiled on first use.
	for _, n := range out {
		if num, err := phonenumbers.Parse(n.national, n.region); err == nil {
			phonenumbers.GetNumberType(num)
		}
	}
	return out
})

// BenchmarkClassifyIn measures reading a number written at home with its
// region (ClassifyIn, parsing and full classification) against today's
// ClassifyString on the same numbers in international format, and
// libphonenumber's Parse with the region, IsValidNumber and GetNumberType.
// ValidateIn and Validate are the same pair for validity, type and
// country only.
func BenchmarkClassifyIn(b *testing.B) {
	b.Run("impl=numen-ClassifyString", func(b *testing.B) {
		p, c := plan(b), regionalCorpus()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			resultSink = p.ClassifyString(c[i%len(c)].international)
		}
	})
	b.Run("impl=numen-ClassifyIn", func(b *testing.B) {
		p, c := plan(b), regionalCorpus()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			n := &c[i%len(c)]
			resultSink, errSink = p.ClassifyIn(n.national, n.region)
		}
	})
	b.Run("impl=numen-Validate", func(b *testing.B) {
		p, c := plan(b), regionalCorpus()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			validitySink = p.Validate(c[i%len(c)].international)
		}
	})
	b.Run("impl=numen-ValidateIn", func(b *testing.B) {
		p, c := plan(b), regionalCorpus()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			n := &c[i%len(c)]
			validitySink, errSink = p.ValidateIn(n.national, n.region)
		}
	})
	b.Run("impl=phonenumbers", func(b *testing.B) {
		c := regionalCorpus()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			n := &c[i%len(c)]
			num, err := phonenumbers.Parse(n.national, n.region)
			if err != nil {
				errSink = err
				continue
			}
			boolSink = phonenumbers.IsValidNumber(num)
			typeSink = phonenumbers.GetNumberType(num)
		}
	})
}

// TestRegionalCorpus checks the regional benchmark's input: large, every
// region, and each number read by Numen in its region as libphonenumber
// reads it, and as ClassifyString reads its international form.
func TestRegionalCorpus(t *testing.T) {
	t.Parallel()
	p, err := loadPlan()
	if err != nil {
		t.Fatal(err)
	}
	c := regionalCorpus()
	regions := map[string]bool{}
	for _, n := range c {
		regions[n.region] = true
		res, err := p.ClassifyIn(n.national, n.region)
		if err != nil || res.Number.String() != n.e164 {
			t.Fatalf("%q in %s: %v %v, want %s", n.national, n.region, res.Number, err, n.e164)
		}
		if intl := p.ClassifyString(n.international); intl.Number != res.Number || intl.Valid != res.Valid || intl.Type != res.Type {
			t.Fatalf("%q in %s: %+v; %q: %+v", n.national, n.region, res, n.international, intl)
		}
	}
	if len(c) < 5000 || len(regions) < 230 {
		t.Fatalf("%d numbers in %d regions", len(c), len(regions))
	}
}
