package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/users"
)

// numen runs the command line with stdin and returns the exit status,
// standard output and standard error.
func runNumen(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsersCommand(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "users.json")

	code, _, stderr := runNumen(t, "correct horse\n", "users", "add", "ana", "--role", "viewer", "--accounts", "K1,K2", "--file", file)
	require.Equal(t, 0, code, stderr)
	code, _, stderr = runNumen(t, "battery staple\n", "users", "add", "--file", file, "root", "--role", "admin")
	require.Equal(t, 0, code, stderr)
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NotContains(t, string(raw), "correct horse")
	require.Contains(t, string(raw), "$argon2id$v=19$m=65536,t=3,p=4$")
	fi, err := os.Stat(file)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	code, stdout, _ := runNumen(t, "", "users", "list", "--file", file)
	require.Equal(t, 0, code)
	require.Equal(t, "ana\tviewer\tK1,K2\nroot\tadmin\t(every account)\n", stdout)

	d, err := users.NewDirectory(nil, file, nil)
	require.NoError(t, err)
	_, ok := d.Authenticate("ana", "correct horse")
	require.True(t, ok)

	code, _, stderr = runNumen(t, "a new password\n", "users", "passwd", "ana", "--file", file)
	require.Equal(t, 0, code, stderr)
	d, err = users.NewDirectory(nil, file, nil)
	require.NoError(t, err)
	_, ok = d.Authenticate("ana", "correct horse")
	require.False(t, ok)
	_, ok = d.Authenticate("ana", "a new password")
	require.True(t, ok)

	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"password1\n", []string{"add", "ana", "--accounts", "K1"}, 1, `already has a user "ana"`},
		{"short\n", []string{"add", "bo", "--accounts", "K1"}, 1, "shorter than 8"},
		{"", []string{"add", "bo", "--accounts", "K1"}, 1, "no password on standard input"},
		{"password1\n", []string{"add", "bo"}, 2, "a viewer needs --accounts"},
		{"password1\n", []string{"add", "bo", "--role", "owner", "--accounts", "K1"}, 2, `role "owner"`},
		{"password1\n", []string{"add", "b o", "--accounts", "K1"}, 2, `user name "b o"`},
		{"password1\n", []string{"passwd", "nobody"}, 1, `no user "nobody"`},
		{"", []string{"remove", "nobody"}, 1, `no user "nobody"`},
		{"", []string{"frobnicate", "x"}, 2, "unknown subcommand"},
	} {
		code, _, stderr := runNumen(t, tc.stdin, append(append([]string{"users"}, tc.args...), "--file", file)...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, stderr)
		require.Contains(t, stderr, tc.want, tc.args)
	}
	code, stdout, _ = runNumen(t, "", "help", "users")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "numen users add NAME")
	code, _, stderr = runNumen(t, "", "users", "list")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "give --file or --config")

	// set changes the role and the accounts, not the password.
	code, _, stderr = runNumen(t, "", "users", "set", "ana", "--accounts", "K3", "--file", file)
	require.Equal(t, 0, code, stderr)
	code, stdout, _ = runNumen(t, "", "users", "list", "--file", file)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "ana\tviewer\tK3\n")
	code, _, stderr = runNumen(t, "", "users", "set", "ana", "--role", "admin", "--file", file)
	require.Equal(t, 0, code, stderr)
	code, stdout, _ = runNumen(t, "", "users", "list", "--file", file)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "ana\tadmin\t(every account)\n")
	d, err = users.NewDirectory(nil, file, nil)
	require.NoError(t, err)
	_, ok = d.Authenticate("ana", "a new password")
	require.True(t, ok, "set keeps the password")
	code, _, stderr = runNumen(t, "", "users", "set", "ana", "--role", "viewer", "--file", file)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "a viewer needs --accounts")
	code, _, stderr = runNumen(t, "", "users", "set", "ana", "--file", file)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "give one")

	code, _, stderr = runNumen(t, "", "users", "remove", "ana", "--file", file)
	require.Equal(t, 0, code, stderr)
	code, stdout, _ = runNumen(t, "", "users", "list", "--file", file)
	require.Equal(t, 0, code)
	require.Equal(t, "root\tadmin\t(every account)\n", stdout)

	code, stdout, stderr = runNumen(t, "password1\n", "users", "hash")
	require.Equal(t, 0, code, stderr)
	p, err := users.ParseHash(strings.TrimSpace(stdout))
	require.NoError(t, err)
	require.Equal(t, users.DefaultParams, p)
}

// TestUsersInConfig: the config's users section takes hashes, checks the
// accounts they name, and never a plain password; --config finds the
// users file and its accounts.
func TestUsersInConfig(t *testing.T) {
	t.Parallel()
	h, err := users.HashPassword("password1", users.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	require.NoError(t, err)
	account := `"accounts": [{"key": "K1", "secrets": ["0123456789abcdef"]}]`
	_, err = parseConfig([]byte(`{` + account + `, "users": [{"name": "ana", "role": "viewer", "accounts": ["K1"], "password_hash": "` + h + `"}], "report_secret_signin": true}`))
	require.NoError(t, err)

	_, err = parseConfig([]byte(`{` + account + `, "users": [{"name": "ana", "role": "viewer", "accounts": ["K1"], "password": "password1"}]}`))
	require.ErrorContains(t, err, "unknown setting")
	require.Regexp(t, `\bpassword\b`, err.Error())
	_, err = parseConfig([]byte(`{` + account + `, "users": [{"name": "ana", "role": "viewer", "accounts": ["K9"], "password_hash": "password1"}, {"name": "ana", "role": "admin", "password_hash": "` + h + `"}]}`))
	require.Error(t, err)
	for _, want := range []string{`users[0].password_hash: not an argon2id`, `users[0].accounts[0]: no account has the API key "K9"`, `users[1].name: "ana" is given twice`} {
		require.Contains(t, err.Error(), want)
	}

	dir := t.TempDir()
	config := filepath.Join(dir, "numen.json")
	require.NoError(t, os.WriteFile(config, []byte(`{`+account+`, "users_file": "users.json"}`), 0o600))
	code, _, stderr := runNumen(t, "password1\n", "users", "add", "bo", "--accounts", "K2", "--config", config)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `no account with the API key "K2"`)
	code, _, stderr = runNumen(t, "password1\n", "users", "add", "bo", "--accounts", "K1", "--config", config)
	require.Equal(t, 0, code, stderr)
	us, err := users.ReadFile(filepath.Join(dir, "users.json"))
	require.NoError(t, err)
	require.Len(t, us, 1)
	require.Equal(t, "bo", us[0].Name)
	// numen config check counts the users of the users file.
	code, stdout, stderr := runNumen(t, "", "config", "check", config)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "; 1 account; 1 report user\n")
}

// TestServeReportUsers: numen serve takes the config's users and its
// users file: a viewer signs in to the report pages, and an API key's
// sign-in is refused.
func TestServeReportUsers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "users.json")
	code, _, stderr := runNumen(t, "viewer password\n", "users", "add", "ana", "--accounts", "team", "--file", file)
	require.Equal(t, 0, code, stderr)
	h, err := users.HashPassword("admin password", users.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	require.NoError(t, err)
	sim := []backendConfig{{Type: "simnet"}}
	cfg := &serveConfig{
		Routes:    []routeConfig{{Route: "DS7", Backends: sim}, {Route: "GT1", Backends: sim}, {Route: "GT2", Backends: sim}, {Route: "MP1", Backends: sim}},
		Accounts:  []accountConfig{{Key: "team", Secrets: []string{"team-secret-0123456789"}}},
		Users:     []users.User{{Name: "root", Role: users.Admin, PasswordHash: h}},
		UsersFile: file,
	}
	r := startServer(t, cfg, false)
	site := strings.TrimSuffix(r.base, "/api/v2")

	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	signIn := func(form url.Values) int {
		t.Helper()
		resp, err := hc.Get(site + "/reports/signin")
		require.NoError(t, err)
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Contains(t, string(page), `name="user"`)
		m := regexp.MustCompile(`name="csrf" value="([^"]*)"`).FindSubmatch(page)
		require.NotNil(t, m)
		form.Set("csrf", string(m[1]))
		resp, err = hc.PostForm(site+"/reports/signin", form)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusUnauthorized, signIn(url.Values{"key": {"team"}, "secret": {"team-secret-0123456789"}}))
	require.Equal(t, http.StatusUnauthorized, signIn(url.Values{"user": {"ana"}, "password": {"wrong password"}}))
	for _, who := range []url.Values{{"user": {"ana"}, "password": {"viewer password"}}, {"user": {"root"}, "password": {"admin password"}}} {
		require.Equal(t, http.StatusSeeOther, signIn(who))
		req, _ := http.NewRequest("GET", site+"/reports", nil)
		req.Header.Set("Accept", "text/html")
		resp, err := hc.Do(req)
		require.NoError(t, err)
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, string(page), who.Get("user")+" · API key <b>team</b>")
	}
}
