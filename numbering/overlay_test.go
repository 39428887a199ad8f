package numbering

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testOverlay opens the shipped plan with an overlay text.
func testOverlay(t testing.TB, text string) (*Plan, error) {
	t.Helper()
	return Load(WithOverlay(strings.NewReader(text)))
}

func TestOverlay(t *testing.T) {
	p, err := testOverlay(t, strings.Join([]string{
		"# corrections and new ranges",
		"+49 1540\tMOBILE\tExample Mobil\t26299\ta new range, not yet in libphonenumber",
		"+992 93\t-\tTcell\t43601\tTcell's code from Somoncom; 436-02 is Indigo's, merged into Tcell",
		"+44 7700\tMOBILE\tOfcom drama range\t-",
		"",
		"+1 355\tMOBILE_OR_LANDLINE\t-\t-\ta new area code",
	}, "\n"))
	require.NoError(t, err)

	// A new range: valid, of the overlay's type, with its network; numbers
	// of other lengths stay as the plan has them.
	res := p.ClassifyString("+49 1540 1234567")
	require.True(t, res.Valid)
	require.Equal(t, Mobile, res.Type)
	require.Equal(t, "DE", res.CountryCode)
	require.Equal(t, "Example Mobil", res.Network)
	require.Equal(t, "26299", res.MCCMNC)
	require.True(t, res.QualifiesForHLR)
	require.True(t, res.PossiblyPorted)
	require.Equal(t, []string{"Europe/Berlin"}, res.Timezones)
	require.False(t, p.ClassifyString("+49 1540 12").Valid, "a length German mobiles do not have")

	// A network correction: the plan's type and validity stand.
	res = p.ClassifyString("+992 93 1234567")
	require.True(t, res.Valid)
	require.Equal(t, Mobile, res.Type)
	require.Equal(t, "Tcell", res.Network)
	require.Equal(t, "43601", res.MCCMNC)
	require.Empty(t, p.ClassifyString("+992 92 1234567").MCCMNC, "outside the prefix, the plan answers: no code for Tcell")

	// A network without a code: its name, and no code borrowed.
	res = p.ClassifyString("+44 7700 900123")
	require.True(t, res.Valid)
	require.Equal(t, "Ofcom drama range", res.Network)
	require.Empty(t, res.MCCMNC)

	// A type without a network: the plan's network stands (none here). No
	// NANPA country has numbers under +1 355: the calling code's main
	// region takes them.
	res = p.ClassifyString("+1 355 555 0123")
	require.True(t, res.Valid)
	require.Equal(t, MobileOrLandline, res.Type)
	require.Equal(t, "US", res.CountryCode)
	require.False(t, plan(t).ClassifyString("+1 355 555 0123").Valid)

	// Without the overlay, the plan's answers.
	base := plan(t)
	require.False(t, base.ClassifyString("+49 1540 1234567").Valid)
	require.Empty(t, base.ClassifyString("+992 93 1234567").MCCMNC)

	v := p.Version()
	require.Regexp(t, `^overlay \(4 lines, crc32c [0-9a-f]{8}\)$`, v.Overlay)
	require.True(t, strings.HasSuffix(v.String(), " + overlay "+v.Overlay))
	require.Empty(t, base.Version().Overlay)

	lines := p.Overlay()
	require.Len(t, lines, 4)
	require.Equal(t, OverlayLine{Source: "overlay", Line: 3, Prefix: "+99293", Type: "-", Network: "Tcell", MCCMNC: "43601", Note: "Tcell's code from Somoncom; 436-02 is Indigo's, merged into Tcell"}, lines[1])
	require.Nil(t, base.Overlay())
}

func TestOverlayDoesNotAllocate(t *testing.T) {
	p, err := testOverlay(t, "+49 1540\tMOBILE\tExample Mobil\t26299\n")
	require.NoError(t, err)
	for _, in := range []string{"+49 1540 1234567", "+49 151 23456789", "+44 20 7946 0000"} {
		if a := testing.AllocsPerRun(100, func() { p.ClassifyString(in) }); a != 0 {
			t.Errorf("ClassifyString(%q) with an overlay allocates %.1f times", in, a)
		}
	}
}

func TestOverlayErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"", "no lines"},
		{"# only a comment\n\n", "no lines"},
		{"+4915 MOBILE Foo 26201", "line 1: 1 tab-separated fields"},
		{"+4915\tMOBILE\tFoo", "line 1: 3 tab-separated fields"},
		{"+4915\tMOBILE\tFoo\t26201\tnote\textra", "line 1: 6 tab-separated fields"},
		{"+49a5\tMOBILE\tFoo\t26201", `prefix "+49a5": want digits`},
		{"+999123\tMOBILE\tFoo\t26201", "prefix +999123: no country uses its leading digits"},
		{"+49\tMOBILE\tFoo\t26201", "a whole calling code"},
		{"+49123456789012345678\tMOBILE\tFoo\t26201", "longer than any number"},
		{"+4915\tCELLULAR\tFoo\t26201", `type "CELLULAR": want one of MOBILE`},
		{"+4915\tMOBILE\tFoo\t2620", `MCCMNC "2620": want 5 or 6 digits`},
		{"+4915\tMOBILE\t-\t26201", "MCCMNC 26201 without a network"},
		{"+4915\tMOBILE\t\t26201", "empty network name"},
		{"+4915\t-\t-\t-", "changes nothing"},
		{"# header\n+4915\tMOBILE\tA\t-\n+49 15\tPAGER\tB\t-", "line 3: prefix +4915 is also given in overlay line 2"},
		{"+4915\tMOBILE\tA\t-\n+49\xff\tMOBILE\tB\t-", "line 2: not valid UTF-8"},
	} {
		_, err := testOverlay(t, tc.text)
		require.Error(t, err, tc.text)
		require.ErrorIs(t, err, ErrOverlay, tc.text)
		var oe *OverlayError
		require.True(t, errors.As(err, &oe))
		require.Contains(t, err.Error(), tc.want, tc.text)
	}
}

func TestOverlayFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.tsv"), filepath.Join(dir, "b.tsv")
	require.NoError(t, os.WriteFile(a, []byte("+49 1540\tMOBILE\tExample Mobil\t26299\n"), 0o644))
	require.NoError(t, os.WriteFile(b, []byte("+992 93\t-\tTcell\t43601\n"), 0o644))
	p, err := Load(WithOverlayFile(a), WithOverlayFile(b))
	require.NoError(t, err)
	require.Contains(t, p.Version().Overlay, a+" (1 lines, ")
	require.Contains(t, p.Version().Overlay, ", "+b+" (1 lines, ")
	require.Equal(t, "43601", p.ClassifyString("+992 93 1234567").MCCMNC)

	// The same prefix in two overlays contradicts: an error naming both.
	require.NoError(t, os.WriteFile(b, []byte("# again\n+491540\tPAGER\tOther\t-\n"), 0o644))
	_, err = Load(WithOverlayFile(a), WithOverlayFile(b))
	require.ErrorContains(t, err, b+" line 2: prefix +491540 is also given in "+a+" line 1")

	_, err = Load(WithOverlayFile(filepath.Join(dir, "missing.tsv")))
	require.ErrorIs(t, err, ErrOverlay)
	require.ErrorIs(t, err, os.ErrNotExist)
}

// FuzzOverlay compiles arbitrary overlay text over a small plan (Germany,
// Argentina, +800; small, so that each run is quick): an error wrapping
// ErrOverlay, or a plan whose answers follow the overlay's networks.
func FuzzOverlay(f *testing.F) {
	for _, s := range []string{
		"+49 1540\tMOBILE\tExample Mobil\t26299\tnote\n",
		"+49 151\t-\tT-Mobile\t26206\n+54 9 11\tMOBILE\tX\t-\n",
		"+800 1\tTOLL_FREE\t-\t-\n",
		"# comment\n\n+49 15\tPAGER\tY\t262999\n+49 1521\tMOBILE\tZ\t-\n",
		"+999\tMOBILE\tA\t-\n", "\t\t\t\n", "+\t-\t-\t-",
	} {
		f.Add(s)
	}
	small := smallPlan(f)
	f.Fuzz(func(t *testing.T, text string) {
		p, err := OpenBytes(small, WithOverlay(strings.NewReader(text)))
		if err != nil {
			if !errors.Is(err, ErrOverlay) {
				t.Fatalf("error %v does not wrap ErrOverlay", err)
			}
			return
		}
		lines := p.Overlay()
		for _, line := range lines {
			num := line.Prefix + "1234567"
			res := p.ClassifyString(num)
			if _ = res.AppendJSON(nil); !res.Valid || !(res.Type.IsMobile() || res.Type == Pager) {
				continue
			}
			// The longest line covering the number decides its network.
			var rule *OverlayLine
			for i := range lines {
				if strings.HasPrefix(res.Number.String(), lines[i].Prefix) && (rule == nil || len(lines[i].Prefix) > len(rule.Prefix)) {
					rule = &lines[i]
				}
			}
			if rule != nil && rule.Network != "-" && (res.Network != rule.Network || res.MCCMNC != rule.MCCMNC) {
				t.Fatalf("%s: network %q %q, overlay line %d says %q %q", num, res.Network, res.MCCMNC, rule.Line, rule.Network, rule.MCCMNC)
			}
		}
	})
}

// TestOverlayRegion: a prefix in a shared calling code belongs to the
// region that has numbers under it.
func TestOverlayRegion(t *testing.T) {
	p, err := testOverlay(t, "+1 368 2\tMOBILE\tNew Mobile\t302999\n+7 7\tPAGER\tKZ pager\t-\n")
	require.NoError(t, err)
	res := p.ClassifyString("+1 368 255 0123")
	require.Equal(t, "CA", res.CountryCode, "+1 368 is a Canadian area code")
	require.Equal(t, Mobile, res.Type)
	require.Equal(t, "302999", res.MCCMNC)
	res = p.ClassifyString("+7 700 123 4567")
	require.Equal(t, "KZ", res.CountryCode, "Kazakhstan's leading digits")
	require.Equal(t, Pager, res.Type)
}
