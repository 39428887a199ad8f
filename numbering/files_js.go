//go:build js

package numbering

import (
	"errors"
	"io"
)

// A browser has no files: Open and WithOverlayFile fail with this error
// (wrapping errors.ErrUnsupported); OpenBytes and WithOverlay take the
// bytes instead.
var errNoFiles = errors.Join(errors.ErrUnsupported, errors.New("no file system in a browser build: use OpenBytes and WithOverlay"))

func readFile(string) ([]byte, error) { return nil, errNoFiles }

func openFile(string) (io.ReadCloser, error) { return nil, errNoFiles }
