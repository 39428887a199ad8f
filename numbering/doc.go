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
// # National input
//
// Parse reads international format only. ParseIn, ClassifyIn and
// ValidateIn read a number as it is written or dialled in a default region,
// exactly as libphonenumber's parse(number, region) does:
//
//	res, err := plan.ClassifyIn("0151 23456789", "DE") // +4915123456789, MOBILE
//	n, err := plan.ParseIn("011 44 20 7946 0000", "US") // +442079460000
//
// National format with or without the region's national (trunk) prefix, the
// region's national-prefix-for-parsing and transform rules (Argentina's 0
// and 15, Brazil's carrier selection codes, the seven-digit local numbers
// of the Caribbean), every international prefix of the region (00, 011,
// 810, 0011 and the patterns of regions with several), the region's own
// calling code without "+" where the number is not possible without it, and
// "+" input, for which the region does not matter. Each region's rules are
// compiled into the plan file (its dialling section) like the national
// prefixes: a plan file without them loads and reads international input,
// and ParseIn fails with ErrNoDialling. An unknown region is a *RegionError
// (ErrUnknownRegion). The tests compare ParseIn with phonenumbers' Parse
// on more than 100,000 inputs built from every example number of every
// region and type, read in their region and in others.
//
// CheckIn is Check for input being typed in a region: "0151 2" in DE is
// Incomplete (a German mobile number), valid exactly when ValidateIn says
// so; every beginning of the valid inputs of that corpus is Incomplete in
// its region.
//
// # Data
//
// A Plan is read from a compiled plan file: libphonenumber's metadata
// (release in Plan.Version) with every region's number patterns compiled
// ahead of time into digit automata, plus Numen's generated tables
// (original networks and their MCCMNCs, geocoding, time zones, country
// names, the MCC-MNC list). go run ./data/gen writes it, with package
// numbering/compile, from github.com/nyaruka/phonenumbers/v2 and, for the
// core metadata of a newer libphonenumber release, libphonenumber-js's
// (data/README.md says which release each table is of); this package
// imports neither: Load reads the file built into the binary (package
// data), Open and OpenBytes another one. Classification follows
// libphonenumber exactly; the tests compare the two on every example number
// of every region and type and on mutations of them, with phonenumbers on
// a plan compiled from its own release and with libphonenumber-js (in
// Node) on the plan built in.
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
// # Formatting
//
// Plan.AppendFormat writes a number as people write it, in libphonenumber's
// styles: E164 (+4930123456), International (+49 30 123456), National
// (030 123456) and RFC3966 (tel:+49-30-123456); Plan.AppendFormatFrom
// writes it as dialled from another region (00 49 30 123456 from France,
// 011 49 30 123456 from the United States, 030 123456 from Germany, "1 "
// and the national style within the North American Numbering Plan), and
// Plan.AppendNationalWithCarrier with a domestic carrier code where the
// country writes one (Brazil, Colombia, Argentina). Format and FormatFrom
// return strings. Result.AppendFormat formats a classified number, and
// Result.AppendJSON writes international_format and national_format (null
// for a number that is not valid). The answers are libphonenumber's, character for
// character: the tests compare both libraries on every example number and
// tens of thousands of mutations of them, valid or not, in every style and
// as dialled from 28 regions. The number formats of the metadata (patterns,
// leading digits, national-prefix and carrier-code rules, international
// formats, including "not formattable internationally") are compiled into
// the plan: leading digits into digit automata, each format's pattern
// into a layout of its groups (a sequence of digit sets with counted
// repetitions, which is the shape every pattern of the metadata has), so
// that formatting needs no regular expressions. A plan compiled without
// them formats only E.164 and says so (ErrNoFormats).
//
// # Numbers in text
//
// Plan.Find iterates over the phone numbers in a text, as libphonenumber's
// PhoneNumberMatcher (findNumbers) finds them, for a default region and at
// one of its leniencies (LeniencyPossible, LeniencyValid,
// LeniencyStrictGrouping, LeniencyExactGrouping; ParseLeniency reads their
// names):
//
//	matches, err := plan.Find("Call 030 1234567 or +44 20 7946 0000.", "DE", numbering.LeniencyValid)
//	for m := range matches {
//		// m.Start, m.End: byte offsets; m.Raw: "030 1234567"; m.Result: as ClassifyIn
//	}
//
// Each Match has the byte offsets of the number in the text (those
// phonenumbers reports; Java's libphonenumber counts UTF-16 units), the
// text as written, an extension included, and the number classified. The
// matcher's regular expressions (its candidate pattern, dates, time
// stamps, page ranges, brackets, the places a second number may begin,
// extensions) are written out as code that runs no regular expression; its
// leniency checks use the plan's formats, a flag for formats whose
// national-prefix rule requires the prefix, and libphonenumber's
// alternate formats, compiled into the plan for the grouping leniencies.
// libphonenumber's bound on candidates tried (maxTries) is unbounded, as
// in findNumbers by default: every candidate costs bounded work. The
// tests compare Find with phonenumbers' FindNumbersWithLeniency on
// generated texts and under fuzzing; the differences they allow are
// listed, with their reasons, in find_test.go.

// # Formatting as you type
//
// Plan.NewAsYouType returns a formatter for an input field of a region (or
// of "+" input only): AsYouType.Input takes one typed character and
// answers, in one call, the text the field shows, libphonenumber's
// AsYouTypeFormatter's character for character ("650", "650-2",
// "(650) 253-00" in US; "00 33 6 12" in FR), and the check of the input
// so far, CheckIn's Progress (valid; incomplete, with the types and
// regions it can still become; impossible, with the reason).
// FormattedPos and RawPos map a caret between the typed characters and
// the text, so that a field can be edited in the middle: map the caret
// back, edit the raw input, Reset and type it again. The templates
// libphonenumber builds from each format (the format applied to the
// longest number its pattern matches) are computed when the plan is
// compiled, with the leading-digits patterns it tries for each length of
// the national number, so that typing runs no regular expressions. The
// tests type every example number of every region, nationally and
// internationally, and random keys, into both formatters and compare
// every keystroke.
//
// # Short numbers
//
// Plan.ShortNumber answers libphonenumber's ShortNumberInfo questions for
// a number dialled in a region, from its short-number metadata compiled
// into the plan (one digit automaton per region):
//
//	info, err := plan.ShortNumber("112", "DE")
//	// info.Valid, info.Emergency, info.ConnectsToEmergency: true
//	// info.Cost == numbering.TollFreeCost
//
// The fields of ShortInfo are IsValidShortNumberForRegion,
// IsPossibleShortNumberForRegion, IsEmergencyNumber,
// ConnectsToEmergencyNumber, GetExpectedCostForRegion,
// IsCarrierSpecificForRegion and IsSmsServiceForRegion. The input is read
// as dialled in the region: its digits (separators dropped; three or more
// letters as keypad digits, fewer dropped, as libphonenumber reads them)
// are the short number, with no trunk or international prefix removed; "+" input is read in international form
// and must carry the region's calling code. The emergency answers read the
// input as libphonenumber does: from its first digit, digits of any script
// only, never after a leading "+"; a longer string that starts with an
// emergency number still connects, except in Brazil, Chile and Nicaragua.
// An unknown region is a *RegionError; a plan cut without the short-number
// section (compile.Strip, as the browser module's core is) returns
// ErrNoShortNumbers. The tests compare every answer with phonenumbers on
// every example short number and emergency number of every region, their
// mutations, and every string of up to three digits in every region.
//
// # Overlays
//
// libphonenumber lags real allocations by months. An overlay corrects the
// plan and adds ranges without waiting for a new release:
// Load(WithOverlay(r)) or WithOverlayFile(path) compile it over the plan
// when it loads. It is UTF-8 text (a byte order mark at its start is
// skipped), one line per prefix; blank lines and lines starting with # are
// ignored; fields are separated by tabs:
//
//	# prefix	type	network	MCCMNC	note (optional)
//	+49 1540	MOBILE	Example Mobil	26299	allocated 2026-10, not yet in libphonenumber
//	+992 93	-	Tcell	43601	Tcell's code from Somoncom; 436-02 is Indigo's
//	+1 355	MOBILE_OR_LANDLINE	-	-	a new area code
//
// The fields:
//
//   - prefix: digits in international form, calling code first ("+" and
//     spaces allowed). A number takes the line of its longest prefix.
//   - type: an API type (MOBILE, LANDLINE, MOBILE_OR_LANDLINE, TOLL_FREE,
//     PREMIUM_RATE, SHARED_COST, VOIP, PAGER, UAN, VOICEMAIL): numbers of
//     the prefix with a length the region allows for the type (else any
//     length its numbers have) are valid numbers of that type; other
//     lengths are answered by the plan. "-" keeps the plan's type and
//     validity. The region is the one libphonenumber would pick (leading
//     digits, else the region with numbers under the prefix, else the
//     calling code's main region).
//   - network: the original network's name, or "-" to keep the plan's.
//     Answers carry a network for MOBILE, MOBILE_OR_LANDLINE and PAGER
//     numbers only (Result.Network), so a line of another type must give
//     "-", and a line that keeps the plan's type ("-") may give a network
//     only where the plan has numbers of those types under its prefix:
//     a network no answer would carry is an error, not dropped in silence.
//   - MCCMNC: 5 or 6 digits, or "-" for none. It goes with the network: a
//     line that keeps the plan's network keeps its code too ("-").
//   - note: free text for people (Plan.Overlay returns it).
//
// Fields are printable text: a control character (Unicode Cc, such as
// NUL or escape), a bidirectional formatting character (U+061C, U+200E,
// U+200F, U+202A to U+202E, U+2066 to U+2069, which reorder the text
// around them where it is shown), any other invisible format character
// (Unicode Cf, such as a zero-width space or a soft hyphen; the zero-width
// non-joiner and joiner, which Persian and Indic names are spelt with, are
// allowed) or a line or paragraph separator in any field is an error
// naming the line, the field and the character. Networks and notes reach
// answers, logs and reports as given; these characters would make them
// read other than they are.
//
// A line with a bad field, a calling code no country has, a prefix given
// twice (in one overlay or across several) or no change at all fails the
// load with an *OverlayError naming the line. Plan.Version names each
// overlay with its number of lines and a digest of its text.
//
// # Performance
//
// Open and OpenBytes read a plan file in place: they check the file's
// checksums (CRC-32C of header and body: a damaged file gives a
// *FormatError, never a wrong answer) and the structure every lookup
// relies on, and decode the small directory of calling codes and regions;
// the automata and tables stay in the file's bytes. Load reads the plan
// built into the binary the same way but checks only its header and the
// sizes and offsets of its sections, not every byte: those bytes are part
// of the executable, as its code is, and the repository's tests check them
// in full (and Plan.Verify does, on demand); it reads the MCC-MNC list and
// the short numbers, which no classification needs, the geocoding
// descriptions, which only geographic numbers need, and each region's
// automata at their first use. So a program that answers one number pages
// in only the parts of the 3.4 MiB plan it reads (about 22% for a mobile
// number, against all of it when every byte is checked). Load takes a few
// milliseconds and allocates under a megabyte, which stays live with the
// plan (figures and commands in benchmarks/README.md). Classify walks the automaton of the
// number's region (one cache line per significant digit; runs of states
// that every digit leads through are skipped) and binary-searches at most
// two prefix tables; ClassifyString adds parsing, national-prefix rules
// (such as "+44 0 20..." and Argentina's) included, which a small matcher
// runs on the stack; ClassifyIn adds the region's rules, a literal
// comparison for most of them. Over a corpus of every region's numbers ClassifyString
// takes about 240 ns and Validate about 160 ns, 150 times faster than
// phonenumbers; none of them allocates. AppendFormat takes about 100 ns in
// any style and AppendFormatFrom about the same, without allocating.
// AsYouType.Input takes about 230 ns a key typed nationally and 150 ns in
// "+" form, the check of the input included (phonenumbers' formatter,
// without a check: 600 and 550 ns), and allocates nothing once the
// formatter is made; an AsYouType is for one field at a time.
// ShortNumber walks the region's short-number automaton once for the
// number and once for the emergency answers, and does not allocate either.
// Find scans text for digits a byte at a time and reads each stretch of
// digits and punctuation it stops at once or a few times (its parts); it
// allocates nothing per byte or match, and searches text 27 to 40 times
// faster than phonenumbers.
//
// # Thread safety
//
// A Plan is immutable after Load: all methods are safe for concurrent use.
// Results share strings and slices with the Plan; do not modify them.
// An AsYouType holds the input of one field: use each from one goroutine
// at a time.
package numbering
