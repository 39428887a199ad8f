// Package benchmarks measures Numen's components against reference
// implementations on shared inputs; results and the commands that produce
// them are in README.md. Its only non-test export is the corpus of phone
// numbers the classification benchmarks run over, so that tests and tools
// elsewhere can use the same inputs.
package benchmarks

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/nyaruka/phonenumbers/v2"
)

// The corpus is drawn from a PCG source with these fixed seeds: changing them
// changes every benchmark result, so don't, or re-run the benchmarks.
const (
	corpusSeed1 = 0x6e756d656e // "numen"
	corpusSeed2 = 2
)

// variantsPerExample is how many mutated or re-punctuated copies of each
// example number the corpus holds, besides its E.164 and INTERNATIONAL forms.
const variantsPerExample = 10

// allTypes lists every libphonenumber number type, in declaration order.
var allTypes = []phonenumbers.PhoneNumberType{
	phonenumbers.FIXED_LINE, phonenumbers.MOBILE, phonenumbers.FIXED_LINE_OR_MOBILE,
	phonenumbers.TOLL_FREE, phonenumbers.PREMIUM_RATE, phonenumbers.SHARED_COST,
	phonenumbers.VOIP, phonenumbers.PERSONAL_NUMBER, phonenumbers.PAGER,
	phonenumbers.UAN, phonenumbers.VOICEMAIL, phonenumbers.UNKNOWN,
}

// Corpus returns the phone numbers the classification benchmarks run over:
// about 12,000 strings covering every region and non-geographic calling code
// libphonenumber knows, of which roughly one in seven is invalid.
//
// Its seed is every example number of every region and type in
// libphonenumber's metadata, in E.164 and INTERNATIONAL format. To each it
// adds variants drawn from a fixed-seed generator: the last digits changed
// (mostly still valid), a digit dropped or appended, the first national digit
// changed (mostly invalid), written with spaces, dashes, dots or parentheses,
// or with "00" for "+"; and now and then garbage: letters, unknown calling
// codes such as +999, national format without a calling code. The result is
// shuffled so that consecutive numbers come from unrelated countries, as in
// real traffic.
//
// All entries are international format for a parser with no default region,
// but some start with "00" instead of "+"; PlusForm rewrites those for
// libphonenumber. The corpus is the same on every call for a given
// libphonenumber metadata release; each call builds a new slice.
func Corpus() []string {
	rng := rand.New(rand.NewPCG(corpusSeed1, corpusSeed2))
	var corpus []string
	for _, ex := range exampleNumbers() {
		corpus = append(corpus,
			phonenumbers.Format(ex, phonenumbers.E164),
			phonenumbers.Format(ex, phonenumbers.INTERNATIONAL))
		cc := strconv.Itoa(int(ex.GetCountryCode()))
		nsn := phonenumbers.GetNationalSignificantNumber(ex)
		for range variantsPerExample {
			corpus = append(corpus, write(rng, cc, mutate(rng, nsn)))
		}
		if rng.IntN(100) < 4 {
			corpus = append(corpus, garbage(rng, cc, nsn))
		}
	}
	rng.Shuffle(len(corpus), func(i, j int) { corpus[i], corpus[j] = corpus[j], corpus[i] })
	return corpus
}

// PlusForm returns s with a leading "00" replaced by "+": the form in which
// libphonenumber, parsing without a default region, accepts the corpus's
// international numbers. Other strings are returned unchanged.
func PlusForm(s string) string {
	t := strings.TrimLeft(s, " ")
	if rest, ok := strings.CutPrefix(t, "00"); ok {
		return "+" + rest
	}
	return s
}

// E164Form rewrites the corpus into E.164 strings, as machines exchange
// numbers: each entry that libphonenumber parses becomes "+" and its digits
// (valid or not); the rest stay as they are. It is the input of the
// validity benchmark.
func E164Form(corpus []string) []string {
	out := make([]string, len(corpus))
	for i, s := range corpus {
		out[i] = s
		if n, err := phonenumbers.Parse(PlusForm(s), "ZZ"); err == nil {
			out[i] = phonenumbers.Format(n, phonenumbers.E164)
		}
	}
	return out
}

// exampleNumbers returns libphonenumber's example numbers for every type of
// every region, then of every non-geographic calling code, each once, in a
// fixed order.
func exampleNumbers() []*phonenumbers.PhoneNumber {
	var out []*phonenumbers.PhoneNumber
	seen := make(map[string]bool)
	add := func(n *phonenumbers.PhoneNumber) {
		if n == nil {
			return
		}
		if e164 := phonenumbers.Format(n, phonenumbers.E164); !seen[e164] {
			seen[e164] = true
			out = append(out, n)
		}
	}
	for _, region := range slices.Sorted(maps.Keys(phonenumbers.GetSupportedRegions())) {
		for _, t := range allTypes {
			add(phonenumbers.GetExampleNumberForTypeInRegion(region, t))
		}
	}
	// libphonenumber has no per-type example function for non-geographic
	// entities, so read their example numbers from the metadata; the entity's
	// own example comes first.
	nonGeo := make(map[int32]*phonenumbers.PhoneMetadata)
	if coll, err := phonenumbers.MetadataCollection(); err == nil {
		for _, m := range coll.GetMetadata() {
			if m.GetId() == "001" {
				nonGeo[m.GetCountryCode()] = m
			}
		}
	}
	for _, cc := range slices.Sorted(maps.Keys(phonenumbers.GetSupportedGlobalNetworkCallingCodes())) {
		add(phonenumbers.GetExampleNumberForNonGeoEntity(cc))
		m := nonGeo[int32(cc)]
		if m == nil {
			continue
		}
		for _, desc := range []*phonenumbers.PhoneNumberDesc{
			m.GetFixedLine(), m.GetMobile(), m.GetTollFree(), m.GetPremiumRate(),
			m.GetSharedCost(), m.GetVoip(), m.GetPersonalNumber(), m.GetPager(),
			m.GetUan(), m.GetVoicemail(),
		} {
			if ex := desc.GetExampleNumber(); ex != "" {
				n, err := phonenumbers.Parse("+"+strconv.Itoa(cc)+ex, "ZZ")
				if err == nil {
					add(n)
				}
			}
		}
	}
	return out
}

// mutate returns the national significant number nsn, changed or not. The
// weights aim at about one invalid number in seven over the whole corpus.
func mutate(rng *rand.Rand, nsn string) string {
	b := []byte(nsn)
	switch p := rng.IntN(100); {
	case p < 22: // unchanged: only the way it is written varies
	case p < 81: // last digits changed: usually another valid number of the same range
		k := 1
		if q := rng.IntN(10); q >= 9 {
			k = 3
		} else if q >= 7 {
			k = 2
		}
		for i := max(len(b)-k, 1); i < len(b); i++ {
			b[i] = randomDigit(rng)
		}
	case p < 88: // first national digit changed: often a range that does not exist
		b[0] = otherDigit(rng, b[0])
	case p < 94: // a digit dropped
		if len(b) > 1 {
			i := rng.IntN(len(b))
			b = append(b[:i], b[i+1:]...)
		}
	default: // a digit appended
		b = append(b, randomDigit(rng))
	}
	return string(b)
}

// write renders calling code cc and national number nsn the way people and
// systems write international numbers.
func write(rng *rand.Rand, cc, nsn string) string {
	var sb strings.Builder
	if rng.IntN(100) < 12 {
		sb.WriteString("00")
	} else {
		sb.WriteByte('+')
	}
	sb.WriteString(cc)
	switch p := rng.IntN(100); {
	case p < 45: // compact, as E.164
		sb.WriteString(nsn)
	case p < 85: // grouped with one kind of separator
		sep := [...]string{" ", " ", "-", ".", "/"}[rng.IntN(5)]
		sb.WriteString(sep)
		writeGroups(rng, &sb, nsn, sep)
	default: // area code in parentheses
		sb.WriteString(" (")
		k := min(1+rng.IntN(3), len(nsn)-1)
		sb.WriteString(nsn[:k])
		sb.WriteString(") ")
		writeGroups(rng, &sb, nsn[k:], " ")
	}
	return sb.String()
}

// writeGroups writes digits in groups of two to four separated by sep.
func writeGroups(rng *rand.Rand, sb *strings.Builder, digits, sep string) {
	for len(digits) > 0 {
		k := min(2+rng.IntN(3), len(digits))
		sb.WriteString(digits[:k])
		digits = digits[k:]
		if len(digits) > 0 {
			sb.WriteString(sep)
		}
	}
}

// garbage returns something that is not a valid international number, built
// around a real national number nsn of calling code cc.
func garbage(rng *rand.Rand, cc, nsn string) string {
	switch rng.IntN(8) {
	case 0, 1: // a calling code no country uses
		return "+" + [...]string{"999", "990", "997", "801", "835", "892"}[rng.IntN(6)] + " " + nsn
	case 2: // letters where the calling code should be
		return "+" + randomLetters(rng, 2) + nsn
	case 3: // words only
		return randomLetters(rng, 3+rng.IntN(8))
	case 4: // national format: no calling code to read
		return "0" + nsn
	case 5: // a lone plus sign, or nothing but spaces
		return [...]string{"+", "  ", "", "+ -"}[rng.IntN(4)]
	case 6: // stray symbols inside
		i := 1 + rng.IntN(len(nsn))
		return "+" + cc + nsn[:i] + [...]string{"*", "!", "?", "_"}[rng.IntN(4)] + nsn[i:]
	default: // far too short
		return "+" + cc + nsn[:1]
	}
}

func randomDigit(rng *rand.Rand) byte { return byte('0' + rng.IntN(10)) }

// otherDigit returns a random digit other than d.
func otherDigit(rng *rand.Rand, d byte) byte {
	return byte('0' + (int(d-'0')+1+rng.IntN(9))%10)
}

func randomLetters(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + rng.IntN(26))
	}
	return string(b)
}
