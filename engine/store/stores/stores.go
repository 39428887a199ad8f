// Package stores opens a store.Database from the one setting that names
// it: a PostgreSQL URL (postgres:// or postgresql://) for sidecars that
// share state, or a data directory for the embedded SQLite store.
//
//	db, err := stores.Open(ctx, "/var/lib/numen")                    // SQLite
//	db, err := stores.Open(ctx, "postgres://numen@db.internal/numen") // PostgreSQL
package stores

import (
	"context"
	"strings"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/sqlitestore"
)

// IsURL reports whether setting names a PostgreSQL database rather than a
// data directory.
func IsURL(setting string) bool {
	return strings.HasPrefix(setting, "postgres://") || strings.HasPrefix(setting, "postgresql://")
}

// Open opens the database setting names, migrating its schema. The
// options apply to the SQLite store only.
func Open(ctx context.Context, setting string, sqliteOpts ...sqlitestore.Option) (store.Database, error) {
	if IsURL(setting) {
		return pgstore.Open(ctx, setting)
	}
	return sqlitestore.Open(ctx, setting, sqliteOpts...)
}
