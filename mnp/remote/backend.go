package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/mnp"
)

// HLR implements [mnp.HLRBackend]: a POST /hlr-lookup of q.Number on the
// route set with [WithUpstreamRoute] (q.Route, a route of the calling
// engine, is not sent). The result maps onto the answer as the package
// documentation describes; an answer the client cannot read is a
// *mnp.BackendError with mnp.CodeBadProviderAnswer.
func (c *Client) HLR(ctx context.Context, q mnp.Query) (mnp.HLRAnswer, error) {
	k, err := c.lookupCall("/hlr-lookup", q)
	if err != nil {
		return mnp.HLRAnswer{}, err
	}
	resp, err := c.send(ctx, k)
	if err != nil {
		return mnp.HLRAnswer{}, err
	}
	a, err := decodeHLRAnswer(resp.body, q.Number.String(), c.codes)
	if err != nil {
		return mnp.HLRAnswer{}, c.badAnswer(k, err)
	}
	return a, nil
}

// Portability implements [mnp.PortabilityBackend]: a POST /mnp-lookup of
// q.Number on the route set with [WithUpstreamRoute].
func (c *Client) Portability(ctx context.Context, q mnp.Query) (mnp.PortAnswer, error) {
	k, err := c.lookupCall("/mnp-lookup", q)
	if err != nil {
		return mnp.PortAnswer{}, err
	}
	resp, err := c.send(ctx, k)
	if err != nil {
		return mnp.PortAnswer{}, err
	}
	a, err := decodePortAnswer(resp.body, q.Number.String(), c.codes)
	if err != nil {
		return mnp.PortAnswer{}, c.badAnswer(k, err)
	}
	return a, nil
}

func (c *Client) lookupCall(path string, q mnp.Query) (*call, error) {
	if q.Number.IsZero() {
		return nil, &mnp.BackendError{Backend: c.name, Code: mnp.CodeInternal, Err: errors.New("query without a number")}
	}
	body, err := json.Marshal(apiv2.HLRLookupRequest{MSISDN: q.Number.String(), Route: apiv2.String(c.route)})
	if err != nil {
		return nil, &mnp.BackendError{Backend: c.name, Code: mnp.CodeInternal, Err: err}
	}
	return &call{method: http.MethodPost, path: path, body: body}, nil
}

// NumenErrorCode is the default reading of a provider's error_code (see
// [WithErrorCodes]): a code of Numen's table ([mnp.Codes]) is that code when
// the provider's error_description is empty or Numen's description of it
// (compared without case), so that another Numen's codes carry over and a
// foreign provider's code 4 is not taken for Numen's 4. Code 0 is
// [mnp.CodeNone]. Anything else is not known.
func NumenErrorCode(code int, description string) (mnp.ErrorCode, bool) {
	if code == 0 {
		return mnp.CodeNone, true
	}
	codes := mnp.Codes()
	if code < int(codes[0]) || code > int(codes[len(codes)-1]) {
		return mnp.CodeNone, false
	}
	c := mnp.ErrorCode(code)
	d := strings.TrimSpace(description)
	if d != "" && !strings.EqualFold(d, c.Description()) {
		return mnp.CodeNone, false
	}
	return c, true
}

type codeReader = func(code int, description string) (mnp.ErrorCode, bool)

// decodeHLRAnswer reads the body of a POST /hlr-lookup answer into an
// HLRAnswer. want is the E.164 number asked for ("" to skip the check).
func decodeHLRAnswer(body []byte, want string, codes codeReader) (mnp.HLRAnswer, error) {
	var res apiv2.HLRResult
	if err := decodeBody(body, &res); err != nil {
		return mnp.HLRAnswer{}, err
	}
	return hlrAnswer(&res, want, codes)
}

// decodePortAnswer reads the body of a POST /mnp-lookup answer.
func decodePortAnswer(body []byte, want string, codes codeReader) (mnp.PortAnswer, error) {
	var res apiv2.MNPResult
	if err := decodeBody(body, &res); err != nil {
		return mnp.PortAnswer{}, err
	}
	return portAnswer(&res, want, codes)
}

// hlrAnswer maps an HLR result onto an answer.
func hlrAnswer(r *apiv2.HLRResult, want string, codes codeReader) (mnp.HLRAnswer, error) {
	status, ok := parseStatus(r.ProcessingStatus)
	if !ok {
		return mnp.HLRAnswer{}, fmt.Errorf("processing_status %q is not COMPLETED, REJECTED or FAILED", clip(r.ProcessingStatus, 40))
	}
	if err := sameNumber(r.MSISDN, want); err != nil {
		return mnp.HLRAnswer{}, err
	}
	// An unknown connectivity_status reads as UNDETERMINED, what the API
	// says when the state could not be found.
	conn, _ := mnp.ParseConnectivity(strings.ToUpper(strings.TrimSpace(r.ConnectivityStatus)))
	a := mnp.HLRAnswer{
		Status:       status,
		Code:         errorCode(r.ErrorCode, r.ErrorDescription, codes),
		Connectivity: conn,
		MCCMNC:       mccmncOf(r.MCCMNC, r.MCC, r.MNC),
		IMSI:         apiv2.Deref(r.IMSI),
		MSIN:         apiv2.Deref(r.MSIN),
		MSC:          apiv2.Deref(r.MSC),
		Ported:       boolOf(r.IsPorted),
		Roaming:      boolOf(r.IsRoaming),
	}
	if a.Roaming == mnp.True {
		// The serving network is the visited one, not the subscriber's.
		a.RoamingOn = mnp.NetworkRef{
			MCCMNC: a.MCCMNC,
			Name:   apiv2.Deref(r.RoamingNetworkName),
			Region: regionOf(r.RoamingCountryCode),
		}
	}
	if a.Ported == mnp.True {
		a.PortedTo = mnp.NetworkRef{
			Name:   apiv2.Deref(r.PortedNetworkName),
			Region: regionOf(r.PortedCountryCode),
		}
		if a.Roaming != mnp.True {
			// At home, the serving network is the one ported to. Roaming
			// state unknown counts as at home: a roaming provider says so.
			a.PortedTo.MCCMNC = a.MCCMNC
		}
	}
	return a, nil
}

// portAnswer maps an MNP result onto an answer.
func portAnswer(r *apiv2.MNPResult, want string, codes codeReader) (mnp.PortAnswer, error) {
	status, ok := parseStatus(r.ProcessingStatus)
	if !ok && strings.TrimSpace(r.ProcessingStatus) == "" {
		// An MNP result of another provider may have query_status only; read it when
		// processing_status is missing.
		status, ok = parseQueryStatus(r.QueryStatus)
	}
	if !ok {
		return mnp.PortAnswer{}, fmt.Errorf("processing_status %q (query_status %q) is not a known status",
			clip(r.ProcessingStatus, 40), clip(r.QueryStatus, 40))
	}
	if err := sameNumber(r.MSISDN, want); err != nil {
		return mnp.PortAnswer{}, err
	}
	a := mnp.PortAnswer{
		Status: status,
		Code:   errorCode(r.ErrorCode, r.ErrorDescription, codes),
		Ported: boolOf(r.IsPorted),
	}
	a.Network.MCCMNC = mccmncOf(r.MCCMNC, r.MCC, r.MNC)
	if a.Ported == mnp.True {
		a.Network.Name = apiv2.Deref(r.PortedNetworkName)
		a.Network.Region = regionOf(r.PortedCountryCode)
	} else {
		a.Network.Name = apiv2.Deref(r.OriginalNetworkName)
		a.Network.Region = regionOf(r.OriginalCountryCode)
	}
	return a, nil
}

func parseStatus(s string) (mnp.Status, bool) {
	return mnp.ParseStatus(strings.ToUpper(strings.TrimSpace(s)))
}

func parseQueryStatus(s string) (mnp.Status, bool) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "OK", "COMPLETED":
		return mnp.Completed, true
	case "REJECTED":
		return mnp.Rejected, true
	case "FAILED":
		return mnp.Failed, true
	}
	return 0, false
}

func errorCode(code *int, description *string, codes codeReader) mnp.ErrorCode {
	if code == nil {
		return mnp.CodeNone
	}
	if c, ok := codes(*code, apiv2.Deref(description)); ok {
		return c
	}
	return mnp.CodeNone
}

func boolOf(b *bool) mnp.Bool {
	if b == nil {
		return mnp.Unknown
	}
	return mnp.BoolOf(*b)
}

// mccmncOf returns the MCCMNC of a result: mccmnc, or mcc and mnc joined, or
// "" when neither is 5 or 6 digits (a value of another shape is dropped as
// unknown rather than passed on).
func mccmncOf(mccmnc, mcc, mnc *string) string {
	if s := strings.TrimSpace(apiv2.Deref(mccmnc)); s != "" {
		if isDigits(s, 5, 6) {
			return s
		}
		return ""
	}
	m, n := strings.TrimSpace(apiv2.Deref(mcc)), strings.TrimSpace(apiv2.Deref(mnc))
	if isDigits(m, 3, 3) && isDigits(n, 2, 3) {
		return m + n
	}
	return ""
}

// regionOf returns an ISO 3166-1 alpha-2 code upper-cased, or "" for a value
// of another shape.
func regionOf(s *string) string {
	r := strings.ToUpper(strings.TrimSpace(apiv2.Deref(s)))
	if len(r) != 2 || r[0] < 'A' || r[0] > 'Z' || r[1] < 'A' || r[1] > 'Z' {
		return ""
	}
	return r
}

func isDigits(s string, lo, hi int) bool {
	if len(s) < lo || len(s) > hi {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// sameNumber checks that the answer is about the number asked for, ignoring
// the form of the international prefix (+ or 00) and punctuation. An empty
// msisdn or want is not checked.
func sameNumber(msisdn, want string) error {
	if msisdn == "" || want == "" {
		return nil
	}
	if digitsOf(msisdn) != digitsOf(want) {
		return fmt.Errorf("answer is about msisdn %q, not %s", clip(msisdn, 40), want)
	}
	return nil
}

func digitsOf(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b.WriteByte(s[i])
		}
	}
	d := b.String()
	if strings.HasPrefix(strings.TrimSpace(s), "00") {
		d = d[2:]
	}
	return d
}
