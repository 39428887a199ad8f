package portdb

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
)

// overlay is the deltas applied on top of a database, in memory: the
// numbers they change, sorted, each with its network or returnedNet,
// consulted by Lookup before the file.
type overlay struct {
	keys   []uint64  // value<<netBits | index in nets (returnedNet: returned)
	nets   []Network // the base's networks, then the deltas' new ones
	filter filter    // most numbers the deltas do not change skip the search
	deltas int       // how many deltas were applied
	files  []os.FileInfo
}

// WithDeltas makes Open and OpenBytes apply the deltas on top of the
// database, in the order given: for a number several deltas change, the
// entry with the latest time stamp wins, and of entries with the same
// time the one of the later delta. Every delta must have been made for
// this database (Delta.Base is its Identity): a delta for another base is
// an error wrapping ErrDeltaBase that names both. Every number must be in
// a region the database covers. The deltas are held in memory (10 bytes a
// number changed) and looked at before the file: the file is not changed.
func WithDeltas(deltas ...*Delta) Option {
	return func(o *options) { o.deltas = append(o.deltas, deltas...) }
}

// mergeEntry is one delta entry while merging.
type mergeEntry struct {
	v     uint64
	t     int64
	order int    // the delta's place, for equal times
	net   uint16 // index in the overlay's networks, or returnedNet
}

func newOverlay(db *DB, deltas []*Delta) (*overlay, error) {
	id := db.Identity()
	var covered [1000]bool
	for _, r := range db.h.regions {
		covered[r.cc] = true
	}
	ov := &overlay{nets: slices.Clone(db.h.networks), deltas: len(deltas)}
	index := make(map[string]uint16, len(ov.nets))
	for i, n := range ov.nets {
		index[n.MCCMNC] = uint16(i)
	}
	total := 0
	for _, d := range deltas {
		total += len(d.entries)
	}
	all := make([]mergeEntry, 0, total)
	for k, d := range deltas {
		if d.Base != id {
			return nil, fmt.Errorf("%w: %s applies to base %016x, this database is %016x", ErrDeltaBase, d.Name, d.Base, id)
		}
		netOf := make([]uint16, len(d.nets))
		for i, n := range d.nets {
			j, ok := index[n.MCCMNC]
			if ok && n.Name != "" {
				ov.nets[j].Name = n.Name // a delta names or renames a network
			}
			if !ok {
				if len(ov.nets) >= returnedNet {
					return nil, fmt.Errorf("%s: more than %d networks with the database's", d.Name, returnedNet)
				}
				j = uint16(len(ov.nets))
				ov.nets = append(ov.nets, n)
				index[n.MCCMNC] = j
			}
			netOf[i] = j
		}
		for _, e := range d.entries {
			if !coveredNumber(e.v, &covered) {
				return nil, fmt.Errorf("%s: number +%d is not in a region the database covers", d.Name, e.v)
			}
			m := mergeEntry{v: e.v, t: e.t, order: k, net: returnedNet}
			if e.net != returnedNet {
				m.net = netOf[e.net]
			}
			all = append(all, m)
		}
	}
	slices.SortFunc(all, func(a, b mergeEntry) int {
		return cmp.Or(cmp.Compare(a.v, b.v), cmp.Compare(a.t, b.t), cmp.Compare(a.order, b.order))
	})
	ov.keys = make([]uint64, 0, len(all))
	for i, e := range all {
		if i+1 < len(all) && all[i+1].v == e.v {
			continue // a later change of the same number wins
		}
		ov.keys = append(ov.keys, e.v<<netBits|uint64(e.net))
	}
	ov.filter = newFilter(ov.keys)
	return ov, nil
}

// coveredNumber reports whether v is a number (longer than its calling
// code) in a covered calling code.
func coveredNumber(v uint64, covered *[1000]bool) bool {
	if v == 0 || v >= pow10[maxDigits] {
		return false
	}
	d := numDigits(v)
	for k := 1; k <= 3 && k < d; k++ {
		if covered[v/pow10[d-k]] {
			return true
		}
	}
	return false
}

// find returns the overlay's entry for v.
func (ov *overlay) find(v uint64) (uint64, bool) {
	if !ov.filter.mayHave(v) {
		return 0, false
	}
	i := upperBound(ov.keys, 0, len(ov.keys), v) - 1
	if i >= 0 && ov.keys[i]>>netBits == v {
		return ov.keys[i], true
	}
	return 0, false
}

// bytes returns the overlay's memory, roughly.
func (ov *overlay) bytes() int64 {
	return int64(8*cap(ov.keys) + 8*len(ov.filter.bits) + 32*len(ov.nets))
}

// ReloadWithDeltas is Reload for a base file and delta files applied on
// top of it (WithDeltas, in the order given): when the base is another
// file than the current database's, or a delta file is new or changed
// (another file, size or time), or the list is another, it opens the base
// WithVerify, reads the deltas and swaps the result in. A damaged base, a
// damaged delta or a delta for another base is refused (the error names
// the file) and the current database keeps answering; the same set of
// files is not tried again until one of them changes. It reports whether
// it swapped.
func (h *Holder) ReloadWithDeltas(path string, deltas []string, opts ...Option) (bool, error) {
	h.reload.Lock()
	defer h.reload.Unlock()
	set := make([]os.FileInfo, 0, 1+len(deltas))
	for _, p := range append([]string{path}, deltas...) {
		st, err := os.Stat(p)
		if err != nil {
			return false, err
		}
		set = append(set, st)
	}
	if l := h.cur.Load(); l != nil && l.db.file != nil && os.SameFile(l.db.file, set[0]) && sameFiles(l.db.deltaFiles(), set[1:]) {
		return false, nil
	}
	if h.refused != nil && sameFiles(h.refused, set) {
		return false, nil
	}
	ds := make([]*Delta, len(deltas))
	for i, p := range deltas {
		d, err := ReadDeltaFile(p)
		if err != nil {
			h.refused = set
			return false, err
		}
		ds[i] = d
	}
	db, err := Open(path, append(opts, WithVerify(), WithDeltas(ds...))...)
	if err != nil {
		h.refused = set
		return false, err
	}
	if db.ov != nil {
		db.ov.files = set[1:]
	}
	h.refused = nil
	h.Swap(db)
	return true, nil
}

func (db *DB) deltaFiles() []os.FileInfo {
	if db.ov == nil {
		return nil
	}
	return db.ov.files
}

// sameFiles reports whether a and b are the same files, of the same sizes
// and times.
func sameFiles(a, b []os.FileInfo) bool {
	return slices.EqualFunc(a, b, func(x, y os.FileInfo) bool {
		return os.SameFile(x, y) && x.Size() == y.Size() && x.ModTime().Equal(y.ModTime())
	})
}

// Compact writes the database with its deltas applied as a new base
// database file, with opts (Regions default to the database's, Source to
// its source): the same file Build makes from the same entries. Its
// Stats are returned.
func Compact(w io.Writer, db *DB, opts BuildOptions) (BuildStats, error) {
	if len(opts.Regions) == 0 {
		opts.Regions = db.Regions()
	}
	if opts.Source == "" {
		opts.Source = db.h.source
	}
	b, err := NewBuilder(opts)
	if err != nil {
		return BuildStats{}, err
	}
	var buf []byte
	add := func(v uint64, suffix string, n Network) error {
		buf = strconv.AppendUint(append(buf[:0], '+'), v, 10)
		buf = append(buf, suffix...)
		return b.Add(string(buf), n.MCCMNC, n.Name)
	}
	var ovKeys []uint64
	nets := db.h.networks
	if db.ov != nil {
		ovKeys, nets = db.ov.keys, db.ov.nets // with the deltas' names
	}
	nums := db.nums.keys
	for len(nums) > 0 || len(ovKeys) > 0 {
		var err error
		switch {
		case len(ovKeys) == 0 || len(nums) > 0 && nums[0]>>netBits < ovKeys[0]>>netBits:
			err = add(nums[0]>>netBits, "", nets[nums[0]&netMask])
			nums = nums[1:]
		default:
			if len(nums) > 0 && nums[0]>>netBits == ovKeys[0]>>netBits {
				nums = nums[1:] // the delta's entry takes its place
			}
			if i := ovKeys[0] & netMask; i != returnedNet {
				err = add(ovKeys[0]>>netBits, "", nets[i])
			}
			ovKeys = ovKeys[1:]
		}
		if err != nil {
			return BuildStats{}, err
		}
	}
	for _, e := range db.ranges.keys {
		if err := add(e>>netBits, "*", nets[e&netMask]); err != nil {
			return BuildStats{}, err
		}
	}
	if _, err := b.WriteTo(w); err != nil {
		return BuildStats{}, err
	}
	return b.Stats(), nil
}
