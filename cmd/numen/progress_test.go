package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestProgress(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p := newProgress(&out, 2000, clock.now)

	p.update(10, 1)
	clock.advance(50 * time.Millisecond)
	p.update(20, 2)
	require.Empty(t, out.String(), "nothing drawn within the first interval")

	clock.advance(950 * time.Millisecond) // 1 s in
	p.update(1000, 5000)
	require.Equal(t, "\r 50.0%  5000 numbers  5000/s", out.String())

	out.Reset()
	clock.advance(99 * time.Millisecond)
	p.update(1100, 5500)
	require.Empty(t, out.String(), "at most one redraw per interval")

	clock.advance(time.Millisecond)
	p.update(1200, 5600) // 1.1 s in
	require.Equal(t, "\r 60.0%  5600 numbers  5091/s", out.String())

	// A shorter line blanks out the rest of the longer one.
	out.Reset()
	clock.advance(10 * time.Second)
	p.update(2000, 5600) // 11.1 s in
	require.Equal(t, "\r100.0%  5600 numbers  505/s ", out.String())
	require.Equal(t, len("100.0%  5600 numbers  505/s"), p.width)

	// Reading past the size given (a file that grew) stays at 100%.
	out.Reset()
	clock.advance(time.Second)
	p.update(5000, 6000)
	require.True(t, strings.HasPrefix(out.String(), "\r100.0%  6000 numbers"), out.String())

	out.Reset()
	width := p.width
	p.finish()
	require.Equal(t, "\r"+strings.Repeat(" ", width)+"\r", out.String())
	require.Zero(t, p.width)
	out.Reset()
	p.finish()
	require.Empty(t, out.String(), "finishing twice clears once")
}

func TestProgressFinishUndrawn(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	clock := &fakeClock{}
	p := newProgress(&out, 100, clock.now)
	p.update(100, 3)
	p.finish()
	require.Empty(t, out.String(), "a quick run leaves no trace")
}

func TestProgressNil(t *testing.T) {
	t.Parallel()
	var p *progress
	p.update(1, 1)
	p.finish()
}
