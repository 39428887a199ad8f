// Package portdb is an offline database of ported phone numbers: which
// numbers, and which ranges of numbers, have moved to which mobile network
// (MCCMNC). It owns the database file: building it from a CSV export,
// opening it read-only, looking numbers up, checking its integrity, and
// replacing it under a running service.
//
// Build the file once from CSV (numen portdb build, or Build), then open it
// where lookups run and share the *DB:
//
//	db, err := portdb.Open("ported.db")
//	r := db.Lookup("4915112345678") // E.164 digits, no "+"
//	if r.Found() {
//		// r.MCCMNC() == "26203", r.Network() == "Telefónica Germany", r.Exact() == true
//	}
//
// # Coverage
//
// A database declares the regions it covers (ISO 3166-1 alpha-2 codes,
// BuildOptions.Regions), and every entry must be in the calling code of one
// of them. For a number of a covered region, a miss means "not ported";
// for any other region the database knows nothing, and Covers says which
// case applies. Coverage is by region, not by calling code: a database of
// US numbers does not cover CA, although both are +1. The caller passes the
// region the numbering plan gave the number (numbering.Result.CountryCode).
//
// # Lookup rules
//
// An entry is a number, or a prefix that stands for every number starting
// with it. Lookup returns the entry for the number itself if there is one,
// else the entry for the longest prefix of the number. In CSV a prefix is
// written "+4915112*"; a range of numbers of one length,
// "+491511200000-+491511299999", becomes the fewest prefixes that cover
// exactly those numbers ("4915112" here). A prefix matches numbers of any
// length, as the exports portability databases are built from mean it.
//
// # Performance
//
// Measured with 10 million entries (benchmarks/README.md; 2 vCPUs of a
// shared virtual machine whose memory is slow: one dependent read of a
// random place in the 80 MB file, BenchmarkRandomRead, takes 0.16 µs):
//
//   - File size: 8.03 bytes per entry, 80 MB: 8 bytes per entry and a
//     sample index of 1/32 byte.
//   - Open: 0.06 ms, whatever the size: the file is mapped, not read. Open
//     checks the header and the table sizes, reads every 65,536th entry
//     into a top index of a few kilobytes, and makes a filter of the range
//     prefixes (16 bits each).
//   - Lookup: 0.37 µs for a number in the database, 0.40 µs for one in a
//     range, 0.48 µs for one that is not ported; 0 allocations. The search
//     reads the top index (first-level cache), the sample index (312 KB,
//     second-level cache) and one or two cache lines of entries, each step
//     guessing the position by interpolation: about one random read of
//     memory and 0.2 µs of work here, under 0.2 µs where memory is fast.
//     A number that is not an entry tries the range prefixes by length,
//     longest first; the filter skips most lengths without a search.
//   - Verify: 50 ms (checksum and every entry).
//   - Build: 3.9 s from CSV, holding 16 bytes per entry in memory (twice
//     that while sorting).
//
// With 100 million entries (a large country) the file is 803 MB, Open
// takes 0.5 ms, Verify 0.46 s, and Lookup 0.69 µs for a number in the
// database, 0.88 µs for one that is not: the sample index (3.1 MB) no
// longer stays in the second-level cache, so a lookup reads memory about
// twice. Building it holds 1.6 GB of entries, twice that while sorting.
//
// The file lives in the operating system's page cache, shared by every
// process that maps it. Until its pages have been read once a lookup may
// wait for the disk (read the file once, as Verify does, to warm it). The
// pages lookups touch count as the process's resident memory, but they are
// clean file cache that the kernel can drop and read again.
//
// # Thread Safety
//
// A DB is immutable and safe for concurrent use, except Close, which must
// not run while other methods do. A Holder makes replacing a database safe:
// lookups through it count themselves in and out of the database they use,
// Swap replaces it atomically, and the old database is closed (unmapped)
// only after the last lookup on it has finished. Results hold no pointer
// into the file and stay valid after Close.
//
// # Replacing the file
//
// Put a new database in place by rename: write it under a temporary name
// in the same directory, then rename it over the old name (mv, or
// os.Rename; numen portdb build -o does this). Never rewrite, copy over
// (cp writes into the existing file) or truncate a database file in
// place while a process has it open. An open database is the file's
// pages mapped into memory and read where they lie, checked once when
// opened: a rename gives the name to a new file and leaves the open one
// whole until it is closed (a Holder closes it after its last lookup),
// but a write in place changes the bytes under running lookups, which
// then answer from a file no checksum has seen, and a truncation removes
// pages under them. A read of a removed page is a fault of the processor
// that would kill the process (SIGBUS); the package's reads of the file
// (Lookup, Verify, Open) ask the runtime to turn it into a panic of their
// goroutine (debug.SetPanicOnFault) and return ErrChanged instead. A
// fault saves the process, not the answers: the rest of the page the new
// end falls in reads as zeros, without a fault, where a lookup would miss
// an entry the file had. So each lookup, after its search, reads the
// file's last entry again and returns ErrChanged when that read faults or
// finds another value than at open: a file truncated, or truncated and
// written again (cp over it), answers no lookup from then on, at the cost
// of one load a lookup, of a line in the cache (lost in the noise of
// BenchmarkLookupCached: benchmarks/README.md, Reliability). DB.Changed
// makes the same check for a health probe. Bytes rewritten in place short
// of the end are not seen by lookups; Verify finds them.
//
// A Backend whose database is found changed refuses its lookups with an
// mnp.Unavailable error, so that the engine asks the route's next backend
// (and, when there is none, the lookup is REJECTED with error code 8, not
// charged), counts them (Backend.Refused), reports the damage once per
// database (OnDamage; numen serve logs it), and reports it from
// Backend.Health until a new database is swapped in (numen serve's
// /healthz then answers 503 naming the backend, and its /metrics count
// numen_portdb_refused_lookups_total and numen_portdb_damaged).
//
// Open the new file WithVerify before swapping it in, so that a damaged
// file is refused and the old one keeps answering; Holder.Reload does it
// for a file renamed over the current one's name.
//
// # Deltas
//
// A national portability database changes every minute; a delta carries
// the changes since a base file was built, so that a running service takes
// them without a new base: numbers ported or moved to a network, and
// numbers returned, each with the time of the change. Make one with Diff
// of two builds (numen portdb diff), or with NewDelta and Add from a
// supplier's feed, and write it with Delta.WriteTo. Open the base
// WithDeltas, or let a Holder take base and deltas together
// (Holder.ReloadWithDeltas, what numen serve does at its periodic check
// and on SIGHUP), and Compact base and deltas into a new base now and then
// (numen portdb apply): the file Build makes from the same entries.
//
// The deltas are applied at lookup time, not written into the base: they
// are read into a sorted array in memory (8 bytes a number, and a filter
// of 2 bytes a number that lets most lookups of numbers they do not change
// skip the search), which Lookup consults before the mapped file. A
// number a delta ports answers the delta's network, as an entry of the
// number itself; a number a delta returns loses its own entry and answers
// as the base's ranges say (not ported, the range's own network, when
// none covers it). Of several deltas changing one number the change with
// the latest time stamp wins, and of equal time stamps the later delta's
// in the order given. A delta that names a network names it for the base
// too. Deltas carry numbers, not ranges, and cannot change the regions a
// base covers: a change of ranges is a new base. Every delta names its
// base by Identity (the checksums of the base's header and body); a delta
// for another base is refused (ErrDeltaBase) naming both. After a
// compaction, diff against the new base.
//
// Measured with the 10-million-entry file and a delta of 100,000 numbers
// (benchmarks/README.md, "Portability database kept current"): the delta
// file is 4.4 MB and reads in 16 ms; taking base and delta through a
// Holder (open, verify the base, read the delta, swap) takes 39 ms; the
// delta holds 1.1 MB of memory; a lookup allocates nothing with deltas
// as without.
//
// # Delta file format
//
// A delta is UTF-8 text, one item a line ("\n"), in this order:
//
//	numen-portdb-delta 1                  magic and format version
//	base 3f4927fd1e27f3fd                 the base's Identity, 16 hex digits
//	created 2026-11-26T12:00:00Z          when the delta was made
//	network 26201 Telekom                 each network the entries name,
//	network 26203 Telefónica Germany      sorted by MCCMNC, with its name
//	+4915112345678 26201 2026-11-26T11:58:03Z     ported or moved
//	+4915112345679 returned 2026-11-26T11:59:40Z  returned
//	end 2 1a2b3c4d                        the count of entries and the
//	                                      CRC-32C of every line before it
//
// Entries are sorted by number, each number once; time stamps are RFC 3339
// in UTC to the second. ReadDelta checks all of it, so that a delta cut
// short (no end line, or a checksum that does not match) or damaged is
// refused with its line named (*DeltaError).
//
// Text rather than binary: deltas are small beside the base (a day of
// changes of a large country is some 100,000 numbers, 4.4 MB), travel
// between organisations, and are read by people checking what changed,
// with grep and diff; and a delta is read once, into memory, where the
// base is mapped and read in place, which is what its binary layout is
// for. Reading stays far inside the budget (100,000 entries in 16 ms,
// without an allocation per entry), and the checksum and count catch the
// damage a binary format's would.
//
// # File format
//
// All integers are little-endian. The file is a header and a body:
//
//	offset  size  field
//	0       8     magic "NUMENPDB"
//	8       2     format version (1)
//	10      1     log2 of the sample stride S (8: every 256th entry)
//	11      1     reserved, 0
//	12      4     header length H, a multiple of 8; the body starts at H
//	16      8     created, Unix seconds (0: not recorded)
//	24      8     number entries N
//	32      8     range entries R
//	40      8     body length
//	48      4     CRC-32C (Castagnoli) of the body
//	52      4     CRC-32C of the header, with this field zero
//	56      2     range lengths: bit L set when some prefix has L digits
//	58      2     regions
//	60      2     networks (at most 16,384)
//	62      2     reserved, 0
//	64      4     source description length
//	68      4     network names length, in all
//	72            regions, sorted: 2 ASCII letters and the calling code (uint16)
//	              networks, sorted by MCCMNC: 6 ASCII digits (a 5-digit
//	              MCCMNC padded with a zero byte) and the name's length (uint16)
//	              the source description (UTF-8)
//	              the network names, in network order (UTF-8)
//	              zero bytes to H
//	H             the number samples: ceil(N/S) entries, sample i = entry i*S
//	              the N number entries
//	              the range samples: ceil(R/S) entries
//	              the R range entries
//
// An entry is one uint64: the number or prefix as a decimal integer (at
// most 15 digits, below 2^50; E.164 numbers never start with 0, so the
// integer gives back the digits), shifted left 14 bits, and the index of
// its network in the low 14 bits. Entries are sorted and their values
// unique within each table. The body is 8-byte aligned, so that a mapped
// file is read in place as []uint64.
//
// Open checks the magic, the version, the header checksum, the sizes and
// the header's tables; Verify checks the body's checksum and every entry
// (sorted, unique, 1 to 15 digits in a covered calling code, network in
// range, samples, range lengths). Damage is a *FormatError wrapping
// ErrCorrupt; lookups on a damaged file that Open accepted stay within
// the file and report an impossible entry through Result.Err, but may
// answer wrongly from a damaged entry that looks possible: verify files
// from outside before answering from them (WithVerify), as numen portdb
// lookup and numen serve do.
package portdb
