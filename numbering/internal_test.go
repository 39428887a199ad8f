package numbering

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/numenhq/numen/numbering/internal/planfmt"
	"github.com/nyaruka/phonenumbers/v2"
)

// TestAutomataAgainstRegexp compares each region's automaton with Go's
// regexp engine on the region's own patterns, over the example numbers and
// random digit strings of plausible lengths.
func TestAutomataAgainstRegexp(t *testing.T) {
	t.Parallel()
	p := refPlan(t)
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for _, m := range coll.Metadata {
		code := p.byCC[m.GetCountryCode()]
		if code < 0 {
			t.Fatalf("calling code %d of %s not loaded", m.GetCountryCode(), m.GetId())
		}
		var r *region
		for _, i := range p.codes[code].regions {
			if p.regions[i].id == m.GetId() {
				r = &p.regions[i]
			}
		}
		if r == nil {
			t.Fatalf("region %s not loaded", m.GetId())
		}
		descs := []*phonenumbers.PhoneNumberDesc{m.GetGeneralDesc(), m.GetFixedLine(), m.GetMobile(), m.GetTollFree(), m.GetPremiumRate(), m.GetSharedCost(), m.GetPersonalNumber(), m.GetVoip(), m.GetPager(), m.GetUan(), m.GetVoicemail()}
		res := make([]*regexp.Regexp, len(descs))
		var samples []string
		for d, desc := range descs {
			if pat := desc.GetNationalNumberPattern(); pat != "" {
				res[d] = regexp.MustCompile("^(?:" + pat + ")$")
			}
			if ex := desc.GetExampleNumber(); ex != "" {
				samples = append(samples, ex)
			}
		}
		for i := 0; i < 200; i++ {
			var b strings.Builder
			if len(samples) > 0 && i%2 == 0 {
				b.WriteString(samples[rng.IntN(len(samples))])
				s := []byte(b.String())
				s[rng.IntN(len(s))] = byte('0' + rng.IntN(10))
				samples = append(samples, string(s))
				continue
			}
			for l := 1 + rng.IntN(13); l > 0; l-- {
				b.WriteByte(byte('0' + rng.IntN(10)))
			}
			samples = append(samples, b.String())
		}
		for _, s := range samples {
			got := r.automata().types.match([]byte(s))
			for d, re := range res {
				want := re != nil && re.MatchString(s)
				if (got&(1<<d) != 0) != want {
					t.Fatalf("%s desc %d pattern %q on %q: automaton %v, regexp %v", m.GetId(), d, descs[d].GetNationalNumberPattern(), s, !want, want)
				}
			}
			checked++
		}
	}
	t.Logf("%d strings checked against %d regions", checked, len(coll.Metadata))
}

// TestNationalPrefixAgainstRegexp runs every national-prefix program of the
// plan and Go's regexp on the same pattern over digit strings, and
// requires the same match and the same capture groups.
func TestNationalPrefixAgainstRegexp(t *testing.T) {
	t.Parallel()
	p := plan(t)
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 7))
	checked := 0
	for _, m := range coll.Metadata {
		code := p.byCC[m.GetCountryCode()]
		cc := &p.codes[code]
		if p.regions[cc.regions[0]].id != m.GetId() || m.GetNationalPrefixForParsing() == "" {
			continue // only the main region's rule is used
		}
		re := regexp.MustCompile("^(?:" + m.GetNationalPrefixForParsing() + ")")
		var inputs []string
		for _, desc := range []*phonenumbers.PhoneNumberDesc{m.GetFixedLine(), m.GetMobile(), m.GetTollFree()} {
			if ex := desc.GetExampleNumber(); ex != "" {
				for _, np := range []string{"", "0", "8", "1", "15", "90", "06", m.GetNationalPrefix()} {
					inputs = append(inputs, np+ex)
				}
			}
		}
		for range 300 {
			var b strings.Builder
			for l := rng.IntN(planfmt.MaxInput + 1); l > 0; l-- {
				b.WriteByte(byte('0' + rng.IntN(10)))
			}
			inputs = append(inputs, b.String())
		}
		for _, in := range inputs {
			if len(in) > planfmt.MaxInput {
				continue
			}
			want := re.FindStringSubmatchIndex(in)
			var st matchState
			ok := cc.strip.run(&st, []byte(in))
			if ok != (want != nil) {
				t.Fatalf("%s %q on %q: matcher %v, regexp %v", m.GetId(), re, in, ok, want)
			}
			if ok {
				for i, w := range want {
					if st.caps[i] != w {
						t.Fatalf("%s %q on %q: slots %v, regexp %v", m.GetId(), re, in, st.caps[:len(want)], want)
					}
				}
			}
			checked++
		}
	}
	t.Logf("%d inputs checked", checked)
	if checked < 10000 {
		t.Fatalf("only %d inputs checked", checked)
	}
}
