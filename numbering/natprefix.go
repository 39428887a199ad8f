package numbering

import "github.com/numenhq/numen/numbering/internal/planfmt"

// nationalPrefix strips a national (trunk) prefix written after the calling
// code, as in "+44 (0)20 7946 0000", exactly as libphonenumber's parser does
// with the main region's national_prefix_for_parsing and
// national_prefix_transform_rule. The rule is a regular expression compiled
// ahead of time (see package compile) into a program that a small
// backtracking matcher runs on the stack, without allocating.
type nationalPrefix struct {
	quick     automaton // over-approximates the non-empty prefix matches
	always    bool      // an empty match may capture: always run the program
	slots     int       // capture slots, 2 per group, group 0 included
	insts     []byte    // planfmt.InstSize each
	transform []byte    // digits, and planfmt.TransformGroup|n for group n
	// literals are the digit strings a rule without groups matches, in the
	// order the matcher would try them ("0|180020": "0", "180020"), for a
	// rule of a few short strings, which needs no matcher; nil for other
	// rules.
	literals []string
}

// readPrograms reads the NationalPrefix section, checking every
// instruction so that the matcher stays within the program.
func readPrograms(r *reader, automata *reader) []nationalPrefix {
	n := int(r.u32(0))
	if n > len(r.b)/planfmt.ProgHeaderSize {
		r.fail(0, "%d programs cannot fit in %d bytes", n, len(r.b))
		return nil
	}
	progs := make([]nationalPrefix, n)
	for i := range progs {
		at := int(r.u32(4 + 4*i))
		p := &progs[i]
		p.quick = readAutomaton(automata, r.u32(at), "national prefix")
		p.always = r.u32(at+4)&planfmt.ProgAlways != 0
		p.slots = int(r.u32(at + 8))
		count, tlen := int(r.u32(at+12)), int(r.u32(at+16))
		if r.err != nil || automata.err != nil {
			return nil
		}
		if count == 0 || count > planfmt.MaxProgram || p.slots < 2 || p.slots > planfmt.MaxSlots || p.slots%2 != 0 || tlen > 16 {
			r.fail(at, "program %d: %d instructions, %d slots, %d transform bytes: impossible", i, count, p.slots, tlen)
			return nil
		}
		p.insts = r.slice(at+planfmt.ProgHeaderSize, count*planfmt.InstSize)
		p.transform = r.slice(at+planfmt.ProgHeaderSize+count*planfmt.InstSize, tlen)
		if r.err != nil {
			return nil
		}
		for pc := 0; pc < count; pc++ {
			in := p.insts[pc*planfmt.InstSize:]
			op, out, arg := in[planfmt.InstOp], int(planfmt.U32(in, planfmt.InstOut)), int(planfmt.U32(in, planfmt.InstArg))
			bad := out >= count
			switch op {
			case planfmt.OpFail, planfmt.OpMatch, planfmt.OpDigit, planfmt.OpNop, planfmt.OpEmpty:
			case planfmt.OpAlt:
				bad = bad || arg >= count
			case planfmt.OpCapture:
				bad = bad || int(in[planfmt.InstArg8]) >= p.slots
			default:
				bad = true
			}
			if bad {
				r.fail(at+planfmt.ProgHeaderSize+pc*planfmt.InstSize, "program %d instruction %d: invalid", i, pc)
				return nil
			}
		}
		p.literals = literalsOf(p)
		for j, c := range p.transform {
			if c&planfmt.TransformGroup != 0 && 2*int(c&^planfmt.TransformGroup)+1 >= p.slots || c&planfmt.TransformGroup == 0 && (c < '0' || c > '9') {
				r.fail(at+planfmt.ProgHeaderSize+count*planfmt.InstSize+j, "program %d: transform byte %#x", i, c)
				return nil
			}
		}
	}
	return progs
}

// literalsOf returns the digit strings a program without a transform
// matches, in the order its backtracking matcher tries them: the paths from
// the start, through captures (which matter only to a transform), no-ops,
// begin anchors, alternatives (first branch first) and digit sets (one
// string per digit; at most one of them can match), to the match. Matching
// the first of them that starts the input is then what the matcher does.
// It returns nil for a program with a transform or end anchors, or of more
// than maxLiterals strings or longer ones.
func literalsOf(p *nationalPrefix) []string {
	if len(p.transform) > 0 {
		return nil
	}
	var out []string
	steps := 0
	var walk func(pc int, prefix []byte) bool
	walk = func(pc int, prefix []byte) bool {
		for {
			if steps++; steps > 4*planfmt.MaxProgram {
				return false // a loop, or too many paths
			}
			in := p.insts[pc*planfmt.InstSize : (pc+1)*planfmt.InstSize]
			next := int(planfmt.U32(in, planfmt.InstOut))
			switch in[planfmt.InstOp] {
			case planfmt.OpMatch:
				if len(out) == maxLiterals {
					return false
				}
				out = append(out, string(prefix))
				return true
			case planfmt.OpFail:
				return true
			case planfmt.OpNop, planfmt.OpCapture:
			case planfmt.OpEmpty:
				if in[planfmt.InstArg8] != planfmt.EmptyBegin {
					return false
				}
				if len(prefix) > 0 {
					return true // "^" after a digit: the path cannot match
				}
			case planfmt.OpAlt:
				if !walk(next, prefix) {
					return false
				}
				next = int(planfmt.U32(in, planfmt.InstArg))
			case planfmt.OpDigit:
				if len(prefix) == maxLiteralDigits {
					return false
				}
				set := planfmt.U16(in, planfmt.InstDigits)
				for d := range 10 {
					if set&(1<<d) != 0 && !walk(next, append(prefix[:len(prefix):len(prefix)], byte('0'+d))) {
						return false
					}
				}
				return true
			default:
				return false
			}
			pc = next
		}
	}
	if !walk(0, nil) || len(out) == 0 {
		return nil
	}
	return out
}

// The rules read by comparison: at most maxLiterals strings of at most
// maxLiteralDigits digits.
const (
	maxLiterals      = 32
	maxLiteralDigits = 10
)

// literalMatch returns the length of the first of literals that starts
// digits, and false when none does.
func literalMatch(literals []string, digits []byte) (int, bool) {
	for _, lit := range literals {
		if hasPrefix(digits, lit) {
			return len(lit), true
		}
	}
	return 0, false
}

// hasPrefix is bytes.HasPrefix for a few digits, without a call.
func hasPrefix(digits []byte, prefix string) bool {
	if len(prefix) > len(digits) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if digits[i] != prefix[i] {
			return false
		}
	}
	return true
}

// matchState is the backtracking matcher's state: the capture slots. The
// (instruction, position) pairs already tried, which bound the work to
// instructions × positions, are bits on run's stack.
type matchState struct {
	width int // input length + 1
	caps  [planfmt.MaxSlots]int
}

// The visited bits of a run: a small set for the common small programs on
// short input, so that a run clears a few words, not the largest set.
const (
	smallVisited = 16
	maxVisited   = (planfmt.MaxProgram*(planfmt.MaxInput+1) + 63) / 64
)

// run matches the program against the start of input (at most
// planfmt.MaxInput digits) with leftmost-first semantics, as Go's regexp
// FindSubmatchIndex would on "^(?:pattern)"; st.caps holds the slots
// (-1 for groups that did not take part). It reports whether the program
// matched.
func (p *nationalPrefix) run(st *matchState, input []byte) bool {
	if len(input) > planfmt.MaxInput {
		return false
	}
	st.width = len(input) + 1
	for i := range st.caps {
		st.caps[i] = -1
	}
	var matched bool
	if bits := len(p.insts) / planfmt.InstSize * st.width; bits <= 64*smallVisited {
		var visited [smallVisited]uint64
		matched = st.try(p.insts, input, visited[:], 0, 0)
	} else {
		var visited [maxVisited]uint64
		matched = st.try(p.insts, input, visited[:], 0, 0)
	}
	if !matched {
		return false
	}
	st.caps[0] = 0
	return true
}

func (st *matchState) try(insts, input []byte, visited []uint64, pc, pos int) bool {
	for {
		bit := pc*st.width + pos
		if visited[bit>>6]&(1<<(bit&63)) != 0 {
			return false // tried before, and it failed: it would again
		}
		visited[bit>>6] |= 1 << (bit & 63)
		in := insts[pc*planfmt.InstSize : (pc+1)*planfmt.InstSize]
		out := int(planfmt.U32(in, planfmt.InstOut))
		switch in[planfmt.InstOp] {
		case planfmt.OpMatch:
			st.caps[1] = pos
			return true
		case planfmt.OpDigit:
			if pos >= len(input) || planfmt.U16(in, planfmt.InstDigits)&(1<<(input[pos]-'0')) == 0 {
				return false
			}
			pc, pos = out, pos+1
		case planfmt.OpAlt:
			if st.try(insts, input, visited, out, pos) {
				return true
			}
			pc = int(planfmt.U32(in, planfmt.InstArg))
		case planfmt.OpCapture:
			slot := in[planfmt.InstArg8]
			old := st.caps[slot]
			st.caps[slot] = pos
			if st.try(insts, input, visited, out, pos) {
				return true
			}
			st.caps[slot] = old
			return false
		case planfmt.OpEmpty:
			cond := in[planfmt.InstArg8]
			if cond&planfmt.EmptyBegin != 0 && pos != 0 || cond&planfmt.EmptyEnd != 0 && pos != len(input) {
				return false
			}
			pc = out
		case planfmt.OpNop:
			pc = out
		default: // OpFail
			return false
		}
	}
}

// maxStripped bounds a national number after the transform rule.
const maxStripped = planfmt.MaxInput + 16

// stripNationalPrefix ports libphonenumber's maybeStripNationalPrefixAndCarrierCode
// with rule np of region rg and the length check its parser applies after
// it. It writes the national number to use into buf (or returns a part of
// national) and returns it and true, or returns false to keep national as
// it is.
func stripNationalPrefix(rg *region, np *nationalPrefix, national []byte, buf *[maxStripped]byte) ([]byte, bool) {
	out, ok := np.strip(rg, national, buf)
	if !ok {
		return nil, false
	}
	switch rg.testLength(len(out)) {
	case TooShort, LocalOnly, InvalidLength:
		return nil, false
	}
	return out, true
}

// strip ports libphonenumber's maybeStripNationalPrefixAndCarrierCode for
// rule np of region rg, without the parser's length check: the national
// number without its national prefix (written into buf, or a part of
// national), or false to keep national as it is. The common case, where no
// national prefix can start the number, is decided by the rule's quick
// automaton (unless the rule always runs) or literal alone.
func (np *nationalPrefix) strip(rg *region, national []byte, buf *[maxStripped]byte) ([]byte, bool) {
	viable := func(nsn []byte) bool { return rg.automata().types.match(nsn)&(1<<descGeneral) != 0 }
	if np.literals != nil {
		// No groups: stripping is cutting the prefix off, no copy needed.
		n, ok := literalMatch(np.literals, national)
		if !ok {
			return nil, false
		}
		out := national[n:]
		if !viable(out) && viable(national) { // the usual case, a viable rest, walks once
			return nil, false
		}
		return out, true
	}
	if !np.mayMatch(national) {
		return nil, false
	}
	var st matchState
	if !np.run(&st, national) {
		return nil, false
	}
	viableOriginal := viable(national)
	out, ok := np.expand(&st, national, buf)
	if !ok {
		return nil, false
	}
	if viableOriginal && !viable(out) {
		return nil, false
	}
	return out, true
}

// addedDigits returns the most digits the rule's transform can add to a
// national number: its literal digits, when it names one group (which
// gives back digits the match took off; every rule of libphonenumber's
// metadata names at most one); maxStripped, more than any number has,
// when it names several, which may overlap or repeat. A nil rule adds
// none.
func (np *nationalPrefix) addedDigits() int {
	if np == nil {
		return 0
	}
	n, groups := 0, 0
	for _, c := range np.transform {
		if c&planfmt.TransformGroup == 0 {
			n++
		} else {
			groups++
		}
	}
	if groups > 1 {
		return maxStripped
	}
	return n
}

// mayMatch reports whether the rule may take something off national, as
// its literals or its quick automaton say (a rule that always runs may).
func (np *nationalPrefix) mayMatch(national []byte) bool {
	if np.literals != nil {
		_, ok := literalMatch(np.literals, national)
		return ok
	}
	return np.always || np.quick.longestPrefix(national) > 0
}

// prefixLen returns the length of the match of an international-prefix
// rule at the start of digits (libphonenumber's parsePrefixAsIdd, whose
// rules have no end anchor, so that the first planfmt.MaxInput digits
// decide), and false when it does not match.
func (np *nationalPrefix) prefixLen(digits []byte) (int, bool) {
	if np.literals != nil {
		return literalMatch(np.literals, digits)
	}
	if np.quick.longestPrefix(digits) == 0 {
		return 0, false
	}
	var st matchState
	if !np.run(&st, digits[:min(len(digits), planfmt.MaxInput)]) {
		return 0, false
	}
	return st.caps[1], true
}

// expand writes into buf the national number a match of the rule leaves:
// the transform's digits and groups (when the rule has a transform and its
// last group took part), then the digits after the match. ok is false when
// the result would not fit, which no rule of real data comes near.
func (np *nationalPrefix) expand(st *matchState, national []byte, buf *[maxStripped]byte) (out []byte, ok bool) {
	groups := np.slots/2 - 1
	n := 0 // bytes of buf in use
	if len(np.transform) > 0 && groups > 0 && st.caps[2*groups] >= 0 {
		for _, c := range np.transform {
			if c&planfmt.TransformGroup == 0 {
				if n == len(buf) {
					return nil, false
				}
				buf[n] = c
				n++
				continue
			}
			g := int(c &^ planfmt.TransformGroup)
			if lo, hi := st.caps[2*g], st.caps[2*g+1]; lo >= 0 && hi >= lo {
				if n+hi-lo > len(buf) {
					return nil, false
				}
				n += copy(buf[n:], national[lo:hi])
			}
		}
	}
	rest := national[st.caps[1]:]
	if n+len(rest) > len(buf) {
		return nil, false
	}
	n += copy(buf[n:], rest)
	return buf[:n], true
}
