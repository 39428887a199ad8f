package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/nyaruka/phonenumbers/v2/metadata"
)

// The carrier names of earlier libphonenumber releases.
//
// libphonenumber's carrier data names the network a range belongs to today
// as its maintainers know it: after a merger or a rebranding, the buyer or
// the new brand. The rename audit (renames.go) needs what each range was
// called before, release by release. extractHistory reads it from a git
// clone of libphonenumber (every release tag's resources/carrier/en/*.txt)
// and from the carrier table the generator reads now, and writes the
// renames found into a compact, committed file (renameHistoryFile), so
// that generation stays offline: go run ./data/gen -rename-history GITDIR.

// renameHistoryFile is the committed history, relative to data/sources.
const renameHistoryFile = "libphonenumber-carrier-renames.tsv"

// release is one snapshot of libphonenumber's carrier names.
type release struct {
	name  string            // "8.12.0"
	names map[string]string // E.164 prefix -> carrier name
}

// releaseTags lists the release tags of a libphonenumber clone in release
// order: libphonenumber-7.0.2 ... v9.0.35.
func releaseTags(gitDir string) ([]string, error) {
	out, err := gitOutput(gitDir, "tag")
	if err != nil {
		return nil, err
	}
	type tag struct {
		name string
		v    [3]int
	}
	var tags []tag
	for _, t := range strings.Fields(string(out)) {
		v, ok := parseReleaseTag(t)
		if ok {
			tags = append(tags, tag{t, v})
		}
	}
	sort.Slice(tags, func(i, j int) bool {
		return slices.Compare(tags[i].v[:], tags[j].v[:]) < 0
	})
	names := make([]string, len(tags))
	for i, t := range tags {
		names[i] = t.name
	}
	return names, nil
}

// parseReleaseTag reads "v8.12.0" or "libphonenumber-7.0.2".
func parseReleaseTag(t string) ([3]int, bool) {
	var v [3]int
	s, ok := strings.CutPrefix(t, "v")
	if !ok {
		if s, ok = strings.CutPrefix(t, "libphonenumber-"); !ok {
			return v, false
		}
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func releaseName(tag string) string {
	s, ok := strings.CutPrefix(tag, "v")
	if !ok {
		s = strings.TrimPrefix(tag, "libphonenumber-")
	}
	return s
}

func gitOutput(gitDir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"--git-dir", gitDir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out, nil
}

// readReleases reads the English carrier files of every release tag. Files
// that did not change between releases are read once.
func readReleases(gitDir string) ([]release, error) {
	tags, err := releaseTags(gitDir)
	if err != nil {
		return nil, err
	}
	if len(tags) == 0 {
		return nil, fmt.Errorf("%s: no release tags", gitDir)
	}
	cmd := exec.Command("git", "--git-dir", gitDir, "cat-file", "--batch")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	r := bufio.NewReader(stdout)
	blob := func(id string) ([]byte, error) {
		if _, err := fmt.Fprintln(stdin, id); err != nil {
			return nil, err
		}
		head, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		f := strings.Fields(head)
		if len(f) != 3 || f[1] != "blob" {
			return nil, fmt.Errorf("git cat-file %s: %q", id, head)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, err
		}
		b := make([]byte, n+1) // and the newline after the contents
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		return b[:n], nil
	}
	parsed := map[string]map[string]string{} // blob id -> prefix -> name
	var out []release
	for _, tag := range tags {
		tree, err := gitOutput(gitDir, "ls-tree", tag, "resources/carrier/en/")
		if err != nil {
			return nil, err
		}
		rel := release{name: releaseName(tag), names: map[string]string{}}
		for _, l := range strings.Split(strings.TrimSpace(string(tree)), "\n") {
			meta, path, ok := strings.Cut(l, "\t")
			f := strings.Fields(meta)
			if !ok || len(f) != 3 || f[1] != "blob" || !strings.HasSuffix(path, ".txt") {
				continue
			}
			id := f[2]
			m, seen := parsed[id]
			if !seen {
				b, err := blob(id)
				if err != nil {
					return nil, err
				}
				if m, err = parseCarrierFile(b); err != nil {
					return nil, fmt.Errorf("%s:%s: %w", tag, path, err)
				}
				parsed[id] = m
			}
			for p, n := range m {
				rel.names[p] = n
			}
		}
		if len(rel.names) == 0 {
			return nil, fmt.Errorf("%s: no carrier data under resources/carrier/en", tag)
		}
		out = append(out, rel)
	}
	return out, nil
}

// parseCarrierFile reads one of libphonenumber's prefix files
// ("prefix|name" lines, # comments).
func parseCarrierFile(b []byte) (map[string]string, error) {
	out := map[string]string{}
	for n, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		p, name, ok := strings.Cut(l, "|")
		if !ok || !allDigits(p) {
			return nil, fmt.Errorf("line %d: %q", n+1, l)
		}
		if name = strings.TrimSpace(name); name != "" {
			out[p] = name
		}
	}
	return out, nil
}

// nameAt is the carrier name a release gives the numbers of prefix: its own
// or that of the longest prefix covering it; else, when the release splits
// the prefix into finer ones that all have one name, that name.
func nameAt(rel release, sorted []string, prefix string) string {
	for l := len(prefix); l > 0; l-- {
		if n, ok := rel.names[prefix[:l]]; ok {
			return n
		}
	}
	i, _ := slices.BinarySearch(sorted, prefix)
	name := ""
	for ; i < len(sorted) && strings.HasPrefix(sorted[i], prefix); i++ {
		n := rel.names[sorted[i]]
		if name != "" && n != name {
			return ""
		}
		name = n
	}
	return name
}

// renameStep is one rename found in the history: the ranges of prefixes
// were called old until a release and new from it on.
type renameStep struct {
	release, old, new string
	prefixes          []string
}

// findRenames follows every prefix of the last release back through the
// earlier ones and returns the renames of its numbers' carrier, one step
// per (release, old name, new name, calling code), prefixes sorted. A
// release that names no carrier for the numbers is skipped (the name before
// it and after it are compared).
func findRenames(releases []release) []renameStep {
	sorted := make([][]string, len(releases))
	for i, r := range releases {
		for p := range r.names {
			sorted[i] = append(sorted[i], p)
		}
		slices.Sort(sorted[i])
	}
	steps := map[[4]string]*renameStep{}
	for _, prefix := range sorted[len(releases)-1] {
		prev := ""
		for i, r := range releases {
			n := nameAt(r, sorted[i], prefix)
			if n == "" {
				continue
			}
			if prev != "" && n != prev {
				cc, _ := callingCodeOf(prefix)
				key := [4]string{r.name, prev, n, strconv.Itoa(cc)}
				s := steps[key]
				if s == nil {
					s = &renameStep{release: r.name, old: prev, new: n}
					steps[key] = s
				}
				s.prefixes = append(s.prefixes, prefix)
			}
			prev = n
		}
	}
	out := make([]renameStep, 0, len(steps))
	for _, s := range steps {
		slices.Sort(s.prefixes)
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.prefixes[0] != b.prefixes[0] {
			return a.prefixes[0] < b.prefixes[0]
		}
		if a.release != b.release {
			ra, _ := parseReleaseTag("v" + a.release)
			rb, _ := parseReleaseTag("v" + b.release)
			return slices.Compare(ra[:], rb[:]) < 0
		}
		return a.old+"\x00"+a.new < b.old+"\x00"+b.new
	})
	return out
}

// carrierDigest identifies a carrier table: the first 16 hex digits of
// its SHA-256.
func carrierDigest(carrierTSV []byte) string {
	sum := sha256.Sum256(carrierTSV)
	return hex.EncodeToString(sum[:8])
}

// carrierRelease reads the generator's carrier table (sorted
// "prefix<TAB>name" lines) as a release.
func carrierRelease(name string, carrierTSV []byte) release {
	rel := release{name: name, names: map[string]string{}}
	for _, l := range strings.Split(strings.TrimSuffix(string(carrierTSV), "\n"), "\n") {
		if p, n, ok := strings.Cut(l, "\t"); ok {
			rel.names[p] = n
		}
	}
	return rel
}

// writeHistory writes the history file: a header naming the releases read
// and the last one (whose carrier table the generator must be reading),
// then "last", the last release and its carrier table's digest, then one line per rename step: release, old name, new name, prefixes.
func writeHistory(w io.Writer, releases []release, steps []renameStep, digest string) {
	fmt.Fprintf(w, "# Renames of carriers in libphonenumber's carrier data (resources/carrier/en), release by release:\n")
	fmt.Fprintf(w, "# from %s to %s (%d releases; the last is the carrier table go run ./data/gen reads).\n", releases[0].name, releases[len(releases)-1].name, len(releases))
	fmt.Fprintf(w, "# Contains data from libphonenumber, Copyright (C) Google Inc., licensed under the Apache License, Version 2.0.\n")
	fmt.Fprintf(w, "# Generated by go run ./data/gen -rename-history GITDIR; do not edit. Columns: release of the new name,\n")
	fmt.Fprintf(w, "# old name, new name, E.164 prefixes of the last release whose numbers were renamed (comma-separated).\n")
	fmt.Fprintf(w, "last\t%s\t%s\t%s\n", releases[len(releases)-1].name, digest, stepsDigest(steps))
	for _, s := range steps {
		fmt.Fprintf(w, "%s\n", s.line())
	}
}

// line is the step's line of the history file.
func (s renameStep) line() string {
	return s.release + "\t" + s.old + "\t" + s.new + "\t" + strings.Join(s.prefixes, ",")
}

// stepsDigest identifies the history's steps, so that a step edited or
// deleted by hand after -rename-history wrote them fails the generator:
// the first 16 hex digits of the SHA-256 of their lines.
func stepsDigest(steps []renameStep) string {
	h := sha256.New()
	for _, s := range steps {
		fmt.Fprintf(h, "%s\n", s.line())
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// extractHistory writes the history file into dir from a libphonenumber
// clone at gitDir and the carrier table the generator reads now (release
// current).
func extractHistory(gitDir, dst, current string, carrierTSV []byte) error {
	releases, err := readReleases(gitDir)
	if err != nil {
		return err
	}
	releases = append(releases, carrierRelease(strings.TrimPrefix(current, "v"), carrierTSV))
	steps := findRenames(releases)
	var b bytes.Buffer
	writeHistory(&b, releases, steps, carrierDigest(carrierTSV))
	if err := os.WriteFile(dst, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s (%d releases, %d rename steps, %d bytes)\n", dst, len(releases), len(steps), b.Len())
	return nil
}

// writeRenameHistory is -rename-history: the history file from the clone
// at gitDir and the carrier table of the phonenumbers module.
func writeRenameHistory(gitDir, out, moduleDir string) error {
	if moduleDir == "" {
		var err error
		if moduleDir, err = findModuleDir(); err != nil {
			return err
		}
	}
	carrier, err := readPrefixMap(filepath.Join(moduleDir, "carrier", "data", "en.txt.gz"), false)
	if err != nil {
		return err
	}
	return extractHistory(gitDir, filepath.Join(out, "sources", renameHistoryFile), metadata.Version, carrier)
}
