package httpapi

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/store"
)

// memBalances is a store.Balances of one account's monthly cap, in memory.
type memBalances struct {
	mu          sync.Mutex
	spent, held engine.Money
	cap         engine.Money
}

func (m *memBalances) Reserve(ctx context.Context, amount engine.Money) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.spent+m.held+amount > m.cap {
		return &engine.LimitError{Limit: "cap", Price: amount, Available: m.cap - m.spent - m.held}
	}
	m.held += amount
	return nil
}

func (m *memBalances) Check(ctx context.Context, amount engine.Money) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.spent+m.held+amount > m.cap {
		return &engine.LimitError{Limit: "cap", Price: amount, Available: m.cap - m.spent - m.held}
	}
	return nil
}

func (m *memBalances) Settle(amount, charged engine.Money, recorded bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.held -= amount
	m.spent += charged
}

func (m *memBalances) Budget(account string, limits engine.Limits) engine.Budget { return m }

func (m *memBalances) Balance(ctx context.Context, account string, limits engine.Limits) (store.Balance, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return store.Balance{MonthlyCap: limits.MonthlyCap, SpentThisMonth: m.spent, Reserved: m.held}, nil
}

func (m *memBalances) TopUp(ctx context.Context, account, id string, amount engine.Money) (bool, error) {
	return false, nil
}

func TestBalanceAndLimit(t *testing.T) {
	t.Parallel()
	cap := engine.Money(150) // one HLR lookup (0.0100) and a bit
	mem := &memBalances{cap: cap}
	s := newServer(t, func(cfg *Config, a *account.Account) {
		a.Limits = engine.Limits{MonthlyCap: &cap}
		p, err := cfg.Engine.NewProfile(engine.ProfileOptions{Key: a.Key, Budget: mem.Budget(a.Key, a.Limits)})
		require.NoError(t, err)
		a.Profile = p
		cfg.Balances = mem
	})
	sign := digest(secret, 0)

	code, _, body := s.do(t, "GET", "/api/v2/balance", "", sign)
	require.Equal(t, 200, code, "%s", body)
	require.JSONEq(t, `{"balance": null, "monthly_cap": "0.0150", "spent_this_month": "0.0000", "reserved": "0.0000", "currency": "EUR"}`, string(body))

	code, _, body = s.do(t, "POST", "/api/v2/hlr-lookup", `{"msisdn": "+4915123456789"}`, sign)
	require.Equal(t, 200, code, "%s", body)
	code, _, body = s.do(t, "POST", "/api/v2/hlr-lookup", `{"msisdn": "+4915123456780"}`, sign)
	require.Equal(t, 402, code, "%s", body)
	errs := errorsOf(t, body)
	require.Len(t, errs, 1)
	require.True(t, strings.HasPrefix(errs[0], "cap: "), errs[0])
	require.Contains(t, errs[0], "0.0050")
	// An NT lookup (0.0010) still fits.
	code, _, body = s.do(t, "POST", "/api/v2/nt-lookup", `{"number": "+4930123456"}`, sign)
	require.Equal(t, 200, code, "%s", body)

	code, _, body = s.do(t, "GET", "/api/v2/balance", "", sign)
	require.Equal(t, 200, code, "%s", body)
	var b apiv2.Balance
	require.NoError(t, json.Unmarshal(body, &b))
	require.Equal(t, "0.0110", b.SpentThisMonth)
}

// An account without limits reports none.
func TestBalanceWithoutLimits(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	code, _, body := s.do(t, "GET", "/api/v2/balance", "", digest(secret, 0))
	require.Equal(t, 200, code, "%s", body)
	require.JSONEq(t, `{"balance": null, "monthly_cap": null, "spent_this_month": "0.0000", "reserved": "0.0000", "currency": "EUR"}`, string(body))
}
