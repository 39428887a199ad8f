package users

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cheap are parameters fast enough for tests (never for real passwords).
var cheap = Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func TestHashAndVerify(t *testing.T) {
	t.Parallel()
	h, err := HashPassword("correct horse", cheap)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$"), h)
	p, err := ParseHash(h)
	require.NoError(t, err)
	require.Equal(t, cheap, p, "the parameters are stored with the hash")

	ok, err := VerifyPassword(h, "correct horse")
	require.NoError(t, err)
	require.True(t, ok)
	for _, wrong := range []string{"", "correct hors", "correct horse ", "Correct horse"} {
		ok, err := VerifyPassword(h, wrong)
		require.NoError(t, err)
		require.False(t, ok, wrong)
	}
	h2, err := HashPassword("correct horse", cheap)
	require.NoError(t, err)
	require.NotEqual(t, h, h2, "each hash has its own salt")
}

func TestDefaultParamsHash(t *testing.T) {
	t.Parallel()
	h, err := HashPassword("pw", DefaultParams)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=3,p=4$"), h)
	ok, err := VerifyPassword(h, "pw")
	require.NoError(t, err)
	require.True(t, ok)
}

// TestVerifyOtherParams verifies a hash made with other parameters than
// the defaults: VerifyPassword reads them from the hash.
func TestVerifyOtherParams(t *testing.T) {
	t.Parallel()
	p := Params{Memory: 128, Time: 2, Threads: 2, SaltLen: 8, KeyLen: 16}
	h, err := HashPassword("pw", p)
	require.NoError(t, err)
	got, err := ParseHash(h)
	require.NoError(t, err)
	require.Equal(t, p, got)
	ok, err := VerifyPassword(h, "pw")
	require.NoError(t, err)
	require.True(t, ok)
}

func TestMalformedHashes(t *testing.T) {
	t.Parallel()
	good, err := HashPassword("pw", cheap)
	require.NoError(t, err)
	parts := strings.Split(good, "$")
	for name, h := range map[string]string{
		"empty":            "",
		"plain password":   "pw",
		"argon2i":          strings.Replace(good, "argon2id", "argon2i", 1),
		"old version":      strings.Replace(good, "v=19", "v=16", 1),
		"bcrypt":           "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy",
		"memory too large": strings.Replace(good, "m=64,", "m=2000000,", 1),
		"no threads":       strings.Replace(good, "p=1$", "p=0$", 1),
		"threads > 255":    strings.Replace(good, "p=1$", "p=256$", 1),
		"leading zero":     strings.Replace(good, "t=1,", "t=01,", 1),
		"short salt":       strings.Join([]string{"", parts[1], parts[2], parts[3], "c2FsdA", parts[5]}, "$"),
		"padded key":       good + "=",
		"CR in the key":    strings.Join([]string{"", parts[1], parts[2], parts[3], parts[4], parts[5][:5] + "\r" + parts[5][5:]}, "$"),
		"extra part":       good + "$x",
	} {
		_, err := ParseHash(h)
		require.ErrorIs(t, err, ErrMalformedHash, name)
		ok, err := VerifyPassword(h, "pw")
		require.False(t, ok, name)
		require.Error(t, err, name)
	}
}

func FuzzParseHash(f *testing.F) {
	good, _ := HashPassword("pw", cheap)
	f.Add(good)
	f.Add("$argon2id$v=19$m=65536,t=3,p=4$c29tZXNhbHQ$a2V5a2V5a2V5a2V5a2V5a2V5")
	f.Add("$argon2id$v=19$m=8,t=1,p=1$$")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseHash(s)
		if err != nil {
			return
		}
		// Accepted: within the bounds, and only cheap enough ones verified.
		if p.Memory > maxMemory || p.Time > maxTime || p.Threads == 0 {
			t.Fatalf("accepted %q with %+v", s, p)
		}
		if p.Memory <= 1024 && p.Time <= 4 {
			if _, err := VerifyPassword(s, "pw"); err != nil {
				t.Fatalf("parsed but does not verify: %v", err)
			}
		}
	})
}

func TestUserCheck(t *testing.T) {
	t.Parallel()
	h, _ := HashPassword("pw", cheap)
	known := func(k string) bool { return k == "K1" || k == "K2" }
	good := User{Name: "ana.b@example", PasswordHash: h, Role: Viewer, Accounts: []string{"K1"}}
	require.NoError(t, good.Check(known))
	require.True(t, good.MaySee("K1"))
	require.False(t, good.MaySee("K2"))
	require.Equal(t, []string{"K1"}, good.Visible([]string{"K2", "K1"}))
	admin := User{Name: "root", PasswordHash: h, Role: Admin}
	require.NoError(t, admin.Check(known))
	require.True(t, admin.MaySee("K2"))
	require.Equal(t, []string{"K1", "K2"}, admin.Visible([]string{"K2", "K1"}))

	bad := User{Name: "a b", PasswordHash: "secret", Role: "owner", Accounts: []string{"K9"}}
	err := bad.Check(known)
	require.Error(t, err)
	for _, want := range []string{`user name "a b"`, `role "owner"`, "password_hash", `API key "K9"`} {
		require.Contains(t, err.Error(), want, "every problem at once")
	}
	require.ErrorContains(t, (&User{Name: "v", PasswordHash: h, Role: Viewer}).Check(known), "a viewer needs at least one API key")
}

func TestFileRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "users.json")
	us, err := ReadFile(path)
	require.NoError(t, err, "a missing file holds no users")
	require.Empty(t, us)
	h, _ := HashPassword("pw", cheap)
	in := []User{{Name: "zed", PasswordHash: h, Role: Admin}, {Name: "ana", PasswordHash: h, Role: Viewer, Accounts: []string{"K1"}}}
	require.NoError(t, WriteFile(path, in))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	out, err := ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, []User{in[1], in[0]}, out, "sorted by name")
	raw, _ := os.ReadFile(path)
	require.NotContains(t, string(raw), `"pw"`)

	require.Error(t, WriteFile(path, append(in, in[0])), "a name twice")
	_, err = Parse([]byte(`{"users":[{"name":"a","password":"pw","role":"admin"}]}`))
	require.ErrorContains(t, err, `unknown field "password"`)
}

func TestDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "users.json")
	h, _ := HashPassword("pw", cheap)
	known := func(k string) bool { return k == "K1" }
	static := []User{{Name: "cfg", PasswordHash: h, Role: Admin}}
	d, err := NewDirectory(static, path, known)
	require.NoError(t, err)
	now := time.Unix(1e9, 0)
	d.now = func() time.Time { return now }
	require.Equal(t, 1, d.Len())

	require.NoError(t, WriteFile(path, []User{{Name: "ana", PasswordHash: h, Role: Viewer, Accounts: []string{"K1"}}}))
	now = now.Add(2 * time.Second)
	u, ok := d.Authenticate("ana", "pw")
	require.True(t, ok, "the file is read again when it changes")
	require.Equal(t, Viewer, u.Role)
	_, ok = d.Authenticate("ana", "wrong")
	require.False(t, ok)
	_, ok = d.Authenticate("nobody", "pw")
	require.False(t, ok)
	_, ok = d.Authenticate("cfg", "pw")
	require.True(t, ok)

	// A change with an error is not taken: the users before it stay.
	require.NoError(t, WriteFile(path, []User{{Name: "ana", PasswordHash: h, Role: Viewer, Accounts: []string{"K9"}}}))
	now = now.Add(2 * time.Second)
	_, ok = d.Lookup("ana")
	require.True(t, ok)
	require.ErrorContains(t, d.Err(), `"K9"`)

	// Removed from the file: gone.
	require.NoError(t, WriteFile(path, nil))
	now = now.Add(2 * time.Second)
	_, ok = d.Lookup("ana")
	require.False(t, ok)
	require.NoError(t, d.Err())

	_, err = NewDirectory(append(static, static[0]), "", known)
	require.Error(t, err)
	require.NoError(t, WriteFile(path, static))
	_, err = NewDirectory(static, path, known)
	require.ErrorContains(t, err, "also in the config")
	require.False(t, errors.Is(err, ErrMalformedHash))
}

func TestWriteFileIfUnchanged(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "users.json")
	h, _ := HashPassword("pw", cheap)
	ana := User{Name: "ana", PasswordHash: h, Role: Admin}
	require.NoError(t, WriteFileIfUnchanged(path, []User{ana}, nil), "a new file")
	was, err := os.ReadFile(path)
	require.NoError(t, err)
	require.ErrorIs(t, WriteFileIfUnchanged(path, nil, nil), ErrChanged, "it exists now")

	// Another command changes it meanwhile: the first one's write is refused.
	bo := User{Name: "bo", PasswordHash: h, Role: Admin}
	require.NoError(t, WriteFileIfUnchanged(path, []User{ana, bo}, was))
	require.ErrorIs(t, WriteFileIfUnchanged(path, nil, was), ErrChanged)
	us, err := ReadFile(path)
	require.NoError(t, err)
	require.Len(t, us, 2)
}

func FuzzParse(f *testing.F) {
	h, _ := HashPassword("pw", cheap)
	f.Add([]byte(`{"users":[{"name":"ana","role":"viewer","accounts":["K1"],"password_hash":"` + h + `"}]}`))
	f.Add([]byte(`{"users":[{"name":"root","role":"admin","password_hash":"` + h + `"},{"name":"root","role":"admin","password_hash":"x"}]}`))
	f.Add([]byte(`{"users":null}`))
	f.Add([]byte(`{"users":[{"name":"a","password":"pw"}]} {}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		us, err := Parse(raw)
		if err != nil {
			return
		}
		// What is accepted passes the checks, and writes and reads back
		// the same.
		if err := CheckAll(us, nil); err != nil {
			t.Fatalf("accepted users that fail their check: %v", err)
		}
		path := filepath.Join(t.TempDir(), "users.json")
		if err := WriteFile(path, us); err != nil {
			t.Fatal(err)
		}
		back, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(back) != len(us) {
			t.Fatalf("%d users written, %d read", len(us), len(back))
		}
	})
}

// BenchmarkVerifyPassword is the cost of one sign-in's password check
// with DefaultParams (CPU time and the KDF's memory, B/op).
func BenchmarkVerifyPassword(b *testing.B) {
	h, err := HashPassword("correct horse battery", DefaultParams)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := VerifyPassword(h, "correct horse battery"); !ok {
			b.Fatal("no match")
		}
	}
}

// A users file that does not decode is described in words, with its
// place: never a Go type, and a file cut short says so.
func TestParseErrorsInWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ raw, want string }{
		{`{"users": [{"name": "ana", "role": "ad`, `line 1, column 39: the JSON ends before the '{' at line 1, column 12 is closed: it is cut short`},
		{"{\"users\": [\n  {\"name\": 5}]}", `line 2, column 13: users.name: want a string, got a number`},
		{`{"users": [{"name": "b", "accounts": "K"}]}`, `users.accounts: want a list ([...]), got a string`},
		{`{"users": {}}`, `users: want a list ([...]), got an object`},
		{"hello", `line 1, column 1: unexpected 'h': want a value`},
		{"", `the file is empty`},
		{`{"users": [], "groups": []}`, `unknown field "groups"`},
		{`{"users": []} []`, `line 1, column 15: data after the JSON value`},
	} {
		_, err := Parse([]byte(c.raw))
		require.ErrorContains(t, err, c.want, c.raw)
		require.NotContains(t, err.Error(), "Go ", c.raw)
		require.NotContains(t, err.Error(), "unexpected EOF", c.raw)
		require.NotContains(t, err.Error(), "users.User", c.raw)
	}
}
