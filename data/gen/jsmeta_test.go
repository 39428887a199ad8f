package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/nyaruka/phonenumbers/v2"
)

// TestJSMetadataRelease: the pinned libphonenumber-js tarball is the one
// whose CHANGELOG names the release the generator records.
func TestJSMetadataRelease(t *testing.T) {
	t.Parallel()
	tgz, err := readJSTarball(os.DirFS(filepath.Join("..", "sources")))
	if err != nil {
		t.Fatal(err)
	}
	changelog, err := tarballFile(tgz, "package/CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := changelogRelease(changelog); err != nil || got != jsMetadataRelease {
		t.Fatalf("%s %s's CHANGELOG names %q (%v), the generator records %s", jsPackage, jsVersion, got, err, jsMetadataRelease)
	}
	bad := bytes.Clone(tgz)
	bad[len(bad)/2] ^= 1
	if _, err := readJSTarball(fstest.MapFS{jsTarball: &fstest.MapFile{Data: bad}}); err == nil || !strings.Contains(err.Error(), "integrity") {
		t.Errorf("a changed tarball was read: %v", err)
	}
}

// TestJSOverlayKeepsUnchangedRegions: laying js's metadata over
// phonenumbers' changes nothing in a region whose metadata js and
// phonenumbers agree on, so the overlay itself loses nothing of what js
// does not carry. Projected to js's form and laid over base again,
// phonenumbers' own metadata must come back unchanged: every field of
// every region.
func TestJSOverlayKeepsUnchangedRegions(t *testing.T) {
	t.Parallel()
	base, err := phonenumbers.MetadataCollection()
	if err != nil {
		t.Fatal(err)
	}
	over, err := overlayJSMetadata(base, projectToJS(t, base))
	if err != nil {
		t.Fatal(err)
	}
	if changes := coreChangesTSV(over, base); len(changes) > 0 {
		t.Errorf("phonenumbers' metadata in js's form, laid over itself, changed:\n%s", changes)
	}
}

// projectToJS writes phonenumbers' metadata in libphonenumber-js's form
// (metadata.max.json, format version 4) as its metadata generator does:
// formats for national use only left out, a mobile pattern that equals
// the fixed-line one as "", lengths a type shares with its region left
// out.
func projectToJS(t *testing.T, coll *phonenumbers.PhoneMetadataCollection) *jsMetadata {
	t.Helper()
	js := &jsMetadata{Version: 4, Countries: map[string][]json.RawMessage{}, NonGeographic: map[string][]json.RawMessage{}}
	raw := func(v any) json.RawMessage {
		if v == nil {
			return json.RawMessage("0")
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	opt := func(s *string) any {
		if s == nil {
			return nil
		}
		return *s
	}
	for _, m := range coll.GetMetadata() {
		c := make([]json.RawMessage, 14)
		c[0] = raw(strconv.Itoa(int(m.GetCountryCode())))
		c[1] = raw(opt(m.InternationalPrefix))
		c[2] = raw(m.GetGeneralDesc().GetNationalNumberPattern())
		c[3] = raw(m.GetGeneralDesc().GetPossibleLength())
		intl := map[string]*phonenumbers.NumberFormat{}
		for _, f := range m.IntlNumberFormat {
			intl[intlKey(f)] = f
		}
		var formats []any
		for _, f := range m.NumberFormat {
			in := intl[intlKey(f)]
			if len(m.IntlNumberFormat) > 0 && in == nil {
				continue // national use only
			}
			jf := []any{f.GetPattern(), f.GetFormat(), f.LeadingDigitsPattern, opt(f.NationalPrefixFormattingRule), f.GetNationalPrefixOptionalWhenFormatting()}
			if in != nil && in.GetFormat() != f.GetFormat() {
				jf = append(jf, in.GetFormat())
			}
			formats = append(formats, jf)
		}
		if formats != nil {
			c[4] = raw(formats)
		}
		c[5] = raw(opt(m.NationalPrefix))
		c[7] = raw(opt(m.NationalPrefixForParsing))
		c[8] = raw(opt(m.NationalPrefixTransformRule))
		c[10] = raw(opt(m.LeadingDigits))
		var types []any
		for i, field := range jsTypeIndex {
			d := *field(m)
			if d.GetNationalNumberPattern() == "" {
				types = append(types, 0)
				continue
			}
			p := d.GetNationalNumberPattern()
			if i == 1 && m.GetSameMobileAndFixedLinePattern() {
				p = ""
			}
			jt := []any{p}
			if len(d.PossibleLength) > 0 {
				jt = append(jt, d.PossibleLength)
			}
			types = append(types, jt)
		}
		c[11] = raw(types)
		c[12] = raw(opt(m.PreferredInternationalPrefix))
		for i := range c {
			if c[i] == nil {
				c[i] = json.RawMessage("0")
			}
		}
		if m.GetId() == "001" {
			js.NonGeographic[strconv.Itoa(int(m.GetCountryCode()))] = c
		} else {
			js.Countries[m.GetId()] = c
		}
	}
	return js
}

// TestCoreChanges: the regions the committed plan's metadata changed
// from phonenumbers' are those libphonenumber changed after it.
func TestCoreChanges(t *testing.T) {
	t.Parallel()
	_, release, changes, err := coreMetadata(os.DirFS(filepath.Join("..", "sources")))
	if err != nil {
		t.Fatal(err)
	}
	if release != "v"+jsMetadataRelease {
		t.Errorf("release %s", release)
	}
	var regions []string
	for _, l := range strings.Split(strings.TrimSpace(string(changes)), "\n") {
		regions = append(regions, strings.Split(l, "\t")[0])
	}
	slices.Sort(regions)
	// libphonenumber's release notes (as libphonenumber-js's CHANGELOG
	// quotes them) name these regions' phone metadata as updated in
	// 9.0.39, 9.0.40, 9.0.41 and 9.0.43; the others changed in a release
	// whose notes libphonenumber-js does not quote (it has no entry for
	// 9.0.42).
	noted := strings.Fields("BD HK IN PA PT TR CA CD EE IL LI SB SR UG VN ZW CN IR NG US BJ DE EC ET GE LA RO")
	unquoted := strings.Fields("AU AX BW CC CO CR CV CX DK ES FI GH GY KE KW PG PY RU SH")
	want := append(slices.Clone(noted), unquoted...)
	slices.Sort(want)
	if !slices.Equal(regions, want) {
		t.Errorf("regions changed: %v\nwant %v", regions, want)
	}
	t.Logf("%d regions changed: %s", len(regions), strings.Join(regions, " "))
}
