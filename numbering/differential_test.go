package numbering

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/nyaruka/phonenumbers/v2"
	"github.com/nyaruka/phonenumbers/v2/carrier"
	"github.com/nyaruka/phonenumbers/v2/geocoding"
	"github.com/nyaruka/phonenumbers/v2/timezone"
)

var lpnTypes = []phonenumbers.PhoneNumberType{
	phonenumbers.FIXED_LINE, phonenumbers.MOBILE, phonenumbers.FIXED_LINE_OR_MOBILE,
	phonenumbers.TOLL_FREE, phonenumbers.PREMIUM_RATE, phonenumbers.SHARED_COST,
	phonenumbers.VOIP, phonenumbers.PERSONAL_NUMBER, phonenumbers.PAGER,
	phonenumbers.UAN, phonenumbers.VOICEMAIL,
}

// exampleNumbers returns every example number phonenumbers ships, by region
// (sorted) and type, including the non-geographic calling codes.
func exampleNumbers() []struct {
	region string
	typ    phonenumbers.PhoneNumberType
	e164   string
} {
	var out []struct {
		region string
		typ    phonenumbers.PhoneNumberType
		e164   string
	}
	add := func(region string, typ phonenumbers.PhoneNumberType, n *phonenumbers.PhoneNumber) {
		if n != nil {
			out = append(out, struct {
				region string
				typ    phonenumbers.PhoneNumberType
				e164   string
			}{region, typ, phonenumbers.Format(n, phonenumbers.E164)})
		}
	}
	regions := make([]string, 0, 256)
	for r := range phonenumbers.GetSupportedRegions() {
		regions = append(regions, r)
	}
	sort.Strings(regions)
	for _, r := range regions {
		for _, typ := range lpnTypes {
			add(r, typ, phonenumbers.GetExampleNumberForTypeInRegion(r, typ))
		}
	}
	codes := make([]int, 0, 16)
	for cc := range phonenumbers.GetSupportedGlobalNetworkCallingCodes() {
		codes = append(codes, cc)
	}
	sort.Ints(codes)
	for _, cc := range codes {
		add("001", phonenumbers.UNKNOWN, phonenumbers.GetExampleNumberForNonGeoEntity(cc))
	}
	return out
}

var lpnToAPI = map[phonenumbers.PhoneNumberType]Type{
	phonenumbers.FIXED_LINE: Landline, phonenumbers.MOBILE: Mobile,
	phonenumbers.FIXED_LINE_OR_MOBILE: MobileOrLandline, phonenumbers.TOLL_FREE: TollFree,
	phonenumbers.PREMIUM_RATE: PremiumRate, phonenumbers.SHARED_COST: SharedCost,
	phonenumbers.VOIP: VoIP, phonenumbers.PERSONAL_NUMBER: Unknown, phonenumbers.PAGER: Pager,
	phonenumbers.UAN: UAN, phonenumbers.VOICEMAIL: Voicemail, phonenumbers.UNKNOWN: Unknown,
}

// TestExampleNumbers is phonenumbers' examplenumbers_test idea: every example
// number in the metadata must classify as valid and as the type it is the
// example of (FIXED_LINE examples may be MOBILE_OR_LANDLINE where the plan
// does not separate them).
func TestExampleNumbers(t *testing.T) {
	t.Parallel()
	p := refPlan(t)
	n := 0
	for _, ex := range exampleNumbers() {
		res := p.ClassifyString(ex.e164)
		n++
		if !res.Valid || res.Status != StatusOK {
			t.Errorf("%s %v example %s: valid=%v status=%v reason=%q", ex.region, ex.typ, ex.e164, res.Valid, res.Status, res.Reason)
			continue
		}
		if ex.region != "001" && res.CountryCode != ex.region {
			// Shared calling codes: the example may also be valid in the
			// main region; libphonenumber says which (checked below).
			n, _ := phonenumbers.Parse(ex.e164, "ZZ")
			if got := phonenumbers.GetRegionCodeForNumber(n); got != res.CountryCode {
				t.Errorf("%s example %s: country %q, libphonenumber %q", ex.region, ex.e164, res.CountryCode, got)
			}
		}
		if ex.typ == phonenumbers.UNKNOWN {
			continue
		}
		want := lpnToAPI[ex.typ]
		switch {
		case res.Type == want:
		case (ex.typ == phonenumbers.FIXED_LINE || ex.typ == phonenumbers.MOBILE) && res.Type == MobileOrLandline:
		case ex.typ == phonenumbers.FIXED_LINE_OR_MOBILE && (res.Type == Landline || res.Type == Mobile):
			// libphonenumber has no examples of this type: it returns the fixed-line one.
		default:
			t.Errorf("%s %v example %s: type %v, want %v", ex.region, ex.typ, ex.e164, res.Type, want)
		}
		if ex.typ == phonenumbers.PERSONAL_NUMBER && res.Info == "" {
			t.Errorf("%s personal number %s: no info_text", ex.region, ex.e164)
		}
	}
	if n < 1000 {
		t.Fatalf("only %d example numbers: metadata not read?", n)
	}
}

// differentialCorpus is the example numbers plus deterministic mutations:
// last digits changed, a digit dropped or added, the first national digit
// changed, a national prefix inserted, punctuation added.
func differentialCorpus() []string { return mutatedCorpus(2, 26) }

// mutatedCorpus is differentialCorpus with the mutations of another seed.
func mutatedCorpus(seed1, seed2 uint64) []string {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	var out []string
	for _, ex := range exampleNumbers() {
		s := ex.e164
		out = append(out, s)
		digits := s[1:]
		d := func() byte { return byte('0' + rng.IntN(10)) }
		mut := []byte(digits)
		mut[len(mut)-1] = d()
		out = append(out, "+"+string(mut))
		mut = []byte(digits)
		mut[len(mut)-2], mut[len(mut)-1] = d(), d()
		out = append(out, "+"+string(mut))
		out = append(out, "+"+digits[:len(digits)-1])
		out = append(out, "+"+digits+string(d()))
		cut := 1 + rng.IntN(len(digits)-1)
		out = append(out, "+"+digits[:cut]+string(d())+digits[cut:])
		for k := 1; k <= 3 && k < len(digits); k++ {
			mut = []byte(digits)
			mut[k] = d()
			out = append(out, "+"+string(mut))
		}
		for _, np := range []string{"0", "1", "8", "9", "06", "15"} {
			for k := 1; k <= 3 && k < len(digits); k++ {
				out = append(out, "+"+digits[:k]+np+digits[k:])
			}
		}
		out = append(out, fmt.Sprintf("+%s (%s) %s-%s", digits[:2], digits[2:4], digits[4:len(digits)-2], digits[len(digits)-2:]))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

type lpnAnswer struct {
	E164     string
	Valid    bool
	Type     Type
	Region   string
	Carrier  string
	Geo      string
	Zones    []string
	Personal bool

	CountryName string
}

func libphonenumberAnswer(s string) (lpnAnswer, bool) {
	num, err := phonenumbers.Parse(s, "ZZ")
	if err != nil {
		return lpnAnswer{}, false
	}
	typ := phonenumbers.GetNumberType(num)
	a := lpnAnswer{
		E164:     phonenumbers.Format(num, phonenumbers.E164),
		Valid:    phonenumbers.IsValidNumber(num),
		Type:     lpnToAPI[typ],
		Region:   phonenumbers.GetRegionCodeForNumber(num),
		Personal: typ == phonenumbers.PERSONAL_NUMBER,
	}
	if !a.Valid {
		a.Type = Unknown
		return a, true
	}
	a.Carrier, _ = carrier.GetNameForNumber(num, "en")
	a.Geo, _ = geocoding.GetDescriptionForNumber(num, "en")
	a.Zones, _ = timezone.GetTimeZonesForNumber(num)
	if len(a.Zones) == 1 && a.Zones[0] == timezone.Unknown {
		a.Zones = nil
	}
	if a.Region == "001" {
		a.Region = ""
	}
	return a, true
}

func numenAnswer(res Result) lpnAnswer {
	a := lpnAnswer{E164: res.Number.String(), Valid: res.Valid, Type: res.Type}
	if !res.Valid {
		return a
	}
	a.Region = res.CountryCode
	a.Carrier = res.Network
	if len(res.Regions) > 0 {
		a.Geo = res.Regions[0]
	}
	a.Zones = res.Timezones
	a.Personal = res.Info == infoPersonal
	a.CountryName = res.CountryName
	return a
}

// curatedRanges are the generator's curated ranges (numbering/ranges.tsv.gz:
// prefix -> operator), read once.
var curatedRanges = sync.OnceValue(func() map[string]string {
	raw, err := os.ReadFile(filepath.Join("..", "data", "numbering", "ranges.tsv.gz"))
	if err != nil {
		panic(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		panic(err)
	}
	if raw, err = io.ReadAll(zr); err != nil {
		panic(err)
	}
	out := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		f := strings.Split(l, "\t")
		out[f[0]] = f[1]
	}
	return out
})

// curatedRangeOf returns the operator of the longest curated range of an
// E.164 number ("+7...").
func curatedRangeOf(e164 string) (string, bool) {
	digits := strings.TrimPrefix(e164, "+")
	for l := len(digits); l > 0; l-- {
		if name, ok := curatedRanges()[digits[:l]]; ok {
			return name, true
		}
	}
	return "", false
}

// differsFromLibphonenumber classifies s with both Numen and phonenumbers
// and returns a description of the difference, "" when they agree on the
// normalised number, validity, type, region, carrier, geocoding and time
// zones. valid reports libphonenumber's verdict.
func differsFromLibphonenumber(p *Plan, s string) (diff string, valid bool) {
	want, ok := libphonenumberAnswer(s)
	got := numenAnswer(p.ClassifyString(s))
	if !ok {
		if got.Valid {
			return fmt.Sprintf("numen valid %v, libphonenumber does not parse it", got.Type), false
		}
		return "", false
	}
	if want.Valid && want.Geo == "" && got.Geo == got.CountryName {
		// Deliberate: where libphonenumber has no description (numbers
		// valid in several regions of a shared calling code, such as
		// Italian mobiles also valid in the Vatican, and non-geographic
		// services like +800), Numen names the country it determined.
		got.Geo = ""
	}
	if name, ok := curatedRangeOf(want.E164); ok && want.Valid && (want.Type == Mobile || want.Type == MobileOrLandline || want.Type == Pager) {
		// Deliberate: data/curated ranges (such as the Russian register's)
		// name the operator where libphonenumber has none, or an older one;
		// like libphonenumber's carrier mapper, only for the types that
		// have a network (a VOICEMAIL number in Iliad's +39 351 has none,
		// found by FuzzAgainstLibphonenumber).
		want.Carrier = name
	}
	if strings.HasPrefix(want.E164, "+353") && slices.Equal(got.Zones, []string{"Europe/Dublin"}) {
		got.Zones = want.Zones // data/curated/timezone_overrides.tsv corrects Ireland
	}
	if !want.Valid {
		want.Region, got.Region = "", ""
		// phonenumbers writes at most 10 leading zeros of a national
		// number ("defensively", against hostile input); Numen keeps the
		// digits. No valid number has so many.
		got.E164 = capLeadingZeros(p, got.E164)
	}
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(lpnAnswer{}, "CountryName")); d != "" {
		return "(-libphonenumber +numen)\n" + d, want.Valid
	}
	return "", want.Valid
}

// TestAgainstLibphonenumber classifies the example numbers and thousands of
// mutations of them with both Numen and phonenumbers, and requires the same
// answer: normalised number, validity, type, region, carrier, geocoding and
// time zones.
func TestAgainstLibphonenumber(t *testing.T) {
	t.Parallel()
	p := refPlan(t)
	corpus := differentialCorpus()
	if len(corpus) < 20000 {
		t.Fatalf("corpus has %d numbers", len(corpus))
	}
	var valid, invalid, mismatches int
	for _, s := range corpus {
		res := p.ClassifyString(s)
		if v := p.Validate(s); v != (Validity{Number: res.Number, Valid: res.Valid, Type: res.Type, Reason: res.Reason, Region: res.CountryCode}) {
			t.Errorf("%s: Validate %+v, ClassifyString %+v", s, v, res)
		}
		diff, ok := differsFromLibphonenumber(p, s)
		if ok {
			valid++
		} else {
			invalid++
		}
		if diff != "" {
			mismatches++
			if mismatches <= 300 {
				t.Errorf("%s: %s", s, diff)
			}
		}
	}
	t.Logf("%d numbers: %d valid, %d invalid, %d mismatches", len(corpus), valid, invalid, mismatches)
	if valid < 5000 || invalid < 5000 {
		t.Errorf("corpus too one-sided: %d valid, %d invalid", valid, invalid)
	}
}

// FuzzAgainstLibphonenumber compares the compiled plan with libphonenumber
// on numbers the fuzzer makes: the digits of its input after a "+", so that
// every input is a number in international format both accept.
func FuzzAgainstLibphonenumber(f *testing.F) {
	for i, s := range differentialCorpus() {
		if i%97 == 0 {
			f.Add(s[1:])
		}
	}
	p := refPlan(f)
	f.Fuzz(func(t *testing.T, in string) {
		digits := make([]byte, 0, 20)
		for i := 0; i < len(in) && len(digits) < 20; i++ {
			if in[i] >= '0' && in[i] <= '9' {
				digits = append(digits, in[i])
			}
		}
		s := "+" + string(digits)
		if diff, _ := differsFromLibphonenumber(p, s); diff != "" {
			t.Fatalf("%s: %s", s, diff)
		}
	})
}

// capLeadingZeros cuts the leading zeros of the national part of an E.164
// number to 10, as phonenumbers' GetNationalSignificantNumber does (the last
// digit of a national number of zeros does not count as leading).
func capLeadingZeros(p *Plan, e164 string) string {
	cc, national, ok := p.SplitCallingCode(strings.TrimPrefix(e164, "+"))
	if !ok {
		return e164
	}
	lead := 0
	for lead < len(national)-1 && national[lead] == '0' {
		lead++
	}
	if lead <= 10 {
		return e164
	}
	return fmt.Sprintf("+%d%s", cc, national[lead-10:])
}
