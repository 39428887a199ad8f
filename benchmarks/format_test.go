package benchmarks

import (
	"sync"
	"testing"

	"github.com/numenhq/numen/numbering"
	"github.com/nyaruka/phonenumbers/v2"
)

// formatCorpus is the corpus entries both libraries parse, in the form
// libphonenumber takes ("+"), with each library's parsed number.
type formatCorpus struct {
	inputs  []string
	numbers []numbering.Number
	lpn     []*phonenumbers.PhoneNumber
}

var benchFormatCorpus = sync.OnceValues(func() (*formatCorpus, error) {
	p, err := loadPlan()
	if err != nil {
		return nil, err
	}
	c := &formatCorpus{}
	for _, s := range Corpus() {
		s = PlusForm(s)
		n, err := p.Parse(s)
		if err != nil {
			continue
		}
		num, err := phonenumbers.Parse(s, "ZZ")
		if err != nil {
			continue
		}
		c.inputs = append(c.inputs, s)
		c.numbers = append(c.numbers, n)
		c.lpn = append(c.lpn, num)
		// Warm libphonenumber up: metadata and regular expressions.
		for _, f := range []phonenumbers.PhoneNumberFormat{phonenumbers.E164, phonenumbers.INTERNATIONAL, phonenumbers.NATIONAL, phonenumbers.RFC3966} {
			phonenumbers.Format(num, f)
		}
		phonenumbers.FormatOutOfCountryCallingNumber(num, "FR")
		phonenumbers.FormatOutOfCountryCallingNumber(num, "US")
	}
	c.inputs = packed(c.inputs)
	return c, nil
})

var bytesSink []byte

// BenchmarkFormat writes the corpus's numbers (those both libraries parse,
// valid or not) in each style, and as dialled from France and from the
// United States ("from=FR", "from=US"). impl=numen formats numbers parsed
// before the timer starts, with AppendFormat into a reused buffer;
// impl=numen-parse parses each string first; impl=phonenumbers is Parse and
// Format (or FormatOutOfCountryCallingNumber) on the same strings, and
// impl=phonenumbers-format formats numbers it parsed before the timer.
// Besides wall-clock time, each reports cpu-ns/op: the CPU time of the
// loop's thread, which a shared, loaded machine inflates far less.
func BenchmarkFormat(b *testing.B) {
	styles := []struct {
		name  string
		style numbering.Style
		lpn   phonenumbers.PhoneNumberFormat
		from  string
	}{
		{"style=e164", numbering.E164, phonenumbers.E164, ""},
		{"style=international", numbering.International, phonenumbers.INTERNATIONAL, ""},
		{"style=national", numbering.National, phonenumbers.NATIONAL, ""},
		{"style=rfc3966", numbering.RFC3966, phonenumbers.RFC3966, ""},
		{"style=from-FR", 0, 0, "FR"},
		{"style=from-US", 0, 0, "US"},
	}
	for _, st := range styles {
		b.Run(st.name+"/impl=numen", func(b *testing.B) {
			p := plan(b)
			c, err := benchFormatCorpus()
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			clock := startCPUClock()
			b.ResetTimer()
			for i := range b.N {
				n := c.numbers[i%len(c.numbers)]
				if st.from != "" {
					buf, errSink = p.AppendFormatFrom(buf[:0], n, st.from)
				} else {
					buf, errSink = p.AppendFormat(buf[:0], n, st.style)
				}
			}
			clock.report(b)
			bytesSink = buf
		})
		b.Run(st.name+"/impl=numen-parse", func(b *testing.B) {
			p := plan(b)
			c, err := benchFormatCorpus()
			if err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 0, 64)
			b.ReportAllocs()
			clock := startCPUClock()
			b.ResetTimer()
			for i := range b.N {
				n, err := p.Parse(c.inputs[i%len(c.inputs)])
				if err != nil {
					errSink = err
					continue
				}
				if st.from != "" {
					buf, errSink = p.AppendFormatFrom(buf[:0], n, st.from)
				} else {
					buf, errSink = p.AppendFormat(buf[:0], n, st.style)
				}
			}
			clock.report(b)
			bytesSink = buf
		})
		b.Run(st.name+"/impl=phonenumbers", func(b *testing.B) {
			c, err := benchFormatCorpus()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			clock := startCPUClock()
			b.ResetTimer()
			for i := range b.N {
				num, err := phonenumbers.Parse(c.inputs[i%len(c.inputs)], "ZZ")
				if err != nil {
					errSink = err
					continue
				}
				if st.from != "" {
					stringSink = phonenumbers.FormatOutOfCountryCallingNumber(num, st.from)
				} else {
					stringSink = phonenumbers.Format(num, st.lpn)
				}
			}
			clock.report(b)
		})
		b.Run(st.name+"/impl=phonenumbers-format", func(b *testing.B) {
			c, err := benchFormatCorpus()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			clock := startCPUClock()
			b.ResetTimer()
			for i := range b.N {
				num := c.lpn[i%len(c.lpn)]
				if st.from != "" {
					stringSink = phonenumbers.FormatOutOfCountryCallingNumber(num, st.from)
				} else {
					stringSink = phonenumbers.Format(num, st.lpn)
				}
			}
			clock.report(b)
		})
	}
}
