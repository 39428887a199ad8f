package users

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/numenhq/numen/numbering/textfmt/jsonpos"
)

// fileJSON is a users file:
//
//	{"users": [{"name": "ana", "role": "viewer", "accounts": ["KEY"],
//	            "password_hash": "$argon2id$v=19$m=65536,t=3,p=4$...$..."}]}
type fileJSON struct {
	Users []User `json:"users"`
}

// maxFile bounds a users file.
const maxFile = 16 << 20

// ReadFile reads a users file. A file that does not exist holds no users.
// Unknown keys, a user given twice and a user that fails Check(nil) are
// errors naming the file.
func ReadFile(path string) ([]User, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxFile)
	}
	us, err := Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return us, nil
}

// Parse reads the users of a users file's contents (see ReadFile).
func Parse(raw []byte) ([]User, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New(`the file is empty: want {"users": [...]}`)
	}
	// Not JSON: the place and what is wrong in words (a file cut short
	// names the bracket left open), as for a config file.
	if _, err := jsonpos.Parse(raw); err != nil {
		return nil, err
	}
	var f fileJSON
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, jsonError(raw, err)
	}
	if err := CheckAll(f.Users, nil); err != nil {
		return nil, err
	}
	return f.Users, nil
}

// CheckAll checks every user (User.Check) and that no name is given
// twice, reporting every problem at once.
func CheckAll(us []User, known func(key string) bool) error {
	var errs []error
	seen := map[string]bool{}
	for i := range us {
		if err := us[i].Check(known); err != nil {
			errs = append(errs, err)
		}
		if seen[us[i].Name] {
			errs = append(errs, fmt.Errorf("user %q is given twice", us[i].Name))
		}
		seen[us[i].Name] = true
	}
	return errors.Join(errs...)
}

// ErrChanged is returned by WriteFileIfUnchanged when the file changed
// since it was read: another command's change would be lost.
var ErrChanged = errors.New("the users file changed since it was read (another numen users at the same time?); nothing was written: run the command again")

// WriteFileIfUnchanged is WriteFile when the file still holds was (nil:
// it did not exist), else ErrChanged. It narrows the window in which two
// commands changing the file at once lose one change to the time between
// its check and its rename.
func WriteFileIfUnchanged(path string, us []User, was []byte) error {
	now, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		now, err = nil, nil
	}
	if err != nil {
		return err
	}
	if (now == nil) != (was == nil) || !bytes.Equal(now, was) {
		return ErrChanged
	}
	return WriteFile(path, us)
}

// WriteFile writes users to a users file, sorted by name, readable by its
// owner only (it holds password hashes): a new file renamed over the old
// one, so that a server reading it sees the old or the new users, never
// part of them.
func WriteFile(path string, us []User) error {
	us = append([]User(nil), us...)
	sortUsers(us)
	if err := CheckAll(us, nil); err != nil {
		return err
	}
	if us == nil {
		us = []User{}
	}
	raw, err := json.MarshalIndent(fileJSON{Users: us}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, a name that no longer exists
	if _, err := tmp.Write(append(raw, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// jsonError says in words what is wrong with a users file that is JSON
// but does not decode: the place (line and column, from 1, in characters)
// of a value of the wrong kind, its key and what was wanted (never a Go
// type), or the unknown field.
func jsonError(raw []byte, err error) error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		line, col := jsonpos.Position(raw, int(typ.Offset))
		return fmt.Errorf("line %d, column %d: %s: want %s, got %s", line, col, typ.Field, kindWords(typ.Type), valueWords(typ.Value))
	}
	if k, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return fmt.Errorf("unknown field %s", k)
	}
	return err
}

// kindWords names the JSON value a Go type reads: "a string".
func kindWords(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list ([...])"
	case reflect.Struct, reflect.Map:
		return "an object ({...})"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another value"
}

// valueWords names a JSON value as encoding/json describes it ("number",
// "array", "number 1.5").
func valueWords(v string) string {
	kind, _, _ := strings.Cut(v, " ")
	switch kind {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "bool":
		return "true or false"
	}
	return v
}
