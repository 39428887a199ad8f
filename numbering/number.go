package numbering

// Lengths from libphonenumber: a calling code has at most 3 digits and a
// national significant number at most 17 (ITU-T E.164 allows 15 in all; some
// plans exceed it).
const (
	maxCallingCodeDigits = 3
	minNationalDigits    = 2
	maxNationalDigits    = 17
	maxDigits            = maxCallingCodeDigits + maxNationalDigits
	// maxInputLength bounds the input accepted by Parse (libphonenumber's limit).
	maxInputLength = 250
)

// Number is a parsed phone number in international form: a country calling
// code followed by the national significant number. It is a small comparable
// value; the zero Number is not a number (IsZero reports true).
//
// Numbers come from Plan.Parse, which knows the calling codes; a Number holds
// at most 20 digits.
type Number struct {
	digits [maxDigits]byte // ASCII digits: calling code then national number
	n      uint8           // digits in use; 0 for the zero Number
	ccLen  uint8           // digits of the calling code
	vanity bool            // letters were converted to digits
}

// IsZero reports whether n is the zero Number.
func (n Number) IsZero() bool { return n.n == 0 }

// CountryCode returns the country calling code, such as 49; 0 for the zero Number.
func (n Number) CountryCode() int {
	cc := 0
	for _, c := range n.digits[:n.ccLen] {
		cc = cc*10 + int(c-'0')
	}
	return cc
}

// NationalNumber returns the national significant number: the digits after
// the calling code, without any national (trunk) prefix.
func (n Number) NationalNumber() string { return string(n.national()) }

func (n *Number) national() []byte { return n.digits[n.ccLen:n.n] }
func (n *Number) all() []byte      { return n.digits[:n.n] }

// IsVanity reports whether the input had letters (a vanity number such as
// +1-800-FLOWERS) that were converted to keypad digits.
func (n Number) IsVanity() bool { return n.vanity }

// String returns the number in E.164 form, such as "+4915112345678", or ""
// for the zero Number.
func (n Number) String() string {
	if n.n == 0 {
		return ""
	}
	return string(n.AppendTo(make([]byte, 0, 1+n.n)))
}

// AppendTo appends the E.164 form of n to b and returns the extended buffer.
func (n Number) AppendTo(b []byte) []byte {
	if n.n == 0 {
		return b
	}
	b = append(b, '+')
	return append(b, n.digits[:n.n]...)
}

// MarshalText implements encoding.TextMarshaler with the E.164 form.
func (n Number) MarshalText() ([]byte, error) { return n.AppendTo(nil), nil }

// GoString makes %#v readable in test failures.
func (n Number) GoString() string { return "numbering.Number(\"" + n.String() + "\")" }

// ParseError is returned by Plan.Parse for input that is not a phone number
// in international format, and by Plan.ParseIn for input that cannot be
// read in its region. Branch on Reason.
type ParseError struct {
	Input  string
	Reason Reason
	// Region is the default region of ParseIn (its ISO code in upper
	// case); "" for Parse.
	Region string
	// Offset is the byte offset of the offending character in Input for
	// InvalidCharacter and NotANumber, -1 when no single character is at fault.
	Offset int
}

func (e *ParseError) Error() string {
	in := ""
	if e.Region != "" {
		in = " in " + e.Region
	}
	if e.Offset >= 0 && e.Offset < len(e.Input) {
		return sprintf("numbering: parsing %q%s: %s at byte %d", e.Input, in, e.Reason, e.Offset)
	}
	return sprintf("numbering: parsing %q%s: %s", e.Input, in, e.Reason)
}
