package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
)

// Budget limits what one account may spend: a prepaid balance, a monthly
// spending cap, or both. The engine asks it before a lookup that will be
// charged asks a backend (Reserve, with the lookup's price) and tells it
// what was charged once the result is recorded (Settle). A profile
// without a budget (ProfileOptions.Budget nil) spends without limit and
// pays nothing for the check: one nil test per lookup, no allocation.
//
// Package engine/store/pgstore implements Budget across the nodes of a
// cluster (pgstore.Budgets): see its documentation for how budget is
// leased to nodes so that spending never passes a limit, also after a
// node is killed. Implementations are safe for concurrent use.
type Budget interface {
	// Reserve holds amount (the price of one lookup about to run) until
	// Settle. It returns a *LimitError when amount does not fit the
	// account's limits, and may return another error (the database of
	// the budget unreachable): then too the lookup does not run.
	Reserve(ctx context.Context, amount Money) error
	// Settle ends a reservation of amount: the lookup was charged charged
	// (at most amount; 0 for a result that is not charged) and its result
	// was recorded (recorded) — or it may or may not have been (not
	// recorded: the sink failed), in which case the budget must assume
	// the worst and keep amount held.
	Settle(amount, charged Money, recorded bool)
	// Check reports whether amount fits what the limits allow now,
	// holding nothing: a *LimitError when it does not. A bulk submission
	// checks its cost with it before it is queued; its lookups still
	// reserve their price each when they run.
	Check(ctx context.Context, amount Money) error
}

// LimitError is a lookup refused because it would pass a limit of its
// account: the HTTP adapter answers 402 Payment Required with its message.
type LimitError struct {
	// Limit is "balance" (the prepaid balance) or "cap" (the monthly
	// spending cap).
	Limit string
	// Price is what the lookup would have cost, Available what the limit
	// still allows (at most; on a cluster, part of it may be held by other
	// nodes' running lookups).
	Price, Available Money
}

// ErrLimit is the sentinel every *LimitError matches with errors.Is.
var ErrLimit = errors.New("spending limit reached")

func (e *LimitError) Error() string {
	switch e.Limit {
	case "balance":
		return "balance: the prepaid balance does not cover this lookup (price " + e.Price.String() + " EUR, available " + e.Available.String() + " EUR); top up the account"
	default:
		return "cap: this lookup would pass the account's monthly spending cap (price " + e.Price.String() + " EUR, available this month " + e.Available.String() + " EUR)"
	}
}

// ErrBudgetUnavailable wraps an error of a Budget other than a limit (its
// database unreachable): the lookup did not run, nothing was charged. The
// HTTP adapter answers 503.
var ErrBudgetUnavailable = errors.New("the account's budget could not be checked")

// Is makes errors.Is(err, ErrLimit) true for every *LimitError.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// reserve holds the price of a lookup that is about to ask a backend (or,
// for NT, to be charged) in its profile's budget. Without a budget, or at
// a price of zero, it does nothing.
func (e *Engine) reserve(ctx context.Context, l *lookup) error {
	b := l.profile.budget
	if b == nil {
		return nil
	}
	price := l.profile.prices.Of(l.priced, l.route)
	if price <= 0 {
		return nil
	}
	if err := b.Reserve(ctx, price); err != nil {
		if errors.Is(err, ErrLimit) {
			return err
		}
		return fmt.Errorf("%w: %w", ErrBudgetUnavailable, err)
	}
	l.reserved = price
	return nil
}

// CheckBudget reports whether amount (a bulk submission's cost) fits the
// profile's budget now, holding nothing: nil without a budget, a
// *LimitError when it does not fit, an error wrapping ErrBudgetUnavailable
// when the budget cannot be read.
func (e *Engine) CheckBudget(ctx context.Context, p *Profile, amount Money) error {
	if p.budget == nil || amount <= 0 {
		return nil
	}
	if err := p.budget.Check(ctx, amount); err != nil {
		if errors.Is(err, ErrLimit) {
			return err
		}
		return fmt.Errorf("%w: %w", ErrBudgetUnavailable, err)
	}
	return nil
}

// overLimitQueued reports whether err refuses a queued (bulk) lookup for
// its account's limits: such a lookup is not an error of the job but a
// result that is not charged (REJECTED with mnp.CodeSpendingLimit; for NT
// query_status FAILED, see notLookedUp), delivered with the others.
func overLimitQueued(req Request, err error) bool {
	return req.Async && errors.Is(err, ErrLimit)
}

// notLookedUp makes an NT result one that its account's limits refused
// when it ran queued: nothing of the classification (which was not paid
// for), query_status FAILED and info_text saying why.
func notLookedUp(out *apiv2.NTResult) {
	*out = apiv2.NTResult{
		ID: out.ID, Number: out.Number, NumberType: numbering.Unknown.String(), QueryStatus: numbering.StatusFailed.String(),
		InfoText: apiv2.String(mnp.CodeSpendingLimit.Description()),
		Route:    out.Route, Cost: out.Cost, Timestamp: out.Timestamp, Storage: out.Storage,
	}
}

// settleAfter settles a lookup's reservation once its record was handed
// to the sink (err its answer): at once, but for an engine whose sink
// does not store (WithSink), which leaves it in the record for
// SettleRecords.
func (e *Engine) settleAfter(l *lookup, charged Money, err error) {
	if e.deferSettle && err == nil {
		l.reserved = 0 // the record carries it
		return
	}
	settle(l, charged, err == nil)
}

// SettleRecords settles the reservations of records that an engine made
// with WithSink left to its caller (Record.Reserved), once the records
// were stored (recorded) or failed to be (then the reservations stay held,
// as the results may or may not be stored). Records of other profiles
// than p, or without a reservation, are passed over.
func SettleRecords(p *Profile, records []Record, recorded bool) {
	if p == nil || p.budget == nil {
		return
	}
	for i := range records {
		r := &records[i]
		if r.Reserved > 0 && r.Account == p.key {
			p.budget.Settle(r.Reserved, min(r.Cost, r.Reserved), recorded)
			r.Reserved = 0
		}
	}
}

// settle ends the reservation of a lookup (if it made one), once its result
// was recorded (or failed to be) at cost charged.
func settle(l *lookup, charged Money, recorded bool) {
	if l.reserved == 0 {
		return
	}
	l.profile.budget.Settle(l.reserved, min(charged, l.reserved), recorded)
	l.reserved = 0
}

// Limits are an account's spending limits, which its Budget enforces. The
// zero value limits nothing.
type Limits struct {
	// Prepaid makes the account spend from a prepaid balance: the sum of
	// its top-ups less everything it was ever charged.
	Prepaid bool
	// MonthlyCap, when not nil, bounds what the account is charged in a
	// calendar month (UTC).
	MonthlyCap *Money
}

// None reports whether l limits nothing.
func (l Limits) None() bool { return !l.Prepaid && l.MonthlyCap == nil }

// WithBudget returns a copy of p that spends through b (nil: without
// limit): the sidecar builds an account's profile from its config, then
// gives it the store's budget of the account.
func (p *Profile) WithBudget(b Budget) *Profile {
	c := *p
	c.budget = b
	return &c
}
