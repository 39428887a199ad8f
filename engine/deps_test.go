package engine_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyDirection keeps the sidecar's layers apart: nothing under
// engine/ imports the HTTP adapter (engine/httpapi) but the adapter itself,
// the store and the bulk queue import no routing logic (accounts, metrics
// and products are engine-level types), and only the store's
// implementations import a database driver: the store owns the database.
func TestDependencyDirection(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}}`, "./...")
	cmd.Dir = "."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "github.com/numenhq/numen/"
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 8 {
		t.Fatalf("go list listed %d packages", len(lines))
	}
	for _, l := range lines {
		fields := strings.Fields(l)
		pkg, imports := strings.TrimPrefix(fields[0], mod), fields[1:]
		for _, imp := range imports {
			imp = strings.TrimPrefix(imp, mod)
			switch {
			case imp == "engine/httpapi" && !strings.HasPrefix(pkg, "engine/httpapi"):
				t.Errorf("%s imports engine/httpapi: only the CLI wires the adapter to the rest", pkg)
			case imp == "routing" && (strings.HasPrefix(pkg, "engine/store") || strings.HasPrefix(pkg, "engine/bulk")):
				t.Errorf("%s imports routing: the store and the queue depend on no routing logic", pkg)
			case isDriver(imp) && !strings.HasPrefix(pkg, "engine/store/"):
				t.Errorf("%s imports the database driver %s: only the store opens the database", pkg, imp)
			}
		}
	}
}

// isDriver reports whether a package path is a database driver or River
// driver.
func isDriver(path string) bool {
	for _, p := range []string{"modernc.org/sqlite", "github.com/jackc/pgx", "github.com/riverqueue/river/riverdriver", "database/sql/driver"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}
