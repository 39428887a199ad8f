// Command numbering is the floor of numen's start-up figures
// (benchmarks/startup/run.sh): the smallest program that classifies the
// numbers of its arguments with Numen's numbering package (the built-in plan)
// and prints one JSON object per number, as "numen nt" does, without the
// command line's other packages.
package main

import (
	"fmt"
	"os"

	"github.com/numenhq/numen/numbering"
)

func main() {
	plan, err := numbering.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var b []byte
	for _, arg := range os.Args[1:] {
		r := plan.ClassifyString(arg)
		b = append(r.AppendJSON(b[:0]), '\n')
		os.Stdout.Write(b)
	}
}
