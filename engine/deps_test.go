package engine_test

import (
	"bytes"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The dependency direction of the module, as a statement of policy:
//
//   - numbering imports nothing of ours but data; routing imports numbering
//     and data; mnp imports numbering at most, and its remote client
//     (mnp/remote) also engine/auth, a leaf that imports nothing of ours,
//     and engine/apiv2, the wire types.
//   - engine imports all of them; engine/httpapi, the HTTP adapter, is
//     imported only by the command (cmd) and the benchmarks that measure
//     it; engine/store and engine/bulk never import engine/httpapi or
//     routing (accounts and metrics are engine-level types).
//   - Only engine/store/... imports a database driver (and database/sql):
//     the store owns the database. The benchmarks' tests may too, to
//     measure the driver itself.
//   - numbering, routing and mnp itself never import net/http or a database
//     driver; backend subpackages (mnp/remote) and engine/... do.
//   - cmd, wasm and benchmarks sit on top: nothing below imports them, but
//     tests may import wasm/jstest, test support that imports nothing of
//     ours (a headless-Chromium launcher and pinned npm packages).
//   - The reference library (github.com/nyaruka/phonenumbers) is for tests,
//     the plan compiler (numbering/compile, data/gen) and the benchmarks,
//     never for the code that classifies numbers.
//
// allowed writes this down for every package of the module (go list ./...,
// and ./wasm, numbering, routing and data for GOOS=js GOARCH=wasm), one
// line per package: what its non-test files may import, and what its test
// files may import on top of that. A package's external tests may always
// import the package itself. TestDependencyDirection checks every import
// against the package's line; TestAllowListKeepsDirection checks the lines
// against the rules above, so a line cannot quietly allow a wrong arrow.
//
// An entry is a package path relative to the module (engine/auth), a
// package of another module or of the standard library (net/http), a path
// ending in /... (that package and everything below it) or a group in
// capitals (groups, below). The standard library is free to import, except
// net/http/... and database/sql/..., which a line must name.
//
// A new package is a new line here; a new import, a word on a line.
var allowed = map[string]struct{ imports, tests string }{
	"data":                       {"", ""},
	"data/gen":                   {"numbering numbering/compile routing PHONENUMBERS XTEXT PROTOBUF", "CMP net/http/..."},
	"numbering":                  {"data numbering/internal/planfmt numbering/prefixmap numbering/textfmt", "numbering/compile numbering/textfmt/verbscan PHONENUMBERS PROTOBUF RADIX CMP TESTIFY"},
	"numbering/compile":          {"numbering/internal/planfmt numbering/prefixmap PHONENUMBERS", ""},
	"numbering/internal/planfmt": {"", ""},
	"numbering/prefixmap":        {"", ""},
	"numbering/textfmt":          {"", "TESTIFY"},
	"numbering/textfmt/verbscan": {"numbering/textfmt", ""},
	"numbering/textfmt/jsonpos":  {"numbering/textfmt", "CMP TESTIFY"},
	"routing":                    {"data numbering numbering/prefixmap numbering/textfmt numbering/textfmt/jsonpos RADIX", "PHONENUMBERS CMP TESTIFY"},
	"mnp":                        {"numbering", "TESTIFY"},
	"mnp/enum":                   {"github.com/miekg/dns mnp", "TESTIFY mnp/enum/enumtest numbering"},
	"mnp/enum/enumtest":          {"github.com/miekg/dns", ""},
	"mnp/portdb":                 {"mnp numbering", "TESTIFY"},
	"mnp/remote":                 {"engine/apiv2 engine/auth mnp net/http/...", "numbering TESTIFY"},
	"mnp/simnet":                 {"mnp numbering", "TESTIFY"},

	"engine":                           {"engine/apiv2 mnp numbering routing", "mnp/remote mnp/simnet net/http/... TESTIFY"},
	"engine/account":                   {"engine", ""},
	"engine/apiv2":                     {"numbering numbering/textfmt", "numbering TESTIFY"},
	"engine/auth":                      {"net/http", "TESTIFY net/http/..."},
	"engine/bulk":                      {"engine engine/account engine/apiv2 engine/store engine/webhook RIVER", "engine/auth engine/store/pgstore engine/store/pgstore/pgtest engine/store/sqlitestore mnp numbering TESTIFY net/http/..."},
	"engine/enumserver":                {"mnp/portdb numbering", "github.com/miekg/dns mnp mnp/enum mnp/enum/enumtest"},
	"engine/httpapi":                   {"engine engine/account engine/apiv2 engine/auth engine/httpapi/internal/promtext engine/store engine/users golang.org/x/time/rate net/http/... numbering routing", "PROMETHEUS engine/store/pgstore engine/store/pgstore/pgtest engine/store/sqlitestore engine/store/storetest mnp mnp/remote mnp/simnet wasm/jstest CHROMEDP CMP TESTIFY"},
	"engine/store":                     {"engine engine/apiv2 engine/store/internal/facts RIVER", "engine/store/storetest TESTIFY"},
	"engine/store/pgstore":             {"engine engine/auth engine/store engine/store/internal/core RIVER RIVERDRIVERS PGX", "engine/store/internal/facts engine/store/pgstore/pgtest engine/store/storetest TESTIFY"},
	"engine/store/pgstore/pgtest":      {"PGX", ""},
	"engine/store/sqlitestore":         {"engine engine/store engine/store/internal/core engine/store/internal/facts RIVER RIVERDRIVERS SQLITE database/sql", "engine/store/storetest CMP TESTIFY"},
	"engine/store/stores":              {"engine/store engine/store/pgstore engine/store/sqlitestore", ""},
	"engine/store/storetest":           {"engine engine/apiv2 engine/store engine/store/internal/core engine/store/internal/facts RIVER TESTIFY", ""},
	"engine/store/internal/core":       {"engine engine/store engine/store/internal/facts RIVER RIVERDRIVERS", "engine/apiv2 engine/store/storetest TESTIFY"},
	"engine/store/internal/facts":      {"engine engine/apiv2", ""},
	"engine/httpapi/internal/promtext": {"", "PROMETHEUS"},
	"engine/users":                     {"golang.org/x/crypto/argon2 numbering/textfmt/jsonpos", "TESTIFY"},
	"engine/webhook":                   {"engine/apiv2 engine/auth net/http numbering/textfmt", "TESTIFY net/http/..."},

	"cmd/numen": {"engine engine/account engine/auth engine/bulk engine/enumserver engine/httpapi engine/store engine/store/sqlitestore engine/store/stores engine/users engine/webhook mnp/enum mnp/portdb mnp/remote mnp/simnet numbering numbering/textfmt numbering/textfmt/jsonpos routing wasm/webpkg golang.org/x/term net/http",
		"data engine/apiv2 engine/store/pgstore engine/store/pgstore/pgtest mnp/enum/enumtest numbering/compile PHONENUMBERS TESTIFY github.com/miekg/dns net/http/..."},

	"wasm":                        {"numbering numbering/textfmt routing", "numbering/compile TESTIFY"},
	"wasm/build":                  {"numbering numbering/compile wasm/build/internal/deflate BROTLI", "benchmarks data routing wasm/jstest wasm/webpkg CHROMEDP TESTIFY net/http/..."},
	"wasm/build/internal/deflate": {"", "data numbering/compile"},
	"wasm/jstest":                 {"CHROMEDP", "TESTIFY"},
	"wasm/webpkg":                 {"numbering numbering/textfmt BROTLI net/http", "data numbering/compile TESTIFY net/http/..."},

	"benchmarks":                      {"PHONENUMBERS", "numbering"},
	"benchmarks/browser":              {"", "benchmarks wasm/jstest wasm/webpkg BROTLI CHROMEDP net/http/..."},
	"benchmarks/enum/client":          {"", "mnp mnp/enum mnp/enum/enumtest numbering github.com/miekg/dns"},
	"benchmarks/enum/gen":             {"engine/enumserver mnp/portdb numbering github.com/miekg/dns", ""},
	"benchmarks/http":                 {"", "engine engine/account engine/auth engine/httpapi engine/store/pgstore engine/store/pgstore/pgtest engine/store/sqlitestore mnp/simnet numbering SQLITE database/sql net/http/..."},
	"benchmarks/startup/measure":      {"", ""},
	"benchmarks/startup/planpages":    {"data numbering", ""},
	"benchmarks/startup/numbering":    {"numbering", ""},
	"benchmarks/startup/phonenumbers": {"PHONENUMBERS", ""},
	"benchmarks/http/bare":            {"net/http", ""},
	"benchmarks/http/stall":           {"engine/auth net/http", ""},
}

// groups name the packages of other modules that several lines allow.
var groups = map[string]string{
	"BROTLI":       "github.com/andybalholm/brotli",
	"CHROMEDP":     "github.com/chromedp/...",
	"CMP":          "github.com/google/go-cmp/...",
	"PGX":          "github.com/jackc/pgx/v5/...",
	"PHONENUMBERS": "github.com/nyaruka/phonenumbers/v2/...",
	"PROMETHEUS":   "github.com/prometheus/...",
	"PROTOBUF":     "google.golang.org/protobuf/...",
	"RADIX":        "github.com/armon/go-radix",
	"RIVER":        "github.com/riverqueue/river github.com/riverqueue/river/rivertype github.com/riverqueue/river/rivermigrate",
	"RIVERDRIVERS": "github.com/riverqueue/river/riverdriver/...",
	"SQLITE":       "modernc.org/sqlite/...",
	"TESTIFY":      "github.com/stretchr/testify/...",
	"XTEXT":        "golang.org/x/text/...",
}

const module = "github.com/numenhq/numen"

// pkgImports are the imports of one package, by its non-test and its test
// files, with paths of this module relative to it.
type pkgImports struct{ imports, tests []string }

// listImports lists every package of the module with its imports: the
// host's build and GOOS=js GOARCH=wasm's for the packages built for
// browsers.
func listImports(t *testing.T) map[string]*pkgImports {
	t.Helper()
	pkgs := map[string]*pkgImports{}
	for _, run := range []struct {
		env      []string
		patterns []string
	}{
		{nil, []string{"./..."}},
		{[]string{"GOOS=js", "GOARCH=wasm"}, []string{"./wasm", "./numbering/...", "./routing/...", "./data/..."}},
	} {
		cmd := exec.Command("go", append([]string{"list", "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .TestImports " "}} {{join .XTestImports " "}}`}, run.patterns...)...)
		cmd.Dir = ".." // the module's root: ./... is every package, not engine's
		cmd.Env = append(cmd.Environ(), run.env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v %s: %v\n%s", run.env, cmd, err, stderr.Bytes())
		}
		for line := range strings.Lines(strings.TrimSpace(string(out))) {
			parts := strings.Split(strings.TrimSpace(line), "|")
			if len(parts) != 3 {
				t.Fatalf("go list printed %q", line)
			}
			pkg := relative(parts[0])
			p := pkgs[pkg]
			if p == nil {
				p = &pkgImports{}
				pkgs[pkg] = p
			}
			for _, imp := range strings.Fields(parts[1]) {
				p.imports = append(p.imports, relative(imp))
			}
			for _, imp := range strings.Fields(parts[2]) {
				p.tests = append(p.tests, relative(imp))
			}
		}
	}
	if len(pkgs) < 30 || pkgs["numbering"] == nil || pkgs["wasm"] == nil {
		t.Fatalf("go list listed %d packages: %v", len(pkgs), slices.Sorted(maps.Keys(pkgs)))
	}
	for _, p := range pkgs {
		slices.Sort(p.imports)
		p.imports = slices.Compact(p.imports)
		slices.Sort(p.tests)
		p.tests = slices.Compact(p.tests)
	}
	return pkgs
}

// relative makes a path of this module relative to it.
func relative(path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

// expand replaces the groups of a list by their packages.
func expand(t *testing.T, list string) []string {
	var out []string
	for _, e := range strings.Fields(list) {
		if strings.ToUpper(e) == e && !strings.ContainsAny(e, "./") {
			g, ok := groups[e]
			if !ok {
				t.Errorf("engine/deps_test.go: no group %s in groups", e)
			}
			out = append(out, strings.Fields(g)...)
			continue
		}
		out = append(out, e)
	}
	return out
}

// matches reports whether an entry of a line allows the path.
func matches(entry, path string) bool {
	if base, ok := strings.CutSuffix(entry, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return entry == path
}

// free reports whether a package of the standard library may be imported
// without a word on the package's line.
func free(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".") && !ours(path) && !isHTTP(path) && !isDriver(path)
}

// ours reports whether a relative path is a package of this module: every
// other import path starts with a domain (or is the standard library's).
func ours(path string) bool {
	return path == "." || pathsOfOurs[strings.SplitN(path, "/", 2)[0]]
}

// pathsOfOurs are the first elements of the module's package paths.
var pathsOfOurs = map[string]bool{"benchmarks": true, "cmd": true, "data": true, "engine": true, "mnp": true, "numbering": true, "routing": true, "wasm": true}

func TestDependencyDirection(t *testing.T) {
	t.Parallel()
	pkgs := listImports(t)
	for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
		line, ok := allowed[pkg]
		if !ok {
			t.Errorf("%s is not in the allow-list: add a line for it to allowed in engine/deps_test.go if its imports follow the dependency direction written above allowed; as it imports now:\n\t%q: {%q, %q},",
				pkg, pkg, suggest(t, pkg, pkgs[pkg].imports, nil), suggest(t, pkg, pkgs[pkg].tests, pkgs[pkg].imports))
			continue
		}
		imports, tests := expand(t, line.imports), expand(t, line.tests)
		check := func(imp, files, half string, entries []string) {
			if imp == pkg || free(imp) || slices.ContainsFunc(entries, func(e string) bool { return matches(e, imp) }) {
				return
			}
			t.Errorf("%s imports %s in its %s, which its line in allowed (engine/deps_test.go) does not allow: if the arrow follows the dependency direction written above allowed, add %s to the line's %s",
				pkg, imp, files, imp, half)
		}
		for _, imp := range pkgs[pkg].imports {
			check(imp, "non-test files", "first string (imports)", imports)
		}
		for _, imp := range pkgs[pkg].tests {
			check(imp, "test files", "second string (tests)", append(imports, tests...))
		}
	}
	for _, pkg := range slices.Sorted(maps.Keys(allowed)) {
		if pkgs[pkg] == nil {
			t.Errorf("allowed (engine/deps_test.go) has a line for %s, which go list does not list: remove the line", pkg)
		}
	}
}

// suggest writes the entries of a line that allow the imports, but
// those that the standard library's freedom or the line's first half
// (covered) allows already: groups where a group allows the import.
func suggest(t *testing.T, pkg string, imports, covered []string) string {
	var words []string
	for _, imp := range imports {
		if imp == pkg || free(imp) || slices.Contains(covered, imp) {
			continue
		}
		word := imp
		for _, name := range slices.Sorted(maps.Keys(groups)) {
			if slices.ContainsFunc(expand(t, name), func(e string) bool { return matches(e, imp) }) {
				word = name
				break
			}
		}
		if !slices.Contains(words, word) {
			words = append(words, word)
		}
	}
	return strings.Join(words, " ")
}

// under reports whether path is the package dir or below it.
func under(path string, dirs ...string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

// isHTTP reports whether a path is net/http or below it.
func isHTTP(path string) bool { return under(path, "net/http") }

// isDriver reports whether a path is a database driver, a River driver
// or database/sql.
func isDriver(path string) bool {
	return under(path, "modernc.org/sqlite", "github.com/jackc/pgx", "github.com/riverqueue/river/riverdriver", "database/sql")
}

// direction is the dependency direction of the comment above allowed, as
// rules over the lines of allowed: ok reports whether the package pkg may
// name imp on its line (test: on the tests half of it).
var direction = []struct {
	rule string
	ok   func(pkg, imp string, test bool) bool
}{
	{"numbering imports nothing of ours but data", func(pkg, imp string, _ bool) bool {
		return !under(pkg, "numbering") || !ours(imp) || under(imp, "numbering", "data")
	}},
	{"routing imports numbering and data", func(pkg, imp string, _ bool) bool {
		return !under(pkg, "routing") || !ours(imp) || under(imp, "routing", "numbering", "data")
	}},
	{"mnp imports numbering at most, its remote client also engine/auth and engine/apiv2", func(pkg, imp string, _ bool) bool {
		if !under(pkg, "mnp") || !ours(imp) || under(imp, "mnp", "numbering") {
			return true
		}
		return under(pkg, "mnp/remote") && under(imp, "engine/auth", "engine/apiv2")
	}},
	{"engine/auth and wasm/jstest are leaves: they import nothing of ours", func(pkg, imp string, _ bool) bool {
		return !under(pkg, "engine/auth", "wasm/jstest") || !ours(imp)
	}},
	{"numbering, routing and mnp itself never import net/http or a database driver", func(pkg, imp string, _ bool) bool {
		return !(under(pkg, "numbering", "routing") || pkg == "mnp") || !(isHTTP(imp) || isDriver(imp))
	}},
	{"only engine/store/... imports a database driver (and the benchmarks' tests, which measure it)", func(pkg, imp string, test bool) bool {
		return !isDriver(imp) || under(pkg, "engine/store") || test && under(pkg, "benchmarks")
	}},
	{"engine/httpapi is imported only by cmd (and the benchmarks, which measure it)", func(pkg, imp string, _ bool) bool {
		return !under(imp, "engine/httpapi") || under(pkg, "engine/httpapi", "cmd", "benchmarks")
	}},
	{"engine/store and engine/bulk never import engine/httpapi or routing", func(pkg, imp string, _ bool) bool {
		return !under(pkg, "engine/store", "engine/bulk") || !under(imp, "engine/httpapi", "routing")
	}},
	{"nothing below cmd, wasm and benchmarks imports them, but tests may import wasm/jstest", func(pkg, imp string, test bool) bool {
		if under(pkg, "cmd", "wasm", "benchmarks") || !under(imp, "cmd", "wasm", "benchmarks") {
			return true
		}
		return test && imp == "wasm/jstest"
	}},
	{"the reference library is for tests, the plan compiler and the benchmarks only", func(pkg, imp string, test bool) bool {
		return !under(imp, "github.com/nyaruka/phonenumbers") || test || under(pkg, "numbering/compile", "data/gen", "benchmarks")
	}},
}

// TestAllowListKeepsDirection checks the lines of allowed against the
// dependency direction: a line that allows a wrong arrow fails here, even
// before any code takes it.
func TestAllowListKeepsDirection(t *testing.T) {
	t.Parallel()
	for _, pkg := range slices.Sorted(maps.Keys(allowed)) {
		line := allowed[pkg]
		for _, half := range []struct {
			list string
			test bool
		}{{line.imports, false}, {line.tests, true}} {
			for _, e := range expand(t, half.list) {
				imp := strings.TrimSuffix(e, "/...")
				if _, ok := allowed[imp]; ours(imp) && !ok {
					t.Errorf("allowed[%q] names %s, which has no line of its own", pkg, e)
				}
				for _, r := range direction {
					if !r.ok(pkg, imp, half.test) {
						t.Errorf("allowed[%q] allows %s%s, against the rule: %s", pkg, e, map[bool]string{true: " in tests"}[half.test], r.rule)
					}
				}
			}
		}
	}
}

// TestDirectionRules checks that the rules catch the arrows they forbid.
func TestDirectionRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pkg, imp string
		test     bool
	}{
		{"numbering", "routing", false},
		{"numbering", "engine/store", true},
		{"routing", "mnp", false},
		{"mnp", "engine/auth", false},
		{"mnp/portdb", "engine/apiv2", false},
		{"mnp", "net/http", false},
		{"numbering", "database/sql", true},
		{"engine/auth", "numbering", false},
		{"engine/bulk", "modernc.org/sqlite", false},
		{"cmd/numen", "github.com/jackc/pgx/v5", false},
		{"benchmarks/http", "modernc.org/sqlite", false},
		{"engine", "engine/httpapi", true},
		{"engine/store", "routing", false},
		{"engine/bulk", "engine/httpapi", true},
		{"engine/store/pgstore", "engine/httpapi", false},
		{"engine", "wasm/webpkg", false},
		{"mnp/remote", "wasm/jstest", false},
		{"numbering", "github.com/nyaruka/phonenumbers/v2", false},
		{"wasm", "github.com/nyaruka/phonenumbers/v2", false},
	} {
		broken := 0
		for _, r := range direction {
			if !r.ok(c.pkg, c.imp, c.test) {
				broken++
			}
		}
		if broken == 0 {
			t.Errorf("no rule forbids %s importing %s (test %v)", c.pkg, c.imp, c.test)
		}
	}
	for _, c := range []struct {
		pkg, imp string
		test     bool
	}{
		{"mnp/remote", "engine/auth", false},
		{"engine/store/sqlitestore", "modernc.org/sqlite", false},
		{"benchmarks/http", "modernc.org/sqlite", true},
		{"engine/httpapi", "wasm/jstest", true},
		{"cmd/numen", "engine/httpapi", false},
		{"numbering", "github.com/nyaruka/phonenumbers/v2", true},
	} {
		for _, r := range direction {
			if !r.ok(c.pkg, c.imp, c.test) {
				t.Errorf("the rule %q forbids %s importing %s (test %v)", r.rule, c.pkg, c.imp, c.test)
			}
		}
	}
}
