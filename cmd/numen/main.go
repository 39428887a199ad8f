// Command numen is the command-line face of the Numen numbering engine.
//
//	numen nt [--format json|csv|table] [NUMBER...]   classify phone numbers
//	numen format [--style S] [--from CC] [NUMBER...] write numbers as people write them
//	numen route [--map FILE] [--explain] [NUMBER...] decide the routes of HLR lookups
//	numen short --country CC [NUMBER...]            short and emergency numbers of a region
//	numen serve --config FILE | --demo              serve the lookup API (/api/v2)
//	numen config check FILE                         check a config file of serve
//	numen call METHOD PATH [BODY]                   send one request to the API
//	numen portdb build|lookup|verify                the offline portability database
//	numen plan verify [FILE]                        check a numbering plan file
//	numen data check|recover DIR                    check and recover a data directory
//	numen balance show|top-up KEY [AMOUNT]          an API key's prepaid balance
//	numen version                                   print the program and data versions
//	numen help [command]                            show usage
//
// Before or after the command, --plan FILE uses another numbering plan
// file than the built-in one and --overlay FILE (repeatable) compiles
// corrections and new ranges over it. Flags are spelt with two dashes
// (--format); the flag package's single dash works as well.
//
// "numen nt" without NUMBER arguments reads one number per line from standard
// input and streams the results in constant memory, so
//
//	numen nt < million.txt > out.jsonl
//
// classifies a file of any size. Exit status: 0 when all input was processed
// (invalid numbers are results, not errors), 1 for I/O errors, 2 for usage
// errors.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/numenhq/numen/numbering"
)

// version is the program's version; release builds set it with
//
//	go build -ldflags "-X main.version=v1.2.3" ./cmd/numen
//
// Otherwise the module version from the build information is used, when
// there is one (go install github.com/numenhq/numen/cmd/numen@v1.2.3).
var version = "devel"

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // I/O errors, data that does not load
	exitUsage = 2 // unknown command, flag or format
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run runs the command line args (without the program name) and returns the
// exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, loadPlan: numbering.Load}
	return c.run(args)
}

// cli is one invocation of the command: its standard streams, the way it
// loads the numbering plan (tests share one loaded plan between runs) and
// the overlays given with --overlay.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	loadPlan       func(...numbering.Option) (*numbering.Plan, error)
	planFile       string   // --plan: a plan file to use instead of the built-in one
	overlays       []string // --overlay files
}

// plan loads the numbering plan: the --plan file or planFile (a serve
// config's) when given, else the built-in one, with the --overlay files
// and more (a serve config's).
func (c *cli) plan(planFile string, more ...string) (*numbering.Plan, error) {
	var opts []numbering.Option
	for _, path := range append(c.overlays[:len(c.overlays):len(c.overlays)], more...) {
		opts = append(opts, numbering.WithOverlayFile(path))
	}
	if c.planFile != "" {
		planFile = c.planFile
	}
	if planFile != "" {
		return numbering.Open(planFile, opts...)
	}
	return c.loadPlan(opts...)
}

const usageText = `Numen classifies phone numbers offline: type, validity, country and network.

Usage:
  numen <command> [arguments] [--plan FILE] [--overlay FILE]...

Commands:
  nt        classify phone numbers (from arguments or standard input)
  format    write phone numbers as people write them (international,
            national, E.164, RFC 3966, or as dialled from a region)
  find      find the phone numbers in text (files or standard input)
  route     decide the route of HLR lookups, with routing maps and coverage
  short     short and emergency numbers dialled in a region (--country CC)
  serve     serve the lookup API (/api/v2); --demo runs it on a simulator
  config    check a config file of serve (numen config check FILE): every
            problem at once, as FILE:LINE:COLUMN: SETTING: MESSAGE
  call      send one request to the lookup API: signed with a key, or
            without one for the public endpoints (numen call GET /time)
  users     manage the people who sign in to the report pages
  portdb    build, query and verify the offline portability database
  plan      check a numbering plan file (numen plan verify FILE)
  data      check and recover serve's data directory (numen data check DIR)
  balance   show or top up an API key's prepaid balance (PostgreSQL)
  version   print the numen version and the numbering data version
  help      show this help, or a command's: numen help <command>

--plan FILE uses a numbering plan file (such as one go run ./data/gen wrote
from newer libphonenumber data) instead of the one built into numen. Like
--overlay, it may come before or after the command.
--overlay FILE compiles an overlay over the numbering plan: corrections and
new ranges, one per line, as "prefix<TAB>type<TAB>network<TAB>MCCMNC<TAB>note"
(see go doc numbering, section Overlays). It may be given more than once.

Flags are written --name VALUE or --name=VALUE, after the command or among
its arguments.

Run "numen help nt" for the options of nt.
`

func (c *cli) run(args []string) int {
	args, code, ok := c.globalFlags(args, true)
	if !ok {
		return code
	}
	if len(args) == 0 {
		fmt.Fprint(c.stderr, usageText)
		return exitUsage
	}
	// The global flags may follow the command too, as its own flags may.
	rest, code, ok := c.globalFlags(args[1:], false)
	if !ok {
		return code
	}
	args = append(args[:1:1], rest...)
	switch cmd, rest := args[0], args[1:]; cmd {
	case "nt":
		return c.nt(rest)
	case "format":
		return c.format(rest)
	case "find":
		return c.find(rest)
	case "route":
		return c.route(rest)
	case "short":
		return c.short(rest)
	case "version":
		return c.version(rest)
	case "portdb":
		return c.portdb(rest)
	case "plan":
		return c.planCmd(rest)
	case "data":
		return c.data(rest)
	case "serve":
		return c.serve(rest)
	case "config":
		return c.config(rest)
	case "call":
		return c.call(rest)
	case "users":
		return c.users(rest)
	case "balance":
		return c.balance(rest)
	case "help", "-h", "-help", "--help":
		return c.help(rest)
	default:
		fmt.Fprintf(c.stderr, "numen: unknown command %q\nRun \"numen help\" for usage.\n", cmd)
		return exitUsage
	}
}

// globalFlags takes --plan FILE and --overlay FILE (also -plan, =FILE)
// out of args and returns the rest: those before the first other argument
// when leading, else those anywhere before a "--".
func (c *cli) globalFlags(args []string, leading bool) (rest []string, code int, ok bool) {
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			return append(rest, args[i:]...), exitOK, true
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !strings.HasPrefix(arg, "-") || name != "overlay" && name != "plan" {
			if leading {
				return append(rest, args[i:]...), exitOK, true
			}
			rest = append(rest, arg)
			continue
		}
		if !hasValue {
			if i+1 >= len(args) || args[i+1] == "" {
				fmt.Fprintf(c.stderr, "numen: --%s needs a file\nRun \"numen help\" for usage.\n", name)
				return nil, exitUsage, false
			}
			i++
			value = args[i]
		}
		if name == "plan" {
			c.planFile = value
		} else {
			c.overlays = append(c.overlays, value)
		}
	}
	return rest, exitOK, true
}

func (c *cli) help(args []string) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(c.stdout, usageText)
	case len(args) == 1 && args[0] == "nt":
		fmt.Fprint(c.stdout, ntUsage)
	case len(args) == 1 && args[0] == "format":
		fmt.Fprint(c.stdout, formatUsage)
	case len(args) == 1 && args[0] == "find":
		fmt.Fprint(c.stdout, findUsage)
	case len(args) == 1 && args[0] == "route":
		fmt.Fprint(c.stdout, routeUsage)
	case len(args) == 1 && args[0] == "short":
		fmt.Fprint(c.stdout, shortUsage)
	case len(args) == 1 && args[0] == "version":
		fmt.Fprint(c.stdout, versionUsage)
	case len(args) == 1 && args[0] == "portdb":
		fmt.Fprint(c.stdout, portdbUsage)
	case len(args) == 1 && args[0] == "plan":
		fmt.Fprint(c.stdout, planUsage)
	case len(args) == 1 && args[0] == "data":
		fmt.Fprint(c.stdout, dataUsage)
	case len(args) == 1 && args[0] == "balance":
		fmt.Fprint(c.stdout, balanceUsage)
	case len(args) == 1 && args[0] == "serve":
		fmt.Fprint(c.stdout, serveUsage)
	case len(args) == 1 && args[0] == "call":
		fmt.Fprint(c.stdout, callUsage)
	case len(args) == 1 && args[0] == "config":
		fmt.Fprint(c.stdout, configUsage)
	case len(args) == 1 && args[0] == "users":
		fmt.Fprint(c.stdout, usersUsage)
	case len(args) == 1 && args[0] == "help":
		fmt.Fprint(c.stdout, usageText)
	default:
		fmt.Fprintf(c.stderr, "numen help: unknown command %q\nRun \"numen help\" for usage.\n", args[0])
		return exitUsage
	}
	return exitOK
}

const versionUsage = `Usage: numen version

Prints the version of numen and of the numbering data built into it.
`

func (c *cli) version(args []string) int {
	fs := newFlagSet("version")
	if code, ok := c.parseFlags(fs, "version", versionUsage, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError("version", "unexpected argument %q", fs.Arg(0))
	}
	plan, err := c.plan("")
	if err != nil {
		fmt.Fprintf(c.stderr, "numen version: loading numbering data: %v\n", err)
		return exitError
	}
	if _, err := fmt.Fprintf(c.stdout, "numen %s\nnumbering data: %s\n", programVersion(), plan.Version()); err != nil {
		fmt.Fprintf(c.stderr, "numen version: %v\n", err)
		return exitError
	}
	return exitOK
}

// programVersion returns the version set at link time, else the main
// module's version from the build information, else "devel".
func programVersion() string {
	if version != "devel" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}

// newFlagSet returns a flag set that reports nothing itself: parseFlags
// prints errors in one place, in numen's words.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args into fs. When it returns ok false, the command is
// over and code is its exit status: 0 after printing the usage asked for
// with -h, 2 after a usage error.
func (c *cli) parseFlags(fs *flag.FlagSet, cmd, usage string, args []string) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(c.stdout, usage)
		return exitOK, false
	default:
		return c.usageError(cmd, "%s", flagMessage(err)), false
	}
}

// flagErrors are the flag package's messages, which name a flag with one
// dash ("-format"), and the words numen says them in, with two. The
// patterns are compiled when a message needs them, not when every command
// starts (issue 33: five regular expressions compiled at start were 470
// allocations and the regexp compiler's code in each command's memory).
var flagErrors = [...]struct{ pattern, with string }{
	{`^flag provided but not defined: -+(.*)$`, "unknown flag --$1"},
	{`^flag needs an argument: -+(.*)$`, "--$1 needs a value"},
	{`^invalid (?:boolean )?value (".*") for (?:flag )?-+([^:]+): (.*)$`, "--$2 $1: $3"},
	{`^bad flag syntax: (.*)$`, "bad flag syntax: $1 (flags are --name or --name=value)"},
}

// flagMessage is a flag parsing error in numen's words: flags spelt as
// the help spells them, --format.
func flagMessage(err error) string {
	msg := err.Error()
	// A negative number is read as a flag: say so rather than name a flag
	// "--5" that nobody wrote.
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		if _, err := strconv.ParseFloat(name, 64); err == nil {
			return fmt.Sprintf("-%s reads as a flag; put -- before arguments that start with -", name)
		}
	}
	for _, e := range flagErrors {
		if re := regexp.MustCompile(e.pattern); re.MatchString(msg) {
			return re.ReplaceAllString(msg, e.with)
		}
	}
	return msg
}

// parseInterleaved parses flags that may come before, between and after the
// arguments ("--" ends them) and returns the arguments. The flag package
// stops at the first argument that is not a flag; this carries on after it.
func (c *cli) parseInterleaved(fs *flag.FlagSet, cmd, usage string, args []string) (rest []string, code int, ok bool) {
	for {
		if code, ok := c.parseFlags(fs, cmd, usage, args); !ok {
			return nil, code, false
		}
		left := fs.Args()
		if len(left) == 0 {
			return rest, exitOK, true
		}
		if used := len(args) - len(left); used > 0 && args[used-1] == "--" {
			return append(rest, left...), exitOK, true
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
}

func (c *cli) usageError(cmd, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "numen %s: %s\nRun \"numen help %s\" for usage.\n", cmd, fmt.Sprintf(format, args...), cmd)
	return exitUsage
}
