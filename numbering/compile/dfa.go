package compile

import (
	"fmt"
	"regexp/syntax"
	"slices"
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
	if len(patterns) > 16 {
		return nil, fmt.Errorf("%d patterns in one automaton, at most 16", len(patterns))
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
	return &b.dfa, nil
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
