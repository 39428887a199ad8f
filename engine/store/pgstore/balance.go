package pgstore

// Balances and spending limits: see the section "Balances and spending
// limits" of the package documentation (doc in this file, below).

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/store"
)

var _ store.Balances = (*Budgets)(nil)

// balanceSchema is the migration of the balance tables (see the package
// documentation's "Balances and spending limits"): the top-ups of the
// prepaid balances, and the budget each node holds of an account
// (granted, and used as of the node's last grant, both cumulative since
// the node started; expires_ms the end of its lease). Spending itself is
// never stored here: it is the sum of the costs in results.
const balanceSchema = `
CREATE TABLE balance_topups (
	account    text   NOT NULL,
	id         text   NOT NULL,
	amount     bigint NOT NULL CHECK (amount > 0),
	created_ms bigint NOT NULL,
	PRIMARY KEY (account, id)
);
CREATE TABLE balance_leases (
	account    text   NOT NULL,
	node       text   NOT NULL,
	granted    bigint NOT NULL,
	used       bigint NOT NULL CHECK (used <= granted),
	expires_ms bigint NOT NULL,
	PRIMARY KEY (account, node)
);
`

// Lease parameters: a node's lease of an account's budget lasts leaseTTL
// (DefaultLeaseDuration, or WithLeases'); a lease that ended leaseGrace
// ago (DefaultLeaseGrace) is its node's no more (the node died, or stopped
// reserving) and its unused part returns to the account. leaseLookups is
// how many lookups at a price a grant asks for at once. leaseTTL and
// leaseGrace are the defaults of the stores opened after (tests set them).
var (
	leaseTTL     = DefaultLeaseDuration
	leaseGrace   = DefaultLeaseGrace
	leaseLookups = engine.Money(64)
	// leaseMaxLookups bounds a lease sized to a high rate (leaseSize).
	leaseMaxLookups = engine.Money(1 << 16)
	leaseReport     = time.Second
)

// Budgets is this node's share of the accounts' budgets: an
// engine.Budget per limited account (Budget). One per Store: Open makes
// it, under a random node id.
type Budgets struct {
	s    *Store
	node string

	mu       sync.Mutex
	accounts map[string]*budget

	// ttl and grace are the leases' duration and grace (WithLeases).
	ttl, grace time.Duration

	stop, stopped chan struct{} // of reportEvery
	grants        atomic.Int64  // grant transactions, for tests and benchmarks
}

// DefaultLeaseDuration and DefaultLeaseGrace are how long a node's lease
// of an account's budget lasts, and how long after its end the others
// still count it (WithLeases).
const (
	DefaultLeaseDuration = 30 * time.Second
	DefaultLeaseGrace    = 2 * time.Minute
)

// WithLeases sets how long a node's lease of an account's budget lasts
// (default DefaultLeaseDuration) and the grace after its end during which
// the other nodes still count it (default DefaultLeaseGrace); zero keeps
// a default. A node killed with -9 makes the others refuse early for up
// to duration + grace, at most by its lease. Every node of a database
// must use the same values, and grace must be longer than any lookup
// takes from its reservation to its recording (the request timeout, and
// a bulk lookup's backend timeout): a shorter grace could let the nodes
// pass a limit by a killed node's lookups still being recorded.
func WithLeases(duration, grace time.Duration) Option {
	return func(o *options) {
		if duration > 0 {
			o.leaseTTL = duration
		}
		if grace > 0 {
			o.leaseGrace = grace
		}
	}
}

// LeaseCounts returns how many leases of an account's budget this node
// was granted (grant transactions that gave some) and gave back unused
// (refused near the limit, or at Close), for the sidecar's metrics.
func (bs *Budgets) LeaseCounts(account string) (grants, returns uint64) {
	bs.mu.Lock()
	b := bs.accounts[account]
	bs.mu.Unlock()
	if b == nil {
		return 0, 0
	}
	return b.grantsN.Load(), b.returnsN.Load()
}

// spending returns what an account was charged in the month of now (UTC)
// and in all, from its reports' counts (exact: Store.Reports counts every
// result acknowledged, once). A report's name ends with the month of its
// results ("-2026-11").
func (s *Store) spending(ctx context.Context, account string, now time.Time) (month, all engine.Money, err error) {
	reports, err := s.Reports(ctx, account)
	if err != nil {
		return 0, 0, err
	}
	suffix := now.UTC().Format("-2006-01")
	for _, r := range reports {
		all += r.Cost
		if strings.HasSuffix(r.Name, suffix) {
			month += r.Cost
		}
	}
	return month, all, nil
}

// budget is an account's budget on this node: what the node was granted,
// used (settled and recorded) and holds (reserved, not yet settled, or
// settled without knowing whether the result was recorded), all since the
// node started; the lease ends at deadline (this node's clock).
type budget struct {
	b       *Budgets
	account string
	limits  engine.Limits

	mu                  sync.Mutex
	granted, used, held engine.Money
	deadline            time.Time
	reported            engine.Money // used, as the database has it
	// scarce is set when the last grant gave less than asked: near the
	// limit, Settle reports the use at once (report).
	scarce bool
	// reserves counts the reservations since lastGrant, to size the next
	// lease to the account's rate on this node.
	reserves  int64
	lastGrant time.Time
	// limbo are reservations of results that may or may not be recorded
	// (Settle, not recorded), part of held until leaseGrace has passed:
	// by then such a result is in the results or never will be.
	limbo []limboEntry
	// grantsN and returnsN count the leases granted and given back
	// (LeaseCounts).
	grantsN, returnsN atomic.Uint64
}

// limboEntry is a reservation in limbo since at.
type limboEntry struct {
	amount engine.Money
	at     time.Time
}

// dropLimbo ends the reservations in limbo for leaseGrace or longer: what
// of them was recorded the results say. It reports whether it dropped
// any. b.mu is held.
func (b *budget) dropLimbo(now time.Time) bool {
	n := 0
	for _, e := range b.limbo {
		if now.Sub(e.at) >= b.b.grace {
			b.held -= e.amount
			n++
		}
	}
	b.limbo = b.limbo[n:]
	return n > 0
}

func newBudgets(s *Store, ttl, grace time.Duration) *Budgets {
	return &Budgets{s: s, node: "n-" + rand.Text(), ttl: ttl, grace: grace, accounts: map[string]*budget{}, stop: make(chan struct{}), stopped: make(chan struct{})}
}

// Budgets returns the store's budgets.
func (s *Store) Budgets() *Budgets { return s.budgets }

// Balances returns the store's budgets as the store.Balances that the
// sidecar takes.
func (s *Store) Balances() store.Balances { return s.budgets }

// Budget returns the engine.Budget of an account with limits (for
// engine.ProfileOptions.Budget), nil when limits has none: an account
// without limits pays nothing for them. Calling it again for an account
// returns its budget with the new limits.
func (bs *Budgets) Budget(account string, limits engine.Limits) engine.Budget {
	if limits.None() {
		return nil
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b := bs.accounts[account]
	if b == nil {
		b = &budget{b: bs, account: account}
		bs.accounts[account] = b
	}
	b.mu.Lock()
	b.limits = limits
	b.mu.Unlock()
	return b
}

// Reserve holds amount from the node's lease, asking the database for a
// new lease when the lease is spent or ended.
func (b *budget) Reserve(ctx context.Context, amount engine.Money) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+b.held+amount <= b.granted && time.Now().Before(b.deadline) {
		b.held += amount
		b.reserves++
		return nil
	}
	if err := b.grant(ctx, amount); err != nil {
		return err
	}
	b.held += amount
	b.reserves++
	return nil
}

// Settle returns a reservation: what was charged is used; what was not is
// free again. A result that may or may not be recorded stays held for
// leaseGrace (limbo): then it is in the results or never will be.
func (b *budget) Settle(amount, charged engine.Money, recorded bool) {
	if !recorded {
		b.mu.Lock()
		b.limbo = append(b.limbo, limboEntry{amount, time.Now()})
		b.mu.Unlock()
		return
	}
	b.mu.Lock()
	b.held -= amount
	b.used += charged
	scarce := b.scarce
	b.mu.Unlock()
	if scarce && charged > 0 {
		// Near the limit the other nodes should not count this twice
		// (in the results and in the lease) for long: report at once.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := b.report(ctx); err != nil {
			b.b.s.logger.Warn("pgstore: reporting a budget's use", "account", b.account, "error", err)
		}
		cancel()
	}
}

// grant asks the database for a new lease of the account's budget that
// covers at least price beyond what the node holds: up to leaseSize
// lookups at price (64, or a second of the account's lookups on this node
// when more), at most half of what is left. It returns a *LimitError when
// not even price is left. b.mu is held.
func (b *budget) grant(ctx context.Context, price engine.Money) error {
	start := time.Now()
	want := price * leaseSize(b.reserves, start.Sub(b.lastGrant))
	b.reserves, b.lastGrant = 0, start
	b.dropLimbo(start)
	b.b.grants.Add(1)
	var granted engine.Money
	var limitErr *engine.LimitError
	err := pgx.BeginFunc(ctx, b.b.s.pool, func(tx pgx.Tx) error {
		// One grant of an account at a time, across nodes.
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('numen balance ' || $1, 0))`, b.account); err != nil {
			return err
		}
		var nowMs int64
		if err := tx.QueryRow(ctx, `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint`).Scan(&nowMs); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM balance_leases WHERE account = $1 AND expires_ms < $2`, b.account, nowMs-b.b.grace.Milliseconds()); err != nil {
			return err
		}
		// Read after the lock: a result recorded from now on comes from a
		// reservation within some node's lease, counted in others or
		// b.held.
		avail, limit, err := b.available(ctx, tx, nowMs)
		if err != nil {
			return err
		}
		// Half of what is left at most (in whole lookups at price), so
		// that near the limit another node still finds some: the leases
		// shrink as the budget does.
		granted = min(want, max(avail/2/price*price, price))
		if avail < price {
			// Not enough: give back all but what is held, so that other
			// nodes may use it, and refuse.
			granted = 0
			limitErr = &engine.LimitError{Limit: limit, Price: price, Available: max(avail, 0)}
		}
		_, err = tx.Exec(ctx, `INSERT INTO balance_leases (account, node, granted, used, expires_ms) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (account, node) DO UPDATE SET granted = excluded.granted, used = excluded.used, expires_ms = excluded.expires_ms`,
			b.account, b.b.node, int64(b.used+b.held+granted), int64(b.used), nowMs+b.b.ttl.Milliseconds())
		return err
	})
	if err != nil {
		return fmt.Errorf("pgstore: %s: the budget of %s: %w", b.b.s.name, b.account, err)
	}
	b.granted = b.used + b.held + granted
	b.reported = b.used
	b.scarce = granted < want
	// The lease ends by this node's clock no later than by the
	// database's: start was taken before the database's now.
	b.deadline = start.Add(b.b.ttl)
	if limitErr != nil {
		b.returnsN.Add(1)
		return limitErr
	}
	b.grantsN.Add(1)
	return nil
}

// Report writes what the node used of its leases since their grants (or
// its last report) to the database, so that other nodes stop counting it
// as held (it is in the results now). The store reports every
// leaseReport; a node that dies unreported is counted as holding its
// leases until they end and their grace has passed. It is one UPDATE per
// account whose use changed, never one per lookup.
func (bs *Budgets) Report(ctx context.Context) error {
	bs.mu.Lock()
	accounts := make([]*budget, 0, len(bs.accounts))
	for _, b := range bs.accounts {
		accounts = append(accounts, b)
	}
	bs.mu.Unlock()
	var errs []error
	for _, b := range accounts {
		errs = append(errs, b.report(ctx))
	}
	return errors.Join(errs...)
}

// report is Report for one account.
func (b *budget) report(ctx context.Context) error {
	b.mu.Lock()
	used, reported := b.used, b.reported
	b.mu.Unlock()
	if used == reported {
		return nil
	}
	// Only ever upwards: used counts results already recorded, so another
	// node that reads the lease after the results counts nothing twice
	// and misses nothing.
	_, err := b.b.s.pool.Exec(ctx, `UPDATE balance_leases SET used = $3 WHERE account = $1 AND node = $2 AND used < $3`, b.account, b.b.node, int64(used))
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.reported = max(b.reported, used)
	b.mu.Unlock()
	return nil
}

// reportEvery runs Report every leaseReport until stop is closed.
func (bs *Budgets) reportEvery(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(leaseReport)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), leaseReport)
			if err := bs.Report(ctx); err != nil {
				bs.s.logger.Warn("pgstore: reporting the budgets' use", "error", err)
			}
			cancel()
		}
	}
}

// querier is a pool or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// available returns what this node may still spend of the account (at
// the database's time nowMs) and the limit that bounds it: the limit, less
// what the results say was spent, less what the leases of other nodes
// hold (but those that ended leaseGrace ago), less what this node holds
// (its reservations under way). The leases are read before the results,
// so that a lease's use reported in between is counted twice, never
// missed. b.mu is held.
func (b *budget) available(ctx context.Context, q querier, nowMs int64) (engine.Money, string, error) {
	var others, topups int64
	err := q.QueryRow(ctx, `SELECT
		(SELECT coalesce(sum(granted - used), 0) FROM balance_leases WHERE account = $1 AND node <> $2 AND expires_ms >= $3)::bigint,
		(SELECT coalesce(sum(amount), 0) FROM balance_topups WHERE account = $1)::bigint`,
		b.account, b.b.node, nowMs-b.b.grace.Milliseconds()).Scan(&others, &topups)
	if err != nil {
		return 0, "", err
	}
	month, all, err := b.b.s.spending(ctx, b.account, time.Now())
	if err != nil {
		return 0, "", err
	}
	avail := engine.Money(1<<62) - b.held
	limit := ""
	if c := b.limits.MonthlyCap; c != nil {
		avail, limit = *c-month-engine.Money(others)-b.held, "cap"
	}
	if b.limits.Prepaid {
		if a := engine.Money(topups-others) - all - b.held; a < avail || limit == "" {
			avail, limit = a, "balance"
		}
	}
	return avail, limit, nil
}

// Check reports whether amount fits what the account's limits allow now
// (available), holding nothing.
func (b *budget) Check(ctx context.Context, amount engine.Money) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var nowMs int64
	if err := b.b.s.pool.QueryRow(ctx, `SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint`).Scan(&nowMs); err != nil {
		return fmt.Errorf("pgstore: %s: the budget of %s: %w", b.b.s.name, b.account, err)
	}
	avail, limit, err := b.available(ctx, b.b.s.pool, nowMs)
	if err != nil {
		return fmt.Errorf("pgstore: %s: the budget of %s: %w", b.b.s.name, b.account, err)
	}
	if avail < amount {
		return &engine.LimitError{Limit: limit, Price: amount, Available: max(avail, 0)}
	}
	return nil
}

// leaseSize is the number of lookups a grant asks for: leaseLookups, or a
// second of the account's lookups on this node at the rate since the last
// grant (reserves in elapsed), at most leaseMaxLookups.
func leaseSize(reserves int64, elapsed time.Duration) engine.Money {
	n := leaseLookups
	if elapsed > 0 {
		perSecond := engine.Money(float64(reserves) / elapsed.Seconds())
		n = max(n, min(perSecond, leaseMaxLookups))
	}
	return n
}

// release gives back the leases of the node's accounts that hold nothing
// (on Close), so that other nodes need not wait for them to end.
func (bs *Budgets) release(ctx context.Context) error {
	close(bs.stop)
	<-bs.stopped
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var errs []error
	for _, b := range bs.accounts {
		b.mu.Lock()
		if b.held == 0 && b.granted > 0 {
			_, err := bs.s.pool.Exec(ctx, `DELETE FROM balance_leases WHERE account = $1 AND node = $2`, b.account, bs.node)
			errs = append(errs, err)
			if err == nil && b.granted > b.used {
				b.returnsN.Add(1)
			}
			b.granted, b.deadline = b.used, time.Time{}
		}
		b.mu.Unlock()
	}
	return errors.Join(errs...)
}

// Balance returns the balance, cap and this month's spending of an
// account with limits.
func (bs *Budgets) Balance(ctx context.Context, account string, limits engine.Limits) (store.Balance, error) {
	var topups, held int64
	err := bs.s.pool.QueryRow(ctx, `SELECT
		(SELECT coalesce(sum(amount), 0) FROM balance_topups WHERE account = $1)::bigint,
		(SELECT coalesce(sum(granted - used), 0) FROM balance_leases WHERE account = $1
			AND expires_ms >= (extract(epoch FROM clock_timestamp()) * 1000)::bigint - $2)::bigint`,
		account, bs.grace.Milliseconds()).Scan(&topups, &held)
	var month, all engine.Money
	if err == nil {
		month, all, err = bs.s.spending(ctx, account, time.Now())
	}
	if err != nil {
		return store.Balance{}, fmt.Errorf("pgstore: %s: the balance of %s: %w", bs.s.name, account, err)
	}
	out := store.Balance{MonthlyCap: limits.MonthlyCap, SpentThisMonth: month, Reserved: engine.Money(held)}
	if limits.Prepaid {
		b := engine.Money(topups) - all
		out.Balance = &b
	}
	return out, nil
}

// TopUp adds amount to an account's prepaid balance, once per id: a
// top-up repeated with its id (a config read again, a command run twice)
// adds nothing and reports added false; the same id with another amount
// is ErrTopUpReused.
func (bs *Budgets) TopUp(ctx context.Context, account, id string, amount engine.Money) (added bool, err error) {
	if id == "" || amount <= 0 {
		return false, fmt.Errorf("pgstore: top-up of %s: want an id and a positive amount", account)
	}
	tag, err := bs.s.pool.Exec(ctx, `INSERT INTO balance_topups (account, id, amount, created_ms)
		VALUES ($1, $2, $3, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) ON CONFLICT DO NOTHING`, account, id, int64(amount))
	if err != nil {
		return false, fmt.Errorf("pgstore: %s: top-up of %s: %w", bs.s.name, account, err)
	}
	if tag.RowsAffected() == 1 {
		return true, nil
	}
	var had int64
	if err := bs.s.pool.QueryRow(ctx, `SELECT amount FROM balance_topups WHERE account = $1 AND id = $2`, account, id).Scan(&had); err != nil {
		return false, fmt.Errorf("pgstore: %s: top-up of %s: %w", bs.s.name, account, err)
	}
	if engine.Money(had) != amount {
		return false, fmt.Errorf("pgstore: top-up %q of %s: %w (%s EUR, now %s EUR)", id, account, store.ErrTopUpReused, engine.Money(had), amount)
	}
	return false, nil
}
