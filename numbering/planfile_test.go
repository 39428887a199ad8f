package numbering

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering/compile"
	"github.com/numenhq/numen/numbering/internal/planfmt"
	"github.com/nyaruka/phonenumbers/v2"
	"github.com/stretchr/testify/require"
)

// reseal recomputes a plan file's digest and checksums after a test has
// changed it, so that the change reaches the structural checks behind them.
func reseal(b []byte, digest bool) {
	body := b[planfmt.HeaderSize:]
	if digest {
		sum := sha256.Sum256(body)
		copy(b[planfmt.OffDigest:], sum[:16])
	}
	binary.LittleEndian.PutUint32(b[planfmt.OffBodyCRC:], planfmt.Checksum(body))
	binary.LittleEndian.PutUint32(b[planfmt.OffHeaderCRC:], planfmt.Checksum(b[:planfmt.OffHeaderCRC]))
}

// sectionOf returns the offset and length of a section of a plan file.
func sectionOf(t testing.TB, b []byte, id uint32) (int, int) {
	t.Helper()
	n := int(planfmt.U16(b, planfmt.OffSections))
	for i := range n {
		at := planfmt.HeaderSize + i*planfmt.DirEntrySize
		if planfmt.U32(b, at) == id {
			return int(planfmt.U32(b, at+4)), int(planfmt.U32(b, at+8))
		}
	}
	t.Fatalf("no section %d", id)
	return 0, 0
}

func put32(b []byte, off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }

// TestCorruptPlanFiles damages the shipped plan file in the ways files get
// damaged (truncated, extended, bits flipped, another version) and in ways
// only a crafted file with correct checksums can be (indexes out of range,
// segments out of order): each must give a *FormatError naming the problem,
// never a plan that answers.
func TestCorruptPlanFiles(t *testing.T) {
	t.Parallel()
	good := data.Plan()
	geoAt, _ := sectionOf(t, good, planfmt.SecGeocoding)
	autoAt, _ := sectionOf(t, good, planfmt.SecAutomata)
	strAt, _ := sectionOf(t, good, planfmt.SecStrings)
	codesAt, _ := sectionOf(t, good, planfmt.SecCodes)
	npAt, _ := sectionOf(t, good, planfmt.SecNationalPrefix)
	fmtAt, _ := sectionOf(t, good, planfmt.SecFormats)
	fmtRecords := fmtAt + planfmt.FmtHeaderSize + int(planfmt.U32(good, fmtAt))*planfmt.FmtCodeSize + int(planfmt.U32(good, fmtAt+4))*planfmt.FmtRegionSize
	fmtLayout := fmtAt + int(planfmt.U32(good, fmtRecords+planfmt.FmtLayout))
	geoStarts := geoAt + planfmt.TableHeaderSize
	geoSegments := int(planfmt.U32(good, geoAt))
	geoFirst := geoStarts + 4*geoSegments + (2*geoSegments+3)&^3
	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
		want   string
	}{
		{"empty", func([]byte) []byte { return nil }, "shorter than the 64-byte header"},
		{"a few bytes", func(b []byte) []byte { return b[:10] }, "shorter than the 64-byte header"},
		{"not a plan", func([]byte) []byte { return bytes.Repeat([]byte("numbers\n"), 100) }, "not a numbering plan file"},
		{"truncated by half", func(b []byte) []byte { return b[:len(b)/2] }, "truncated"},
		{"truncated by one byte", func(b []byte) []byte { return b[:len(b)-1] }, "truncated"},
		{"one byte appended", func(b []byte) []byte { return append(b, 0) }, "extended"},
		{"bit flipped in the body", func(b []byte) []byte { b[geoAt+100] ^= 0x10; return b }, "the file is damaged"},
		{"bit flipped in the header", func(b []byte) []byte { b[planfmt.OffLength] ^= 1; return b }, "the header is damaged"},
		{"bit flipped in the checksum", func(b []byte) []byte { b[planfmt.OffBodyCRC] ^= 1; return b }, "the header is damaged"},
		{"another format version", func(b []byte) []byte {
			binary.LittleEndian.PutUint16(b[planfmt.OffVersion:], planfmt.Version+1)
			reseal(b, true)
			return b
		}, "format version 2; this build of numbering reads version 1 only"},
		{"section outside the file", func(b []byte) []byte {
			put32(b, planfmt.HeaderSize+4, uint32(len(b)))
			reseal(b, true)
			return b
		}, "lies outside the file"},
		{"transition to a missing state", func(b []byte) []byte {
			head := planfmt.U32(b, autoAt)
			states := head &^ planfmt.WideFlag
			if head&planfmt.WideFlag != 0 {
				binary.LittleEndian.PutUint16(b[autoAt+2*planfmt.WideRow+2:], uint16(states)+3)
			} else {
				b[autoAt+2*planfmt.NarrowRow+2] = byte(min(states+3, planfmt.NarrowDead-1))
			}
			reseal(b, true)
			return b
		}, "automaton: state 1 leads to state"},
		{"a run that is no chain", func(b []byte) []byte {
			head := planfmt.U32(b, autoAt)
			row := planfmt.NarrowRow
			if head&planfmt.WideFlag != 0 {
				row = planfmt.WideRow
			}
			b[autoAt+row+1] |= 0x80 // state 0: a run of 16
			reseal(b, true)
			return b
		}, "state 0's run of 16 is not a chain"},
		{"string beyond the text", func(b []byte) []byte {
			put32(b, strAt+8, 0xFFFFFFF0)
			reseal(b, true)
			return b
		}, "out of order or beyond"},
		{"segments out of order", func(b []byte) []byte {
			put32(b, geoStarts+8, planfmt.U32(b, geoStarts+4))
			reseal(b, true)
			return b
		}, "out of order"},
		{"bucket index pointing elsewhere", func(b []byte) []byte {
			put32(b, geoFirst+4*500, planfmt.U32(b, geoFirst+4*500)+1)
			reseal(b, true)
			return b
		}, "does not hold its first key"},
		{"too many regions", func(b []byte) []byte {
			put32(b, codesAt+2*planfmt.MaxCallingCode+4, 0xFFFF)
			reseal(b, true)
			return b
		}, "impossible"},
		{"national prefix program jumping out", func(b []byte) []byte {
			prog := npAt + int(planfmt.U32(b, npAt+4))
			put32(b, prog+planfmt.ProgHeaderSize+planfmt.InstOut, 9999)
			reseal(b, true)
			return b
		}, "instruction 0: invalid"},
		{"format list beyond the formats", func(b []byte) []byte {
			binary.LittleEndian.PutUint16(b[fmtAt+planfmt.FmtHeaderSize+2:], 0xFFF0)
			reseal(b, true)
			return b
		}, "calling code 0: formats"},
		{"format group beyond its atoms", func(b []byte) []byte {
			atoms := int(b[fmtLayout])
			b[fmtLayout+planfmt.FmtLayoutHead+atoms*planfmt.FmtAtomSize] = byte(atoms)
			reseal(b, true)
			return b
		}, "format 0: layout: group 1 spans atoms"},
		{"format digits that are not its layout's", func(b []byte) []byte {
			b[fmtRecords+planfmt.FmtMinDigits]++
			reseal(b, true)
			return b
		}, "its layout matches"},
		{"format template beyond the templates", func(b []byte) []byte {
			binary.LittleEndian.PutUint16(b[fmtRecords+planfmt.FmtNational:], 0xFFFF)
			reseal(b, true)
			return b
		}, "format 0: template of"},
		{"as-you-type table beyond the section", func(b []byte) []byte {
			put32(b, fmtAt+planfmt.FmtAYT, 0x7FFFFFF0)
			reseal(b, true)
			return b
		}, "number formats"},
		{"as-you-type template beyond the templates", func(b []byte) []byte {
			ayt := fmtAt + int(planfmt.U32(b, fmtAt+planfmt.FmtAYT))
			binary.LittleEndian.PutUint16(b[ayt:], 0xFFFF)
			b[ayt+2] = 9
			reseal(b, true)
			return b
		}, "format 0: as-you-type template of 9 bytes"},
		{"as-you-type template of a letter", func(b []byte) []byte {
			ayt := fmtAt + int(planfmt.U32(b, fmtAt+planfmt.FmtAYT))
			tpl := fmtAt + int(planfmt.U32(b, fmtAt+12)) + int(binary.LittleEndian.Uint16(b[ayt:]))
			b[tpl] = 'A'
			reseal(b, true)
			return b
		}, "as-you-type template byte 0x41"},
		{"as-you-type levels", func(b []byte) []byte {
			ayt := fmtAt + int(planfmt.U32(b, fmtAt+planfmt.FmtAYT))
			put32(b, ayt+int(planfmt.U32(b, fmtAt+8))*planfmt.FmtAYTRecordSize, 1000)
			reseal(b, true)
			return b
		}, "1000 levels of leading digits"},
		{"format automaton of missing states", func(b []byte) []byte {
			autos := fmtAt + int(planfmt.U32(b, fmtAt+20))
			put32(b, autos, 0)
			reseal(b, true)
			return b
		}, "leading digits automaton of 0 states"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.damage(bytes.Clone(good))
			p, err := OpenBytes(b)
			require.Nil(t, p)
			require.Error(t, err)
			require.ErrorIs(t, err, ErrFormat)
			var fe *FormatError
			require.True(t, errors.As(err, &fe))
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestEveryFlippedBitIsCaught flips single bits all over the file: CRC-32C
// catches every one, so a damaged file never answers.
func TestEveryFlippedBitIsCaught(t *testing.T) {
	t.Parallel()
	good := data.Plan()
	rng := rand.New(rand.NewPCG(8, 9))
	b := bytes.Clone(good)
	for range 300 {
		i, bit := rng.IntN(len(b)), byte(1)<<rng.IntN(8)
		b[i] ^= bit
		_, err := OpenBytes(b)
		require.ErrorIs(t, err, ErrFormat, "bit %d of byte %d", bit, i)
		b[i] ^= bit
	}
}

// TestLoadTrustsCheckedBytes: Load skips the checks that read every byte
// of the built-in plan (the body's checksum, the order of every table
// segment and automaton transition), so this test makes them: the same
// bytes pass every check of OpenBytes and Verify, and Load reads from them
// the same plan.
func TestLoadTrustsCheckedBytes(t *testing.T) {
	t.Parallel()
	checked, err := OpenBytes(data.Plan())
	require.NoError(t, err)
	loaded, err := Load()
	require.NoError(t, err)
	require.NotNil(t, loaded.deferred.networks.r)
	require.NotNil(t, loaded.deferred.short.r)
	require.NotNil(t, loaded.deferred.geo.r)
	loaded.networkList() // the sections Load reads on first use
	require.NoError(t, loaded.shortNumbers())
	loaded.geocoding()
	for i := range loaded.regions {
		loaded.regions[i].automata()
		loaded.regions[i].lazy = nil
	}
	loaded.deferred = deferred{}
	require.True(t, loaded.trusted)
	loaded.trusted = false
	require.True(t, reflect.DeepEqual(checked, loaded), "Load and OpenBytes read different plans")
	require.NoError(t, checked.Verify())
}

// TestVerifyMakesTheChecksLoadSkips: a plan read as Load reads the
// built-in one answers from bytes whose tables it has not checked; Verify
// checks them.
func TestVerifyMakesTheChecksLoadSkips(t *testing.T) {
	t.Parallel()
	b := bytes.Clone(data.Plan())
	geoAt, _ := sectionOf(t, b, planfmt.SecGeocoding)
	put32(b, geoAt+planfmt.TableHeaderSize+8, 0) // segment 2 starts before segment 1
	reseal(b, false)
	_, err := OpenBytes(b)
	require.ErrorContains(t, err, "out of order")
	p, err := openBytes(b, true, nil)
	require.NoError(t, err)
	require.ErrorContains(t, p.Verify(), "out of order")
	require.ErrorIs(t, p.Verify(), ErrFormat)
}

func TestVerify(t *testing.T) {
	t.Parallel()
	require.NoError(t, plan(t).Verify())

	// A crafted change with fresh checksums: Open takes it (its structure
	// is sound), Verify does not.
	b := bytes.Clone(data.Plan())
	strAt, _ := sectionOf(t, b, planfmt.SecStrings)
	count := int(planfmt.U32(b, strAt))
	text := strAt + 4 + 4*(count+1)
	last := text + int(planfmt.U32(b, strAt+4*count)) // the last string: a name
	b[last] = 0xFF
	reseal(b, true)
	p, err := OpenBytes(b)
	require.NoError(t, err)
	require.ErrorContains(t, p.Verify(), "not valid UTF-8")
	require.ErrorIs(t, p.Verify(), ErrFormat)
}

func TestOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.bin")
	require.NoError(t, os.WriteFile(path, data.Plan(), 0o644))
	p, err := Open(path)
	require.NoError(t, err)
	require.Equal(t, plan(t).Version(), p.Version())
	require.Equal(t, "+4915123456789", p.ClassifyString("+49 151 23456789").Number.String())

	require.NoError(t, os.WriteFile(path, data.Plan()[:1000], 0o644))
	_, err = Open(path)
	require.ErrorIs(t, err, ErrFormat)
	require.True(t, strings.HasSuffix(err.Error(), "("+path+")"), err.Error())

	_, err = Open(filepath.Join(dir, "missing.bin"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestVersionFromFile: the version comes from the file's header, and agrees
// with what the generator stamped into package data.
func TestVersionFromFile(t *testing.T) {
	t.Parallel()
	v := plan(t).Version()
	require.Equal(t, data.LibphonenumberVersion, v.Libphonenumber)
	require.Equal(t, data.TablesDigest, v.Tables)
	require.Equal(t, data.Version(), v.String())
}

// smallPlan compiles a plan of a few calling codes (Germany, Argentina,
// the +800 service) with tiny tables: a seed the fuzzer can mutate.
func smallPlan(tb testing.TB) []byte {
	tb.Helper()
	coll, err := phonenumbers.MetadataCollection()
	if err != nil {
		tb.Fatal(err)
	}
	short, err := phonenumbers.ShortNumberMetadataCollection()
	if err != nil {
		tb.Fatal(err)
	}
	short = &phonenumbers.PhoneMetadataCollection{Metadata: slices.DeleteFunc(slices.Clone(short.GetMetadata()), func(m *phonenumbers.PhoneMetadata) bool {
		return m.GetId() != "DE" && m.GetId() != "AR"
	})}
	b, err := compile.Plan(compile.Input{
		ShortNumbers:   short,
		Metadata:       coll,
		Libphonenumber: "v0.0.0-test",
		Countries:      []byte("49\tDE\tGermany\n54\tAR\tArgentina\n800\t001\tInternational Freephone Service\n"),
		Carriers:       []byte("49151\tTelekom\n49152\tVodafone\n491521\tLyca\n5491\tClaro\n"),
		MCCMNC:         []byte("49151\t26201\n49152\t26202\n"),
		Networks:       []byte("26201\tDE\tTelekom\tTelekom Deutschland\tOperational\n26202\tDE\tVodafone\tVodafone GmbH\tOperational\n"),
		Geocoding:      []byte("4930\tBerlin\n4989\tMunich\n54911\tBuenos Aires\n"),
		Timezones:      []byte("49\tEurope/Berlin\n54\tAmerica/Buenos_Aires\n800\tEtc/Unknown&UTC\n"),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestSmallPlan(t *testing.T) {
	t.Parallel()
	p, err := OpenBytes(smallPlan(t))
	require.NoError(t, err)
	require.NoError(t, p.Verify())
	res := p.ClassifyString("+49 1521 2345678")
	require.True(t, res.Valid)
	require.Equal(t, "Lyca", res.Network)
	require.Empty(t, res.MCCMNC, "Lyca's range has no code of its own: Vodafone's must not show through")
	res = p.ClassifyString("+49 151 23456789")
	require.Equal(t, "26201", res.MCCMNC)
	require.Equal(t, []string{"Europe/Berlin"}, res.Timezones)
	require.Equal(t, []string{"Berlin"}, p.ClassifyString("+49 30 1234567").Regions)
	require.Equal(t, InvalidCountryCode, p.ClassifyString("+44 20 7946 0000").Reason)
	nw, ok := p.Network("26202")
	require.True(t, ok)
	require.Equal(t, "Vodafone", nw.Name())
	require.Equal(t, "DE", p.RegionOfMCC("262"))
	info, err := p.ShortNumber("112", "DE")
	require.NoError(t, err)
	require.True(t, info.Valid && info.Emergency)
	_, err = p.ShortNumber("911", "US")
	require.ErrorAs(t, err, new(*RegionError), "the small plan has no US")
}

// FuzzOpenBytes opens mutated plan files: as they are (the checksums
// refuse nearly all) and resealed (so that the mutation reaches the
// structural checks). Neither may panic, and a plan that opens must answer
// lookups without panicking.
func FuzzOpenBytes(f *testing.F) {
	small := smallPlan(f)
	smallCore, err := compile.Strip(small, compile.Geocoding, compile.Timezones)
	if err != nil {
		f.Fatal(err)
	}
	geoPack, err := compile.Pack(small, compile.Geocoding)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(small)
	f.Add(geoPack)
	f.Add(small[:len(small)/2])
	f.Add([]byte(planfmt.Magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		use := func(p *Plan) {
			_ = p.Verify()
			for _, s := range []string{"+49 151 23456789", "+49 30 1234567", "+54 9 11 2345 6789", "+800 1234 5678", "+49 1", "+1 650 253 0000"} {
				res := p.ClassifyString(s)
				_ = res.AppendJSON(nil)
				for _, style := range []Style{E164, International, National, RFC3966} {
					_, _ = p.AppendFormat(nil, res.Number, style)
				}
				_, _ = p.AppendFormatFrom(nil, res.Number, "FR")
				_, _ = p.AppendNationalWithCarrier(nil, res.Number, "15")
			}
			p.Network("26201")
			p.Networks("DE")
			p.RegionOfMCC("262")
			p.Country("DE")
			p.Regions(49)
			for _, s := range []string{"112", "+49 112", "1121234", "116 000", "١١٢"} {
				_, _ = p.ShortNumber(s, "DE")
				_, _ = p.ShortNumber(s, "AR")
			}
		}
		if p, err := OpenBytes(b); err == nil {
			use(p)
		}
		if len(b) >= planfmt.HeaderSize {
			c := bytes.Clone(b)
			reseal(c, true)
			if p, err := OpenBytes(c); err == nil {
				use(p)
			} else if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			// The same bytes as a pack of the small plan's core.
			if p, err := OpenBytes(smallCore, WithPack(c)); err == nil {
				use(p)
			} else if !errors.Is(err, ErrFormat) {
				t.Fatalf("pack error %v does not wrap ErrFormat", err)
			}
		}
	})
}

// TestStrippedPlan: a plan without its optional sections classifies the
// same and answers the fields they feed as unknown.
func TestStrippedPlan(t *testing.T) {
	t.Parallel()
	full := plan(t)
	b, err := compile.Strip(data.Plan(), compile.Geocoding, compile.Timezones)
	require.NoError(t, err)
	require.Less(t, len(b), len(data.Plan())/2)
	p, err := OpenBytes(b)
	require.NoError(t, err)
	require.NoError(t, p.Verify())
	for _, s := range differentialCorpus()[:3000] {
		want, got := full.ClassifyString(s), p.ClassifyString(s)
		require.Equal(t, want.Valid, got.Valid, s)
		require.Equal(t, want.Type, got.Type, s)
		require.Equal(t, want.CountryCode, got.CountryCode, s)
		require.Equal(t, want.Network, got.Network, s)
		require.Equal(t, want.MCCMNC, got.MCCMNC, s)
		require.Nil(t, got.Timezones, s)
		if got.Valid {
			require.Equal(t, []string{got.CountryName}, got.Regions, "%s: the country's name stands for the geography", s)
		}
	}
	bare, err := compile.Strip(b, compile.Ranges, compile.Networks)
	require.NoError(t, err)
	p, err = OpenBytes(bare)
	require.NoError(t, err)
	res := p.ClassifyString("+49 151 23456789")
	require.True(t, res.Valid)
	require.Empty(t, res.Network)
	_, ok := p.Network("26201")
	require.False(t, ok)
	require.Empty(t, p.Networks("DE"))
	require.Empty(t, p.RegionOfMCC("262"))

	_, err = compile.Strip(b[:len(b)-1])
	require.Error(t, err)
	_, err = compile.Strip(b, compile.Section(planfmt.SecCodes))
	require.ErrorContains(t, err, "not optional")
}

// TestPacks: a plan cut down to its core takes the packs cut from the same
// whole plan, and then answers as the whole plan does.
func TestPacks(t *testing.T) {
	t.Parallel()
	full := plan(t)
	whole := data.Plan()
	core, err := compile.Strip(whole, compile.Networks, compile.Geocoding, compile.Timezones, compile.ShortNumbers)
	require.NoError(t, err)
	geo, err := compile.Pack(whole, compile.Geocoding)
	require.NoError(t, err)
	rest, err := compile.Pack(whole, compile.Timezones, compile.Networks, compile.ShortNumbers)
	require.NoError(t, err)

	bare, err := OpenBytes(core)
	require.NoError(t, err)
	require.Equal(t, full.Version(), bare.Version(), "the core names the data of the whole plan")
	require.Equal(t, "strings, calling codes, automata, national prefixes, dialling, network ranges, number formats", bare.Info().Sections)
	_, err = bare.ShortNumber("112", "DE")
	require.ErrorIs(t, err, ErrNoShortNumbers)

	p, err := OpenBytes(core, WithPack(geo), WithPack(rest))
	require.NoError(t, err)
	require.Equal(t, 2, p.Info().Packs)
	require.Equal(t, full.Info().Sections, p.Info().Sections)
	require.NoError(t, p.Verify())
	for _, s := range differentialCorpus()[:5000] {
		want, got := full.ClassifyString(s), p.ClassifyString(s)
		require.Equal(t, string(want.AppendJSON(nil)), string(got.AppendJSON(nil)), s)
		want.plan, got.plan = nil, nil // the plans differ, their answers must not
		require.Equal(t, want, got, s)
	}
	nw, ok := p.Network("26201")
	require.True(t, ok)
	require.Equal(t, "Telekom", nw.Name())
	for _, s := range []string{"112", "116000", "911", "+49 112", "0800"} {
		want, err := full.ShortNumber(s, "DE")
		require.NoError(t, err)
		got, err := p.ShortNumber(s, "DE")
		require.NoError(t, err)
		require.Equal(t, want, got, s)
	}

	// Refused: the same section twice, a plan given as a pack, a pack of
	// another generation, a damaged pack.
	_, err = OpenBytes(core, WithPack(geo), WithPack(geo))
	require.ErrorContains(t, err, "the plan already has a geocoding section (pack 2)")
	_, err = OpenBytes(core, WithPack(whole))
	require.ErrorContains(t, err, "not a pack")
	other, err := compile.Pack(smallPlan(t), compile.Geocoding)
	require.NoError(t, err)
	_, err = OpenBytes(core, WithPack(other))
	require.ErrorContains(t, err, "the pack is of libphonenumber v0.0.0-test")
	require.ErrorIs(t, err, ErrFormat)
	_, err = OpenBytes(core, WithPack(geo[:len(geo)-10]))
	require.ErrorIs(t, err, ErrFormat)
	_, err = compile.Pack(core, compile.Geocoding)
	require.ErrorContains(t, err, "the plan has no geocoding section")
}
