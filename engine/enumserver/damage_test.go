package enumserver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/numenhq/numen/mnp/portdb"
)

// TestDamagedDatabase: a database file truncated under the server (its
// lookups fail with portdb.ErrChanged) answers SERVFAIL for the numbers
// it covers, so that the client asks its next server; numbers of other
// regions still answer.
func TestDamagedDatabase(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if _, err := portdb.Build(&buf, strings.NewReader(testCSV), portdb.BuildOptions{
		Plan: testPlan(t), Regions: []string{"DE"}, Created: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ported.db")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := portdb.Open(path, portdb.WithVerify())
	if err != nil {
		t.Fatal(err)
	}
	h := portdb.NewHolder(db)
	t.Cleanup(func() { h.Close() })
	s := testServer(t, func(c *Config) { c.Portability = h })
	name := enumName("+4915123456789", "e164.arpa.")
	if m := ask(t, s, pack(t, name, dns.TypeNAPTR, 0)); m.Rcode != dns.RcodeSuccess {
		t.Fatal(m)
	}
	if err := os.Truncate(path, int64(buf.Len()-8)); err != nil {
		t.Fatal(err)
	}
	if !db.Changed() {
		t.Skip("the file is read into memory here, not mapped: it cannot change underneath")
	}
	if m := ask(t, s, pack(t, name, dns.TypeNAPTR, 0)); m.Rcode != dns.RcodeServerFailure || len(m.Answer) != 0 {
		t.Fatalf("%v", m)
	}
	if m := ask(t, s, pack(t, enumName("+33612345678", "e164.arpa."), dns.TypeNAPTR, 0)); m.Rcode != dns.RcodeSuccess {
		t.Fatalf("%v", m)
	}
}
