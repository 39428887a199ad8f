package stores_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/numenhq/numen/engine/store/sqlitestore"
	"github.com/numenhq/numen/engine/store/stores"
)

// A data directory opens the embedded SQLite store; a postgres:// URL
// would open PostgreSQL with the same call.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "numen-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	db, err := stores.Open(ctx, dir,
		stores.WithLogger(slog.New(slog.DiscardHandler)),
		stores.WithSQLite(sqlitestore.WithLogRetention(0)))
	if err != nil {
		panic(err)
	}
	defer db.Close()
	reports, err := db.Reports(ctx, "acct-1")
	fmt.Println(len(reports), err, db.Ping(ctx))
	fmt.Println(stores.IsURL(dir), stores.IsURL("postgres://numen@db.internal/numen"))
	// Output:
	// 0 <nil> <nil>
	// false true
}
