package engine

import (
	"context"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/routing"
)

// MNPLookup asks the portability backends of an MNP route (req.Route, else
// the first MNP route) which network the number belongs to now.
func (e *Engine) MNPLookup(ctx context.Context, p *Profile, req Request) (Answer[*apiv2.MNPResult], error) {
	route, err := e.routeFor(req.Route, routing.MNP)
	if err != nil {
		return Answer[*apiv2.MNPResult]{}, err
	}
	res, id, err := e.begin(req, "msisdn")
	if err != nil {
		return Answer[*apiv2.MNPResult]{}, err
	}
	out := &apiv2.MNPResult{ID: id, MSISDN: apiv2.NumberOf(&res)}
	out.SetOriginal(e.originalNetwork(&res))
	l := &lookup{profile: p, req: req, id: id, report: routing.MNP, priced: routing.MNP, route: route}
	switch {
	case !res.Valid:
		return e.finishMNP(ctx, l, out, outcome{mnp.Rejected, mnp.CodeInvalidNumber, res.Reason.String()})
	case route == "":
		return e.finishMNP(ctx, l, out, outcome{status: mnp.Rejected, code: mnp.CodeUnavailable})
	}
	key := cacheKey{p.key, routing.MNP, out.MSISDN, route}
	if c := e.cache.get(key, e.clock()); c != nil {
		cached := *c.mnp
		cached.ID, cached.Cached = id, true
		body, err := e.finishCached(ctx, l, &cached)
		if err != nil {
			return Answer[*apiv2.MNPResult]{}, err
		}
		return Answer[*apiv2.MNPResult]{Result: &cached, JSON: body}, nil
	}
	if err := e.reserve(ctx, l); err != nil {
		return Answer[*apiv2.MNPResult]{}, err
	}
	q := mnp.Query{Number: res.Number, Region: res.CountryCode, MCCMNC: res.MCCMNC, Route: route}
	var o outcome
	if ans, _, err := e.askPortability(ctx, route, q); err != nil {
		o = failed(err)
	} else {
		o = answered(ans.Status, ans.Code)
		mccmnc, n := e.network(ans.Network)
		out.SetMCCMNC(mccmnc)
		out.IsPorted = nullableBool(ans.Ported)
		if ans.Ported == mnp.True {
			out.SetPorted(n)
		}
	}
	ans, err := e.finishMNP(ctx, l, out, o)
	if err == nil && o.status == mnp.Completed {
		e.cache.put(&cacheEntry{key: key, mnp: ans.Result}, e.clock())
	}
	return ans, err
}

// finishMNP sets the status and error of an MNP result, then files and
// records it.
func (e *Engine) finishMNP(ctx context.Context, l *lookup, out *apiv2.MNPResult, o outcome) (Answer[*apiv2.MNPResult], error) {
	out.ProcessingStatus = o.status.String()
	out.QueryStatus = "OK"
	if o.status != mnp.Completed {
		out.QueryStatus = "FAILED"
	}
	out.ErrorCode, out.ErrorDescription = o.errorFields()
	body, err := e.finish(ctx, l, out, o.status.Charged())
	if err != nil {
		return Answer[*apiv2.MNPResult]{}, err
	}
	return Answer[*apiv2.MNPResult]{Result: out, JSON: body}, nil
}
