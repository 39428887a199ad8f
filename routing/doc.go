// Package routing decides which route a lookup takes: the routing maps of
// the platform and of each account, automatic selection from coverage
// scores, MNP fallback, and the route decision of the API's GET /route with
// its routing_instruction.
//
// # Model
//
// A route is a 3-character identifier declared in the Coverage data,
// which also scores, from 0 to 100, how well each route reaches each mobile
// network (MCCMNC). A Map holds rules that send numbers to routes by number
// prefix ("+49151"), by network (MCCMNC) or by country; a rule whose route is
// REJECT refuses the numbers it matches. The platform has one Map (global
// rules, CUSTOM_GLOBAL_*), every account another (user rules, CUSTOM_USER_*).
//
// Build a Platform once from the numbering plan, the coverage and the
// platform's map, then one Resolver per account map:
//
//	platform, err := routing.NewPlatform(plan, coverage, platformMap)
//	resolver, err := platform.Resolver(accountMap)
//	d := resolver.Resolve(&result) // result from numbering.Plan.Classify
//	// d.Route, d.Confidence, d.Origin, d.MCCMNC, d.Instruction()
//
// # Precedence
//
// Resolver.Resolve documents the order of decision: the platform's and
// then the account's reject rules, MNP fallback, the account's rules, the
// platform's rules, the best coverage score, the account's and then the
// platform's default route. Within one map the most specific rule applies:
// the longest matching prefix, else the network's rule, else the
// country's. This is the spec's precedence (prefix over MCCMNC over country
// over default, MNP fallback over conflicting custom rules) together with
// Numen's route resolution order (account over platform, rejects first).
//
// Confidence is HIGH for a route scoring at least HighScore for the
// number's network (or, network unknown, for its country: the route's
// lowest score over the country's networks), NORMAL from NormalScore, LOW
// below or without data, MNP_FALLBACK for MNP fallback. MNP fallback applies
// when no live HLR route reaches NormalScore.
//
// # Validation
//
// Maps are checked when a Platform or Resolver is built: routes must be
// known 3-character identifiers (or REJECT), prefixes a plus sign and
// digits starting with a calling code, MCCMNCs 5 or 6 digits, country codes
// ISO regions of the numbering plan, and no key may appear twice (a
// repetition is reported as such, a different route as a contradiction).
// Every problem comes back in one *MapError that names each offending
// entry; nothing is built from a map with problems, so a bad map never
// replaces a good one. A Router swaps an account's Resolver atomically
// while resolutions run.
//
// # Performance
//
// Resolve reads one flattened prefix table (package numbering/prefixmap)
// that holds, for every prefix of the account's and the platform's rules,
// both maps' longest matches; one map lookup gives the network's coverage
// and MCCMNC rules. It allocates nothing and takes about 0.3 µs with
// 100,000 platform prefix rules, 10,000 account prefix rules, 1,000 MCCMNC
// and 250 country rules (benchmarks/README.md). Building that platform takes
// about 80 ms and the account on top of it 25 ms.
//
// Prefix rules also live in github.com/armon/go-radix trees, built on first
// use, which answer the questions the flattened table does not: every rule
// on a number's path (Resolver.Explain), and a cross-check of the tables in
// the tests. go-radix's LongestPrefix alone costs about 0.9 µs on the
// 100,000 rules, three times the whole decision's budget, which is why
// decisions do not walk the trees.
//
// # Thread safety
//
// Platform, Resolver and Router are safe for concurrent use.
package routing
