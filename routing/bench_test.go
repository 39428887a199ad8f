package routing

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/numenhq/numen/numbering"
	"github.com/nyaruka/phonenumbers/v2"
)

// largeFixture is the size the benchmarks target: 100,000 platform prefix
// rules, 10,000 account prefix rules, 1,000 MCCMNC rules (800 platform, 200
// account) and 250 country rules (200 platform, 50 account), over real,
// valid numbers of every region. Prefixes are cut from those numbers, so
// lookups meet rules at every depth.
type largeFixture struct {
	platform, account *Map
	numbers           []numbering.Result
}

func newLargeFixture(tb testing.TB) *largeFixture {
	tb.Helper()
	p := plan(tb)
	rng := rand.New(rand.NewPCG(11, 12))
	routes := []string{"HA1", "HB1", "HC1", "MA1"}
	route := func() string {
		if rng.IntN(50) == 0 {
			return RejectRoute
		}
		return routes[rng.IntN(len(routes))]
	}

	regions := make([]string, 0, 256)
	for r := range phonenumbers.GetSupportedRegions() {
		regions = append(regions, r)
	}
	sort.Strings(regions)
	// 2,000 distinct networks: MCCs 200 to 749 with two- and three-digit MNCs.
	mccmncPool := make([]string, 0, 2000)
	for mcc := 200; len(mccmncPool) < cap(mccmncPool); mcc++ {
		for mnc := 0; mnc < 4 && len(mccmncPool) < cap(mccmncPool); mnc++ {
			if mnc == 3 {
				mccmncPool = append(mccmncPool, fmt.Sprintf("%03d%03d", mcc, 100+mcc%900))
			} else {
				mccmncPool = append(mccmncPool, fmt.Sprintf("%03d%02d", mcc, mnc*10+mcc%10))
			}
		}
	}
	rng.Shuffle(len(mccmncPool), func(i, j int) { mccmncPool[i], mccmncPool[j] = mccmncPool[j], mccmncPool[i] })
	f := &largeFixture{}
	for _, region := range regions {
		for _, typ := range []phonenumbers.PhoneNumberType{phonenumbers.MOBILE, phonenumbers.FIXED_LINE} {
			ex := phonenumbers.GetExampleNumberForTypeInRegion(region, typ)
			if ex == nil {
				continue
			}
			e164 := []byte(phonenumbers.Format(ex, phonenumbers.E164))
			for i := 0; i < 20; i++ {
				for k := len(e164) - 3; k < len(e164); k++ {
					e164[k] = byte('0' + rng.IntN(10))
				}
				res := p.ClassifyString(string(e164))
				if !res.Valid {
					continue
				}
				if rng.IntN(4) > 0 {
					res.MCCMNC = mccmncPool[rng.IntN(len(mccmncPool))]
				}
				f.numbers = append(f.numbers, res)
			}
		}
	}
	rng.Shuffle(len(f.numbers), func(i, j int) { f.numbers[i], f.numbers[j] = f.numbers[j], f.numbers[i] })

	// A prefix keeps the calling code and 1 to 7 national digits of a
	// number, the last few of them redrawn at random, so that rules cover
	// the numbers' ranges and their neighbours alike.
	prefixes := func(n int, from []numbering.Result, seen map[string]bool) []PrefixRule {
		out := make([]PrefixRule, 0, n)
		for attempts := 0; len(out) < n; attempts++ {
			if attempts > 20*n {
				tb.Fatalf("made only %d distinct prefixes of %d", len(out), n)
			}
			num := from[rng.IntN(len(from))]
			e164 := []byte(num.Number.String())
			ccLen := len(fmt.Sprint(num.Number.CountryCode()))
			national := min(1+rng.IntN(7), len(e164)-1-ccLen)
			cns := e164[:1+ccLen+national]
			for k := max(1+ccLen, len(cns)-rng.IntN(4)); k < len(cns); k++ {
				cns[k] = byte('0' + rng.IntN(10))
			}
			if seen[string(cns)] {
				continue
			}
			seen[string(cns)] = true
			out = append(out, PrefixRule{CNS: string(cns), Route: route()})
		}
		return out
	}
	seen := map[string]bool{}
	// The platform's rules cover the numbers of all countries; the
	// account's those of a fifth of them, so that decisions take every path.
	var some []numbering.Result
	for _, n := range f.numbers {
		if c := n.CountryCode; c != "" && (c[0]-'A')%5 == 0 {
			some = append(some, n)
		}
	}
	f.platform = &Map{DefaultRoute: "HA1", Prefixes: prefixes(100000, f.numbers, seen)}
	f.account = &Map{DefaultRoute: "HB1", MNPFallback: true, Prefixes: prefixes(10000, some, map[string]bool{})}
	perm := rng.Perm(len(mccmncPool))
	for i := 0; i < 1000; i++ {
		rule := MCCMNCRule{MCCMNC: mccmncPool[perm[i]], Route: route()}
		if i < 800 {
			f.platform.MCCMNCs = append(f.platform.MCCMNCs, rule)
		} else {
			f.account.MCCMNCs = append(f.account.MCCMNCs, rule)
		}
	}
	var countries []string
	for _, r := range regions {
		if p.CallingCode(r) != 0 {
			countries = append(countries, r)
		}
	}
	for i, c := range countries[:200] {
		f.platform.Countries = append(f.platform.Countries, CountryRule{CountryCode: c, Route: routes[i%3]})
	}
	for _, c := range countries[len(countries)-50:] {
		f.account.Countries = append(f.account.Countries, CountryRule{CountryCode: c, Route: route()})
	}
	return f
}

func TestLargeFixture(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds 110,000 rules")
	}
	f := newLargeFixture(t)
	require := func(ok bool, format string, args ...any) {
		t.Helper()
		if !ok {
			t.Fatalf(format, args...)
		}
	}
	require(len(f.platform.Prefixes) == 100000 && len(f.account.Prefixes) == 10000, "prefix rules")
	require(len(f.platform.MCCMNCs)+len(f.account.MCCMNCs) == 1000, "MCCMNC rules")
	require(len(f.platform.Countries)+len(f.account.Countries) == 250, "country rules")
	require(len(f.numbers) >= 8192, "only %d numbers", len(f.numbers))
	p, err := NewPlatform(plan(t), coverage(t), f.platform)
	require(err == nil, "platform: %v", err)
	r, err := p.Resolver(f.account)
	require(err == nil, "account: %v", err)
	origins := map[Origin]int{}
	for i := range f.numbers[:2000] {
		d := r.Resolve(&f.numbers[i])
		origins[d.Origin]++
		if d.Origin == OriginUserPrefix || d.Origin == OriginGlobalPrefix {
			if !strings.HasPrefix(f.numbers[i].Number.String(), "+") {
				t.Fatal("bad number")
			}
		}
	}
	t.Logf("origins over 2000 numbers: %v", origins)
	require(origins[OriginUserPrefix] > 0 && origins[OriginGlobalPrefix] > 0, "the fixture's numbers do not meet its prefix rules: %v", origins)
}

// BenchmarkResolve decides routes for the fixture's numbers in turn.
func BenchmarkResolve(b *testing.B) {
	f := newLargeFixture(b)
	p, err := NewPlatform(plan(b), coverage(b), f.platform)
	if err != nil {
		b.Fatal(err)
	}
	r, err := p.Resolver(f.account)
	if err != nil {
		b.Fatal(err)
	}
	// All of the fixture's numbers, spread over every region (the tables
	// mostly out of cache), and a thousand of them (mostly in cache).
	for _, n := range []int{8192, 1024} {
		numbers := f.numbers[:n]
		b.Run(fmt.Sprintf("numbers=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r.Resolve(&numbers[i&(n-1)])
			}
		})
	}
}

// BenchmarkBuild compiles the fixture's maps: the platform (coverage and
// 100,000 prefix rules) and the account on top of it.
func BenchmarkBuild(b *testing.B) {
	f := newLargeFixture(b)
	cov := coverage(b)
	b.Run("what=platform", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := NewPlatform(plan(b), cov, f.platform); err != nil {
				b.Fatal(err)
			}
		}
	})
	p, err := NewPlatform(plan(b), cov, f.platform)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("what=account", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := p.Resolver(f.account); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPrefixMatch compares the two ways of finding the longest
// platform prefix rule for a number: go-radix's LongestPrefix on the rule
// tree, and the flattened table that Resolve uses.
func BenchmarkPrefixMatch(b *testing.B) {
	f := newLargeFixture(b)
	p, err := NewPlatform(plan(b), coverage(b), f.platform)
	if err != nil {
		b.Fatal(err)
	}
	digits := make([]string, len(f.numbers))
	for i := range f.numbers {
		digits[i] = f.numbers[i].Number.String()[1:]
	}
	tree, table := p.rules.radix(), &p.prefixes
	var sink int
	b.Run("impl=go-radix", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, v, ok := tree.LongestPrefix(digits[i%len(digits)]); ok {
				sink += len(v.(*PrefixRule).Route)
			}
		}
	})
	b.Run("impl=prefixmap", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sink += int(table.Lookup([]byte(digits[i%len(digits)])).global)
		}
	})
	_ = sink
}
