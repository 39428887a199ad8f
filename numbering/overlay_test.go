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
	t.Parallel()
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
	t.Parallel()
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
		// Characters that would reach answers, logs and reports unseen or
		// reorder the text around them.
		{"+4915\tMOBILE\tFoo\x00\t26201", `line 1: network "Foo\x00": a control character (U+0000) is not allowed`},
		{"+4915\tMOBILE\tFoo\x1b[31m\t26201", `network "Foo\x1b[31m": a control character (U+001B)`},
		{"+4915\tMOBILE\tFoo\rBar\t26201", `network "Foo\x0dBar": a control character (U+000D)`},
		{"+4915\tMOBILE\tFoo\x7f\t26201", `network "Foo\x7f": a control character (U+007F)`},
		{"+4915\tMOBILE\tFo\u0085o\t26201", `network "Fo\u0085o": a control character (U+0085)`},
		{"+4915\tMOBILE\tevil\u202eliboM\t26201", `line 1: network "evil\u202eliboM": a bidirectional formatting character (U+202E) is not allowed`},
		{"+4915\tMOBILE\t\u2067Foo\u2069\t26201", `a bidirectional formatting character (U+2067)`},
		{"+4915\tMOBILE\tFoo\u200f\t26201", `a bidirectional formatting character (U+200F)`},
		{"+4915\tMOBILE\tFoo\u061c\t26201", `a bidirectional formatting character (U+061C)`},
		{"+4915\tMOBILE\tFo\u200bo\t26201", `network "Fo\u200bo": an invisible formatting character (U+200B)`},
		{"+4915\tMOBILE\tFo\u00ado\t26201", `an invisible formatting character (U+00AD)`},
		{"+4915\tMOBILE\tFo\u2028o\t26201", `a line or paragraph separator (U+2028)`},
		{"+4915\tMOBILE\tFoo\t26201\tnote \u202e", `line 1: note "note \u202e": a bidirectional formatting character (U+202E)`},
		{"+4915\tMOBILE\tFoo\t26201\tnote\x00", `note "note\x00": a control character (U+0000)`},
		{"+49\x0015\tMOBILE\tFoo\t26201", `prefix "+49\x0015": a control character (U+0000)`},
		{"# ok\n+4915\tMOB\u200bILE\tFoo\t26201", `line 2: type "MOB\u200bILE": an invisible formatting character (U+200B)`},
		// A network where the plan answers none: the line's type has no
		// network, or (type -) no number under the prefix has one.
		{"+49 30\tLANDLINE\tBerlin Telecom\t26201", `line 1: network "Berlin Telecom" on a LANDLINE line: only MOBILE, MOBILE_OR_LANDLINE and PAGER numbers have an original network; give - for the network`},
		{"+49 800\tTOLL_FREE\tFreecall\t-", `network "Freecall" on a TOLL_FREE line`},
		{"+49 900\tPREMIUM_RATE\tX\t-", `on a PREMIUM_RATE line`},
		{"+49 180\tSHARED_COST\tX\t-", `on a SHARED_COST line`},
		{"+49 32\tVOIP\tX\t-", `on a VOIP line`},
		{"+49 30\tUAN\tX\t-", `on a UAN line`},
		{"+49 30\tVOICEMAIL\tX\t-", `on a VOICEMAIL line`},
		{"+49 30\t-\tBerlin Telecom\t-", `line 1: network "Berlin Telecom" with type -: the plan has no MOBILE, MOBILE_OR_LANDLINE or PAGER numbers under +49 30`},
	} {
		_, err := testOverlay(t, tc.text)
		require.Error(t, err, tc.text)
		require.ErrorIs(t, err, ErrOverlay, tc.text)
		var oe *OverlayError
		require.True(t, errors.As(err, &oe))
		require.Contains(t, err.Error(), tc.want, tc.text)
	}
}

// Names in scripts spelt with the zero-width non-joiner and joiner are
// allowed, and so is a byte order mark at the start of the text; a network
// on a line that keeps the plan's type, where the plan has mobile numbers,
// reaches them; a LANDLINE line without a network is fine.
func TestOverlayTextAllowed(t *testing.T) {
	t.Parallel()
	p, err := testOverlay(t, "\uFEFF+49 1540\tMOBILE\tهمراه\u200cاول\t26299\n"+
		"+49 1541\tMOBILE\tक्\u200dष\t26298\tनोट\n"+
		"+49 1521\t-\tÉxample Mobil\t-\n"+
		"+49 30 1\tLANDLINE\t-\t-\n")
	require.NoError(t, err)
	require.Equal(t, "همراه\u200cاول", p.ClassifyString("+49 1540 1234567").Network)
	require.Equal(t, "क्\u200dष", p.ClassifyString("+49 1541 1234567").Network)
	require.Equal(t, "Éxample Mobil", p.ClassifyString("+49 1521 1234567").Network)
	require.Equal(t, "+491540", p.Overlay()[0].Prefix)
}

func TestOverlayFiles(t *testing.T) {
	t.Parallel()
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
		"+49 1540\tMOBILE\tA\u202eB\t-\n", "+49 1540\tMOBILE\tA\x00\t-\n", "+49 30\tLANDLINE\tX\t-\n",
		"\uFEFF+49 1540\tMOBILE\tهمراه\u200cاول\t26299\n", "+49 30\t-\tX\t-\n",
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
			// What an overlay accepts is printable: no control or
			// formatting character reaches answers.
			for _, field := range []string{line.Network, line.Note, line.MCCMNC} {
				if r, what := unprintable(field); what != "" {
					t.Fatalf("line %d: %s U+%04X accepted in %q", line.Line, what, r, field)
				}
			}
			// A network only on lines whose numbers can have one.
			if line.Network != "-" && line.Type != "-" && line.Type != "MOBILE" && line.Type != "MOBILE_OR_LANDLINE" && line.Type != "PAGER" {
				t.Fatalf("line %d: network %q on a %s line", line.Line, line.Network, line.Type)
			}
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
	t.Parallel()
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
