package main

// The demo page's phone field, find box, load error and snippet, driven in
// headless Chromium and compared with package numbering's as-you-type
// formatter and Find.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/wasm/webpkg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// typings are the numbers the field tests type, key by key, in a country
// ("" for international input only): national and "+" input in ten
// countries.
var typings = []struct{ country, typed string }{
	{"DE", "015123456789"}, {"DE", "+4915123456789"}, {"DE", "03012345678"},
	{"US", "2015550123"}, {"US", "+12015550123"}, {"US", "16502530000"},
	{"GB", "02079460000"}, {"GB", "+447911123456"},
	{"FR", "0612345678"}, {"FR", "+33612345678"},
	{"JP", "0312345678"}, {"JP", "+819012345678"},
	{"BR", "11961234567"}, {"BR", "+5511961234567"},
	{"IN", "09876543210"}, {"IN", "+919876543210"},
	{"AU", "0412345678"}, {"AU", "+61412345678"},
	{"AR", "01123456789"}, {"AR", "+5491123456789"},
	{"CN", "13812345678"},
	{"", "+4915123456789"}, {"", "+8613812345678"}, {"", "+12015550123"},
}

// field is the demo page's phone field.
type field struct {
	t   *testing.T
	ctx context.Context
}

type fieldState struct {
	Value string `json:"value"`
	Caret int    `json:"caret"`
	State string `json:"state"`
	Line  string `json:"line"`
	E164  string `json:"e164"`
}

func (f field) state() fieldState {
	f.t.Helper()
	return eval[fieldState](f.t, f.ctx, `(() => { const n = document.getElementById("number"); return {value: n.value, caret: n.selectionStart,
		state: document.getElementById("state").dataset.state, line: document.getElementById("state").textContent,
		e164: document.getElementById("e164").textContent}; })()`)
}

// country chooses a country, empties the field and focuses it.
func (f field) country(cc string) {
	f.t.Helper()
	eval[chromedp.Void](f.t, f.ctx, `(() => { const c = document.getElementById("country"); c.value = `+quote(cc)+`;
		c.dispatchEvent(new Event("change")); const n = document.getElementById("number"); n.focus();
		n.value = ""; n.dispatchEvent(new InputEvent("input", {inputType: "deleteContentBackward"})); })()`)
	require.Equal(f.t, cc, eval[string](f.t, f.ctx, `document.getElementById("country").value`))
}

// caret puts the caret at index i of the field.
func (f field) caret(i int) {
	f.t.Helper()
	eval[chromedp.Void](f.t, f.ctx, fmt.Sprintf(`(() => { const n = document.getElementById("number"); n.focus(); n.setSelectionRange(%d, %d); })()`, i, i))
}

func (f field) keys(k string) {
	f.t.Helper()
	require.NoError(f.t, chromedp.Do(f.ctx, chromedp.KeyEvent(k)))
}

// paste inserts text at the caret as a paste does (one input event).
func (f field) paste(text string) {
	f.t.Helper()
	require.NoError(f.t, chromedp.Do(f.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: text})
		return err
	})))
}

// formatted is what Go's formatter shows for typed, in country, and where
// its caret goes after the first before characters (in UTF-16 code units,
// as the page counts).
func formatted(t *testing.T, p *numbering.Plan, country, typed string, before int) (string, int) {
	t.Helper()
	f, err := p.NewAsYouType(country)
	require.NoError(t, err)
	var text []byte
	for _, c := range typed {
		text, _ = f.Input(c)
	}
	s := string(text)
	return s, utf16Len(firstRunes(s, f.FormattedPos(before)))
}

func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

// TestDemoField types numbers key by key into the demo's field in ten
// countries and checks the field's text and caret after every key against
// package numbering's formatter, and the status line against its check;
// then deletes and pastes in the middle of each number. It leaves
// screenshots of the demo at 1280x800 and 390x844 in the test's artifact
// folder.
func TestDemoField(t *testing.T) {
	t.Parallel()
	ctx := chromium(t)
	errs := watch(t, ctx)
	e := newExpect(t, dist)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(serve(t, dist)+"/wasm/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
	))
	// Headless Chromium's language is en-US: the country is the US.
	assert.Equal(t, "US", eval[string](t, ctx, `document.getElementById("country").value`))
	f := field{t, ctx}

	expectAt := func(country, typed string, before int, what string) {
		t.Helper()
		text, caret := formatted(t, e.core, country, typed, before)
		got := f.state()
		require.Equal(t, text, got.Value, "%s: the field, %q typed in %q", what, typed, country)
		require.Equal(t, caret, got.Caret, "%s: the caret in %q, %q typed in %q, %d before it", what, got.Value, typed, country, before)
		fm, err := e.core.NewAsYouType(country)
		require.NoError(t, err)
		for _, c := range typed {
			fm.Input(c)
		}
		pr := fm.Progress()
		if typed == "" {
			assert.Equal(t, "", got.State, what)
			return
		}
		require.Equal(t, pr.State.String(), got.State, "%s: the status of %q in %q: %s", what, typed, country, got.Line)
		switch pr.State {
		case numbering.Valid:
			num, ok := fm.Number()
			require.True(t, ok)
			assert.Equal(t, num.String(), got.E164, what)
			assert.Contains(t, got.Line, "Valid "+pr.Types.Types()[0].String(), what)
		case numbering.Impossible:
			assert.Equal(t, "Not a valid number: "+pr.Reason.String(), got.Line, what)
			assert.Equal(t, "—", got.E164, "%s: no E.164 while %q is not valid", what, typed)
		default:
			assert.True(t, strings.HasPrefix(got.Line, "Incomplete"), "%s: %q", what, got.Line)
			assert.Equal(t, "—", got.E164, "%s: no E.164 while %q is not valid", what, typed)
		}
	}

	keys := 0
	for _, c := range typings {
		f.country(c.country)
		expectAt(c.country, "", 0, "empty")
		// Typing at the end, key by key.
		for i := range len(c.typed) {
			f.keys(c.typed[i : i+1])
			keys++
			expectAt(c.country, c.typed[:i+1], i+1, "typing")
		}
		// Backspace after the k-th typed character, in the middle.
		text, _ := formatted(t, e.core, c.country, c.typed, 0)
		k := len(c.typed) / 2
		_, at := formatted(t, e.core, c.country, c.typed, k)
		f.caret(at)
		f.keys(kb.Backspace)
		typed := c.typed[:k-1] + c.typed[k:]
		expectAt(c.country, typed, k-1, "backspace in the middle")
		// Delete (forward) of the character after the caret.
		f.keys(kb.Delete)
		typed = typed[:k-1] + typed[k:]
		expectAt(c.country, typed, k-1, "delete in the middle")
		// Paste two digits where they were.
		f.paste(c.typed[k-1 : k+1])
		expectAt(c.country, c.typed, k+1, "paste in the middle")
		// Backspace just after a character the formatter put in: the
		// typed character before it goes.
		if i := strings.IndexAny(text[1:], " -()"); i >= 0 && utf8.RuneCountInString(text) == len(text) {
			at := i + 2 // after the separator
			fm, err := e.core.NewAsYouType(c.country)
			require.NoError(t, err)
			for _, ch := range c.typed {
				fm.Input(ch)
			}
			if before := fm.RawPos(at); before > 0 && fm.FormattedPos(before) != at {
				f.caret(at)
				f.keys(kb.Backspace)
				expectAt(c.country, c.typed[:before-1]+c.typed[before:], before-1, "backspace after a separator")
			}
		}
		// A formatted number pasted whole into the empty field.
		f.country(c.country)
		f.paste(text)
		expectAt(c.country, c.typed, len(c.typed), "pasting "+text)
	}
	t.Logf("%d numbers typed in %d keys", len(typings), keys)

	// Screenshots: a number typed, the matches of the find box listed.
	f.country("DE")
	for _, ch := range "015123456789" {
		f.keys(string(ch))
	}
	for _, size := range []struct{ w, h int64 }{{1280, 800}, {390, 844}} {
		opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
		if size.w < 500 {
			opts = append(opts, chromedp.EmulateMobile)
		}
		require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(size.w, size.h, opts...)))
		// The page fits the width: nothing scrolls sideways.
		width := eval[int](t, ctx, `document.documentElement.scrollWidth`)
		assert.LessOrEqual(t, width, int(size.w), "the page's width at %dx%d", size.w, size.h)
		shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), fmt.Sprintf("demo-%dx%d.png", size.w, size.h)), shot, 0o644))
	}
	errs.check(t)
}

// findPage is a page of text with numbers in it: the corpus' numbers as
// written in their countries and in international format, in prose, in a
// table, beside dates, times, prices, order numbers and characters outside
// ASCII (whose UTF-16 length differs from their UTF-8 length).
func findPage(p *numbering.Plan, numbers []string) string {
	var b strings.Builder
	fillers := []string{"Ruf an: ", "Preis 129,99 € am 17.05.2024 um 14:30 — ", "Order #4711 ☎ ", "Tél. : ", "| ", "😀 call ", "电话 ", "Bestellnr. 2024-0517-88, "}
	for i, s := range numbers {
		r := p.ClassifyString(s)
		b.WriteString(fillers[i%len(fillers)])
		if r.Valid && i%2 == 0 && r.CountryCode != "" {
			if n, err := p.Format(r.Number, numbering.National); err == nil {
				s = n
			}
		}
		b.WriteString(s)
		if i%5 == 4 {
			b.WriteString(".\n")
		} else {
			b.WriteString(" ")
		}
	}
	return b.String()
}

type foundMatch struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Raw   string `json:"raw"`
}

// TestDemoFind runs numen.find over a page of text in Chromium, in several
// countries and at every leniency, and compares every match with package
// numbering's Find: offsets (in UTF-16 code units), raw text and every
// field of the classification; then the demo's find box.
func TestDemoFind(t *testing.T) {
	t.Parallel()
	ctx := chromium(t)
	errs := watch(t, ctx)
	e := newExpect(t, dist)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(serve(t, dist)+"/wasm/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
	))
	numbers := corpus()
	page := findPage(e.core, numbers[:1500])
	total := 0
	for _, country := range []string{"", "DE", "US", "GB", "FR", "IN"} {
		for _, leniency := range []string{"possible", "valid", "strict_grouping", "EXACT_GROUPING"} {
			got := eval[[]map[string]any](t, ctx, `globalThis.numen.find(`+quote(page)+`, {country: `+quote(country)+` || null, leniency: `+quote(leniency)+`})`)
			l, err := numbering.ParseLeniency(leniency)
			require.NoError(t, err)
			seq, err := e.core.Find(page, country, l)
			require.NoError(t, err)
			var want []map[string]any
			for m := range seq {
				var fields map[string]any
				require.NoError(t, json.Unmarshal(m.Result.AppendJSON(nil), &fields))
				fields["start"] = float64(utf16Len(page[:m.Start]))
				fields["end"] = float64(utf16Len(page[:m.End]))
				fields["raw"] = m.Raw
				want = append(want, fields)
			}
			require.Len(t, got, len(want), "matches in %q at %s", country, leniency)
			for i := range want {
				delete(got[i], "packs")
				require.Equal(t, want[i], got[i], "match %d in %q at %s", i, country, leniency)
				require.Equal(t, want[i]["raw"], sliceUTF16(page, int(want[i]["start"].(float64)), int(want[i]["end"].(float64))))
			}
			total += len(want)
		}
	}
	require.Greater(t, total, 1000)
	t.Logf("%d matches in a page of %d bytes", total, len(page))

	// Errors name what was wrong.
	for js, want := range map[string]string{
		`numen.find("x", {country: "XX"})`:              `unknown region "XX"`,
		`numen.find("x", {leniency: "sloppy"})`:         "sloppy",
		`numen.find("1".repeat(600000))`:                "the limit is 524288 bytes",
		`numen.find(5)`:                                 "want a string",
		`numen.find("x", {leniency: 3})`:                "for leniency",
		`numen.asYouType("XX")`:                         `unknown region "XX"`,
		`numen.getCountryCallingCode("XX")`:             `unknown country "XX"`,
		`numen.asYouType("DE").input(null)`:             "want a string",
		`numen.asYouType(49)`:                           "for country",
		`numen.asYouType("DE").input("1".repeat(5000))`: "takes at most 4096 characters a call, not 5000",
	} {
		msg := eval[string](t, ctx, `(() => { try { `+js+`; return "no error"; } catch (err) { return err.message; } })()`)
		assert.Contains(t, msg, want, js)
	}
	assert.True(t, eval[bool](t, ctx, `numen.getCountries().length > 200 && numen.getCountries().includes("DE") && numen.getCountryCallingCode("de") === "49"`))

	// The demo's find box, with the country chosen above it.
	eval[chromedp.Void](t, ctx, `(() => { const c = document.getElementById("country"); c.value = "DE"; c.dispatchEvent(new Event("change")); })()`)
	box := eval[string](t, ctx, `document.getElementById("find-text").value`)
	seq, err := e.core.Find(box, "DE", must(numbering.ParseLeniency("valid")))
	require.NoError(t, err)
	var want []foundMatch
	for m := range seq {
		want = append(want, foundMatch{utf16Len(box[:m.Start]), utf16Len(box[:m.End]), m.Raw})
	}
	require.NotEmpty(t, want)
	got := eval[[]foundMatch](t, ctx, `[...document.querySelectorAll("#find-results li")].map((li) => ({start: +li.dataset.start, end: +li.dataset.end, raw: li.querySelector("code").textContent}))`)
	assert.Equal(t, want, got)
	assert.Equal(t, fmt.Sprintf("%d numbers", len(want)), text(t, ctx, "find-count"))
	errs.check(t)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func sliceUTF16(s string, start, end int) string {
	u := utf16.Encode([]rune(s))
	return string(utf16.Decode(u[start:end]))
}

// TestDemoCountry: the demo's country is the region of the browser's
// language ("de-DE": Germany), with the names in that language.
func TestDemoCountry(t *testing.T) {
	t.Parallel()
	ctx := chromium(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("about:blank")))
	ua := eval[string](t, ctx, `navigator.userAgent`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		// The browser's language, as a German user's browser sends it.
		_, err := chromedp.Call(ctx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua, AcceptLanguage: "de-DE,de"})
		if err == nil {
			_, err = chromedp.Call(ctx, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: "de-DE"})
		}
		return err
	})))
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(serve(t, dist)+"/wasm/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
	))
	assert.Equal(t, "de-DE", eval[string](t, ctx, `navigator.language`))
	assert.Equal(t, "DE", eval[string](t, ctx, `document.getElementById("country").value`))
	assert.Equal(t, "Deutschland (+49)", eval[string](t, ctx, `document.getElementById("country").selectedOptions[0].text`))
}

// TestDemoLoadError: when the module or the plan cannot be fetched, the
// demo says so, naming the file, instead of "loading…" forever.
func TestDemoLoadError(t *testing.T) {
	t.Parallel()
	p, err := webpkg.Open(dist)
	require.NoError(t, err)
	for _, missing := range []string{"numen.wasm", "numen-core.bin"} {
		t.Run(missing, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.Handle("/wasm/", http.StripPrefix("/wasm", p))
			mux.Handle("/wasm/"+missing, http.NotFoundHandler())
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			ctx := chromium(t)
			require.NoError(t, chromedp.Do(ctx,
				chromedp.Navigate(srv.URL+"/wasm/"),
				chromedp.WaitVisible(chromedp.CSS(`body[data-ready="error"]`)),
				chromedp.WaitVisible(chromedp.ID("load-error")),
			))
			msg := text(t, ctx, "load-error")
			assert.Contains(t, msg, "Numen could not be loaded")
			assert.Contains(t, msg, missing)
			assert.Contains(t, msg, "404")
			assert.Equal(t, "not loaded", text(t, ctx, "version"))
		})
	}
}

// TestSnippet: the snippet the demo shows, wasm/README.md and the README's
// browser section give works as pasted: a page made of it formats what is
// typed into its field, as package numbering does.
func TestSnippet(t *testing.T) {
	t.Parallel()
	snippet, err := os.ReadFile(filepath.Join("..", "web", "snippet.html"))
	require.NoError(t, err)
	for _, doc := range []string{filepath.Join("..", "README.md"), filepath.Join("..", "..", "README.md")} {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		assert.Contains(t, string(b), "```html\n"+string(snippet)+"```\n", "%s shows the snippet of wasm/web/snippet.html", doc)
	}
	ctx := chromium(t)
	errs := watch(t, ctx)
	e := newExpect(t, dist)
	// A page of the developer's own, served beside the package, made of
	// the snippet.
	p, err := webpkg.Open(dist)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/wasm/", http.StripPrefix("/wasm", p))
	mux.HandleFunc("/signup.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(snippet)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/signup.html"),
		chromedp.WaitReady(chromedp.ID("phone")),
	))
	// Ready when its listener formats: "+" is then "Incomplete".
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const f = document.getElementById("phone"); f.value = "+";
		f.dispatchEvent(new Event("input")); return document.getElementById("phone-status").textContent === "Incomplete"; })()`,
		chromedp.WithPollingTimeout(30*time.Second)))
	require.NoError(t, err)
	eval[chromedp.Void](t, ctx, `(() => { const f = document.getElementById("phone"); f.value = ""; f.focus(); f.dispatchEvent(new Event("input")); })()`)
	typed := "015123456789"
	for i := range len(typed) {
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent(typed[i:i+1])))
		want, caret := formatted(t, e.core, "DE", typed[:i+1], i+1)
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("phone").value === `+quote(want), chromedp.WithPollingTimeout(10*time.Second)))
		require.NoError(t, err, "after %q the field shows %q", typed[:i+1], want)
		assert.Equal(t, caret, eval[int](t, ctx, `document.getElementById("phone").selectionStart`))
	}
	assert.Equal(t, "MOBILE number: +4915123456789", text(t, ctx, "phone-status"))
	// The demo page shows the same snippet.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/wasm/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="true"]`)),
	))
	assert.Equal(t, string(snippet), text(t, ctx, "snippet"))
	errs.check(t)
}
