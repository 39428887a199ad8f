package numbering

// Type is the number type (NT) of the lookup API, derived from
// libphonenumber's number types as documented in the package overview.
type Type uint8

// The number types of the API. The zero value is Unknown.
const (
	Unknown          Type = iota // type could not be determined
	Landline                     // fixed line
	Mobile                       // mobile, eligible for HLR lookups
	MobileOrLandline             // either: the numbering plan does not tell them apart
	TollFree                     // free to the caller
	PremiumRate                  // extra charges for the caller
	SharedCost                   // cost shared between caller and receiver
	VoIP                         // telephony over IP
	Pager                        // paging service, usually no voice
	UAN                          // universal access or company number
	Voicemail                    // voicemail access
)

var typeNames = [...]string{
	Unknown:          "UNKNOWN",
	Landline:         "LANDLINE",
	Mobile:           "MOBILE",
	MobileOrLandline: "MOBILE_OR_LANDLINE",
	TollFree:         "TOLL_FREE",
	PremiumRate:      "PREMIUM_RATE",
	SharedCost:       "SHARED_COST",
	VoIP:             "VOIP",
	Pager:            "PAGER",
	UAN:              "UAN",
	Voicemail:        "VOICEMAIL",
}

// Types lists every Type in declaration order.
func Types() []Type {
	return []Type{Unknown, Landline, Mobile, MobileOrLandline, TollFree, PremiumRate, SharedCost, VoIP, Pager, UAN, Voicemail}
}

// String returns the API name of the type, such as "MOBILE".
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "UNKNOWN"
}

// ParseType returns the Type with the given API name.
func ParseType(s string) (Type, bool) {
	for i, name := range typeNames {
		if name == s {
			return Type(i), true
		}
	}
	return Unknown, false
}

// IsMobile reports whether numbers of the type may belong to a mobile
// subscriber and so qualify for an HLR lookup: Mobile and MobileOrLandline.
func (t Type) IsMobile() bool { return t == Mobile || t == MobileOrLandline }

// Reason says why a number is invalid. Callers branch on it; String gives the
// short English text used as the API's invalid_reason. The zero value, NoReason,
// belongs to valid numbers.
type Reason uint8

// Reasons for an invalid number. The first group are found while parsing;
// the second are a country's rules broken by a number that parsed (Parse
// returns TooShort and TooLong as well, for national numbers shorter than 2
// or longer than 17 digits).
const (
	NoReason Reason = iota

	Empty                // nothing but white space
	InvalidCharacter     // a character that has no place in a phone number
	NotANumber           // no digits, or symbols in the wrong place
	MissingCountryCode   // national format (a leading 0, or digits with separators but no + or 00): the country is unknown
	InvalidCountryCode   // no country uses the leading digits as its calling code
	ExtensionUnsupported // an extension (";ext=", "ext.", "#") was given
	InputTooLong         // far longer than any phone number

	TooShort       // fewer digits than any number of the country
	TooLong        // more digits than any number of the country
	InvalidLength  // a length between the shortest and longest that the country does not use
	LocalOnly      // a local number, dialable only within its area, without the area code
	InvalidPrefix  // possible length, but the digits do not start any number range of the country
	reasonSentinel // keep last
)

var reasonTexts = [...]string{
	NoReason:             "",
	Empty:                "empty",
	InvalidCharacter:     "invalid character",
	NotANumber:           "not a number",
	MissingCountryCode:   "missing country code",
	InvalidCountryCode:   "invalid country code",
	ExtensionUnsupported: "extension not supported",
	InputTooLong:         "too long",
	TooShort:             "too short",
	TooLong:              "too long",
	InvalidLength:        "invalid length",
	LocalOnly:            "local number without area code",
	InvalidPrefix:        "invalid prefix",
}

// Reasons lists every Reason in declaration order, NoReason first.
func Reasons() []Reason {
	out := make([]Reason, 0, reasonSentinel)
	for r := NoReason; r < reasonSentinel; r++ {
		out = append(out, r)
	}
	return out
}

// String returns the short English reason, such as "too short"; "" for NoReason.
func (r Reason) String() string {
	if int(r) < len(reasonTexts) {
		return reasonTexts[r]
	}
	return "invalid"
}

// Status is the NT query_status: whether number type information was
// obtained. It is StatusFailed when no country calling code could be read
// from the input, StatusOK otherwise (the number may still be invalid).
type Status uint8

// Query statuses.
const (
	StatusOK     Status = iota // the calling code was read and the number classified (valid or not)
	StatusFailed               // no calling code could be read: not a number in international format
)

// String returns "OK" or "FAILED".
func (s Status) String() string {
	if s == StatusFailed {
		return "FAILED"
	}
	return "OK"
}
