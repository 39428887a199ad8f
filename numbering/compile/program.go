package compile

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// program is a national-prefix rule compiled for numbering's matcher: the
// instructions of regexp/syntax's program for "^(?:national_prefix_for_parsing)",
// with the runes of each instruction reduced to the digits they match, and
// the transform rule as a template.
type program struct {
	insts     []byte // planfmt.InstSize each
	slots     int
	always    bool   // an empty match may capture: the rule must run on every number
	transform []byte // digits and planfmt.TransformGroup|n
	quick     *digitDFA
}

// compileProgram compiles a region's national_prefix_for_parsing and
// national_prefix_transform_rule (Java's $1 syntax).
func compileProgram(pattern, transform string) (*program, error) {
	re, err := syntax.Parse("^(?:"+pattern+")", syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("national prefix pattern %q: %w", pattern, err)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, fmt.Errorf("national prefix pattern %q: %w", pattern, err)
	}
	if len(prog.Inst) > planfmt.MaxProgram {
		return nil, fmt.Errorf("national prefix pattern %q: %d instructions, at most %d", pattern, len(prog.Inst), planfmt.MaxProgram)
	}
	if prog.NumCap > planfmt.MaxSlots {
		return nil, fmt.Errorf("national prefix pattern %q: %d capture slots, at most %d", pattern, prog.NumCap, planfmt.MaxSlots)
	}
	p := &program{slots: prog.NumCap}
	// The start instruction comes first, so that the matcher starts at 0.
	order := make([]int, 0, len(prog.Inst))
	index := make([]int, len(prog.Inst))
	order = append(order, prog.Start)
	for pc := range prog.Inst {
		if pc != prog.Start {
			order = append(order, pc)
		}
	}
	for i, pc := range order {
		index[pc] = i
	}
	for _, pc := range order {
		inst := &prog.Inst[pc]
		var rec [planfmt.InstSize]byte
		put32 := func(off int, v uint32) {
			rec[off], rec[off+1], rec[off+2], rec[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
		put32(planfmt.InstOut, uint32(index[inst.Out]))
		switch inst.Op {
		case syntax.InstFail:
			rec[planfmt.InstOp] = planfmt.OpFail
		case syntax.InstMatch:
			rec[planfmt.InstOp] = planfmt.OpMatch
		case syntax.InstNop:
			rec[planfmt.InstOp] = planfmt.OpNop
		case syntax.InstAlt, syntax.InstAltMatch:
			rec[planfmt.InstOp] = planfmt.OpAlt
			put32(planfmt.InstArg, uint32(index[inst.Arg]))
		case syntax.InstCapture:
			rec[planfmt.InstOp] = planfmt.OpCapture
			rec[planfmt.InstArg8] = byte(inst.Arg)
		case syntax.InstEmptyWidth:
			rec[planfmt.InstOp] = planfmt.OpEmpty
			var cond byte
			op := syntax.EmptyOp(inst.Arg)
			// The input is digits only: a line is the whole input.
			if op&(syntax.EmptyBeginText|syntax.EmptyBeginLine) != 0 {
				cond |= planfmt.EmptyBegin
			}
			if op&(syntax.EmptyEndText|syntax.EmptyEndLine) != 0 {
				cond |= planfmt.EmptyEnd
			}
			if op&(syntax.EmptyWordBoundary|syntax.EmptyNoWordBoundary) != 0 {
				return nil, fmt.Errorf("national prefix pattern %q: word boundaries are not supported", pattern)
			}
			rec[planfmt.InstArg8] = cond
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			rec[planfmt.InstOp] = planfmt.OpDigit
			var set uint16
			for d := range 10 {
				if inst.MatchRune(rune('0' + d)) {
					set |= 1 << d
				}
			}
			rec[planfmt.InstDigits], rec[planfmt.InstDigits+1] = byte(set), byte(set>>8)
		default:
			return nil, fmt.Errorf("national prefix pattern %q: instruction %v not supported", pattern, inst.Op)
		}
		p.insts = append(p.insts, rec[:]...)
	}
	if p.quick, err = compileDFA([]string{pattern}, maxStates); err != nil {
		return nil, err
	}
	if transform != "" {
		for i := 0; i < len(transform); i++ {
			c := transform[i]
			switch {
			case c == '$' && i+1 < len(transform) && transform[i+1] >= '0' && transform[i+1] <= '9':
				n := int(transform[i+1] - '0')
				if 2*n+1 >= p.slots {
					return nil, fmt.Errorf("national prefix transform %q: no group %d in %q", transform, n, pattern)
				}
				p.transform = append(p.transform, planfmt.TransformGroup|byte(n))
				i++
			case c >= '0' && c <= '9':
				p.transform = append(p.transform, c)
			default:
				return nil, fmt.Errorf("national prefix transform %q: only digits and $n are supported", transform)
			}
		}
		// As regexp would: with a transform rule, an empty match can
		// still capture, so the rule runs even where no prefix starts
		// the number.
		p.always = regexp.MustCompile("^(?:" + pattern + ")").MatchString("")
	}
	if strings.Contains(pattern, "\n") {
		return nil, fmt.Errorf("national prefix pattern %q: newline", pattern)
	}
	return p, nil
}
