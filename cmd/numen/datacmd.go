package main

import (
	"fmt"

	"github.com/numenhq/numen/engine/store/sqlitestore"
)

const dataUsage = `Usage: numen data check DIR
       numen data recover [--rebuild] DIR
       numen data backup DIR FILE

Checks and recovers the data directory of numen serve's embedded store
(--data DIR): the results database DIR/numen.db and the results log
DIR/results-log, where every result is written before it is answered.
Stop the server first: both take the directory's lock.

  check     reads without changing anything, and reports what is consistent
            (the database's schema, PRAGMA quick_check, its results against
            its reports, its position in the results log, the segments of
            the log from that position and their records) and what is not.
            Exit status 1 when anything is damaged or missing, or would
            stop numen serve from starting.
  recover   brings the database level with the results log, keeping
            everything the log still has: it commits every result the log
            holds past the database's position (after a crash, a restored
            backup, or into a missing or empty database), repairs records
            with one flipped bit, copies damaged records to
            DIR/results-log/damaged and keeps the records after them, and
            reports what is lost (missing segments, damaged records).
            A damaged numen.db is refused: restore it from a backup first,
            then recover (the results since the backup are in the log,
            which keeps its segments for results_log_retention, a day by
            default). --rebuild moves a damaged numen.db aside
            (numen.db.damaged-TIME) and rebuilds the results from the log
            alone.
  backup    writes a consistent copy of DIR/numen.db to the new FILE, while
            the server runs or not (SQLite's VACUUM INTO): restored over
            numen.db, it is caught up from the results log at the next
            start, when it is younger than results_log_retention.

numen serve refuses to start on a directory whose database does not match
its log (empty or missing database beside a log, a missing segment, a
damaged record), naming the problem and these commands; --start-anyway
(or "start_anyway": true in the config) starts it as recover would.
`

func (c *cli) data(args []string) int {
	if len(args) == 0 {
		return c.usageError("data", "want check, recover or backup")
	}
	fs := newFlagSet("data")
	rebuild := fs.Bool("rebuild", false, "")
	sub := args[0]
	if sub != "check" && sub != "recover" && sub != "backup" {
		if sub == "-h" || sub == "-help" || sub == "--help" {
			fmt.Fprint(c.stdout, dataUsage)
			return exitOK
		}
		return c.usageError("data", "unknown subcommand %q: want check, recover or backup", sub)
	}
	rest, code, ok := c.parseInterleaved(fs, "data", dataUsage, args[1:])
	if !ok {
		return code
	}
	switch {
	case sub == "backup" && len(rest) != 2:
		return c.usageError("data", "backup wants a data directory and a new file")
	case sub != "backup" && len(rest) != 1:
		return c.usageError("data", "%s wants one data directory", sub)
	case *rebuild && sub != "recover":
		return c.usageError("data", "--rebuild is for recover")
	}
	dir := rest[0]
	if sub == "backup" {
		if err := sqlitestore.Backup(dir, rest[1]); err != nil {
			fmt.Fprintf(c.stderr, "numen data backup: %v\n", err)
			return exitError
		}
		fmt.Fprintf(c.stdout, "backed up %s to %s\n", dir, rest[1])
		return exitOK
	}
	if sub == "check" {
		r, err := sqlitestore.Check(dir)
		if err != nil {
			fmt.Fprintf(c.stderr, "numen data check: %v\n", err)
			return exitError
		}
		for _, f := range r.Facts {
			fmt.Fprintf(c.stdout, "ok: %s\n", f)
		}
		for _, p := range r.Problems {
			fmt.Fprintf(c.stdout, "PROBLEM: %s\n", p)
		}
		if len(r.Problems) > 0 {
			fmt.Fprintf(c.stdout, "%d problem(s): see numen help data\n", len(r.Problems))
			return exitError
		}
		fmt.Fprintln(c.stdout, "consistent")
		return exitOK
	}
	r, err := sqlitestore.Recover(dir, *rebuild)
	printRecovery(c, r)
	if err != nil {
		fmt.Fprintf(c.stderr, "numen data recover: %v\n", err)
		return exitError
	}
	fmt.Fprintf(c.stdout, "recovered: %d results committed from the results log to the database\n", r.Replayed)
	return exitOK
}

// printRecovery writes what a recovery did, one line each.
func printRecovery(c *cli, r sqlitestore.Recovery) {
	for _, s := range r.Repaired {
		fmt.Fprintf(c.stdout, "repaired: %s\n", s)
	}
	for _, s := range r.Unfinished {
		fmt.Fprintf(c.stdout, "cleared: %s\n", s)
	}
	for _, s := range r.Problems {
		fmt.Fprintf(c.stdout, "problem (kept what the log holds): %s\n", s)
	}
}
