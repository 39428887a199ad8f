// Package mnp defines how Numen asks the outside world about a mobile
// number: a portability backend answers which network a number belongs to
// now (MNP), an HLR backend what the subscriber's home register says
// (connectivity, serving network, roaming). The engine picks a backend per
// route and turns its answer into the API's result objects; this package
// owns only the contract between the two.
//
// Backends live in subpackages:
//
//   - [github.com/numenhq/numen/mnp/portdb]: an offline database of ported
//     numbers and ranges, memory-mapped (portability only);
//   - [github.com/numenhq/numen/mnp/enum]: a client of ENUM servers (DNS
//     NAPTR records with the portability parameters of RFC 4694), such as
//     a portability supplier's (portability only);
//   - [github.com/numenhq/numen/mnp/remote]: a client for any service that
//     speaks Numen's /api/v2, such as a lookup provider or another Numen
//     sidecar (HLR and portability);
//   - [github.com/numenhq/numen/mnp/simnet]: a deterministic simulator of a
//     live network, for demos and tests only.
//
// # Outcomes
//
// A backend returns an answer or an error. An answer carries its
// [Status] (the API's processing_status) and, when something stopped the
// lookup short of a full answer, an [ErrorCode]. An error means the
// backend could not answer at all: errors that wrap [ErrUnavailable]
// (timeouts, refused connections, a provider's 5xx) make the engine try
// the route's next backend, and when none is left the lookup is REJECTED
// with [CodeUnavailable] and costs nothing; any other error makes it
// FAILED with [CodeInternal]. The table of error codes is on [ErrorCode].
//
// Package mnp imports numbering only; it does no I/O.
package mnp

import (
	"context"
	"errors"
	"fmt"

	"github.com/numenhq/numen/numbering"
)

// Query is one number to look up, already classified by numbering: the
// engine never sends an invalid number to a backend.
type Query struct {
	// Number is the E.164 number.
	Number numbering.Number
	// Region is the ISO code of the number's country ("" for
	// non-geographic numbers) and MCCMNC the original network of its range
	// ("" when numbering does not know it).
	Region string
	MCCMNC string
	// Route is the route the engine chose for the lookup.
	Route string
}

// HLRBackend queries a home location register: live state of a subscriber.
// Implementations are safe for concurrent use and honour ctx's deadline.
type HLRBackend interface {
	HLR(ctx context.Context, q Query) (HLRAnswer, error)
}

// PortabilityBackend answers which network a number belongs to now.
// Implementations are safe for concurrent use and honour ctx's deadline.
type PortabilityBackend interface {
	Portability(ctx context.Context, q Query) (PortAnswer, error)
}

// Status is a lookup's processing_status.
type Status uint8

// Processing statuses. The zero Status is invalid, so that an answer a
// backend forgot to fill does not pass as completed.
const (
	// Completed: the lookup succeeded; it is charged.
	Completed Status = iota + 1
	// Rejected: the network (or the data for it) was out of reach; no charge.
	Rejected
	// Failed: an error during processing; no charge.
	Failed
)

var statusNames = [...]string{Completed: "COMPLETED", Rejected: "REJECTED", Failed: "FAILED"}

// String returns the API's name of s, such as "COMPLETED"; "" for the zero
// Status.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return ""
}

// Charged reports whether a lookup with this status costs money: only
// completed lookups do.
func (s Status) Charged() bool { return s == Completed }

// Connectivity is an HLR answer's connectivity_status.
type Connectivity uint8

// Connectivity states of the API. The zero value is Undetermined.
const (
	// Undetermined: the state could not be found; see the error code.
	Undetermined Connectivity = iota
	// Connected: valid number, handset attached to the network.
	Connected
	// Absent: valid number, handset off or out of coverage.
	Absent
	// InvalidMSISDN: the number is invalid or not assigned to a subscriber.
	InvalidMSISDN
)

var connectivityNames = [...]string{Undetermined: "UNDETERMINED", Connected: "CONNECTED", Absent: "ABSENT", InvalidMSISDN: "INVALID_MSISDN"}

// String returns the API's name of c, such as "CONNECTED".
func (c Connectivity) String() string {
	if int(c) < len(connectivityNames) {
		return connectivityNames[c]
	}
	return "UNDETERMINED"
}

// ParseConnectivity reads the API's name of a connectivity status.
func ParseConnectivity(s string) (Connectivity, bool) {
	for i, name := range connectivityNames {
		if name == s {
			return Connectivity(i), true
		}
	}
	return Undetermined, false
}

// ParseStatus reads the API's name of a processing status.
func ParseStatus(s string) (Status, bool) {
	for i, name := range statusNames {
		if name != "" && name == s {
			return Status(i), true
		}
	}
	return 0, false
}

// Bool is a boolean that may be unknown: the API's nullable booleans
// (is_ported, is_roaming). The zero value is Unknown.
type Bool uint8

// Values of Bool.
const (
	Unknown Bool = iota
	False
	True
)

// BoolOf returns True or False.
func BoolOf(b bool) Bool {
	if b {
		return True
	}
	return False
}

// Known reports whether b is True or False.
func (b Bool) Known() bool { return b == True || b == False }

// Value returns whether b is True (false for Unknown).
func (b Bool) Value() bool { return b == True }

// String returns "true", "false" or "null", as in JSON.
func (b Bool) String() string {
	switch b {
	case True:
		return "true"
	case False:
		return "false"
	}
	return "null"
}

// HLRAnswer is what an HLR backend found out about a number. Empty strings
// are unknown: the engine writes them as JSON null.
type HLRAnswer struct {
	Status       Status
	Code         ErrorCode // CodeNone unless something stopped a full answer
	Connectivity Connectivity
	// MCCMNC is the network currently serving the number.
	MCCMNC string
	// IMSI, MSIN and MSC as the network gives them (often masked with
	// asterisks; availability depends on the network).
	IMSI, MSIN, MSC string
	// Ported says whether the number left its original network; PortedTo
	// is the network it moved to, when Ported is True.
	Ported   Bool
	PortedTo NetworkRef
	// Roaming says whether the handset is on a foreign network; RoamingOn
	// is the visited network, when Roaming is True.
	Roaming   Bool
	RoamingOn NetworkRef
}

// NetworkRef names a network as a backend knows it: by MCCMNC when it can,
// else by name and country (a remote provider's answer may carry only
// those). The engine completes what is missing from the MCC-MNC list.
type NetworkRef struct {
	MCCMNC string
	Name   string
	Region string // ISO 3166-1 alpha-2
}

// IsZero reports whether r names no network.
func (r NetworkRef) IsZero() bool { return r == NetworkRef{} }

// PortAnswer is what a portability backend found out about a number.
type PortAnswer struct {
	Status Status
	Code   ErrorCode
	// Ported is Unknown when the backend has no data for the number's
	// country (Code says so): never a guessed False.
	Ported Bool
	// Network is the network the number belongs to now: the ported-to
	// network when Ported is True, else the original network when the
	// backend knows it. A name the backend does not give is filled by the
	// engine from the MCC-MNC list.
	Network NetworkRef
}

// ErrorCode is the API's error_code: an integer for support, with an English
// error_description. Codes are stable; new ones are only ever added.
//
//	code  processing  description
//	   0  COMPLETED   (none: the result has error_code null)
//	   1  REJECTED    number is not a valid phone number
//	   2  REJECTED    number is not a mobile number, no HLR lookup possible
//	   3  REJECTED    route rejects numbers of this range
//	   4  COMPLETED   number is not assigned to any subscriber
//	   5  COMPLETED   subscriber is absent (handset off or out of coverage)
//	   6  REJECTED    network unreachable: no link to the subscriber's network
//	   7  REJECTED    network did not answer in time
//	   8  REJECTED    no provider of the route is available
//	   9  REJECTED    no portability data for the number's country
//	  10  COMPLETED   subscriber's network withheld the details (call barred or privacy)
//	  11  FAILED      provider returned an answer that could not be read
//	  12  FAILED      internal error
//	  13  REJECTED    account's spending limit reached: not looked up, not charged
type ErrorCode uint16

// Error codes; see the table on ErrorCode.
const (
	CodeNone ErrorCode = iota
	CodeInvalidNumber
	CodeNotMobile
	CodeRouteRejects
	CodeUnknownSubscriber
	CodeAbsentSubscriber
	CodeNetworkUnreachable
	CodeTimeout
	CodeUnavailable
	CodeNoPortabilityData
	CodeWithheld
	CodeBadProviderAnswer
	CodeInternal
	// CodeSpendingLimit is a queued (bulk) lookup that its account's
	// balance or monthly cap no longer covered when it ran.
	CodeSpendingLimit
)

var codeDescriptions = [...]string{
	CodeNone:               "",
	CodeInvalidNumber:      "number is not a valid phone number",
	CodeNotMobile:          "number is not a mobile number, no HLR lookup possible",
	CodeRouteRejects:       "route rejects numbers of this range",
	CodeUnknownSubscriber:  "number is not assigned to any subscriber",
	CodeAbsentSubscriber:   "subscriber is absent (handset off or out of coverage)",
	CodeNetworkUnreachable: "network unreachable: no link to the subscriber's network",
	CodeTimeout:            "network did not answer in time",
	CodeUnavailable:        "no provider of the route is available",
	CodeNoPortabilityData:  "no portability data for the number's country",
	CodeWithheld:           "subscriber's network withheld the details (call barred or privacy)",
	CodeBadProviderAnswer:  "provider returned an answer that could not be read",
	CodeInternal:           "internal error",
	CodeSpendingLimit:      "account's spending limit reached: not looked up, not charged",
}

// Description returns the English error_description of c, "" for CodeNone
// and for codes this version does not know.
func (c ErrorCode) Description() string {
	if int(c) < len(codeDescriptions) {
		return codeDescriptions[c]
	}
	return ""
}

// Codes returns every defined error code but CodeNone, in order.
func Codes() []ErrorCode {
	out := make([]ErrorCode, 0, len(codeDescriptions)-1)
	for c := CodeNone + 1; int(c) < len(codeDescriptions); c++ {
		out = append(out, c)
	}
	return out
}

// ErrUnavailable marks errors after which another backend may succeed:
// timeouts, refused connections, a provider's overload. Backends wrap it
// (use [Unavailable]); the engine fails over on it.
var ErrUnavailable = errors.New("backend unavailable")

// Unavailable returns an error that wraps both ErrUnavailable and cause,
// with the backend's name and code (CodeTimeout, CodeNetworkUnreachable or
// CodeUnavailable) for the result when no other backend answers.
func Unavailable(backend string, code ErrorCode, cause error) error {
	return &BackendError{Backend: backend, Code: code, Err: cause, unavailable: true}
}

// BackendError is an error of a named backend, with the error code that a
// result should carry when the error ends the lookup.
type BackendError struct {
	Backend     string
	Code        ErrorCode
	Err         error
	unavailable bool
}

func (e *BackendError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("%s: %s", e.Backend, e.Code.Description())
	}
	return fmt.Sprintf("%s: %s: %v", e.Backend, e.Code.Description(), e.Err)
}

// Unwrap returns the cause, and ErrUnavailable when the backend may be
// retried elsewhere.
func (e *BackendError) Unwrap() []error {
	errs := make([]error, 0, 2)
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	if e.unavailable {
		errs = append(errs, ErrUnavailable)
	}
	return errs
}

// CodeOf returns the error code an error should give a result: the code
// of a *BackendError in its chain, CodeUnavailable for other errors that
// wrap ErrUnavailable, CodeTimeout for context.DeadlineExceeded, and
// CodeInternal otherwise.
func CodeOf(err error) ErrorCode {
	var be *BackendError
	switch {
	case err == nil:
		return CodeNone
	case errors.As(err, &be) && be.Code != CodeNone:
		return be.Code
	case errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout
	case errors.Is(err, ErrUnavailable):
		return CodeUnavailable
	}
	return CodeInternal
}

// Retryable reports whether another backend may answer after err: it wraps
// ErrUnavailable or is a deadline.
func Retryable(err error) bool {
	return errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded)
}
