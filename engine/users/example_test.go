package users_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/numenhq/numen/engine/users"
)

func ExampleHashPassword() {
	h, err := users.HashPassword("correct horse battery", users.DefaultParams)
	if err != nil {
		panic(err)
	}
	p, _ := users.ParseHash(h) // the parameters are stored with the hash
	fmt.Println(p.Memory, p.Time, p.Threads)
	ok, _ := users.VerifyPassword(h, "correct horse battery")
	fmt.Println(ok)
	ok, _ = users.VerifyPassword(h, "wrong")
	fmt.Println(ok)
	// Output:
	// 65536 3 4
	// true
	// false
}

func ExampleDirectory() {
	dir, _ := os.MkdirTemp("", "users")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "users.json")
	h, _ := users.HashPassword("correct horse battery", users.DefaultParams)
	if err := users.WriteFile(file, []users.User{{Name: "ana", PasswordHash: h, Role: users.Viewer, Accounts: []string{"team-key"}}}); err != nil {
		panic(err)
	}
	known := func(key string) bool { return key == "team-key" || key == "other-key" }
	d, err := users.NewDirectory(nil, file, known)
	if err != nil {
		panic(err)
	}
	u, ok := d.Authenticate("ana", "correct horse battery")
	fmt.Println(ok, u.Role, u.MaySee("team-key"), u.MaySee("other-key"))
	// Output: true viewer true false
}
