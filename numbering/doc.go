// Package numbering parses phone numbers and classifies them by the world's
// numbering plans: the NT (number type) lookup of the API. It answers, for a
// number, whether it is valid, of which type (mobile, landline, premium rate,
// ...), in which country, from which original network, in which regions and
// time zones, and, when invalid, why.
//
// Load a Plan once and share it:
//
//	plan, err := numbering.Load()
//	res := plan.ClassifyString("+49 151 23456789")
//	// res.Type == numbering.Mobile, res.CountryCode == "DE", res.Network == "T-Mobile"
//
// # Data
//
// The rules are libphonenumber's metadata (release in Plan.Version), read
// from github.com/nyaruka/phonenumbers/v2, plus Numen's generated tables in
// package data (carrier names, geocoding, time zones, country names).
// Classification follows libphonenumber exactly; the tests compare the two on
// every example number of every region and type and on mutations of them.
//
// # Number types
//
// libphonenumber's types map onto the API's NT types as follows:
//
//	FIXED_LINE            LANDLINE
//	MOBILE                MOBILE
//	FIXED_LINE_OR_MOBILE  MOBILE_OR_LANDLINE (the plan does not tell them apart, as in the US)
//	TOLL_FREE             TOLL_FREE
//	PREMIUM_RATE          PREMIUM_RATE
//	SHARED_COST           SHARED_COST
//	VOIP                  VOIP
//	PAGER                 PAGER
//	UAN                   UAN
//	VOICEMAIL             VOICEMAIL
//	PERSONAL_NUMBER       UNKNOWN, valid, with info_text "personal number: ..."
//	UNKNOWN               UNKNOWN, invalid, with a Reason
//
// A number qualifies for an HLR lookup when it is valid and MOBILE or
// MOBILE_OR_LANDLINE; it is possibly ported when it qualifies and its country
// has mobile number portability.
//
// # Reasons
//
// An invalid number carries a Reason that callers can branch on, rendered as
// the API's short English invalid_reason. Input from which no calling code
// can be read (empty, stray characters, letters only, national format,
// unknown calling code, an extension, absurdly long) gives query_status
// FAILED; a number whose calling code is known but which breaks its
// country's rules (too short, too long, invalid length, local number without
// area code, invalid prefix) gives query_status OK and is_valid false, with
// the country filled in.
//
// # Performance
//
// Load compiles every region's number patterns into digit automata and
// builds the prefix tables; it takes about a fifth of a second and some
// tens of megabytes (figures in benchmarks/README.md). Classify then walks
// one automaton per region tried and binary-searches the prefix tables: it
// allocates nothing. ClassifyString adds parsing, which allocates nothing
// either, except for numbers that begin with their country's national prefix
// after the calling code (such as "+44 0 20...") and for Argentina, whose
// national prefix rule is a regular expression that has to run.
//
// # Thread safety
//
// A Plan is immutable after Load: all methods are safe for concurrent use.
// Results share strings and slices with the Plan; do not modify them.
package numbering
