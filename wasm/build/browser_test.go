package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/wasm/jstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromium starts headless Chromium for the test, in a window the
// screenshots are sized for, and returns a tab's context.
func chromium(t *testing.T) context.Context {
	t.Helper()
	return jstest.Chromium(t, chromedp.WindowSize(1000, 1100))
}

// pageErrors collects the page's uncaught exceptions and console errors.
type pageErrors struct {
	mu   sync.Mutex
	list []string
}

func watch(t *testing.T, ctx context.Context) *pageErrors {
	t.Helper()
	pe := &pageErrors{}
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				msg += " " + ev.ExceptionDetails.Exception.Description
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type != runtime.ConsoleAPICalledTypeError {
				return
			}
			msg = "console.error:"
			for _, a := range ev.Args {
				msg += " " + string(a.Value) + a.Description
			}
		default:
			return
		}
		pe.mu.Lock()
		pe.list = append(pe.list, msg)
		pe.mu.Unlock()
	}))
	return pe
}

func (pe *pageErrors) check(t *testing.T) {
	t.Helper()
	pe.mu.Lock()
	defer pe.mu.Unlock()
	assert.Empty(t, pe.list, "the page reported errors")
}

func text(t *testing.T, ctx context.Context, id string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.ID(id)))
	require.NoError(t, err, "#%s", id)
	return s
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	require.NoError(t, err, "%.200s", js)
	return v
}

// shown is what the demo page shows for a value: "—" for nothing.
func shown(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// TestBrowser drives the demo page in headless Chromium: numbers typed key
// by key, packs loaded by their checkboxes, the whole benchmark corpus
// classified in the page and compared field by field with package
// numbering, numbers routed with a pasted map. It leaves a screenshot,
// demo.png, in the test's artifact folder (go test -artifacts).
func TestBrowser(t *testing.T) {
	t.Parallel()
	ctx := chromium(t)
	errs := watch(t, ctx)
	url := serve(t, dist) + "/wasm/"
	e := newExpect(t, dist)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
	))
	assert.Equal(t, "numen test, "+data.Version(), text(t, ctx, "version"))
	assert.Equal(t, "none loaded", text(t, ctx, "packs"))

	// Numbers typed into the demo's field as international input (key
	// by key, and what the page shows at each key: demo_test.go).
	typed := func(number string) {
		t.Helper()
		f := field{t, ctx}
		f.country("")
		for i := range len(number) {
			if c := number[i]; c == '+' || c >= '0' && c <= '9' {
				f.keys(number[i : i+1])
			}
		}
	}
	// The number's fields, shown once it is valid (the status line says
	// what it is before: demo_test.go).
	fields := func(p *numbering.Plan, number string) {
		t.Helper()
		r := p.ClassifyString(number)
		if !r.Valid {
			for _, id := range []string{"e164", "type", "country-name", "network", "mccmnc", "regions", "timezones"} {
				assert.Equal(t, "—", text(t, ctx, id), "%s of %s", id, number)
			}
			return
		}
		assert.Equal(t, r.Number.String(), text(t, ctx, "e164"), number)
		assert.Equal(t, r.Type.String(), text(t, ctx, "type"), number)
		code := r.CountryCode
		if code == "" {
			code = "global"
		}
		if r.CountryName != "" {
			assert.Equal(t, r.CountryName+" ("+code+", "+r.CountryPrefix+")", text(t, ctx, "country-name"), number)
		}
		assert.Equal(t, shown(r.Network), text(t, ctx, "network"), number)
		assert.Equal(t, shown(r.MCCMNC), text(t, ctx, "mccmnc"), number)
		assert.Equal(t, shown(strings.Join(r.Timezones, ", ")), text(t, ctx, "timezones"), number)
	}
	for _, number := range []string{"+44 20 7946 0000", "+1 650-253-0000", "+999 12", "+33 6 12 34 56 78", "+49 151 23456789"} {
		typed(number)
		fields(e.core, number)
	}
	assert.Equal(t, "—", text(t, ctx, "network"), "no network without its pack")

	// Packs, by their checkboxes: the fields they bring appear.
	for i, pack := range []string{"networks", "regions", "timezones"} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.pack[value="`+pack+`"]`))))
		loaded := `loaded: ` + strings.Join([]string{"networks", "regions", "timezones"}[:i+1], ", ")
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`document.getElementById("packs").textContent === `+quote(loaded), chromedp.WithPollingTimeout(30*time.Second)))
		require.NoError(t, err, "waiting for %q", loaded)
	}
	fields(e.full, "+49 151 23456789")
	assert.Equal(t, "T-Mobile", text(t, ctx, "network"))

	// Routing with a pasted map, and a map with problems.
	route := func(mapJSON, number string) (string, string) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SetValue(chromedp.ID("map"), mapJSON),
			chromedp.SetValue(chromedp.ID("route-number"), number),
			chromedp.Click(chromedp.ID("route-button")),
		))
		return text(t, ctx, "route-result"), text(t, ctx, "route-error")
	}
	numbers := corpus()
	for _, m := range routingMaps {
		for _, number := range append([]string{"+49 172 3456789", "+44 7911 123456"}, numbers[:20]...) {
			result, routeErr := route(m, number)
			require.Empty(t, routeErr, "%s with %s", number, m)
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(result), &got))
			assert.Equal(t, e.route(t, m, number), got, "%s with %s", number, m)
		}
	}
	_, routeErr := route(badMap, "+49 172 3456789")
	assert.Contains(t, routeErr, "XX9")
	assert.Contains(t, routeErr, "NOPE")

	// Screenshot, with a number typed and packs loaded.
	route(routingMaps[1], "+49 172 3456789")
	typed("+49 151 23456789")
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: PNG
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), "demo.png"), shot, 0o644))

	// The whole corpus, classified in the page, against package numbering.
	const chunk = 2000
	var got []map[string]any
	for i := 0; i < len(numbers); i += chunk {
		batch := numbers[i:min(i+chunk, len(numbers))]
		in, err := json.Marshal(batch)
		require.NoError(t, err)
		got = append(got, eval[[]map[string]any](t, ctx, `JSON.parse(`+quote(string(in))+`).map((n) => globalThis.numen.classify(n))`)...)
	}
	require.GreaterOrEqual(t, len(got), 5000)
	diff(t, "classify in Chromium", numbers, got, func(s string) map[string]any { return classify(e.full, s) })
	checks := prefixes(numbers[:300])
	in, err := json.Marshal(checks)
	require.NoError(t, err)
	gotChecks := eval[[]map[string]any](t, ctx, `JSON.parse(`+quote(string(in))+`).map((n) => globalThis.numen.check(n))`)
	diff(t, "check in Chromium", checks, gotChecks, func(s string) map[string]any { return check(e.full, s) })

	// National input with a country, and format, in the page.
	national := nationalInputs(e.full, numbers, 600)
	in, err = json.Marshal(national)
	require.NoError(t, err)
	type countryAnswers struct {
		Classify []map[string]any `json:"classify"`
		Check    []map[string]any `json:"check"`
		Formats  [][]string       `json:"formats"`
	}
	gotNational := eval[countryAnswers](t, ctx, `(() => { const rs = JSON.parse(`+quote(string(in))+`); return {
		classify: rs.map(({s, country}) => globalThis.numen.classify(s, {country})),
		check: rs.map(({s, country}) => globalThis.numen.check(s.slice(0, 6), {country})),
		formats: rs.map(({s, country}) => [globalThis.numen.format(s, {country}), globalThis.numen.format(s, {country, style: "national"}),
			globalThis.numen.format(s, {country, style: "rfc3966"}), globalThis.numen.format(s, {country, from: "US"})]),
	}; })()`)
	texts := make([]string, len(national))
	for i, r := range national {
		texts[i] = r.S + "\x00" + r.Country
	}
	diff(t, "classify with a country in Chromium", texts, gotNational.Classify, func(s string) map[string]any {
		text, country, _ := strings.Cut(s, "\x00")
		return classifyIn(e.full, text, country)
	})
	diff(t, "check with a country in Chromium", texts, gotNational.Check, func(s string) map[string]any {
		text, country, _ := strings.Cut(s, "\x00")
		return checkIn(e.full, text[:min(6, len(text))], country)
	})
	require.Len(t, gotNational.Formats, len(national))
	for i, r := range national {
		var want []string
		for _, c := range []formatCase{{S: r.S, Country: r.Country}, {S: r.S, Country: r.Country, Style: "national"},
			{S: r.S, Country: r.Country, Style: "rfc3966"}, {S: r.S, Country: r.Country, From: "US"}} {
			a := formatIn(e.full, c)
			require.Nil(t, a.Error, "%+v", c)
			want = append(want, *a.OK)
		}
		require.Equal(t, want, gotNational.Formats[i], "%+v", r)
	}
	errs.check(t)
}

// quote makes s a JavaScript string literal.
func quote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
