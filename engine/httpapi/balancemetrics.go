package httpapi

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/httpapi/internal/promtext"
	"github.com/numenhq/numen/engine/store"
)

// The metrics of balances and spending limits (README, "Balances and
// spending limits"):
//
//	numen_balance_refused_lookups_total{account, reason}      counter
//	numen_balance_refused_submissions_total{account, reason}  counter
//	numen_balance_remaining_eur{account, limit}               gauge
//	numen_balance_lease_grants_total{account}                 counter
//	numen_balance_lease_returns_total{account}                counter
//
// reason and limit are "cap" (the monthly spending cap) or "balance" (the
// prepaid balance). Only accounts with limits have series.
const (
	refusedLookupsHelp     = "Lookups refused because they would pass their account's spending limit, by account and reason: cap (the monthly spending cap) or balance (the prepaid balance); queued lookups of bulk jobs included."
	refusedSubmissionsHelp = "Bulk submissions refused whole (402) because their cost would pass their account's spending limit, by account and reason: cap or balance."
	remainingHelp          = "What an account's limit leaves, in EUR, read at the scrape: limit cap, the monthly cap less this month's spending; limit balance, the prepaid balance (top-ups less everything charged). Lookups under way and the nodes' unused leases are not subtracted. NaN when the store could not be read."
	leaseGrantsHelp        = "Leases of an account's budget this node was granted by the database (PostgreSQL): one transaction each, every 64 lookups or so."
	leaseReturnsHelp       = "Leases of an account's budget this node gave back unused: refused near the limit (all but what it held) or at shutdown."
)

// limitReasons are the reasons of a *engine.LimitError, in the order of
// countedBudget's counters.
var limitReasons = [2]string{"cap", "balance"}

// balanceFamilies makes the families of balances (at NewMetrics, so that
// they are written, without series, by every server).
func (m *Metrics) balanceFamilies() {
	m.refusedLookups = m.reg.Family("numen_balance_refused_lookups_total", refusedLookupsHelp, promtext.KindCounter, "account", "reason")
	m.refusedSubmissions = m.reg.Family("numen_balance_refused_submissions_total", refusedSubmissionsHelp, promtext.KindCounter, "account", "reason")
}

// CountBudget returns b counting its refusals in
// numen_balance_refused_lookups_total (Reserve) and
// numen_balance_refused_submissions_total (Check) under account: what a
// server gives an account's profile (engine.Profile.WithBudget) instead
// of b. The counters are made here, so counting costs a refusal one
// atomic add and a lookup that fits nothing. A nil b is nil.
func (m *Metrics) CountBudget(account string, b engine.Budget) engine.Budget {
	if b == nil {
		return nil
	}
	c := &countedBudget{Budget: b}
	for i, reason := range limitReasons {
		c.lookups[i] = m.refusedLookups.Counter(account, reason)
		c.submissions[i] = m.refusedSubmissions.Counter(account, reason)
	}
	return c
}

// countedBudget is an engine.Budget whose refusals are counted.
type countedBudget struct {
	engine.Budget
	lookups, submissions [len(limitReasons)]*promtext.Counter
}

func (c *countedBudget) Reserve(ctx context.Context, amount engine.Money) error {
	err := c.Budget.Reserve(ctx, amount)
	if err != nil {
		countLimit(&c.lookups, err)
	}
	return err
}

func (c *countedBudget) Check(ctx context.Context, amount engine.Money) error {
	err := c.Budget.Check(ctx, amount)
	if err != nil {
		countLimit(&c.submissions, err)
	}
	return err
}

// countLimit counts err in counters when it is a *engine.LimitError.
func countLimit(counters *[len(limitReasons)]*promtext.Counter, err error) {
	var le *engine.LimitError
	if !errors.As(err, &le) {
		return
	}
	if le.Limit == "balance" {
		counters[1].Inc()
	} else {
		counters[0].Inc()
	}
}

// LeaseCounter is the optional side of a store.Balances that leases
// budget to nodes (pgstore's Budgets): how many leases of an account this
// node was granted and gave back.
type LeaseCounter interface {
	LeaseCounts(account string) (grants, returns uint64)
}

// balanceScrapeTimeout bounds the reading of the balances at a scrape.
const balanceScrapeTimeout = 2 * time.Second

// WatchBalances adds the series of the accounts with limits:
// numen_balance_remaining_eur, read from balances once per scrape (one
// Balances.Balance per account, bounded by 2 s; NaN when it fails), and
// when balances is a LeaseCounter numen_balance_lease_grants_total and
// numen_balance_lease_returns_total. Call it once, before serving.
func (m *Metrics) WatchBalances(balances store.Balances, accounts []*account.Account) {
	if balances == nil {
		return
	}
	type watched struct {
		key    string
		limits engine.Limits
		// remaining of the cap and the balance at the last scrape.
		cap, balance float64
	}
	var (
		mu   sync.Mutex
		list []*watched
	)
	remaining := m.reg.Family("numen_balance_remaining_eur", remainingHelp, promtext.KindGauge, "account", "limit")
	leases, _ := balances.(LeaseCounter)
	var grants, returns *promtext.Family
	if leases != nil {
		grants = m.reg.Family("numen_balance_lease_grants_total", leaseGrantsHelp, promtext.KindCounter, "account")
		returns = m.reg.Family("numen_balance_lease_returns_total", leaseReturnsHelp, promtext.KindCounter, "account")
	}
	for _, a := range accounts {
		if a.Limits.None() {
			continue
		}
		w := &watched{key: a.Key, limits: a.Limits}
		list = append(list, w)
		if a.Limits.MonthlyCap != nil {
			remaining.Func(func() float64 { mu.Lock(); defer mu.Unlock(); return w.cap }, a.Key, "cap")
		}
		if a.Limits.Prepaid {
			remaining.Func(func() float64 { mu.Lock(); defer mu.Unlock(); return w.balance }, a.Key, "balance")
		}
		if leases != nil {
			key := a.Key
			grants.Func(func() float64 { g, _ := leases.LeaseCounts(key); return float64(g) }, key)
			returns.Func(func() float64 { _, r := leases.LeaseCounts(key); return float64(r) }, key)
		}
	}
	if len(list) == 0 {
		return
	}
	m.reg.BeforeWrite(func() {
		ctx, cancel := context.WithTimeout(context.Background(), balanceScrapeTimeout)
		defer cancel()
		for _, w := range list {
			c, b := math.NaN(), math.NaN()
			if got, err := balances.Balance(ctx, w.key, w.limits); err == nil {
				if w.limits.MonthlyCap != nil {
					c = euros(*w.limits.MonthlyCap - got.SpentThisMonth)
				}
				if got.Balance != nil {
					b = euros(*got.Balance)
				}
			}
			mu.Lock()
			w.cap, w.balance = c, b
			mu.Unlock()
		}
	})
}

// euros is m in EUR, as a float for a gauge (never for money kept).
func euros(m engine.Money) float64 { return float64(m) / 10000 }
