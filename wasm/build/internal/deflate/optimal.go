package deflate

import "math"

// The optimal parse: where lazy matching takes the longest match it sees,
// this chooses, over the whole input, the literals and matches whose codes
// cost the fewest bits in all (a shortest path through the positions),
// under the costs of an earlier parse's symbols, as zopfli does.

// optChain bounds the hash chain searched at every position (the lazy
// parse searches 4,096 deep, but only where it looks for a match).
const optChain = 1024

// matches lists, for every position, the matches worth taking there: pairs
// of a length and the nearest distance with a match that long, lengths
// rising (a match at distance d is one of every shorter length too).
type matches struct {
	start []int32  // position -> its first pair; start[n] ends the last
	end   []uint16 // a pair's longest length
	dist  []uint16 // a pair's distance minus 1
}

// findMatches searches every position's hash chain.
func findMatches(b []byte) *matches {
	n := len(b)
	m := &matches{start: make([]int32, n+1)}
	head := make([]int32, hashSize)
	prev := make([]int32, windowSize)
	for p := range n {
		m.start[p] = int32(len(m.end))
		if p+minMatch > n {
			continue
		}
		h := hash3(b[p:])
		cand := int(head[h]) - 1
		prev[p&windowMask] = head[h]
		head[h] = int32(p + 1)
		maxLen := min(maxMatch, n-p)
		best := minMatch - 1
		for chain := optChain; cand >= 0 && cand > p-windowSize && chain > 0; chain-- {
			if b[cand+best] == b[p+best] && b[cand] == b[p] {
				l := 0
				for l < maxLen && b[cand+l] == b[p+l] {
					l++
				}
				if l > best && !(l == minMatch && p-cand > tooFar) {
					best = l
					m.end = append(m.end, uint16(l))
					m.dist = append(m.dist, uint16(p-cand-1))
					if l >= maxLen {
						break
					}
				}
			}
			cand = int(prev[cand&windowMask]) - 1
		}
	}
	m.start[n] = int32(len(m.end))
	return m
}

// costs are the bits a symbol is expected to take, extra bits included.
type costs struct {
	lit  [256]float32
	len  [maxMatch + 1]float32
	dist [30]float32
}

// costsOf estimates the costs from the symbols of a parse: each symbol's
// information content, -log2 of its share (a symbol not seen counts as
// seen half a time).
func costsOf(tokens []token) *costs {
	var h hist
	for _, t := range tokens {
		h.add(t)
	}
	var litTotal, distTotal float64
	for _, f := range h.lit {
		litTotal += float64(f) + 0.5
	}
	for _, f := range h.dist {
		distTotal += float64(f) + 0.5
	}
	bits := func(f int32, total float64) float32 { return float32(math.Log2(total / (float64(f) + 0.5))) }
	c := &costs{}
	for i := range c.lit {
		c.lit[i] = bits(h.lit[i], litTotal)
	}
	for l := minMatch; l <= maxMatch; l++ {
		lc := lengthCode[l]
		c.len[l] = bits(h.lit[257+int(lc)], litTotal) + float32(lengthExtra[lc])
	}
	for d := range c.dist {
		c.dist[d] = bits(h.dist[d], distTotal) + float32(distExtra[d])
	}
	return c
}

// optimalParse returns the tokens of the cheapest path through b.
func optimalParse(b []byte, m *matches, c *costs) []token {
	n := len(b)
	cost := make([]float32, n+1)
	for i := 1; i <= n; i++ {
		cost[i] = math.MaxFloat32
	}
	// How each position is reached: the length of the step (1: a
	// literal) and the match's distance minus 1.
	stepLen := make([]uint16, n+1)
	stepDist := make([]uint16, n+1)
	for p := range n {
		base := cost[p]
		if v := base + c.lit[b[p]]; v < cost[p+1] {
			cost[p+1], stepLen[p+1] = v, 1
		}
		l := minMatch
		for k := m.start[p]; k < m.start[p+1]; k++ {
			d := m.dist[k]
			dc := base + c.dist[distCode(d)]
			for ; l <= int(m.end[k]); l++ {
				if v := dc + c.len[l]; v < cost[p+l] {
					cost[p+l], stepLen[p+l], stepDist[p+l] = v, uint16(l), d
				}
			}
		}
	}
	// Back from the end.
	count := 0
	for p := n; p > 0; p -= int(stepLen[p]) {
		count++
	}
	tokens := make([]token, count)
	for p := n; p > 0; p -= int(stepLen[p]) {
		count--
		if l := stepLen[p]; l == 1 {
			tokens[count] = token{lit: b[p-1]}
		} else {
			tokens[count] = token{len: l, dist: stepDist[p]}
		}
	}
	return tokens
}
