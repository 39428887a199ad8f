package browser

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// slowLink is the emulated link of BenchmarkReadySlowLink: 1.6 Mbit/s
// down, 750 kbit/s up, 150 ms of latency (Lighthouse's mobile throttling,
// a slow 4G or a good 3G connection).
var slowLink = network.Conditions{Latency: 150, DownloadThroughput: 1_600_000 / 8, UploadThroughput: 750_000 / 8}

// throttle turns the emulated slow link on or off for every request of
// the tab (Network.emulateNetworkConditionsByRule with a rule for all
// URLs, the successor of Network.emulateNetworkConditions).
func (e *env) throttle(on bool) error {
	return chromedp.Do(e.ctx, func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		rules := []*network.Conditions{}
		if on {
			c := slowLink
			rules = append(rules, &c)
		}
		_, err := cdp.Call(ctx, t, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{MatchedNetworkConditions: rules})
		return chromedp.Void{}, err
	})
}

// BenchmarkReadySlowLink is BenchmarkReady's first visit (cache off) over
// the emulated slow link: the time from starting to load a library to its
// first answer, most of it the transfer of its files (Brotli-compressed
// for both libraries: Chromium asks loopback for br).
func BenchmarkReadySlowLink(b *testing.B) {
	e := setup(b)
	for _, lib := range libs {
		b.Run("lib="+lib, func(b *testing.B) {
			if err := e.cache(false); err != nil {
				b.Fatal(err)
			}
			defer e.cache(true)
			var total float64
			for range b.N {
				e.open(b) // the page itself unthrottled: only the library's load is timed
				if err := e.throttle(true); err != nil {
					b.Fatal(err)
				}
				r := call[readyResult](b, e, "ready", lib)
				if err := e.throttle(false); err != nil {
					b.Fatal(err)
				}
				total += r.MS
			}
			b.ReportMetric(total*1e6/float64(b.N), "ns/op")
		})
	}
}
