// Pinned npm packages.

package jstest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Pin names a package's version and the integrity of its tarball (the
// registry's dist.integrity: "sha512-" and the base64 SHA-512).
type Pin struct {
	Name, Version, Integrity string
}

func (p Pin) String() string { return p.Name + "@" + p.Version }

// maxTarball bounds a tarball read, and maxFile a file in it.
const (
	maxTarball = 64 << 20
	maxFile    = 64 << 20
)

// Tarball returns the package's tarball: from the user's cache folder when
// an earlier run left it there, else fetched with npm pack (which needs
// npm: .ci/deps installs it). It fails when the tarball's integrity is not
// the pinned one.
func (p Pin) Tarball() ([]byte, error) {
	name := strings.TrimPrefix(strings.ReplaceAll(p.Name, "/", "-"), "@") + "-" + p.Version + ".tgz"
	cached := ""
	if dir, err := os.UserCacheDir(); err == nil {
		cached = filepath.Join(dir, "numen", name)
		if tgz, err := os.ReadFile(cached); err == nil && p.check(tgz) == nil {
			return tgz, nil
		}
	}
	tmp, err := os.MkdirTemp("", "numen-npm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", tmp, p.String())
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("npm pack %s (needs npm and the npm registry; .ci/deps installs npm): %v\n%s", p, err, out)
	}
	tgz, err := os.ReadFile(filepath.Join(tmp, name))
	if err != nil {
		return nil, err
	}
	if err := p.check(tgz); err != nil {
		return nil, err
	}
	if cached != "" && os.MkdirAll(filepath.Dir(cached), 0o755) == nil {
		_ = os.WriteFile(cached, tgz, 0o644) // best effort: the next run fetches again
	}
	return tgz, nil
}

func (p Pin) check(tgz []byte) error {
	sum := sha512.Sum512(tgz)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != p.Integrity {
		return fmt.Errorf("%s: integrity %s, want %s", p, got, p.Integrity)
	}
	return nil
}

// Walk calls fn with the path (under the tarball's "package/" folder) and
// the content of each regular file of a tarball, until fn returns false
// or an error.
func Walk(tgz []byte, fn func(path string, content []byte) (bool, error)) error {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxFile))
		if err != nil {
			return err
		}
		more, err := fn(strings.TrimPrefix(h.Name, "package/"), b)
		if err != nil || !more {
			return err
		}
	}
}

// File returns one file of a tarball, by its path under "package/".
func File(tgz []byte, path string) ([]byte, error) {
	var found []byte
	err := Walk(tgz, func(p string, b []byte) (bool, error) {
		if p == path {
			found = b
			return false, nil
		}
		return true, nil
	})
	if err == nil && found == nil {
		err = fmt.Errorf("jstest: no %s in the tarball", path)
	}
	return found, err
}

// Extract writes the files of a tarball into dir, as npm install would
// lay out the package (without its dependencies).
func Extract(tgz []byte, dir string) error {
	return Walk(tgz, func(p string, b []byte) (bool, error) {
		clean := filepath.Clean(filepath.FromSlash(p))
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return false, fmt.Errorf("jstest: a path outside the package: %q", p)
		}
		path := filepath.Join(dir, clean)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return false, err
		}
		return true, os.WriteFile(path, b, 0o644)
	})
}
