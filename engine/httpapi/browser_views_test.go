package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/wasm/jstest"
)

// browse opens Chromium for t and returns helpers over its tab (tabHelpers)
// and do, which runs actions on it.
func browse(t *testing.T, width, height int64) (at func(js string), eval func(js string, v any), shot func(name string), do func(actions ...chromedp.Action[chromedp.Void])) {
	ctx := jstest.Chromium(t, chromedp.WindowSize(int(width), int(height)))
	do = func(actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, actions...))
	}
	at, eval, shot = tabHelpers(t, ctx)
	return at, eval, shot, do
}

// tabHelpers are the helpers of the browser tests over a Chromium tab
// (jstest.Chromium): at waits until js holds on the page, asking the page
// itself on each animation frame (chromedp.Poll) rather than asking it
// again and again from here; a navigation ends a poll, as the page's
// JavaScript goes with it, so at then polls the next page, for at most 20
// pages and 20 s. eval reads a value of the page; shot saves a full-page
// screenshot in the test's artifact folder (go test -artifacts).
func tabHelpers(t *testing.T, ctx context.Context) (at func(js string), eval func(js string, v any), shot func(name string)) {
	at = func(js string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		var err error
		for range 20 {
			left := time.Until(deadline)
			if left <= 0 {
				break
			}
			_, err = chromedp.Run(ctx, chromedp.Poll[bool]("(() => { try { return Boolean("+js+"); } catch (e) { return false; } })()", chromedp.WithPollingTimeout(left)))
			if err == nil || errors.Is(err, chromedp.ErrPollingTimeout) || ctx.Err() != nil {
				break
			}
		}
		require.NoError(t, err, "the page did not get there: %s", js)
	}
	eval = func(js string, v any) {
		t.Helper()
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage]("JSON.stringify("+js+")"))
		require.NoError(t, err, js)
		var str string
		require.NoError(t, json.Unmarshal(raw, &str))
		require.NoError(t, json.Unmarshal([]byte(str), v), js)
	}
	shot = func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), name), png, 0o644))
	}
	return at, eval, shot
}

// TestReportViewsInChromium reads a report through its views in headless
// Chromium: a date range with the view's count, cost and cost per day,
// number searches as people type them ("+49 15", "0151"), a wrong date
// that keeps the page, the network filter's names, the table's collapsed
// long cells, page numbers, the page at a phone's 390 px and a row's own
// page. Screenshots in the test's
// artifact folder (go test -artifacts): report-range.png,
// report-number-search.png, report-national-search.png,
// report-problem.png, report-table.png, report-page-3.png, report-390.png,
// report-390-filtered.png and report-row-390.png.
func TestReportViewsInChromium(t *testing.T) {
	t.Parallel() // its own store, server and browser
	s := storedServer(t, nil)
	for i := range 150 { // over six days
		n := reportNumbers[i%len(reportNumbers)]
		if len(n) > 8 && i%5 != 0 {
			n = n[:len(n)-1] + fmt.Sprint(i%10)
		}
		body, _ := json.Marshal(map[string]string{"number": n})
		status, _, b := s.do(t, "POST", "/api/v2/nt-lookup", string(body), digest(secret, 0))
		require.Equal(t, 200, status, "%s", b)
		if i%25 == 24 {
			s.now.Add(int64((23 * time.Hour).Seconds()))
		}
	}
	const name = "SYNC-API-NT-2026-11"
	sum, err := s.h.cfg.Store.Summary(t.Context(), key, name)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(sum.Days), 5)

	at, eval, shot, do := browse(t, 1280, 1000)
	do(chromedp.Navigate(s.URL + "/reports/" + name))
	at(`location.pathname === "/reports/signin" && document.querySelector("#secret") !== null`)
	do(chromedp.SendKeys(chromedp.ID("key"), key), chromedp.SendKeys(chromedp.ID("secret"), secret), chromedp.Submit(chromedp.ID("secret")))
	at(`location.pathname === "/reports/` + name + `" && document.querySelector("#results") !== null`)
	var matching string
	eval(`document.querySelector(".downloads .muted").textContent`, &matching)
	require.Equal(t, fmt.Sprintf("%d results, %s EUR · Download the report:", sum.Count, sum.Cost), matching)

	// A date range of two days: the view's count and cost, its rows, and
	// its cost per day.
	from, to := sum.Days[1], sum.Days[2]
	do(chromedp.SetValue(chromedp.CSS(`input[name="from"]`), from.Value), chromedp.SetValue(chromedp.CSS(`input[name="to"]`), to.Value),
		chromedp.Click(chromedp.CSS(`#filters button[type="submit"]`)))
	at(`location.search.includes("from=` + from.Value + `") && document.querySelector("#results") !== null`)
	eval(`document.querySelector(".downloads .muted").textContent`, &matching)
	require.Equal(t, fmt.Sprintf("%d of %d results, %s EUR · Download this view:", from.Count+to.Count, sum.Count, from.Cost+to.Cost), matching)
	var times []string
	eval(`[...document.querySelectorAll("#results tbody tr td:first-child")].map((td) => td.textContent)`, &times)
	require.NotEmpty(t, times)
	for _, tm := range times {
		require.True(t, strings.HasPrefix(tm, from.Value) || strings.HasPrefix(tm, to.Value), tm)
	}
	var charts []string
	eval(`[...document.querySelectorAll("figure.chart figcaption")].map((f) => f.textContent)`, &charts)
	require.Contains(t, charts, "Cost per day of this view (EUR, UTC)")
	var dayBars int
	eval(`[...document.querySelectorAll("figure.chart")].find((f) => f.textContent.includes("of this view")).querySelectorAll("rect").length`, &dayBars)
	require.Equal(t, 2, dayBars)
	shot("report-range.png")

	// "+49 15" as typed, with its space: the German numbers from 15.
	do(chromedp.Navigate(s.URL + "/reports/" + name))
	at(`!location.search && document.querySelector("#results") !== null`)
	do(chromedp.SendKeys(chromedp.CSS(`input[name="number"]`), "+49 15"), chromedp.Click(chromedp.CSS(`#filters button[type="submit"]`)))
	at(`location.search.includes("number=") && document.querySelector("#results") !== null`)
	numbers := resultColumn(t, eval, "number")
	require.NotEmpty(t, numbers)
	for _, n := range numbers {
		require.True(t, strings.HasPrefix(n, "+4915"), n)
	}
	var typed string
	eval(`document.querySelector('input[name="number"]').value`, &typed)
	require.Equal(t, "+49 15", typed, "the field keeps what was typed")
	shot("report-number-search.png")

	// "0151", national, read with the country filter's Germany.
	do(chromedp.SetValue(chromedp.CSS(`input[name="number"]`), "0151"), chromedp.SetValue(chromedp.CSS(`select[name="country"]`), "DE"),
		chromedp.Click(chromedp.CSS(`#filters button[type="submit"]`)))
	at(`location.search.includes("number=0151") && document.querySelector("#results") !== null`)
	national := resultColumn(t, eval, "number")
	require.NotEmpty(t, national)
	for _, n := range national {
		require.True(t, strings.HasPrefix(n, "+49151"), n)
	}
	shot("report-national-search.png")

	// A date that does not exist: the page says so and stays usable.
	do(chromedp.Navigate(s.URL + "/reports/" + name + "?from=2026-11-31&number=%2B49"))
	at(`document.querySelector("#problem") !== null`)
	var problem string
	eval(`document.querySelector("#problem").textContent`, &problem)
	require.Contains(t, problem, `from: "2026-11-31" is not a date`)
	var forms int
	eval(`document.querySelectorAll("#filters, #results").length`, &forms)
	require.Equal(t, 2, forms, "the form and the table, not a dead end")
	shot("report-problem.png")

	// The network filter names each code's own network, as the plan does.
	var options []string
	eval(`[...document.querySelectorAll('select[name="network"] option')].map((o) => o.textContent)`, &options)
	named := regexp.MustCompile(`^(.+) \((\d{5,6})\): \d+$`)
	checked := 0
	for _, o := range options {
		m := named.FindStringSubmatch(o)
		if m == nil {
			continue
		}
		n, ok := s.h.cfg.Engine.Plan().Network(m[2])
		require.True(t, ok, o)
		require.Contains(t, []string{n.Brand, n.Operator}, m[1], o)
		checked++
	}
	require.Positive(t, checked, "%v", options)

	// The table fits: long lists (time zones, regions) collapsed, opened
	// by a click.
	do(chromedp.Navigate(s.URL + "/reports/" + name))
	at(`!location.search && document.querySelector("#results") !== null`)
	var width, long int
	eval(`document.querySelector("#results").scrollWidth`, &width)
	eval(`document.querySelectorAll("#results td.long details").length`, &long)
	require.Positive(t, long)
	require.Less(t, width, 5000, "the table's width in px (9,471 with the time zones in full)")
	do(chromedp.Click(chromedp.CSS(`#results td.long summary`)))
	at(`document.querySelector("#results td.long details").open`)
	shot("report-table.png")

	// Page numbers: 157 results in pages of 50 are four pages; page 3,
	// then the one before it.
	var pages []string
	eval(`[...document.querySelectorAll("nav.pager a, nav.pager b")].map((e) => e.textContent)`, &pages)
	require.Equal(t, []string{"1", "2", "3", "4", "next ›"}, pages)
	do(chromedp.Click(chromedp.CSS(`nav.pager a[href$="page=3"]`)))
	at(`location.search.includes("page=3") && document.querySelector("nav.pager b") !== null`)
	eval(`[...document.querySelectorAll("nav.pager a, nav.pager b")].map((e) => e.textContent)`, &pages)
	require.Equal(t, []string{"‹ previous", "1", "2", "3", "4", "next ›"}, pages)
	var current string
	eval(`document.querySelector('nav.pager b[aria-current="page"]').textContent`, &current)
	require.Equal(t, "3", current)
	third, err := s.h.cfg.Store.Query(t.Context(), key, name, &store.Query{Desc: true}, store.PageCursor(3), pageSize)
	require.NoError(t, err)
	var wantIDs []string
	for _, r := range third.Rows {
		wantIDs = append(wantIDs, r.ID)
	}
	require.Equal(t, wantIDs, resultColumn(t, eval, "id"))
	shot("report-page-3.png")
	do(chromedp.Click(chromedp.ID("prev")))
	at(`location.search.includes("page=2") && document.querySelector('nav.pager b[aria-current="page"]').textContent === "2"`)

	// A phone, 390 px wide: nothing wider than the screen but the table,
	// which scrolls in its own box; the charts scaled, not cut.
	do(chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(1), chromedp.EmulateMobile))
	do(chromedp.Navigate(s.URL + "/reports/" + name))
	at(`!location.search && document.querySelector("#results") !== null && window.innerWidth === 390`)
	var pageWidth int
	eval(`document.documentElement.scrollWidth`, &pageWidth)
	require.LessOrEqual(t, pageWidth, 390, "the page's width on a phone")
	var cut []string
	eval(`[...document.querySelectorAll("figure.chart svg, figure.chart, form.filters, .facts")].filter((e) => e.getBoundingClientRect().right > 390.5).map((e) => e.outerHTML.slice(0, 60))`, &cut)
	require.Empty(t, cut, "cut at 390 px")
	// The filters stack in columns: the fields of each row grow to fill
	// it, not the narrow fields of a wide screen, ragged across the phone.
	var ragged []string
	eval(`(() => {
		const form = document.querySelector("form.filters"), st = getComputedStyle(form);
		const right = form.getBoundingClientRect().right - parseFloat(st.paddingRight) - parseFloat(st.borderRightWidth);
		const rows = {};
		for (const l of form.children) {
			const r = l.getBoundingClientRect(), bottom = Math.round(r.bottom); // a row's fields align at the bottom
			if (r.width === 0) continue;
			rows[bottom] = Math.max(rows[bottom] || 0, r.right);
		}
		return Object.entries(rows).filter(([, end]) => end < right - 2).map(([bottom, end]) => "row at " + bottom + ": ends at " + Math.round(end) + " of " + Math.round(right));
	})()`, &ragged)
	require.Empty(t, ragged, "rows of filters that do not fill the form at 390 px")
	shot("report-390.png")
	do(chromedp.SetValue(chromedp.CSS(`input[name="from"]`), from.Value), chromedp.SendKeys(chromedp.CSS(`input[name="number"]`), "+49 15"),
		chromedp.Click(chromedp.CSS(`#filters button[type="submit"]`)))
	at(`location.search.includes("from=") && document.querySelector(".downloads") !== null`)
	eval(`document.documentElement.scrollWidth`, &pageWidth)
	require.LessOrEqual(t, pageWidth, 390, "the filtered page's width on a phone")
	shot("report-390-filtered.png")

	// A row's own page, from its time: every attribute in full, and it
	// fits the phone too.
	do(chromedp.Click(chromedp.CSS(`#results tbody tr:first-child td:first-child a`)))
	at(`location.search.includes("id=") && document.querySelector("#result") !== null`)
	var attrs map[string]string
	eval(`Object.fromEntries([...document.querySelectorAll("#result tr")].map((tr) => [tr.children[0].textContent, tr.children[1].textContent]))`, &attrs)
	require.True(t, strings.HasPrefix(attrs["number"], "+4915"), "%v", attrs)
	require.Contains(t, attrs, "timezones")
	eval(`document.documentElement.scrollWidth`, &pageWidth)
	require.LessOrEqual(t, pageWidth, 390, "a row's page on a phone")
	shot("report-row-390.png")
}

// resultColumn returns the cells of the results table's column name.
func resultColumn(t *testing.T, eval func(js string, v any), name string) []string {
	t.Helper()
	var cells []string
	eval(`(() => { const hs = [...document.querySelectorAll("#results thead th")].map((th) => th.textContent.replace(/[▲▼]/g, "").trim());
		const i = hs.indexOf(`+quote(name)+`); if (i < 0) return [];
		return [...document.querySelectorAll("#results tbody tr")].map((tr) => tr.children[i].textContent); })()`, &cells)
	return cells
}
