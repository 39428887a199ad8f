package enumserver

import (
	"encoding/binary"
	"testing"

	"github.com/miekg/dns"
)

// FuzzAnswer sends any packet to the query path: it answers a well-formed
// DNS message with the query's id, or nothing (a packet too short to be a
// message, or a response), and never panics; over UDP the answer fits 512
// bytes, or the query's EDNS0 size.
func FuzzAnswer(f *testing.F) {
	s := testServer(f, nil)
	for _, tc := range answerCases {
		f.Add(pack(f, enumName(tc.number, "e164.arpa."), dns.TypeNAPTR, 0), false)
		f.Add(pack(f, enumName(tc.number, "e164.arpa."), dns.TypeANY, 1232), true)
	}
	for _, q := range [][]byte{
		pack(f, "e164.arpa.", dns.TypeSOA, 4096),
		pack(f, "e164.arpa.", dns.TypeAXFR, 0),
		pack(f, "example.com.", dns.TypeA, 0),
		pack(f, "a.9.4.e164.arpa.", dns.TypeNAPTR, 0),
		{0x12, 0x34, 0x28, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 6, 0, 1}, // UPDATE
		{0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0xC0, 0x0C, 0, 35, 0, 1},
		{},
	} {
		f.Add(q, false)
	}
	buf := make([]byte, 0, maxTCPSize)
	f.Fuzz(func(t *testing.T, q []byte, tcp bool) {
		resp, out := s.Answer(buf[:0], q, tcp)
		if out.Dropped {
			if len(resp) != 0 {
				t.Fatal("dropped, yet answered")
			}
			return
		}
		m := new(dns.Msg)
		if err := m.Unpack(resp); err != nil {
			t.Fatalf("answer does not unpack: %v\n% x", err, resp)
		}
		if !m.Response || m.Id != binary.BigEndian.Uint16(q) {
			t.Fatalf("header: %v", m)
		}
		if !tcp && len(resp) > maxUDPSize {
			t.Fatalf("%d bytes over UDP", len(resp))
		}
		if int(out.RCode)&0xF != m.Rcode&0xF {
			t.Fatalf("outcome %v, answer %v", out.RCode, m.Rcode)
		}
	})
}
