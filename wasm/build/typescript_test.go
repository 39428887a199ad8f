package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/numenhq/numen/wasm/jstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// typescript is the TypeScript compiler the declarations are checked with.
var typescript = jstest.Pin{
	Name:      "typescript",
	Version:   "5.9.3",
	Integrity: "sha512-jl1vZzPDinLr9eUt3J/t7V6FgNEw9QjvBPdysz9KfQDD41fQrC2Y4vKQdiaUpFT4bXlb1RHhLpp8wtm6M5TgSw==",
}

// TestTypeScript type-checks numen.d.ts, as the package ships it, with tsc
// --strict: testdata/types/usage.ts, which uses every function of the API,
// compiles; testdata/types/wrong.ts, whose every line marked "// error"
// misuses it, fails on exactly those lines.
func TestTypeScript(t *testing.T) {
	t.Parallel()
	node := jstest.Node(t)
	tgz, err := typescript.Tarball()
	require.NoError(t, err)
	root := t.TempDir()
	require.NoError(t, jstest.Extract(tgz, filepath.Join(root, "node_modules", "typescript")))
	pkg := filepath.Join(root, "node_modules", "@numen", "numen")
	require.NoError(t, os.MkdirAll(pkg, 0o755))
	for _, name := range []string{"numen.d.ts", "numen.mjs", "package.json"} {
		b, err := os.ReadFile(filepath.Join(dist, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(pkg, name), b, 0o644))
	}
	config, err := os.ReadFile(filepath.Join("testdata", "types", "tsconfig.json"))
	require.NoError(t, err)
	tsc := func(file string) (string, error) {
		dir := filepath.Join(root, strings.TrimSuffix(file, ".ts"))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		src, err := os.ReadFile(filepath.Join("testdata", "types", file))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, file), src, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "tsconfig.json"), config, 0o644))
		cmd := exec.Command(node, filepath.Join(root, "node_modules", "typescript", "lib", "tsc.js"), "-p", dir, "--pretty", "false")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := tsc("usage.ts")
	require.NoError(t, err, "tsc %s on usage.ts:\n%s", typescript.Version, out)

	out, err = tsc("wrong.ts")
	require.Error(t, err, "tsc passed wrong.ts")
	f, err := os.Open(filepath.Join("testdata", "types", "wrong.ts"))
	require.NoError(t, err)
	defer f.Close()
	marked := 0
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		at := fmt.Sprintf("wrong.ts(%d,", line)
		if strings.Contains(sc.Text(), "; // error") {
			marked++
			assert.Contains(t, out, at, "tsc reports line %d: %s", line, sc.Text())
		} else {
			assert.NotContains(t, out, at, "tsc reports line %d, which is right: %s", line, sc.Text())
		}
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, 6, marked)
}
