// Package planfmt defines the binary numbering-plan file that package
// numbering reads in place and package numbering/compile writes: its
// header, section directory, section identifiers and the encodings the two
// sides share. Everything is little-endian; every section starts at a
// multiple of 8 bytes.
//
// # File
//
//	offset size  field
//	0      8     magic "NUMNPLAN"
//	8      2     format version (Version)
//	10     2     number of sections n
//	12     4     file length in bytes
//	16     16    libphonenumber release the plan was compiled from, NUL-padded ASCII
//	32     16    digest: the first 16 bytes of SHA-256 over the bytes after the header
//	48     4     CRC-32C (Castagnoli) of the bytes after the header
//	52     4     CRC-32C of bytes 0-51
//	56     8     zero
//	64     16*n  section directory: id, offset, length, zero (uint32 each), by ascending id
//
// A plan file holds the core sections (Strings, Codes, Automata,
// NationalPrefix) and any of the optional ones (Ranges, Networks,
// Geocoding, Timezones, Formats, ShortNumbers); a plan without an optional section answers the
// fields it feeds as unknown. A pack holds optional sections only, and the
// Origin section that ties it to the plans cut from the same whole plan.
//
// # Sections
//
// Strings: uint32 count N, uint32 offsets[N+1] relative to the text, then
// the text (UTF-8). Other sections name strings by their index.
//
// Codes: uint16 byCC[1000] (code record index, NoIndex for unassigned
// calling codes); uint32 codes C; uint32 regions R; C code records
// (CodeSize bytes); R region records (RegionSize bytes); uint16 region
// order (the code records' regions, main region first), padded to 4; the
// dispatch tables of shared calling codes.
//
// Automata: digit automata, each at a multiple of WideRow: uint32 states S
// (bit 31 set for a wide automaton) padded to a row, then S rows, one per
// state, each within one cache line: a narrow row (NarrowRow bytes, for S <= MaxNarrow) is
// uint16 accept, uint8 next[10] (NarrowDead for the dead state) and uint16
// future at NarrowFuture; a wide row (WideRow bytes) is uint16 accept,
// uint16 next[10] (NoState for the dead state) and uint16 future at
// WideFuture; the rest of a row is zero. A state's future is the patterns
// that match at some state reachable from it (itself included): what input
// that has reached it can still become. State 0 is the start. The low
// MaxPatterns bits of accept are the patterns that match on reaching the
// state; the bits from RunShift up are its run r: states s to s+r form a
// chain in which every digit leads from one state to the next, so that a
// walk with r or more digits left may jump r states ahead unread.
//
// NationalPrefix: programs that strip a national prefix (see Inst).
//
// Dialling: the rules that read national input in each region (numbering's
// ParseIn): uint32 regions R (the Codes section's R), then R pairs of
// uint16 programs of the NationalPrefix section, by region record: the
// region's international (IDD) prefix, matched at the start of the digits
// dialled, and its national prefix for parsing with its transform rule;
// NoIndex for a region without one (and for non-geographic regions). A plan
// without the section reads international input only.
//
// Ranges, Geocoding, Timezones: prefix tables (see Table). Ranges' values
// are uint32 pairs (network name string, MCCMNC string or NoString).
// Geocoding's are uint32 strings of a string pool (laid out as the Strings
// section) that follows them. Timezones' are uint32 pairs (first index into
// the zone list, count), then uint32 zone-list length Z, the zone list (Z
// uint32 strings) and its string pool. The two optional sections carry
// their own strings, so that a plan without them is without their strings.
//
// Networks: uint32 count N, then N records of NetworkSize bytes by
// ascending MCCMNC; uint32 region-list length L and L uint32 region-code
// strings (the networks' region lists); uint32 MCCs M and M records of
// (uint32 MCC as a number, uint32 home region string); then the section's
// own string pool, which its strings index.
//
// Formats: libphonenumber's number formats, for formatting numbers as
// people write them (see the Formats constants below). A plan without it
// reads and classifies numbers, but formats them only as E.164.
//
// ShortNumbers: libphonenumber's short-number metadata. uint32 regions N,
// uint32 offset A of the section's own automata (a multiple of
// SectionAlign, relative to the section), N records of ShortRegionSize
// bytes by ascending region code, then at A the automata, laid out as in
// the Automata section: one per region, with a pattern for each ShortDesc.
// The section carries its automata, so that a plan or a pack has it whole
// or not at all.
package planfmt

import "hash/crc32"

// Magic starts every plan file.
const Magic = "NUMNPLAN"

// Version is the format version this package describes. A reader refuses
// any other.
const Version = 1

// SectionAlign aligns sections in the file.
const SectionAlign = 64

// HeaderSize is the size of the fixed header; the section directory
// follows it.
const HeaderSize = 64

// DirEntrySize is the size of one section directory entry.
const DirEntrySize = 16

// Header field offsets.
const (
	OffVersion        = 8
	OffSections       = 10
	OffLength         = 12
	OffLibphonenumber = 16
	OffDigest         = 32
	OffBodyCRC        = 48
	OffHeaderCRC      = 52
)

// Section identifiers, in the order the directory lists them.
const (
	SecStrings        = 1
	SecCodes          = 2
	SecAutomata       = 3
	SecNationalPrefix = 4
	SecRanges         = 5
	SecNetworks       = 6
	SecGeocoding      = 7
	SecTimezones      = 8
	SecOrigin         = 9
	SecDialling       = 10
	SecFormats        = 11
	SecShortNumbers   = 12
)

// OriginSize is the size of the Origin section: the 16-byte digest of the
// whole plan a file was cut from (compile.Strip, compile.Pack), so that a
// plan and the packs cut from one generation find each other, and its
// version names the data it came from.
const OriginSize = 16

// SectionName names a section identifier for error messages.
func SectionName(id uint32) string {
	switch id {
	case SecStrings:
		return "strings"
	case SecCodes:
		return "calling codes"
	case SecAutomata:
		return "automata"
	case SecNationalPrefix:
		return "national prefixes"
	case SecRanges:
		return "network ranges"
	case SecNetworks:
		return "networks"
	case SecGeocoding:
		return "geocoding"
	case SecTimezones:
		return "time zones"
	case SecOrigin:
		return "origin"
	case SecDialling:
		return "dialling"
	case SecShortNumbers:
		return "short numbers"
	case SecFormats:
		return "number formats"
	}
	return "unknown"
}

// Sentinels.
const (
	NoIndex  = 0xFFFF     // no code record, no region, no program
	NoState  = 0xFFFF     // the dead state of an automaton
	NoValue  = 0xFFFF     // a prefix-table segment without a value
	NoString = 0xFFFFFFFF // no string
	NoOffset = 0xFFFFFFFF // no automaton
)

// MaxCallingCode bounds calling codes: byCC has this many entries.
const MaxCallingCode = 1000

// Code record layout (CodeSize bytes).
const (
	CodeSize         = 16
	CodeCC           = 0  // uint16 calling code
	CodeFirstRegion  = 2  // uint16 index into the region order
	CodeRegionCount  = 4  // uint16
	CodeProgram      = 6  // uint16 national-prefix program, NoIndex for none
	CodePrefixString = 8  // uint32 string "+49"
	CodeDispatch     = 12 // uint32 offset of the dispatch table in Codes; 0 for none
)

// Dispatch tables narrow the regions of a shared calling code (such as the
// 25 of +1) to those that can hold a number, by its first DispatchDigits
// national digits: 10^DispatchDigits uint32 masks, bit i for the code's
// i-th region. A region without leading digits is a candidate when its
// types automaton is alive after those digits; one with leading digits when
// they can match within or after them. A shared calling code has at most
// MaxSharedRegions regions.
const (
	DispatchDigits   = 3
	DispatchSize     = 1000
	MaxSharedRegions = 32
)

// Region record layout (RegionSize bytes). Description (desc) numbers are
// libphonenumber's: general, fixed line, mobile, toll free, premium rate,
// shared cost, personal number, VoIP, pager, UAN, voicemail.
const (
	RegionSize        = 72
	RegionID          = 0  // uint32 string: ISO 3166-1 alpha-2, or "001"
	RegionName        = 4  // uint32 string: English name
	RegionFlags       = 8  // uint32: FlagMNP | FlagSameMobileAndFixed
	RegionTypes       = 12 // uint32 offset of the types automaton in Automata
	RegionLeading     = 16 // uint32 offset of the leading-digits automaton, NoOffset for none
	RegionLocalOnly   = 20 // uint32 mask of local-only lengths
	RegionPossibleMin = 24 // int8 shortest possible length; -1 when the region has none
	RegionPossibleMax = 25 // int8 longest possible length
	RegionReserved    = 26 // uint16 zero
	RegionLengths     = 28 // uint32[Descs]: bit l set when length l is possible for the desc
)

// Descs is the number of number-type descriptions (automaton patterns) of
// a region.
const Descs = 11

// Region flags.
const (
	FlagMNP                = 1 << 0 // the region has mobile number portability
	FlagSameMobileAndFixed = 1 << 1 // libphonenumber's same_mobile_and_fixed_line_pattern
)

// MaxStates bounds the states of one automaton: state numbers are uint16
// and NoState is reserved.
const MaxStates = NoState

// Automaton rows.
const (
	NarrowRow    = 16
	WideRow      = 32
	NarrowFuture = 12
	WideFuture   = 22
	MaxNarrow    = 255
	NarrowDead   = 0xFF
	WideFlag     = 1 << 31
)

// Automaton accept words: MaxPatterns pattern bits, then the run.
const (
	MaxPatterns = 11
	RunShift    = MaxPatterns
	PatternMask = 1<<MaxPatterns - 1
	MaxRun      = 1<<(16-RunShift) - 1
)

// National-prefix programs. The section is: uint32 programs P, uint32
// offsets[P] of the programs within the section. A program is:
//
//	uint32 quick automaton offset in Automata (over-approximates the
//	       non-empty matches: a number it rejects needs no run)
//	uint32 flags: ProgAlways (an empty match may capture: always run)
//	uint32 capture slots (2 per group, group 0 included)
//	uint32 instructions I
//	uint32 transform length T
//	I instructions of InstSize bytes
//	T transform bytes, padded to 4: ASCII digits, and TransformGroup|n
//	  for the text of group n
//
// The program is a regular expression anchored at the start of the
// national number, compiled by regexp/syntax and run by a backtracking
// matcher with leftmost-first (Perl) semantics, as Go's regexp would.
const (
	ProgAlways     = 1 << 0
	ProgHeaderSize = 20
	TransformGroup = 0x80
)

// Instruction layout (InstSize bytes): op, out, arg, digit set.
const (
	InstSize   = 12
	InstOp     = 0 // uint8
	InstArg8   = 1 // uint8: capture slot (OpCapture) or empty-width condition (OpEmpty)
	InstDigits = 2 // uint16: digits matched (bit d for digit d) (OpDigit)
	InstOut    = 4 // uint32 next instruction
	InstArg    = 8 // uint32 alternative (OpAlt)
)

// Instruction opcodes.
const (
	OpFail    = 0
	OpMatch   = 1
	OpDigit   = 2 // consume a digit in the set, then Out
	OpAlt     = 3 // try Out, then Arg
	OpCapture = 4 // record the position in slot Arg8, then Out
	OpEmpty   = 5 // check the condition Arg8, then Out
	OpNop     = 6
)

// Empty-width conditions (OpEmpty).
const (
	EmptyBegin = 1 << 0 // at the start of the input
	EmptyEnd   = 1 << 1 // at the end of the input
)

// MaxProgram bounds a program's instructions, MaxSlots its capture slots
// and MaxInput the input it runs on, so that the matcher's state fits in
// fixed arrays.
const (
	MaxProgram = 512
	MaxSlots   = 8
	MaxInput   = 24
)

// Prefix tables. A table maps digit strings to the value of their longest
// prefix in it. Prefixes have at most KeyDigits digits; the first KeyDigits
// digits of a string encode as a base-11 number (digit d as d+1, a missing
// digit as 0), which orders a prefix before every string that extends it,
// so that the table is a list of disjoint key segments, each with the
// value of the longest prefix covering it:
//
//	uint32 segments S, uint32 bucket digits B, uint32 values V, uint32 zero
//	uint32 starts[S]   ascending; starts[0] == 0
//	uint16 values[S]   padded to 4; NoValue where no prefix covers the segment
//	uint32 first[11^B+1]: the segment holding the first key of each
//	       bucket of B leading digits; first[11^B] == S-1
//	the values' payload (per section)
const (
	KeyDigits       = 9
	TableHeaderSize = 16
	MaxBucketDigits = 4
)

// KeySpan is 11^KeyDigits, the number of keys.
const KeySpan = 2357947691

// Pow11 returns 11^n for n <= KeyDigits.
func Pow11(n int) uint32 { return pow11[n] }

// Key encodes the first KeyDigits ASCII digits of s.
func Key[S ~string | ~[]byte](s S) uint32 {
	n := min(len(s), KeyDigits)
	// Two digits a step halves the chain of dependent multiplications:
	// (a+1)*11 + (b+1) = 11a + b + 12.
	var k uint32
	i := 0
	for ; i+1 < n; i += 2 {
		k = k*121 + uint32(s[i]-'0')*11 + uint32(s[i+1]-'0') + 12
	}
	if i < n {
		k = k*11 + uint32(s[i]-'0') + 1
	}
	return k * pow11[KeyDigits-n]
}

var pow11 = [KeyDigits + 1]uint32{1, 11, 121, 1331, 14641, 161051, 1771561, 19487171, 214358881, 2357947691}

// Network record layout (NetworkSize bytes).
const (
	NetworkSize        = 24
	NetworkMCCMNC      = 0  // uint32 string
	NetworkBrand       = 4  // uint32 string
	NetworkOperator    = 8  // uint32 string
	NetworkFirstRegion = 12 // uint32 index into the region list; home region first
	NetworkRegionCount = 16 // uint32
	NetworkFlags       = 20 // uint32: NetworkOperational
)

// Short-number region record layout (ShortRegionSize bytes).
const (
	ShortRegionSize    = 48
	ShortRegionCode    = 0  // [2]byte ISO 3166-1 alpha-2 code
	ShortRegionFlags   = 2  // uint16: ShortExactEmergency
	ShortAutomaton     = 4  // uint32 offset of the region's automaton, relative to the automata
	ShortLengths       = 8  // uint32[ShortDescs]: bit l set when length l is possible for the desc
	ShortAnyLength     = 40 // uint16: bit d set when desc d lists no lengths (any length passes)
	ShortRegionPadding = 42 // 6 bytes of zero
)

// Short-number descriptions: the patterns of a region's short-number
// automaton, in libphonenumber's terms.
const (
	ShortGeneral = iota
	ShortCode
	ShortTollFree
	ShortStandardRate
	ShortPremiumRate
	ShortEmergency
	ShortCarrierSpecific
	ShortSMSServices
	ShortDescs
)

// ShortExactEmergency marks a region where a number that extends an
// emergency number no longer reaches the emergency services
// (libphonenumber's REGIONS_WHERE_EMERGENCY_NUMBERS_MUST_BE_EXACT).
const ShortExactEmergency = 1 << 0

// NetworkOperational marks a network the MCC-MNC list calls operational.
const NetworkOperational = 1

// castagnoli returns the CRC-32C table, built at its first use rather than
// when the program starts.
func castagnoli() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// Checksum returns the CRC-32C of b.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli()) }

// U16 and U32 read little-endian integers at byte offset off.
//
// They are encoding/binary's LittleEndian, written out: that package
// brings reflect into the browser module.
func U16(b []byte, off int) uint16 {
	b = b[off : off+2]
	return uint16(b[0]) | uint16(b[1])<<8
}

// U32 reads a little-endian uint32 at byte offset off.
func U32(b []byte, off int) uint32 {
	b = b[off : off+4]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// Formats section. libphonenumber formats a number with the formats of its
// calling code's main region: the first format of the list whose last
// leading-digits pattern matches at the start of the national significant
// number and whose pattern matches all of it. The section is:
//
//	header (FmtHeaderSize bytes): uint32 calling codes C (as in Codes),
//	  uint32 regions R (as in Codes), uint32 format records F, uint32
//	  templates offset, uint32 templates length, uint32 automata offset
//	  (a multiple of WideRow), uint32 automata length, uint32 the size
//	  of a code record (FmtCodeSizeWord; 0 in files written before
//	  alternate formats: FmtCodeSizeNoAlt), then, where that word is not
//	  0, uint32 the offset of the as-you-type table (FmtAYT; 0 for none).
//	  Files with word 28 zero have a header of FmtHeaderSizeNoAlt bytes
//	  and neither alternate lists nor the as-you-type table; they format
//	  whole numbers only.
//	C code records (FmtCodeSize bytes): the national list, the
//	  international list and the alternate list, each uint16 first
//	  record, uint16 count, then uint32 chunk table offset (in the
//	  section), in that order. A calling code whose metadata has no
//	  international formats has its national list again as international
//	  list. Then a uint32 of flags: FmtCodeNDD when the main region has
//	  a national prefix (libphonenumber's getNddPrefixForRegion is not
//	  empty; its national prefix for parsing may be set without one).
//	  The alternate list holds libphonenumber's alternate formats
//	  (PhoneNumberAlternateFormats), which its number matcher accepts at
//	  the grouping leniencies; their automata hold each format's first
//	  leading-digits pattern, the one the matcher reads, and their
//	  patterns may match a part of a number (the matcher formats with
//	  replaceAll).
//	R region records (FmtRegionSize bytes): the international prefix that
//	  numbers dialled from the region start with (libphonenumber's
//	  preferred one, else its only one), NUL-padded ASCII; all NUL when the
//	  region has several and no preferred one (then "+" is written).
//	F format records (FmtRecordSize bytes): uint32 layout offset (in the
//	  section), then three templates, each uint16 offset (in the
//	  templates), uint8 length, then a uint8: the flags (in the first),
//	  the fewest and the most digits the layout matches (in the second
//	  and third, so that a number of another length is passed over
//	  without reading the layout). The templates: the format, the format
//	  with the national-prefix formatting rule applied to its first
//	  group, the format with the domestic-carrier-code rule applied
//	  (length 0 when the format has no such rule).
//	chunk tables: per list, one uint32 automaton offset (in the automata)
//	  per FmtChunk records, NoOffset for a chunk without leading digits:
//	  the automaton of the chunk's leading-digits patterns, pattern i for
//	  the chunk's i-th record; a pattern matches at the start of a number
//	  when the walk over it passes an accepting state.
//	layouts: a format's pattern, which libphonenumber's metadata writes as
//	  a sequence of capture groups of digit classes with counted
//	  repetitions, at most one of them of variable length (such as
//	  "(\d{3})([2-9]\d{2,3})(\d{4})"): uint8 atoms A, uint8 groups G,
//	  uint8 the digits of the atoms of fixed length, uint8 the atom of
//	  variable length (NoAtom for none); A atoms (FmtAtomSize bytes: uint16
//	  the digits the atom matches, bit d for digit d, uint8 least and
//	  uint8 most repetitions); G groups (uint8 first atom, uint8 atoms).
//	  A number matches the pattern when the variable atom takes the
//	  digits the others leave, within its repetitions, and every digit is
//	  in its atom's set; that match is then the one Java's Matcher.matches
//	  and replaceAll find (greedy, and no other match can cover the
//	  whole number), so the groups are where the atoms put them.
//	templates: ASCII bytes, TemplateGroup|n for the text of group n,
//	  TemplateCarrier for the carrier code.
//	automata: digit automata, as in the Automata section.
//	as-you-type table (at a multiple of 4), what libphonenumber's
//	AsYouTypeFormatter reads of the formats:
//	  F records (FmtAYTRecordSize bytes), one per format record: uint16
//	  the offset of its formatting template (in the templates), uint8
//	  its length (0 for a format that cannot give one), uint8 the digits
//	  of the longest number the pattern matches in "999999999999999",
//	  uint8 flags (AYTEligible, AYTFirstGroupOnly, AYTSeparator), uint8
//	  its leading-digits patterns n, two zero bytes. The template is the
//	  format applied to that number, with TemplateDigit for each of its
//	  digits.
//	  C code records (FmtAYTCodeSize bytes): for the national list, then
//	  the international one, uint32 levels L and uint32 the offset (in
//	  the section) of L * chunks uint32 automaton offsets (in the
//	  automata; NoOffset for a chunk without such patterns), level
//	  major. libphonenumber tries pattern min(k, n-1) of a format on a
//	  national number of k+3 digits: the chunk's automaton above holds
//	  pattern n-1, and level k, for k < L, pattern k of the formats with
//	  n > k+1. L is the most patterns of a format of the list, less one.
const (
	FmtHeaderSize = 36
	// FmtHeaderSizeNoAlt is the header of files without alternate lists
	// (word 28 zero), which have no as-you-type table either.
	FmtHeaderSizeNoAlt = 32
	FmtCodeSize        = 28
	// FmtCodeSizeNoAlt is the code record of files without alternate lists.
	FmtCodeSizeNoAlt = 16
	FmtRegionSize    = 8
	FmtRecordSize    = 16
	FmtChunk         = MaxPatterns
	FmtLayoutHead    = 4
	FmtAtomSize      = 4
	NoAtom           = 0xFF
	MaxAtoms         = 32 // atoms of a layout
	MaxGroups        = 9  // groups of a layout ($1 to $9)

	FmtCodeSizeWord  = 28 // header: uint32 the size of a code record (0: FmtCodeSizeNoAlt)
	FmtAYT           = 32 // header: uint32 offset of the as-you-type table
	FmtAYTRecordSize = 8
	FmtAYTCodeSize   = 16
	// AYTMaxFormats bounds the formats of one list, so that the
	// formats an as-you-type formatter still considers fit a uint64.
	AYTMaxFormats = 64
	// AYTMaxLevels bounds the levels of a list's as-you-type table.
	AYTMaxLevels = 16
)

// As-you-type record flags.
const (
	AYTEligible       = 1 << 0 // the format is groups and punctuation, $1 first: libphonenumber's eligible format
	AYTFirstGroupOnly = 1 << 1 // the national-prefix formatting rule is empty, "$1" or "($1)"
	AYTSeparator      = 1 << 2 // the national-prefix formatting rule has a space or a hyphen
)

// TemplateDigit stands for a digit still to come in an as-you-type
// template.
const TemplateDigit = 0xFE

// Format record fields and flags.
const (
	FmtLayout   = 0
	FmtPlain    = 4
	FmtNational = 8
	FmtCarrier  = 12

	FmtMinDigits = FmtNational + 3
	FmtMaxDigits = FmtCarrier + 3

	FmtLeading    = 1 << 0 // the format has leading digits: check its chunk's automaton
	FmtNPOptional = 1 << 1 // national_prefix_optional_when_formatting
	// FmtNPRequired: the national-prefix formatting rule writes more than
	// the first group (a national prefix) and is not optional, so a number
	// found in text in national format must carry the prefix
	// (libphonenumber's isNationalPrefixPresentIfRequired).
	FmtNPRequired = 1 << 2

	FmtCodeFlags = 24     // offset of a code record's flags
	FmtCodeNDD   = 1 << 0 // the code's main region has a national prefix
)

// Template bytes beyond ASCII.
const (
	TemplateGroup   = 0x80 // | group number (1 to 9)
	TemplateCarrier = 0xFF
)
