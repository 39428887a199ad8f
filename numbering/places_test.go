package numbering

import (
	"sync"
	"testing"

	"github.com/numenhq/numen/numbering/internal/planfmt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlacesConcurrentFirstUse reads every geocoding description of a
// fresh plan from several goroutines at once, so that chunks are filled
// concurrently (go test -race checks the filling), and checks each against
// the section's string pool.
func TestPlacesConcurrentFirstUse(t *testing.T) {
	t.Parallel()
	p, err := Load()
	require.NoError(t, err)
	_, ps := p.geocoding()
	require.Positive(t, ps.n)
	var wg sync.WaitGroup
	bad := make([]int, 4)
	for g := range bad {
		wg.Go(func() {
			for v := range ps.n {
				w := (v + g*ps.n/len(bad)) % ps.n
				if s := ps.get(w); len(s) != 1 || s[0] != ps.pool.get(planfmt.U32(ps.ids, 4*w)) {
					bad[g]++
				}
			}
		})
	}
	wg.Wait()
	require.Equal(t, make([]int, len(bad)), bad)
}

// TestDeferredSectionsConcurrentFirstUse uses the sections Load reads on
// first use from several goroutines at once (go test -race checks it).
func TestDeferredSectionsConcurrentFirstUse(t *testing.T) {
	t.Parallel()
	p, err := Load()
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			nw, ok := p.Network("23415")
			assert.True(t, ok)
			assert.Equal(t, "GB", p.RegionOfMCC("234"))
			assert.NotEmpty(t, p.Networks("GB"))
			assert.NotEmpty(t, nw.Name)
			info, err := p.ShortNumber("112", "DE")
			assert.NoError(t, err)
			assert.True(t, info.Emergency)
			res := p.ClassifyString("+493012345678") // geographic: the geocoding section
			assert.Equal(t, []string{"Berlin"}, res.Regions)
		})
	}
	wg.Wait()
}
