package store

import (
	"context"
	"errors"

	"github.com/numenhq/numen/engine"
)

// Balances are the accounts' budgets of a store that keeps balances and
// spending limits (package pgstore's Budgets): the engine.Budget of each
// limited account, what GET /balance reports, and top-ups. Spending is
// never kept apart from the results: an account spent what its results
// were charged.
type Balances interface {
	// Budget returns the engine.Budget of an account with limits (for
	// engine.ProfileOptions.Budget), nil when limits has none: an account
	// without limits pays nothing for them.
	Budget(account string, limits engine.Limits) engine.Budget
	// Balance returns the balance, cap and this month's spending of an
	// account with limits.
	Balance(ctx context.Context, account string, limits engine.Limits) (Balance, error)
	// TopUp adds amount to an account's prepaid balance, once per id: a
	// top-up repeated with its id adds nothing (added false); the same id
	// with another amount is ErrTopUpReused.
	TopUp(ctx context.Context, account, id string, amount engine.Money) (added bool, err error)
}

// Balance is what GET /balance reports of an account.
type Balance struct {
	// Balance is the prepaid balance (top-ups less everything charged),
	// nil for an account that is not prepaid.
	Balance *engine.Money
	// MonthlyCap is the account's cap, nil for none.
	MonthlyCap *engine.Money
	// SpentThisMonth is what the account was charged this calendar month
	// (UTC), as its results say.
	SpentThisMonth engine.Money
	// Reserved is what the nodes hold of the account's budget beyond
	// what was charged: lookups under way, and leases not yet used (at
	// most one lease per node). It is not spent, but not available either.
	Reserved engine.Money
}

// ErrTopUpReused is a top-up whose id the account used before with
// another amount.
var ErrTopUpReused = errors.New("top-up id used before with another amount")
