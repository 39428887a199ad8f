package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/numenhq/numen/mnp/portdb"
	"github.com/numenhq/numen/numbering"
)

const portdbUsage = `Usage:
  numen portdb build [--regions DE,AT] [--source TEXT] -o FILE INPUT
  numen portdb lookup [--deltas DIR] FILE [NUMBER...]
  numen portdb verify FILE [DELTA...]
  numen portdb diff [--time TIME] OLD NEW -o DELTA
  numen portdb apply [--source TEXT] BASE DELTA... -o FILE

The offline portability database: which numbers and number ranges have been
ported to which mobile network (MCCMNC).

build reads INPUT (a CSV file, or - for standard input), one row per line:

  number_or_range,mccmnc[,network name]

where number_or_range is an E.164 number (+4915112345678), a prefix ending in
"*" for every number starting with it (+4915112*), or a range of numbers of
one length (+491511200000-+491511299999). A header row, lines starting with
"#" and blank lines are skipped. It writes the database to FILE and prints
what it wrote to standard error. A bad row stops it with the line named
(exit status 1).

  --regions DE,AT  the regions the database covers (ISO 3166-1 alpha-2);
                   every row must be in one's calling code. Default: the
                   regions of the calling codes in the input, which must
                   each be a single region's (+49, not +1)
  --source TEXT    a description of the data, kept in the file
  -o FILE          the database to write (required); written whole or not
                   at all

The build time recorded is SOURCE_DATE_EPOCH when set, else none: the same
input gives the same file.

lookup classifies each NUMBER (or each line of standard input without
NUMBER arguments) and prints one JSON object per line: number, covered (the
database covers the number's region), is_ported (null when not covered),
mccmnc, network, and match ("number" for an entry of the number itself,
"range" for a prefix; null when not ported). It checks the whole file first,
as verify does: a damaged file is an error (exit status 1), never an answer.

  --deltas DIR  apply the delta files of DIR (*.delta, in name order) on
                top of FILE, as numen serve does with a backend's "deltas"

verify checks the whole file (checksum, order, networks) and prints its
header (exit status 1 when it is damaged). FILE may be a delta file, whose
checksum and entries it checks; with DELTA files, it checks that each
applies to FILE (made for it, numbers in its regions) and prints what they
change.

diff writes the delta file that turns the database OLD into NEW: the
numbers NEW has and OLD has not, or has with another network (ported or
moved), and the numbers OLD has and NEW has not (returned: answered by the
ranges again, or not ported). A delta carries numbers: OLD and NEW must
have the same ranges and regions (build a new base otherwise). It names OLD
(by its identity, which verify prints) as its base.

  --time TIME  the time stamp of the changes, RFC 3339 (default: NEW's
               build time, else now)
  -o DELTA     the delta file to write (required); written whole or not
               at all

apply compacts BASE and its DELTA files (applied in the order given; of
two changes of a number the later time stamp wins) into a new database
FILE: the file build makes from the same entries. The build time recorded
is SOURCE_DATE_EPOCH when set, else none, as for build.

  --source TEXT  a description of the data (default: BASE's)
  -o FILE        the database to write (required)

numen serve applies delta files too: put them in the directory named by a
portdb backend's "deltas" (the ENUM server's "portdb_deltas"); it takes new
ones at its periodic check and on SIGHUP.
`

func (c *cli) portdb(args []string) int {
	if len(args) == 0 {
		return c.usageError("portdb", "missing subcommand: build, lookup, verify, diff or apply")
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "build":
		return c.portdbBuild(rest)
	case "lookup":
		return c.portdbLookup(rest)
	case "verify":
		return c.portdbVerify(rest)
	case "diff":
		return c.portdbDiff(rest)
	case "apply":
		return c.portdbApply(rest)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(c.stdout, portdbUsage)
		return exitOK
	default:
		return c.usageError("portdb", "unknown subcommand %q: want build, lookup, verify, diff or apply", sub)
	}
}

func (c *cli) portdbFail(sub, format string, args ...any) int {
	fmt.Fprintf(c.stderr, "numen portdb %s: %s\n", sub, fmt.Sprintf(format, args...))
	return exitError
}

func (c *cli) portdbBuild(args []string) int {
	fs := newFlagSet("portdb build")
	regions := fs.String("regions", "", "")
	source := fs.String("source", "", "")
	out := fs.String("o", "", "")
	inputs, code, ok := c.parseInterleaved(fs, "portdb", portdbUsage, args)
	if !ok {
		return code
	}
	switch {
	case *out == "":
		return c.usageError("portdb", "build: missing -o FILE")
	case len(inputs) == 0:
		return c.usageError("portdb", "build: missing INPUT (a CSV file, or - for standard input)")
	case len(inputs) > 1:
		return c.usageError("portdb", "build: unexpected argument %q", inputs[1])
	}
	plan, err := c.plan("")
	if err != nil {
		return c.portdbFail("build", "loading numbering data: %v", err)
	}
	var regionList []string
	for _, r := range strings.Split(*regions, ",") {
		if r = strings.ToUpper(strings.TrimSpace(r)); r == "" {
			continue
		}
		if len(r) != 2 || plan.CallingCode(r) == 0 {
			return c.usageError("portdb", "build: --regions: unknown region %q", r)
		}
		regionList = append(regionList, r)
	}
	name, in := inputs[0], c.stdin
	if name == "-" {
		name = "stdin"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return c.portdbFail("build", "%v", err)
		}
		defer f.Close()
		in = f
	}
	b, err := portdb.NewBuilder(portdb.BuildOptions{Plan: plan, Regions: regionList, Source: *source, Name: name})
	if err != nil {
		return c.portdbFail("build", "%v", err)
	}
	if err := b.ReadCSV(bufio.NewReaderSize(in, 1<<20)); err != nil {
		return c.portdbFail("build", "%v", err)
	}
	if err := writeAtomically(*out, func(w io.Writer) error {
		_, err := b.WriteTo(w)
		return err
	}); err != nil {
		return c.portdbFail("build", "%v", err)
	}
	st := b.Stats()
	fmt.Fprintf(c.stderr, "numen portdb build: wrote %s: %d numbers, %d ranges, %d networks, regions %s, %d bytes (%d rows)\n",
		*out, st.Numbers, st.Ranges, st.Networks, strings.Join(st.Regions, ","), st.Bytes, st.Rows)
	return exitOK
}

// writeAtomically writes a file through a temporary file in the same
// directory, renamed over it when complete: readers see the old file or the
// new one, never part of one, and a failed build leaves nothing behind.
func writeAtomically(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// portdbLine is one line of numen portdb lookup's output.
type portdbLine struct {
	Number   string  `json:"number"`
	Covered  bool    `json:"covered"`
	IsPorted *bool   `json:"is_ported"`
	MCCMNC   *string `json:"mccmnc"`
	Network  *string `json:"network"`
	Match    *string `json:"match"`
}

func (c *cli) portdbLookup(args []string) int {
	fs := newFlagSet("portdb lookup")
	deltaDir := fs.String("deltas", "", "")
	rest, code, ok := c.parseInterleaved(fs, "portdb", portdbUsage, args)
	if !ok {
		return code
	}
	if len(rest) == 0 {
		return c.usageError("portdb", "lookup: missing database FILE")
	}
	path, numbers := rest[0], rest[1:]
	plan, err := c.plan("")
	if err != nil {
		return c.portdbFail("lookup", "loading numbering data: %v", err)
	}
	// Verify before answering: Open checks only the header, and a damaged
	// body could otherwise answer with another network. One pass over the
	// file (50 ms for 10 million entries) is small beside starting a process.
	files, err := deltaFiles(*deltaDir)
	if err != nil {
		return c.portdbFail("lookup", "%v", err)
	}
	deltas, err := readDeltas(files)
	if err != nil {
		return c.portdbFail("lookup", "%v", err) // names the file
	}
	db, err := portdb.Open(path, portdb.WithVerify(), portdb.WithDeltas(deltas...))
	if err != nil {
		return c.portdbFail("lookup", "%v", err) // names the file
	}
	defer db.Close()

	out := bufio.NewWriterSize(c.stdout, 64<<10)
	lookup := func(s string) error {
		line, err := lookupLine(plan, db, s)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		b, err := json.Marshal(line)
		if err != nil {
			return err
		}
		_, err = out.Write(append(b, '\n'))
		return err
	}
	if len(numbers) > 0 {
		for _, s := range numbers {
			if err := lookup(s); err != nil {
				return c.portdbFail("lookup", "%v", err)
			}
		}
	} else {
		sc := bufio.NewScanner(c.stdin)
		sc.Buffer(make([]byte, 0, scanBufferSize), scanBufferSize)
		for sc.Scan() {
			if s := strings.TrimSpace(sc.Text()); s != "" {
				if err := lookup(s); err != nil {
					return c.portdbFail("lookup", "%v", err)
				}
			}
		}
		if err := sc.Err(); err != nil {
			return c.portdbFail("lookup", "reading standard input: %v", err)
		}
	}
	if err := out.Flush(); err != nil {
		return c.portdbFail("lookup", "writing output: %v", err)
	}
	return exitOK
}

// lookupLine classifies s and looks it up when the database covers its
// region. The error is a damaged database's.
func lookupLine(plan *numbering.Plan, db *portdb.DB, s string) (portdbLine, error) {
	res := plan.ClassifyString(s)
	line := portdbLine{Number: s}
	if res.Number.IsZero() {
		return line, nil
	}
	line.Number = res.Number.String()
	line.Covered = res.CountryCode != "" && db.Covers(res.CountryCode)
	if !line.Covered {
		return line, nil
	}
	r := db.Lookup(line.Number[1:])
	if err := r.Err(); err != nil {
		return line, err
	}
	ported := r.Found()
	line.IsPorted = &ported
	if ported {
		match := "range"
		if r.Exact() {
			match = "number"
		}
		line.MCCMNC, line.Network, line.Match = nullable(r.MCCMNC()), nullable(r.Network()), &match
	}
	return line, nil
}

func (c *cli) portdbVerify(args []string) int {
	fs := newFlagSet("portdb verify")
	rest, code, ok := c.parseInterleaved(fs, "portdb", portdbUsage, args)
	if !ok {
		return code
	}
	if len(rest) == 0 {
		return c.usageError("portdb", "verify: missing database FILE")
	}
	if isDelta, err := isDeltaFile(rest[0]); err != nil {
		return c.portdbFail("verify", "%v", err)
	} else if isDelta {
		if len(rest) > 1 {
			return c.usageError("portdb", "verify: %s is a delta file: give its base database first", rest[0])
		}
		d, err := portdb.ReadDeltaFile(rest[0])
		if err != nil {
			return c.portdbFail("verify", "%v", err) // names the file
		}
		if _, err := fmt.Fprintf(c.stdout, "%s: ok (delta)\nbase: %016x\ncreated: %s\n%s", rest[0], d.Base, d.Created.Format(time.RFC3339), deltaCounts(d)); err != nil {
			return c.portdbFail("verify", "writing output: %v", err)
		}
		return exitOK
	}
	deltas, err := readDeltas(rest[1:])
	if err != nil {
		return c.portdbFail("verify", "%v", err)
	}
	db, err := portdb.Open(rest[0], portdb.WithVerify(), portdb.WithDeltas(deltas...))
	if err != nil {
		return c.portdbFail("verify", "%v", err) // names the file
	}
	defer db.Close()
	info := db.Info()
	created := "not recorded"
	if !info.Created.IsZero() {
		created = info.Created.Format(time.RFC3339)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ok\nformat version: %d\ncreated: %s\nsource: %s\nregions: %s\nnumbers: %d\nranges: %d\nnetworks: %d\nsize: %d bytes\nidentity: %016x\n",
		rest[0], info.Version, created, info.Source, strings.Join(info.Regions, ","), info.Numbers, info.Ranges, info.Networks, info.Size, db.Identity())
	for i, d := range deltas {
		fmt.Fprintf(&b, "%s: ok (delta %d, created %s)\n%s", d.Name, i+1, d.Created.Format(time.RFC3339), deltaCounts(d))
	}
	if len(deltas) > 0 {
		fmt.Fprintf(&b, "numbers the deltas change: %d (%d bytes of memory)\n", info.DeltaNumbers, info.DeltaBytes)
	}
	if _, err := io.WriteString(c.stdout, b.String()); err != nil {
		return c.portdbFail("verify", "writing output: %v", err)
	}
	return exitOK
}

// deltaCounts describes a delta's entries for verify.
func deltaCounts(d *portdb.Delta) string {
	ported, returned := 0, 0
	for e := range d.Entries() {
		if e.Returned {
			returned++
		} else {
			ported++
		}
	}
	return fmt.Sprintf("entries: %d (%d ported or moved, %d returned)\n", d.Len(), ported, returned)
}

// isDeltaFile reports whether the file at path starts as a delta file
// does rather than as a database.
func isDeltaFile(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, len(deltaFileStart))
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == deltaFileStart, nil
}

// deltaFileStart is how a delta file starts (see mnp/portdb).
const deltaFileStart = "numen-portdb-delta "

// readDeltas reads delta files; an error names the file.
func readDeltas(paths []string) ([]*portdb.Delta, error) {
	var out []*portdb.Delta
	for _, p := range paths {
		d, err := portdb.ReadDeltaFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func (c *cli) portdbDiff(args []string) int {
	fs := newFlagSet("portdb diff")
	at := fs.String("time", "", "")
	out := fs.String("o", "", "")
	rest, code, ok := c.parseInterleaved(fs, "portdb", portdbUsage, args)
	if !ok {
		return code
	}
	switch {
	case *out == "":
		return c.usageError("portdb", "diff: missing -o DELTA")
	case len(rest) < 2:
		return c.usageError("portdb", "diff: want OLD and NEW database files")
	case len(rest) > 2:
		return c.usageError("portdb", "diff: unexpected argument %q", rest[2])
	}
	var when time.Time
	if *at != "" {
		t, err := time.Parse(time.RFC3339, *at)
		if err != nil {
			return c.usageError("portdb", "diff: --time: %q is not an RFC 3339 time such as 2026-11-26T12:00:00Z", *at)
		}
		when = t
	}
	old, err := portdb.Open(rest[0], portdb.WithVerify())
	if err != nil {
		return c.portdbFail("diff", "%v", err)
	}
	defer old.Close()
	nw, err := portdb.Open(rest[1], portdb.WithVerify())
	if err != nil {
		return c.portdbFail("diff", "%v", err)
	}
	defer nw.Close()
	if when.IsZero() {
		if when = nw.Info().Created; when.IsZero() {
			when = time.Now()
		}
	}
	d, err := portdb.Diff(old, nw, when)
	if err != nil {
		return c.portdbFail("diff", "%s and %s: %v", rest[0], rest[1], err)
	}
	d.Name = *out
	if err := writeAtomically(*out, func(w io.Writer) error {
		_, err := d.WriteTo(w)
		return err
	}); err != nil {
		return c.portdbFail("diff", "%v", err)
	}
	fmt.Fprintf(c.stderr, "numen portdb diff: wrote %s for base %s (%016x): %s", *out, rest[0], d.Base, deltaCounts(d))
	return exitOK
}

func (c *cli) portdbApply(args []string) int {
	fs := newFlagSet("portdb apply")
	source := fs.String("source", "", "")
	out := fs.String("o", "", "")
	rest, code, ok := c.parseInterleaved(fs, "portdb", portdbUsage, args)
	if !ok {
		return code
	}
	switch {
	case *out == "":
		return c.usageError("portdb", "apply: missing -o FILE")
	case len(rest) < 2:
		return c.usageError("portdb", "apply: want BASE and at least one DELTA file")
	}
	plan, err := c.plan("")
	if err != nil {
		return c.portdbFail("apply", "loading numbering data: %v", err)
	}
	deltas, err := readDeltas(rest[1:])
	if err != nil {
		return c.portdbFail("apply", "%v", err)
	}
	db, err := portdb.Open(rest[0], portdb.WithVerify(), portdb.WithDeltas(deltas...))
	if err != nil {
		return c.portdbFail("apply", "%v", err)
	}
	defer db.Close()
	var st portdb.BuildStats
	if err := writeAtomically(*out, func(w io.Writer) error {
		st, err = portdb.Compact(w, db, portdb.BuildOptions{Plan: plan, Source: *source, Name: rest[0]})
		return err
	}); err != nil {
		return c.portdbFail("apply", "%v", err)
	}
	fmt.Fprintf(c.stderr, "numen portdb apply: wrote %s: %d numbers, %d ranges, %d networks, regions %s, %d bytes (%s and %d %s)\n",
		*out, st.Numbers, st.Ranges, st.Networks, strings.Join(st.Regions, ","), st.Bytes, rest[0], len(deltas), plural(len(deltas), "delta", "deltas"))
	return exitOK
}

// plural returns one or many according to n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
