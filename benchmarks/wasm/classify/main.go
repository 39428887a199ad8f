//go:build js && wasm

// Command classify is numbering alone built for the browser (GOOS=js
// GOARCH=wasm), to measure what a web page would load: it opens the plan
// file embedded beside it (which benchmarks/wasm/run.sh puts there: the
// whole plan, or the plan without geocoding and time zones) and classifies
// its arguments, printing each result as the API's NT JSON. It uses no
// encoding/json, fmt or regexp, as the browser module will not.
package main

import (
	_ "embed"
	"os"

	"github.com/numenhq/numen/numbering"
)

//go:embed plan.bin
var plan []byte

func main() {
	p, err := numbering.OpenBytes(plan)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	buf := make([]byte, 0, 1024)
	for _, arg := range os.Args[1:] {
		res := p.ClassifyString(arg)
		buf = append(res.AppendJSON(buf[:0]), '\n')
		os.Stdout.Write(buf)
	}
}
