package numbering

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/nyaruka/phonenumbers/v2"
)

// longestPrefixSlow is the obviously correct reference for prefixTable.
func longestPrefixSlow(entries map[string]int32, digits string) int32 {
	for l := min(len(digits), keyDigits); l > 0; l-- {
		if v, ok := entries[digits[:l]]; ok {
			return v
		}
	}
	return noValue
}

func TestPrefixTableAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randDigits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + rng.IntN(3)) // few symbols: many nested prefixes
		}
		return string(b)
	}
	for round := 0; round < 200; round++ {
		ref := map[string]int32{}
		var entries []prefixEntry
		for i := 0; i < 1+rng.IntN(60); i++ {
			p := randDigits(1 + rng.IntN(8))
			if _, dup := ref[p]; dup {
				continue
			}
			v := int32(rng.IntN(5))
			ref[p] = v
			entries = append(entries, newPrefixEntry([]byte(p), v))
		}
		table := newPrefixTable(entries)
		for i := 1; i < len(table.starts); i++ {
			if table.starts[i] <= table.starts[i-1] || table.values[i] == table.values[i-1] {
				t.Fatalf("round %d: segments not strictly ascending and merged at %d", round, i)
			}
		}
		for q := 0; q < 300; q++ {
			d := randDigits(rng.IntN(12))
			if got, want := table.lookup([]byte(d)), longestPrefixSlow(ref, d); got != want {
				t.Fatalf("round %d: lookup(%q) = %d, want %d (prefixes %v)", round, d, got, want, ref)
			}
		}
	}
}

func TestPrefixTableEdges(t *testing.T) {
	var entries []prefixEntry
	for i, p := range []string{"4915", "49", "5", "491", "4"} { // out of order on purpose
		entries = append(entries, newPrefixEntry([]byte(p), []int32{4, 2, 5, 3, 1}[i]))
	}
	table := newPrefixTable(entries)
	for in, want := range map[string]int32{
		"": noValue, "3": noValue, "4": 1, "40": 1, "49": 2, "490": 2, "491": 3, "4915": 4, "49151": 4,
		"4916": 3, "492": 2, "48": 1, "5": 5, "59": 5, "6": noValue, "999999999999999999999": noValue,
	} {
		if got := table.lookup([]byte(in)); got != want {
			t.Errorf("lookup(%q) = %d, want %d", in, got, want)
		}
	}
	empty := newPrefixTable(nil)
	if got := empty.lookup([]byte("49")); got != noValue {
		t.Errorf("empty table: %d", got)
	}
}

// TestAutomataAgainstRegexp compares each region's automaton with Go's
// regexp engine on the region's own patterns, over the example numbers and
// random digit strings of plausible lengths.
func TestAutomataAgainstRegexp(t *testing.T) {
	p := plan(t)
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
			got := r.types.match([]byte(s))
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

func TestCompileDFALimits(t *testing.T) {
	if _, err := compileDFA(make([]string, 17), 10); err == nil {
		t.Error("17 patterns accepted")
	}
	if _, err := compileDFA([]string{"("}, 10); err == nil {
		t.Error("bad pattern accepted")
	}
	// \d{1,30} has 31 states: over a limit of 10.
	if _, err := compileDFA([]string{`\d{1,30}`}, 10); err == nil {
		t.Error("state limit not enforced")
	}
	d, err := compileDFA([]string{`12\d`, `1[0-5]`, ``}, 100)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]uint16{"123": 1, "12": 2, "15": 2, "1": 0, "1234": 0, "": 0} {
		if got := d.match([]byte(in)); got != want {
			t.Errorf("match(%q) = %b, want %b", in, got, want)
		}
	}
	if n := d.longestPrefix([]byte("12345")); n != 3 {
		t.Errorf("longestPrefix = %d, want 3", n)
	}
}
