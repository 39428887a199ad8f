package numbering

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/numenhq/numen/numbering/compile"
	"github.com/nyaruka/phonenumbers/v2"
	"github.com/nyaruka/phonenumbers/v2/metadata"
	"google.golang.org/protobuf/proto"
)

// The committed plan's core metadata (number types, lengths, formats,
// national prefixes) is libphonenumber's newest release reachable here,
// 9.0.43, from libphonenumber-js; phonenumbers, the Go reference, carries
// 9.0.38. The tests that compare Numen with phonenumbers therefore run on
// refPlan: the same generated tables and the same compiler, with
// phonenumbers' own core metadata, so that the two sides are at one
// release and any difference is Numen's. The committed plan is held to
// refPlan wherever its metadata is the same (TestPlanMatchesReference,
// every calling code not in data/numbering/core_changes.tsv), and to
// libphonenumber-js at 9.0.43 everywhere (TestAgainstLibphonenumberJS).

// refPlan returns the plan compiled from phonenumbers' metadata and the
// committed tables, compiled once.
func refPlan(tb testing.TB) *Plan {
	tb.Helper()
	p, err := refPlanOnce()
	if err != nil {
		tb.Fatalf("compiling the reference plan: %v", err)
	}
	return p
}

var refPlanOnce = sync.OnceValues(func() (*Plan, error) {
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join("..", "data", "numbering", name))
		if err != nil || !strings.HasSuffix(name, ".gz") {
			return b, err
		}
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(zr)
	}
	in := compile.Input{Libphonenumber: metadata.Version}
	var err error
	for name, dst := range map[string]*[]byte{
		"countries.tsv": &in.Countries, "carrier_en.tsv.gz": &in.Carriers, "mccmnc.tsv.gz": &in.MCCMNC,
		"networks.tsv": &in.Networks, "geocoding_en.tsv.gz": &in.Geocoding, "timezones.tsv.gz": &in.Timezones,
	} {
		if *dst, err = read(name); err != nil {
			return nil, err
		}
	}
	if in.Metadata, err = phonenumbers.MetadataCollection(); err != nil {
		return nil, err
	}
	if in.ShortNumbers, err = phonenumbers.ShortNumberMetadataCollection(); err != nil {
		return nil, err
	}
	if in.AlternateFormats, err = alternateFormats(); err != nil {
		return nil, err
	}
	b, err := compile.Plan(in)
	if err != nil {
		return nil, err
	}
	return OpenBytes(b)
})

// alternateFormats reads the alternate formats phonenumbers ships (a
// gzipped PhoneMetadataCollection in its module), as data/gen does.
func alternateFormats() (*phonenumbers.PhoneMetadataCollection, error) {
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/nyaruka/phonenumbers/v2").Output()
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), "data", "alternateformats_metadata.xml.gz"))
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if raw, err = io.ReadAll(zr); err != nil {
		return nil, err
	}
	coll := &phonenumbers.PhoneMetadataCollection{}
	return coll, proto.Unmarshal(raw, coll)
}

// changedCodes are the calling codes with a region whose core metadata
// differs between the committed plan and phonenumbers
// (data/numbering/core_changes.tsv: region, calling code, fields).
var changedCodes = sync.OnceValue(func() map[int]bool {
	b, err := os.ReadFile(filepath.Join("..", "data", "numbering", "core_changes.tsv"))
	if err != nil {
		panic(err)
	}
	out := map[int]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(l, "\t")
		cc, err := strconv.Atoi(f[1])
		if err != nil {
			panic(l)
		}
		out[cc] = true
	}
	return out
})

// metadataChanged reports whether the calling code of an international
// number ("+..." or digits) has newer metadata in the committed plan than
// in phonenumbers.
func metadataChanged(p *Plan, s string) bool {
	digits := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			digits = append(digits, s[i])
		}
	}
	cc, _, ok := p.SplitCallingCode(string(digits))
	return ok && changedCodes()[cc]
}

// TestPlanMatchesReference holds the committed plan to refPlan, the plan
// the phonenumbers tests check, on their corpora: every answer must be the
// same but where the calling code's metadata is newer in the committed
// plan (core_changes.tsv), whose answers TestAgainstLibphonenumberJS
// checks. It classifies and formats the differential corpus, reads the
// regional corpus in its regions, types the as-you-type sequences and
// finds numbers in the find texts with both.
func TestPlanMatchesReference(t *testing.T) {
	t.Parallel()
	p, ref := plan(t), refPlan(t)
	var same, moved, diffs int
	check := func(what string, changed bool, got, want string) {
		switch {
		case got == want:
			same++
		case changed:
			moved++
		default:
			if diffs++; diffs <= 50 {
				t.Errorf("%s: plan %s, reference plan %s", what, got, want)
			}
		}
	}
	changedRegion := func(region string) bool { return changedCodes()[p.CallingCode(region)] }
	// changedInput: the input's calling code, as either plan reads it in
	// the region (after an international prefix, say), or the region's,
	// has newer metadata.
	changedInput := func(s, region string) bool {
		if changedRegion(region) || metadataChanged(p, s) {
			return true
		}
		for _, pl := range []*Plan{p, ref} {
			if n, err := pl.ParseIn(s, region); err == nil && metadataChanged(p, n.String()) {
				return true
			}
		}
		return false
	}
	classify := func(p *Plan, s string) string {
		res := p.ClassifyString(s)
		out := string(res.AppendJSON(nil))
		for _, style := range []Style{E164, International, National, RFC3966} {
			f, err := p.Format(res.Number, style)
			out += fmt.Sprintf(" %s=%q/%v", style, f, err)
		}
		for _, from := range []string{"US", "DE", "GB", "CN", "BR", "IN"} {
			f, err := p.FormatFrom(res.Number, from)
			out += fmt.Sprintf(" from %s=%q/%v", from, f, err)
		}
		return out
	}
	var tables int
	for _, s := range differentialCorpus() {
		changed := metadataChanged(p, s) || metadataChanged(ref, s)
		check("classify "+s, changed, classify(p, s), classify(ref, s))
		// Where the newer metadata changed the answer, the tables are
		// still one release: a number valid in one region at both keeps
		// its network, MCCMNC, description and time zones.
		a, b := p.ClassifyString(s), ref.ClassifyString(s)
		if changed && a.Valid && b.Valid && a.CountryCode == b.CountryCode && a.Type == b.Type {
			tables++
			got := fmt.Sprint(a.Network, a.MCCMNC, a.Regions, a.Timezones)
			if want := fmt.Sprint(b.Network, b.MCCMNC, b.Regions, b.Timezones); got != want {
				t.Errorf("%s: tables answer %s, reference plan %s", s, got, want)
			}
		}
	}
	t.Logf("%d valid numbers of calling codes with newer metadata: the same tables' answers", tables)
	classifyIn := func(p *Plan, s, region string) string {
		res, err := p.ClassifyIn(s, region)
		return fmt.Sprintf("%s/%v", res.AppendJSON(nil), err)
	}
	for _, in := range regionalCorpus() {
		got, want := classifyIn(p, in.s, in.region), classifyIn(ref, in.s, in.region)
		check(fmt.Sprintf("%q in %s", in.s, in.region), changedInput(in.s, in.region), got, want)
	}
	for _, seq := range aytSequences() {
		// typed returns what the formatter shows after each key, and
		// whether a calling code with newer metadata came up.
		typed := func(p *Plan) (string, bool) {
			f, err := p.NewAsYouType(seq.region)
			if err != nil {
				return err.Error(), false
			}
			var out []string
			changed := false
			for _, c := range seq.input {
				text, pr := f.Input(c)
				changed = changed || changedCodes()[pr.CallingCode]
				out = append(out, fmt.Sprintf("%s|%v %v %v %v %d %v", text, pr.State, pr.Reason, pr.Types, pr.Longer, pr.CallingCode, pr.Regions()))
			}
			return strings.Join(out, "\n"), changed
		}
		got, c1 := typed(p)
		want, c2 := typed(ref)
		check(fmt.Sprintf("as you type %q in %s", seq.input, seq.region), c1 || c2 || changedInput(seq.input, seq.region), got, want)
	}
	for i, text := range findTexts(31, 1200) {
		region := findRegions[i%len(findRegions)]
		for l := LeniencyPossible; l <= LeniencyExactGrouping; l++ {
			got, want := numenFind(t, p, text, region, l), numenFind(t, ref, text, region, l)
			changed := changedRegion(region)
			for _, m := range append(slices.Clone(got), want...) {
				changed = changed || metadataChanged(p, m.Number)
			}
			check(fmt.Sprintf("find in %q (%s, %v)", text, region, l), changed, fmt.Sprint(got), fmt.Sprint(want))
		}
	}
	t.Logf("%d answers the same, %d differ where the metadata is newer (checked against libphonenumber-js), %d differ elsewhere", same, moved, diffs)
	if same < 100000 {
		t.Errorf("only %d answers compared", same)
	}
}

// FuzzPlanMatchesReference compares the committed plan with refPlan on
// numbers the fuzzer makes ("+" and the digits of its input): the same
// classification and formats wherever the calling code's metadata is not
// newer in the committed plan.
func FuzzPlanMatchesReference(f *testing.F) {
	for i, s := range differentialCorpus() {
		if i%97 == 0 {
			f.Add(s[1:])
		}
	}
	p, ref := plan(f), refPlan(f)
	answer := func(p *Plan, s string) string {
		res := p.ClassifyString(s)
		out := string(res.AppendJSON(nil))
		for _, style := range []Style{E164, International, National, RFC3966} {
			formatted, err := p.Format(res.Number, style)
			out += fmt.Sprintf(" %q/%v", formatted, err)
		}
		return out
	}
	f.Fuzz(func(t *testing.T, in string) {
		digits := make([]byte, 0, 20)
		for i := 0; i < len(in) && len(digits) < 20; i++ {
			if in[i] >= '0' && in[i] <= '9' {
				digits = append(digits, in[i])
			}
		}
		s := "+" + string(digits)
		if metadataChanged(p, s) {
			return
		}
		if got, want := answer(p, s), answer(ref, s); got != want {
			t.Fatalf("%s: plan %s, reference plan %s", s, got, want)
		}
	})
}
