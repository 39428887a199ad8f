package benchmarks

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/numenhq/numen/numbering"
	"github.com/nyaruka/phonenumbers/v2"
)

// findTexts are the texts BenchmarkFind searches, about 256 KiB each:
//
//   - prose: English sentences with digits that are not phone numbers
//     (prices, dates, times, percentages, counts, page ranges) and a phone
//     number every few sentences, from the corpus, written as people
//     write them (international with "+", or national US numbers);
//   - table: lines of a contact list, each with a name, two numbers and a
//     date, as in a spreadsheet exported to text;
//   - nonumbers: the prose without its phone numbers.
var findTexts = sync.OnceValue(func() map[string]string {
	rng := rand.New(rand.NewPCG(31, 31))
	corpus := Corpus()
	number := func() string {
		if rng.IntN(3) == 0 {
			return usNumbers[rng.IntN(len(usNumbers))]
		}
		return PlusForm(corpus[rng.IntN(len(corpus))])
	}
	sentences := []string{
		"The meeting moved to 3/10/2011 at 10:30, room 204.",
		"Prices rose 12% to $1,234.56 in the third quarter of 2024.",
		"See pages 211-227 (2003) of the report, and table 4.",
		"She ran 10.5 km in 52 minutes on 2012-01-02 08:00.",
		"Order #48213 ships in 3 to 5 days; version 2.0.12 is out.",
		"We met the lawyers, the bankers and the press before lunch.",
		"It was the best of times, it was the worst of times.",
		"Über 40 Häuser, naïve café, déjà vu: 7 Tage, 365 Nächte.",
	}
	var prose, none, table strings.Builder
	const size = 256 << 10
	for prose.Len() < size {
		s := sentences[rng.IntN(len(sentences))]
		prose.WriteString(s)
		none.WriteString(s)
		prose.WriteByte(' ')
		none.WriteByte(' ')
		if rng.IntN(3) == 0 {
			prose.WriteString("Call " + number() + " or write. ")
		}
	}
	names := []string{"Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov"}
	for table.Len() < size {
		table.WriteString(names[rng.IntN(len(names))] + "\t" + number() + "\t" + number() + "\t2024-05-1" + string(rune('0'+rng.IntN(10))) + "\n")
	}
	return map[string]string{"prose": prose.String(), "table": table.String(), "nonumbers": none.String()}
})

// usNumbers are US numbers written nationally, as the region "US" of the
// benchmark reads them.
var usNumbers = []string{"(201) 555-0123", "650-253-0000", "212 555 0100", "1-800-555-0199", "(415) 555-2671"}

var matchSink int

// BenchmarkFind finds the numbers in each text with region US at each
// leniency: impl=numen ranges over plan.Find, impl=phonenumbers over
// FindNumbersWithLeniency with FindNumbers' bound on tries (math.MaxInt).
// Throughput (MB/s) is of the text; cpu-ns/op is the CPU time of the
// loop's thread.
func BenchmarkFind(b *testing.B) {
	for _, name := range []string{"prose", "table", "nonumbers"} {
		for l := numbering.LeniencyPossible; l <= numbering.LeniencyExactGrouping; l++ {
			text := findTexts()[name]
			b.Run("text="+name+"/leniency="+l.String()+"/lib=numen", func(b *testing.B) {
				p := plan(b)
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				clock := startCPUClock()
				b.ResetTimer()
				for range b.N {
					seq, err := p.Find(text, "US", l)
					if err != nil {
						b.Fatal(err)
					}
					for m := range seq {
						matchSink += m.End
					}
				}
				clock.report(b)
			})
			b.Run("text="+name+"/leniency="+l.String()+"/lib=phonenumbers", func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				clock := startCPUClock()
				b.ResetTimer()
				for range b.N {
					for m := range phonenumbers.FindNumbersWithLeniency(text, "US", phonenumbers.Leniency(l), math.MaxInt) {
						matchSink += m.End()
					}
				}
				clock.report(b)
			})
		}
	}
}

// TestFindTextsAgree checks that the benchmark compares like with like:
// both libraries find the same numbers in the benchmark's texts (but
// those of calling codes whose metadata is newer in Numen's plan:
// newerMetadata).
func TestFindTextsAgree(t *testing.T) {
	t.Parallel()
	p, err := loadPlan()
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range findTexts() {
		text = text[:32<<10]
		for l := numbering.LeniencyPossible; l <= numbering.LeniencyExactGrouping; l++ {
			seq, err := p.Find(text, "US", l)
			if err != nil {
				t.Fatal(err)
			}
			var got, want []int
			for m := range seq {
				if !newerMetadata()[m.Result.Number.CountryCode()] {
					got = append(got, m.Start, m.End)
				}
			}
			for m := range phonenumbers.FindNumbersWithLeniency(text, "US", phonenumbers.Leniency(l), math.MaxInt) {
				if !newerMetadata()[int(m.Number().GetCountryCode())] {
					want = append(want, m.Start(), m.End())
				}
			}
			if len(got) != len(want) {
				t.Errorf("%s %v: %d matches, phonenumbers %d", name, l, len(got)/2, len(want)/2)
				continue
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("%s %v: match %d at %d, phonenumbers at %d", name, l, i/2, got[i], want[i])
					break
				}
			}
			if name != "nonumbers" && len(got) == 0 {
				t.Errorf("%s %v: no matches", name, l)
			}
		}
	}
}
