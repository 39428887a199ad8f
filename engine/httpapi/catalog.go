package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
)

// The endpoints of the hosted API that its official clients call beside the
// specification's (documented in openapi.json):
//
//	GET /ping          public: {"success": true}
//	GET /mccmncs       the operational networks of the plan's MCC-MNC list,
//	                   all or of one country (?country=DE)
//	GET /mnp-coverage  per country, the portability routes that answer it
//	                   and their backends

func (h *Handler) ping(w http.ResponseWriter, r *request) {
	writeJSON(w, http.StatusOK, apiv2.Ping{Success: true})
}

// networkCatalog is the MCC-MNC list as GET /mccmncs writes it, built on
// the first request (the plan is the engine's, fixed for the Handler).
type networkCatalog struct {
	once sync.Once
	all  []apiv2.MCCMNC
	body []byte // the encoded answer without a country (no newline)
	err  error
}

func (c *networkCatalog) get(plan *numbering.Plan) ([]apiv2.MCCMNC, []byte, error) {
	c.once.Do(func() {
		c.all = mccmncList(plan)
		c.body, c.err = json.Marshal(apiv2.MCCMNCs{MCCMNCs: c.all})
	})
	return c.all, c.body, c.err
}

// mccmncList returns the operational networks of every region of plan, by
// MCCMNC, each once.
func mccmncList(plan *numbering.Plan) []apiv2.MCCMNC {
	seen := map[string]bool{}
	out := []apiv2.MCCMNC{}
	for cc := 1; cc <= 999; cc++ {
		for _, region := range plan.Regions(cc) {
			for _, nw := range plan.Networks(region) {
				if seen[nw.MCCMNC] {
					continue
				}
				seen[nw.MCCMNC] = true
				m := apiv2.MCCMNC{
					MCCMNC: nw.MCCMNC, MCC: nw.MCC(), MNC: nw.MNC(), CountryCode: nw.Region,
					CountryCodes: append([]string{}, nw.Regions...),
					NetworkName:  apiv2.String(nw.Name()), Brand: apiv2.String(nw.Brand), Operator: apiv2.String(nw.Operator),
				}
				if c, ok := plan.Country(nw.Region); ok {
					m.CountryName, m.CountryPrefix = apiv2.String(c.Name), apiv2.String(c.Prefix)
				}
				out = append(out, m)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].MCCMNC < out[j].MCCMNC })
	return out
}

func (h *Handler) mccmncs(w http.ResponseWriter, r *request) {
	country, ok := countryQuery(w, r, "GET /mccmncs", h.cfg.Engine.Plan())
	if !ok {
		return
	}
	all, body, err := h.networks.get(h.cfg.Engine.Plan())
	if err != nil {
		h.internal.log(h.log, time.Now(), "encoding the MCC-MNC list", err)
		writeErrors(w, http.StatusInternalServerError, "internal error: encoding the response")
		return
	}
	if country == "" {
		writeEncoded(w, http.StatusOK, body)
		return
	}
	out := apiv2.MCCMNCs{MCCMNCs: []apiv2.MCCMNC{}}
	for _, m := range all {
		for _, c := range m.CountryCodes {
			if c == country {
				out.MCCMNCs = append(out.MCCMNCs, m)
				break
			}
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// countryQuery reads the optional country query parameter of a catalog
// endpoint (ISO 3166-1 alpha-2, any case), the only one it takes; it answers
// 400 and returns false for anything else.
func countryQuery(w http.ResponseWriter, r *request, op string, plan *numbering.Plan) (string, bool) {
	q := r.URL.Query()
	for k, v := range q {
		switch {
		case k != "country":
			writeErrors(w, http.StatusBadRequest, fmt.Sprintf("%s: unknown query parameter; %s takes country only", k, op))
			return "", false
		case len(v) > 1:
			writeErrors(w, http.StatusBadRequest, k+": given more than once")
			return "", false
		}
	}
	c := strings.ToUpper(q.Get("country"))
	if c == "" {
		return "", true
	}
	if _, known := plan.Country(c); len(c) != 2 || !known {
		writeErrors(w, http.StatusBadRequest, fmt.Sprintf("country: %q is not an ISO 3166-1 alpha-2 code of a country the numbering plan knows", q.Get("country")))
		return "", false
	}
	return c, true
}

func (h *Handler) mnpCoverage(w http.ResponseWriter, r *request) {
	country, ok := countryQuery(w, r, "GET /mnp-coverage", h.cfg.Engine.Plan())
	if !ok {
		return
	}
	out := mnpCoverage(h.cfg.Engine.Plan(), h.cfg.Engine.Coverage(), h.cfg.Engine.Backends())
	if country != "" {
		kept := []apiv2.MNPCountry{}
		for _, c := range out.Countries {
			if c.CountryCode == country {
				kept = append(kept, c)
			}
		}
		out.Countries = kept
	}
	writeJSON(w, http.StatusOK, out)
}

// mnpCoverage groups the coverage scores of the portability routes by the
// country of their networks (the coverage data's country, else the MCC-MNC
// list's), with each route's portability backends.
func mnpCoverage(plan *numbering.Plan, cov *routing.Coverage, backends []engine.BackendStatus) apiv2.MNPCoverage {
	names := map[string]string{}
	for _, rt := range cov.Routes {
		if rt.Product == routing.MNP {
			names[rt.ID] = rt.Name
		}
	}
	countryOf := map[string]string{}
	for _, nw := range cov.Networks {
		countryOf[nw.MCCMNC] = nw.CountryCode
	}
	byCountry := map[string]map[string]*apiv2.MNPRoute{}
	for _, s := range cov.Scores {
		name, mnpRoute := names[s.Route]
		if !mnpRoute || s.Score <= 0 {
			continue
		}
		c := countryOf[s.MCCMNC]
		if c == "" {
			if nw, ok := plan.Network(s.MCCMNC); ok {
				c = nw.Region
			}
		}
		if c == "" {
			continue
		}
		routes := byCountry[c]
		if routes == nil {
			routes = map[string]*apiv2.MNPRoute{}
			byCountry[c] = routes
		}
		rt := routes[s.Route]
		if rt == nil {
			rt = &apiv2.MNPRoute{Route: s.Route, Name: name, Networks: []string{}, Backends: []apiv2.MNPBackend{}}
			for _, b := range backends {
				if b.Route == s.Route && b.Product == routing.MNP {
					rt.Backends = append(rt.Backends, apiv2.MNPBackend{Name: b.Name, Type: b.Type, State: b.State.String()})
				}
			}
			routes[s.Route] = rt
		}
		rt.Networks = append(rt.Networks, s.MCCMNC)
		rt.Score = max(rt.Score, s.Score)
	}
	out := apiv2.MNPCoverage{Countries: []apiv2.MNPCountry{}}
	for code, routes := range byCountry {
		mc := apiv2.MNPCountry{CountryCode: code, Routes: []apiv2.MNPRoute{}}
		if c, ok := plan.Country(code); ok {
			mc.CountryName, mc.CountryPrefix = apiv2.String(c.Name), apiv2.String(c.Prefix)
		}
		for _, rt := range routes {
			sort.Strings(rt.Networks)
			mc.Routes = append(mc.Routes, *rt)
		}
		sort.Slice(mc.Routes, func(i, j int) bool { return mc.Routes[i].Route < mc.Routes[j].Route })
		out.Countries = append(out.Countries, mc)
	}
	sort.Slice(out.Countries, func(i, j int) bool { return out.Countries[i].CountryCode < out.Countries[j].CountryCode })
	return out
}
