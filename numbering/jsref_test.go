package numbering

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// libphonenumber-js, the reference at the release of the committed plan's
// core metadata: the tarball data/gen compiles from (data/sources), pinned
// by the npm registry's integrity as data/gen pins it.
const (
	jsTarball   = "libphonenumber-js-1.13.16.tgz"
	jsIntegrity = "sha512-tIOCM9yx2Go6d5/ZANe0K+G4AZek1Ymx81HxQpf19Sri4zMP95eQbKdnUGHAvFQ4nx0PeLhFqvAfisTADXj3tQ=="
)

// jsAnswer is what libphonenumber-js (max metadata) says of a number in
// international format: parsePhoneNumberFromString, then isValid,
// getType, country and the national and international formats.
type jsAnswer struct {
	In            string `json:"in"`
	Parsed        bool   `json:"parsed"`
	E164          string `json:"e164"`
	Valid         bool   `json:"valid"`
	Type          string `json:"type"`
	Country       string `json:"country"`
	National      string `json:"national"`
	International string `json:"international"`
}

// jsScript answers a JSON array of inputs with a JSON array of jsAnswer;
// an input "s@XX" is s read with the default region XX.
const jsScript = `
const lib = require(process.argv[2] + '/max/index.cjs');
const inputs = JSON.parse(require('fs').readFileSync(process.argv[3], 'utf8'));
const out = inputs.map((s) => {
  let region;
  const at = s.lastIndexOf('@');
  if (at >= 0) { region = s.slice(at + 1); s = s.slice(0, at); }
  const n = lib.parsePhoneNumberFromString(s, region);
  if (!n) return {in: s, parsed: false};
  return {in: s, parsed: true, e164: n.number, valid: n.isValid(), type: n.getType() || '',
    country: n.country || '', national: n.formatNational(), international: n.formatInternational()};
});
process.stdout.write(JSON.stringify(out));
`

// jsPackageDir extracts the pinned libphonenumber-js tarball, checked
// against its integrity, into a temporary directory.
func jsPackageDir(t testing.TB) string {
	t.Helper()
	tgz, err := os.ReadFile(filepath.Join("..", "data", "sources", jsTarball))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(tgz)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != jsIntegrity {
		t.Fatalf("%s: integrity %s, want %s", jsTarball, got, jsIntegrity)
	}
	dir := t.TempDir()
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Clean(strings.TrimPrefix(h.Name, "package/"))
		if h.Typeflag != tar.TypeReg || strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			continue
		}
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(io.LimitReader(tr, 64<<20))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// jsAnswers asks libphonenumber-js in Node about every input, in one run.
// A missing node fails the test (.ci/deps installs it).
func jsAnswers(t testing.TB, dir string, inputs []string) []jsAnswer {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("Node.js is needed: run .ci/deps, which installs Debian's nodejs (%v)", err)
	}
	work := t.TempDir()
	script, in := filepath.Join(work, "answer.cjs"), filepath.Join(work, "inputs.json")
	b, err := json.Marshal(inputs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(jsScript), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script, dir, in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var answers []jsAnswer
	if err := json.Unmarshal(out, &answers); err != nil {
		t.Fatal(err)
	}
	if len(answers) != len(inputs) {
		t.Fatalf("%d answers to %d inputs", len(answers), len(inputs))
	}
	return answers
}

// jsExampleNumbers returns libphonenumber-js's example numbers at the
// plan's release (examples.mobile.json: one mobile number per region),
// in international format.
func jsExampleNumbers(t testing.TB, p *Plan, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "examples.mobile.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ex map[string]string
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	var out []string
	for region, national := range ex {
		out = append(out, fmt.Sprintf("+%d%s", p.CallingCode(region), national))
	}
	sort.Strings(out)
	return out
}

// leadingDigitSweep returns each number with the first two digits after
// its calling code replaced by 00 to 99: libphonenumber-js's one mobile
// example per region then reaches the region's other mobile ranges, the
// new ones of a newer release among them (Suriname's 60 and 68 of 9.0.43,
// which no example number or random mutation reaches).
func leadingDigitSweep(p *Plan, numbers []string) []string {
	var out []string
	for _, s := range numbers {
		cc, nsn, ok := p.SplitCallingCode(strings.TrimPrefix(s, "+"))
		if !ok || len(nsn) < 4 {
			continue
		}
		for d := range 100 {
			out = append(out, fmt.Sprintf("+%d%02d%s", cc, d, nsn[2:]))
		}
	}
	return out
}

var apiToJS = map[Type]string{
	Landline: "FIXED_LINE", Mobile: "MOBILE", MobileOrLandline: "FIXED_LINE_OR_MOBILE", TollFree: "TOLL_FREE",
	PremiumRate: "PREMIUM_RATE", SharedCost: "SHARED_COST", VoIP: "VOIP", Pager: "PAGER", UAN: "UAN",
	Voicemail: "VOICEMAIL", Unknown: "",
}

// numenJSAnswer is Numen's answer in jsAnswer's terms.
func numenJSAnswer(p *Plan, s string) jsAnswer {
	res := p.ClassifyString(s)
	a := jsAnswer{In: s, Parsed: res.Status == StatusOK, E164: res.Number.String(), Valid: res.Valid}
	if !res.Valid {
		return a
	}
	a.Type = apiToJS[res.Type]
	if res.Info == infoPersonal {
		a.Type = "PERSONAL_NUMBER"
	}
	a.Country = res.CountryCode
	a.National, _ = p.Format(res.Number, National)
	a.International, _ = p.Format(res.Number, International)
	return a
}

// TestAgainstLibphonenumberJS classifies and formats every example number
// (phonenumbers' and libphonenumber-js's) and the mutations of the
// differential corpus with the committed plan and with libphonenumber-js
// at the plan's metadata release, in Node, and requires the same answer:
// validity, then for valid numbers E.164, type, region and the national
// and international formats. The differences libphonenumber-js's own code
// makes are listed in jsExplained, each with its reason.
func TestAgainstLibphonenumberJS(t *testing.T) {
	t.Parallel()
	p := plan(t)
	dir := jsPackageDir(t)
	// The example numbers, with two rounds of mutations of them.
	examples := jsExampleNumbers(t, p, dir)
	for _, ex := range exampleNumbers() {
		examples = append(examples, ex.e164)
	}
	corpus := append(append(differentialCorpus(), mutatedCorpus(3, 35)...), examples...)
	corpus = append(corpus, leadingDigitSweep(p, jsExampleNumbers(t, p, dir))...)
	slices.Sort(corpus)
	corpus = slices.Compact(corpus)
	answers := jsAnswers(t, dir, corpus)
	js := readJSMetadataFile(t, dir)
	ref := refPlan(t)
	var valid, differ, release, releaseAgree int
	var changes []string
	reasons := map[string]int{}
	for i, s := range corpus {
		want, got := answers[i], numenJSAnswer(p, s)
		if got.Valid {
			valid++
		}
		if old := numenJSAnswer(ref, s); old != got && (old.Valid || got.Valid) {
			// An answer the newer metadata changed.
			release++
			if got == want || !want.Valid && !got.Valid {
				releaseAgree++
			}
			changes = append(changes, fmt.Sprintf("%s: at 9.0.38 valid %v %s %s %q, now valid %v %s %s %q", s, old.Valid, old.Type, old.Country, old.National, got.Valid, got.Type, got.Country, got.National))
		}
		if !want.Valid && !got.Valid {
			continue
		}
		if want == got {
			continue
		}
		if why := jsExplained(p, js, got, want); why != "" {
			reasons[why]++
			continue
		}
		if differ++; differ <= 400 {
			t.Errorf("%s (changed %v): numen %+v\n    libphonenumber-js %+v\n    reference plan %+v", s, metadataChanged(p, s), got, want, numenJSAnswer(refPlan(t), s))
		}
	}
	for why, n := range reasons {
		t.Logf("%d explained: %s", n, why)
	}
	t.Logf("answers the newer metadata changed:\n\t%s", strings.Join(changes, "\n\t"))
	t.Logf("%d numbers (%d example numbers, %d valid): %d differ unexplained; the newer metadata changed %d answers, %d of them now the same as libphonenumber-js's in every field (the rest explained above)", len(corpus), len(examples), valid, differ, release, releaseAgree)
	if mutations := len(corpus) - len(examples); mutations < 28000 {
		t.Errorf("corpus has %d mutations", mutations)
	}
}

// jsExplained returns why Numen's answer (libphonenumber's behaviour) and
// libphonenumber-js's may differ, "" when nothing explains it.
func jsExplained(p *Plan, js *jsMetadataFile, got, want jsAnswer) string {
	_, nsn, _ := p.SplitCallingCode(strings.TrimPrefix(want.E164, "+"))
	switch {
	case got.Valid && want.Valid && got.International != want.International && jsSeparators(got.International) == want.International:
		got.International = want.International
		if got == want {
			return "libphonenumber-js writes international formats with spaces alone (its applyInternationalSeparatorStyle); libphonenumber keeps the format's '-' and '/'"
		}
		if why := jsExplained(p, js, got, want); why != "" {
			return why + "; and international separators"
		}
	case got.Valid && want.Valid && got.National != want.National && want.National == nsn && got.International == want.International:
		got.National = want.National
		if got == want {
			return "libphonenumber-js's metadata leaves out the formats for national use only (intlFormat NA), so it writes such numbers nationally as bare digits; libphonenumber formats them with that format"
		}
	case got.Valid && want.Valid && got.Type == "FIXED_LINE" && want.Type == "FIXED_LINE_OR_MOBILE" && js.noMobile(want.Country):
		got.Type = want.Type
		if got == want {
			return "libphonenumber-js calls a fixed-line number FIXED_LINE_OR_MOBILE in a region without mobile numbers (" + want.Country + "); libphonenumber FIXED_LINE"
		}
	case !got.Valid && want.Valid && len(got.E164) == len(want.E164)+1 && js.strippedNationalPrefix(p, got.E164, want.E164):
		return "after the calling code, libphonenumber-js strips a national prefix that libphonenumber keeps: libphonenumber strips it only when the rest has a length possible in the calling code's main region, not one possible only locally (US: 7 digits), so +1 1 310 1234 stays invalid there and is Canada's UAN 310-1234 in libphonenumber-js"
	}
	return ""
}

// jsMetadataFile is what the explanations read of libphonenumber-js's
// metadata.max.json: each region's national prefix and types.
type jsMetadataFile struct {
	Countries map[string][]json.RawMessage `json:"countries"`
}

func readJSMetadataFile(t testing.TB, dir string) *jsMetadataFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "metadata.max.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m jsMetadataFile
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return &m
}

// noMobile reports whether the region has no mobile type in js's
// metadata.
func (m *jsMetadataFile) noMobile(region string) bool {
	c := m.Countries[region]
	if len(c) < 12 {
		return false
	}
	var types []json.RawMessage
	if json.Unmarshal(c[11], &types) != nil {
		return false
	}
	return len(types) < 2 || string(types[1]) == "0"
}

// strippedNationalPrefix reports whether long is short with a national
// prefix of a region of its calling code after the calling code.
func (m *jsMetadataFile) strippedNationalPrefix(p *Plan, long, short string) bool {
	cc, rest, ok := p.SplitCallingCode(strings.TrimPrefix(short, "+"))
	if !ok {
		return false
	}
	for _, c := range m.Countries {
		var code, np string
		if len(c) > 5 && json.Unmarshal(c[0], &code) == nil && code == strconv.Itoa(cc) && json.Unmarshal(c[5], &np) == nil && np != "" {
			if long == "+"+code+np+rest {
				return true
			}
		}
	}
	return false
}

// jsSeparators rewrites a number as libphonenumber-js's
// applyInternationalSeparatorStyle does: runs of '-', '.', '/' and spaces
// become one space, brackets go.
func jsSeparators(s string) string {
	s = strings.NewReplacer("(", "", ")", "").Replace(s)
	var b strings.Builder
	sep := false
	for _, r := range s {
		if r == '-' || r == '.' || r == '/' || r == ' ' {
			sep = true
			continue
		}
		if sep && b.Len() > 0 {
			b.WriteByte(' ')
		}
		sep = false
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// TestParseInAgainstLibphonenumberJS reads the regional corpus (numbers
// written nationally and internationally, with national and international
// prefixes, in every region) in its regions with the committed plan and
// with libphonenumber-js, and requires the same answers where both read a
// valid number, as TestAgainstLibphonenumberJS does.
func TestParseInAgainstLibphonenumberJS(t *testing.T) {
	t.Parallel()
	p := plan(t)
	dir := jsPackageDir(t)
	corpus := regionalCorpus()
	inputs := make([]string, len(corpus))
	for i, in := range corpus {
		inputs[i] = in.s + "@" + in.region
	}
	answers := jsAnswers(t, dir, inputs)
	js := readJSMetadataFile(t, dir)
	ref := refPlan(t)
	var valid, differ int
	var readOtherwise []string
	reasons := map[string]int{}
	for i, in := range corpus {
		want := answers[i]
		want.In = in.s
		res, err := p.ClassifyIn(in.s, in.region)
		got := jsAnswer{In: in.s}
		if err == nil {
			got = numenJSAnswer(p, res.Number.String())
			got.In = in.s
		}
		if got.Valid {
			valid++
		}
		if !want.Valid && !got.Valid || want == got {
			continue
		}
		got.Parsed = want.Parsed
		if why := jsExplained(p, js, got, want); why != "" {
			reasons[why]++
			continue
		}
		if old, err := ref.ClassifyIn(in.s, in.region); err == nil && old.Number == res.Number && old.Valid == res.Valid {
			// libphonenumber's reading is the same at both releases (the
			// reference plan's is phonenumbers', TestParseInAgainstLibphonenumber):
			// the newer metadata changed nothing here, libphonenumber-js's
			// parser reads the input otherwise.
			readOtherwise = append(readOtherwise, fmt.Sprintf("%q in %s: numen %s (valid %v), libphonenumber-js %s (valid %v)", in.s, in.region, got.E164, got.Valid, want.E164, want.Valid))
			continue
		}
		if differ++; differ <= 200 {
			t.Errorf("%q in %s: numen %+v\n    libphonenumber-js %+v", in.s, in.region, got, want)
		}
	}
	for why, n := range reasons {
		t.Logf("%d explained: %s", n, why)
	}
	t.Logf("%d read otherwise by libphonenumber-js's parser (a national prefix or carrier code it leaves in, an international prefix, a NANPA local number after 1), where libphonenumber's reading is the same at 9.0.38 and at the plan's release:\n\t%s", len(readOtherwise), strings.Join(readOtherwise, "\n\t"))
	t.Logf("%d inputs (%d valid): %d differ unexplained", len(corpus), valid, differ)
	if len(readOtherwise) > 200 {
		t.Errorf("%d inputs read otherwise by libphonenumber-js: more than the 66 of 2026-11-27, look at them", len(readOtherwise))
	}
}
