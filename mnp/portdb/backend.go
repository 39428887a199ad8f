package portdb

import (
	"context"
	"errors"

	"github.com/numenhq/numen/mnp"
)

// Backend answers the engine's portability queries (mnp.PortabilityBackend)
// from the database a Holder holds, so that the file can be replaced while
// lookups run.
//
// For a number of a country the database covers, an entry (for the number or
// a range it is in) means ported to the entry's network, and no entry means
// not ported. For a number of any other country the answer is REJECTED with
// mnp.CodeNoPortabilityData and is_ported unknown: never a guessed false.
type Backend struct {
	holder *Holder
	name   string
}

// NewBackend returns a backend over h; name appears in errors.
func NewBackend(h *Holder, name string) *Backend {
	if name == "" {
		name = "portdb"
	}
	return &Backend{holder: h, name: name}
}

// ErrNoDatabase is the cause of the unavailable error of a backend whose
// Holder holds no database.
var ErrNoDatabase = errors.New("no portability database loaded")

// Portability implements mnp.PortabilityBackend. It allocates only the
// number's digit string.
func (b *Backend) Portability(ctx context.Context, q mnp.Query) (mnp.PortAnswer, error) {
	var buf [24]byte
	digits := q.Number.AppendTo(buf[:0])
	if len(digits) > 0 && digits[0] == '+' {
		digits = digits[1:]
	}
	var (
		ans    mnp.PortAnswer
		err    error
		loaded bool
	)
	b.holder.View(func(db *DB) {
		if db == nil {
			return
		}
		loaded = true
		if q.Region == "" || !db.Covers(q.Region) {
			ans = mnp.PortAnswer{Status: mnp.Rejected, Code: mnp.CodeNoPortabilityData}
			return
		}
		r := db.Lookup(string(digits))
		if err = r.Err(); err != nil {
			return
		}
		switch {
		case r.Found() && r.MCCMNC() != q.MCCMNC:
			ans = mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.True, Network: mnp.NetworkRef{MCCMNC: r.MCCMNC(), Name: r.Network()}}
		default: // no entry, or an entry that names the original network (ported back)
			ans = mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: q.MCCMNC}}
		}
	})
	switch {
	case errors.Is(err, ErrChanged):
		// The file was truncated under the server: this database cannot
		// answer until it is replaced, and another backend may.
		return mnp.PortAnswer{}, mnp.Unavailable(b.name, mnp.CodeUnavailable, err)
	case err != nil:
		return mnp.PortAnswer{}, &mnp.BackendError{Backend: b.name, Code: mnp.CodeInternal, Err: err}
	case !loaded:
		return mnp.PortAnswer{}, mnp.Unavailable(b.name, mnp.CodeUnavailable, ErrNoDatabase)
	}
	return ans, nil
}
