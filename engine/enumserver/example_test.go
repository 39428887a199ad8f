package enumserver_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"

	"github.com/miekg/dns"

	"github.com/numenhq/numen/engine/enumserver"
	"github.com/numenhq/numen/numbering"
)

// Answer turns a query packet into its answer packet: here a query for
// +4915123456789, from the plan alone (no portability database).
func ExampleServer_Answer() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	s, err := enumserver.New(enumserver.Config{Plan: plan})
	if err != nil {
		log.Fatal(err)
	}
	q := new(dns.Msg)
	q.SetQuestion("9.8.7.6.5.4.3.2.1.5.1.9.4.e164.arpa.", dns.TypeNAPTR)
	packet, _ := q.Pack()

	answer, outcome := s.Answer(make([]byte, 0, 1232), packet, false)
	m := new(dns.Msg)
	if err := m.Unpack(answer); err != nil {
		log.Fatal(err)
	}
	fmt.Println(outcome.RCode, m.Answer[0].(*dns.NAPTR).Regexp)
	// Output: NOERROR !^.*$!tel:+4915123456789;mcc=262;mnc=01!
}

// ListenAndServe serves UDP and TCP on one address until Shutdown.
func ExampleServer_ListenAndServe() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	s, err := enumserver.New(enumserver.Config{Plan: plan, Suffix: "e164.example.net.", RateLimit: enumserver.RateLimit{PerSecond: 100}})
	if err != nil {
		log.Fatal(err)
	}
	ready := make(chan string, 1)
	go s.ListenAndServe("127.0.0.1:0", func(a net.Addr) { ready <- a.String() })
	addr := <-ready

	c := new(dns.Client)
	q := new(dns.Msg)
	q.SetQuestion("9.8.7.6.5.4.3.2.1.5.1.9.4.e164.example.net.", dns.TypeNAPTR)
	r, _, err := c.Exchange(q, addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(dns.RcodeToString[r.Rcode], len(r.Answer))
	s.Shutdown(context.Background())
	// Output: NOERROR 1
}

// New names the setting that is wrong in a *ConfigError.
func ExampleNew() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	_, err = enumserver.New(enumserver.Config{Plan: plan, RN: map[string]string{"26203": "D!262"}})
	var ce *enumserver.ConfigError
	if errors.As(err, &ce) {
		fmt.Println(ce.Field)
	}
	// Output: RN[26203]
}

// Stats counts the answers by query type and response code.
func ExampleServer_Stats() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	s, err := enumserver.New(enumserver.Config{Plan: plan})
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"9.8.7.6.5.4.3.2.1.5.1.9.4.e164.arpa.", "5.4.3.2.1.9.4.e164.arpa.", "example.com."} {
		q := new(dns.Msg)
		q.SetQuestion(name, dns.TypeNAPTR)
		packet, _ := q.Pack()
		s.Answer(nil, packet, false)
	}
	st := s.Stats()
	for _, rc := range enumserver.RCodes() {
		if n := st.Queries[enumserver.QueryKey{Type: enumserver.QTypeNAPTR, RCode: rc}]; n > 0 {
			fmt.Println(rc, n)
		}
	}
	// Output:
	// NOERROR 1
	// NXDOMAIN 1
	// REFUSED 1
}
