package httpapi

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/numenhq/numen/wasm/jstest"
	"github.com/stretchr/testify/require"
)

// reportNumbers are numbers of several countries and kinds, for a report
// worth looking at.
var reportNumbers = []string{
	"+4915123456789", "+4917212345678", "+491601234567", "+447911123456", "+447400123456", "+33612345678",
	"+34612345678", "+393123456789", "+31612345678", "+48512345678", "+12015550123", "+2348031234567",
	"+27821234567", "+966501234567", "+79161234567", "+4930123456", "+442079460000", "+4915",
}

// TestReportsInChromium signs in, opens a report, filters and sorts it,
// downloads the filtered view as CSV and checks its rows, and signs out,
// in headless Chromium; it saves screenshots of the list and of a report
// with its charts (reports-list.png, report.png, report-filtered.png,
// report-invalid-by-route.png) in the test's artifact folder (go test
// -artifacts).
func TestReportsInChromium(t *testing.T) {
	t.Parallel() // its own store, server and browser
	s := storedServer(t, nil)
	// 150 more lookups over six days.
	for i := range 150 {
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
	const report = "SYNC-API-NT-2026-11"
	ctx := jstest.Chromium(t, chromedp.WindowSize(1280, 1000))
	at, eval, shot := tabHelpers(t, ctx)
	// column returns the cells of the results table's column.
	column := func(name string) []string {
		t.Helper()
		var cells []string
		eval(`(() => { const hs = [...document.querySelectorAll("#results thead th")].map((th) => th.textContent.replace(/[▲▼]/g, "").trim());
			const i = hs.indexOf(`+quote(name)+`); if (i < 0) return null;
			return [...document.querySelectorAll("#results tbody tr")].map((tr) => tr.children[i].textContent); })()`, &cells)
		return cells
	}

	// Sign in: the list sends the browser to the sign-in page.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(s.URL+"/reports")))
	at(`location.pathname === "/reports/signin" && document.querySelector("#secret") !== null`)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("key"), key),
		chromedp.SendKeys(chromedp.ID("secret"), secret),
		chromedp.Submit(chromedp.ID("secret")),
	))
	at(`location.pathname === "/reports" && document.querySelector("#reports") !== null`)
	var names []string
	eval(`[...document.querySelectorAll("#reports tbody td:first-child a")].map((a) => a.textContent)`, &names)
	require.Equal(t, []string{report}, names)
	shot("reports-list.png")

	// The report: charts, a table with one column per attribute.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#reports tbody a`))))
	at(`location.pathname === "/reports/` + report + `" && document.querySelector("#results") !== null`)
	var charts []string
	eval(`[...document.querySelectorAll("figure.chart figcaption")].map((f) => f.textContent)`, &charts)
	require.Equal(t, []string{"Number types", "Processing status", "Countries", "Networks (MCCMNC)", "Cost per route (EUR)", "Cost per day (EUR, UTC)"}, charts)
	var bars int
	eval(`document.querySelectorAll("figure.chart svg rect").length`, &bars)
	require.Greater(t, bars, 15)
	require.Len(t, column("time (UTC)"), pageSize)
	shot("report.png")

	// Filter by country.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`select[name="country"]`), "DE"),
		chromedp.Click(chromedp.CSS(`#filters button[type="submit"]`)),
	))
	at(`location.search.includes("country=DE") && document.querySelector("#results") !== null`)
	countries := column("original_country_code")
	require.NotEmpty(t, countries)
	for _, c := range countries {
		require.Equal(t, "DE", c)
	}
	var matching string
	eval(`document.querySelector(".downloads .muted").textContent`, &matching)
	var de, all int
	_, err := fmt.Sscanf(matching, "%d of %d results", &de, &all)
	require.NoError(t, err, matching)
	require.Equal(t, 157, all)

	timesOnPage := column("time (UTC)")
	idsOnPage := column("id")
	shot("report-filtered.png")

	// Download the filtered view as CSV, and check its rows.
	dir := t.TempDir()
	progress := chromedp.BrowserEvents(ctx, browser.DownloadProgress)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			yes := true
			_, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
				Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &yes,
			})
			return err
		}),
		chromedp.Click(chromedp.ID("download-csv")),
	))
	var file string
	for ev, err := range progress {
		require.NoError(t, err)
		if ev.State == browser.DownloadProgressStateCompleted {
			file = filepath.Join(dir, ev.GUID)
			break
		}
		require.NotEqual(t, browser.DownloadProgressStateCanceled, ev.State)
	}
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, de+1, "a header and the %d results the page counts", de)
	idx := map[string]int{}
	for i, h := range rows[0] {
		idx[h] = i
	}
	var ids []string
	for _, r := range rows[1:] {
		require.Equal(t, "DE", r[idx["original_country_code"]])
		require.True(t, strings.HasPrefix(r[idx["number"]], "'+49"), "neutralised: %s", r[idx["number"]])
		ids = append(ids, r[idx["id"]])
	}
	require.Equal(t, idsOnPage, ids[:len(idsOnPage)], "in the view's order (newest first)")
	require.NotEmpty(t, timesOnPage)

	// Search by number, then sort by number (the column's header):
	// ascending.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`select[name="country"]`), ""),
		chromedp.SendKeys(chromedp.CSS(`input[name="number"]`), "+49151"),
		chromedp.Click(chromedp.CSS(`#filters button[type="submit"]`)),
	))
	at(`location.search.includes("number=%2B49151") && !location.search.includes("country") && document.querySelector("#results") !== null`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#results thead th a[href*="sort=number"]`))))
	at(`location.search.includes("sort=number") && location.search.includes("number=%2B49151")`)
	numbers := column("number")
	require.NotEmpty(t, numbers)
	require.IsNonDecreasing(t, numbers)
	for _, n := range numbers {
		require.True(t, strings.HasPrefix(n, "+49151"), n)
	}

	// The cost per route: a bar filters by its route; then the results
	// that are not valid, by the validity filter, with their reasons.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(s.URL+"/reports/"+report)))
	at(`[...document.querySelectorAll("figure.chart figcaption")].some((f) => f.textContent === "Cost per route (EUR)")`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`figure.chart a[href*="route="]`))))
	at(`location.search.includes("route=") && document.querySelector("#results") !== null`)
	routes := column("route")
	require.NotEmpty(t, routes)
	for _, r := range routes {
		require.Equal(t, routes[0], r)
	}
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`select[name="valid"]`), "false"),
		chromedp.Click(chromedp.CSS(`#filters button[type="submit"]`)),
	))
	at(`location.search.includes("valid=false") && document.querySelector("#results") !== null`)
	valid := column("is_valid")
	require.NotEmpty(t, valid)
	for _, v := range valid {
		require.Equal(t, "false", v)
	}
	for _, r := range column("invalid_reason") {
		require.NotEmpty(t, r)
	}
	shot("report-invalid-by-route.png")

	// Sign out: back to the sign-in page, and the reports are closed.
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`header form button`))))
	at(`location.pathname === "/reports/signin" && document.body.textContent.includes("Signed out.")`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(s.URL+"/reports/"+report)))
	at(`location.pathname === "/reports/signin" && document.querySelector("#secret") !== null`)
}

// quote makes s a JavaScript string literal.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
