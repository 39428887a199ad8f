package main

import (
	"time"

	"github.com/numenhq/numen/engine"
)

// circuitConfig is the circuit breaker of backends (engine.CircuitOptions):
// "circuit" at the top of the config for every backend, and in a backend
// for that one (its unset keys taken from the top's, then the defaults).
type circuitConfig struct {
	// Failures is the count of consecutive failed calls that opens a
	// backend's circuit (default 5); 0 turns the breaker off.
	Failures *int `json:"failures"`
	// CoolDown is how long an open circuit skips the backend before one
	// probe lookup is let through (default 30s).
	CoolDown duration `json:"cool_down"`
}

// options returns the engine's options of c; nil is all defaults.
func (c *circuitConfig) options() engine.CircuitOptions {
	if c == nil {
		return engine.CircuitOptions{}
	}
	o := engine.CircuitOptions{CoolDown: time.Duration(c.CoolDown)}
	if c.Failures != nil {
		o.Failures = *c.Failures
		if o.Failures == 0 {
			o.Failures = -1 // off
		}
	}
	return o
}

// checkCircuit reports the problems of a circuit setting at at.
func checkCircuit(at string, c *circuitConfig, bad func(string, ...any)) {
	if c != nil && c.Failures != nil && *c.Failures < 0 {
		bad("%s.failures: %d: want a count of consecutive failures (0 turns the breaker off)", at, *c.Failures)
	}
}

// applyCircuits gives the backends of a route built from its config
// (buildBackends: one backend per configured one, in order) their own
// circuit settings.
func applyCircuits(rb *engine.RouteBackends, backends []backendConfig) {
	for j, b := range backends {
		if b.Circuit == nil {
			continue
		}
		o := b.Circuit.options()
		switch {
		case len(rb.HLR) == len(backends):
			rb.HLR[j].Circuit = &o
		case len(rb.Portability) == len(backends):
			rb.Portability[j].Circuit = &o
		}
	}
}
