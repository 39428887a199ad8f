package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/numenhq/numen/engine/apiv2"
)

// LookupOptions are the optional parameters of a synchronous lookup. Empty
// fields are not sent, and the server applies its defaults.
type LookupOptions struct {
	// Route is a 3-character route identifier; "" lets the server choose.
	Route string
	// Storage names the report the result is appended to.
	Storage string
}

// BulkOptions are the optional parameters of a bulk submission.
type BulkOptions struct {
	Route   string
	Storage string
	// IdempotencyKey is sent as the Idempotency-Key header. With it, the
	// client retries the submission like a GET (the server is trusted to
	// accept it once); without it, a submission that may have reached the
	// server is never sent twice. Use a fresh random key per submission.
	IdempotencyKey string
}

func (o *LookupOptions) fields() (route, storage *string) {
	if o == nil {
		return nil, nil
	}
	return apiv2.String(o.Route), apiv2.String(o.Storage)
}

func (o *BulkOptions) fields() (route, storage *string, key string) {
	if o == nil {
		return nil, nil, ""
	}
	return apiv2.String(o.Route), apiv2.String(o.Storage), o.IdempotencyKey
}

// post runs a POST of v as JSON.
func (c *Client) post(ctx context.Context, path string, v any, idempotencyKey string, out any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: POST %s: %w", c.name, path, err)
	}
	return c.do(ctx, &call{method: http.MethodPost, path: path, body: body, idempotencyKey: idempotencyKey}, out)
}

func (c *Client) get(ctx context.Context, path string, query url.Values, out any) error {
	return c.do(ctx, &call{method: http.MethodGet, path: path, query: query}, out)
}

// HLRLookup runs a synchronous HLR lookup (POST /hlr-lookup) of msisdn, in
// international format. A REJECTED or FAILED lookup is a result, not an
// error: check ProcessingStatus. The lookup is charged when it completes, so
// it is never retried once it may have reached the server.
func (c *Client) HLRLookup(ctx context.Context, msisdn string, o *LookupOptions) (*apiv2.HLRResult, error) {
	req := apiv2.HLRLookupRequest{MSISDN: msisdn}
	req.Route, req.Storage = o.fields()
	var res apiv2.HLRResult
	if err := c.post(ctx, "/hlr-lookup", req, "", &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// MNPLookup runs a portability lookup (POST /mnp-lookup) of msisdn. Like
// HLRLookup it is not retried once it may have reached the server.
func (c *Client) MNPLookup(ctx context.Context, msisdn string, o *LookupOptions) (*apiv2.MNPResult, error) {
	req := apiv2.MNPLookupRequest{MSISDN: msisdn}
	req.Route, req.Storage = o.fields()
	var res apiv2.MNPResult
	if err := c.post(ctx, "/mnp-lookup", req, "", &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// NTLookup classifies number by its numbering-plan range (POST /nt-lookup).
// Like HLRLookup it is not retried once it may have reached the server.
func (c *Client) NTLookup(ctx context.Context, number string, o *LookupOptions) (*apiv2.NTResult, error) {
	req := apiv2.NTLookupRequest{Number: number}
	req.Route, req.Storage = o.fields()
	var res apiv2.NTResult
	if err := c.post(ctx, "/nt-lookup", req, "", &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func checkBulk(name string, n int) error {
	if n == 0 || n > MaxBulk {
		return fmt.Errorf("remote: %s: %d numbers; a bulk call takes 1 to %d", name, n, MaxBulk)
	}
	return nil
}

// HLRLookups submits up to [MaxBulk] numbers for asynchronous HLR lookups
// (POST /hlr-lookups). The receipt lists the accepted and rejected numbers;
// results go to the account's webhook. It is retried only with
// BulkOptions.IdempotencyKey set.
func (c *Client) HLRLookups(ctx context.Context, msisdns []string, o *BulkOptions) (*apiv2.Receipt, error) {
	if err := checkBulk("HLRLookups", len(msisdns)); err != nil {
		return nil, err
	}
	req := apiv2.HLRLookupsRequest{MSISDNs: msisdns}
	var key string
	req.Route, req.Storage, key = o.fields()
	var res apiv2.Receipt
	if err := c.post(ctx, "/hlr-lookups", req, key, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// NTLookups submits up to [MaxBulk] numbers for asynchronous NT lookups
// (POST /nt-lookups), as HLRLookups does.
func (c *Client) NTLookups(ctx context.Context, numbers []string, o *BulkOptions) (*apiv2.Receipt, error) {
	if err := checkBulk("NTLookups", len(numbers)); err != nil {
		return nil, err
	}
	req := apiv2.NTLookupsRequest{Numbers: numbers}
	var key string
	req.Route, req.Storage, key = o.fields()
	var res apiv2.Receipt
	if err := c.post(ctx, "/nt-lookups", req, key, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Route asks which route automatic selection would take for msisdn (GET
// /route?msisdn=...).
func (c *Client) Route(ctx context.Context, msisdn string) (*apiv2.RouteDecision, error) {
	var res apiv2.RouteDecision
	if err := c.get(ctx, "/route", url.Values{"msisdn": {msisdn}}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Routes lists the route identifiers of each product (GET /routes).
func (c *Client) Routes(ctx context.Context) (*apiv2.Routes, error) {
	var res apiv2.Routes
	if err := c.get(ctx, "/routes", nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// RoutingMap returns the account's routing map (GET /routing-map); package
// routing reads its Map.
func (c *Client) RoutingMap(ctx context.Context) (*apiv2.RoutingMap, error) {
	var res apiv2.RoutingMap
	if err := c.get(ctx, "/routing-map", nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// HLRCoverage returns the coverage data automatic route selection uses (GET
// /hlr-coverage), as the JSON object the server sent: the spec does not fix
// its shape.
func (c *Client) HLRCoverage(ctx context.Context) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := c.get(ctx, "/hlr-coverage", nil, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// AuthTest checks the key, the secret and the authentication method (GET
// /auth-test). It returns nil when the server accepts them; a rejection
// matches [ErrUnauthorized] (or [ErrForbidden] for an address that is not
// whitelisted).
func (c *Client) AuthTest(ctx context.Context) error {
	var res apiv2.AuthTest
	if err := c.get(ctx, "/auth-test", nil, &res); err != nil {
		return err
	}
	if !res.Success {
		return fmt.Errorf("%s: GET /auth-test: server answered success false: %w", c.name, ErrUnauthorized)
	}
	return nil
}

const timePath = "/time"

// Time returns the server's clock (GET /time), in whole seconds.
func (c *Client) Time(ctx context.Context) (time.Time, error) {
	var res apiv2.Time
	if err := c.get(ctx, timePath, nil, &res); err != nil {
		return time.Time{}, err
	}
	if res.Time <= 0 {
		return time.Time{}, c.badAnswer(&call{method: http.MethodGet, path: timePath}, errors.New("time is missing or not positive"))
	}
	return time.Unix(res.Time, 0), nil
}

// SyncClock measures how far the server's clock is from the client's (GET
// /time) and from then on adds the difference to the timestamps of digest
// signatures, which the server accepts only within 30 s of its own clock. Call
// it when a call fails with [ErrStaleTimestamp] (or let [WithAutoSyncClock]
// do so), or once at start on a host whose clock is not kept in sync. It
// returns the offset, server minus client; the server's clock has a
// resolution of one second, so the offset is good to about a second, and an
// offset under a second counts as 0.
func (c *Client) SyncClock(ctx context.Context) (time.Duration, error) {
	before := c.clock()
	server, err := c.Time(ctx)
	if err != nil {
		return c.ClockOffset(), err
	}
	after := c.clock()
	// The server's second began somewhere in [server, server+1s): take the
	// middle, and compare it with the middle of the round trip.
	mid := before.Add(after.Sub(before) / 2)
	offset := server.Add(500 * time.Millisecond).Sub(mid).Round(time.Millisecond)
	if offset > -time.Second && offset < time.Second {
		offset = 0 // equal, as far as whole seconds can tell
	}
	c.offset.Store(int64(offset))
	return offset, nil
}
