// Package simnet is a simulator of a live mobile network: it never talks to
// a network, and every answer it gives is invented. It stands in for real
// HLR and portability providers in demos, tests and load tests, and it says
// so wherever it shows up: its backend name is "simnet (simulator)", the
// route it suggests is [Route] ("SIM"), and the switching centre (MSC) of
// every answer reads "SIMULATOR" followed by three digits.
//
// A [Net] implements [mnp.HLRBackend] and [mnp.PortabilityBackend] over a
// [numbering.Plan]: the networks it names are real entries of the MCC-MNC
// list, so that the engine can name them, but which subscriber is connected,
// absent, unassigned, ported or roaming is made up.
//
// # Determinism
//
// Every property of a number's answer derives from a hash of the seed
// ([WithSeed]) and the number's E.164 digits: the same number and seed give
// the same answer every time, in every process and on every platform, and a
// different seed gives a different population. The shares of each outcome
// are set with [WithRates]; their defaults are on [Rates].
//
// What happens to a call rather than to a number, its simulated latency
// ([WithLatency]) and whether it fails ([WithFailureRate]), is drawn per
// call from the seed and a counter of the Net's queries: a single goroutine
// making the same calls in the same order sees the same latencies and
// failures, concurrent callers see the same shares but not which call gets
// which. A number that failed may answer when asked again, as with a real
// network's transient faults.
//
// # The simulated subscriber
//
// The original (home) network of a number is the Query's MCCMNC. When the
// query has none (numbering does not know the range's network), the
// simulator picks one of the region's operational networks for the number,
// by its hash; when the region has no networks at all (or the number is
// non-geographic), the number has no home network: its HLR answer has no
// MCCMNC, no subscriber identity and unknown porting and roaming, and its
// portability answer is REJECTED with [mnp.CodeNoPortabilityData].
//
// A number is then, by the state shares, connected, absent or unassigned.
// Unassigned numbers are never ported nor roaming. An assigned number of a
// region with at least two operational networks may be ported, to another
// of them; an assigned number may be roaming, on a network of one of ES, FR,
// IT, GB, DE, US, TR and TH other than its home region. HLR and portability
// answers for a number agree: the portability answer's network is the HLR
// answer's current network (the ported-to one, else the original).
//
// # Performance
//
// An answer is a few hashes and binary searches of the plan's network
// table, about half a microsecond: Portability allocates nothing, HLR one
// string (the masked IMSI, MSIN and MSC share it). Simulated latency, when
// configured, uses a timer per call. BenchmarkHLR and BenchmarkPortability
// measure it.
//
// # Thread Safety
//
// A Net is immutable after New except for atomic counters: its methods are
// safe for concurrent use.
package simnet
