package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

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

// Answer is what a lookup returns: its result object and, when the
// request asked for it (Request.Encode) or the engine records to a sink,
// the result encoded as the API writes it (json.Marshal's bytes, without a
// trailing newline): the very bytes the sink received in Record.JSON, so
// that an HTTP adapter answers with them rather than encode the result a
// second time. The caller must not modify them.
type Answer[R apiv2.Result] struct {
	Result R
	JSON   []byte // nil when neither asked for nor recorded
}

// outcome is how a lookup ended: its processing status, and its error code
// with a detail for error_description.
type outcome struct {
	status mnp.Status
	code   mnp.ErrorCode
	detail string
}

// failed is the outcome of a backend call that failed: REJECTED (not
// charged) when another attempt may succeed, FAILED otherwise.
func failed(err error) outcome {
	if mnp.Retryable(err) {
		return outcome{status: mnp.Rejected, code: mnp.CodeOf(err)}
	}
	return outcome{status: mnp.Failed, code: mnp.CodeOf(err)}
}

// answered is the outcome of a backend's answer; an answer without a
// status is a bad answer.
func answered(status mnp.Status, code mnp.ErrorCode) outcome {
	if status == 0 {
		return outcome{status: mnp.Failed, code: mnp.CodeBadProviderAnswer}
	}
	return outcome{status: status, code: code}
}

// errorFields returns error_code and error_description: the code's
// description, with the detail after a colon.
func (o outcome) errorFields() (*int, *string) {
	if o.code == mnp.CodeNone {
		return nil, nil
	}
	desc := o.code.Description()
	if o.detail != "" {
		desc += ": " + o.detail
	}
	return apiv2.Int(int(o.code)), apiv2.String(desc)
}

// lookup is what finishing a lookup needs to file its result: whose it is,
// the report it goes to and the price that applies.
type lookup struct {
	profile *Profile
	req     Request
	id      string // the lookup's
	// report is the product whose report the result goes to (the
	// endpoint's); priced is the product whose price applies (an HLR lookup
	// answered on an MNP route costs an MNP lookup).
	report, priced routing.Product
	// route is the route taken, "" for none (the result's route is null).
	route string
	// reserved is what the lookup holds of its profile's budget (reserve),
	// until its result is recorded (settle).
	reserved Money
}

// filing is a lookup's filing as of now: when it completed, its price and
// report, and those as the result's fields.
type filing struct {
	now   time.Time
	price Money
	apiv2.Filing
}

// file decides a finished lookup's filing: its cost (the price of priced
// over route when charged), time and report (of product report).
func (e *Engine) file(l *lookup, charged bool) filing {
	now := e.clock()
	price := Money(0)
	if charged {
		price = l.profile.prices.Of(l.priced, l.route)
	}
	report := e.storageName(l.req.Storage, l.report, l.req.Async, now)
	return filing{now: now, price: price, Filing: apiv2.Filing{
		Route: l.route, Cost: price.String(), Timestamp: Timestamp(now), Storage: report,
	}}
}

// finish files a result (see file) and records it; see encodeAndRecord for
// the JSON it returns. Every HLR and MNP result goes through it or
// finishCached, so that all are filed alike.
func (e *Engine) finish(ctx context.Context, l *lookup, result apiv2.Result, charged bool) ([]byte, error) {
	f := e.file(l, charged)
	result.File(f.Filing)
	body, err := e.encodeAndRecord(ctx, l, f, result)
	e.settleAfter(l, f.price, err)
	return body, err
}

// finishCached is finish for an answer from the cache: its report and
// storage are this lookup's, but it is not charged again and keeps the
// time it was looked up.
func (e *Engine) finishCached(ctx context.Context, l *lookup, result apiv2.Result) ([]byte, error) {
	f := e.file(l, false)
	f.Timestamp = ""
	result.File(f.Filing)
	return e.encodeAndRecord(ctx, l, f, result)
}

// encodeAndRecord sends a filed result to the sink. When there is a sink,
// or the caller wants the result's JSON (Request.Encode), it encodes the
// result once, into the record's JSON, and returns those bytes: the store
// keeps what the caller answers. Without either it encodes nothing and
// returns nil.
func (e *Engine) encodeAndRecord(ctx context.Context, l *lookup, f filing, result apiv2.Result) ([]byte, error) {
	if e.sink == nil && !l.req.Encode {
		return nil, nil
	}
	body := encode(result)
	r := Record{Account: l.profile.key, Storage: f.Storage, ID: l.id, Time: f.now, Cost: f.price, Result: result, JSON: body}
	if e.deferSettle {
		r.Reserved = l.reserved
	}
	if err := e.record(ctx, r); err != nil {
		return nil, err
	}
	return body, nil
}

// encode is result.AppendJSON into a buffer on the stack, copied out so
// that the bytes the sink may keep are no larger than the JSON. The calls
// name the concrete types: through the interface, the buffer would move
// to the heap.
func encode(result apiv2.Result) []byte {
	var buf [1024]byte
	var b []byte
	switch r := result.(type) {
	case *apiv2.NTResult:
		b = r.AppendJSON(buf[:0])
	case *apiv2.HLRResult:
		b = r.AppendJSON(buf[:0])
	case *apiv2.MNPResult:
		b = r.AppendJSON(buf[:0])
	}
	return bytes.Clone(b)
}

// askHLR asks the route's HLR backends in order until one answers or one
// fails for good; it returns the answer and the index of the backend that
// gave it (or of the last one asked).
func (e *Engine) askHLR(ctx context.Context, route string, q mnp.Query) (mnp.HLRAnswer, int, error) {
	backends := e.hlr[route]
	return failover(ctx, e.timeout, route, "HLR", e.watches[route], func(ctx context.Context, i int) (mnp.HLRAnswer, error) {
		return backends[i].Backend.HLR(ctx, q)
	})
}

// askPortability is askHLR for portability backends.
func (e *Engine) askPortability(ctx context.Context, route string, q mnp.Query) (mnp.PortAnswer, int, error) {
	backends := e.port[route]
	return failover(ctx, e.timeout, route, "portability", e.watches[route], func(ctx context.Context, i int) (mnp.PortAnswer, error) {
		return backends[i].Backend.Portability(ctx, q)
	})
}

// failover calls backends 0, 1, ... of a route (one watch each), each
// within timeout, until one answers or fails with an error that another
// cannot fix (not mnp.Retryable). A backend whose circuit is open is
// skipped at once, as if it had failed with ErrCircuitOpen. Every call is
// counted in its backend's watch.
func failover[A any](ctx context.Context, timeout time.Duration, route, kind string, watches []*backendWatch, call func(ctx context.Context, i int) (A, error)) (A, int, error) {
	var zero A
	n := len(watches)
	if n == 0 {
		return zero, 0, mnp.Unavailable("route "+route, mnp.CodeUnavailable, fmt.Errorf("no %s backend serves route %s", kind, route))
	}
	var last error
	tried := 0
	for i, w := range watches {
		if ctx.Err() != nil {
			break
		}
		start := time.Now()
		ok, probe := w.admit(start)
		if !ok {
			w.skipped.Add(1)
			last, tried = w.skipErr, i
			if i < n-1 {
				w.failovers.Add(1)
			}
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, timeout)
		ans, err := call(cctx, i)
		cancel()
		w.done(ctx, start, time.Now(), err, probe)
		if err == nil {
			return ans, i, nil
		}
		last, tried = err, i
		if !mnp.Retryable(err) {
			break
		}
		if i < n-1 {
			w.failovers.Add(1)
		}
	}
	if last == nil {
		last = mnp.Unavailable("route "+route, mnp.CodeTimeout, ctx.Err())
	}
	return zero, tried, last
}

// originalNetwork is the original_* group of a number: the network the
// numbering plan assigns it to, named by its classification or, failing
// that, by the network its MCCMNC names.
func (e *Engine) originalNetwork(res *numbering.Result) apiv2.Network {
	name := res.Network
	if name == "" && res.MCCMNC != "" {
		if nw, ok := e.plan.Network(res.MCCMNC); ok {
			name = nw.Name()
		}
	}
	return apiv2.OriginalNetwork(res, name)
}

// network completes a backend's network reference from the MCC-MNC list
// and the numbering plan: its MCCMNC, and its group of a result (ported_*
// or roaming_*).
func (e *Engine) network(ref mnp.NetworkRef) (string, apiv2.Network) {
	name, region := ref.Name, ref.Region
	if ref.MCCMNC != "" {
		if nw, ok := e.plan.Network(ref.MCCMNC); ok {
			if name == "" {
				name = nw.Name()
			}
			if region == "" {
				region = nw.Region
			}
		} else if region == "" && len(ref.MCCMNC) >= 3 {
			region = e.plan.RegionOfMCC(ref.MCCMNC[:3])
		}
	}
	var country numbering.Country
	if region != "" {
		country, _ = e.plan.Country(region)
	}
	return ref.MCCMNC, apiv2.NetworkIn(name, country)
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
