package engine

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/numenhq/numen/mnp"
	"github.com/stretchr/testify/require"
)

// benchEngine is an engine whose backends answer at once, recording to
// sink.
func benchEngine(b testing.TB, sink Sink) (*Engine, *Profile) {
	eng, err := New(Options{
		Plan: loadPlan(b),
		Backends: []RouteBackends{
			{Route: "GT1", HLR: []HLR{{Name: "gt1", Backend: &fakeHLR{answer: connected}}}},
			{Route: "GT2", HLR: []HLR{{Name: "gt2", Backend: &fakeHLR{answer: connected}}}},
			{Route: "DS7", HLR: []HLR{{Name: "ds7", Backend: &fakeHLR{answer: connected}}}},
			{Route: "MP1", Portability: []Portability{{Name: "portdb", Backend: &fakePort{answer: mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: "26201"}}}}}},
		},
		Clock:  func() time.Time { return time.Date(2026, 11, 22, 10, 4, 5, 0, time.UTC) },
		Random: rand.NewChaCha8([32]byte{1}),
		Sink:   sink,
	})
	if err != nil {
		b.Fatal(err)
	}
	a, err := eng.NewProfile(ProfileOptions{Key: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	return eng, a
}

// lookupCases are the lookups of BenchmarkLookup and TestLookupAllocs, with
// the allocations each may make: the figures of the engine before its
// lookups had one entry point each, which the change kept.
func lookupCases() []lookupCase {
	discard := SinkFunc(func(context.Context, Record) error { return nil })
	ctx := context.Background()
	return []lookupCase{
		{"NT", nil, 6, func(e *Engine, a *Profile, req Request) error { _, err := e.NTLookup(ctx, a, req); return err }},
		{"NT/JSON", discard, 7, func(e *Engine, a *Profile, req Request) error {
			req.Encode = true
			_, err := e.NTLookup(ctx, a, req)
			return err
		}},
		{"HLR/JSON", discard, 28, func(e *Engine, a *Profile, req Request) error {
			req.Encode = true
			_, err := e.HLRLookup(ctx, a, req)
			return err
		}},
		{"MNP/JSON", discard, 24, func(e *Engine, a *Profile, req Request) error {
			req.Encode = true
			_, err := e.MNPLookup(ctx, a, req)
			return err
		}},
	}
}

type lookupCase struct {
	name   string
	sink   Sink
	allocs float64
	lookup func(e *Engine, a *Profile, req Request) error
}

// TestLookupAllocs holds the lookups to their allocations per call.
func TestLookupAllocs(t *testing.T) {
	for _, tc := range lookupCases() {
		e, a := benchEngine(t, tc.sink)
		req := Request{Number: "+4915123456789"}
		allocs := testing.AllocsPerRun(200, func() {
			if err := tc.lookup(e, a, req); err != nil {
				t.Fatal(err)
			}
		})
		require.LessOrEqual(t, allocs, tc.allocs, tc.name)
	}
}

// BenchmarkLookup runs the lookups against backends that answer at once.
func BenchmarkLookup(b *testing.B) {
	for _, tc := range lookupCases() {
		b.Run(tc.name, func(b *testing.B) {
			e, a := benchEngine(b, tc.sink)
			req := Request{Number: "+4915123456789"}
			b.ReportAllocs()
			for b.Loop() {
				if err := tc.lookup(e, a, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
