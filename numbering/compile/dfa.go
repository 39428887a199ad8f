package compile

import (
	"fmt"
	"regexp/syntax"
	"slices"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// digitDFA is a deterministic finite automaton over the ten decimal digits,
// compiled from up to 16 regular expressions at once. Each state carries the
// set of expressions (a bit mask) that accept the digits read so far, so one
// walk over a national number answers every number-type pattern of a region.
//
// libphonenumber's patterns describe finite languages of short digit strings,
// which makes their subset construction small: a few hundred states for most
// regions. The plan file stores it as it is (see planfmt); numbering walks it
// there, one table load per digit.
type digitDFA struct {
	next   []int32  // next[state*10+digit]; deadState when no pattern can match any more
	accept []uint16 // accept[state]: bit i set when pattern i matches the input read so far
}

const deadState = -1

// match walks digits (ASCII '0'..'9') from the start state and returns the
// mask of patterns that match the whole input.
func (d *digitDFA) match(digits string) uint16 {
	s := int32(0)
	for i := 0; i < len(digits); i++ {
		s = d.next[int(s)*10+int(digits[i]-'0')]
		if s == deadState {
			return 0
		}
	}
	return d.accept[s]
}

// compileDFA compiles patterns (RE2 syntax; libphonenumber's are a subset)
// into one digitDFA. An empty pattern matches nothing. Empty-width assertions
// (^, $, \b) are treated as always true: that is exact for patterns without
// them and an over-approximation otherwise, which callers that use such
// patterns must allow for. maxStates bounds the work on hostile input.
func compileDFA(patterns []string, maxStates int) (*digitDFA, error) {
	if len(patterns) > planfmt.MaxPatterns {
		return nil, fmt.Errorf("%d patterns in one automaton, at most %d", len(patterns), planfmt.MaxPatterns)
	}
	progs := make([]*syntax.Prog, len(patterns))
	for i, p := range patterns {
		if p == "" {
			continue
		}
		re, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", p, err)
		}
		prog, err := syntax.Compile(re.Simplify())
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", p, err)
		}
		progs[i] = prog
	}

	b := dfaBuilder{progs: progs, index: map[string]int32{}, seen: make([][]uint32, len(progs))}
	for i, prog := range progs {
		if prog != nil {
			b.seen[i] = make([]uint32, len(prog.Inst))
		}
	}
	b.epoch = 1
	for i, prog := range progs {
		if prog != nil {
			b.closure(uint32(i), uint32(prog.Start))
		}
	}
	start := b.take()
	b.add(start)
	for s := 0; s < len(b.states); s++ {
		if len(b.states) > maxStates {
			return nil, fmt.Errorf("automaton exceeds %d states", maxStates)
		}
		for digit := rune('0'); digit <= '9'; digit++ {
			b.epoch++
			for _, st := range b.states[s] {
				i, pc := st>>20, st&(1<<20-1)
				inst := &progs[i].Inst[pc]
				if inst.MatchRune(digit) {
					b.closure(i, inst.Out)
				}
			}
			set := b.take()
			if len(set.threads) == 0 && set.accept == 0 {
				b.dfa.next = append(b.dfa.next, deadState)
				continue
			}
			b.dfa.next = append(b.dfa.next, b.add(set))
		}
	}
	return b.dfa.minimize().chainOrdered(), nil
}

type stateSet struct {
	threads []uint32 // pattern<<20 | pc of rune-consuming instructions, sorted
	accept  uint16
}

type dfaBuilder struct {
	progs   []*syntax.Prog
	seen    [][]uint32 // seen[pattern][pc] == epoch: already in the pending closure
	epoch   uint32
	pending stateSet
	states  [][]uint32
	index   map[string]int32
	dfa     digitDFA
}

// closure adds the epsilon closure of pattern i's instruction pc to the
// pending set.
func (b *dfaBuilder) closure(i, pc uint32) {
	if b.seen[i][pc] == b.epoch {
		return
	}
	b.seen[i][pc] = b.epoch
	inst := &b.progs[i].Inst[pc]
	switch inst.Op {
	case syntax.InstAlt, syntax.InstAltMatch:
		b.closure(i, inst.Out)
		b.closure(i, inst.Arg)
	case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
		b.closure(i, inst.Out)
	case syntax.InstMatch:
		b.pending.accept |= 1 << i
	case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
		b.pending.threads = append(b.pending.threads, i<<20|pc)
	case syntax.InstFail:
	}
}

func (b *dfaBuilder) take() stateSet {
	s := b.pending
	slices.Sort(s.threads)
	s.threads = slices.Compact(s.threads)
	b.pending = stateSet{}
	return s
}

// add returns the state number of set, creating the state when it is new.
func (b *dfaBuilder) add(set stateSet) int32 {
	key := make([]byte, 0, 2+4*len(set.threads))
	key = append(key, byte(set.accept), byte(set.accept>>8))
	for _, t := range set.threads {
		key = append(key, byte(t), byte(t>>8), byte(t>>16), byte(t>>24))
	}
	if s, ok := b.index[string(key)]; ok {
		return s
	}
	s := int32(len(b.states))
	b.index[string(key)] = s
	b.states = append(b.states, set.threads)
	b.dfa.accept = append(b.dfa.accept, set.accept)
	return s
}

// minimize returns the smallest automaton that answers every input as d
// does (Moore's partition refinement), with the states from which no
// pattern can match any more folded into the dead state, and the states
// numbered in breadth-first order from the start, so that the states a
// walk visits first lie together.
func (d *digitDFA) minimize() *digitDFA {
	n := len(d.accept)
	// live[s]: some pattern can still match from s.
	live := make([]bool, n)
	for changed := true; changed; {
		changed = false
		for s := range n {
			if live[s] {
				continue
			}
			if d.accept[s] != 0 {
				live[s], changed = true, true
				continue
			}
			for _, t := range d.next[s*10 : s*10+10] {
				if t != deadState && live[t] {
					live[s], changed = true, true
					break
				}
			}
		}
	}
	// class[s] for live states; -1 stands for the dead state.
	class := make([]int32, n)
	classes := 0
	{
		byMask := map[uint16]int32{}
		for s := range n {
			if !live[s] {
				class[s] = -1
				continue
			}
			c, ok := byMask[d.accept[s]]
			if !ok {
				c = int32(len(byMask))
				byMask[d.accept[s]] = c
			}
			class[s] = c
		}
		classes = len(byMask)
	}
	for {
		type sig [11]int32
		index := map[sig]int32{}
		next := make([]int32, n)
		for s := range n {
			if class[s] < 0 {
				next[s] = -1
				continue
			}
			var k sig
			k[0] = class[s]
			for digit, t := range d.next[s*10 : s*10+10] {
				k[digit+1] = -1
				if t != deadState {
					k[digit+1] = class[t]
				}
			}
			c, ok := index[k]
			if !ok {
				c = int32(len(index))
				index[k] = c
			}
			next[s] = c
		}
		class = next
		if len(index) == classes {
			break
		}
		classes = len(index)
	}
	if class[0] < 0 { // nothing can match: one state without way out
		return &digitDFA{next: []int32{deadState, deadState, deadState, deadState, deadState, deadState, deadState, deadState, deadState, deadState}, accept: []uint16{0}}
	}
	// A representative of each class, then breadth-first numbering.
	rep := make([]int, classes)
	for s := n - 1; s >= 0; s-- {
		if class[s] >= 0 {
			rep[class[s]] = s
		}
	}
	order := make([]int32, classes) // class -> new state, -1 until numbered
	for i := range order {
		order[i] = -1
	}
	out := &digitDFA{}
	queue := []int32{class[0]}
	order[class[0]] = 0
	count := int32(1)
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		s := rep[c]
		out.accept = append(out.accept, d.accept[s])
		for _, t := range d.next[s*10 : s*10+10] {
			if t == deadState || class[t] < 0 {
				out.next = append(out.next, deadState)
				continue
			}
			tc := class[t]
			if order[tc] < 0 {
				order[tc] = count
				count++
				queue = append(queue, tc)
			}
			out.next = append(out.next, order[tc])
		}
	}
	return out
}

// candidate reports whether a region with types automaton d and leading
// digits lead (nil for none) can hold a number starting with digits, as
// numbering's region choice would see it: with leading digits, when they
// match within digits or may match after them; without, when d is alive
// after digits.
func (d *digitDFA) candidate(digits string, lead *digitDFA) bool {
	if lead != nil {
		d = lead
	}
	s := int32(0)
	for i := 0; i < len(digits); i++ {
		if s = d.next[int(s)*10+int(digits[i]-'0')]; s == deadState {
			return false
		}
		if lead != nil && d.accept[s] != 0 {
			return true
		}
	}
	return true
}

// uniform returns the state every digit leads to from s, or -1 when the
// digits lead to different states or nowhere.
func (d *digitDFA) uniform(s int) int32 {
	t := d.next[s*10]
	if t == deadState {
		return -1
	}
	for _, u := range d.next[s*10+1 : s*10+10] {
		if u != t {
			return -1
		}
	}
	return t
}

// chainOrdered renumbers the states so that each chain of uniform states
// (where every digit leads to the same next state, as in the \d{7} that
// ends most number patterns) is numbered consecutively: a walk can then
// skip a chain in one step (see planfmt's run lengths). The start stays
// state 0; the rest follow in breadth-first order.
func (d *digitDFA) chainOrdered() *digitDFA {
	n := len(d.accept)
	order := make([]int32, n) // old state -> new
	for i := range order {
		order[i] = -1
	}
	var queue []int32
	count := int32(0)
	number := func(s int32) {
		for x := s; x >= 0 && order[x] < 0; x = d.uniform(int(x)) {
			order[x] = count
			count++
			queue = append(queue, x)
		}
	}
	number(0)
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, t := range d.next[s*10 : s*10+10] {
			if t != deadState {
				number(t)
			}
		}
	}
	out := &digitDFA{accept: make([]uint16, count), next: make([]int32, 10*int(count))}
	for old := range n {
		s := order[old]
		if s < 0 {
			continue // unreachable
		}
		out.accept[s] = d.accept[old]
		for digit, t := range d.next[old*10 : old*10+10] {
			if t == deadState {
				out.next[int(s)*10+digit] = deadState
			} else {
				out.next[int(s)*10+digit] = order[t]
			}
		}
	}
	return out
}

// runs returns, for each state, how many states after it a walk can skip
// whatever the digits: the length of the chain of uniform states that
// starts there and is numbered consecutively, at most planfmt.MaxRun.
func (d *digitDFA) runs() []uint16 {
	n := len(d.accept)
	run := make([]uint16, n)
	for s := n - 2; s >= 0; s-- {
		if d.uniform(s) == int32(s+1) {
			run[s] = min(run[s+1]+1, planfmt.MaxRun)
		}
	}
	return run
}

// futures returns, for each state, the patterns that match at some state
// reachable from it, itself included.
func (d *digitDFA) futures() []uint16 {
	f := slices.Clone(d.accept)
	for changed := true; changed; {
		changed = false
		for s := range f {
			for _, t := range d.next[s*10 : s*10+10] {
				if t != deadState && f[s]|f[t] != f[s] {
					f[s] |= f[t]
					changed = true
				}
			}
		}
	}
	return f
}
