package jstest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// TestChromium starts the browser and has it compute something.
func TestChromium(t *testing.T) {
	t.Parallel()
	ctx := Chromium(t, chromedp.WindowSize(400, 300))
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`[1, 2, 3].reduce((a, b) => a + b)`))
	require.NoError(t, err)
	require.Equal(t, 6, n)
}

// TestNoChromium: without the browser, Start fails and says how to get it.
func TestNoChromium(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, _, err := Start(t.Context())
	require.ErrorContains(t, err, ".ci/deps")
}

// tarball makes a gzipped tarball of the files, and a pin for it.
func tarball(t *testing.T, files map[string]string) ([]byte, Pin) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, content := range files {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}))
		_, err := tw.Write([]byte(content))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	sum := sha512.Sum512(buf.Bytes())
	return buf.Bytes(), Pin{Name: "example", Version: "1.0.0", Integrity: "sha512-" + base64.StdEncoding.EncodeToString(sum[:])}
}

func TestTarball(t *testing.T) {
	t.Parallel()
	tgz, pin := tarball(t, map[string]string{"package/package.json": `{"name":"example"}`, "package/lib/index.js": "export {};"})
	require.NoError(t, pin.check(tgz))
	bad := pin
	bad.Integrity = "sha512-" + base64.StdEncoding.EncodeToString(make([]byte, sha512.Size))
	require.ErrorContains(t, bad.check(tgz), "integrity")

	b, err := File(tgz, "lib/index.js")
	require.NoError(t, err)
	require.Equal(t, "export {};", string(b))
	_, err = File(tgz, "missing.js")
	require.Error(t, err)

	dir := t.TempDir()
	require.NoError(t, Extract(tgz, dir))
	b, err = os.ReadFile(filepath.Join(dir, "lib", "index.js"))
	require.NoError(t, err)
	require.Equal(t, "export {};", string(b))
}

// TestExtractOutside: a tarball's path that leads out of the folder fails
// the extraction, and nothing is written there.
func TestExtractOutside(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"package/../../evil.js", "../evil.js", "/evil.js"} {
		tgz, _ := tarball(t, map[string]string{name: "alert(1)"})
		root := t.TempDir()
		dir := filepath.Join(root, "pkg")
		err := Extract(tgz, dir)
		require.ErrorContains(t, err, "outside", name)
		require.NoFileExists(t, filepath.Join(root, "evil.js"), name)
	}
}
