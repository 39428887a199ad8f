package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/numbering/textfmt"
	"github.com/numenhq/numen/routing"
)

const routeUsage = `Usage: numen route [--map FILE] [--platform FILE] [--coverage FILE] [--route ID] [--explain] [--country CC] [NUMBER...]

Decides the route an HLR lookup of each NUMBER would take, as GET /route does,
and prints one JSON object per number: the route decision (route,
confidence_level, mccmnc, origin) with the number and its routing_instruction.
Without NUMBER arguments it reads one number per line from standard input.

  --map FILE       the account's routing map (JSON, as GET /routing-map shows it,
                   or the map object alone); default: none
  --platform FILE  the platform's (global) rules, same format; default: the
                   embedded data/routing/platform.json
  --coverage FILE  routes and coverage scores (JSON, as GET /hlr-coverage shows
                   it); default: the embedded data/routing/coverage.json, whose
                   routes and scores are illustrative
  --route ID       a route named by the caller: STATIC:<ID>, no rules apply
  --explain        add "explain": every rule and score behind each decision
  --country CC     read numbers as written or dialled in country CC (ISO 3166-1
                   alpha-2), as numen nt --country does; default: international
                   format only

A map with problems is refused with every problem listed (exit status 1).
`

func (c *cli) route(args []string) int {
	fs := newFlagSet("route")
	mapFile := fs.String("map", "", "")
	platformFile := fs.String("platform", "", "")
	coverageFile := fs.String("coverage", "", "")
	static := fs.String("route", "", "")
	explain := fs.Bool("explain", false, "")
	country := fs.String("country", "", "")
	numbers, code, ok := c.parseInterleaved(fs, "route", routeUsage, args)
	if !ok {
		return code
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(c.stderr, "numen route: "+format+"\n", args...)
		return exitError
	}
	plan, err := c.plan("")
	if err != nil {
		return fail("loading numbering data: %v", err)
	}
	if err := checkCountry(plan, *country); err != nil {
		return c.usageError("route", "--country %q: %v", *country, err)
	}
	classify := lineClassifier{plan: plan, country: *country}
	cov, err := routing.DefaultCoverage()
	if *coverageFile != "" {
		cov, err = readFile(*coverageFile, routing.ParseCoverage)
	}
	if err != nil {
		return fail("%s", describeMapError(err))
	}
	platformMap, err := routing.DefaultPlatformMap()
	if *platformFile != "" {
		platformMap, err = readFile(*platformFile, routing.ParseMap)
	}
	if err != nil {
		return fail("%s", describeMapError(err))
	}
	var accountMap *routing.Map
	if *mapFile != "" {
		if accountMap, err = readFile(*mapFile, routing.ParseMap); err != nil {
			return fail("%s", describeMapError(err))
		}
	}
	platform, err := routing.NewPlatform(plan, cov, platformMap)
	if err != nil {
		return fail("%s", describeMapError(err))
	}
	resolver, err := platform.Resolver(accountMap)
	if err != nil {
		return fail("%s", describeMapError(err))
	}
	if *static != "" {
		if _, err := resolver.Static(&numbering.Result{}, *static); err != nil {
			return c.usageError("route", "--route %q: not a route of the coverage data (%s)", *static, strings.Join(append(cov.RoutesOf(routing.HLR), cov.RoutesOf(routing.MNP)...), ", "))
		}
	}

	out := bufio.NewWriterSize(c.stdout, 64<<10)
	decide := func(s string) error {
		res := classify.result(s)
		return writeRoute(out, resolver, &res, *static, *explain)
	}
	if len(numbers) > 0 {
		for _, s := range numbers {
			if err := decide(s); err != nil {
				return fail("writing output: %v", err)
			}
		}
	} else {
		sc := bufio.NewScanner(c.stdin)
		sc.Buffer(make([]byte, 0, scanBufferSize), scanBufferSize)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			if err := decide(line); err != nil {
				return fail("writing output: %v", err)
			}
		}
		if err := sc.Err(); err != nil {
			return fail("reading standard input: %v", err)
		}
	}
	if err := out.Flush(); err != nil {
		return fail("writing output: %v", err)
	}
	return exitOK
}

// routeLine is one line of numen route's output.
type routeLine struct {
	Number      string            `json:"number"`
	Decision    routing.Decision  `json:"-"`
	Instruction string            `json:"routing_instruction"`
	Explain     *explainedRouting `json:"explain,omitempty"`
}

type explainedRouting struct {
	Valid            bool                 `json:"is_valid"`
	InvalidReason    *string              `json:"invalid_reason"`
	CountryCode      *string              `json:"countrycode"`
	MNPFallback      bool                 `json:"mnp_fallback"`
	AccountPrefixes  []routing.PrefixRule `json:"account_prefixes"`
	PlatformPrefixes []routing.PrefixRule `json:"platform_prefixes"`
	AccountMCCMNC    *routing.MCCMNCRule  `json:"account_mccmnc"`
	PlatformMCCMNC   *routing.MCCMNCRule  `json:"platform_mccmnc"`
	AccountCountry   *routing.CountryRule `json:"account_country"`
	PlatformCountry  *routing.CountryRule `json:"platform_country"`
	ScoresFor        string               `json:"scores_for,omitempty"`
	Scores           []routing.Score      `json:"scores"`
}

func writeRoute(w io.Writer, r *routing.Resolver, res *numbering.Result, static string, explain bool) error {
	number := res.Input
	if !res.Number.IsZero() {
		number = res.Number.String()
	}
	var d routing.Decision
	var e routing.Explanation
	switch {
	case static != "":
		d, _ = r.Static(res, static) // the route was checked at start
	case explain:
		e = r.Explain(res)
		d = e.Decision
	default:
		d = r.Resolve(res)
	}
	// The decision object first, as GET /route has it, then the extras.
	obj := d.AppendJSON(nil)
	line := routeLine{Number: number, Instruction: d.Instruction()}
	if explain && static == "" {
		line.Explain = &explainedRouting{
			Valid: res.Valid, InvalidReason: nullable(res.Reason.String()), CountryCode: nullable(res.CountryCode),
			MNPFallback: e.MNPFallback, AccountPrefixes: e.AccountPrefixes, PlatformPrefixes: e.PlatformPrefixes,
			AccountMCCMNC: e.AccountMCCMNC, PlatformMCCMNC: e.PlatformMCCMNC,
			AccountCountry: e.AccountCountry, PlatformCountry: e.PlatformCountry,
			ScoresFor: e.ScoresFor, Scores: e.Scores,
		}
	}
	// Splice: {"route":...,"origin":...} + {"number":...} -> one object.
	obj = append(obj[:len(obj)-1], ',')
	if line.Explain == nil {
		obj = appendPlainRouteLine(obj, &line)
	} else {
		extra, err := json.Marshal(line)
		if err != nil {
			return err
		}
		obj = append(obj, extra[1:]...)
	}
	obj = append(obj, '\n')
	_, err := w.Write(obj)
	return err
}

// appendPlainRouteLine appends what json.Marshal writes for a line without
// Explain, less its opening brace, without its reflection: code and
// allocations that numen route for one number need not touch (issue 33;
// TestRouteLineAsMarshal holds it to json.Marshal).
func appendPlainRouteLine(b []byte, line *routeLine) []byte {
	b = append(b, `"number":`...)
	b = textfmt.AppendJSONString(b, line.Number)
	b = append(b, `,"routing_instruction":`...)
	b = textfmt.AppendJSONString(b, line.Instruction)
	return append(b, '}')
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// readFile reads a file and parses it.
func readFile[T any](name string, parse func([]byte) (T, error)) (T, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := parse(b)
	if err != nil {
		return v, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// describeMapError lists a *routing.MapError's problems one per line.
func describeMapError(err error) string {
	var me *routing.MapError
	if !errors.As(err, &me) || len(me.Problems) < 2 {
		return err.Error()
	}
	what := me.What
	if what == "" {
		what = "routing map"
	}
	prefix := strings.TrimSuffix(err.Error(), me.Error())
	return fmt.Sprintf("%s%s: %d problems:\n  %s", prefix, what, len(me.Problems), strings.Join(me.Problems, "\n  "))
}
