package sqlitestore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store/sqlitestore"
	"github.com/numenhq/numen/engine/store/storetest"
)

// A database emptied under its results log: Open refuses, Check names the
// problem, and Recover commits every result the log holds.
func ExampleRecover() {
	dir, err := os.MkdirTemp("", "numen-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	st, err := sqlitestore.Open(context.Background(), dir)
	if err != nil {
		panic(err)
	}
	for i, id := range []string{"x7k2m9q4w1ab", "x7k2m9q4w1ac", "x7k2m9q4w1ad"} {
		r := storetest.NewRecord("demo", "SYNC-API-NT-2026-11", engine.ProductNT, id, storetest.Base, i)
		if err := st.Record(context.Background(), r); err != nil {
			panic(err)
		}
	}
	if err := st.Close(); err != nil {
		panic(err)
	}
	if err := os.Truncate(filepath.Join(dir, sqlitestore.FileName), 0); err != nil {
		panic(err)
	}

	_, err = sqlitestore.Open(context.Background(), dir)
	var mismatch *sqlitestore.MismatchError
	fmt.Println("open refused:", errors.As(err, &mismatch))
	report, err := sqlitestore.Check(dir)
	if err != nil {
		panic(err)
	}
	fmt.Println("problems:", len(report.Problems))
	rec, err := sqlitestore.Recover(dir, false)
	if err != nil {
		panic(err)
	}
	fmt.Println("recovered:", rec.Replayed)
	report, err = sqlitestore.Check(dir)
	if err != nil {
		panic(err)
	}
	fmt.Println("problems:", len(report.Problems))
	// Output:
	// open refused: true
	// problems: 1
	// recovered: 3
	// problems: 0
}
