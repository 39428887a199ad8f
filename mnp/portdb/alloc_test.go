package portdb

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The lookup path allocates nothing: exact hits, range hits, misses,
// through a DB and through a Holder.
func TestNoAllocs(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage counters allocate")
	}
	db := openCSV(t, readSample(t), "DE", "AT")
	h := NewHolder(db)
	sink := 0
	for _, digits := range []string{"4915112345678", "4915112000000", "4930123456", "+491511", "x"} {
		allocs := testing.AllocsPerRun(1000, func() {
			r := db.Lookup(digits)
			sink += len(r.MCCMNC()) + len(r.Network()) + len(r.Prefix())
			if r.Found() && r.Exact() {
				sink++
			}
		})
		require.Zero(t, allocs, "DB.Lookup(%q)", digits)
		allocs = testing.AllocsPerRun(1000, func() {
			r := h.Lookup(digits)
			sink += len(r.MCCMNC())
		})
		require.Zero(t, allocs, "Holder.Lookup(%q)", digits)
		allocs = testing.AllocsPerRun(1000, func() {
			h.View(func(db *DB) {
				if db.Covers("DE") {
					sink += len(db.Lookup(digits).MCCMNC())
				}
			})
		})
		require.Zero(t, allocs, "Holder.View(%q)", digits)
	}
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		if db.Covers("DE") && !db.Covers("CA") && h.Covers("AT") && db.CoversCallingCode(49) {
			sink++
		}
	}), "Covers")
	require.NotZero(t, sink)
}
