package enum

import (
	"testing"

	"github.com/miekg/dns"
)

// FuzzRewrite applies NAPTR regexp fields from outside to a number, and
// compares the expression ^.*$, which is applied without a regexp, with
// the regexp package's reading of it (the slow, obvious reference). It
// reads the field as a URI too: one target for the three parsers keeps
// .ci/fuzz within its time budget.
func FuzzRewrite(f *testing.F) {
	for _, s := range []string{
		testRegexp, `!^.*$!tel:\\0;npdi!`, `!^\\+49(.*)$!tel:+49\\1;npdi;rn=D262!`, `/^\\+(49)(151)(.*)$/tel:+\\1\\2\\3;x=\\/\\2/i`,
		`!^.*$!sip:\\0;npdi;rn=D262@gw.example.net;user=phone!`, `!^.*$!tel:+49;mcc=262;mnc=02;ported=yes!`,
		`!`, `!!!`, `\\`, `\\256`, `!^.*$!\\9!`, `#^.*$#x#ii`, `!^(((((((((((.*)))))))))))$!\\9\\0\\1!`,
		"tel:+4915112345678;npdi;rn=D262;rn-context=+49;mcc=262;mnc=03", "tel:+1-215-555-1234;rn=2155550000;rn-context=+1;npdi",
		"sip:+4915112345678;npdi;rn=D262@gw.example.net;user=phone", "sips:a:b@c;user=phone?x", "TEL:+49;Ported=No;MCC=262;MNC=001",
		"tel:", "sip:@", "tel:;;;=;==", "mailto:x@y",
	} {
		f.Add(s, "+4915112345678")
	}
	b, err := New([]string{"127.0.0.1"}, WithRoutingNumbers(map[string]string{"D262": "26203", "+49": "26201"}))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, field, aus string) {
		if info, err := parseURI([]byte(field)); err == nil {
			if info.mcc != nil && (len(info.mcc) != 3 || len(info.mnc) < 2 || len(info.mnc) > 3) {
				t.Fatalf("mcc %q mnc %q", info.mcc, info.mnc)
			}
			if !info.phone && (info.npdi || info.rn != nil || info.mcc != nil) {
				t.Fatalf("parameters of a URI that is not a telephone number: %+v", info)
			}
		}
		r, ok, err := b.rewrite(field, []byte(aus))
		if err == nil && ok && r.found && len(r.network) != 5 && len(r.network) != 6 {
			t.Fatalf("network %q", r.network)
		}
		expr, err := unescape(field)
		if err != nil {
			return
		}
		e, err := parseSubst(expr)
		if err != nil || !e.anything {
			return
		}
		fast, fastOK, fastErr := e.apply(nil, []byte(aus), nil)
		slow := e
		slow.anything = false
		ref, refOK, refErr := slow.apply(nil, []byte(aus), nil)
		if (fastErr == nil) != (refErr == nil) || fastOK != refOK || string(fast) != string(ref) {
			t.Fatalf("^.*$ on %q with %q: fast %q %v %v, regexp %q %v %v", aus, e.repl, fast, fastOK, fastErr, ref, refOK, refErr)
		}
	})
}

// FuzzRead reads whole DNS answers from outside, as a server sends them.
func FuzzRead(f *testing.F) {
	for _, re := range [][]string{{testRegexp}, {"!^.*$!tel:+4915112345678;npdi!", testRegexp}, {`!^.*$!\\0!`}, {"x"}} {
		wire, err := answerMsg(f, re...).Pack()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(wire)
	}
	b, err := New([]string{"127.0.0.1"}, WithRoutingNumbers(map[string]string{"D262": "26203"}))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, wire []byte) {
		m := new(dns.Msg)
		if m.Unpack(wire) != nil {
			return
		}
		_, _, _ = b.read(m, testName, []byte(testAUS))
	})
}
