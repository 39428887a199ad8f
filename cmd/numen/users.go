package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/users"
)

const usersUsage = `Usage: numen users <add|passwd|remove|list|hash> [arguments] (--file FILE | --config FILE)

Manages the people who sign in to the report pages with their own name and
password (see the README, "Report users"). They are kept in a users file
(JSON, readable by its owner only, password hashes only), which a running
numen serve reads again when it changes. A command that finds the file
changed since it read it (another numen users) writes nothing.

  numen users add NAME --role viewer --accounts KEY1,KEY2   a viewer of those API keys
  numen users add NAME --role admin                         an admin: every account
  numen users set NAME [--role ROLE] [--accounts KEY1,...]  a new role or accounts
  numen users passwd NAME                                   a new password
  numen users remove NAME
  numen users list                                          names, roles, accounts
  numen users hash                                          prints a password's hash
                                                            for the config's "users"

  --file     the users file
  --config   the serve config whose users_file to use; its accounts are
             checked against --accounts
  --role     admin or viewer (add; default viewer)
  --accounts the API keys a viewer may see, separated by commas (add)

The password is read from the terminal (asked twice, not shown) or, when
standard input is not a terminal, from its first line; never from the
command line. It is hashed with argon2id (64 MiB, 3 passes, 4 lanes).
`

func (c *cli) users(args []string) int {
	fs := newFlagSet("users")
	file := fs.String("file", "", "")
	config := fs.String("config", "", "")
	role := fs.String("role", string(users.Viewer), "")
	accounts := fs.String("accounts", "", "")
	rest, code, ok := c.parseInterleaved(fs, "users", usersUsage, args)
	if !ok {
		return code
	}
	if len(rest) == 0 {
		return c.usageError("users", "want add, set, passwd, remove, list or hash")
	}
	sub, rest := rest[0], rest[1:]
	if sub == "hash" {
		if len(rest) != 0 {
			return c.usageError("users", "hash takes no arguments")
		}
		h, err := c.newPasswordHash()
		if err != nil {
			fmt.Fprintf(c.stderr, "numen users: %v\n", err)
			return exitError
		}
		fmt.Fprintln(c.stdout, h)
		return exitOK
	}
	var known func(string) bool
	switch {
	case (*file == "") == (*config == ""):
		return c.usageError("users", "give --file or --config (one of them)")
	case *config != "":
		cfg, err := loadConfig(*config)
		if err != nil {
			fmt.Fprintf(c.stderr, "numen users: %v\n", err)
			return exitError
		}
		if cfg.UsersFile == "" {
			fmt.Fprintf(c.stderr, "numen users: %s names no users_file\n", *config)
			return exitError
		}
		*file = cfg.UsersFile
		keys := map[string]bool{}
		for _, a := range cfg.Accounts {
			keys[a.Key] = true
		}
		known = func(k string) bool { return keys[k] }
	}
	// The file as read, so that a change made meanwhile (another numen
	// users) is not overwritten: WriteFileIfUnchanged.
	was, err := os.ReadFile(*file)
	if errors.Is(err, os.ErrNotExist) {
		was, err = nil, nil
	}
	var list []users.User
	if err == nil && was != nil {
		list, err = users.Parse(was)
		if err != nil {
			err = fmt.Errorf("%s: %w", *file, err)
		}
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "numen users: %v\n", err)
		return exitError
	}
	at := func(name string) int {
		return slices.IndexFunc(list, func(u users.User) bool { return u.Name == name })
	}
	switch sub {
	case "list":
		if len(rest) != 0 {
			return c.usageError("users", "list takes no arguments")
		}
		for _, u := range list {
			who := strings.Join(u.Accounts, ",")
			if u.Role == users.Admin {
				who = "(every account)"
			}
			fmt.Fprintf(c.stdout, "%s\t%s\t%s\n", u.Name, u.Role, who)
		}
		return exitOK
	case "add", "set", "passwd", "remove":
	default:
		return c.usageError("users", "unknown subcommand %q: want add, set, passwd, remove, list or hash", sub)
	}
	if len(rest) != 1 {
		return c.usageError("users", "%s takes one user name", sub)
	}
	name := rest[0]
	i := at(name)
	switch {
	case sub != "add" && i < 0:
		fmt.Fprintf(c.stderr, "numen users: %s has no user %q\n", *file, name)
		return exitError
	case sub == "add" && i >= 0:
		fmt.Fprintf(c.stderr, "numen users: %s already has a user %q (numen users set changes the role and accounts, numen users passwd the password)\n", *file, name)
		return exitError
	}
	switch sub {
	case "remove":
		list = slices.Delete(list, i, i+1)
	case "add":
		if err := users.CheckName(name); err != nil {
			return c.usageError("users", "%v", err)
		}
		r, err := users.ParseRole(*role)
		if err != nil {
			return c.usageError("users", "--role: %v", err)
		}
		u := users.User{Name: name, Role: r}
		if *accounts != "" {
			u.Accounts = strings.Split(*accounts, ",")
		}
		// Checked before the password is asked for.
		if code, ok := c.checkUserAccounts(u, known, *config); !ok {
			return code
		}
		if u.PasswordHash, err = c.newPasswordHash(); err != nil {
			fmt.Fprintf(c.stderr, "numen users: %v\n", err)
			return exitError
		}
		list = append(list, u)
	case "set":
		given := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
		if !given["role"] && !given["accounts"] {
			return c.usageError("users", "set changes --role, --accounts or both: give one")
		}
		u := list[i]
		if given["role"] {
			r, err := users.ParseRole(*role)
			if err != nil {
				return c.usageError("users", "--role: %v", err)
			}
			u.Role = r
		}
		if given["accounts"] {
			u.Accounts = nil
			if *accounts != "" {
				u.Accounts = strings.Split(*accounts, ",")
			}
		}
		if u.Role == users.Admin && !given["accounts"] {
			u.Accounts = nil // an admin sees every account
		}
		if code, ok := c.checkUserAccounts(u, known, *config); !ok {
			return code
		}
		list[i] = u
	case "passwd":
		h, err := c.newPasswordHash()
		if err != nil {
			fmt.Fprintf(c.stderr, "numen users: %v\n", err)
			return exitError
		}
		list[i].PasswordHash = h
	}
	if err := users.WriteFileIfUnchanged(*file, list, was); err != nil {
		fmt.Fprintf(c.stderr, "numen users: %v\n", err)
		return exitError
	}
	fmt.Fprintf(c.stderr, "numen users: %s: %s %s\n", filepath.Clean(*file), map[string]string{"add": "added", "set": "changed", "passwd": "new password for", "remove": "removed"}[sub], name)
	return exitOK
}

// checkUserAccounts checks a user's accounts: a viewer has some, and
// known (the config's accounts, when given) has each.
func (c *cli) checkUserAccounts(u users.User, known func(string) bool, config string) (int, bool) {
	if u.Role == users.Viewer && len(u.Accounts) == 0 {
		return c.usageError("users", "a viewer needs --accounts (the API keys whose reports they see)"), false
	}
	for _, k := range u.Accounts {
		if known != nil && !known(k) {
			return c.usageError("users", "--accounts: %s has no account with the API key %q", config, k), false
		}
	}
	return exitOK, true
}

// newPasswordHash reads a new password (readPassword) and hashes it.
func (c *cli) newPasswordHash() (string, error) {
	pw, err := c.readPassword()
	if err != nil {
		return "", err
	}
	return users.HashPassword(pw, users.DefaultParams)
}

// minPassword is the shortest password taken.
const minPassword = 8

// readPassword reads a password: from the terminal, asked twice and not
// shown, or from the first line of standard input.
func (c *cli) readPassword() (string, error) {
	var pw string
	if f, ok := c.stdin.(*os.File); ok && isTerminal(f) {
		ask := func(prompt string) (string, error) {
			fmt.Fprint(c.stderr, prompt)
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(c.stderr)
			return string(b), err
		}
		var err error
		if pw, err = ask("Password: "); err != nil {
			return "", err
		}
		again, err := ask("Password again: ")
		if err != nil {
			return "", err
		}
		if again != pw {
			return "", errors.New("the two passwords differ")
		}
	} else {
		line, err := bufio.NewReader(c.stdin).ReadString('\n')
		if err != nil && line == "" {
			return "", errors.New("no password on standard input (its first line)")
		}
		pw = strings.TrimRight(line, "\r\n")
	}
	if len(pw) < minPassword {
		return "", fmt.Errorf("the password is shorter than %d characters", minPassword)
	}
	if len(pw) > 1024 {
		return "", errors.New("the password is longer than 1024 bytes")
	}
	return pw, nil
}

// checkUsers checks the config's report users: each one's name, role,
// password hash and accounts (keys of the config's accounts), and that no
// name is given twice.
func checkUsers(cfg *serveConfig, keys map[string]bool, bad func(string, ...any)) {
	seen := map[string]bool{}
	for i := range cfg.Users {
		u := &cfg.Users[i]
		at := fmt.Sprintf("users[%d]", i)
		if err := users.CheckName(u.Name); err != nil {
			bad("%s.name: %v", at, err)
		} else if seen[u.Name] {
			bad("%s.name: %q is given twice", at, u.Name)
		}
		seen[u.Name] = true
		if _, err := users.ParseRole(string(u.Role)); err != nil {
			bad("%s.role: %v", at, err)
		}
		if _, err := users.ParseHash(u.PasswordHash); err != nil {
			bad("%s.password_hash: %v (numen users hash makes one)", at, err)
		}
		if u.Role == users.Viewer && len(u.Accounts) == 0 {
			bad("%s.accounts: a viewer needs at least one API key", at)
		}
		for j, k := range u.Accounts {
			if !keys[k] {
				bad("%s.accounts[%d]: no account has the API key %q", at, j, k)
			}
		}
	}
}

// reportUsersOf returns the directory of the config's report users and
// of its users file (nil when there are neither).
func reportUsersOf(cfg *serveConfig, accounts map[string]*account.Account) (*users.Directory, error) {
	if len(cfg.Users) == 0 && cfg.UsersFile == "" {
		return nil, nil
	}
	d, err := users.NewDirectory(cfg.Users, cfg.UsersFile, func(k string) bool { return accounts[k] != nil })
	if err != nil {
		return nil, fmt.Errorf("report users: %w", err)
	}
	return d, nil
}
