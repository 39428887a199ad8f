// Command phonenumbers is the reference for numen's start-up figures
// (benchmarks/startup/run.sh): the smallest program that classifies the
// numbers of its arguments with github.com/nyaruka/phonenumbers, the Go port
// of libphonenumber, and prints one line per number (E.164, validity, type,
// region), as "numen nt" does with more attributes.
package main

import (
	"fmt"
	"os"

	"github.com/nyaruka/phonenumbers/v2"
)

func main() {
	for _, arg := range os.Args[1:] {
		n, err := phonenumbers.Parse(arg, "")
		if err != nil {
			fmt.Printf("%s\tinvalid\t%v\n", arg, err)
			continue
		}
		fmt.Printf("%s\t%t\t%v\t%s\n",
			phonenumbers.Format(n, phonenumbers.E164),
			phonenumbers.IsValidNumber(n),
			phonenumbers.GetNumberType(n),
			phonenumbers.GetRegionCodeForNumber(n))
	}
}
