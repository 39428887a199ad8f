package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/numenhq/numen/engine/enumserver"
	"github.com/numenhq/numen/engine/httpapi"
	"github.com/numenhq/numen/mnp/portdb"
	"github.com/numenhq/numen/numbering"
)

// enumConfig is the config's "enum": the ENUM server (DNS NAPTR answers
// of portability, package engine/enumserver) that numen serve runs beside
// the HTTP API, on its listen address or --enum's.
type enumConfig struct {
	// Listen is the address of its UDP and TCP sockets ("127.0.0.1:5353");
	// --enum overrides it.
	Listen string `json:"listen"`
	// Suffix is the domain the numbers are under (default "e164.arpa.").
	Suffix string `json:"suffix"`
	// TTL of the records (default "5m").
	TTL duration `json:"ttl"`
	// RN maps MCCMNC to the routing number of the numbers ported to that
	// network; RNContext is the rn-context of routing numbers that are not
	// global (default: the number's calling code).
	RN        map[string]string `json:"rn"`
	RNContext string            `json:"rn_context"`
	// NameServer is the server's name in the SOA and NS of the suffix
	// (default "localhost.").
	NameServer string `json:"name_server"`
	// Portdb is the portability database file to answer from, watched for
	// a new file renamed over it every Reload (default 10s); without it,
	// the database of the routes' first portdb backend, and without one,
	// the numbering plan alone (no npdi).
	Portdb string   `json:"portdb"`
	Reload duration `json:"reload"`
	// PortdbDeltas is a directory of delta files applied on top of
	// Portdb (see the portdb backend's deltas).
	PortdbDeltas string `json:"portdb_deltas"`
	// RateLimit limits the UDP answers per client address.
	RateLimit *enumRateConfig `json:"rate_limit"`
	// MaxConnections bounds the open TCP connections (default 256) and
	// IdleTimeout how long one may wait for its next query (default 10s).
	MaxConnections int      `json:"max_connections"`
	IdleTimeout    duration `json:"idle_timeout"`
}

type enumRateConfig struct {
	PerSecond float64 `json:"per_second"`
	Burst     int     `json:"burst"`
	// Slip: every slip-th query over the limit is answered truncated (TC),
	// the others dropped (default 2; 1 truncates all; -1 drops all).
	Slip int `json:"slip"`
}

// checkEnum checks what can be checked of the config's "enum" without the
// plan; the rest is checked by buildEnum, named as well.
func checkEnum(e *enumConfig, bad func(string, ...any)) {
	if e.Listen != "" {
		if _, _, err := net.SplitHostPort(e.Listen); err != nil {
			bad("enum.listen: %q is not an address such as 127.0.0.1:5353", e.Listen)
		}
	}
	if rl := e.RateLimit; rl != nil {
		checkRate("enum.rate_limit", rl.PerSecond, rl.Burst, bad)
	}
	if e.MaxConnections < 0 {
		bad("enum.max_connections: must not be negative")
	}
	if e.TTL != 0 && time.Duration(e.TTL) < time.Second {
		bad("enum.ttl: %v is less than a second", time.Duration(e.TTL))
	}
}

// enumFields names the fields of enumserver.Config as the config does.
var enumFields = map[string]string{
	"Suffix": "suffix", "TTL": "ttl", "RN": "rn", "RNContext": "rn_context",
	"NameServer": "name_server", "RateLimit": "rate_limit",
}

// buildEnum makes the ENUM server of e. It answers from the portdb file
// of e (opened and watched in pd), else from the first of the routes'
// databases (pd.holders). It returns what must be closed at shutdown.
func buildEnum(e *enumConfig, plan *numbering.Plan, pd *portdbSet, logger *slog.Logger) (*enumserver.Server, []func() error, error) {
	cfg := enumserver.Config{
		Plan: plan, Suffix: e.Suffix, TTL: time.Duration(e.TTL), RN: e.RN, RNContext: e.RNContext,
		NameServer: e.NameServer, MaxTCPConnections: e.MaxConnections, TCPIdleTimeout: time.Duration(e.IdleTimeout),
		Logger: logger,
	}
	if rl := e.RateLimit; rl != nil {
		cfg.RateLimit = enumserver.RateLimit{PerSecond: rl.PerSecond, Burst: rl.Burst, Slip: rl.Slip}
	}
	var closers []func() error
	if e.PortdbDeltas != "" && e.Portdb == "" {
		return nil, nil, fmt.Errorf("enum.portdb_deltas: applies to enum.portdb, which is not set (a route's portdb backend takes its own deltas)")
	}
	switch {
	case e.Portdb != "":
		h, c, err := pd.open(e.Portdb, e.PortdbDeltas, time.Duration(e.Reload), logger.With("enum", "portdb", "file", e.Portdb))
		if err != nil {
			return nil, nil, fmt.Errorf("enum.portdb: %w", err)
		}
		closers = append(closers, c...)
		cfg.Portability = h
	case len(pd.holders) > 0:
		cfg.Portability = pd.holders[0]
	}
	s, err := enumserver.New(cfg)
	if err != nil {
		var ce *enumserver.ConfigError
		if errors.As(err, &ce) {
			field, key, _ := strings.Cut(ce.Field, "[")
			name := enumFields[field]
			if key != "" {
				name += "." + strings.TrimSuffix(key, "]")
			}
			err = fmt.Errorf("enum.%s: %s", name, ce.Msg)
		}
		for _, c := range closers {
			_ = c()
		}
		return nil, nil, err
	}
	return s, closers, nil
}

// runningEnum is an ENUM server serving.
type runningEnum struct {
	server *enumserver.Server
	addr   net.Addr
	done   chan error
}

// startEnum serves the ENUM server's sockets (enumserver.Listen's, which
// runServer opens before anything else).
func startEnum(s *enumserver.Server, pc net.PacketConn, ln net.Listener) *runningEnum {
	r := &runningEnum{server: s, addr: pc.LocalAddr(), done: make(chan error, 1)}
	go func() { r.done <- s.Serve(pc, ln) }()
	return r
}

// stop shuts the server down: its sockets closed, the answers in flight
// written, every goroutine ended (at most until ctx ends).
func (r *runningEnum) stop(ctx context.Context) error {
	if err := r.server.Shutdown(ctx); err != nil {
		return fmt.Errorf("enum shutdown: %w", err)
	}
	if err := <-r.done; !errors.Is(err, enumserver.ErrServerClosed) {
		return fmt.Errorf("enum: %w", err)
	}
	return nil
}

// registerEnumMetrics counts the ENUM server in /metrics.
func registerEnumMetrics(m *httpapi.Metrics, s *enumserver.Server) {
	for _, t := range enumserver.QTypes() {
		for _, rc := range enumserver.RCodes() {
			m.Register("numen_enum_queries_total", "counter", enumQueriesHelp,
				fmt.Sprintf(`numen_enum_queries_total{rcode="%s",type="%s"}`, rc, t),
				func() float64 { return float64(s.QueryCount(t, rc)) })
		}
	}
	for _, action := range []string{"dropped", "slipped"} {
		m.Register("numen_enum_rate_limited_total", "counter", enumLimitedHelp,
			`numen_enum_rate_limited_total{action="`+action+`"}`, func() float64 {
				st := s.Stats()
				if action == "dropped" {
					return float64(st.RateLimitedDropped)
				}
				return float64(st.RateLimitedSlipped)
			})
	}
	for _, kind := range []string{"malformed", "read", "write", "tcp_refused"} {
		m.Register("numen_enum_errors_total", "counter", enumErrorsHelp,
			`numen_enum_errors_total{kind="`+kind+`"}`, func() float64 {
				st := s.Stats()
				switch kind {
				case "malformed":
					return float64(st.Malformed)
				case "read":
					return float64(st.ReadErrors)
				case "write":
					return float64(st.WriteErrors)
				}
				return float64(st.TCPRefused)
			})
	}
}

// The help of the ENUM server's metric families (engine/httpapi's
// testdata/metrics_families.txt lists them).
const (
	enumQueriesHelp = "ENUM queries answered, by query type (NAPTR, SOA, NS, ANY, AXFR, IXFR, other; none when the question was unreadable) and response code."
	enumLimitedHelp = "ENUM UDP queries over their client's rate limit, by action: dropped, or slipped (answered truncated)."
	enumErrorsHelp  = "ENUM server errors by kind: malformed (packets dropped unanswered), read and write (socket errors), tcp_refused (connections beyond max_connections)."
)

// portdbSource says, for the start's log line, which portability
// database the ENUM server answers from.
func portdbSource(e *enumConfig, holders []*portdb.Holder) string {
	switch {
	case e.Portdb != "":
		return e.Portdb
	case len(holders) > 0:
		return "the routes' first portdb backend"
	}
	return "none: answers from the numbering plan, without npdi"
}

func hostOf(a net.Addr) string { h, _, _ := net.SplitHostPort(a.String()); return h }
func portOf(a net.Addr) string { _, p, _ := net.SplitHostPort(a.String()); return p }

// enumExample is the name of +4915123456789 under suffix, for the start's
// message.
func enumExample(suffix string) string {
	return "9.8.7.6.5.4.3.2.1.5.1.9.4." + suffix
}
