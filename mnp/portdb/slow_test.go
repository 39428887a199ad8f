package portdb

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// slowDB is the reference the database is compared with: maps from the
// rows as written, and the lookup rules as the documentation states them,
// with no encoding, no sorting, no index and no prefix cover.
type slowDB struct {
	numbers map[string]string // digits -> MCCMNC
	ranges  map[string]string // prefix digits -> MCCMNC
	spans   []slowSpan
}

type slowSpan struct {
	lo, hi string // equal lengths
	mccmnc string
}

func newSlowDB() *slowDB {
	return &slowDB{numbers: map[string]string{}, ranges: map[string]string{}}
}

// add takes a row's first two fields.
func (s *slowDB) add(key, mccmnc string) {
	key = strings.TrimSpace(key)
	switch {
	case strings.HasSuffix(key, "*"):
		s.ranges[strings.TrimPrefix(strings.TrimSuffix(key, "*"), "+")] = mccmnc
	case strings.Contains(key, "-"):
		lo, hi, _ := strings.Cut(key, "-")
		s.spans = append(s.spans, slowSpan{strings.TrimPrefix(lo, "+"), strings.TrimPrefix(hi, "+"), mccmnc})
	default:
		s.numbers[strings.TrimPrefix(key, "+")] = mccmnc
	}
}

type slowResult struct {
	found  bool
	mccmnc string
	exact  bool
	prefix string
}

// lookup: the number's own entry, else the longest prefix of it that is a
// range. A span of L-digit numbers lo-hi counts as the prefix x[:k] for
// the smallest k at which every L-digit number starting with x[:k] is in
// the span.
func (s *slowDB) lookup(digits string) slowResult {
	digits = strings.TrimPrefix(digits, "+")
	if digits == "" || len(digits) > 15 || digits[0] == '0' || strings.Trim(digits, "0123456789") != "" {
		return slowResult{}
	}
	if m, ok := s.numbers[digits]; ok {
		return slowResult{true, m, true, digits}
	}
	best := slowResult{}
	for k := len(digits); k >= 1; k-- {
		if m, ok := s.ranges[digits[:k]]; ok {
			best = slowResult{true, m, false, digits[:k]}
			break
		}
	}
	for _, sp := range s.spans {
		for k := 1; k <= len(digits) && k <= len(sp.lo); k++ {
			pad := len(sp.lo) - k
			first := digits[:k] + strings.Repeat("0", pad)
			last := digits[:k] + strings.Repeat("9", pad)
			if sp.lo <= first && last <= sp.hi {
				if !best.found || k > len(best.prefix) {
					best = slowResult{true, sp.mccmnc, false, digits[:k]}
				}
				break
			}
		}
	}
	return best
}

func requireSameAsSlow(t testing.TB, db *DB, slow *slowDB, digits string) {
	t.Helper()
	got, want := db.Lookup(digits), slow.lookup(digits)
	require.NoError(t, got.Err())
	require.Equal(t, want, slowResult{got.Found(), got.MCCMNC(), got.Exact(), got.Prefix()}, "Lookup(%q)", digits)
}

// randomRows makes rows of numbers clustered in a few German and Austrian
// ranges, prefixes of every length among them, and spans in their own
// area, without conflicts.
func randomRows(rnd *rand.Rand, n int) []string {
	areas := []string{"4915", "49151", "4917", "491761", "43664", "4367"}
	nets := []string{"26201", "26202", "26203", "26207", "23201", "23203", "232010"}
	used := map[string]bool{}
	var rows []string
	for len(rows) < n {
		area := areas[rnd.IntN(len(areas))]
		length := 10 + rnd.IntN(4)
		digits := area
		for len(digits) < length {
			digits += strconv.Itoa(rnd.IntN(10))
		}
		net := nets[rnd.IntN(len(nets))]
		if digits[:2] == "43" {
			net = nets[4+rnd.IntN(3)]
		}
		key := digits
		switch p := rnd.IntN(10); {
		case p < 2:
			key = digits[:len(area)+rnd.IntN(length-len(area))] + "*"
		case p < 3 && len(rows) < n/20:
			// A span in the 4916 area, which nothing else uses.
			span := "4916"
			for len(span) < 12 {
				span += strconv.Itoa(rnd.IntN(10))
			}
			end := []byte(span)
			for i := 6 + rnd.IntN(6); i < len(end); i++ {
				end[i] = '9'
			}
			key = span + "-" + string(end)
			if string(end) < span {
				continue
			}
			if used[span[:6]] {
				continue
			}
			used[span[:6]] = true
		}
		if used[key] {
			continue
		}
		used[key] = true
		if rnd.IntN(3) == 0 {
			key = "+" + key
		}
		rows = append(rows, key+","+net)
	}
	return rows
}

func TestLookupMatchesSlow(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(42, 7))
	for _, shift := range []uint8{0, 1, 3, defaultShift} {
		for _, n := range []int{1, 10, 300, 3000} {
			t.Run(fmt.Sprintf("shift=%d/rows=%d", shift, n), func(t *testing.T) {
				rows := randomRows(rnd, n)
				slow := newSlowDB()
				b, err := NewBuilder(BuildOptions{Plan: testPlan(t), Regions: []string{"DE", "AT"}})
				require.NoError(t, err)
				b.shift = shift
				for _, row := range rows {
					key, m, _ := strings.Cut(row, ",")
					slow.add(key, m)
					require.NoError(t, b.Add(key, m, ""))
				}
				var buf bytes.Buffer
				_, err = b.WriteTo(&buf)
				require.NoError(t, err)
				db, err := OpenBytes(buf.Bytes())
				require.NoError(t, err)
				require.NoError(t, db.Verify())

				for _, row := range rows {
					key, _, _ := strings.Cut(row, ",")
					key = strings.TrimSuffix(strings.TrimPrefix(key, "+"), "*")
					lo, hi, isSpan := strings.Cut(key, "-")
					for _, d := range []string{lo, hi} {
						requireSameAsSlow(t, db, slow, d)
						requireSameAsSlow(t, db, slow, d[:len(d)-1])
						requireSameAsSlow(t, db, slow, d+strconv.Itoa(rnd.IntN(10)))
						requireSameAsSlow(t, db, slow, neighbour(d, rnd))
						if !isSpan {
							break
						}
					}
				}
				for range 2000 {
					requireSameAsSlow(t, db, slow, randomDigits(rnd))
				}
			})
		}
	}
}

// neighbour changes one digit of d, never the first.
func neighbour(d string, rnd *rand.Rand) string {
	if len(d) < 2 {
		return d
	}
	b := []byte(d)
	i := 1 + rnd.IntN(len(b)-1)
	b[i] = byte('0' + rnd.IntN(10))
	return string(b)
}

func randomDigits(rnd *rand.Rand) string {
	prefixes := []string{"49151", "4915", "4916", "4917", "43664", "4367", "4930", "33", ""}
	s := prefixes[rnd.IntN(len(prefixes))]
	n := rnd.IntN(17)
	for len(s) < n {
		s += strconv.Itoa(rnd.IntN(10))
	}
	return s
}
