package benchmarks

import (
	"sync"
	"testing"

	"github.com/numenhq/numen/numbering"
	"github.com/nyaruka/phonenumbers/v2"
)

// typedNumber is a number as a person types it into a field for a region:
// its keys, digits and a leading "+".
type typedNumber struct {
	keys   []rune
	region string
}

// typedCorpus is the regional corpus (every example number of every region
// and mutations of it) typed in its region two ways: the digits of its
// national format ("form=national", the national prefix included) and
// "+", the calling code and the national number ("form=international").
var typedCorpus = sync.OnceValue(func() map[string][]typedNumber {
	out := map[string][]typedNumber{}
	for _, n := range regionalCorpus() {
		out["national"] = append(out["national"], typedNumber{[]rune(phonenumbers.NormalizeDigitsOnly(n.national)), n.region})
		out["international"] = append(out["international"], typedNumber{[]rune(n.e164), n.region})
	}
	return out
})

// BenchmarkAsYouType types the typed corpus key by key: one op is one
// key, so ns/op is the time per character typed, a number's Reset (Clear)
// spread over its keys. impl=numen is AsYouType.Input, which answers the
// field's text and the check of the input so far (Progress) at every key;
// impl=numen-checkin is CheckIn alone on the same input after each key,
// the share of the check in impl=numen; impl=phonenumbers is
// AsYouTypeFormatter.InputDigit, the text only. Each side has one
// formatter per region, made before the timer starts.
func BenchmarkAsYouType(b *testing.B) {
	for _, form := range []string{"national", "international"} {
		b.Run("form="+form+"/impl=numen", func(b *testing.B) {
			p, c := plan(b), typedCorpus()[form]
			formatters := make([]*numbering.AsYouType, len(c))
			byRegion := map[string]*numbering.AsYouType{}
			for i, n := range c {
				f := byRegion[n.region]
				if f == nil {
					var err error
					if f, err = p.NewAsYouType(n.region); err != nil {
						b.Fatal(err)
					}
					byRegion[n.region] = f
				}
				formatters[i] = f
			}
			b.ReportAllocs()
			clock := startCPUClock()
			b.ResetTimer()
			num, key := 0, 0
			f := formatters[0]
			f.Reset()
			for range b.N {
				keys := c[num].keys
				bytesSink, progressSink = f.Input(keys[key])
				if key++; key == len(keys) {
					key = 0
					if num++; num == len(c) {
						num = 0
					}
					f = formatters[num]
					f.Reset()
				}
			}
			clock.report(b)
		})
		b.Run("form="+form+"/impl=numen-checkin", func(b *testing.B) {
			p, c := plan(b), typedCorpus()[form]
			inputs := make([]string, len(c))
			for i, n := range c {
				inputs[i] = string(n.keys) // ASCII: one byte a key
			}
			b.ReportAllocs()
			clock := startCPUClock()
			b.ResetTimer()
			num, key := 0, 0
			for range b.N {
				progressSink, errSink = p.CheckIn(inputs[num][:key+1], c[num].region)
				if key++; key == len(c[num].keys) {
					key = 0
					if num++; num == len(c) {
						num = 0
					}
				}
			}
			clock.report(b)
		})
		b.Run("form="+form+"/impl=phonenumbers", func(b *testing.B) {
			c := typedCorpus()[form]
			formatters := make([]*phonenumbers.AsYouTypeFormatter, len(c))
			byRegion := map[string]*phonenumbers.AsYouTypeFormatter{}
			for i, n := range c {
				f := byRegion[n.region]
				if f == nil {
					f = phonenumbers.GetAsYouTypeFormatter(n.region)
					byRegion[n.region] = f
				}
				formatters[i] = f
				// Warm up: the regular expressions are compiled on
				// first use.
				f.Clear()
				for _, k := range n.keys {
					f.InputDigit(k)
				}
			}
			b.ReportAllocs()
			clock := startCPUClock()
			b.ResetTimer()
			num, key := 0, 0
			f := formatters[0]
			f.Clear()
			for range b.N {
				keys := c[num].keys
				stringSink = f.InputDigit(keys[key])
				if key++; key == len(keys) {
					key = 0
					if num++; num == len(c) {
						num = 0
					}
					f = formatters[num]
					f.Clear()
				}
			}
			clock.report(b)
		})
	}
}

var progressSink numbering.Progress

// TestTypedCorpus checks the as-you-type benchmark's input: both forms,
// every key of every number typed into Numen's formatter shows what
// phonenumbers' shows (but in regions whose metadata is newer in Numen's
// plan: newerMetadata).
func TestTypedCorpus(t *testing.T) {
	t.Parallel()
	p, err := loadPlan()
	if err != nil {
		t.Fatal(err)
	}
	for form, c := range typedCorpus() {
		if len(c) < 5000 {
			t.Fatalf("form %s: %d numbers", form, len(c))
		}
		for _, n := range c[:500] {
			if newerMetadata()[p.CallingCode(n.region)] {
				continue // see newerMetadata
			}
			f, err := p.NewAsYouType(n.region)
			if err != nil {
				t.Fatal(err)
			}
			ref := phonenumbers.GetAsYouTypeFormatter(n.region)
			for _, k := range n.keys {
				got, _ := f.Input(k)
				if want := ref.InputDigit(k); string(got) != want {
					t.Fatalf("%q in %s: %q, phonenumbers %q", string(n.keys), n.region, got, want)
				}
			}
		}
	}
}
