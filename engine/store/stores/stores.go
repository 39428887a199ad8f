// Package stores opens a store.Database from the one setting that names
// it: a PostgreSQL URL (postgres:// or postgresql://) for sidecars that
// share state, or a data directory for the embedded SQLite store.
//
//	db, err := stores.Open(ctx, "/var/lib/numen")                    // SQLite
//	db, err := stores.Open(ctx, "postgres://numen@db.internal/numen") // PostgreSQL
package stores

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/sqlitestore"
)

// IsURL reports whether setting names a PostgreSQL database rather than a
// data directory.
func IsURL(setting string) bool {
	return strings.HasPrefix(setting, "postgres://") || strings.HasPrefix(setting, "postgresql://")
}

// Option configures Open.
type Option func(*options)

type options struct {
	logger   *slog.Logger
	sqlite   []sqlitestore.Option
	postgres []pgstore.Option
}

// WithLogger sets the store's logger, whichever it is.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// WithSQLite adds options that apply to the SQLite store only.
func WithSQLite(opts ...sqlitestore.Option) Option {
	return func(o *options) { o.sqlite = append(o.sqlite, opts...) }
}

// WithLeases sets how long a node's lease of a limited account's budget
// lasts on PostgreSQL and the grace after its end (pgstore.WithLeases;
// zero keeps a default). The SQLite store, one process, leases nothing.
func WithLeases(duration, grace time.Duration) Option {
	return func(o *options) { o.postgres = append(o.postgres, pgstore.WithLeases(duration, grace)) }
}

// The defaults of WithLeases.
const (
	DefaultLeaseDuration = pgstore.DefaultLeaseDuration
	DefaultLeaseGrace    = pgstore.DefaultLeaseGrace
)

// Open opens the database setting names, migrating its schema.
func Open(ctx context.Context, setting string, opts ...Option) (store.Database, error) {
	o := options{logger: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	if IsURL(setting) {
		return pgstore.Open(ctx, setting, append([]pgstore.Option{pgstore.WithLogger(o.logger)}, o.postgres...)...)
	}
	return sqlitestore.Open(ctx, setting, append([]sqlitestore.Option{sqlitestore.WithLogger(o.logger)}, o.sqlite...)...)
}
