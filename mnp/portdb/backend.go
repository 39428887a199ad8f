package portdb

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

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
//
// A database whose file is found changed underneath while serving
// (ErrChanged: truncated or rewritten in place) answers no more lookups:
// each is an mnp.Unavailable error, on which the engine asks the route's
// next backend, and is counted (Refused). The backend reports the damage
// once per database to the function given by OnDamage, and Health reports
// it until a new database is swapped in.
type Backend struct {
	holder   *Holder
	name     string
	onDamage func(err error)
	refused  atomic.Uint64
	// reported is the last database whose damage went to onDamage.
	reported atomic.Pointer[DB]
}

// BackendOption configures NewBackend.
type BackendOption func(*Backend)

// OnDamage makes the backend call f once for each database it finds
// changed underneath while serving, with the error (naming the backend
// and wrapping ErrChanged), from the lookup or Health call that found it:
// for a log line. f must not block.
func OnDamage(f func(err error)) BackendOption {
	return func(b *Backend) { b.onDamage = f }
}

// NewBackend returns a backend over h; name appears in errors.
func NewBackend(h *Holder, name string, opts ...BackendOption) *Backend {
	if name == "" {
		name = "portdb"
	}
	b := &Backend{holder: h, name: name}
	for _, opt := range opts {
		opt(b)
	}
	return b
}

// Refused returns how many lookups the backend refused because the file
// of its database had changed underneath (ErrChanged).
func (b *Backend) Refused() uint64 { return b.refused.Load() }

// Health returns nil when the backend can answer: it holds a database
// whose file has not been found changed underneath (DB.Changed, which
// reads one entry of the file). Otherwise it returns an error naming the
// backend and wrapping ErrChanged or ErrNoDatabase.
func (b *Backend) Health() error {
	var err error
	b.holder.View(func(db *DB) {
		switch {
		case db == nil:
			err = fmt.Errorf("%s: %w", b.name, ErrNoDatabase)
		case db.Changed():
			err = b.damaged(db)
		}
	})
	return err
}

// damaged returns the error of db found changed, and reports it to
// onDamage the first time for db.
func (b *Backend) damaged(db *DB) error {
	err := fmt.Errorf("%s: %w", b.name, ErrChanged)
	for {
		last := b.reported.Load()
		if last == db {
			return err
		}
		if b.reported.CompareAndSwap(last, db) {
			if b.onDamage != nil {
				b.onDamage(err)
			}
			return err
		}
	}
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
			if errors.Is(err, ErrChanged) {
				b.refused.Add(1)
				b.damaged(db)
			}
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
