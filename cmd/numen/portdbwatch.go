package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/numenhq/numen/engine/httpapi"
	"github.com/numenhq/numen/mnp/portdb"
)

// portdbSet is what a server's portability databases share: the
// databases of the routes' portdb backends (the ENUM server answers from
// the first when it has none of its own) and the watchers of every file,
// the routes' and the ENUM server's, which SIGHUP makes look at their
// files at once, besides their periodic check.
type portdbSet struct {
	holders  []*portdb.Holder
	watchers watchers
}

// open opens the portability database file with the delta files of the
// directory deltas and watches them (watchers.watch, every reload, default
// defaultPortDBReload). It returns the database and what closes it.
func (p *portdbSet) open(file, deltas string, reload time.Duration, logger *slog.Logger) (*portdb.Holder, []func() error, error) {
	h, err := openPortDB(file, deltas)
	if err != nil {
		return nil, nil, err
	}
	if reload == 0 {
		reload = defaultPortDBReload
	}
	return h, []func() error{h.Close, p.watchers.watch(h, file, deltas, reload, logger)}, nil
}

// watchers are the watchers of a server's portability database files;
// each counts the new files it refused, by file.
type watchers struct {
	mu    sync.Mutex
	kicks map[chan struct{}]struct{}
	// refused counts, by file, the new files a watcher refused; never
	// removed, so that the counters only grow.
	refused map[string]*atomic.Uint64
}

// add registers a watcher of file: kick receives a value when the files
// are to be looked at now, and refused is the file's counter.
func (w *watchers) add(file string) (kick chan struct{}, refused *atomic.Uint64, remove func()) {
	kick = make(chan struct{}, 1)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.kicks == nil {
		w.kicks = map[chan struct{}]struct{}{}
	}
	w.kicks[kick] = struct{}{}
	if w.refused == nil {
		w.refused = map[string]*atomic.Uint64{}
	}
	if refused = w.refused[file]; refused == nil {
		refused = new(atomic.Uint64)
		w.refused[file] = refused
	}
	return kick, refused, func() {
		w.mu.Lock()
		delete(w.kicks, kick)
		w.mu.Unlock()
	}
}

// reloadAll makes every watcher look at its files now (SIGHUP).
func (w *watchers) reloadAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k := range w.kicks {
		select {
		case k <- struct{}{}:
		default: // a look is already due
		}
	}
}

// register counts in /metrics the new portability database files the
// watchers refused (damaged, truncated, not a database), by file.
func (w *watchers) register(m *httpapi.Metrics) {
	w.mu.Lock()
	defer w.mu.Unlock()
	files := slices.Sorted(maps.Keys(w.refused))
	for _, f := range files {
		c := w.refused[f]
		m.Register("numen_portdb_reload_refused_total", "counter",
			"New portability database files refused (damaged, truncated or not a database; the current one keeps answering), by file.",
			`numen_portdb_reload_refused_total{file="`+promLabel(f)+`"}`, func() float64 { return float64(c.Load()) })
	}
}

// promLabel makes s fit a label value as Metrics.Register reads it (no
// escapes): a double quote, backslash or line break becomes "_".
func promLabel(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '"' || c == '\\' || c == '\n' {
			b[i] = '_'
		}
	}
	return string(b)
}

// handleSIGHUP makes SIGHUP reload the watchers' files until the
// returned function is called.
func (w *watchers) handleSIGHUP() func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				w.reloadAll()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// deltaFiles returns the delta files of dir, its *.delta files sorted by
// name: the order they are applied in (of two changes of a number with
// the same time stamp, the later file's wins). No dir, no deltas.
func deltaFiles(dir string) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("deltas: %w", err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".delta") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out, nil
}

// openPortDB opens the portability database file with the delta files
// of the directory deltas ("": none) applied on top, all verified, in a
// Holder.
func openPortDB(file, deltas string) (*portdb.Holder, error) {
	h := portdb.NewHolder(nil)
	if _, err := reloadPortDB(h, file, deltas); err != nil {
		return nil, err
	}
	return h, nil
}

// reloadPortDB swaps in file and the delta files of deltas when any of
// them is new (portdb.Holder.ReloadWithDeltas).
func reloadPortDB(h *portdb.Holder, file, deltas string) (bool, error) {
	ds, err := deltaFiles(deltas)
	if err != nil {
		return false, err
	}
	return h.ReloadWithDeltas(file, ds)
}

// watch looks every interval, and on SIGHUP, for a new file
// renamed over file, or a new set of delta files in the directory deltas,
// and swaps them in together (portdb.Holder.ReloadWithDeltas: verified
// first). A refused file (damaged, truncated, another format, a delta for
// another base) is logged once, naming the file and the reason, and
// counted; the current database keeps answering. It returns the function
// that stops it.
func (w *watchers) watch(h *portdb.Holder, file, deltas string, every time.Duration, logger *slog.Logger) func() error {
	kick, refused, remove := w.add(file)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer remove()
		t := time.NewTicker(every)
		defer t.Stop()
		lastErr := ""
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			case <-kick:
			}
			swapped, err := reloadPortDB(h, file, deltas)
			switch {
			case err != nil && (err.Error() != lastErr || !errors.Is(err, fs.ErrNotExist)):
				// Reload refuses a file once (it tries it again when it
				// changes): each error but a missing file's is a new file.
				lastErr = err.Error()
				refused.Add(1)
				logger.Error("portability database file not taken: the current one keeps answering", "error", err)
			case swapped:
				lastErr = ""
				info, _ := h.Info()
				logger.Info("portability database replaced: answering from the new file",
					"numbers", info.Numbers, "ranges", info.Ranges, "source", info.Source,
					"deltas", info.Deltas, "delta_numbers", info.DeltaNumbers, "delta_bytes", info.DeltaBytes)
			}
		}
	}()
	return func() error {
		close(stop)
		<-done
		return nil
	}
}
