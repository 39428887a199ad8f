package engine_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
)

// monthlyCap is a Budget of one process: a cap, what was spent and what
// lookups under way hold. (A sidecar takes its store's: pgstore's leases
// budget to the nodes of a cluster.)
type monthlyCap struct {
	mu               sync.Mutex
	cap, spent, held engine.Money
}

func (c *monthlyCap) Reserve(ctx context.Context, amount engine.Money) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.fits(amount); err != nil {
		return err
	}
	c.held += amount
	return nil
}

func (c *monthlyCap) Check(ctx context.Context, amount engine.Money) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fits(amount)
}

func (c *monthlyCap) fits(amount engine.Money) error {
	if left := c.cap - c.spent - c.held; amount > left {
		return &engine.LimitError{Limit: "cap", Price: amount, Available: left}
	}
	return nil
}

func (c *monthlyCap) Settle(amount, charged engine.Money, recorded bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if recorded {
		c.held -= amount
		c.spent += charged
	}
}

type connectedEverywhere struct{}

func (connectedEverywhere) HLR(ctx context.Context, q mnp.Query) (mnp.HLRAnswer, error) {
	return mnp.HLRAnswer{Status: mnp.Completed, Connectivity: mnp.Connected, MCCMNC: q.MCCMNC, Ported: mnp.False, Roaming: mnp.False}, nil
}

func (connectedEverywhere) Portability(ctx context.Context, q mnp.Query) (mnp.PortAnswer, error) {
	return mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: q.MCCMNC}}, nil
}

// An account with a monthly cap of 0.0150 EUR: one HLR lookup (0.0100)
// fits, the next is refused before any backend is asked; an NT lookup
// (0.0010) still fits.
func ExampleBudget() {
	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	hlr := []engine.HLR{{Name: "register", Backend: connectedEverywhere{}}}
	eng, err := engine.New(engine.Options{
		Plan: plan,
		Backends: []engine.RouteBackends{
			{Route: "DS7", HLR: hlr}, {Route: "GT1", HLR: hlr}, {Route: "GT2", HLR: hlr},
			{Route: "MP1", Portability: []engine.Portability{{Name: "portdb", Backend: connectedEverywhere{}}}},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	budget := &monthlyCap{cap: 150}
	acct, err := eng.NewProfile(engine.ProfileOptions{Key: "capped", Budget: budget})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	for _, n := range []string{"+4915123456789", "+4915123456780"} {
		ans, err := eng.HLRLookup(ctx, acct, engine.Request{Number: n})
		var limit *engine.LimitError
		switch {
		case errors.As(err, &limit):
			fmt.Println(n, "refused:", limit.Limit, "left", limit.Available)
		case err != nil:
			log.Fatal(err)
		default:
			fmt.Println(n, ans.Result.ProcessingStatus, "cost", *ans.Result.Cost)
		}
	}
	nt, err := eng.NTLookup(ctx, acct, engine.Request{Number: "+4930123456"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("NT cost", *nt.Result.Cost, "spent", budget.spent)
	// Output:
	// +4915123456789 COMPLETED cost 0.0100
	// +4915123456780 refused: cap left 0.0050
	// NT cost 0.0010 spent 0.0110
}
