package httpapi

import (
	"cmp"
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
)

// The report page's charts: inline SVG drawn on the server, with no
// script and no library (a page that works without JavaScript, and
// nothing to bundle or to keep up to date). Each is a figure with a
// title, and text a screen reader reads (role="img" and <title>); each
// bar of a value links to the report filtered by it.

// barItem is one bar of a bar chart.
type barItem struct {
	label string // what the bar is (shown)
	title string // its tooltip
	value float64
	shown string // the value as shown
	href  string // where a click goes ("" for none)
}

const (
	chartWidth   = 380
	barRow       = 22
	barLabelW    = 150
	barValueW    = 70
	maxChartBars = 8
)

// barChart draws horizontal bars, the largest first as given.
func barChart(title string, items []barItem) string {
	var b strings.Builder
	h := len(items)*barRow + 4
	peak := 0.0
	for _, it := range items {
		peak = max(peak, it.value)
	}
	fmt.Fprintf(&b, `<figure class="chart"><figcaption>%s</figcaption>`, html.EscapeString(title))
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="%d" height="%d" viewBox="0 0 %d %d"><title>%s</title>`,
		chartWidth, h, chartWidth, h, html.EscapeString(title))
	span := float64(chartWidth - barLabelW - barValueW)
	for i, it := range items {
		y := i*barRow + 2
		w := 0.0
		if peak > 0 {
			w = max(1, span*it.value/peak)
		}
		if it.href != "" {
			fmt.Fprintf(&b, `<a href="%s">`, html.EscapeString(it.href))
		}
		fmt.Fprintf(&b, `<g><title>%s</title><text x="%d" y="%d" text-anchor="end" class="l">%s</text>`,
			html.EscapeString(it.title), barLabelW-6, y+15, html.EscapeString(shorten(it.label, 22)))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%d" rx="2" class="c%d"/>`, barLabelW, y+3, w, barRow-6, i%6)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="v">%s</text></g>`, float64(barLabelW)+w+5, y+15, html.EscapeString(it.shown))
		if it.href != "" {
			b.WriteString(`</a>`)
		}
	}
	b.WriteString(`</svg></figure>`)
	return b.String() // every text above is escaped
}

// dayChart draws the cost of each day as columns, with the total of the
// highest day on the axis and the first and last day under it.
func dayChart(title string, days []store.Tally) string {
	const w, h, left, bottom, top = chartWidth, 180, 58, 22, 10
	var b strings.Builder
	fmt.Fprintf(&b, `<figure class="chart wide"><figcaption>%s</figcaption>`, html.EscapeString(title))
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="%d" height="%d" viewBox="0 0 %d %d"><title>%s</title>`,
		w, h, w, h, html.EscapeString(title))
	var peak engine.Money
	for _, d := range days {
		peak = max(peak, d.Cost)
	}
	plotH := float64(h - bottom - top)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" class="axis"/>`, left, h-bottom, w-4, h-bottom)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" class="v">%s</text>`, left-4, top+8, html.EscapeString(peak.String()))
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" class="v">0</text>`, left-4, h-bottom)
	if n := len(days); n > 0 {
		slot := float64(w-4-left) / float64(n)
		for i, d := range days {
			bh := 0.0
			if peak > 0 {
				bh = max(1, plotH*float64(d.Cost)/float64(peak))
			}
			x := float64(left) + float64(i)*slot
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="c0"><title>%s: %s EUR, %d lookups</title></rect>`,
				x+slot*0.1, float64(h-bottom)-bh, max(1, slot*0.8), bh, html.EscapeString(d.Value), html.EscapeString(d.Cost.String()), d.Count)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="v">%s</text>`, left, h-6, html.EscapeString(days[0].Value))
		if n > 1 {
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" class="v">%s</text>`, w-4, h-6, html.EscapeString(days[n-1].Value))
		}
	}
	b.WriteString(`</svg></figure>`)
	return b.String() // every text above is escaped
}

// shorten cuts s to n runes, with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// valueItems turns a field's tallies (most frequent first) into bars:
// the first maxChartBars-1 and the rest as "others" when there are more.
// link returns the page filtered by a value.
// costItems are the bars of the cost of each value, the costliest first,
// as valueItems draws the counts (labels of the values, and links).
func costItems(ts []store.Tally, empty string, link func(value string) string) []barItem {
	ts = slices.Clone(ts)
	slices.SortStableFunc(ts, func(a, b store.Tally) int { return cmp.Compare(b.Cost, a.Cost) })
	var items []barItem
	var others engine.Money
	var rest int64
	for i, t := range ts {
		if i >= maxChartBars-1 && len(ts) > maxChartBars {
			others += t.Cost
			rest += t.Count
			continue
		}
		label := cmp.Or(t.Value, empty)
		items = append(items, barItem{label: label, title: fmt.Sprintf("%s: %s EUR, %d lookups", label, t.Cost, t.Count),
			value: float64(t.Cost), shown: t.Cost.String(), href: link(t.Value)})
	}
	if rest > 0 {
		items = append(items, barItem{label: fmt.Sprintf("%d others", len(ts)-maxChartBars+1),
			title: fmt.Sprintf("other values: %s EUR, %d lookups", others, rest), value: float64(others), shown: others.String()})
	}
	return items
}

func valueItems(ts []store.Tally, empty string, link func(value string) string) []barItem {
	var items []barItem
	var others int64
	for i, t := range ts {
		if i >= maxChartBars-1 && len(ts) > maxChartBars {
			others += t.Count
			continue
		}
		label := t.Value
		if label == "" {
			label = empty
		}
		title := label
		if t.Label != "" {
			label = t.Label + " (" + t.Value + ")"
			title = label
		}
		items = append(items, barItem{label: label, title: fmt.Sprintf("%s: %d lookups, %s EUR", title, t.Count, t.Cost),
			value: float64(t.Count), shown: fmt.Sprint(t.Count), href: link(t.Value)})
	}
	if others > 0 {
		items = append(items, barItem{label: fmt.Sprintf("%d others", len(ts)-maxChartBars+1),
			title: fmt.Sprintf("other values: %d lookups", others), value: float64(others), shown: fmt.Sprint(others)})
	}
	return items
}
