package main

import "fmt"

const planUsage = `Usage:
  numen plan verify [FILE]

The numbering plan: the compiled file of number ranges, types, networks,
geography and time zones that numen classifies with. One is built in; go run
./data/gen writes a new one from newer libphonenumber data, which
numen --plan FILE uses without a new build of numen.

verify opens FILE (without FILE, the built-in plan), checks its checksums
and its whole structure (numbering.Plan.Verify), and prints its version and
what it holds. Exit status 1 when it is damaged or not a plan file, with the
section and byte at fault.
`

func (c *cli) planCmd(args []string) int {
	if len(args) == 0 {
		return c.usageError("plan", "missing subcommand: verify")
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "verify":
		return c.planVerify(rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(c.stdout, planUsage)
		return exitOK
	default:
		return c.usageError("plan", "unknown subcommand %q: want verify", sub)
	}
}

func (c *cli) planVerify(args []string) int {
	fs := newFlagSet("plan verify")
	if code, ok := c.parseFlags(fs, "plan", planUsage, args); !ok {
		return code
	}
	if fs.NArg() > 1 {
		return c.usageError("plan", "verify takes one FILE, not %d", fs.NArg())
	}
	file := fs.Arg(0)
	if file == "" {
		file = c.planFile
	}
	plan, err := c.plan(file)
	if err == nil {
		err = plan.Verify()
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "numen plan verify: %v\n", err)
		return exitError
	}
	if file == "" {
		file = "built-in plan"
	}
	info := plan.Info()
	_, err = fmt.Fprintf(c.stdout, "%s: ok\nversion: %s\nbytes: %d\nsections: %s\ncalling codes: %d, regions: %d\n",
		file, plan.Version(), info.Bytes, info.Sections, info.CallingCodes, info.Regions)
	if err != nil {
		fmt.Fprintf(c.stderr, "numen plan verify: %v\n", err)
		return exitError
	}
	return exitOK
}
