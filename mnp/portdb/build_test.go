package portdb

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		csv     string
		regions []string
		want    string // the whole error message
	}{
		{name: "short mccmnc", csv: "4915112345678,2620\n", want: `test.csv:1: mccmnc "2620" must be 5 or 6 digits`},
		{name: "long mccmnc", csv: "4915112345678,2620123\n", want: `test.csv:1: mccmnc "2620123" must be 5 or 6 digits`},
		{name: "letters in mccmnc", csv: "4915112345678,2620x\n", want: `test.csv:1: mccmnc "2620x" must be 5 or 6 digits`},
		{name: "line numbers count comments, blanks and the header",
			csv:  "number_or_range,mccmnc\n# comment\n\n4915112345678,26201\n4915112345679,2620\n",
			want: `test.csv:5: mccmnc "2620" must be 5 or 6 digits`},
		{name: "one field", csv: "4915112345678\n", want: "test.csv:1: want 2 or 3 fields (number_or_range,mccmnc[,network name]), got 1"},
		{name: "four fields", csv: "4915112345678,26201,a,b\n", want: "test.csv:1: want 2 or 3 fields (number_or_range,mccmnc[,network name]), got 4"},
		{name: "letters in number", csv: "+49151abc,26201\n", want: `test.csv:1: number "+49151abc" must be digits after an optional "+"`},
		{name: "double plus", csv: "++4915112345678,26201\n", want: `test.csv:1: number "++4915112345678" must be digits after an optional "+"`},
		{name: "sixteen digits", csv: "4915112345678901,26201\n", want: `test.csv:1: number "4915112345678901" has 16 digits, E.164 allows at most 15`},
		{name: "empty number", csv: ",26201\n", want: `test.csv:1: number "" has no digits`},
		{name: "only calling code", csv: "+49,26201\n", want: `test.csv:1: number "+49" is only the calling code +49`},
		{name: "no calling code", csv: "+2815112345678,26201\n", want: `test.csv:1: "+2815112345678" does not start with a country calling code`},
		{name: "prefix shorter than calling code", csv: "4*,26201\n", want: `test.csv:1: "4*" does not start with a country calling code`},
		{name: "empty prefix", csv: "+*,26201\n", want: `test.csv:1: prefix "+*" has no digits`},
		{name: "star inside", csv: "49*1,26201\n", want: `test.csv:1: number "49*1" must be digits after an optional "+"`},
		{name: "not covered", csv: "4915112345678,26201\n33612345678,20801\n", regions: []string{"DE", "AT"},
			want: `test.csv:2: "33612345678" is in calling code +33, which the covered regions (AT, DE) do not have`},
		{name: "conflicting names", csv: "4915112345678,26201,Telekom\n4915112345679,26201\n4915112345670,26201,T-Mobile\n",
			want: `test.csv:3: mccmnc 26201 is named "T-Mobile" here but "Telekom" on line 1`},
		{name: "conflicting numbers", csv: "4915112345678,26201\n4915112345679,26202\n4915112345678,26201\n+4915112345678,26203\n",
			want: "test.csv:4: number +4915112345678 maps to 26203 here but to 26201 on line 1"},
		{name: "conflicting prefixes", csv: "4915112*,26202\n4915112345678,26201\n+4915112*,26201\n",
			want: "test.csv:3: prefix +4915112* maps to 26201 here but to 26202 on line 1"},
		{name: "span overlapping a prefix", csv: "491609*,26202\n4916090000000-4916199999999,26203\n",
			want: "test.csv:2: prefix +491609* maps to 26203 here but to 26202 on line 1"},
		{name: "span of unequal ends", csv: "491609000000-4916099999999,26203\n",
			want: `test.csv:1: range "491609000000-4916099999999": the ends have 12 and 13 digits; a range is of numbers of one length`},
		{name: "span backwards", csv: "4916099999999-4916090000000,26203\n", want: `test.csv:1: range "4916099999999-4916090000000" ends before it starts`},
		{name: "span bad end", csv: "4916090000000-x,26203\n", want: `test.csv:1: range end "4916090000000-x" must be digits after an optional "+"`},
		{name: "bad quoting", csv: "\"4915112345678,26201\n", want: `test.csv:1: extraneous or missing " in quoted-field`},
		{name: "long name", csv: "4915112345678,26201," + strings.Repeat("x", 256) + "\n", want: "test.csv:1: network name must be UTF-8 of at most 255 bytes"},
		{name: "header only on the first line", csv: "4915112345678,26201\nnumber_or_range,mccmnc\n",
			want: `test.csv:2: number "number_or_range" must be digits after an optional "+"`},
		{name: "shared calling code needs regions", csv: "4915112345678,26201\n12125550100,310260\n",
			want: "test.csv:2: calling code +1 is shared by US, AG, AI, AS, BB, BM, BS, CA, DM, DO, GD, GU, JM, KN, KY, LC, MP, MS, PR, SX, TC, TT, VC, VG, VI: name the covered regions"},
		{name: "non-geographic calling code", csv: "80012345678,26201\n", want: "test.csv:1: calling code +800 is not a country's"},
		{name: "line too long", csv: "4915112345678,26201\n" + strings.Repeat("9", 70000) + "\n", want: "test.csv:2: line longer than 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := Build(&buf, strings.NewReader(tt.csv), BuildOptions{Plan: testPlan(t), Regions: tt.regions, Name: "test.csv"})
			require.EqualError(t, err, tt.want)
			var ie *InputError
			require.ErrorAs(t, err, &ie)
			require.Equal(t, "test.csv", ie.Name)
		})
	}
}

func TestBuildOptionErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		opts BuildOptions
		want string
	}{
		{BuildOptions{Regions: []string{"XX"}}, `portdb: unknown region "XX"`},
		{BuildOptions{Regions: []string{"DEU"}}, `portdb: unknown region "DEU"`},
		{BuildOptions{Regions: []string{"001"}}, `portdb: unknown region "001"`},
		{BuildOptions{Source: strings.Repeat("s", 4097)}, "portdb: source description must be UTF-8 of at most 4096 bytes"},
	} {
		tt.opts.Plan = testPlan(t)
		_, err := NewBuilder(tt.opts)
		require.EqualError(t, err, tt.want)
	}
}

func TestBuildReadError(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	boom := errors.New("boom")
	_, err := Build(&buf, iotest.ErrReader(boom), BuildOptions{Plan: testPlan(t), Regions: []string{"DE"}})
	require.ErrorIs(t, err, boom)
}

func TestBuildStats(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	stats, err := Build(&buf, strings.NewReader(readSample(t)), BuildOptions{Plan: testPlan(t), Regions: []string{"DE", "AT"}})
	require.NoError(t, err)
	require.Equal(t, BuildStats{Rows: 8, Numbers: 4, Ranges: 5, Networks: 5, Regions: []string{"AT", "DE"}, Bytes: int64(buf.Len())}, stats)
}

func TestBuildInfersRegions(t *testing.T) {
	t.Parallel()
	db := openCSV(t, readSample(t))
	require.Equal(t, []string{"AT", "DE"}, db.Regions())
}

func TestBuildWithoutRows(t *testing.T) {
	t.Parallel()
	db := openCSV(t, "", "NL")
	require.Equal(t, []string{"NL"}, db.Regions())
	db = openCSV(t, "")
	require.Empty(t, db.Regions())
}

// The file depends only on the set of rows and the options: not on the
// order of the rows, their repetition or their spelling.
func TestBuildReproducible(t *testing.T) {
	t.Parallel()
	rows := strings.Split(strings.TrimSpace(readSample(t)), "\n")
	want := buildBytes(t, strings.Join(rows, "\n"), "DE", "AT")
	require.Equal(t, want, buildBytes(t, strings.Join(rows, "\n"), "DE", "AT"), "same input, same bytes")

	data := slices.DeleteFunc(slices.Clone(rows), func(s string) bool { return s == "" || s[0] == '#' || strings.HasPrefix(s, "number_or_range") })
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 10 {
		rnd.Shuffle(len(data), func(i, j int) { data[i], data[j] = data[j], data[i] })
		again := append(slices.Clone(data), data[0], "  "+data[1]+"  ")
		require.Equal(t, want, buildBytes(t, strings.Join(again, "\r\n"), "AT", "de"))
	}
}

func TestBuilderAdd(t *testing.T) {
	t.Parallel()
	b, err := NewBuilder(BuildOptions{Plan: testPlan(t), Regions: []string{"DE"}, Name: "api"})
	require.NoError(t, err)
	require.NoError(t, b.Add("+4915112345678", "26203", "Telefónica"))
	require.NoError(t, b.Add(" 4915112* ", "26202", ""))
	require.EqualError(t, b.Add("4915112345678", "262", ""), `api:3: mccmnc "262" must be 5 or 6 digits`)
	var buf bytes.Buffer
	n, err := b.WriteTo(&buf)
	require.NoError(t, err)
	require.Equal(t, int64(buf.Len()), n)
	db, err := OpenBytes(buf.Bytes())
	require.NoError(t, err)
	require.NoError(t, db.Verify())
	require.Equal(t, "26202", db.Lookup("4915112000000").MCCMNC())
	require.Equal(t, "Telefónica", db.Lookup("4915112345678").Network())
}

// A Builder can write, take more rows and write again.
func TestBuilderWriteTwice(t *testing.T) {
	t.Parallel()
	b, err := NewBuilder(BuildOptions{Plan: testPlan(t), Regions: []string{"DE"}, Created: fixedTime})
	require.NoError(t, err)
	require.NoError(t, b.Add("4915112345678", "26203", "C"))
	require.NoError(t, b.Add("4915112345679", "26201", "A"))
	var first, second bytes.Buffer
	_, err = b.WriteTo(&first)
	require.NoError(t, err)
	_, err = b.WriteTo(&second)
	require.NoError(t, err)
	require.Equal(t, first.Bytes(), second.Bytes())

	require.NoError(t, b.Add("4915112345670", "26202", "B"))
	second.Reset()
	_, err = b.WriteTo(&second)
	require.NoError(t, err)
	db, err := OpenBytes(second.Bytes())
	require.NoError(t, err)
	require.NoError(t, db.Verify())
	for digits, want := range map[string]string{"4915112345678": "C", "4915112345679": "A", "4915112345670": "B"} {
		require.Equal(t, want, db.Lookup(digits).Network(), digits)
	}

	// Conflicts show when writing.
	require.NoError(t, b.Add("4915112345678", "26201", ""))
	_, err = b.WriteTo(&second)
	require.EqualError(t, err, "input:4: number +4915112345678 maps to 26201 here but to 26203 on line 1")
}

func TestPrefixCover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lo, hi string
		want   []string
	}{
		{"491511200000", "491511299999", []string{"4915112"}},
		{"491511200000", "491511200000", []string{"491511200000"}},
		{"491511200005", "491511200007", []string{"491511200005", "491511200006", "491511200007"}},
		{"491511200000", "491511399999", []string{"4915112", "4915113"}},
		{"491511250000", "491511349999", []string{"49151125", "49151126", "49151127", "49151128", "49151129", "49151130", "49151131", "49151132", "49151133", "49151134"}},
		{"4915112000", "4915112998", []string{"49151120", "49151121", "49151122", "49151123", "49151124", "49151125", "49151126", "49151127", "49151128",
			"491511290", "491511291", "491511292", "491511293", "491511294", "491511295", "491511296", "491511297", "491511298",
			"4915112990", "4915112991", "4915112992", "4915112993", "4915112994", "4915112995", "4915112996", "4915112997", "4915112998"}},
		{"10", "99", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}},
		{"999999999999999", "999999999999999", []string{"999999999999999"}},
		{"100000000000000", "999999999999999", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, prefixCover(tt.lo, tt.hi), "%s-%s", tt.lo, tt.hi)
	}
}

// prefixCover against the definition: a number of the span's length is
// covered by exactly one prefix when it is in the span, by none when not.
func TestPrefixCoverExact(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 30 {
		a, b := 1000+rnd.IntN(9000), 1000+rnd.IntN(9000)
		lo, hi := min(a, b), max(a, b)
		ps := prefixCover(itoa(lo), itoa(hi))
		for x := 1000; x <= 9999; x++ {
			n, xs := 0, itoa(x)
			for _, p := range ps {
				if strings.HasPrefix(xs, p) {
					n++
				}
			}
			want := 0
			if lo <= x && x <= hi {
				want = 1
			}
			require.Equal(t, want, n, "%d in %d-%d by %v", x, lo, hi, ps)
		}
		// Fewest: no ten siblings that one shorter prefix would replace.
		for _, p := range ps {
			if len(p) > 1 && p[len(p)-1] == '0' {
				require.False(t, slices.Contains(ps, p[:len(p)-1]+"9"), "%v", ps)
			}
		}
	}
}

func itoa(x int) string { return strconv.Itoa(x) }
