package enumserver

import (
	"encoding/binary"
	"strconv"
	"unsafe"
)

// DNS constants of the narrow case this package answers (RFC 1035, 6891).
const (
	headerLen = 12

	typeSOA   = 6
	typeNS    = 2
	typeNAPTR = 35
	typeOPT   = 41
	typeIXFR  = 251
	typeAXFR  = 252
	typeANY   = 255
	classIN   = 1

	opcodeQuery = 0

	flagQR = 1 << 15
	flagAA = 1 << 10
	flagTC = 1 << 9
	flagRD = 1 << 8
	flagCD = 1 << 4

	// minUDPSize is the largest answer every client takes over UDP, and
	// maxUDPSize the largest this server sends when the client's EDNS0
	// payload size allows more (the DNS flag day 2020 value, as Knot's
	// default): answers are far smaller anyway.
	minUDPSize = 512
	maxUDPSize = 1232
	// maxTCPSize is the largest message over TCP (its length prefix is 16
	// bits).
	maxTCPSize = 65535

	// maxDigits is the longest E.164 number.
	maxDigits = 15
)

// RCode is a DNS response code. The extended BADVERS (16) travels in the
// OPT record's upper bits.
type RCode uint16

// The response codes this server answers with.
const (
	RCodeNoError  RCode = 0
	RCodeFormErr  RCode = 1
	RCodeServFail RCode = 2
	RCodeNXDomain RCode = 3
	RCodeNotImp   RCode = 4
	RCodeRefused  RCode = 5
	RCodeBadVers  RCode = 16
)

// rcodes lists the codes in the order of the metrics' arrays.
var rcodes = [...]RCode{RCodeNoError, RCodeFormErr, RCodeServFail, RCodeNXDomain, RCodeNotImp, RCodeRefused, RCodeBadVers}

func (r RCode) String() string {
	switch r {
	case RCodeNoError:
		return "NOERROR"
	case RCodeFormErr:
		return "FORMERR"
	case RCodeServFail:
		return "SERVFAIL"
	case RCodeNXDomain:
		return "NXDOMAIN"
	case RCodeNotImp:
		return "NOTIMP"
	case RCodeRefused:
		return "REFUSED"
	case RCodeBadVers:
		return "BADVERS"
	}
	return "RCODE" + strconv.Itoa(int(r))
}

func rcodeIndex(r RCode) int {
	for i, c := range rcodes {
		if c == r {
			return i
		}
	}
	return 0
}

// QType is the kind of query, as the metrics count it.
type QType uint8

// The query types the metrics tell apart; every other type is QTypeOther,
// and a query whose question could not be read QTypeNone.
const (
	QTypeNAPTR QType = iota
	QTypeSOA
	QTypeNS
	QTypeANY
	QTypeAXFR
	QTypeIXFR
	QTypeOther
	QTypeNone
	numQTypes
)

var qtypeNames = [numQTypes]string{"NAPTR", "SOA", "NS", "ANY", "AXFR", "IXFR", "other", "none"}

func (t QType) String() string { return qtypeNames[t] }

func qtypeOf(t uint16) QType {
	switch t {
	case typeNAPTR:
		return QTypeNAPTR
	case typeSOA:
		return QTypeSOA
	case typeNS:
		return QTypeNS
	case typeANY:
		return QTypeANY
	case typeAXFR:
		return QTypeAXFR
	case typeIXFR:
		return QTypeIXFR
	}
	return QTypeOther
}

// Outcome is what Answer did with one query, for the metrics.
type Outcome struct {
	// Type is the query's type, QTypeNone when its question was not read.
	Type QType
	// RCode is the answer's response code; meaningless when Dropped.
	RCode RCode
	// Dropped is true when no answer is sent: the packet was not a query
	// (too short to have a header, or a response).
	Dropped bool
	// Truncated is true when the answer did not fit and was sent with TC.
	Truncated bool
}

// query is what parseQuery reads of a query's header and question.
type query struct {
	id, flags uint16
	// nameEnd is the offset just past the question's name, qend just past
	// its type and class.
	nameEnd, qend int
	qtype, class  uint16
	// labels are the offsets of the name's labels, nlabels their number.
	labels  [128]uint16
	nlabels int
	// EDNS0: hasOPT when the query carries an OPT record, udpSize its
	// payload size, version its EDNS version.
	hasOPT  bool
	udpSize int
	version uint8
}

// Answer appends to dst the answer to the DNS message q received over UDP
// (tcp false: the answer fits the client's EDNS0 payload size, or 512
// bytes, else it is sent truncated) or TCP (tcp true; q and the answer
// without the length prefix), and returns it with what happened. When
// Outcome.Dropped is true nothing is appended and nothing is to be sent.
// The outcome is counted in Stats.
//
// Answer is the server's hot path: with a dst whose capacity holds the
// answer (1232 bytes for UDP; answers are under 600 bytes) it allocates
// nothing. It writes in dst's spare capacity, beyond len(dst), only. It
// never panics, whatever q holds.
func (s *Server) Answer(dst, q []byte, tcp bool) ([]byte, Outcome) {
	limit := -1 // the client's EDNS0 payload size, or 512
	if tcp {
		limit = maxTCPSize
	}
	dst, out := s.answer(dst, q, limit)
	s.stats.count(out)
	return dst, out
}

// answer is Answer with the size the answer must fit: -1 for the UDP
// sizes.
func (s *Server) answer(dst, q []byte, limit int) ([]byte, Outcome) {
	var qu query
	if len(q) < headerLen {
		return dst, Outcome{Type: QTypeNone, Dropped: true}
	}
	qu.id = binary.BigEndian.Uint16(q)
	qu.flags = binary.BigEndian.Uint16(q[2:])
	if qu.flags&flagQR != 0 {
		// A response sent to us: answering it could start a loop.
		return dst, Outcome{Type: QTypeNone, Dropped: true}
	}
	if opcode := (qu.flags >> 11) & 0xF; opcode != opcodeQuery {
		return headerOnly(dst, &qu, RCodeNotImp), Outcome{Type: QTypeNone, RCode: RCodeNotImp}
	}
	if rc := parseQuery(q, &qu); rc != RCodeNoError {
		return headerOnly(dst, &qu, rc), Outcome{Type: QTypeNone, RCode: rc}
	}
	if limit < 0 {
		limit = minUDPSize
		if qu.hasOPT {
			limit = min(max(qu.udpSize, minUDPSize), maxUDPSize)
		}
	}
	r := reply{q: q, qu: &qu, limit: limit}
	r.out.Type = qtypeOf(qu.qtype)
	apex, zone := s.inZone(q, &qu)
	switch {
	case qu.hasOPT && qu.version != 0:
		r.rcode = RCodeBadVers
	case qu.class != classIN, zone < 0:
		r.rcode = RCodeRefused
	case qu.qtype == typeAXFR || qu.qtype == typeIXFR:
		// Zone transfers are refused, as BIND refuses a transfer its
		// policy denies (RFC 5936, 2.2.1): there is no zone to transfer,
		// the records are made from the databases as asked.
		r.rcode = RCodeRefused
	case zone == 0:
		r.auth, r.apex = true, apex
		switch qu.qtype {
		case typeSOA, typeANY:
			r.rr = typeSOA
		case typeNS:
			r.rr = typeNS
		}
	default:
		r.auth, r.apex = true, apex
		// The digits, reversed from the labels below the suffix.
		var digits [maxDigits]byte
		n := 0
		for i := zone - 1; i >= 0; i-- {
			off := int(qu.labels[i])
			if q[off] != 1 || q[off+1] < '0' || q[off+1] > '9' || n == maxDigits {
				n = -1 // not a name of this tree: it does not exist
				break
			}
			digits[n] = q[off+1]
			n++
		}
		if n < 0 {
			r.rcode = RCodeNXDomain
			break
		}
		r.rec, r.rcode = s.lookup(dst, digits[:n])
		if r.rcode == RCodeNoError && (qu.qtype == typeNAPTR || qu.qtype == typeANY) {
			r.rr = typeNAPTR
		}
	}
	dst = s.appendReply(dst, &r)
	return dst, r.out
}

// reply is the answer being written.
type reply struct {
	q     []byte
	qu    *query
	limit int
	rcode RCode
	// auth is true when the name is in the tree (AA, and an SOA in the
	// authority section of an answer without records); apex is the
	// offset of the suffix in the question, where owner names of the
	// SOA and NS records point.
	auth bool
	apex int
	// rr is the type of the answer's record, 0 for none.
	rr  uint16
	rec record
	out Outcome
}

// record is the NAPTR a number answers: its digits and the parameters.
type record struct {
	digits []byte
	// rn and rnContext are empty for a number that is not ported.
	rn, rnContext string
	mcc, mnc      string
	// npdi is false when no portability database covers the number's
	// region: no dip was made.
	npdi bool
}

// lookup decides the record of a number: NXDOMAIN when the plan does not
// find it valid, SERVFAIL when the portability database cannot answer.
//
// The plan reads the number as a string that may outlive the call, as far
// as the compiler knows, so a string of a buffer on the stack would move
// to the heap: it is written where the answer goes next, in the spare
// capacity of dst.
func (s *Server) lookup(dst, digits []byte) (record, RCode) {
	rec := record{digits: digits}
	if len(digits) == 0 || digits[0] == '0' {
		return rec, RCodeNXDomain
	}
	plus := append(append(dst[len(dst):], '+'), digits...)
	res := s.plan.ClassifyString(unsafe.String(&plus[0], len(plus)))
	if !res.Valid {
		return rec, RCodeNXDomain
	}
	rec.mcc, rec.mnc = splitMCCMNC(res.MCCMNC)
	if s.portdb == nil {
		return rec, RCodeNoError
	}
	// Covers and Lookup may see two databases when one is swapped in
	// between: the answer is then the new one's, as it is a moment later.
	// The region's code through a map of the plan's own strings: the
	// Result refers to plus, which the answer overwrites.
	region, ok := s.regions[res.CountryCode]
	if !ok || !s.portdb.Covers(region) {
		return rec, RCodeNoError
	}
	rec.npdi = true
	r := s.portdb.Lookup(unsafe.String(&digits[0], len(digits)))
	if r.Err() != nil {
		return rec, RCodeServFail
	}
	if !r.Found() || r.MCCMNC() == res.MCCMNC {
		return rec, RCodeNoError // not ported, or ported back to its range's network
	}
	m := r.MCCMNC()
	rec.mcc, rec.mnc = splitMCCMNC(m)
	rec.rn = s.rn[m]
	if rec.rn == "" {
		rec.rn = m
	}
	if rec.rn[0] != '+' {
		rec.rnContext = s.rnContext
		if rec.rnContext == "" {
			rec.rnContext = res.CountryPrefix
		}
	}
	return rec, RCodeNoError
}

func splitMCCMNC(m string) (mcc, mnc string) {
	if len(m) < 5 {
		return "", ""
	}
	return m[:3], m[3:]
}

// appendHeader appends a header with the query's id and the flags of an
// answer: QR, the query's opcode, RD and CD, the low bits of rc.
func appendHeader(dst []byte, qu *query, flags uint16, rc RCode, qd, an, ns, ar uint16) []byte {
	flags |= flagQR | qu.flags&(0xF<<11|flagRD|flagCD) | uint16(rc&0xF)
	dst = binary.BigEndian.AppendUint16(dst, qu.id)
	dst = binary.BigEndian.AppendUint16(dst, flags)
	dst = binary.BigEndian.AppendUint16(dst, qd)
	dst = binary.BigEndian.AppendUint16(dst, an)
	dst = binary.BigEndian.AppendUint16(dst, ns)
	return binary.BigEndian.AppendUint16(dst, ar)
}

// headerOnly appends an answer of a header and nothing else, for a query
// whose question was not read (no question section, as Knot answers).
func headerOnly(dst []byte, qu *query, rc RCode) []byte {
	return appendHeader(dst, qu, 0, rc, 0, 0, 0, 0)
}

// appendReply writes r: header, question, the record or the SOA, OPT.
// When it does not fit r.limit it writes the header, question and OPT
// with TC instead.
func (s *Server) appendReply(dst []byte, r *reply) []byte {
	start := len(dst)
	var flags uint16
	if r.auth {
		flags |= flagAA
	}
	var an, ns, ar uint16
	if r.rr != 0 {
		an = 1
	} else if r.auth && (r.rcode == RCodeNoError || r.rcode == RCodeNXDomain) {
		ns = 1 // the SOA, for negative caching (RFC 2308)
	}
	if r.qu.hasOPT {
		ar = 1
	}
	dst = appendHeader(dst, r.qu, flags, r.rcode, 1, an, ns, ar)
	dst = append(dst, r.q[headerLen:r.qu.qend]...)
	switch {
	case r.rr == typeNAPTR:
		dst = s.appendNAPTR(dst, &r.rec)
	case r.rr == typeSOA || ns == 1:
		dst = s.appendSOA(dst, r.apex)
	case r.rr == typeNS:
		dst = appendRRHeader(dst, r.apex, typeNS, s.ttl)
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(s.nsWire)))
		dst = append(dst, s.nsWire...)
	}
	if len(dst)-start+optLen(r.qu) > r.limit {
		dst = appendHeader(dst[:start], r.qu, flags|flagTC, r.rcode, 1, 0, 0, ar)
		dst = append(dst, r.q[headerLen:r.qu.qend]...)
		r.out.Truncated = true
	}
	r.out.RCode = r.rcode
	if r.qu.hasOPT {
		dst = appendOPT(dst, r.rcode)
	}
	return dst
}

func optLen(qu *query) int {
	if qu.hasOPT {
		return 11
	}
	return 0
}

// appendOPT appends the answer's OPT record: our UDP payload size, the
// upper bits of the response code, version 0, no options.
func appendOPT(dst []byte, rc RCode) []byte {
	dst = append(dst, 0) // the root
	dst = binary.BigEndian.AppendUint16(dst, typeOPT)
	dst = binary.BigEndian.AppendUint16(dst, maxUDPSize)
	dst = binary.BigEndian.AppendUint32(dst, uint32(rc>>4)<<24)
	return binary.BigEndian.AppendUint16(dst, 0)
}

// appendRRHeader appends a record's owner (a pointer to offset owner of
// the message), type, class IN and TTL; the caller appends the length
// and data.
func appendRRHeader(dst []byte, owner int, typ uint16, ttl uint32) []byte {
	dst = binary.BigEndian.AppendUint16(dst, 0xC000|uint16(owner))
	dst = binary.BigEndian.AppendUint16(dst, typ)
	dst = binary.BigEndian.AppendUint16(dst, classIN)
	return binary.BigEndian.AppendUint32(dst, ttl)
}

func (s *Server) appendSOA(dst []byte, apex int) []byte {
	dst = appendRRHeader(dst, apex, typeSOA, s.ttl)
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(s.soaData)))
	return append(dst, s.soaData...)
}

// appendNAPTR appends the NAPTR record of rec, owned by the question's
// name (offset 12):
//
//	100 10 "u" "E2U+pstn:tel" "!^.*$!tel:+<E164>;npdi;rn=<rn>;rn-context=<ctx>;mcc=<mcc>;mnc=<mnc>!" .
func (s *Server) appendNAPTR(dst []byte, rec *record) []byte {
	dst = appendRRHeader(dst, headerLen, typeNAPTR, s.ttl)
	lenAt := len(dst)
	dst = append(dst, 0, 0, 0, 100, 0, 10, 1, 'u', 12)
	dst = append(dst, "E2U+pstn:tel"...)
	reAt := len(dst)
	dst = append(dst, 0)
	dst = append(dst, "!^.*$!tel:+"...)
	dst = append(dst, rec.digits...)
	if rec.npdi {
		dst = append(dst, ";npdi"...)
	}
	if rec.rn != "" {
		dst = append(dst, ";rn="...)
		dst = append(dst, rec.rn...)
		if rec.rnContext != "" {
			dst = append(dst, ";rn-context="...)
			dst = append(dst, rec.rnContext...)
		}
	}
	if rec.mcc != "" {
		dst = append(dst, ";mcc="...)
		dst = append(dst, rec.mcc...)
		dst = append(dst, ";mnc="...)
		dst = append(dst, rec.mnc...)
	}
	dst = append(dst, '!')
	dst[reAt] = byte(len(dst) - reAt - 1) // at most 255: checked by New
	dst = append(dst, 0)                  // replacement: the root
	binary.BigEndian.PutUint16(dst[lenAt:], uint16(len(dst)-lenAt-2))
	return dst
}

// parseQuery reads the question and the additional section's OPT record
// of a query whose header's first 4 bytes are read. It answers FORMERR
// for anything else than one question of a well-formed uncompressed name,
// no answer or authority records, and at most one OPT record.
func parseQuery(q []byte, qu *query) RCode {
	qd := binary.BigEndian.Uint16(q[4:])
	an := binary.BigEndian.Uint16(q[6:])
	ns := binary.BigEndian.Uint16(q[8:])
	ar := binary.BigEndian.Uint16(q[10:])
	if qd != 1 || an != 0 || ns != 0 {
		return RCodeFormErr
	}
	off := headerLen
	for {
		if off >= len(q) {
			return RCodeFormErr
		}
		l := int(q[off])
		if l == 0 {
			off++
			break
		}
		if l&0xC0 != 0 || qu.nlabels == len(qu.labels) {
			return RCodeFormErr // a pointer or a reserved label type
		}
		qu.labels[qu.nlabels] = uint16(off)
		qu.nlabels++
		off += 1 + l
		if off-headerLen+1 > 255 {
			return RCodeFormErr // longer than a name may be
		}
	}
	qu.nameEnd = off
	if off+4 > len(q) {
		return RCodeFormErr
	}
	qu.qtype = binary.BigEndian.Uint16(q[off:])
	qu.class = binary.BigEndian.Uint16(q[off+2:])
	off += 4
	qu.qend = off
	for range ar {
		// The record's name: the root for OPT; any other name (a TSIG
		// key's, say) is skipped, pointers included.
		for {
			if off >= len(q) {
				return RCodeFormErr
			}
			l := int(q[off])
			if l == 0 {
				off++
				break
			}
			if l&0xC0 == 0xC0 {
				off += 2
				break
			}
			if l&0xC0 != 0 {
				return RCodeFormErr
			}
			off += 1 + l
		}
		if off+10 > len(q) {
			return RCodeFormErr
		}
		typ := binary.BigEndian.Uint16(q[off:])
		class := binary.BigEndian.Uint16(q[off+2:])
		ttl := binary.BigEndian.Uint32(q[off+4:])
		rdlen := int(binary.BigEndian.Uint16(q[off+8:]))
		if typ == typeOPT {
			if qu.hasOPT || q[off-1] != 0 {
				return RCodeFormErr // two OPT records, or one not at the root
			}
			qu.hasOPT, qu.udpSize, qu.version = true, int(class), uint8(ttl>>16)
		}
		off += 10 + rdlen
		if off > len(q) {
			return RCodeFormErr
		}
	}
	return RCodeNoError
}

// inZone finds the suffix at the end of the question's name: it returns
// the suffix's offset in the message and the index of its first label,
// the number of labels before it (0 at the apex); or -1 when the name is
// not under the suffix.
func (s *Server) inZone(q []byte, qu *query) (apex, zone int) {
	k := s.suffixLabels
	if qu.nlabels < k {
		return 0, -1
	}
	start := qu.nameEnd - 1 // the root label
	if k > 0 {
		start = int(qu.labels[qu.nlabels-k])
	}
	tail := q[start:qu.nameEnd]
	if len(tail) != len(s.suffixWire) {
		return 0, -1
	}
	for i, c := range tail {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s.suffixWire[i] {
			return 0, -1
		}
	}
	return start, qu.nlabels - k
}
