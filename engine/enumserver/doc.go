// Package enumserver answers ENUM queries (RFC 6116): DNS NAPTR queries
// for phone numbers, over UDP and TCP, from the numbering plan and a
// portability database (mnp/portdb), so that SMS centres, SBCs and
// routers that speak ENUM (Kamailio, Asterisk's ENUMLOOKUP, any
// resolver's NAPTR lookup) learn a number's current network. numen serve
// --enum ADDR runs it beside the HTTP API.
//
// # Records
//
// The name of a query under the suffix (Config.Suffix, default
// e164.arpa.) is a number's digits in reverse, one a label:
// 9.8.7.6.5.4.3.2.1.5.1.9.4.e164.arpa. is +4915123456789. The plan
// decides whether the number is valid and its range's network; the
// portability database, whether it has moved to another network. The
// answer is one NAPTR with order 100, preference 10, flags "u", service
// "E2U+pstn:tel", replacement "." and a regexp carrying a tel URI with the
// number-portability parameters of RFC 4694 and the mcc and mnc of the
// network, as portability suppliers write them:
//
//	ported:                           !^.*$!tel:+4915123456789;npdi;rn=+491760;mcc=262;mnc=03!
//	ported, rn not global:            !^.*$!tel:+4917612345678;npdi;rn=D262;rn-context=+49;mcc=262;mnc=02!
//	not ported:                       !^.*$!tel:+4915123456780;npdi;mcc=262;mnc=01!
//	not ported, range without MCCMNC: !^.*$!tel:+4930123456;npdi!
//	no database covers the region:    !^.*$!tel:+33612345678;mcc=208;mnc=10!
//
// npdi says that the portability database was consulted (RFC 4694): a
// number of a region no database covers (or a server without one) answers
// without it, and with its range's network. rn, the routing number, is
// Config.RN's entry for the network the number is ported to, else the
// network's MCCMNC; one that is not a global number ("+...") is followed
// by rn-context, Config.RNContext or else the number's calling code. A
// number whose database entry names its range's own network (ported
// back) is not ported. A number that is not valid, and any other name
// under the suffix (letters, labels of several digits, more than 15
// digits, fewer than a valid number has), is NXDOMAIN. When the database
// cannot answer (its file changed underneath, portdb.ErrChanged) the
// numbers it covers are SERVFAIL, so that the client asks its next
// server, until a good file is swapped in.
//
// # Other queries
//
// The server behaves as an authoritative server of a zone at the suffix
// whose records are made as asked; the tests compare its answers with
// Knot DNS serving the same records from a zone file, record by record:
//
//   - Answers under the suffix are authoritative (AA). A number's name
//     answers NAPTR and ANY queries with its record, other types with no
//     record; those, and NXDOMAIN, carry the zone's SOA in the authority
//     section (for negative caching, RFC 2308), as Knot's do. The suffix
//     itself answers SOA (serial Config.Serial, refresh 3600, retry 600,
//     expire 86400, minimum the TTL; the server's name Config.NameServer
//     and hostmaster at it) and NS.
//   - A name outside the suffix, a class other than IN: REFUSED, not
//     authoritative, as Knot answers.
//   - Zone transfers (AXFR, IXFR): REFUSED, as BIND refuses a transfer
//     its policy denies (RFC 5936, 2.2.1); Knot answers NOTAUTH. There is
//     no zone to transfer.
//   - A name between the suffix and a number (an incomplete number) is
//     NXDOMAIN here, where Knot, for a zone holding longer numbers below
//     it, answers NOERROR without records (an empty non-terminal).
//   - Opcodes other than QUERY: NOTIMP. A query without exactly one
//     question, with answer or authority records, a compressed or
//     overlong name, a second OPT record or bytes missing: FORMERR,
//     without a question section. Packets shorter than a header, and
//     responses, are dropped, never answered.
//   - EDNS0 (RFC 6891): a query with an OPT record gets one (payload size
//     1232, the version 0); its payload size bounds the UDP answer (512
//     without OPT); an EDNS version above 0 is BADVERS. An answer that
//     does not fit is sent with TC and no records, and the client asks
//     again over TCP. (Answers are under 600 bytes: only the rate
//     limit's slip truncates in practice.)
//   - TCP (RFC 7766): messages with a two-byte length, several per
//     connection, answered in order; at most Config.MaxTCPConnections
//     (256) open, beyond which new ones are closed at once; a connection
//     waiting longer than Config.TCPIdleTimeout (10 s) for its next query
//     is closed.
//
// # Rate limit
//
// Config.RateLimit limits the UDP answers to each client address with a
// token bucket, in the manner of Knot's and BIND's response rate
// limiting, against floods and reflection: over the limit every Slip-th
// query (default 2, BIND's) is answered truncated, which a real client
// follows over TCP (not limited: TCP proves the address), and the others
// are dropped. The buckets are a fixed table of 16,384 (about 1 MiB),
// whatever the number of clients.
//
// # Performance
//
// Server.Answer, which turns a query packet into the answer packet, is
// written for this narrow case by hand (no DNS library on the query
// path) and allocates nothing (TestAnswerAllocs): about 0.2 µs per
// answer on a shared 2-vCPU machine, 12 times less than with miekg/dns
// messages, most of it the plan's classification and the database's
// lookup (BenchmarkAnswer). UDP is read by one goroutine per processor,
// on Linux up to 32 packets a system call (recvmmsg, sendmmsg); answers
// per second against Knot DNS on the same records are in
// benchmarks/README.md ("ENUM server").
//
// # Thread Safety
//
// A Server is safe for concurrent use. The portability database is read
// through its portdb.Holder, so a file swapped in while serving answers
// from the next query on.
package enumserver
