//go:build js && wasm

package main

// These tests run under Node: GOOS=js GOARCH=wasm go test ./wasm, with the
// Go distribution's go_js_wasm_exec on PATH (.ci/test puts it there). They
// call the exported functions as numen.mjs does, and decode the records as
// it does, and compare with package numbering's answers.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/compile"
	"github.com/stretchr/testify/require"
)

var wholePlan []byte

func TestMain(m *testing.M) {
	var err error
	if wholePlan, err = os.ReadFile(filepath.Join("..", "data", "numbering", "plan.bin")); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// write copies b into a buffer of the module's, as numen.mjs does.
func write(t *testing.T, b []byte) {
	t.Helper()
	at := numenAlloc(int32(len(b)))
	require.NotZero(t, at)
	require.Equal(t, at, int32(uintptr(unsafe.Pointer(&pending[0]))), "the address is pending's")
	copy(pending, b)
}

// put writes text into the exchange buffer and returns its length.
func put(text string) int32 { return int32(copy(io[:], text)) }

// answer returns the text of a function's answer, or its error.
func answer(n int32) (string, error) {
	if n < 0 {
		return "", &moduleError{string(io[:-n])}
	}
	return string(io[:n]), nil
}

type moduleError struct{ msg string }

func (e *moduleError) Error() string { return e.msg }

// openCore opens the core plan and the given packs, as Numen.load does.
func openCore(t *testing.T, packs ...[]compile.Section) *numbering.Plan {
	t.Helper()
	core, err := compile.Strip(wholePlan, compile.Ranges, compile.Networks, compile.Geocoding, compile.Timezones, compile.ShortNumbers)
	require.NoError(t, err)
	write(t, core)
	_, err = answer(numenOpen())
	require.NoError(t, err)
	opts := []numbering.Option{}
	for _, sections := range packs {
		pack, err := compile.Pack(wholePlan, sections...)
		require.NoError(t, err)
		write(t, pack)
		_, err = answer(numenPack())
		require.NoError(t, err)
		opts = append(opts, numbering.WithPack(pack))
	}
	want, err := numbering.OpenBytes(core, opts...)
	require.NoError(t, err)
	return want
}

func str(ptr, n uint32) string {
	if n == 0 {
		return ""
	}
	// An address in the module's memory, as JavaScript reads it: the Go
	// heap does not move, and the plan keeps the string alive.
	return unsafe.String((*byte)(unsafe.Add(nil, uintptr(ptr))), int(n))
}

// decodeResult reads a classification's record back into a Result, as
// numen.mjs reads it.
func decodeResult(input string) numbering.Result {
	w := words
	r := numbering.Result{Input: input}
	r.Valid = w[0]&flagValid != 0
	r.Status = numbering.StatusOK
	if w[0]&flagFailed != 0 {
		r.Status = numbering.StatusFailed
	}
	r.PossiblyPorted = w[0]&flagPorted != 0
	r.QualifiesForHLR = w[0]&flagHLR != 0
	r.Type, r.Reason = numbering.Type(w[1]), numbering.Reason(w[2])
	r.MCCMNC, r.Network = str(w[5], w[6]), str(w[7], w[8])
	r.CountryName, r.CountryCode, r.CountryPrefix, r.Info = str(w[9], w[10]), str(w[11], w[12]), str(w[13], w[14]), str(w[15], w[16])
	at := 25
	list := func(count uint32, present bool) []string {
		if !present {
			return nil
		}
		out := make([]string, count)
		for i := range out {
			out[i] = str(w[at], w[at+1])
			at += 2
		}
		return out
	}
	r.Regions = list(w[17], w[0]&flagRegions != 0)
	r.Timezones = list(w[19], w[0]&flagZones != 0)
	return r
}

var inputs = []string{
	"+49 151 23456789", "+44 20 7946 0000", "+1 650 253 0000", "+54 9 11 2345 6789", "+800 1234 5678",
	"+44 (0)20 7946 0000", "+1-800-FLOWERS", "+33 6 12", "+999 1234", "030 1234567", "", "hello", "+49 30 ext. 5",
	"+49\u00a0151\u00a023456789", "\ufffd", strings.Repeat("9", 300), "+7 495 123 45 67", "+262 269 61 23 45",
}

func TestClassify(t *testing.T) {
	for _, packs := range [][][]compile.Section{nil, {{compile.Ranges, compile.Networks}, {compile.Geocoding}, {compile.Timezones}}} {
		want := openCore(t, packs...)
		for _, in := range inputs {
			n, err := answer(numenClassify(put(in)))
			require.NoError(t, err, in)
			require.Zero(t, len(n)%4)
			got, exp := decodeResult(in), want.ClassifyString(in)
			require.Equal(t, exp.Number.String(), str(words[3], words[4]), in)
			require.Equal(t, exp.Number.IsVanity(), words[0]&flagVanity != 0, in)
			exp.Number = numbering.Number{}
			// Exported values: a Result also keeps the plan that formats
			// it, which the browser's record does not carry.
			require.EqualExportedValues(t, exp, got, in)
		}
	}
}

func TestCheck(t *testing.T) {
	want := openCore(t)
	for _, in := range append(inputs, "+4", "+49 15", "+44 (0)2", "0", "+", "+1 0") {
		_, err := answer(numenCheck(put(in)))
		require.NoError(t, err, in)
		exp := want.Check(in)
		require.Equal(t, uint32(exp.State), words[0], in)
		require.Equal(t, uint32(exp.Reason), words[1], in)
		require.Equal(t, uint32(exp.Types), words[2], in)
		require.Equal(t, uint32(exp.CallingCode), words[4], in)
		require.Equal(t, exp.RegionSet(), words[6], in)
		var regions []string
		for i := range int(words[5]) {
			regions = append(regions, str(words[7+2*i], words[8+2*i]))
		}
		require.Equal(t, exp.Regions(), regions, in)
	}
}

func TestCheckIn(t *testing.T) {
	want := openCore(t)
	for _, region := range nationalCountries {
		for _, in := range append(nationalInputs, "0", "01", "0151 2", "(201) 5", "00 44 2", "011 4", "+4", "(") {
			n := put(in)
			_, err := answer(numenCheckIn(n, putAfter(n, region)))
			require.NoError(t, err, in)
			exp, err := want.CheckIn(in, region)
			require.NoError(t, err)
			require.Equal(t, uint32(exp.State), words[0], "%q in %s", in, region)
			require.Equal(t, uint32(exp.Reason), words[1], "%q in %s", in, region)
			require.Equal(t, uint32(exp.Types), words[2], "%q in %s", in, region)
			require.Equal(t, boolFlag(exp.Longer, 1), words[3], "%q in %s", in, region)
			require.Equal(t, uint32(exp.CallingCode), words[4], "%q in %s", in, region)
			require.Equal(t, exp.RegionSet(), words[6], "%q in %s", in, region)
			var regions []string
			for i := range int(words[5]) {
				regions = append(regions, str(words[7+2*i], words[8+2*i]))
			}
			require.Equal(t, exp.Regions(), regions, "%q in %s", in, region)
		}
	}
	n := put("0151 2")
	_, err := answer(numenCheckIn(n, putAfter(n, "XX")))
	require.ErrorContains(t, err, `unknown region "XX"`)
	_, err = answer(numenCheckIn(-1, 2))
	require.Error(t, err)
	n = put("0151 2")
	c := putAfter(n, "DE")
	require.Zero(t, testing.AllocsPerRun(100, func() {
		copy(io[:], "0151 2DE")
		numenCheckIn(n, c)
	}))
}

func TestVersionAndTables(t *testing.T) {
	want := openCore(t, []compile.Section{compile.Timezones})
	text, err := answer(numenVersion())
	require.NoError(t, err)
	var v struct {
		Program, Data string
		Packs         []string
	}
	require.NoError(t, json.Unmarshal([]byte(text), &v))
	require.Equal(t, want.Version().String(), v.Data)
	require.Equal(t, []string{"timezones"}, v.Packs)

	text, err = answer(numenTables())
	require.NoError(t, err)
	var tables struct{ Types, Reasons, States []string }
	require.NoError(t, json.Unmarshal([]byte(text), &tables))
	require.Equal(t, "MOBILE", tables.Types[numbering.Mobile])
	require.Equal(t, "too short", tables.Reasons[numbering.TooShort])
	require.Equal(t, "impossible", tables.States[numbering.Impossible])
}

func TestRoute(t *testing.T) {
	openCore(t, []compile.Section{compile.Ranges, compile.Networks})
	handle := numenRouteMap(put(`{"defaultRoute": "GT1", "mccmncs": [{"mccmnc": 26201, "route": "DS7"}], "prefixes": [{"cns": "+4917", "route": "GT2"}]}`))
	require.GreaterOrEqual(t, handle, int32(0))
	for in, want := range map[string]string{
		"+49 172 3456789":  `{"route":"GT2","confidence_level":"LOW","mccmnc":"26202","origin":"CUSTOM_USER_PREFIX"}`,
		"+49 151 23456789": `{"route":"DS7","confidence_level":"HIGH","mccmnc":"26201","origin":"CUSTOM_USER_MCCMNC"}`,
	} {
		text, err := answer(numenRoute(handle, put(in)))
		require.NoError(t, err, in)
		require.JSONEq(t, want, text, in)
	}
	// A map's problems, all of them; an unknown handle.
	_, err := answer(numenRouteMap(put(`{"defaultRoute": "XXX", "countries": [{"countrycode": "ZZ", "route": "GT1"}]}`)))
	require.ErrorContains(t, err, `defaultRoute "XXX": unknown route`)
	require.ErrorContains(t, err, `countries[0].countrycode "ZZ"`)
	_, err = answer(numenRouteMap(put(`{"colour": 1}`)))
	require.ErrorContains(t, err, `unknown field "colour"`)
	_, err = answer(numenRoute(handle+1000, put("+49 151 23456789")))
	require.ErrorContains(t, err, "is unknown")
	// The map survives a pack: it is compiled anew against the new plan.
	write(t, mustPack(t, compile.Timezones))
	_, err = answer(numenPack())
	require.NoError(t, err)
	text, err := answer(numenRoute(handle, put("+49 151 23456789")))
	require.NoError(t, err)
	require.Contains(t, text, `"DS7"`)
}

func mustPack(t *testing.T, sections ...compile.Section) []byte {
	t.Helper()
	b, err := compile.Pack(wholePlan, sections...)
	require.NoError(t, err)
	return b
}

func TestBadInput(t *testing.T) {
	openCore(t)
	for _, f := range []func() int32{
		func() int32 { return numenClassify(-1) },
		func() int32 { return numenClassify(ioSize + 1) },
		func() int32 { return numenCheck(-5) },
		func() int32 { return numenRouteMap(ioSize + 1) },
		func() int32 { return numenPack() }, // nothing written
		func() int32 { return numenOpen() }, // nothing written
	} {
		_, err := answer(f())
		require.Error(t, err)
	}
	require.Zero(t, numenAlloc(0))
	require.Zero(t, numenAlloc(-1))

	// A damaged pack, a pack of another plan, garbage as a plan: errors,
	// and the plan open before stays.
	pack := mustPack(t, compile.Timezones)
	write(t, pack[:len(pack)-8])
	_, err := answer(numenPack())
	require.ErrorContains(t, err, "truncated")
	write(t, []byte("not a plan at all, but long enough to have a header of sixty-four bytes"))
	_, err = answer(numenOpen())
	require.ErrorContains(t, err, "not a numbering plan file")
	_, err = answer(numenClassify(put("+49 151 23456789")))
	require.NoError(t, err)
	require.Equal(t, uint32(flagValid), words[0]&flagValid)
}

// putAfter writes a region code after an input of n bytes, as numen.mjs
// does, and returns its length.
func putAfter(n int32, region string) int32 { return int32(copy(io[n:], region)) }

// nationalInputs are numbers as people write them in a country, and input
// that cannot be read there, with the countries to read them in.
var nationalInputs = []string{
	"0151 23456789", "030 1234567", "(030) 1234567", "15123456789", "00 33 1 23 45 67 89", "0049 151 23456789",
	"+44 20 7946 0000", "(201) 555-0123", "011 44 20 7946 0000", "1 800 FLOWERS", "0800 123 4567", "011 15 2345-6789",
	"044 55 1234 5678", "06 12 34 56 78", "02 1234 5678", "0", "", "hello", "0151 2", "+", "00", "0151 23456789 ext. 5",
	"(0)20 7946 0000", "07911 123456", "112", "8 800 555 35 35", "0312 123 45 67", strings.Repeat("1", 300),
}

var nationalCountries = []string{"DE", "US", "GB", "FR", "AR", "MX", "IT", "BR", "RU", "TR", "JP", "AU", "IN", "CA", "de", "Us"}

func TestClassifyIn(t *testing.T) {
	want := openCore(t)
	for _, region := range nationalCountries {
		for _, in := range append(nationalInputs, inputs...) {
			n := put(in)
			_, err := answer(numenClassifyIn(n, putAfter(n, region)))
			require.NoError(t, err, in)
			exp, err := want.ClassifyIn(in, region)
			require.NoError(t, err)
			got := decodeResult(in)
			require.Equal(t, exp.Number.String(), str(words[3], words[4]), "%s in %s", in, region)
			for i, style := range []numbering.Style{numbering.International, numbering.National} {
				b, _ := exp.AppendFormat(nil, style)
				require.Equal(t, string(b), str(words[21+2*i], words[22+2*i]), "%s in %s", in, region)
			}
			exp.Number = numbering.Number{}
			require.EqualExportedValues(t, exp, got, "%s in %s", in, region)
		}
	}
	// An unknown region fails with numbering's error, which names it.
	for _, region := range []string{"XX", "", "DEU", "d"} {
		n := put("0151 23456789")
		_, err := answer(numenClassifyIn(n, putAfter(n, region)))
		_, exp := want.ClassifyIn("0151 23456789", region)
		require.Error(t, exp)
		require.EqualError(t, err, exp.Error(), region)
		require.Contains(t, err.Error(), `"`+region+`"`)
	}
	_, err := answer(numenClassifyIn(3, -1))
	require.Error(t, err)
	_, err = answer(numenClassifyIn(ioSize, 1))
	require.Error(t, err)
}

func TestFormat(t *testing.T) {
	want := openCore(t)
	styles := []numbering.Style{numbering.E164, numbering.International, numbering.National, numbering.RFC3966}
	check := func(in string, country, from string, style numbering.Style) {
		t.Helper()
		n := put(in)
		c, f := int32(-1), int32(-1)
		if country != "" {
			c = putAfter(n, country)
		}
		if from != "" {
			f = putAfter(n+max(c, 0), from)
		}
		got, err := answer(numenFormat(n, c, int32(style), f))
		// The Go library's answer, as numen format computes it.
		var num numbering.Number
		var expErr error
		if from != "" {
			_, expErr = want.AppendFormatFrom(nil, numbering.Number{}, from)
		}
		if expErr == nil {
			if country != "" {
				num, expErr = want.ParseIn(in, country)
			} else {
				num, expErr = want.Parse(in)
			}
		}
		var exp string
		if expErr == nil {
			if from != "" {
				exp, expErr = want.FormatFrom(num, from)
			} else {
				exp, expErr = want.Format(num, style)
			}
		}
		if expErr != nil {
			require.EqualError(t, err, expErr.Error(), "%q in %q from %q", in, country, from)
			return
		}
		require.NoError(t, err, "%q in %q from %q", in, country, from)
		require.Equal(t, exp, got, "%q in %q from %q %v", in, country, from, style)
	}
	formatted := 0
	for _, in := range inputs {
		for _, style := range styles {
			check(in, "", "", style)
		}
		for _, from := range nationalCountries {
			check(in, "", from, numbering.International)
		}
	}
	for _, country := range nationalCountries {
		for _, in := range append(nationalInputs, inputs...) {
			for _, style := range styles {
				check(in, country, "", style)
				formatted++
			}
			for _, from := range []string{"FR", "US", "DE", "JP", "AU", "BR"} {
				check(in, country, from, numbering.E164) // from overrides the style
				formatted++
			}
		}
	}
	require.Greater(t, formatted, 4000)

	// The reasons, as numbering words them; bad options first.
	for _, c := range []struct{ in, country, from, msg string }{
		{"0 1", "DE", "", `numbering: parsing "0 1" in DE: not a number`},
		{"00 1", "DE", "", `numbering: parsing "00 1" in DE: too short`},
		{"hello", "", "", `"hello"`},
		{"+49 151 23456789", "XX", "", `unknown region "XX"`},
		{"+49 151 23456789", "", "ZZ", `unknown region "ZZ"`},
		{"hello", "DE", "ZZ", `unknown region "ZZ"`},
	} {
		n := put(c.in)
		cl, f := int32(-1), int32(-1)
		if c.country != "" {
			cl = putAfter(n, c.country)
		}
		if c.from != "" {
			f = putAfter(n+max(cl, 0), c.from)
		}
		_, err := answer(numenFormat(n, cl, int32(numbering.International), f))
		require.ErrorContains(t, err, c.msg, "%+v", c)
	}
	_, err := answer(numenFormat(put("+4915123456789"), -1, 9, -1))
	require.ErrorContains(t, err, "unknown format style")
	_, err = answer(numenFormat(-1, -1, 0, -1))
	require.Error(t, err)
	_, err = answer(numenFormat(3, -2, 0, -1))
	require.Error(t, err)
}

// TestFormatAllocs checks that formatting allocates nothing when the input
// is read, with and without a country and a region dialled from.
func TestFormatAllocs(t *testing.T) {
	openCore(t)
	n := put("0151 23456789")
	c := putAfter(n, "DE")
	f := putAfter(n+c, "FR")
	for _, call := range []func() int32{
		func() int32 { return numenFormat(n, c, int32(numbering.National), -1) },
		func() int32 { return numenFormat(n, c, int32(numbering.International), f) },
		func() int32 { return numenClassifyIn(n, c) },
	} {
		allocs := testing.AllocsPerRun(100, func() {
			// The answer overwrites the input: write it again.
			copy(io[:], "0151 23456789DEFR")
			if call() < 0 {
				panic(string(io[:64]))
			}
		})
		require.Zero(t, allocs)
	}
}
