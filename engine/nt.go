package engine

import (
	"context"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
)

// NTLookup classifies a number by the numbering plan: the NT result object
// (apiv2.NewNTResult). A number whose calling code cannot be read
// (query_status FAILED) costs nothing; every other answer, valid or not, is
// charged.
func (e *Engine) NTLookup(ctx context.Context, p *Profile, req Request) (Answer[*apiv2.NTResult], error) {
	route, err := e.routeFor(req.Route, routing.NT)
	if err != nil {
		return Answer[*apiv2.NTResult]{}, err
	}
	res, id, err := e.begin(req, "number")
	if err != nil {
		return Answer[*apiv2.NTResult]{}, err
	}
	l := &lookup{profile: p, req: req, id: id, report: routing.NT, priced: routing.NT, route: route}
	charged, refused := res.Status == numbering.StatusOK, false
	if charged {
		if err := e.reserve(ctx, l); err != nil {
			if !overLimitQueued(req, err) {
				return Answer[*apiv2.NTResult]{}, err
			}
			charged, refused = false, true
		}
	}
	f := e.file(l, charged)
	out := apiv2.NewNTResult(&res, id, f.Filing)
	if refused {
		notLookedUp(out)
	}
	body, err := e.encodeAndRecord(ctx, l, f, out)
	e.settleAfter(l, f.price, err)
	if err != nil {
		return Answer[*apiv2.NTResult]{}, err
	}
	return Answer[*apiv2.NTResult]{Result: out, JSON: body}, nil
}
