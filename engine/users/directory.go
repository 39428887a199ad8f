package users

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

// A Directory finds users by name: those of the config (fixed) and those
// of a users file, read again when the file changes (its size or time of
// modification, looked at most once a second).
type Directory struct {
	static []User
	path   string
	known  func(string) bool
	now    func() time.Time

	mu      sync.Mutex
	byName  map[string]*User
	stamp   fileStamp
	checked time.Time
	err     error // the last reading's error (the users read before it stay)

	dummyOnce sync.Once
	dummy     string
	// kdf holds a token while a password is verified: at most
	// GOMAXPROCS verifications at once, so that many sign-ins at once
	// take at most GOMAXPROCS times the KDF's memory (64 MiB each with
	// DefaultParams), the others waiting their turn.
	kdf chan struct{}
}

type fileStamp struct {
	size    int64
	modTime time.Time
	exists  bool
}

// NewDirectory returns the directory of the users of the config (static)
// and of the users file at path ("" for none). known reports whether an
// API key is one of the server's accounts: a user naming another is an
// error here, and a change of the file with any error is not taken (the
// users before it stay; Err says why). A name in both is an error.
func NewDirectory(static []User, path string, known func(key string) bool) (*Directory, error) {
	if err := CheckAll(static, known); err != nil {
		return nil, err
	}
	d := &Directory{static: static, path: path, known: known, now: time.Now, kdf: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))}
	if err := d.load(); err != nil {
		return nil, err
	}
	return d, nil
}

// load reads the file and rebuilds byName.
func (d *Directory) load() error {
	by := map[string]*User{}
	for i := range d.static {
		u := d.static[i]
		by[u.Name] = &u
	}
	if d.path != "" {
		st, err := stampOf(d.path)
		if err != nil {
			return err
		}
		us, err := ReadFile(d.path)
		if err != nil {
			return err
		}
		if err := CheckAll(us, d.known); err != nil {
			return fmt.Errorf("%s: %w", d.path, err)
		}
		var errs []error
		for i := range us {
			u := us[i]
			if by[u.Name] != nil {
				errs = append(errs, fmt.Errorf("%s: user %q is also in the config", d.path, u.Name))
			}
			by[u.Name] = &u
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		d.stamp = st
	}
	d.byName = by
	return nil
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return fileStamp{}, nil
	}
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{size: fi.Size(), modTime: fi.ModTime(), exists: true}, nil
}

// refresh reads the file again if it changed; d.mu is held.
func (d *Directory) refresh() {
	if d.path == "" {
		return
	}
	now := d.now()
	if now.Sub(d.checked) < time.Second && !d.checked.IsZero() {
		return
	}
	d.checked = now
	st, err := stampOf(d.path)
	if err == nil && st == d.stamp {
		return
	}
	if err == nil {
		err = d.load()
	}
	d.err = err
}

// Lookup returns the user called name.
func (d *Directory) Lookup(name string) (User, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refresh()
	u := d.byName[name]
	if u == nil {
		return User{}, false
	}
	return *u, true
}

// Len returns the number of users.
func (d *Directory) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refresh()
	return len(d.byName)
}

// Err returns why the users file's last change was not taken (nil when it
// was): the users read before it stay.
func (d *Directory) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// Authenticate returns the user called name if password is theirs. An
// unknown name costs the same KDF work as a wrong password, so that the
// time of the answer does not tell which names exist. At most GOMAXPROCS
// verifications run at once; the others wait.
func (d *Directory) Authenticate(name, password string) (User, bool) {
	d.kdf <- struct{}{}
	defer func() { <-d.kdf }()
	u, ok := d.Lookup(name)
	if !ok {
		d.dummyOnce.Do(func() { d.dummy, _ = HashPassword("", DefaultParams) })
		_, _ = VerifyPassword(d.dummy, password)
		return User{}, false
	}
	match, err := VerifyPassword(u.PasswordHash, password)
	if err != nil || !match {
		return User{}, false
	}
	return u, true
}
