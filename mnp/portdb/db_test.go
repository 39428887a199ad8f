package portdb

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	db := openCSV(t, readSample(t), "DE", "AT")
	tests := []struct {
		name    string
		digits  string
		found   bool
		mccmnc  string
		network string
		exact   bool
		prefix  string
	}{
		{name: "exact beats the ranges it is in", digits: "4915112345678", found: true, mccmnc: "26203", network: "Telefónica Germany", exact: true, prefix: "4915112345678"},
		{name: "plus sign allowed", digits: "+4915112345678", found: true, mccmnc: "26203", network: "Telefónica Germany", exact: true, prefix: "4915112345678"},
		{name: "longer range beats shorter", digits: "4915112345679", found: true, mccmnc: "26202", network: "Vodafone", prefix: "4915112"},
		{name: "shorter range", digits: "4915113000000", found: true, mccmnc: "26201", network: "Telekom", prefix: "491511"},
		{name: "range prefix itself", digits: "491511", found: true, mccmnc: "26201", network: "Telekom", prefix: "491511"},
		{name: "shorter than every range", digits: "49151", found: false},
		{name: "exact without a name", digits: "4917612345678", found: true, mccmnc: "26201", network: "Telekom", exact: true, prefix: "4917612345678"},
		{name: "name from another row", digits: "4917698765432", found: true, mccmnc: "26202", network: "Vodafone", exact: true, prefix: "4917698765432"},
		{name: "span start", digits: "4916090000000", found: true, mccmnc: "26203", network: "Telefónica Germany", prefix: "491609"},
		{name: "span end", digits: "4916199999999", found: true, mccmnc: "26203", network: "Telefónica Germany", prefix: "49161"},
		{name: "outside span", digits: "4916080000000", found: false},
		{name: "quoted row", digits: "436641234567", found: true, mccmnc: "23201", network: "A1 Telekom Austria", exact: true, prefix: "436641234567"},
		{name: "Austrian range", digits: "436649999999", found: true, mccmnc: "23203", network: "Magenta", prefix: "43664"},
		{name: "not ported", digits: "4930123456", found: false},
		{name: "other country", digits: "33612345678", found: false},
		{name: "empty", digits: "", found: false},
		{name: "lone plus", digits: "+", found: false},
		{name: "letters", digits: "49151abc", found: false},
		{name: "leading zero", digits: "04915112345678", found: false},
		{name: "sixteen digits", digits: "4915112345678000", found: false},
		{name: "space", digits: "49 15112345678", found: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := db.Lookup(tt.digits)
			require.Equal(t, tt.found, r.Found())
			require.Equal(t, tt.mccmnc, r.MCCMNC())
			require.Equal(t, tt.network, r.Network())
			require.Equal(t, tt.exact, r.Exact())
			require.Equal(t, tt.prefix, r.Prefix())
			require.NoError(t, r.Err())
		})
	}
}

func TestZeroResult(t *testing.T) {
	t.Parallel()
	var r Result
	require.False(t, r.Found())
	require.False(t, r.Exact())
	require.Empty(t, r.MCCMNC())
	require.Empty(t, r.Network())
	require.Empty(t, r.Prefix())
	require.NoError(t, r.Err())
}

func TestCoversByRegion(t *testing.T) {
	t.Parallel()
	db := openCSV(t, "+12125550100,310260,T-Mobile US\n", "US")
	require.True(t, db.Covers("US"))
	require.False(t, db.Covers("CA"), "CA shares +1 with US but is not covered")
	require.False(t, db.Covers("us"))
	require.False(t, db.Covers(""))
	require.True(t, db.CoversCallingCode(1))
	require.False(t, db.CoversCallingCode(49))
	require.Equal(t, []string{"US"}, db.Regions())
	// A Canadian number is in a covered calling code: the builder accepts
	// it, and the caller decides by the region numbering gives it.
	db = openCSV(t, "+14165550100,302720\n", "US")
	require.True(t, db.Lookup("14165550100").Found())
}

func TestInfo(t *testing.T) {
	t.Parallel()
	b := buildBytes(t, readSample(t), "at", "DE", "DE")
	db, err := OpenBytes(b)
	require.NoError(t, err)
	info := db.Info()
	require.Equal(t, Info{
		Version:  1,
		Created:  fixedTime,
		Source:   "test",
		Regions:  []string{"AT", "DE"},
		Numbers:  4,
		Ranges:   5,
		Networks: 5,
		Size:     int64(len(b)),
	}, info)
	require.Equal(t, []Network{
		{MCCMNC: "23201", Name: "A1 Telekom Austria"},
		{MCCMNC: "23203", Name: "Magenta"},
		{MCCMNC: "26201", Name: "Telekom"},
		{MCCMNC: "26202", Name: "Vodafone"},
		{MCCMNC: "26203", Name: "Telefónica Germany"},
	}, db.Networks())
}

func TestOpenFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ported.db")
	require.NoError(t, os.WriteFile(path, buildBytes(t, readSample(t), "DE", "AT"), 0o644))
	for _, opts := range [][]Option{nil, {WithoutMmap()}, {WithVerify()}, {WithoutMmap(), WithVerify()}} {
		db, err := Open(path, opts...)
		require.NoError(t, err)
		require.NoError(t, db.Verify())
		r := db.Lookup("4915112345678")
		require.Equal(t, "26203", r.MCCMNC())
		require.NoError(t, db.Close())
		// Results hold no pointer into the file: still readable.
		require.Equal(t, "Telefónica Germany", r.Network())
		require.Equal(t, "4915112345678", r.Prefix())
		// A closed database finds nothing, and closes once.
		require.False(t, db.Lookup("4915112345678").Found())
		require.NoError(t, db.Close())
		require.Error(t, db.Verify())
		require.True(t, db.Covers("DE"), "the header stays")
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := Open(filepath.Join(dir, "missing.db"))
	require.ErrorIs(t, err, os.ErrNotExist)

	empty := filepath.Join(dir, "empty.db")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	_, err = Open(empty)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "empty.db")
	require.ErrorContains(t, err, "truncated header")

	text := filepath.Join(dir, "text.db")
	require.NoError(t, os.WriteFile(text, []byte("number_or_range,mccmnc\n4915112345678,26201\n"), 0o644))
	_, err = Open(text)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "bad magic")

	short := filepath.Join(dir, "short.db")
	b := buildBytes(t, readSample(t), "DE", "AT")
	require.NoError(t, os.WriteFile(short, b[:len(b)-8], 0o644))
	_, err = Open(short)
	var fe *FormatError
	require.ErrorAs(t, err, &fe)
	require.ErrorContains(t, err, "truncated")
}

func TestEmptyDatabase(t *testing.T) {
	t.Parallel()
	db := openCSV(t, "number_or_range,mccmnc\n", "DE")
	require.False(t, db.Lookup("4915112345678").Found())
	require.Equal(t, 0, db.Info().Numbers)
	require.True(t, db.Covers("DE"))
}

func TestOpenBytesUnaligned(t *testing.T) {
	t.Parallel()
	b := buildBytes(t, readSample(t), "DE", "AT")
	shifted := make([]byte, len(b)+1)
	copy(shifted[1:], b)
	db, err := OpenBytes(shifted[1:])
	require.NoError(t, err)
	require.NoError(t, db.Verify())
	require.Equal(t, "26202", db.Lookup("4915112000000").MCCMNC())
}

func TestCreatedNotRecorded(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "")
	var buf bytes.Buffer
	_, err := Build(&buf, strings.NewReader("4915112345678,26201\n"), BuildOptions{Plan: testPlan(t), Regions: []string{"DE"}})
	require.NoError(t, err)
	db, err := OpenBytes(buf.Bytes())
	require.NoError(t, err)
	require.True(t, db.Info().Created.IsZero())

	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	buf.Reset()
	_, err = Build(&buf, strings.NewReader("4915112345678,26201\n"), BuildOptions{Plan: testPlan(t), Regions: []string{"DE"}})
	require.NoError(t, err)
	db, err = OpenBytes(buf.Bytes())
	require.NoError(t, err)
	require.Equal(t, time.Unix(1700000000, 0).UTC(), db.Info().Created)

	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	_, err = Build(&buf, strings.NewReader("4915112345678,26201\n"), BuildOptions{Plan: testPlan(t), Regions: []string{"DE"}})
	require.ErrorContains(t, err, `SOURCE_DATE_EPOCH "yesterday"`)
}
