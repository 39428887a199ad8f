package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

func TestChangelogRelease(t *testing.T) {
	t.Parallel()
	changelog := []byte("<!-- Updated metadata to version 1.0.0: a plan -->\n<!-- CHANGELOG START -->\n\n1.13.16 / 10.11.2026\n===\n\n* Updated metadata to version 9.0.43:\n\n1.13.15\n===\n* Updated metadata to version 9.0.41:\n")
	if got, err := changelogRelease(changelog); err != nil || got != "9.0.43" {
		t.Errorf("changelogRelease = %q, %v; want 9.0.43", got, err)
	}
	if _, err := changelogRelease([]byte("1.0.0\n* Fixed a bug\n")); err == nil {
		t.Error("a CHANGELOG without a metadata release gave one")
	}
}

func TestSemverLess(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		less bool
	}{
		{"v2.0.9", "v2.0.12", true},
		{"v2.0.12", "v2.0.9", false},
		{"v1.8.1", "v2.0.0", true},
		{"v2.1.0", "v2.0.12", false},
		{"v2.0.12", "v2.0.12", false},
		{"v2.0.13-rc.1", "v2.0.13", true},
	} {
		if got := semverLess(c.a, c.b); got != c.less {
			t.Errorf("semverLess(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

func TestNextMajor(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"github.com/nyaruka/phonenumbers/v2": "github.com/nyaruka/phonenumbers/v3",
		"github.com/nyaruka/phonenumbers":    "github.com/nyaruka/phonenumbers/v2",
		"example.com/m/v10":                  "example.com/m/v11",
	} {
		if got := nextMajor(in); got != want {
			t.Errorf("nextMajor(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestTarballFile(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, content := range map[string]string{"package/CHANGELOG.md": "notes", "package/package.json": "{}"} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(content))
	}
	tw.Close()
	zw.Close()
	if b, err := tarballFile(buf.Bytes(), "package/CHANGELOG.md"); err != nil || string(b) != "notes" {
		t.Errorf("tarballFile = %q, %v", b, err)
	}
	if _, err := tarballFile(buf.Bytes(), "package/missing"); err == nil {
		t.Error("a missing file was found")
	}
}

// TestUpstreamSourcesPinned: the versions -check-upstream compares with
// are the ones the repository pins.
func TestUpstreamSourcesPinned(t *testing.T) {
	t.Parallel()
	for _, s := range upstreamSources() {
		if s.name == mccmncListPackage && s.pinned != mccmncListVersion {
			t.Errorf("%s pinned %s, the generator %s", s.name, s.pinned, mccmncListVersion)
		}
		if s.pinned == "" && s.examined == "" {
			t.Errorf("%s: neither pinned nor examined", s.name)
		}
	}
}

// TestNewestModuleAsksTheProxy points GOPROXY at a loopback proxy that
// serves nothing: the pinned version, though in the module cache, must
// not be reported as served.
func TestNewestModuleAsksTheProxy(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	t.Setenv("GOPROXY", srv.URL)
	t.Setenv("GOSUMDB", "off")
	newest, note, err := newestModule("github.com/nyaruka/phonenumbers/v2")
	if err == nil || newest != "" || strings.Contains(note, "served exactly") {
		t.Errorf("a proxy serving nothing: newest %q (%s), error %v", newest, note, err)
	}
	if asked.Load() == 0 {
		t.Error("the proxy was never asked")
	}
}
