package enum_test

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/miekg/dns"

	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/mnp/enum"
	"github.com/numenhq/numen/numbering"
)

// A tiny ENUM server for the example: +4915112345678 is ported to 26203
// (routing number D262), every other number has no record.
func exampleServer() (addr string, stop func()) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, req *dns.Msg) {
		resp := new(dns.Msg)
		resp.SetReply(req)
		if q := req.Question[0]; q.Name == "8.7.6.5.4.3.2.1.1.5.1.9.4.e164.arpa." && q.Qtype == dns.TypeNAPTR {
			rr, _ := dns.NewRR(q.Name + ` 300 IN NAPTR 100 10 "u" "E2U+pstn:tel" "!^.*$!tel:+4915112345678;npdi;rn=D262;rn-context=+49!" .`)
			resp.Answer = append(resp.Answer, rr)
		} else {
			resp.Rcode = dns.RcodeNameError
		}
		_ = w.WriteMsg(resp)
	})}
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	return pc.LocalAddr().String(), func() { _ = srv.Shutdown() }
}

func ExampleBackend_Portability() {
	addr, stop := exampleServer()
	defer stop()

	b, err := enum.New([]string{addr},
		enum.WithTimeout(time.Second),
		enum.WithRoutingNumbers(map[string]string{"D262": "26203"}))
	if err != nil {
		panic(err)
	}
	plan, err := numbering.Load()
	if err != nil {
		panic(err)
	}
	for _, number := range []string{"+4915112345678", "+4915112345679"} {
		// The engine classifies the number and gives its range's network.
		res := plan.ClassifyString(number)
		q := mnp.Query{Number: res.Number, Region: res.CountryCode, MCCMNC: res.MCCMNC}
		ans, err := b.Portability(context.Background(), q)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: range %s, now %s, ported %s\n", number, q.MCCMNC, ans.Network.MCCMNC, ans.Ported)
	}
	// Output:
	// +4915112345678: range 26201, now 26203, ported true
	// +4915112345679: range 26201, now 26201, ported false
}

func ExampleQueryName() {
	fmt.Println(enum.QueryName("+4915112345678", "e164.arpa."))
	// Output: 8.7.6.5.4.3.2.1.1.5.1.9.4.e164.arpa.
}
