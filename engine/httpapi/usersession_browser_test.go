package httpapi

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/wasm/jstest"
)

// TestReportUsersInChromium signs in as report users in headless
// Chromium: a viewer of two accounts picks the other in the header; a
// viewer of one sees only its reports, and another account's report is
// "not found". Screenshots (signin-user.png, user-accounts.png,
// viewer-not-found.png) go to the test's artifact folder (go test
// -artifacts).
func TestReportUsersInChromium(t *testing.T) {
	t.Parallel() // its own store, server and browser
	s := usersServer(t, nil)
	ctx := jstest.Chromium(t, chromedp.WindowSize(1280, 900))
	at, eval, shot := tabHelpers(t, ctx)
	reports := func() []string {
		t.Helper()
		var names []string
		eval(`[...document.querySelectorAll("#reports tbody td:first-child a")].map((a) => a.textContent)`, &names)
		return names
	}
	signIn := func(name string) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(s.URL+"/reports")))
		at(`location.pathname === "/reports/signin" && document.querySelector("#password") !== null`)
		require.NoError(t, chromedp.Do(ctx,
			chromedp.SendKeys(chromedp.ID("user"), name),
			chromedp.SendKeys(chromedp.ID("password"), name+"-pw"),
		))
		if name == "multi" {
			shot("signin-user.png")
		}
		require.NoError(t, chromedp.Do(ctx, chromedp.Submit(chromedp.ID("password"))))
		at(`location.pathname === "/reports" && document.querySelector("#reports") !== null`)
	}

	// The sign-in page asks for a user, not an API key.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(s.URL+"/reports/signin")))
	at(`document.querySelector("#user") !== null`)
	var hasSecret bool
	eval(`document.querySelector("#secret") !== null`, &hasSecret)
	require.False(t, hasSecret)

	// A viewer of two accounts sees the first, and picks the other.
	signIn("multi")
	require.Equal(t, []string{"OTHER-2026-11"}, reports())
	var options []string
	eval(`[...document.querySelectorAll("header select[name=account] option")].map((o) => o.textContent)`, &options)
	require.Equal(t, []string{otherKey, key}, options)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`header select[name=account]`), key),
		chromedp.Click(chromedp.CSS(`header form[action="/reports/account"] button`)),
	))
	at(`[...document.querySelectorAll("#reports tbody td:first-child a")].some((a) => a.textContent === "SYNC-API-NT-2026-11")`)
	var shown string
	eval(`document.querySelector("header select[name=account]").value`, &shown)
	require.Equal(t, key, shown)
	require.Equal(t, []string{"SYNC-API-NT-2026-11"}, reports())
	shot("user-accounts.png")
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`header form[action="/reports/signout"] button`))))
	at(`location.pathname === "/reports/signin"`)

	// A viewer of one account: its reports only; another's is not found.
	signIn("ana")
	require.Equal(t, []string{"OTHER-2026-11"}, reports())
	var who string
	eval(`document.querySelector("header .who").textContent`, &who)
	require.Equal(t, "ana · API key "+otherKey, who)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(s.URL+"/reports/SYNC-API-NT-2026-11")))
	at(`document.querySelector("h1") !== null && document.querySelector("h1").textContent === "Not Found"`)
	shot("viewer-not-found.png")
}
