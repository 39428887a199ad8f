// Package deflate writes gzip files (RFC 1952) of DEFLATE data (RFC 1951)
// at least as small as zlib's best level (gzip -9), for the browser
// package's .gz twins: written once at build time, read by every browser
// that takes no Brotli.
//
// Go's compress/flate at BestCompression leaves much on the table for the
// package's files: it never emits a match shorter than 4 bytes, and takes
// a 4-byte match only within 4,096 bytes, where zlib takes 3-byte matches
// within 4,096 bytes and longer ones anywhere in the 32 KiB window. On the
// plan's packs, tables of small numbers and short strings, that makes Go's
// output 11% (networks) to 33% (regions) larger than gzip -9's.
//
// It parses the input three ways and keeps the one whose symbols cost the
// fewest bits. First as zlib's "deflate_slow" strategy at level 9 does:
// hash chains of 3-byte prefixes searched up to 4,096 deep (a quarter of
// that when the match in hand is already 32 bytes long), lazy evaluation
// (a match is emitted only when the next position has no longer one).
// Then twice as zopfli does (optimal.go): every position's matches found
// (the nearest distance for each length, chains 1,024 deep), and the
// cheapest path through the input taken under the costs of the previous
// parse's symbols. The blocks are cut at multiples of 512 symbols where
// the output is smallest (dynamic programming over blocks of up to 32,768
// symbols, each costed exactly), each written with dynamic Huffman codes,
// the fixed codes or stored, whichever is smallest. On the package's files
// that is 3-10% smaller than gzip -9, within 1.5% of zopfli (pigz -11)
// except on the core plan (4%). It works on the whole input in memory.
package deflate

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
)

const (
	windowSize = 1 << 15
	windowMask = windowSize - 1
	minMatch   = 3
	maxMatch   = 258
	hashBits   = 16
	hashSize   = 1 << hashBits
	maxChain   = 4096 // zlib's level 9
	goodLength = 32   // a match this long searches a quarter of the chain
	niceLength = 258  // a match this long ends the search
	tooFar     = 4096 // a 3-byte match farther than this costs more than its literals
)

// Gzip returns b compressed as a gzip file, with no name and no time.
func Gzip(b []byte) []byte {
	out := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255} // deflate, no flags, no mtime, best compression, unknown OS
	out = Deflate(out, b)
	out = binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(b))
	return binary.LittleEndian.AppendUint32(out, uint32(len(b)))
}

// token is a literal (dist 0, lit the byte) or a match of length len at
// distance dist.
type token struct {
	len  uint16 // match length, 3 to 258; 0 for a literal
	dist uint16 // 1 to 32768, stored minus 1
	lit  byte
}

// Deflate appends the DEFLATE stream of b to dst.
func Deflate(dst, b []byte) []byte {
	var tokens []token
	parse(b, func(t token) { tokens = append(tokens, t) })
	// Shortest paths under the costs of the last parse's symbols, twice:
	// each is kept only when its symbols, in blocks of 16,384 as zlib
	// cuts them, come out smaller.
	if len(b) >= minMatch {
		m := findMatches(b)
		bits := roughBits(tokens)
		last := tokens
		for range 2 {
			last = optimalParse(b, m, costsOf(last))
			if n := roughBits(last); n < bits {
				tokens, bits = last, n
			}
		}
	}
	ends, _ := split(tokens)
	w := &bitWriter{out: dst}
	start := 0 // the input offset of the block's first token
	from := 0
	for i, to := range ends {
		n := 0
		for _, t := range tokens[from:to] {
			n += t.size()
		}
		writeBlock(w, tokens[from:to], b[start:start+n], i == len(ends)-1)
		start += n
		from = to
	}
	return w.flush()
}

// roughBits is the size in bits of tokens written in blocks of 16,384.
func roughBits(tokens []token) int64 {
	var bits int64
	for len(tokens) > 0 {
		var h hist
		for _, t := range tokens[:min(len(tokens), 1<<14)] {
			h.add(t)
		}
		bits += int64(blockBits(&h))
		tokens = tokens[min(len(tokens), 1<<14):]
	}
	return bits
}

func (t token) size() int {
	if t.len == 0 {
		return 1
	}
	return int(t.len)
}

// Blocks are cut at multiples of chunk tokens and hold at most maxChunks
// chunks: split finds the cuts that make the output smallest, each block
// costed exactly as writeBlock would write it.
const (
	chunk     = 512
	maxChunks = 64
)

// hist counts the symbols of a run of tokens, with their extra bits and
// the bytes they stand for.
type hist struct {
	lit        [286]int32
	dist       [30]int32
	extra, raw int64
}

func (h *hist) add(t token) {
	if t.len == 0 {
		h.lit[t.lit]++
		h.raw++
		return
	}
	lc := lengthCode[t.len]
	dc := distCode(t.dist)
	h.lit[257+int(lc)]++
	h.dist[dc]++
	h.extra += int64(lengthExtra[lc]) + int64(distExtra[dc])
	h.raw += int64(t.len)
}

// split returns the end (in tokens) of every block, the last being
// len(tokens), and the size of them all in bits: the cuts at chunk
// boundaries that minimise the total size, by dynamic programming over
// blocks of up to maxChunks chunks.
func split(tokens []token) ([]int, int64) {
	k := (len(tokens) + chunk - 1) / chunk
	if k <= 1 {
		var h hist
		for _, t := range tokens {
			h.add(t)
		}
		return []int{len(tokens)}, int64(blockBits(&h))
	}
	prefix := make([]hist, k+1)
	for c := range k {
		prefix[c+1] = prefix[c]
		for _, t := range tokens[c*chunk : min((c+1)*chunk, len(tokens))] {
			prefix[c+1].add(t)
		}
	}
	best := make([]int64, k+1)
	from := make([]int, k+1)
	var h hist
	for j := 1; j <= k; j++ {
		best[j] = -1
		for i := max(0, j-maxChunks); i < j; i++ {
			h.diff(&prefix[j], &prefix[i])
			c := best[i] + int64(blockBits(&h))
			if best[j] < 0 || c < best[j] {
				best[j], from[j] = c, i
			}
		}
	}
	var ends []int
	for j := k; j > 0; j = from[j] {
		ends = append(ends, min(j*chunk, len(tokens)))
	}
	slices.Reverse(ends)
	return ends, best[k]
}

func (h *hist) diff(a, b *hist) {
	for i := range h.lit {
		h.lit[i] = a.lit[i] - b.lit[i]
	}
	for i := range h.dist {
		h.dist[i] = a.dist[i] - b.dist[i]
	}
	h.extra, h.raw = a.extra-b.extra, a.raw-b.raw
}

// blockBits is the size in bits of the smallest of the three ways to
// write a block of these symbols.
func blockBits(h *hist) int {
	var litFreq [286]int
	var distFreq [30]int
	for i, f := range h.lit {
		litFreq[i] = int(f)
	}
	for i, f := range h.dist {
		distFreq[i] = int(f)
	}
	litFreq[256] = 1
	d := newDynamic(litFreq[:], distFreq[:])
	fixed := 3 + int(h.extra)
	for s, f := range litFreq {
		fixed += f * int(fixedLitLens[s])
	}
	for _, f := range distFreq {
		fixed += f * 5
	}
	bits := min(d.bits+int(h.extra), fixed)
	if h.raw <= 65535 {
		bits = min(bits, 3+7+32+8*int(h.raw))
	}
	return bits
}

// parse runs zlib's lazy matching over b, emitting the tokens in order.
func parse(b []byte, emit func(token)) {
	n := len(b)
	head := make([]int32, hashSize) // position+1 of the last string with a hash; 0 for none
	prev := make([]int32, windowSize)
	insert := func(p int) int {
		if p+minMatch > n {
			return -1
		}
		h := hash3(b[p:])
		cand := int(head[h]) - 1
		prev[p&windowMask] = head[h]
		head[h] = int32(p + 1)
		return cand
	}
	// longest returns the longest match at p better than prevLen, and
	// its position, searching the chain from cand.
	longest := func(p, cand, prevLen int) (int, int) {
		chain := maxChain
		if prevLen >= goodLength {
			chain >>= 2
		}
		bestLen, bestPos := prevLen, -1
		limit := p - windowSize
		maxLen := min(maxMatch, n-p)
		for cand > limit && cand >= 0 && chain > 0 {
			chain--
			if bestLen < maxLen && b[cand+bestLen] == b[p+bestLen] && b[cand] == b[p] {
				l := 0
				for l < maxLen && b[cand+l] == b[p+l] {
					l++
				}
				if l > bestLen {
					bestLen, bestPos = l, cand
					if l >= niceLength || l >= maxLen {
						break
					}
				}
			}
			cand = int(prev[cand&windowMask]) - 1
		}
		return bestLen, bestPos
	}

	matchLen, matchPos := minMatch-1, 0
	available := false // a literal at p-1 waits for the lazy decision
	for p := 0; p < n; {
		cand := insert(p)
		prevLen, prevPos := matchLen, matchPos
		matchLen = minMatch - 1
		if cand >= 0 && prevLen < maxMatch && p-cand <= windowSize {
			if l, at := longest(p, cand, prevLen); at >= 0 {
				matchLen, matchPos = l, at
				if matchLen == minMatch && p-matchPos > tooFar {
					matchLen = minMatch - 1
				}
			}
		}
		if prevLen >= minMatch && matchLen <= prevLen {
			// The match found at p-1 is at least as long: take it.
			emit(token{len: uint16(prevLen), dist: uint16(p - 1 - prevPos - 1)})
			end := p - 1 + prevLen
			for q := p + 1; q < end; q++ {
				insert(q)
			}
			p = end
			available = false
			matchLen = minMatch - 1
			continue
		}
		if available {
			emit(token{lit: b[p-1]})
		}
		available = true
		p++
	}
	if available {
		emit(token{lit: b[n-1]})
	}
}

func hash3(b []byte) uint32 {
	v := uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2])
	return (v * 0x9E3779B1) >> (32 - hashBits)
}

// Length and distance codes (RFC 1951, 3.2.5).
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	lengthCode  [maxMatch + 1]uint8 // length -> code-257
	// clOrder is the order of the code length code lengths in a header.
	clOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

func init() {
	for c := range 29 {
		end := maxMatch + 1
		if c < 28 {
			end = int(lengthBase[c+1])
		}
		for l := int(lengthBase[c]); l < end; l++ {
			lengthCode[l] = uint8(c)
		}
	}
	lengthCode[maxMatch] = 28
}

// distCode returns the code of a distance minus 1.
func distCode(d uint16) int {
	dist := int(d) + 1
	c := 0
	for c < 29 && int(distBase[c+1]) <= dist {
		c++
	}
	return c
}

// dynamic is the header of a block with dynamic Huffman codes.
type dynamic struct {
	litLens, distLens, clLens []uint8
	nlit, ndist, nclen        int
	rle                       []run
	bits                      int // the header's and the symbols' bits, without extra bits
}

func newDynamic(litFreq, distFreq []int) *dynamic {
	d := &dynamic{litLens: codeLengths(litFreq, 15), distLens: codeLengths(distFreq, 15), nlit: 286, ndist: 30, nclen: 19}
	for d.nlit > 257 && d.litLens[d.nlit-1] == 0 {
		d.nlit--
	}
	for d.ndist > 1 && d.distLens[d.ndist-1] == 0 {
		d.ndist--
	}
	// The code length codes: the lengths of both codes, run-length coded.
	all := append(append([]uint8(nil), d.litLens[:d.nlit]...), d.distLens[:d.ndist]...)
	d.rle = runLengths(all)
	var clFreq [19]int
	for _, r := range d.rle {
		clFreq[r.sym]++
	}
	d.clLens = codeLengths(clFreq[:], 7)
	for d.nclen > 4 && d.clLens[clOrder[d.nclen-1]] == 0 {
		d.nclen--
	}
	d.bits = 3 + 5 + 5 + 4 + 3*d.nclen
	for _, r := range d.rle {
		d.bits += int(d.clLens[r.sym]) + int(r.extraBits)
	}
	for s, f := range litFreq {
		d.bits += f * int(d.litLens[s])
	}
	for s, f := range distFreq {
		d.bits += f * int(d.distLens[s])
	}
	return d
}

// writeBlock writes the tokens of raw as one block: dynamic, fixed or
// stored, whichever is smallest.
func writeBlock(w *bitWriter, tokens []token, raw []byte, last bool) {
	var litFreq [286]int
	var distFreq [30]int
	dcodes := make([]uint8, len(tokens))
	extra := 0
	for i, t := range tokens {
		if t.len == 0 {
			litFreq[t.lit]++
			continue
		}
		lc := lengthCode[t.len]
		litFreq[257+int(lc)]++
		dc := distCode(t.dist)
		dcodes[i] = uint8(dc)
		distFreq[dc]++
		extra += int(lengthExtra[lc]) + int(distExtra[dc])
	}
	litFreq[256] = 1
	d := newDynamic(litFreq[:], distFreq[:])
	dyn := d.bits + extra
	fixed := 3 + extra
	for s, f := range litFreq {
		fixed += f * int(fixedLitLens[s])
	}
	for _, f := range distFreq {
		fixed += f * 5
	}
	stored := -1
	if len(raw) <= 65535 {
		stored = 3 + 7 + 32 + 8*len(raw) // at worst 7 bits of padding
	}

	bfinal := uint64(0)
	if last {
		bfinal = 1
	}
	switch {
	case stored >= 0 && stored <= dyn && stored <= fixed:
		w.bits(bfinal, 1)
		w.bits(0, 2)
		w.align()
		w.bits(uint64(len(raw)), 16)
		w.bits(uint64(^uint16(len(raw))), 16)
		w.bytes(raw)
		return
	case fixed <= dyn:
		w.bits(bfinal|1<<1, 3)
		writeTokens(w, tokens, dcodes, &fixedLit, &fixedDist)
		return
	}
	w.bits(bfinal|2<<1, 3)
	w.bits(uint64(d.nlit-257), 5)
	w.bits(uint64(d.ndist-1), 5)
	w.bits(uint64(d.nclen-4), 4)
	for _, s := range clOrder[:d.nclen] {
		w.bits(uint64(d.clLens[s]), 3)
	}
	clCodes := canonical(d.clLens)
	for _, r := range d.rle {
		w.bits(uint64(clCodes[r.sym]), uint(d.clLens[r.sym]))
		if r.extraBits > 0 {
			w.bits(uint64(r.extra), uint(r.extraBits))
		}
	}
	lit := huffman{lens: d.litLens, codes: canonical(d.litLens)}
	dist := huffman{lens: d.distLens, codes: canonical(d.distLens)}
	writeTokens(w, tokens, dcodes, &lit, &dist)
}

type huffman struct {
	lens  []uint8
	codes []uint16 // bit-reversed, ready to write LSB first
}

// The fixed codes (RFC 1951, 3.2.6): their canonical codes come from all
// 288 literal/length lengths, of which 286 are used.
var (
	fixedLitLens = fixedLengths()
	fixedLit     = huffman{lens: fixedLitLens, codes: canonical(fixedLitLens)}
	fixedDist    = huffman{lens: fixedDistLens(), codes: canonical(fixedDistLens())}
)

func fixedLengths() []uint8 {
	l := make([]uint8, 288)
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	return l
}

func fixedDistLens() []uint8 {
	l := make([]uint8, 30)
	for i := range l {
		l[i] = 5
	}
	return l
}

func writeTokens(w *bitWriter, tokens []token, dcodes []uint8, lit, dist *huffman) {
	for i, t := range tokens {
		if t.len == 0 {
			w.bits(uint64(lit.codes[t.lit]), uint(lit.lens[t.lit]))
			continue
		}
		lc := lengthCode[t.len]
		w.bits(uint64(lit.codes[257+int(lc)]), uint(lit.lens[257+int(lc)]))
		if e := lengthExtra[lc]; e > 0 {
			w.bits(uint64(t.len-lengthBase[lc]), uint(e))
		}
		dc := dcodes[i]
		w.bits(uint64(dist.codes[dc]), uint(dist.lens[dc]))
		if e := distExtra[dc]; e > 0 {
			w.bits(uint64(t.dist+1-distBase[dc]), uint(e))
		}
	}
	w.bits(uint64(lit.codes[256]), uint(lit.lens[256]))
}

// run is one symbol of the code length code, with its extra bits.
type run struct {
	sym, extra, extraBits uint8
}

// runLengths codes a sequence of code lengths with the code length
// alphabet: 0-15 themselves, 16 (repeat the previous 3-6 times), 17 (3-10
// zeros), 18 (11-138 zeros), as zlib's send_tree does.
func runLengths(lens []uint8) []run {
	var out []run
	for i := 0; i < len(lens); {
		l := lens[i]
		j := i + 1
		for j < len(lens) && lens[j] == l {
			j++
		}
		count := j - i
		if l == 0 {
			for count >= 11 {
				c := min(count, 138)
				out = append(out, run{18, uint8(c - 11), 7})
				count -= c
			}
			if count >= 3 {
				out = append(out, run{17, uint8(count - 3), 3})
				count = 0
			}
		} else if count >= 4 {
			out = append(out, run{sym: l})
			count--
			for count >= 3 {
				c := min(count, 6)
				out = append(out, run{16, uint8(c - 3), 2})
				count -= c
			}
		}
		for ; count > 0; count-- {
			out = append(out, run{sym: l})
		}
		i = j
	}
	return out
}

// codeLengths returns Huffman code lengths of at most maxBits for the
// frequencies: the optimal lengths, then, when some are too long, the
// longest shortened and others lengthened until the lengths fill the code
// space exactly (as miniz does). At least two symbols get a code, as
// zlib's decoders want.
func codeLengths(freq []int, maxBits int) []uint8 {
	type node struct {
		freq        int
		left, right int // children, -1 for a leaf
		sym         int
	}
	var nodes []node
	for s, f := range freq {
		if f > 0 {
			nodes = append(nodes, node{freq: f, left: -1, right: -1, sym: s})
		}
	}
	for s := 0; len(nodes) < 2; s++ {
		if freq[s] == 0 {
			nodes = append(nodes, node{freq: 1, left: -1, right: -1, sym: s})
		}
	}
	leaves := len(nodes)
	// Leaves sorted by frequency; internal nodes come in order of
	// frequency too (the two-queue method).
	slices.SortFunc(nodes, func(a, b node) int {
		if a.freq != b.freq {
			return a.freq - b.freq
		}
		return a.sym - b.sym
	})
	li, ii := 0, leaves
	pick := func() int {
		if li < leaves && (ii >= len(nodes) || nodes[li].freq <= nodes[ii].freq) {
			li++
			return li - 1
		}
		ii++
		return ii - 1
	}
	for len(nodes)-leaves < leaves-1 {
		a := pick()
		b := pick()
		nodes = append(nodes, node{freq: nodes[a].freq + nodes[b].freq, left: a, right: b})
	}
	depth := make([]int, len(nodes))
	for i := len(nodes) - 1; i >= leaves; i-- {
		depth[nodes[i].left] = depth[i] + 1
		depth[nodes[i].right] = depth[i] + 1
	}
	// Count the leaves per depth, then fit them into maxBits.
	count := make([]int, max(maxBits, 64)+1)
	for i := range leaves {
		count[min(depth[i], maxBits)]++
	}
	total := 0
	for d := 1; d <= maxBits; d++ {
		total += count[d] << (maxBits - d)
	}
	for total > 1<<maxBits {
		count[maxBits]--
		for d := maxBits - 1; d > 0; d-- {
			if count[d] > 0 {
				count[d]--
				count[d+1] += 2
				break
			}
		}
		total--
	}
	// The most frequent symbols get the shortest codes: leaves are sorted
	// by frequency, ascending.
	lens := make([]uint8, len(freq))
	i := leaves - 1
	for d := 1; d <= maxBits; d++ {
		for c := count[d]; c > 0; c-- {
			lens[nodes[i].sym] = uint8(d)
			i--
		}
	}
	return lens
}

// canonical returns the canonical codes of code lengths (RFC 1951,
// 3.2.2), bit-reversed for writing LSB first.
func canonical(lens []uint8) []uint16 {
	var count [16]int
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	var next [16]int
	code := 0
	for bits := 1; bits < 16; bits++ {
		code = (code + count[bits-1]) << 1
		next[bits] = code
	}
	codes := make([]uint16, len(lens))
	for s, l := range lens {
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		var r uint16
		for range l {
			r = r<<1 | uint16(c&1)
			c >>= 1
		}
		codes[s] = r
	}
	return codes
}

// bitWriter writes bits LSB first.
type bitWriter struct {
	out  []byte
	acc  uint64
	nacc uint
}

func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

func (w *bitWriter) align() {
	if w.nacc > 0 {
		w.bits(0, 8-w.nacc)
	}
}

func (w *bitWriter) bytes(b []byte) {
	w.align()
	w.out = append(w.out, b...)
}

func (w *bitWriter) flush() []byte {
	w.align()
	return w.out
}
