package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/httpapi"
	"github.com/numenhq/numen/mnp/enum"
	"github.com/numenhq/numen/mnp/portdb"
	"github.com/numenhq/numen/mnp/remote"
	"github.com/numenhq/numen/mnp/simnet"
	"github.com/numenhq/numen/numbering"
	"github.com/numenhq/numen/routing"
)

// buildBackends makes the backends of one configured route, as HLR or
// portability backends according to the route's product in the coverage
// data. mnpCache is the engine's lifetime of MNP answers, which an enum
// backend's cache never exceeds. It returns what must be closed at
// shutdown; its portdb backends' databases are opened and watched in pd,
// and go to pd.holders (the ENUM server answers from the first).
func buildBackends(plan *numbering.Plan, products map[string]routing.Product, r routeConfig, at string, mnpCache time.Duration, logger *slog.Logger, pd *portdbSet) (engine.RouteBackends, []func() error, error) {
	rb := engine.RouteBackends{Route: r.Route}
	var closers []func() error
	product, ok := products[r.Route]
	switch {
	case !ok:
		return rb, nil, fmt.Errorf("%s.route: %s is not a route of the coverage data", at, r.Route)
	case product == routing.NT:
		return rb, nil, fmt.Errorf("%s.route: %s is an NT route, which the numbering plan answers; it takes no backends", at, r.Route)
	}
	for i, b := range r.Backends {
		bat := fmt.Sprintf("%s.backends[%d]", at, i)
		name := b.Name
		switch b.Type {
		case "remote":
			secret := b.Secret
			if b.SecretEnv != "" {
				if secret = os.Getenv(b.SecretEnv); secret == "" {
					return rb, closers, fmt.Errorf("%s.secret_env: environment variable %s is empty or not set", bat, b.SecretEnv)
				}
			}
			opts := []remote.Option{}
			if name != "" {
				opts = append(opts, remote.WithName(name))
			}
			if b.UpstreamRoute != "" {
				opts = append(opts, remote.WithUpstreamRoute(b.UpstreamRoute))
			}
			c, err := remote.New(b.URL, b.Key, secret, opts...)
			if err != nil {
				return rb, closers, fmt.Errorf("%s: %w", bat, err)
			}
			if name == "" {
				name = c.Name()
			}
			if product == routing.HLR {
				rb.HLR = append(rb.HLR, engine.HLR{Name: name, Backend: c})
			} else {
				rb.Portability = append(rb.Portability, engine.Portability{Name: name, Backend: c})
			}
		case "portdb":
			if product != routing.MNP {
				return rb, closers, fmt.Errorf("%s: a portdb backend answers MNP routes; %s is an %s route", bat, r.Route, product)
			}
			if name == "" {
				name = "portdb(" + b.File + ")"
			}
			file, route := b.File, r.Route
			h, c, err := pd.open(file, b.Deltas, time.Duration(b.Reload), logger.With("route", route, "backend", name, "file", file))
			if err != nil {
				return rb, closers, fmt.Errorf("%s: %w", bat, err)
			}
			closers = append(closers, c...)
			pd.holders = append(pd.holders, h)
			onDamage := portdb.OnDamage(func(err error) {
				logger.Error("portability database damaged while serving: its lookups go to the route's next backend until a good file is renamed over it",
					"route", route, "backend", name, "file", file, "error", err)
			})
			rb.Portability = append(rb.Portability, engine.Portability{Name: name, Backend: portdb.NewBackend(h, name, onDamage)})
		case "enum":
			if product != routing.MNP {
				return rb, closers, fmt.Errorf("%s: an enum backend answers MNP routes; %s is an %s route", bat, r.Route, product)
			}
			e, err := enum.New(b.Servers, enumOptions(b, mnpCache)...)
			if err != nil {
				return rb, closers, fmt.Errorf("%s: %w", bat, err)
			}
			if name == "" {
				name = e.Name()
			}
			rb.Portability = append(rb.Portability, engine.Portability{Name: name, Backend: e})
		case "simnet":
			opts := []simnet.Option{simnet.WithSeed(b.Seed), simnet.WithFailureRate(b.FailureRate)}
			if b.Latency > 0 {
				opts = append(opts, simnet.WithLatency(time.Duration(b.Latency)/2, time.Duration(b.Latency)*3/2))
			}
			n := simnet.New(plan, opts...)
			if name == "" {
				name = n.Name()
			}
			if product == routing.HLR {
				rb.HLR = append(rb.HLR, engine.HLR{Name: name, Backend: n})
			} else {
				rb.Portability = append(rb.Portability, engine.Portability{Name: name, Backend: n})
			}
		}
	}
	return rb, closers, nil
}

// enumOptions are the options of an enum backend's settings. Its cache
// keeps an answer for the answer's TTL, at most max_ttl and at most the
// engine's lifetime of MNP answers (mnpCache; 0, no engine cache, keeps
// none).
func enumOptions(b backendConfig, mnpCache time.Duration) []enum.Option {
	var opts []enum.Option
	if b.Name != "" {
		opts = append(opts, enum.WithName(b.Name))
	}
	if b.Suffix != "" {
		opts = append(opts, enum.WithSuffix(b.Suffix))
	}
	if b.Timeout > 0 {
		opts = append(opts, enum.WithTimeout(time.Duration(b.Timeout)))
	}
	if b.UDPSize != 0 {
		opts = append(opts, enum.WithUDPSize(b.UDPSize))
	}
	if b.RoutingNumbers != nil {
		opts = append(opts, enum.WithRoutingNumbers(b.RoutingNumbers))
	}
	entries := enum.DefaultCacheEntries
	if b.CacheEntries != nil {
		entries = *b.CacheEntries
	}
	maxTTL := mnpCache
	if b.MaxTTL > 0 {
		maxTTL = min(maxTTL, time.Duration(b.MaxTTL))
	}
	if maxTTL <= 0 {
		entries = 0
	}
	return append(opts, enum.WithCache(entries, maxTTL))
}

// portdbHealth watches the portdb backends of the routes: it registers
// their metrics and returns the server's health check, which is next's
// (the store's) and then theirs, so that /healthz names a portability
// database found damaged while serving (portdb.Backend.Health).
func portdbHealth(routes []engine.RouteBackends, metrics *httpapi.Metrics, next func(context.Context) error) func(context.Context) error {
	var dbs []*portdb.Backend
	for _, rb := range routes {
		for _, p := range rb.Portability {
			if b, ok := p.Backend.(*portdb.Backend); ok {
				dbs = append(dbs, b)
			}
		}
	}
	metrics.Register("numen_portdb_refused_lookups_total", "counter",
		"Lookups a portability database refused because its file changed underneath while serving (asked of the route's next backend).",
		"numen_portdb_refused_lookups_total", func() float64 {
			n := uint64(0)
			for _, b := range dbs {
				n += b.Refused()
			}
			return float64(n)
		})
	metrics.Register("numen_portdb_damaged", "gauge",
		"Portability databases whose file has been found changed underneath while serving.",
		"numen_portdb_damaged", func() float64 {
			n := 0
			for _, b := range dbs {
				if b.Health() != nil {
					n++
				}
			}
			return float64(n)
		})
	return func(ctx context.Context) error {
		if err := next(ctx); err != nil {
			return err
		}
		for _, b := range dbs {
			if err := b.Health(); err != nil {
				return fmt.Errorf("portability database damaged while serving (rename a good file over it): %w", err)
			}
		}
		return nil
	}
}

// defaultPortDBReload is how often numen serve looks for a portability
// database file renamed over the one a portdb backend answers from.
const defaultPortDBReload = 10 * time.Second
