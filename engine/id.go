package engine

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
)

// Lookup ids are 12 characters from [0-9a-z], made of two
// parts:
//
//	01k3x9q2  7fzm
//	time      random
//
// The first 8 characters are the milliseconds since idEpoch in base 36
// (8 characters last until 2109, then wrap), the last 4 are drawn
// uniformly from the random source (crypto/rand by default): 1,679,616
// values per millisecond. One source never repeats an id: it keeps the
// random parts it handed out in the current millisecond and draws again
// on a repeat.
//
// Why time first: every result is stored under its id, and the store's
// index on the id is a B-tree. Random ids put each new entry on a page of
// its own anywhere in the index, so that a transaction of n results
// rewrites n index pages; ids that grow with time append to the index's
// last page. In the sidecar benchmark (benchmarks/README.md, "HTTP
// sidecar") this cut the store's cost per result by about 40% and the
// bytes it writes per result from 11 KB to 4 KB. The ids stay
// unguessable where it matters: an id names a result only within its
// account's reports, and the time it reveals is the result's own
// timestamp, which the result carries anyway.
const (
	idTimeChars   = 8
	idRandomChars = 4
	idLength      = idTimeChars + idRandomChars
	idAlphabet    = "0123456789abcdefghijklmnopqrstuvwxyz"
)

// idEpoch is the time of id 00000000....: 2020-01-01T00:00:00Z in Unix
// milliseconds (a constant, not time.Date: nothing to compute at start-up;
// TestIDEpoch checks it).
const idEpoch = 1577836800000

// idTimeSpan is 36^8 milliseconds, about 89 years: the time part wraps
// after it.
const idTimeSpan = 36 * 36 * 36 * 36 * 36 * 36 * 36 * 36

// maxIDsPerMilli bounds the random parts one millisecond hands out (and
// the work of checking a new one against them): past it, the source moves
// on to the next millisecond of its own, ahead of the clock, which it
// follows again once the clock catches up.
const maxIDsPerMilli = 1024

// idSource draws lookup ids. See the comment on idTimeChars. It is safe for
// concurrent use.
type idSource struct {
	r     io.Reader
	clock func() time.Time

	mu   sync.Mutex
	ms   int64    // millisecond of the last id (since idEpoch)
	used []uint32 // random parts handed out in millisecond ms
}

func newIDSource(r io.Reader, clock func() time.Time) *idSource {
	if r == nil {
		r = rand.Reader
	}
	return &idSource{r: r, clock: clock, used: make([]uint32, 0, 64)}
}

// next returns a new id.
func (s *idSource) next() (string, error) {
	now := max(s.clock().UnixMilli()-idEpoch, 0)
	s.mu.Lock()
	defer s.mu.Unlock()
	// The time part never goes back, even when the clock does (NTP): a
	// millisecond is only left once.
	if now > s.ms {
		s.ms, s.used = now, s.used[:0]
	}
	if len(s.used) == maxIDsPerMilli {
		s.ms, s.used = s.ms+1, s.used[:0]
	}
	var tail uint32
	for tries := 0; ; tries++ {
		if tries == 8 {
			return "", errors.New("engine: random source keeps repeating itself")
		}
		var err error
		if tail, err = s.draw(); err != nil {
			return "", err
		}
		if !slices.Contains(s.used, tail) {
			break
		}
	}
	s.used = append(s.used, tail)

	var id [idLength]byte
	t := s.ms % idTimeSpan
	for i := idTimeChars - 1; i >= 0; i-- {
		id[i] = idAlphabet[t%36]
		t /= 36
	}
	for i := idLength - 1; i >= idTimeChars; i-- {
		id[i] = idAlphabet[tail%36]
		tail /= 36
	}
	return string(id[:]), nil
}

// draw returns a random part, uniform in [0, 36^4): four
// characters, each from a byte below 252 (7 × 36), so that every
// character is equally likely.
func (s *idSource) draw() (uint32, error) {
	var buf [8]byte
	var v uint32
	n := 0
	for tries := 0; n < idRandomChars; tries++ {
		if tries == 8 {
			return 0, errors.New("engine: random source keeps giving unusable bytes")
		}
		if _, err := io.ReadFull(s.r, buf[:]); err != nil {
			return 0, fmt.Errorf("engine: drawing a lookup id: %w", err)
		}
		for _, b := range buf {
			if b < 252 && n < idRandomChars {
				v = v*36 + uint32(b%36)
				n++
			}
		}
	}
	return v, nil
}
