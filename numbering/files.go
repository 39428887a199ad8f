//go:build !js

package numbering

import (
	"io"
	"os"
)

// The file system, for Open and WithOverlayFile. A browser build (GOOS=js)
// has none (files_js.go), and does without package os, which would add
// about 110 KB (gzip) to the browser module.

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

func openFile(path string) (io.ReadCloser, error) { return os.Open(path) }
