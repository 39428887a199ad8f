package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unsafe"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
)

// Data sources of HLR results.
const (
	LiveHLR = "LIVE_HLR"
	MNPDB   = "MNP_DB"
)

// begin validates the parts of a request every lookup shares, classifies
// the number and draws the id.
func (e *Engine) begin(req Request, field string) (numbering.Result, string, error) {
	if req.Number == "" {
		return numbering.Result{}, "", &RequestError{field, "is required"}
	}
	if err := CheckNumberLength(field, req.Number); err != nil {
		return numbering.Result{}, "", err
	}
	if err := checkStorage(req.Storage); err != nil {
		return numbering.Result{}, "", err
	}
	res, err := e.classify(req.Number, req.Country)
	if err != nil {
		return numbering.Result{}, "", err
	}
	id := req.ID
	if id == "" {
		if id, err = e.ids.next(); err != nil {
			return numbering.Result{}, "", err
		}
	}
	return res, id, nil
}

// classify reads a number of a request: in international format, or, with
// a country, as written in that country. An unknown country is a
// *RequestError naming it.
func (e *Engine) classify(number, country string) (numbering.Result, error) {
	if country == "" {
		return e.plan.ClassifyString(number), nil
	}
	res, err := e.plan.ClassifyIn(number, country)
	switch {
	case errors.Is(err, numbering.ErrUnknownRegion):
		return res, &RequestError{"country", fmt.Sprintf("%q is not the ISO 3166-1 alpha-2 code of a country with a calling code", country)}
	case err != nil:
		return res, &RequestError{"country", "this server's numbering data reads numbers in international format only: " + err.Error()}
	}
	return res, nil
}

// numberText is the number a result names: E.164 when it parsed, else the
// input as given.
func numberText(res *numbering.Result) string {
	if res.Number.IsZero() {
		return res.Input
	}
	return res.Number.String()
}

// HLRLookup looks a number up in its home network's register through the
// route that the account's routing decides (or req.Route), and returns the
// HLR result object. See the package documentation for the outcomes.
func (e *Engine) HLRLookup(ctx context.Context, a *Account, req Request) (*apiv2.HLRResult, error) {
	out, _, err := e.hlrLookup(ctx, a, req, false)
	return out, err
}

// HLRLookupJSON is HLRLookup that also returns the result encoded as the
// API writes it (json.Marshal, without a trailing newline): the bytes the
// sink received in Record.JSON. An HTTP adapter answers with them rather
// than encode the result a second time. The caller must not modify them.
func (e *Engine) HLRLookupJSON(ctx context.Context, a *Account, req Request) (*apiv2.HLRResult, []byte, error) {
	return e.hlrLookup(ctx, a, req, true)
}

// hlrLookup is HLRLookup; with encode, or with a sink, it encodes the
// result (see encodeAndRecord).
func (e *Engine) hlrLookup(ctx context.Context, a *Account, req Request, encode bool) (*apiv2.HLRResult, []byte, error) {
	if req.Route != "" {
		if err := e.checkRoute(req.Route, routing.HLR, routing.MNP); err != nil {
			return nil, nil, err
		}
	}
	res, id, err := e.begin(req, "msisdn")
	if err != nil {
		return nil, nil, err
	}
	var d routing.Decision
	if req.Route != "" {
		if d, err = a.resolver.Static(&res, req.Route); err != nil {
			return nil, nil, &RequestError{"route", err.Error()}
		}
	} else {
		d = a.resolver.Resolve(&res)
	}
	out := &apiv2.HLRResult{
		ID: id, MSISDN: numberText(&res), ConnectivityStatus: mnp.Undetermined.String(),
		DataSource: LiveHLR, RoutingInstruction: d.Instruction(),
	}
	e.fillOriginal(&res, &out.OriginalNetworkName, &out.OriginalCountryName, &out.OriginalCountryCode, &out.OriginalCountryPrefix)
	if !d.Rejected() {
		out.Route = apiv2.String(d.Route)
	}
	product := routing.HLR
	if e.products[d.Route] == routing.MNP {
		product, out.DataSource = routing.MNP, MNPDB
	}

	var status mnp.Status
	var code mnp.ErrorCode
	detail := ""
	switch {
	case !res.Valid:
		status, code, detail = mnp.Rejected, mnp.CodeInvalidNumber, res.Reason.String()
		out.ConnectivityStatus = mnp.InvalidMSISDN.String()
	case !res.QualifiesForHLR:
		status, code, detail = mnp.Rejected, mnp.CodeNotMobile, "number type "+res.Type.String()
	case d.Rejected():
		status, code = mnp.Rejected, mnp.CodeRouteRejects
	}
	if status != 0 {
		out.Route = nil // no route was taken
		return e.finishHLR(ctx, a, req, encode, out, product, d.Route, status, code, detail)
	}

	key := cacheKey{a.key, product, out.MSISDN, d.Route}
	if c := e.cache.get(key, e.clock()); c != nil {
		// An answer from the cache is finished as a fresh one is (its
		// report, time and storage are this lookup's), but not charged.
		cached := *c.hlr
		cached.ID, cached.Cached = id, true
		cached.RoutingInstruction = out.RoutingInstruction
		body, err := e.finish(ctx, &finishing{
			account: a, req: req, encode: encode, report: routing.HLR, priced: product, route: d.Route,
			id: id, result: &cached, cost: &cached.Cost, storage: &cached.Storage, // timestamp: when it was looked up
		})
		if err != nil {
			return nil, nil, err
		}
		return &cached, body, nil
	}

	q := mnp.Query{Number: res.Number, Region: res.CountryCode, MCCMNC: res.MCCMNC, Route: d.Route}
	var failover int
	if product == routing.MNP {
		var ans mnp.PortAnswer
		ans, failover, err = e.askPortability(ctx, d.Route, q)
		if err != nil {
			status, code = mnp.Rejected, mnp.CodeOf(err)
			if !mnp.Retryable(err) {
				status = mnp.Failed
			}
		} else {
			status, code = ans.Status, ans.Code
			e.fillPortedHLR(out, &res, ans)
		}
	} else {
		var ans mnp.HLRAnswer
		ans, failover, err = e.askHLR(ctx, d.Route, q)
		if err != nil {
			status, code = mnp.Rejected, mnp.CodeOf(err)
			if !mnp.Retryable(err) {
				status = mnp.Failed
			}
		} else {
			status, code = ans.Status, ans.Code
			e.fillHLR(out, &res, ans)
		}
	}
	if failover > 0 {
		out.RoutingInstruction += ":FAILOVER-" + strconv.Itoa(failover+1)
	}
	if status == 0 {
		status, code = mnp.Failed, mnp.CodeBadProviderAnswer
	}
	result, body, err := e.finishHLR(ctx, a, req, encode, out, product, d.Route, status, code, detail)
	if err == nil && status == mnp.Completed {
		e.cache.put(&cacheEntry{key: key, hlr: result}, e.clock())
	}
	return result, body, err
}

// finishHLR fills the status, error, cost, time and storage of an HLR
// result and records it.
func (e *Engine) finishHLR(ctx context.Context, a *Account, req Request, encode bool, out *apiv2.HLRResult, product routing.Product, route string, status mnp.Status, code mnp.ErrorCode, detail string) (*apiv2.HLRResult, []byte, error) {
	out.ProcessingStatus = status.String()
	out.ErrorCode, out.ErrorDescription = errorFields(code, detail)
	body, err := e.finish(ctx, &finishing{
		account: a, req: req, encode: encode, report: routing.HLR, priced: product, route: route, charged: status.Charged(),
		id: out.ID, result: out, cost: &out.Cost, timestamp: &out.Timestamp, storage: &out.Storage,
	})
	if err != nil {
		return nil, nil, err
	}
	return out, body, nil
}

// errorFields returns error_code and error_description: the code's
// description, with the detail after a colon.
func errorFields(code mnp.ErrorCode, detail string) (*int, *string) {
	if code == mnp.CodeNone {
		return nil, nil
	}
	desc := code.Description()
	if detail != "" {
		desc += ": " + detail
	}
	return apiv2.Int(int(code)), apiv2.String(desc)
}

// finishing is what finish needs of a lookup to complete its result and
// record it.
type finishing struct {
	account *Account
	req     Request
	encode  bool // see encodeAndRecord
	// report is the product whose report the result goes to (the
	// endpoint's); priced is the product whose price applies (an HLR lookup
	// answered on an MNP route costs an MNP lookup).
	report, priced routing.Product
	route          string
	charged        bool
	id             string
	result         any
	// f, when not nil, holds the three strings; cost, timestamp and storage
	// are the result's fields to fill. An answer from the cache keeps the
	// time it was looked up: its timestamp is nil here.
	f                        *fields
	cost, timestamp, storage **string
}

// finish fills a result's cost (the price of priced over route when
// charged), timestamp and storage (the report of report) and records it;
// see encodeAndRecord for the JSON it returns. Every result goes through
// it, answers from the cache included, so that all are filed alike.
func (e *Engine) finish(ctx context.Context, f *finishing) ([]byte, error) {
	now := e.clock()
	price := Money(0)
	if f.charged {
		price = f.account.prices.Of(f.priced, f.route)
	}
	report := e.storageName(f.req.Storage, f.report, f.req.Async, now)
	*f.cost, *f.storage = f.f.str(price.String()), f.f.str(report)
	if f.timestamp != nil {
		*f.timestamp = f.f.str(Timestamp(now))
	}
	return e.encodeAndRecord(ctx, Record{Account: f.account.key, Product: f.report, Storage: report, ID: f.id, Time: now, Cost: price, Result: f.result}, f.encode)
}

// encodeAndRecord sends a finished result to the sink. When there is a
// sink, or the caller wants the result's JSON (encode), it encodes the
// result once, into r.JSON, and returns those bytes: the store keeps what
// the caller answers. Without either it encodes nothing and returns nil.
func (e *Engine) encodeAndRecord(ctx context.Context, r Record, encode bool) ([]byte, error) {
	if e.sink == nil && !encode {
		return nil, nil
	}
	var body []byte
	switch res := r.Result.(type) {
	case *apiv2.NTResult:
		body = encodeNT(res)
	case apiv2.NTResult:
		body = encodeNT(&res)
	default:
		var err error
		if body, err = json.Marshal(r.Result); err != nil {
			return nil, fmt.Errorf("engine: encoding %s result %s: %w", r.Product, r.ID, err)
		}
	}
	r.JSON = body
	if err := e.record(ctx, r); err != nil {
		return nil, err
	}
	return body, nil
}

// encodeNT is json.Marshal(res) without reflection (see
// apiv2.NTResult.AppendJSON): it encodes into a buffer on the stack and
// copies the result out, so that the bytes the sink may keep are no
// larger than the JSON.
func encodeNT(res *apiv2.NTResult) []byte {
	var buf [1024]byte
	return bytes.Clone(res.AppendJSON(buf[:0]))
}

// askHLR asks the route's HLR backends in order until one answers or one
// fails for good; it returns the answer and the index of the backend that
// gave it (or of the last one asked).
func (e *Engine) askHLR(ctx context.Context, route string, q mnp.Query) (mnp.HLRAnswer, int, error) {
	backends := e.hlr[route]
	return failover(ctx, e.timeout, route, "HLR", len(backends), func(ctx context.Context, i int) (mnp.HLRAnswer, error) {
		return backends[i].Backend.HLR(ctx, q)
	})
}

// askPortability is askHLR for portability backends.
func (e *Engine) askPortability(ctx context.Context, route string, q mnp.Query) (mnp.PortAnswer, int, error) {
	backends := e.port[route]
	return failover(ctx, e.timeout, route, "portability", len(backends), func(ctx context.Context, i int) (mnp.PortAnswer, error) {
		return backends[i].Backend.Portability(ctx, q)
	})
}

// failover calls backends 0, 1, ... n-1 of a route, each within timeout,
// until one answers or fails with an error that another cannot fix (not
// mnp.Retryable).
func failover[A any](ctx context.Context, timeout time.Duration, route, kind string, n int, call func(ctx context.Context, i int) (A, error)) (A, int, error) {
	var zero A
	if n == 0 {
		return zero, 0, mnp.Unavailable("route "+route, mnp.CodeUnavailable, fmt.Errorf("no %s backend serves route %s", kind, route))
	}
	var last error
	tried := 0
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		ans, err := call(cctx, i)
		cancel()
		if err == nil {
			return ans, i, nil
		}
		last, tried = err, i
		if !mnp.Retryable(err) {
			break
		}
	}
	if last == nil {
		last = mnp.Unavailable("route "+route, mnp.CodeTimeout, ctx.Err())
	}
	return zero, tried, last
}

// fillOriginal fills the original_* group from the number's classification.
func (e *Engine) fillOriginal(res *numbering.Result, name, country, code, prefix **string) {
	network := res.Network
	if network == "" && res.MCCMNC != "" {
		if nw, ok := e.plan.Network(res.MCCMNC); ok {
			network = nw.Name()
		}
	}
	*name = apiv2.String(network)
	*country = apiv2.String(res.CountryName)
	*code = apiv2.String(res.CountryCode)
	*prefix = apiv2.String(res.CountryPrefix)
}

// resolvedNetwork is a network reference completed from the MCC-MNC list
// and the numbering plan.
type resolvedNetwork struct {
	mccmnc, name string
	country      numbering.Country
}

func (e *Engine) resolve(ref mnp.NetworkRef) resolvedNetwork {
	out := resolvedNetwork{mccmnc: ref.MCCMNC, name: ref.Name}
	region := ref.Region
	if ref.MCCMNC != "" {
		if nw, ok := e.plan.Network(ref.MCCMNC); ok {
			if out.name == "" {
				out.name = nw.Name()
			}
			if region == "" {
				region = nw.Region
			}
		} else if region == "" && len(ref.MCCMNC) >= 3 {
			region = e.plan.RegionOfMCC(ref.MCCMNC[:3])
		}
	}
	if region != "" {
		out.country, _ = e.plan.Country(region)
	}
	return out
}

// fill sets a network group of a result (ported_* or roaming_*).
func (n resolvedNetwork) fill(name, country, code, prefix **string) {
	*name = apiv2.String(n.name)
	*country = apiv2.String(n.country.Name)
	*code = apiv2.String(n.country.Code)
	*prefix = apiv2.String(n.country.Prefix)
}

// nullableBool is a known Bool as a JSON boolean, an unknown one as null.
func nullableBool(b mnp.Bool) *bool {
	if !b.Known() {
		return nil
	}
	return apiv2.Bool(b.Value())
}

// routeFor validates a route the caller named for a product that one
// route serves (MNP, NT), or picks the product's first route.
func (e *Engine) routeFor(route string, product routing.Product) (string, error) {
	if route != "" {
		return route, e.checkRoute(route, product)
	}
	switch product {
	case routing.MNP:
		if len(e.routes.MNP) > 0 {
			return e.routes.MNP[0], nil
		}
	case routing.NT:
		if len(e.routes.NT) > 0 {
			return e.routes.NT[0], nil
		}
	}
	return "", nil
}

// splitMCCMNC returns the mcc and mnc fields of an MCCMNC ("" is null).
func splitMCCMNC(mccmnc string) (mcc, mnc *string) {
	if len(mccmnc) < 5 {
		return nil, nil
	}
	return apiv2.String(mccmnc[:3]), apiv2.String(mccmnc[3:])
}

// fillHLR fills an HLR result from a live answer.
func (e *Engine) fillHLR(out *apiv2.HLRResult, res *numbering.Result, ans mnp.HLRAnswer) {
	out.ConnectivityStatus = ans.Connectivity.String()
	out.MCCMNC = apiv2.String(ans.MCCMNC)
	out.MCC, out.MNC = splitMCCMNC(ans.MCCMNC)
	out.IMSI, out.MSIN, out.MSC = apiv2.String(ans.IMSI), apiv2.String(ans.MSIN), apiv2.String(ans.MSC)
	out.IsPorted = nullableBool(ans.Ported)
	if ans.Ported == mnp.True {
		e.resolve(ans.PortedTo).fill(&out.PortedNetworkName, &out.PortedCountryName, &out.PortedCountryCode, &out.PortedCountryPrefix)
	}
	out.IsRoaming = nullableBool(ans.Roaming)
	if ans.Roaming == mnp.True {
		e.resolve(ans.RoamingOn).fill(&out.RoamingNetworkName, &out.RoamingCountryName, &out.RoamingCountryCode, &out.RoamingCountryPrefix)
	}
}

// fillPortedHLR fills an HLR result from a portability answer (MNP
// fallback): the network the number belongs to, no live state.
func (e *Engine) fillPortedHLR(out *apiv2.HLRResult, res *numbering.Result, ans mnp.PortAnswer) {
	n := e.resolve(ans.Network)
	out.MCCMNC = apiv2.String(n.mccmnc)
	out.MCC, out.MNC = splitMCCMNC(n.mccmnc)
	out.IsPorted = nullableBool(ans.Ported)
	if ans.Ported == mnp.True {
		n.fill(&out.PortedNetworkName, &out.PortedCountryName, &out.PortedCountryCode, &out.PortedCountryPrefix)
	}
}

// MNPLookup asks the portability backends of an MNP route (req.Route, else
// the first MNP route) which network the number belongs to now.
func (e *Engine) MNPLookup(ctx context.Context, a *Account, req Request) (*apiv2.MNPResult, error) {
	out, _, err := e.mnpLookup(ctx, a, req, false)
	return out, err
}

// MNPLookupJSON is MNPLookup that also returns the result's JSON, as
// HLRLookupJSON does.
func (e *Engine) MNPLookupJSON(ctx context.Context, a *Account, req Request) (*apiv2.MNPResult, []byte, error) {
	return e.mnpLookup(ctx, a, req, true)
}

func (e *Engine) mnpLookup(ctx context.Context, a *Account, req Request, encode bool) (*apiv2.MNPResult, []byte, error) {
	route, err := e.routeFor(req.Route, routing.MNP)
	if err != nil {
		return nil, nil, err
	}
	res, id, err := e.begin(req, "msisdn")
	if err != nil {
		return nil, nil, err
	}
	out := &apiv2.MNPResult{ID: id, MSISDN: numberText(&res), Route: apiv2.String(route)}
	e.fillOriginal(&res, &out.OriginalNetworkName, &out.OriginalCountryName, &out.OriginalCountryCode, &out.OriginalCountryPrefix)

	var status mnp.Status
	var code mnp.ErrorCode
	detail := ""
	switch {
	case !res.Valid:
		status, code, detail = mnp.Rejected, mnp.CodeInvalidNumber, res.Reason.String()
	case route == "":
		status, code = mnp.Rejected, mnp.CodeUnavailable
	}
	if status != 0 {
		return e.finishMNP(ctx, a, req, encode, out, route, status, code, detail)
	}
	key := cacheKey{a.key, routing.MNP, out.MSISDN, route}
	if c := e.cache.get(key, e.clock()); c != nil {
		cached := *c.mnp
		cached.ID, cached.Cached = id, true
		body, err := e.finish(ctx, &finishing{
			account: a, req: req, encode: encode, report: routing.MNP, priced: routing.MNP, route: route,
			id: id, result: &cached, cost: &cached.Cost, storage: &cached.Storage, // timestamp: when it was looked up
		})
		if err != nil {
			return nil, nil, err
		}
		return &cached, body, nil
	}
	q := mnp.Query{Number: res.Number, Region: res.CountryCode, MCCMNC: res.MCCMNC, Route: route}
	ans, _, err := e.askPortability(ctx, route, q)
	if err != nil {
		status, code = mnp.Rejected, mnp.CodeOf(err)
		if !mnp.Retryable(err) {
			status = mnp.Failed
		}
	} else {
		status, code = ans.Status, ans.Code
		if status == 0 {
			status, code = mnp.Failed, mnp.CodeBadProviderAnswer
		}
		n := e.resolve(ans.Network)
		out.MCCMNC = apiv2.String(n.mccmnc)
		out.MCC, out.MNC = splitMCCMNC(n.mccmnc)
		out.IsPorted = nullableBool(ans.Ported)
		if ans.Ported == mnp.True {
			n.fill(&out.PortedNetworkName, &out.PortedCountryName, &out.PortedCountryCode, &out.PortedCountryPrefix)
		}
	}
	result, body, err := e.finishMNP(ctx, a, req, encode, out, route, status, code, detail)
	if err == nil && status == mnp.Completed {
		e.cache.put(&cacheEntry{key: key, mnp: result}, e.clock())
	}
	return result, body, err
}

func (e *Engine) finishMNP(ctx context.Context, a *Account, req Request, encode bool, out *apiv2.MNPResult, route string, status mnp.Status, code mnp.ErrorCode, detail string) (*apiv2.MNPResult, []byte, error) {
	out.ProcessingStatus = status.String()
	out.QueryStatus = "OK"
	if status != mnp.Completed {
		out.QueryStatus = "FAILED"
	}
	out.ErrorCode, out.ErrorDescription = errorFields(code, detail)
	body, err := e.finish(ctx, &finishing{
		account: a, req: req, encode: encode, report: routing.MNP, priced: routing.MNP, route: route, charged: status.Charged(),
		id: out.ID, result: out, cost: &out.Cost, timestamp: &out.Timestamp, storage: &out.Storage,
	})
	if err != nil {
		return nil, nil, err
	}
	return out, body, nil
}

// NTLookup classifies a number by the numbering plan: the NT result object.
// A number whose calling code cannot be read (query_status FAILED) costs
// nothing; every other answer, valid or not, is charged.
func (e *Engine) NTLookup(ctx context.Context, a *Account, req Request) (*apiv2.NTResult, error) {
	out, _, err := e.ntLookup(ctx, a, req, false)
	return out, err
}

// NTLookupJSON is NTLookup that also returns the result's JSON, as
// HLRLookupJSON does.
func (e *Engine) NTLookupJSON(ctx context.Context, a *Account, req Request) (*apiv2.NTResult, []byte, error) {
	return e.ntLookup(ctx, a, req, true)
}

func (e *Engine) ntLookup(ctx context.Context, a *Account, req Request, encode bool) (*apiv2.NTResult, []byte, error) {
	route, err := e.routeFor(req.Route, routing.NT)
	if err != nil {
		return nil, nil, err
	}
	res, id, err := e.begin(req, "number")
	if err != nil {
		return nil, nil, err
	}
	box := new(ntBox) // the result and its fields: one allocation
	out := &box.out
	ntResultOf(out, &res, &box.f)
	out.ID = id
	out.Route = box.f.str(route)
	body, err := e.finish(ctx, &finishing{
		account: a, req: req, encode: encode, report: routing.NT, priced: routing.NT, route: route, charged: res.Status == numbering.StatusOK,
		id: id, result: out, f: &box.f, cost: &out.Cost, timestamp: &out.Timestamp, storage: &out.Storage,
	})
	if err != nil {
		return nil, nil, err
	}
	return out, body, nil
}

// NTResultOf converts a classification into the NT result object, with the
// null rules of numbering.Result.AppendJSON; the lookup's id, cost,
// timestamp, storage and route are left for the caller.
func NTResultOf(res *numbering.Result) *apiv2.NTResult {
	box := new(ntBox)
	ntResultOf(&box.out, res, &box.f)
	return &box.out
}

// ntBox is an NT result with room for the values its pointers refer to.
type ntBox struct {
	out apiv2.NTResult
	f   fields
}

// maxFormatted is room for a formatted number: a calling code, 17 digits
// and their punctuation take less.
const maxFormatted = 48

// ntResultOf is NTResultOf into out, with the values of its pointers in f.
func ntResultOf(out *apiv2.NTResult, res *numbering.Result, f *fields) {
	ok := res.Status == numbering.StatusOK
	*out = apiv2.NTResult{
		Number:                numberText(res),
		NumberType:            res.Type.String(),
		QueryStatus:           res.Status.String(),
		IsValid:               f.bool(res.Valid),
		InvalidReason:         f.str(res.Reason.String()),
		MCCMNC:                f.str(res.MCCMNC),
		MCC:                   f.str(res.MCC()),
		MNC:                   f.str(res.MNC()),
		OriginalNetworkName:   f.str(res.Network),
		OriginalCountryName:   f.str(res.CountryName),
		OriginalCountryCode:   f.str(res.CountryCode),
		OriginalCountryPrefix: f.str(res.CountryPrefix),
		Regions:               res.Regions,
		Timezones:             res.Timezones,
		InfoText:              f.str(res.Info),
	}
	if res.Valid {
		out.IsPossiblyPorted = f.bool(res.PossiblyPorted)
		out.InternationalFormat = f.formatted(res, numbering.International)
		out.NationalFormat = f.formatted(res, numbering.National)
	}
	if ok {
		out.IsVanityNumber = f.bool(res.Number.IsVanity())
		out.QualifiesForHLRLookup = f.bool(res.QualifiesForHLR)
	}
}

// fields holds the values that a result's nullable fields point to, so
// that a result and its values take one allocation instead of one each.
// The nil *fields allocates each value apart (apiv2.String, apiv2.Bool),
// as does a full one.
type fields struct {
	s       [16]string
	b       [4]bool
	formats [2][maxFormatted]byte // the bytes of the formatted numbers
	ns, nb  int
	nf      int
}

// formatted is the number of res in style, kept in f; nil when it has no
// format (a plan without number formats).
func (f *fields) formatted(res *numbering.Result, style numbering.Style) *string {
	if f == nil || f.nf == len(f.formats) {
		b, ok := res.AppendFormat(nil, style)
		if !ok {
			return nil
		}
		return f.str(string(b))
	}
	buf := &f.formats[f.nf]
	b, ok := res.AppendFormat(buf[:0], style)
	if !ok {
		return nil
	}
	f.nf++
	if len(b) > 0 && &b[0] != &buf[0] { // longer than the room: appended elsewhere
		return f.str(string(b))
	}
	// The string shares f's bytes, which nothing writes again: f lives as
	// long as the result that points into it.
	return f.str(unsafe.String(&buf[0], len(b)))
}

// str is apiv2.String(v), kept in f.
func (f *fields) str(v string) *string {
	if v == "" {
		return nil
	}
	if f == nil || f.ns == len(f.s) {
		p := new(string) // here, not apiv2.String: its v would be moved to the heap on every call
		*p = v
		return p
	}
	p := &f.s[f.ns]
	f.ns++
	*p = v
	return p
}

// bool is apiv2.Bool(v), kept in f.
func (f *fields) bool(v bool) *bool {
	if f == nil || f.nb == len(f.b) {
		p := new(bool)
		*p = v
		return p
	}
	p := &f.b[f.nb]
	f.nb++
	*p = v
	return p
}
