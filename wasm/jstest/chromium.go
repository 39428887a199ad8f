// Headless Chromium and Node.js.

package jstest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// MaxBrowserLife bounds the life of a browser that [Chromium] starts: a
// test that hangs in the browser fails after it rather than at go test's
// -timeout.
const MaxBrowserLife = 5 * time.Minute

// ChromiumPath returns the path of Chromium (Debian's chromium), or an
// error that says how to install it.
func ChromiumPath() (string, error) {
	path, err := exec.LookPath("chromium")
	if err != nil {
		return "", fmt.Errorf("jstest: Chromium is needed: run .ci/deps, which installs Debian's chromium (%w)", err)
	}
	return path, nil
}

// options are the flags every browser starts with, before the caller's.
func options(path, profile string, extra []chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.NoSandbox, // root in CI containers; the pages are our own, from loopback
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
	)
	return append(opts, extra...)
}

// Start starts headless Chromium with a fresh profile, with the options
// extra (a window size, more flags) after the defaults, and returns the
// context of its first tab. stop closes the browser, waits for it to exit
// and removes the profile; cancelling ctx closes the browser too. Start
// returns once the browser runs, and fails when it cannot start it.
//
// Start is for a browser shared beyond one test, such as the one a
// benchmark package starts once; a test uses [Chromium].
func Start(ctx context.Context, extra ...chromedp.ExecAllocatorOption) (tab context.Context, stop func(), err error) {
	path, err := ChromiumPath()
	if err != nil {
		return nil, nil, err
	}
	profile, err := os.MkdirTemp("", "numen-chromium-")
	if err != nil {
		return nil, nil, err
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, options(path, profile, extra)...)
	tab, cancelTab := chromedp.NewContext(actx)
	stop = func() {
		cancelTab()
		cancelAlloc() // waits for the browser to exit
		os.RemoveAll(profile)
	}
	if err := chromedp.Do(tab); err != nil { // no actions: starts the browser and opens the tab
		stop()
		return nil, nil, fmt.Errorf("jstest: starting Chromium: %w", err)
	}
	return tab, stop, nil
}

// Chromium starts headless Chromium with a fresh profile for the test, as
// [Start] does, and returns the context of its first tab. The browser
// closes when the test ends, or after [MaxBrowserLife]. Chromium fails the
// test when the browser is missing or does not start.
func Chromium(tb testing.TB, extra ...chromedp.ExecAllocatorOption) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), MaxBrowserLife)
	tab, stop, err := Start(ctx, extra...)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stop()
		cancel()
	})
	return tab
}

// Node returns the path of Node.js, and fails the test when it is
// missing.
func Node(tb testing.TB) string {
	tb.Helper()
	path, err := exec.LookPath("node")
	if err != nil {
		tb.Fatalf("jstest: Node.js is needed: run .ci/deps, which installs Debian's nodejs (%v)", err)
	}
	return path
}
