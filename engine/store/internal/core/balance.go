package core

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
)

// LocalBalances are the balances and spending limits of a store that one
// process owns (package sqlitestore, whose file lock admits one): no
// leases, since no other node spends. An account's spending is read from
// its reports once (Reports, exact at once), at its first lookup and at
// each new month (UTC), then counted in memory as lookups settle; a
// restart reads it again, so a crash charges nothing twice and loses no
// charge. Top-ups are kept in memory: the config lists them and the
// server adds them at every start (each once per id), so the config is
// their durable record.
type LocalBalances struct {
	// Reports lists an account's reports (Store.Reports).
	Reports func(ctx context.Context, account string) ([]store.Report, error)
	// Now is the clock of the months; nil is time.Now.
	Now func() time.Time

	mu       sync.Mutex
	topUps   map[string]map[string]engine.Money // account -> id -> amount
	accounts map[string]*localBudget
}

var _ store.Balances = (*LocalBalances)(nil)

// localBudget is one account's budget of LocalBalances.
type localBudget struct {
	lb      *LocalBalances
	account string

	mu     sync.Mutex
	limits engine.Limits
	month  string // "-2026-11" of the spending read, "" before the first read
	// spentMonth and spentAll are what the reports said at the read, plus
	// what settled since; held what lookups under way reserved.
	spentMonth, spentAll, held engine.Money
	// limbo are reservations of results that may or may not be stored
	// (Settle, not recorded): held until LimboFor has passed, then the
	// spending is read again from the reports, which have them or never
	// will.
	limbo []limbo
}

type limbo struct {
	amount engine.Money
	at     time.Time
}

// LimboFor is how long a result whose recording failed may still be
// committed (a write under way when its caller gave up).
const LimboFor = 2 * time.Minute

func (lb *LocalBalances) now() time.Time {
	if lb.Now != nil {
		return lb.Now()
	}
	return time.Now()
}

// Budget returns the engine.Budget of an account with limits, nil for
// none.
func (lb *LocalBalances) Budget(account string, limits engine.Limits) engine.Budget {
	if limits.None() {
		return nil
	}
	lb.mu.Lock()
	defer lb.mu.Unlock()
	if lb.accounts == nil {
		lb.accounts = map[string]*localBudget{}
	}
	b := lb.accounts[account]
	if b == nil {
		b = &localBudget{lb: lb, account: account}
		lb.accounts[account] = b
	}
	b.mu.Lock()
	b.limits = limits
	b.mu.Unlock()
	return b
}

// spending reads an account's spending this month (month, "-2006-01") and
// in all from its reports.
func (lb *LocalBalances) spending(ctx context.Context, account, month string) (engine.Money, engine.Money, error) {
	reports, err := lb.Reports(ctx, account)
	if err != nil {
		return 0, 0, err
	}
	var m, all engine.Money
	for _, r := range reports {
		all += r.Cost
		if strings.HasSuffix(r.Name, month) {
			m += r.Cost
		}
	}
	return m, all, nil
}

// topUpsOf returns the sum of an account's top-ups.
func (lb *LocalBalances) topUpsOf(account string) engine.Money {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	var sum engine.Money
	for _, a := range lb.topUps[account] {
		sum += a
	}
	return sum
}

// available returns what the account may still spend and the limit that
// bounds it, reading its spending when the month changed. b.mu is held.
func (b *localBudget) available(ctx context.Context) (engine.Money, string, error) {
	now := b.lb.now()
	n := 0
	for _, e := range b.limbo {
		if now.Sub(e.at) >= LimboFor {
			b.held -= e.amount
			n++
		}
	}
	if n > 0 {
		b.limbo, b.month = b.limbo[n:], "" // read the spending again
	}
	month := now.UTC().Format("-2006-01")
	if month != b.month {
		m, all, err := b.lb.spending(ctx, b.account, month)
		if err != nil {
			return 0, "", fmt.Errorf("the budget of %s: %w", b.account, err)
		}
		b.spentMonth, b.spentAll, b.month = m, all, month
	}
	avail := engine.Money(1<<62) - b.held
	limit := ""
	if c := b.limits.MonthlyCap; c != nil {
		avail, limit = *c-b.spentMonth-b.held, "cap"
	}
	if b.limits.Prepaid {
		if a := b.lb.topUpsOf(b.account) - b.spentAll - b.held; a < avail || limit == "" {
			avail, limit = a, "balance"
		}
	}
	return avail, limit, nil
}

// Reserve holds amount when it fits.
func (b *localBudget) Reserve(ctx context.Context, amount engine.Money) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.fits(ctx, amount); err != nil {
		return err
	}
	b.held += amount
	return nil
}

// Check reports whether amount fits, holding nothing.
func (b *localBudget) Check(ctx context.Context, amount engine.Money) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.fits(ctx, amount)
}

// fits reports whether amount fits what is available (b.mu held): a
// *engine.LimitError when it does not.
func (b *localBudget) fits(ctx context.Context, amount engine.Money) error {
	avail, limit, err := b.available(ctx)
	if err != nil {
		return err
	}
	if avail < amount {
		return &engine.LimitError{Limit: limit, Price: amount, Available: max(avail, 0)}
	}
	return nil
}

// Settle counts what was charged; a result that may not be recorded stays
// held for LimboFor, then the spending is read again from the reports.
func (b *localBudget) Settle(amount, charged engine.Money, recorded bool) {
	if !recorded {
		b.mu.Lock()
		b.limbo = append(b.limbo, limbo{amount, b.lb.now()})
		b.mu.Unlock()
		return
	}
	b.mu.Lock()
	b.held -= amount
	b.spentMonth += charged
	b.spentAll += charged
	b.mu.Unlock()
}

// Balance reads an account's spending from its reports.
func (lb *LocalBalances) Balance(ctx context.Context, account string, limits engine.Limits) (store.Balance, error) {
	month, all, err := lb.spending(ctx, account, lb.now().UTC().Format("-2006-01"))
	if err != nil {
		return store.Balance{}, err
	}
	out := store.Balance{MonthlyCap: limits.MonthlyCap, SpentThisMonth: month}
	lb.mu.Lock()
	b := lb.accounts[account]
	lb.mu.Unlock()
	if b != nil {
		b.mu.Lock()
		out.Reserved = b.held
		b.mu.Unlock()
	}
	if limits.Prepaid {
		bal := lb.topUpsOf(account) - all
		out.Balance = &bal
	}
	return out, nil
}

// TopUp adds a top-up, in memory, once per id.
func (lb *LocalBalances) TopUp(ctx context.Context, account, id string, amount engine.Money) (bool, error) {
	if id == "" || amount <= 0 {
		return false, fmt.Errorf("top-up of %s: want an id and a positive amount", account)
	}
	lb.mu.Lock()
	defer lb.mu.Unlock()
	if lb.topUps == nil {
		lb.topUps = map[string]map[string]engine.Money{}
	}
	ids := lb.topUps[account]
	if ids == nil {
		ids = map[string]engine.Money{}
		lb.topUps[account] = ids
	}
	if had, ok := ids[id]; ok {
		if had != amount {
			return false, fmt.Errorf("top-up %q of %s: %w (%s EUR, now %s EUR)", id, account, store.ErrTopUpReused, had, amount)
		}
		return false, nil
	}
	ids[id] = amount
	return true, nil
}
