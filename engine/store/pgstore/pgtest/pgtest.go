// Package pgtest gives tests a PostgreSQL database of their own, on the
// server whose URL is in NUMEN_TEST_POSTGRES: the server .ci/postgres
// starts (.ci/test starts one and sets the variable). A test that needs
// PostgreSQL fails, saying how to start one, when the variable is not set:
// it never skips.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// EnvVar names the variable that holds the server's URL.
const EnvVar = "NUMEN_TEST_POSTGRES"

// Database creates an empty database for the test, dropped when it ends,
// and returns its URL.
func Database(t testing.TB) string {
	t.Helper()
	server := os.Getenv(EnvVar)
	if server == "" {
		t.Fatalf("%s is not set: this test needs PostgreSQL. Run the tests with .ci/test, which starts a server, or start one with .ci/postgres start and export the URL it prints as %s", EnvVar, EnvVar)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatalf("%s=%s: %v", EnvVar, server, err)
	}
	defer admin.Close(context.Background())
	var b [6]byte
	rand.Read(b[:])
	name := "numen_test_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating a test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, server)
		if err != nil {
			t.Errorf("dropping %s: %v", name, err)
			return
		}
		defer c.Close(context.Background())
		// FORCE cannot end an autovacuum worker busy in the database (it
		// has no role: "must be a member of the role whose process is
		// being terminated"); it ends soon, so try again for a while.
		for attempt := 0; ; attempt++ {
			_, err := c.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)")
			var pgErr *pgconn.PgError
			if err == nil || attempt == 100 || !errors.As(err, &pgErr) || pgErr.Code != "42501" {
				if err != nil {
					t.Errorf("dropping %s: %v", name, err)
				}
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatalf("%s: %v", EnvVar, err)
	}
	u.Path = "/" + name
	return u.String()
}
