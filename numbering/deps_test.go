package numbering

import (
	"os/exec"
	"strings"
	"testing"
)

// TestRunTimeDependencies keeps libphonenumber's Go port, its protobuf
// runtime and regular expressions out of what programs link for
// classification: the plan is compiled ahead of time (package compile,
// which only the data generator and tests import). The command and the
// engine may pull in regexp through their database drivers, never
// phonenumbers.
func TestRunTimeDependencies(t *testing.T) {
	t.Parallel()
	forbidden := func(pkg string) bool {
		return strings.HasPrefix(pkg, "github.com/nyaruka/phonenumbers") || strings.HasPrefix(pkg, "google.golang.org/protobuf")
	}
	noRegexp := func(pkg string) bool { return forbidden(pkg) || pkg == "regexp" || pkg == "regexp/syntax" }
	for pattern, bad := range map[string]func(string) bool{
		"./numbering":        noRegexp,
		"./routing":          noRegexp,
		"./mnp":              noRegexp,
		"./mnp/portdb":       noRegexp,
		"./engine":           forbidden,
		"./engine/auth":      forbidden,
		"./engine/store/...": forbidden,
		"./engine/webhook":   forbidden,
		"./engine/httpapi":   forbidden,
		"./engine/bulk":      forbidden,
		"./engine/account":   forbidden,
		"./cmd/numen":        forbidden,
		"./mnp/simnet":       noRegexp,
		"./mnp/remote":       forbidden,
		"./engine/apiv2":     noRegexp,
	} {
		cmd := exec.Command("go", "list", "-deps", pattern)
		cmd.Dir = ".."
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pattern, err, out)
		}
		for _, pkg := range strings.Fields(string(out)) {
			if bad(pkg) {
				t.Errorf("%s imports %s at run time", pattern, pkg)
			}
		}
	}
}
