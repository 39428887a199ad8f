package engine

import (
	"context"
	"strconv"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
)

// HLRLookup looks a number up in its home network's register through the
// route that the profile's routing decides (or req.Route), and returns the
// HLR result object. See the package documentation for the outcomes.
func (e *Engine) HLRLookup(ctx context.Context, p *Profile, req Request) (Answer[*apiv2.HLRResult], error) {
	if req.Route != "" {
		if err := e.checkRoute(req.Route, routing.HLR, routing.MNP); err != nil {
			return Answer[*apiv2.HLRResult]{}, err
		}
	}
	res, id, err := e.begin(req, "msisdn")
	if err != nil {
		return Answer[*apiv2.HLRResult]{}, err
	}
	d, err := decide(p, &res, req.Route)
	if err != nil {
		return Answer[*apiv2.HLRResult]{}, err
	}
	out := &apiv2.HLRResult{
		ID: id, MSISDN: apiv2.NumberOf(&res), ConnectivityStatus: mnp.Undetermined.String(),
		DataSource: LiveHLR, RoutingInstruction: d.Instruction(),
	}
	out.SetOriginal(e.originalNetwork(&res))
	l := &lookup{profile: p, req: req, id: id, report: routing.HLR, priced: routing.HLR, route: d.Route}
	if e.products[d.Route] == routing.MNP {
		l.priced, out.DataSource = routing.MNP, MNPDB
	}
	if o, ok := unfitForHLR(&res, d); !ok {
		if !res.Valid {
			out.ConnectivityStatus = mnp.InvalidMSISDN.String()
		}
		l.route = "" // no route was taken
		return e.finishHLR(ctx, l, out, o)
	}
	key := cacheKey{p.key, l.priced, out.MSISDN, d.Route}
	if c := e.cache.get(key, e.clock()); c != nil {
		// An answer from the cache is finished as a fresh one is (its
		// report, time and storage are this lookup's), but not charged.
		cached := *c.hlr
		cached.ID, cached.Cached, cached.RoutingInstruction = id, true, out.RoutingInstruction
		body, err := e.finishCached(ctx, l, &cached)
		if err != nil {
			return Answer[*apiv2.HLRResult]{}, err
		}
		return Answer[*apiv2.HLRResult]{Result: &cached, JSON: body}, nil
	}
	if err := e.reserve(ctx, l); err != nil {
		if overLimitQueued(req, err) {
			return e.finishHLR(ctx, l, out, outcome{status: mnp.Rejected, code: mnp.CodeSpendingLimit})
		}
		return Answer[*apiv2.HLRResult]{}, err
	}
	o := e.askForHLR(ctx, out, &res, l.priced, d.Route)
	ans, err := e.finishHLR(ctx, l, out, o)
	if err == nil && o.status == mnp.Completed {
		e.cache.put(&cacheEntry{key: key, hlr: ans.Result}, e.clock())
	}
	return ans, err
}

// decide returns the routing decision for a number: automatic selection
// with the profile's routing, or the route the caller named (STATIC).
func decide(p *Profile, res *numbering.Result, route string) (routing.Decision, error) {
	if route == "" {
		return p.resolver.Resolve(res), nil
	}
	d, err := p.resolver.Static(res, route)
	if err != nil {
		return d, &RequestError{"route", err.Error()}
	}
	return d, nil
}

// unfitForHLR returns the outcome of an HLR lookup that asks no backend:
// an invalid number, a number that is not mobile, a route that rejects it;
// ok when the lookup goes ahead.
func unfitForHLR(res *numbering.Result, d routing.Decision) (o outcome, ok bool) {
	switch {
	case !res.Valid:
		return outcome{mnp.Rejected, mnp.CodeInvalidNumber, res.Reason.String()}, false
	case !res.QualifiesForHLR:
		return outcome{mnp.Rejected, mnp.CodeNotMobile, "number type " + res.Type.String()}, false
	case d.Rejected():
		return outcome{status: mnp.Rejected, code: mnp.CodeRouteRejects}, false
	}
	return outcome{}, true
}

// askForHLR asks the route's backends, HLR or, for an MNP route (product),
// portability, and fills out from the answer; a failover to another
// backend of the route is added to the routing instruction.
func (e *Engine) askForHLR(ctx context.Context, out *apiv2.HLRResult, res *numbering.Result, product routing.Product, route string) outcome {
	q := mnp.Query{Number: res.Number, Region: res.CountryCode, MCCMNC: res.MCCMNC, Route: route}
	var o outcome
	var failover int
	if product == routing.MNP {
		ans, n, err := e.askPortability(ctx, route, q)
		if failover = n; err != nil {
			o = failed(err)
		} else {
			o = answered(ans.Status, ans.Code)
			e.fillPortedHLR(out, ans)
		}
	} else {
		ans, n, err := e.askHLR(ctx, route, q)
		if failover = n; err != nil {
			o = failed(err)
		} else {
			o = answered(ans.Status, ans.Code)
			e.fillHLR(out, ans)
		}
	}
	if failover > 0 {
		out.RoutingInstruction += ":FAILOVER-" + strconv.Itoa(failover+1)
	}
	return o
}

// finishHLR sets the status and error of an HLR result, then files and
// records it.
func (e *Engine) finishHLR(ctx context.Context, l *lookup, out *apiv2.HLRResult, o outcome) (Answer[*apiv2.HLRResult], error) {
	out.ProcessingStatus = o.status.String()
	out.ErrorCode, out.ErrorDescription = o.errorFields()
	body, err := e.finish(ctx, l, out, o.status.Charged())
	if err != nil {
		return Answer[*apiv2.HLRResult]{}, err
	}
	return Answer[*apiv2.HLRResult]{Result: out, JSON: body}, nil
}

// fillHLR fills an HLR result from a live answer.
func (e *Engine) fillHLR(out *apiv2.HLRResult, ans mnp.HLRAnswer) {
	out.ConnectivityStatus = ans.Connectivity.String()
	out.SetMCCMNC(ans.MCCMNC)
	out.IMSI, out.MSIN, out.MSC = apiv2.String(ans.IMSI), apiv2.String(ans.MSIN), apiv2.String(ans.MSC)
	out.IsPorted = nullableBool(ans.Ported)
	if ans.Ported == mnp.True {
		_, n := e.network(ans.PortedTo)
		out.SetPorted(n)
	}
	out.IsRoaming = nullableBool(ans.Roaming)
	if ans.Roaming == mnp.True {
		_, n := e.network(ans.RoamingOn)
		out.SetRoaming(n)
	}
}

// fillPortedHLR fills an HLR result from a portability answer (MNP
// fallback): the network the number belongs to, no live state.
func (e *Engine) fillPortedHLR(out *apiv2.HLRResult, ans mnp.PortAnswer) {
	mccmnc, n := e.network(ans.Network)
	out.SetMCCMNC(mccmnc)
	out.IsPorted = nullableBool(ans.Ported)
	if ans.Ported == mnp.True {
		out.SetPorted(n)
	}
}
