package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
	"github.com/numenhq/numen/wasm/jstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oddInputs are inputs no phone number looks like, which the module must
// answer as package numbering does.
var oddInputs = []string{
	"", " ", "+", "++49", "\x00", "+49\x00151 23456789", "\u202e+4915123456789",
	"\u0664\u0669\u0661\u0665\u0661", "+\uff14\uff19\uff11\uff15\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19",
	"+49 151 2345 6789 ext. 12", "tel:+4915123456789", "+49 (0)151 23456789", "+1-800-FLOWERS",
	strings.Repeat("9", 300), "+" + strings.Repeat("1", 251), "00", "0049 151 23456789", "(030) 1234567",
}

// nodeResult is what testdata/api.mjs writes.
type nodeResult struct {
	LoadErrors       map[string]*jsError `json:"loadErrors"`
	Version          version             `json:"version"`
	Core             []map[string]any    `json:"core"`
	Checks           []map[string]any    `json:"checks"`
	TypeErrors       map[string]*jsError `json:"typeErrors"`
	Odd              []map[string]any    `json:"odd"`
	OddChecks        []map[string]any    `json:"oddChecks"`
	Huge             map[string]any      `json:"huge"`
	Surrogates       []map[string]any    `json:"surrogates"`
	PackErrors       map[string]*jsError `json:"packErrors"`
	PacksAfterErrors []string            `json:"packsAfterErrors"`
	AfterErrors      map[string]any      `json:"afterErrors"`
	LoadedNetworks   []string            `json:"loadedNetworks"`
	LoadedRegions    []string            `json:"loadedRegions"`
	LoadedTimezones  []string            `json:"loadedTimezones"`
	VersionFull      version             `json:"versionFull"`
	Full             []map[string]any    `json:"full"`
	Routes           [][]map[string]any  `json:"routes"`
	BadMap           *jsError            `json:"badMap"`
	BadMapJSON       *jsError            `json:"badMapJSON"`
	FirstMapAgain    map[string]any      `json:"firstMapAgain"`
	ManyMaps         []map[string]any    `json:"manyMaps"`
	ObjectMaps       struct {
		NoMap                           []map[string]any
		Routed                          []string
		BeforeChange, AfterChange, Copy string
	} `json:"objectMaps"`
	MapLimits struct {
		Huge, HugeText *jsError
		JustUnder      string
	} `json:"mapLimits"`
	RouteTiming struct {
		ObjectUs, StringUs, FreshJSONUs float64
		Same                            bool
	} `json:"routeTiming"`
	LoadWithPacks    []map[string]any    `json:"loadWithPacks"`
	NationalClassify []map[string]any    `json:"nationalClassify"`
	NationalChecks   []map[string]any    `json:"nationalChecks"`
	Formats          []formatAnswer      `json:"formats"`
	FormatDefault    []string            `json:"formatDefault"`
	NoCountry        [][]map[string]any  `json:"noCountry"`
	CountryErrors    map[string]*jsError `json:"countryErrors"`
}

// regional is an input and the country numen.mjs reads it in; formatCase
// adds format's options (omitted when empty: undefined in JavaScript).
type regional struct {
	S       string `json:"s"`
	Country string `json:"country"`
}

type formatCase struct {
	S       string `json:"s"`
	Country string `json:"country,omitempty"`
	Style   string `json:"style,omitempty"`
	From    string `json:"from,omitempty"`
}

// formatAnswer is numen.format's string, or what it threw.
type formatAnswer struct {
	OK    *string  `json:"ok"`
	Error *jsError `json:"error"`
}

// nationalInputs writes the valid numbers among numbers as people write
// them in their country and as dialled from FR and US, each to be read in
// the country it is written for, and every fifth national one in US too
// (a wrong country): inputs across every country of the corpus.
func nationalInputs(p *numbering.Plan, numbers []string, limit int) []regional {
	var out []regional
	for i, s := range numbers {
		res := p.ClassifyString(s)
		if !res.Valid || res.CountryCode == "" {
			continue
		}
		national, err := p.Format(res.Number, numbering.National)
		if err != nil {
			panic(err)
		}
		out = append(out, regional{national, res.CountryCode})
		for _, from := range []string{"FR", "US"} {
			dialled, err := p.FormatFrom(res.Number, from)
			if err != nil {
				panic(err)
			}
			out = append(out, regional{dialled, from})
		}
		if i%5 == 0 {
			out = append(out, regional{national, "US"})
		}
		if len(out) >= limit {
			break
		}
	}
	return out
}

// formatIn is numen.format's answer for package numbering's ParseIn (or
// Parse, without a country), Format and FormatFrom.
func formatIn(p *numbering.Plan, c formatCase) formatAnswer {
	fail := func(err error) formatAnswer {
		return formatAnswer{Error: &jsError{Name: "Error", Message: err.Error()}}
	}
	if c.From != "" {
		if _, err := p.FormatFrom(numbering.Number{}, c.From); err != nil {
			return fail(err)
		}
	}
	var n numbering.Number
	var err error
	if c.Country != "" {
		n, err = p.ParseIn(c.S, c.Country)
	} else {
		n, err = p.Parse(c.S)
	}
	if err != nil {
		return fail(err)
	}
	var out string
	if c.From != "" {
		out, err = p.FormatFrom(n, c.From)
	} else {
		style := map[string]numbering.Style{"": numbering.International, "e164": numbering.E164, "international": numbering.International,
			"national": numbering.National, "rfc3966": numbering.RFC3966}[c.Style]
		out, err = p.Format(n, style)
	}
	if err != nil {
		return fail(err)
	}
	return formatAnswer{OK: &out}
}

type jsError struct {
	Name, Message string
	Cause         string `json:",omitempty"`
}

type version struct {
	Program, Data string
	Packs         []string
}

// badMap has two problems; the module must name both, as Go does.
const badMap = `{"defaultRoute": "XX9", "countries": [{"countrycode": "ZZ", "route": "GT1"}, {"countrycode": "DE", "route": "NOPE"}]}`

// TestJavaScriptAPI runs every function of numen.mjs in Node against the
// package served from a loopback server, and compares the answers with
// package numbering's and routing's: the whole benchmark corpus classified
// with the core plan and with every pack, every beginning of 800 numbers
// checked, 400 numbers routed with four maps, and bad input of every kind.
func TestJavaScriptAPI(t *testing.T) {
	t.Parallel()
	testJavaScriptAPI(t, dist)
}

// TestWasmOpt builds the package with wasm-opt -O1, as go run ./wasm/build
// does when Debian's binaryen is installed (.ci/deps installs it), and
// runs the JavaScript API's test on it: the optimizer must not change an
// answer.
func TestWasmOpt(t *testing.T) {
	t.Parallel()
	_, err := exec.LookPath("wasm-opt")
	require.NoError(t, err, "wasm-opt is needed to test the optimized build: run .ci/deps, which installs Debian's binaryen")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	out := t.TempDir()
	files, err := Build(Options{Root: root, Out: out, Version: "test", WasmOpt: true})
	require.NoError(t, err)
	wasm := files[0]
	require.Equal(t, "numen.wasm", wasm.Name)
	assert.Positive(t, wasm.Unoptimized)
	assert.Less(t, wasm.GZip, wasm.UnoptimizedGZip, "wasm-opt makes the module smaller with gzip")
	assert.Less(t, wasm.Brotli, wasm.UnoptimizedBrotli, "wasm-opt makes the module smaller with Brotli")
	assert.LessOrEqual(t, wasm.GZip, sizeBudget)
	testJavaScriptAPI(t, out)
}

func testJavaScriptAPI(t *testing.T, dist string) {
	node := jstest.Node(t)
	base := serve(t, dist) + "/wasm/"
	e := newExpect(t, dist)
	numbers := corpus()
	require.Greater(t, len(numbers), 10000)
	checks := prefixes(numbers[:800])
	routeNumbers := numbers[:400]
	national := nationalInputs(e.core, numbers, 1500)
	require.GreaterOrEqual(t, len(national), 1500)
	var nationalChecks []regional
	for _, in := range national[:150] {
		for i := range in.S {
			nationalChecks = append(nationalChecks, regional{in.S[:i], in.Country})
		}
		nationalChecks = append(nationalChecks, in)
	}
	var formats []formatCase
	for i, in := range national[:400] {
		for _, style := range []string{"", "e164", "international", "national", "rfc3966"} {
			formats = append(formats, formatCase{S: in.S, Country: in.Country, Style: style})
		}
		formats = append(formats, formatCase{S: in.S, Country: in.Country, From: []string{"FR", "US", "DE", "JP", "BR", "AU"}[i%6], Style: "national"})
		formats = append(formats, formatCase{S: numbers[i], Style: []string{"e164", "national"}[i%2]}) // international input, no country
	}
	for _, s := range append(oddInputs, "0 1", "00", "0151 2", "hello", "011 44") {
		formats = append(formats, formatCase{S: s, Country: "DE"}, formatCase{S: s, Country: "US", Style: "national"}, formatCase{S: s})
	}
	in, err := json.Marshal(map[string]any{
		"numbers": numbers, "checks": checks, "odd": oddInputs,
		"maps": routingMaps, "routeNumbers": routeNumbers, "badMap": badMap,
		"national": national, "nationalChecks": nationalChecks, "formats": formats,
		"closed": closedURL(t),
	})
	require.NoError(t, err)
	dir := t.TempDir()
	inPath, outPath := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")
	require.NoError(t, os.WriteFile(inPath, in, 0o644))
	cmd := exec.Command(node, filepath.Join("testdata", "api.mjs"), dist, base, inPath, outPath)
	output, err := cmd.CombinedOutput()
	require.NoError(t, err, "node testdata/api.mjs:\n%s", output)
	b, err := os.ReadFile(outPath)
	require.NoError(t, err)
	var got nodeResult
	require.NoError(t, json.Unmarshal(b, &got))

	// Loading: every failure names the URL and the cause.
	assert.Equal(t, &jsError{Name: "Error", Message: "numen: fetching the module " + base + "nothing.wasm: HTTP 404 Not Found"}, got.LoadErrors["missingModule"])
	assert.Equal(t, &jsError{Name: "Error", Message: "numen: fetching the plan " + base + "nothing.bin: HTTP 404 Not Found"}, got.LoadErrors["missingPlan"])
	tz, err := os.ReadFile(filepath.Join(dist, "numen-timezones.bin"))
	require.NoError(t, err)
	_, planErr := numbering.OpenBytes(tz)
	require.Error(t, planErr)
	assert.Equal(t, &jsError{Name: "Error", Message: "numen: opening the plan " + base + "numen-timezones.bin: " + planErr.Error()}, got.LoadErrors["packAsPlan"])
	assert.Equal(t, &jsError{Name: "TypeError", Message: `numen.loadPack: unknown pack "colours": want "networks", "regions", "timezones" or a pack's URL`}, got.LoadErrors["unknownPack"])
	for name, prefix := range map[string]string{
		"network":     "numen: fetching the module http://127.0.0.1:",
		"networkPlan": "numen: fetching the plan http://127.0.0.1:",
		"badModule":   "numen: loading the module " + strings.TrimSuffix(base, "/wasm/") + "/bad/numen.wasm: WebAssembly.instantiateStreaming(): ",
		"notModule":   "numen: loading the module " + base + "numen-core.bin: WebAssembly.instantiate(): ",
	} {
		e := got.LoadErrors[name]
		if assert.NotNil(t, e, name) {
			assert.Equal(t, "Error", e.Name, name)
			assert.True(t, strings.HasPrefix(e.Message, prefix), "%s: %q, want it to start with %q", name, e.Message, prefix)
			assert.NotEmpty(t, e.Cause, "%s: the error has its cause", name)
		}
	}
	assert.Contains(t, got.LoadErrors["network"].Message, "/numen.wasm: fetch failed")
	assert.Contains(t, got.LoadErrors["networkPlan"].Message, "/numen-core.bin: fetch failed")
	assert.Equal(t, &jsError{Name: "Error", Message: "numen: the plan data:application/octet-stream, is 0 bytes: the module takes 1 byte to 67108864 bytes (64 MiB)"}, got.LoadErrors["emptyPlan"])
	assert.Equal(t, version{"test", data.Version(), []string{}}, got.Version)

	// Classification and checks, core plan.
	diff(t, "classify (core)", numbers, got.Core, func(s string) map[string]any { return classify(e.core, s) })
	diff(t, "check", checks, got.Checks, func(s string) map[string]any { return check(e.core, s) })
	for _, r := range got.Core {
		assert.Nil(t, r["mccmnc"])
		assert.Nil(t, r["timezones"])
	}

	// Bad input.
	for name, msg := range map[string]string{
		"classifyNumber": "numen.classify: want a string, have number",
		"classifyNull":   "numen.classify: want a string, have null",
		"checkUndefined": "numen.check: want a string, have undefined",
		"checkObject":    "numen.check: want a string, have object",
		"routeArray":     "numen.route: want a string, have object",
	} {
		assert.Equal(t, &jsError{Name: "TypeError", Message: msg}, got.TypeErrors[name], name)
	}
	diff(t, "classify (odd)", oddInputs, got.Odd, func(s string) map[string]any { return classify(e.core, s) })
	diff(t, "check (odd)", oddInputs, got.OddChecks, func(s string) map[string]any { return check(e.core, s) })
	huge := "+49" + strings.Repeat("1", 10_000_000)
	hugeWant := classify(e.core, huge)
	assert.Equal(t, map[string]any{"sameInput": true, "is_valid": false, "invalid_reason": hugeWant["invalid_reason"], "check": check(e.core, huge)}, got.Huge)
	diff(t, "unpaired surrogates", []string{"+49 151 \ufffd 23456789", "\ufffd"}, got.Surrogates[:2], func(s string) map[string]any { return classify(e.core, s) })
	assert.Equal(t, check(e.core, "+49\ufffd"), got.Surrogates[2])

	// Packs.
	core, err := os.ReadFile(filepath.Join(dist, "numen-core.bin"))
	require.NoError(t, err)
	_, packErr := numbering.OpenBytes(core, numbering.WithPack(core))
	require.Error(t, packErr)
	assert.Equal(t, &jsError{Name: "Error", Message: "numen: opening the pack " + base + "numen-core.bin: " + packErr.Error()}, got.PackErrors["corePlanAsPack"])
	assert.Equal(t, &jsError{Name: "Error", Message: "numen: fetching the pack " + base + "nothing.bin: HTTP 404 Not Found"}, got.PackErrors["missing"])
	assert.True(t, strings.HasPrefix(got.PackErrors["garbage"].Message, "numen: opening the pack "+base+"numen.mjs: "), got.PackErrors["garbage"].Message)
	assert.Equal(t, "Error", got.PackErrors["garbage"].Name)
	assert.Contains(t, got.PackErrors["garbage"].Message, "not a numbering plan file (pack 1)")
	assert.Empty(t, got.PacksAfterErrors)
	assert.Equal(t, true, got.AfterErrors["is_valid"])
	assert.Equal(t, []string{"networks"}, got.LoadedNetworks)
	assert.Equal(t, []string{"networks", "regions"}, got.LoadedRegions)
	assert.Equal(t, []string{"networks", "regions", "timezones"}, got.LoadedTimezones)
	assert.Equal(t, version{"test", data.Version(), []string{"networks", "regions", "timezones"}}, got.VersionFull)
	diff(t, "classify (all packs)", numbers, got.Full, func(s string) map[string]any { return classify(e.full, s) })
	diff(t, "classify (Numen.load with packs)", numbers[:500], got.LoadWithPacks, func(s string) map[string]any { return classify(e.full, s) })
	withNetwork := 0
	for _, r := range got.Full {
		if r["mccmnc"] != nil {
			withNetwork++
		}
	}
	assert.Greater(t, withNetwork, 1000, "the networks pack gives MCCMNCs")

	// Routes.
	require.Len(t, got.Routes, len(routingMaps))
	for i, m := range routingMaps {
		diff(t, "route with map "+m, routeNumbers, got.Routes[i], func(s string) map[string]any { return e.route(t, m, s) })
	}
	pm, err := routing.ParseMap([]byte(badMap))
	require.NoError(t, err)
	_, mapErr := e.platform.Resolver(pm)
	require.Error(t, mapErr)
	assert.Equal(t, &jsError{Name: "Error", Message: mapErr.Error()}, got.BadMap)
	assert.Contains(t, got.BadMap.Message, "XX9")
	assert.Contains(t, got.BadMap.Message, "ZZ")
	assert.Contains(t, got.BadMap.Message, "NOPE")
	_, jsonErr := routing.ParseMap([]byte("{"))
	require.Error(t, jsonErr)
	assert.Equal(t, &jsError{Name: "Error", Message: jsonErr.Error()}, got.BadMapJSON)
	assert.Equal(t, e.route(t, routingMaps[0], routeNumbers[0]), got.FirstMapAgain)
	assert.Equal(t, e.route(t, `{"defaultRoute": "GT1", "prefixes": [{"cns": "+4915107", "route": "GT2"}]}`, "+49 151 07123456"), got.ManyMaps[0])
	assert.Equal(t, e.route(t, `{"defaultRoute": "GT1", "prefixes": [{"cns": "+4915199", "route": "GT2"}]}`, "+49 151 99123456"), got.ManyMaps[1])
	assert.Equal(t, "GT2", got.ManyMaps[0]["route"])
	// Maps as objects, by identity: 70 (more than the module keeps), then
	// the first and the last again; one changed after its first use.
	noMap := e.route(t, `{}`, "+49 151 00123456")
	assert.Equal(t, []map[string]any{noMap, noMap}, got.ObjectMaps.NoMap, "no map: the platform's rules")
	require.Len(t, got.ObjectMaps.Routed, 72)
	for i, r := range got.ObjectMaps.Routed {
		assert.Equal(t, "GT2", r, "map object %d", i)
	}
	assert.Equal(t, "GT2", got.ObjectMaps.BeforeChange)
	assert.Equal(t, "GT2", got.ObjectMaps.AfterChange, "an object map is read at its first use")
	assert.Equal(t, "DS7", got.ObjectMaps.Copy, "a new object is read anew")
	// Limits, stated in the errors.
	assert.Equal(t, &jsError{Name: "Error", Message: "numen.route: the routing map is 1048608 bytes of JSON: the limit is 1048576 bytes (1 MiB)"}, got.MapLimits.Huge)
	assert.Equal(t, &jsError{Name: "Error", Message: "numen.route: the routing map is 1200032 bytes of JSON: the limit is 1048576 bytes (1 MiB)"}, got.MapLimits.HugeText)
	assert.Equal(t, "GT2", got.MapLimits.JustUnder, "a map of 1,000,064 bytes is under the limit")
	assert.True(t, got.RouteTiming.Same)
	t.Logf("route() with a map of 1,000 prefixes: %.2f µs per call as the same object, %.2f µs as a string, %.1f µs as JSON made anew (the cost of every call before)",
		got.RouteTiming.ObjectUs, got.RouteTiming.StringUs, got.RouteTiming.FreshJSONUs)
	// A country: national input, format.
	texts := func(in []regional) []string {
		out := make([]string, len(in))
		for i, r := range in {
			out[i] = r.S + "\x00" + r.Country
		}
		return out
	}
	diff(t, "classify with a country", texts(national), got.NationalClassify, func(s string) map[string]any {
		text, country, _ := strings.Cut(s, "\x00")
		return classifyIn(e.full, text, country) // the packs are loaded by then
	})
	diff(t, "check with a country", texts(nationalChecks), got.NationalChecks, func(s string) map[string]any {
		text, country, _ := strings.Cut(s, "\x00")
		return checkIn(e.core, text, country)
	})
	valid := 0
	for _, r := range got.NationalClassify {
		if r["is_valid"] == true {
			valid++
		}
	}
	assert.Greater(t, valid, len(national)*9/10, "national input read in its country is valid")
	require.Len(t, got.Formats, len(formats))
	bad, errs := 0, 0
	for i, c := range formats {
		want := formatIn(e.core, c)
		if want.Error != nil {
			errs++
		}
		if !assert.Equal(t, want, got.Formats[i], "format %+v", c) {
			if bad++; bad > 5 {
				break
			}
		}
	}
	assert.Greater(t, errs, 10, "input that cannot be read throws")
	t.Logf("%d national inputs classified, %d checked, %d formatted (%d errors)", len(national), len(nationalChecks), len(formats), errs)
	assert.Equal(t, []string{"+49 1512 3456789", "+49 1512 3456789", "01512 3456789"}, got.FormatDefault)
	require.Len(t, got.NoCountry, 200)
	for i, pair := range got.NoCountry {
		delete(pair[0], "packs")
		assert.Equal(t, classify(e.full, numbers[i]), pair[0], numbers[i])
		assert.Equal(t, check(e.full, numbers[i]), pair[1], numbers[i])
	}
	_, unknownXX := e.core.ClassifyIn("0151 23456789", "XX")
	_, unknownGermany := e.core.CheckIn("0151 2", "Germany")
	_, unknownEmpty := e.core.ParseIn("0151 23456789", "")
	_, unknownZZ := e.core.FormatFrom(numbering.Number{}, "ZZ")
	_, unreadable := e.core.ParseIn("0 1", "DE")
	_, noCountry := e.core.Parse("0151 23456789")
	for name, want := range map[string]*jsError{
		"classifyUnknown":       {Name: "Error", Message: unknownXX.Error()},
		"checkUnknown":          {Name: "Error", Message: unknownGermany.Error()},
		"formatUnknown":         {Name: "Error", Message: unknownEmpty.Error()},
		"formatUnknownFrom":     {Name: "Error", Message: unknownZZ.Error()},
		"formatUnreadable":      {Name: "Error", Message: unreadable.Error()},
		"formatNoCountry":       {Name: "Error", Message: noCountry.Error()},
		"formatStyle":           {Name: "TypeError", Message: `numen.format: unknown style "short": want "e164", "international", "national", "rfc3966"`},
		"classifyNumberCountry": {Name: "TypeError", Message: "numen.classify: want a string for country, have number"},
		"formatNumberFrom":      {Name: "TypeError", Message: "numen.format: want a string for from, have number"},
		"formatText":            {Name: "TypeError", Message: "numen.format: want a string, have number"},
	} {
		assert.Equal(t, want, got.CountryErrors[name], name)
	}
	assert.Contains(t, got.CountryErrors["classifyUnknown"].Message, `"XX"`)
	assert.Contains(t, got.CountryErrors["formatUnreadable"].Message, "not a number")
}
