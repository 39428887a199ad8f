package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progressInterval is the least time between two redraws of the progress
// bar.
const progressInterval = 100 * time.Millisecond

// progress draws a one-line progress report for reading an input of known
// size: percent of bytes read, numbers classified and numbers per second.
// It redraws the line in place with "\r", at most once per
// progressInterval, and clears it when finished. A nil *progress does
// nothing, so callers need not check whether one is shown.
type progress struct {
	w     io.Writer
	total int64 // input size in bytes
	now   func() time.Time

	start, last time.Time
	width       int // length of the line on screen, to blank it out
}

func newProgress(w io.Writer, total int64, now func() time.Time) *progress {
	t := now()
	return &progress{w: w, total: total, now: now, start: t, last: t}
}

// update reports that read bytes of the input have been read and count
// numbers classified. It is cheap when it does not redraw.
func (p *progress) update(read, count int64) {
	if p == nil {
		return
	}
	t := p.now()
	if t.Sub(p.last) < progressInterval {
		return
	}
	p.last = t
	percent := 100.0
	if p.total > 0 && read < p.total {
		percent = 100 * float64(read) / float64(p.total)
	}
	line := fmt.Sprintf("%5.1f%%  %d numbers", percent, count)
	if elapsed := t.Sub(p.start).Seconds(); elapsed > 0 {
		line += fmt.Sprintf("  %.0f/s", float64(count)/elapsed)
	}
	p.draw(line)
}

// finish clears the line, if one was drawn.
func (p *progress) finish() {
	if p == nil || p.width == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
	p.width = 0
}

func (p *progress) draw(line string) {
	pad := max(p.width-len(line), 0) // blank out the rest of a longer line
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
	p.width = len(line)
}
