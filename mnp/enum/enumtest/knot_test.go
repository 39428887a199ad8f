package enumtest_test

import (
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/numenhq/numen/mnp/enum/enumtest"
)

func TestKnotAnswersAndRestarts(t *testing.T) {
	t.Parallel()
	name := enumtest.NAPTRName("+4915112345678", "e164.arpa.")
	if name != "8.7.6.5.4.3.2.1.1.5.1.9.4.e164.arpa." {
		t.Fatalf("NAPTRName = %q", name)
	}
	zone := enumtest.SOA("e164.arpa.") + name + ` NAPTR 100 10 "u" "E2U+pstn:tel" "!^.*$!tel:+4915112345678;npdi!" .` + "\n"
	k := enumtest.StartKnot(t, enumtest.Zone{Origin: "e164.arpa.", Text: zone})
	ask := func(addr, network string) (*dns.Msg, error) {
		m := new(dns.Msg)
		m.SetQuestion(name, dns.TypeNAPTR)
		r, _, err := (&dns.Client{Net: network, Timeout: 2 * time.Second}).Exchange(m, addr)
		return r, err
	}
	for _, network := range []string{"udp", "tcp"} {
		r, err := ask(k.Addr(), network)
		if err != nil || len(r.Answer) != 1 {
			t.Fatalf("%s: %v %v", network, r, err)
		}
	}
	k.Stop()
	if _, err := ask(k.Addr(), "tcp"); err == nil {
		t.Fatal("knotd answers after Stop")
	}
	k.Start()
	relay := enumtest.StartRelay(t, k.Addr(), 300*time.Millisecond)
	for _, network := range []string{"udp", "tcp"} {
		start := time.Now()
		r, err := ask(relay.Addr(), network)
		if err != nil || len(r.Answer) != 1 {
			t.Fatalf("relay %s: %v %v", network, r, err)
		}
		if d := time.Since(start); d < 300*time.Millisecond {
			t.Fatalf("relay %s answered after %v, before its delay", network, d)
		}
	}
}
