package portdb_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/numenhq/numen/mnp/portdb"
	"github.com/numenhq/numen/numbering"
)

// Yesterday's and today's exports, built as databases; the delta between
// them applied on top of yesterday's file, and compacted into a new base.
func ExampleDiff() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	build := func(csv string) []byte {
		var buf bytes.Buffer
		if _, err := portdb.Build(&buf, strings.NewReader(csv), portdb.BuildOptions{Plan: plan, Regions: []string{"DE"}}); err != nil {
			log.Fatal(err)
		}
		return buf.Bytes()
	}
	yesterday := build("+4915112345678,26203,Telefónica Germany\n+4915112345679,26202,Vodafone\n+491511*,26201,Telekom\n")
	today := build("+4915112345678,26202,Vodafone\n+4915112345670,26203,Telefónica Germany\n+491511*,26201,Telekom\n")
	oldDB, err := portdb.OpenBytes(yesterday)
	if err != nil {
		log.Fatal(err)
	}
	newDB, err := portdb.OpenBytes(today)
	if err != nil {
		log.Fatal(err)
	}
	delta, err := portdb.Diff(oldDB, newDB, time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	if err != nil {
		log.Fatal(err)
	}
	for e := range delta.Entries() {
		if e.Returned {
			fmt.Println(e.Number, "returned")
		} else {
			fmt.Println(e.Number, "to", e.Network.MCCMNC)
		}
	}
	var file bytes.Buffer // what numen portdb diff writes
	if _, err := delta.WriteTo(&file); err != nil {
		log.Fatal(err)
	}
	read, err := portdb.ReadDelta(&file, "today.delta")
	if err != nil {
		log.Fatal(err)
	}

	db, err := portdb.OpenBytes(yesterday, portdb.WithDeltas(read))
	if err != nil {
		log.Fatal(err)
	}
	for _, n := range []string{"4915112345678", "4915112345679", "4915112345670"} {
		r := db.Lookup(n)
		fmt.Println(n, r.MCCMNC(), r.Exact())
	}
	var compacted bytes.Buffer
	if _, err := portdb.Compact(&compacted, db, portdb.BuildOptions{Plan: plan}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("compacted == today's build:", bytes.Equal(compacted.Bytes(), today))

	// A delta names its base: it applies to no other database.
	_, err = portdb.OpenBytes(today, portdb.WithDeltas(read))
	fmt.Println(err != nil)
	// Output:
	// 4915112345670 to 26203
	// 4915112345678 to 26202
	// 4915112345679 returned
	// 4915112345678 26202 true
	// 4915112345679 26201 false
	// 4915112345670 26203 true
	// compacted == today's build: true
	// true
}
