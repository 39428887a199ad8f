package numbering

import (
	"sync"
	"sync/atomic"

	"github.com/numenhq/numen/numbering/internal/planfmt"
)

// deferred holds the sections of the built-in plan (Load) that no
// classification reads, read on first use instead: the MCC-MNC list
// (Network, Networks, RegionOfMCC) and the short numbers (ShortNumber),
// 290 KiB of the plan that a program answering one number does not page in;
// and the geocoding descriptions (2.3 MiB), which only geographic numbers
// read, so that one mobile number pages in none of them.
// Plans read with every check (Open, OpenBytes) read them at once.
type deferred struct {
	networks, short, geo deferredSection
}

type deferredSection struct {
	once sync.Once
	r    *reader // nil when read at load or absent
	err  error   // the read's error: only a damaged executable has one
}

// networkList returns the MCC-MNC list, read on first use for Load. The
// built-in plan is checked by the repository's tests: a read that fails
// means a damaged executable, and panics rather than answer from it.
func (p *Plan) networkList() *networkList {
	if d := &p.deferred.networks; d.r != nil {
		d.once.Do(p.readDeferredNetworks)
		if d.err != nil {
			panic("numbering: the plan built into the program is damaged: " + d.err.Error())
		}
	}
	return &p.networks
}

func (p *Plan) readDeferredNetworks() {
	d := &p.deferred.networks
	p.networks.read(d.r)
	d.err = d.r.err
}

// shortNumbers reads the short-number data on first use for Load; it
// returns the read's error.
func (p *Plan) shortNumbers() error {
	if d := &p.deferred.short; d.r != nil {
		d.once.Do(p.readDeferredShort)
		return d.err
	}
	return nil
}

func (p *Plan) readDeferredShort() {
	d := &p.deferred.short
	p.readShortNumbers(d.r)
	d.err = d.r.err
}

// geocoding returns the geocoding table and descriptions, read on first use
// for Load; a read that fails means a damaged executable, as networkList.
func (p *Plan) geocoding() (*prefixTable, *places) {
	if d := &p.deferred.geo; d.r != nil {
		d.once.Do(p.readDeferredGeocoding)
		if d.err != nil {
			panic("numbering: the plan built into the program is damaged: " + d.err.Error())
		}
	}
	return &p.geo, &p.places
}

func (p *Plan) readDeferredGeocoding() {
	d := &p.deferred.geo
	p.readGeocoding(d.r)
	d.err = d.r.err
}

// regionAutomata are a region's automata: its number types (one pattern
// per desc) and, for calling codes shared by regions, its leading digits
// (when region.hasLead).
type regionAutomata struct {
	types, leading automaton
}

// lazyAutomata is where a region's automata are in the Automata section,
// for Load, which reads them at the region's first use: one number
// classified pages in its region's automata, not the heads of every
// region's (about 64 of the section's 97 pages).
type lazyAutomata struct {
	done           atomic.Bool
	mu             sync.Mutex
	r              *reader
	types, leading uint32 // offsets; leading planfmt.NoOffset when none
}

// automata returns the region's automata, reading them at first use for
// Load. The built-in plan is checked by the repository's tests: a read
// that fails means a damaged executable, and panics rather than answer
// from it. (Not sync.Once: its Do with a method value would allocate on
// every lookup.)
func (r *region) automata() *regionAutomata {
	if l := r.lazy; l != nil && !l.done.Load() {
		l.read(r)
	}
	return &r.aut
}

func (l *lazyAutomata) read(rg *region) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done.Load() {
		return
	}
	r := *l.r // a reader of its own: goroutines may read regions at once
	rg.aut = readRegionAutomata(&r, rg.id, l.types, l.leading)
	if r.err != nil {
		panic("numbering: the plan built into the program is damaged: " + r.err.Error())
	}
	l.done.Store(true)
}

// readRegionAutomata reads a region's automata at types and leading
// (planfmt.NoOffset: none) in the Automata section.
func readRegionAutomata(r *reader, id string, types, leading uint32) regionAutomata {
	a := regionAutomata{types: readAutomaton(r, types, "region "+id+" types")}
	if leading != planfmt.NoOffset {
		a.leading = readAutomaton(r, leading, "region "+id+" leading digits")
	}
	return a
}
