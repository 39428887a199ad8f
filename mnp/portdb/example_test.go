package portdb_test

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/numenhq/numen/mnp/portdb"
	"github.com/numenhq/numen/numbering"
)

const exampleCSV = `number_or_range,mccmnc,network name
+4915112345678,26203,Telefónica Germany
+4915112*,26202,Vodafone
+491511*,26201,Telekom
`

func ExampleBuild() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	var file bytes.Buffer
	stats, err := portdb.Build(&file, strings.NewReader(exampleCSV), portdb.BuildOptions{
		Plan:    plan,
		Regions: []string{"DE"},
		Source:  "example",
		Name:    "ported.csv",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d numbers, %d ranges, %d networks, regions %v, %d bytes\n",
		stats.Numbers, stats.Ranges, stats.Networks, stats.Regions, stats.Bytes)

	// Errors name the line.
	_, err = portdb.Build(&file, strings.NewReader("+4915112345678,2620\n"), portdb.BuildOptions{Plan: plan, Regions: []string{"DE"}, Name: "ported.csv"})
	fmt.Println(err)
	// Output:
	// 1 numbers, 2 ranges, 3 networks, regions [DE], 184 bytes
	// ported.csv:1: mccmnc "2620" must be 5 or 6 digits
}

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "portdb")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "ported.db")
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	created := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	if _, err := portdb.Build(f, strings.NewReader(exampleCSV), portdb.BuildOptions{Regions: []string{"DE"}, Source: "example", Created: created}); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}

	db, err := portdb.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if err := db.Verify(); err != nil {
		log.Fatal(err)
	}
	info := db.Info()
	fmt.Println(info.Source, info.Created.Format(time.DateOnly), info.Regions, info.Numbers, info.Ranges)
	// Output:
	// example 2025-06-01 [DE] 1 2
}

func ExampleDB_Lookup() {
	var file bytes.Buffer
	if _, err := portdb.Build(&file, strings.NewReader(exampleCSV), portdb.BuildOptions{Regions: []string{"DE"}}); err != nil {
		log.Fatal(err)
	}
	db, err := portdb.OpenBytes(file.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	for _, digits := range []string{"4915112345678", "4915112000000", "4915119999999", "4917612345678"} {
		r := db.Lookup(digits)
		if !r.Found() {
			fmt.Printf("%s: not ported\n", digits)
			continue
		}
		fmt.Printf("%s: %s (%s), exact %v, prefix %s\n", digits, r.MCCMNC(), r.Network(), r.Exact(), r.Prefix())
	}
	// Output:
	// 4915112345678: 26203 (Telefónica Germany), exact true, prefix 4915112345678
	// 4915112000000: 26202 (Vodafone), exact false, prefix 4915112
	// 4915119999999: 26201 (Telekom), exact false, prefix 491511
	// 4917612345678: not ported
}

func ExampleDB_Covers() {
	var file bytes.Buffer
	if _, err := portdb.Build(&file, strings.NewReader("+12125550100,310260\n"), portdb.BuildOptions{Regions: []string{"US"}}); err != nil {
		log.Fatal(err)
	}
	db, err := portdb.OpenBytes(file.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	// US and CA share +1; the database covers only the region it was
	// built for.
	fmt.Println(db.Covers("US"), db.Covers("CA"))
	// Output:
	// true false
}

func ExampleHolder() {
	open := func(csv string) *portdb.DB {
		var file bytes.Buffer
		if _, err := portdb.Build(&file, strings.NewReader(csv), portdb.BuildOptions{Regions: []string{"DE"}}); err != nil {
			log.Fatal(err)
		}
		db, err := portdb.OpenBytes(file.Bytes())
		if err != nil {
			log.Fatal(err)
		}
		return db
	}
	h := portdb.NewHolder(open("4915112345678,26201\n"))
	defer h.Close()
	fmt.Println(h.Lookup("4915112345678").MCCMNC())

	// A new export arrives: swap it in while lookups run. The old
	// database is closed when its last lookup has finished.
	h.Swap(open("4915112345678,26202\n"))
	fmt.Println(h.Lookup("4915112345678").MCCMNC())

	// Covers and Lookup on the same database, whatever swaps happen.
	h.View(func(db *portdb.DB) {
		fmt.Println(db.Covers("DE"), db.Lookup("4915112345678").Found())
	})
	// Output:
	// 26201
	// 26202
	// true true
}

func ExampleOnDamage() {
	dir, err := os.MkdirTemp("", "portdb")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "ported.db")
	var file bytes.Buffer
	if _, err := portdb.Build(&file, strings.NewReader(exampleCSV), portdb.BuildOptions{Regions: []string{"DE"}}); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, file.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	db, err := portdb.Open(path, portdb.WithVerify())
	if err != nil {
		log.Fatal(err)
	}
	h := portdb.NewHolder(db)
	defer h.Close()
	b := portdb.NewBackend(h, "portdb(ported.db)", portdb.OnDamage(func(err error) {
		fmt.Println("log:", err) // once per damaged database
	}))
	fmt.Println("health:", b.Health())

	// The file is truncated in place, as it never should be: the backend
	// answers no more lookups from it, and its health says why.
	if err := os.Truncate(path, int64(file.Len()-8)); err != nil {
		log.Fatal(err)
	}
	fmt.Println("health:", errors.Is(b.Health(), portdb.ErrChanged))
	fmt.Println("health:", errors.Is(b.Health(), portdb.ErrChanged))
	// Output:
	// health: <nil>
	// log: portdb(ported.db): portdb: the database file changed underneath while open (truncated or modified in place); replace a database file by renaming a new file over it, never by writing or truncating it in place
	// health: true
	// health: true
}

func ExampleHolder_Reload() {
	dir, err := os.MkdirTemp("", "portdb")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "ported.db")
	put := func(csv string) { // write under another name, then rename
		var file bytes.Buffer
		if _, err := portdb.Build(&file, strings.NewReader(csv), portdb.BuildOptions{Regions: []string{"DE"}}); err != nil {
			log.Fatal(err)
		}
		tmp := filepath.Join(dir, ".ported.db.tmp")
		if err := os.WriteFile(tmp, file.Bytes(), 0o644); err != nil {
			log.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			log.Fatal(err)
		}
	}
	put("4915112345678,26201\n")
	db, err := portdb.Open(path, portdb.WithVerify())
	if err != nil {
		log.Fatal(err)
	}
	h := portdb.NewHolder(db)
	defer h.Close()

	// A service runs Reload now and then: nothing new, nothing done.
	fmt.Println(h.Reload(path))
	put("4915112345678,26202\n") // a new export arrives
	fmt.Println(h.Reload(path))
	fmt.Println(h.Lookup("4915112345678").MCCMNC())
	// Output:
	// false <nil>
	// true <nil>
	// 26202
}
