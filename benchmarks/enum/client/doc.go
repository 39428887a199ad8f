// Package client benchmarks Numen's ENUM backend (mnp/enum) against a real
// Knot DNS on a loopback port (knotd, Debian package knot): a lookup
// that asks Knot, against a bare exchange of the same question with
// github.com/miekg/dns (the reference: what any client pays for the DNS
// round trip), in process CPU time per lookup; a lookup answered from the
// backend's cache; and latency percentiles of lookups paced at 1,000 a
// second. benchmarks/README.md ("ENUM backend") has the results and the
// command.
package client
