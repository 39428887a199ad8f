// Package webhook delivers the results of bulk lookups to the webhook URLs
// of an account, and lets receivers check them.
//
// A delivery is one HTTP POST of one batch, {"type": "HLR"|"NT",
// "results": [...]} with at most 1000 results, to one URL, with these
// headers:
//
//	Content-Type:      application/json
//	X-Signatures:      hex(SHA-256(key + secret + body)) for each of the
//	                   account's secrets, ";"-separated (the spec's)
//	webhook-id:        the batch's id, the same on every retry, so that a
//	                   receiver can drop a batch it has already taken;
//	                   package engine/bulk draws it at random ("wh_" and
//	                   26 base32 characters), unique across deployments
//	webhook-timestamp: Unix seconds of this attempt
//	webhook-signature: "v1," + base64(HMAC-SHA256(secret, id + "." +
//	                   timestamp + "." + body)) for each secret,
//	                   space-separated (Standard Webhooks)
//
// The receiver acknowledges with HTTP 200 within 10 seconds; anything else
// (another status, no answer in time, a refused connection) fails the
// attempt, and the delivery is tried again after 1, 2, 4, 8, 16, 32, 64,
// 128, 256, 512 and 1024 minutes (Schedule), then given up. Delivery is
// at least once: a receiver may see a batch twice (a crash between its
// answer and our bookkeeping), never zero times while a retry is left.
//
// # Verifying a delivery
//
// A receiver computes hex(SHA-256(key + secret + body)) over the raw body
// with its API key and secret and accepts the delivery when that value is
// one of the ";"-separated values of X-Signatures. Verify does exactly
// that; engine/auth has the Standard Webhooks verifier.
package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/numbering/textfmt"
)

// MaxResults is the most results one callback carries.
const MaxResults = 1000

// AckTimeout is how long a receiver has to answer a delivery.
const AckTimeout = 10 * time.Second

// Schedule is the spec's retry schedule: the waits after the first, second,
// ... failed attempt, in minutes. After the last the delivery fails.
var Schedule = []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}

// MaxAttempts is the number of attempts of one delivery: the first and one
// per step of Schedule (len(Schedule) + 1, which TestSchedule checks). A
// literal, so that the package has no initialisation code: one that runs
// at start costs every numen command a page of code (issue 33).
var MaxAttempts = 12

// Retry returns how long to wait after failed attempt n (1 for the first
// attempt), with minute the length of a minute (time.Minute, or less in
// tests), and false when no attempt is left.
func Retry(n int, minute time.Duration) (time.Duration, bool) {
	if n < 1 || n > len(Schedule) {
		return 0, false
	}
	return time.Duration(Schedule[n-1]) * minute, true
}

// Payload returns a batch's body: {"type": kind, "results": [...]} with
// the given result objects, as they are.
func Payload(kind string, results []json.RawMessage) ([]byte, error) {
	if len(results) > MaxResults {
		return nil, fmt.Errorf("webhook: %d results in one batch; at most %d", len(results), MaxResults)
	}
	var quoted [16]byte // the kinds are short: no allocation but the body's
	t := textfmt.AppendJSONString(quoted[:0], kind)
	size := len(`{"type":,"results":[]}`) + len(t) + max(len(results)-1, 0) // commas
	for _, r := range results {
		size += len(r)
	}
	b := make([]byte, 0, size) // one allocation, of the body's size
	b = append(b, `{"type":`...)
	b = append(b, t...)
	b = append(b, `,"results":[`...)
	for i, r := range results {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, r...)
	}
	return append(b, "]}"...), nil
}

// Delivery is one batch for one URL.
type Delivery struct {
	// ID identifies the batch, the same on every attempt (webhook-id).
	ID   string
	URL  string
	Body []byte
	// Key and Secrets sign the delivery: the account's API key and
	// secrets.
	Key     string
	Secrets []string
}

// Sender posts deliveries.
type Sender struct {
	// Client sends the requests; default a client without redirects.
	Client *http.Client
	// Timeout is the receiver's time to answer; default AckTimeout.
	Timeout time.Duration
	// Clock gives webhook-timestamp; default time.Now.
	Clock func() time.Time
	// UserAgent is sent with every delivery.
	UserAgent string
}

// Error is a failed attempt: the receiver's status (0 when it did not
// answer) and what went wrong.
type Error struct {
	URL    string
	Status int
	Err    error
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("webhook %s: answered %d, not 200", e.URL, e.Status)
	}
	return fmt.Sprintf("webhook %s: %v", e.URL, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// maxIdleConnsPerHost is how many connections to one receiver the default
// client keeps open between deliveries: the default delivery workers
// (bulk.Options.DeliveryWorkers) may all post to one receiver at once,
// and net/http's default transport keeps two, closing the others after
// each callback.
const maxIdleConnsPerHost = 16

// defaultClient does not follow redirects: a delivery goes where the
// account said, signed for that receiver only. Made at the first delivery,
// not at start-up (and by a function, not a sync.OnceValue variable, which
// is initialisation code run at start).
func defaultClient() *http.Client {
	defaultClientOnce.Do(func() {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = maxIdleConnsPerHost
		defaultClientValue = &http.Client{
			Transport:     t,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	})
	return defaultClientValue
}

var (
	defaultClientOnce  sync.Once
	defaultClientValue *http.Client
)

// Send makes one attempt of d: nil when the receiver answered 200 in time,
// else an *Error.
func (s *Sender) Send(ctx context.Context, d Delivery) error {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = AckTimeout
	}
	now := time.Now
	if s.Clock != nil {
		now = s.Clock
	}
	client := s.Client
	if client == nil {
		client = defaultClient()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(d.Body))
	if err != nil {
		return &Error{URL: d.URL, Err: err}
	}
	Sign(req.Header, d.Key, d.Secrets, d.ID, now().Unix(), d.Body)
	if s.UserAgent != "" {
		req.Header.Set("User-Agent", s.UserAgent)
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %s", timeout)
		}
		return &Error{URL: d.URL, Err: err}
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return &Error{URL: d.URL, Status: resp.StatusCode}
	}
	return nil
}

// Sign sets the headers of a delivery: Content-Type, X-Signatures and the
// Standard Webhooks headers.
func Sign(h http.Header, key string, secrets []string, id string, timestamp int64, body []byte) {
	h.Set("Content-Type", "application/json")
	h.Set(auth.HeaderSignatures, auth.WebhookSignatures(key, secrets, body))
	keys := make([][]byte, len(secrets))
	for i, s := range secrets {
		keys[i] = []byte(s)
	}
	auth.SignStandardWebhook(h, keys, id, timestamp, body)
}

// ErrNotAuthentic is returned by Verify for a delivery that no secret
// signed.
var ErrNotAuthentic = errors.New("webhook: X-Signatures does not match the body for any of the secrets")

// Verify is the receiver's check of a delivery: it reads the request's
// body (at most maxBytes; 0 means 64 MiB) and returns it when one of the
// X-Signatures values is hex(SHA-256(key + secret + body)) for one of
// secrets, else ErrNotAuthentic.
func Verify(r *http.Request, key string, secrets []string, maxBytes int64) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = 64 << 20
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("webhook: reading the body: %w", err)
	}
	if int64(len(body)) > maxBytes {
		return nil, fmt.Errorf("webhook: body larger than %d bytes", maxBytes)
	}
	if !auth.VerifyWebhook(key, secrets, body, r.Header.Get(auth.HeaderSignatures)) {
		return nil, ErrNotAuthentic
	}
	return body, nil
}

// LegacyNT renders an NT result with the key set of the spec's webhook
// example (numbertype, isvalid as "Yes"/"No", ...), for receivers written
// against it; accounts opt in with legacy_nt_keys.
func LegacyNT(r *apiv2.NTResult, iface string) ([]byte, error) {
	yesNo := func(b *bool) *string {
		if b == nil {
			return nil
		}
		if *b {
			return apiv2.String("Yes")
		}
		return apiv2.String("No")
	}
	type legacy struct {
		ID                    string   `json:"id"`
		Number                string   `json:"number"`
		NumberType            string   `json:"numbertype"`
		State                 string   `json:"state"`
		IsValid               *string  `json:"isvalid"`
		InvalidReason         *string  `json:"invalidreason"`
		IsPossiblyPorted      *string  `json:"ispossiblyported"`
		IsVanityNumber        *string  `json:"isvanitynumber"`
		QualifiesForHLRLookup *string  `json:"qualifiesforhlrlookup"`
		OriginalCarrier       *string  `json:"originalcarrier"`
		MCCMNC                *string  `json:"mccmnc"`
		MCC                   *string  `json:"mcc"`
		MNC                   *string  `json:"mnc"`
		CountryCode           *string  `json:"countrycode"`
		Regions               []string `json:"regions"`
		Timezones             []string `json:"timezones"`
		InfoText              *string  `json:"infotext"`
		UserCharge            *string  `json:"usercharge"`
		InsertTime            *string  `json:"inserttime"`
		Storage               *string  `json:"storage"`
		Route                 *string  `json:"route"`
		Interface             string   `json:"interface"`
	}
	return json.Marshal(legacy{
		ID: r.ID, Number: r.Number, NumberType: r.NumberType, State: "COMPLETED",
		IsValid: yesNo(r.IsValid), InvalidReason: r.InvalidReason, IsPossiblyPorted: yesNo(r.IsPossiblyPorted),
		IsVanityNumber: yesNo(r.IsVanityNumber), QualifiesForHLRLookup: yesNo(r.QualifiesForHLRLookup),
		OriginalCarrier: r.OriginalNetworkName, MCCMNC: r.MCCMNC, MCC: r.MCC, MNC: r.MNC,
		CountryCode: r.OriginalCountryCode, Regions: r.Regions, Timezones: r.Timezones, InfoText: r.InfoText,
		UserCharge: r.Cost, InsertTime: r.Timestamp, Storage: r.Storage, Route: r.Route, Interface: iface,
	})
}
