// Package enum is a portability backend ([mnp.PortabilityBackend]) that
// asks ENUM servers: DNS servers holding NAPTR records of phone numbers
// under e164.arpa or a private tree (RFC 6116), with the number
// portability parameters of RFC 4694. Portability suppliers, SBCs and
// routers serve and read it; so does Numen's own ENUM server.
//
//	b, err := enum.New([]string{"10.0.0.53:53", "10.0.1.53:53"},
//		enum.WithSuffix("e164.example.net."),
//		enum.WithRoutingNumbers(map[string]string{"D262": "26203"}))
//	ans, err := b.Portability(ctx, q) // q from the engine: number and range's MCCMNC
//
// # The question
//
// For the number +4915112345678 the backend asks for the NAPTR records of
// 8.7.6.5.4.3.2.1.1.5.1.9.4.e164.arpa. (the digits reversed, one label
// each, then the suffix: [WithSuffix]). It asks the servers in order, the
// first then the next on failure, each exchange within a timeout
// ([WithTimeout]);
// over UDP, announcing an EDNS0 buffer of 1232 bytes ([WithUDPSize]), and
// again over TCP when the answer comes truncated.
//
// # Reading the records
//
// Of the NAPTRs of the name, the backend takes those for the services
// E2U+pstn:tel and E2U+pstn:sip (RFC 6116 enumservice names, compared
// without case) with the terminal flag "u", lowest order first and then
// lowest preference, and uses the first that applies. Its regexp field is
// an RFC 3402 substitution expression, delim ERE delim replacement delim
// flags, with any delimiter (a backslash escapes it inside), the flag "i"
// for a match without case, and \0 to \9 in the replacement for the whole
// match and its groups; it is applied to the application unique string,
// "+" and the digits. The ERE is read by Go's regexp package,
// leftmost-longest as POSIX EREs match. A record whose expression does
// not match the number, or whose URI is not a telephone number (a sip URI
// without user=phone, another scheme), does not apply, and the next is
// tried.
//
// The URI it makes is a tel URI (RFC 3966), or a sip URI whose user part
// is one ("sip:+4915112345678;npdi;rn=D262@gw.example;user=phone"). Its
// parameters, names without case, are those of RFC 4694, npdi (a
// portability database was asked), rn (routing number) and rn-context,
// and those many suppliers add: mcc and mnc (the network now, 3 and 2-3
// digits, together) and ported (1/0, yes/no, true/false). Other
// parameters are ignored.
//
// # What an answer means
//
//   - NXDOMAIN, no NAPTR, no record that applies, or a record without rn
//     and without mcc/mnc (npdi alone, or nothing): no portability record.
//     The number belongs to its range's network (the query's MCCMNC), not
//     ported.
//   - A record with mcc and mnc: that network. Without them, the network
//     of its rn through the table of routing numbers
//     ([WithRoutingNumbers]: rn prefix -> MCCMNC, the longest prefix
//     wins). Ported as the ported parameter says; without it, ported when
//     the network differs from the range's (and, when the query carries
//     no MCCMNC, when there is an rn).
//   - SERVFAIL, REFUSED (any other rcode), no answer within the timeout,
//     an unreachable server, an answer that cannot be read (a bad
//     expression, URI or parameter; an answer to another question) or an
//     rn the table does not know: the next server is asked; when none is
//     left, the error wraps [mnp.ErrUnavailable] (so the engine asks the
//     route's next backend) and names each server with its cause. Its
//     code ([mnp.CodeOf]) is the last server's: [mnp.CodeTimeout],
//     [mnp.CodeNetworkUnreachable], [mnp.CodeBadProviderAnswer] or
//     [mnp.CodeUnavailable]. A record that cannot be read is an error,
//     not skipped: the record after it might say something the supplier
//     did not mean.
//
// Numen's ENUM server answers in exactly this dialect: a ported number
// "!^.*$!tel:+<E164>;npdi;rn=<rn>;mcc=<mcc>;mnc=<mnc>!" (with
// ;rn-context=<ctx> after an rn that is not global), a number not ported
// "!^.*$!tel:+<E164>;npdi;mcc=<mcc>;mnc=<mnc>!", an invalid number
// NXDOMAIN.
//
// # Cache
//
// Answers are kept for their TTL: that of the NAPTRs, or for a negative
// answer the lesser of its SOA's TTL and minimum (RFC 2308), but never
// longer than the maximum of [WithCache] (10 minutes by default; numen
// serve makes it the engine's MNP cache lifetime, so that the backend
// never keeps an answer longer than the engine would), and up to a number
// of entries (100,000). Failures are not kept.
//
// # Performance
//
// Measured against Knot DNS on loopback (benchmarks/README.md, "ENUM
// backend"; 2 vCPUs of a shared machine):
//
//   - An answer from the cache: 0.13 µs, no allocation (TestAllocs).
//   - Reading an answer in the dialect above into the backend's record:
//     0.25 µs, no allocation for networks seen before
//     (TestReadAllocs); other expressions allocate for the regexp match
//     (compiled regexps are kept, up to 256).
//   - A lookup that asks a server: one exchange, which package
//     github.com/miekg/dns makes on a new socket; 40 allocations, 39 of
//     them the exchange's own (a bare exchange of the same question makes
//     39). The process spends 40-50 µs of CPU on it, of which Numen's
//     part beyond the bare exchange is 0.7-1.3 µs on a quiet machine.
//
// # Thread Safety
//
// A Backend is safe for concurrent use.
package enum
