package deflate

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/numenhq/numen/data"
	"github.com/numenhq/numen/numbering/compile"
)

func gunzip(t testing.TB, z []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func stdGzip(b []byte) []byte {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// inputs are data of every kind a block can hold: empty, tiny, random
// (stored blocks), runs (the longest matches), text, and more than one
// block.
func inputs() map[string][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 200_000)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	small := make([]byte, 300_000) // few symbols: short codes, many matches
	for i := range small {
		small[i] = "ab\x00\x01"[r.IntN(4)]
	}
	text := bytes.Repeat([]byte("Numen reads numbers as people write them: +49 151 23456789, (201) 555-0123. "), 3000)
	return map[string][]byte{
		"empty":  nil,
		"one":    {42},
		"two":    {1, 1},
		"abc":    []byte("abcabcabcabc"),
		"zeros":  make([]byte, 1_000_000),
		"random": random,
		"small":  small,
		"text":   text,
		"mixed":  append(append(append([]byte(nil), text[:70_000]...), random[:70_000]...), make([]byte, 70_000)...),
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for name, b := range inputs() {
		z := Gzip(b)
		if got := gunzip(t, z); !bytes.Equal(got, b) {
			t.Errorf("%s: %d bytes decompress to %d other bytes", name, len(b), len(got))
		}
		t.Logf("%s: %d bytes, %d gzip (compress/gzip: %d)", name, len(b), len(z), len(stdGzip(b)))
	}
}

// TestSmallerThanCompressGzip: on the plan's core and packs, the files
// the browser package ships, the encoder beats compress/gzip's best level.
func TestSmallerThanCompressGzip(t *testing.T) {
	t.Parallel()
	core, err := compile.Strip(data.Plan(), compile.Ranges, compile.Networks, compile.Geocoding, compile.Timezones, compile.ShortNumbers)
	if err != nil {
		t.Fatal(err)
	}
	networks, err := compile.Pack(data.Plan(), compile.Ranges, compile.Networks)
	if err != nil {
		t.Fatal(err)
	}
	regions, err := compile.Pack(data.Plan(), compile.Geocoding)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"core": core, "networks": networks, "regions": regions} {
		z, std := Gzip(b), stdGzip(b)
		if !bytes.Equal(gunzip(t, z), b) {
			t.Fatalf("%s: does not round-trip", name)
		}
		if len(z) >= len(std) {
			t.Errorf("%s: %d bytes gzip, compress/gzip %d", name, len(z), len(std))
		}
		t.Logf("%s: %d bytes, %d gzip, compress/gzip %d (%+.1f%%)", name, len(b), len(z), len(std), 100*float64(len(z)-len(std))/float64(len(std)))
	}
}

func FuzzRoundTrip(f *testing.F) {
	for _, b := range [][]byte{nil, {0}, []byte("abcabcabc"), bytes.Repeat([]byte{7}, 300)} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got := gunzip(t, Gzip(b)); !bytes.Equal(got, b) {
			t.Fatalf("%x does not round-trip", b)
		}
	})
}
