// Command gen writes the inputs of the ENUM benchmark (benchmarks/enum/run.sh)
// into a directory: ported.db, a portability database of Germany; zone,
// Knot's zone file of the same records, made by asking Numen's ENUM server
// (engine/enumserver) for every number, so that both servers answer the
// very same records; queries, dnsperf's query file (each number's NAPTR
// query, and a tenth of invalid numbers, shuffled); and numen.json, the
// configuration of numen serve.
//
// Usage: go run ./benchmarks/enum/gen -o DIR [-n NUMBERS] [-port-numen P]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/miekg/dns"

	"github.com/numenhq/numen/engine/enumserver"
	"github.com/numenhq/numen/mnp/portdb"
	"github.com/numenhq/numen/numbering"
)

// The ENUM settings of both servers.
var (
	rn        = map[string]string{"26201": "D001", "26202": "D002", "26203": "+491760"}
	networks  = []string{"26201", "26202", "26203"}
	prefixes  = []string{"151", "152", "160", "162", "170", "171", "172", "173", "174", "175", "176", "177", "178", "179"}
	serial    = uint32(2026112601)
	ttl       = 5 * time.Minute
	suffix    = "e164.arpa."
	nameserv  = "localhost."
	rnContext = "+49"
)

func main() {
	out := flag.String("o", "", "output directory")
	n := flag.Int("n", 100000, "valid numbers (a third of them ported)")
	port := flag.Int("port-numen", 0, "port of numen serve's ENUM server, for numen.json")
	httpPort := flag.Int("port-http", 0, "port of numen serve's HTTP API, for numen.json")
	flag.Parse()
	if *out == "" {
		log.Fatal("give -o DIR")
	}
	if err := run(*out, *n, *port, *httpPort); err != nil {
		log.Fatal(err)
	}
}

func run(dir string, n, port, httpPort int) error {
	plan, err := numbering.Load()
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	// Valid mobile numbers, drawn at random; a third ported to another
	// of the three networks.
	var valid []string
	var csv strings.Builder
	csv.WriteString("number_or_range,mccmnc,network name\n")
	seen := map[string]bool{}
	for len(valid) < n {
		num := fmt.Sprintf("+49%s%08d", prefixes[rng.IntN(len(prefixes))], rng.IntN(1e8))
		r := plan.ClassifyString(num)
		if !r.Valid || r.MCCMNC == "" || seen[num] {
			continue
		}
		seen[num] = true
		valid = append(valid, num)
		if rng.IntN(3) == 0 {
			to := networks[rng.IntN(len(networks))]
			if to == r.MCCMNC {
				to = networks[(rng.IntN(2)+1+indexOf(to))%3]
			}
			fmt.Fprintf(&csv, "%s,%s,\n", num, to)
		}
	}
	var db bytes.Buffer
	if _, err := portdb.Build(&db, strings.NewReader(csv.String()), portdb.BuildOptions{
		Plan: plan, Regions: []string{"DE"}, Source: "benchmarks/enum/gen", Name: "ported.csv",
		Created: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)}); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "ported.db"), db.Bytes(), 0o644); err != nil {
		return err
	}
	pdb, err := portdb.OpenBytes(db.Bytes())
	if err != nil {
		return err
	}
	holder := portdb.NewHolder(pdb)
	defer holder.Close()
	srv, err := enumserver.New(enumserver.Config{Plan: plan, Portability: holder, Suffix: suffix, TTL: ttl,
		RN: rn, RNContext: rnContext, NameServer: nameserv, Serial: serial})
	if err != nil {
		return err
	}
	// The zone: Numen's answer for each number, as zone-file text.
	var zone strings.Builder
	fmt.Fprintf(&zone, "$ORIGIN %s\n$TTL %d\n@ SOA %s hostmaster.%s %d 3600 600 86400 %d\n@ NS %s\n",
		suffix, int(ttl.Seconds()), nameserv, nameserv, serial, int(ttl.Seconds()), nameserv)
	buf := make([]byte, 0, 1232)
	names := make([]string, 0, n+n/9)
	for _, num := range valid {
		name := enumName(num)
		q := new(dns.Msg)
		q.SetQuestion(name, dns.TypeNAPTR)
		packet, err := q.Pack()
		if err != nil {
			return err
		}
		answer, _ := srv.Answer(buf[:0], packet, false)
		m := new(dns.Msg)
		if err := m.Unpack(answer); err != nil {
			return err
		}
		if len(m.Answer) != 1 {
			return fmt.Errorf("%s: %v", num, m)
		}
		zone.WriteString(m.Answer[0].String() + "\n")
		names = append(names, name)
	}
	// A tenth more of numbers that are not valid (NXDOMAIN from both).
	for len(names) < n+n/9 {
		num := fmt.Sprintf("+4910%09d", rng.IntN(1e9)) // no prefix of a valid one
		if !plan.ClassifyString(num).Valid {
			names = append(names, enumName(num))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "zone"), []byte(zone.String()), 0o644); err != nil {
		return err
	}
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	f, err := os.Create(filepath.Join(dir, "queries"))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, name := range names {
		fmt.Fprintf(w, "%s NAPTR\n", name)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	cfg := map[string]any{
		"addr": fmt.Sprintf("127.0.0.1:%d", httpPort),
		"data": filepath.Join(dir, "numen-data"),
		// The HLR routes of the embedded coverage need a backend; the MNP
		// route answers from the database, as the ENUM server does.
		"routes": []map[string]any{
			{"route": "DS7", "backends": []map[string]any{{"type": "simnet"}}},
			{"route": "GT1", "backends": []map[string]any{{"type": "simnet"}}},
			{"route": "GT2", "backends": []map[string]any{{"type": "simnet"}}},
			{"route": "MP1", "backends": []map[string]any{{"type": "portdb", "file": filepath.Join(dir, "ported.db")}}},
		},
		"enum": map[string]any{
			"listen": fmt.Sprintf("127.0.0.1:%d", port), "suffix": suffix, "ttl": ttl.String(),
			"rn": rn, "rn_context": rnContext, "name_server": nameserv,
		},
	}
	raw, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "numen.json"), raw, 0o644)
}

func indexOf(m string) int {
	for i, v := range networks {
		if v == m {
			return i
		}
	}
	return 0
}

// enumName is the ENUM domain of an E.164 number.
func enumName(e164 string) string {
	d := strings.TrimPrefix(e164, "+")
	var b strings.Builder
	for i := len(d) - 1; i >= 0; i-- {
		b.WriteByte(d[i])
		b.WriteByte('.')
	}
	return b.String() + suffix
}
