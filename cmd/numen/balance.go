package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/account"
	"github.com/numenhq/numen/engine/httpapi"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/stores"
)

// balanceConfig is an account's "balance" key: its spending limits and the
// top-ups of its prepaid balance.
//
//	"balance": {"prepaid": true, "monthly_cap": "100.00",
//	            "top_ups": [{"id": "invoice-2026-11-07", "amount": "50.00"}]}
//
// Each top-up is added once, by its id, however often the config is read;
// numen balance top-up adds one without editing the config.
type balanceConfig struct {
	Prepaid    bool          `json:"prepaid"`
	MonthlyCap *engine.Money `json:"monthly_cap"`
	TopUps     []topUpConfig `json:"top_ups"`
}

type topUpConfig struct {
	ID     string       `json:"id"`
	Amount engine.Money `json:"amount"`
}

// balanceLeasesConfig is the top-level "balance_leases" key: how long a
// node's lease of an account's budget lasts on PostgreSQL, and the grace
// after its end during which the other nodes still count it
// (stores.WithLeases). A node killed with -9 makes the others refuse
// early for up to duration + grace. Every node of a database must have
// the same values.
//
//	"balance_leases": {"duration": "30s", "grace": "2m"}
type balanceLeasesConfig struct {
	Duration duration `json:"duration"`
	Grace    duration `json:"grace"`
}

// Bounds of balance_leases.
const (
	minLeaseDuration = time.Second
	maxLeaseDuration = 10 * time.Minute
	maxLeaseGrace    = time.Hour
)

// check reports the problems of the key: a duration of 1 s to 10 min; a
// grace longer than any lookup may take from its reservation to its
// recording (the request timeout, and the backend timeout of a bulk
// lookup), at most an hour.
func (lc *balanceLeasesConfig) check(requestTimeout, backendTimeout time.Duration, bad func(string, ...any)) {
	if lc == nil {
		return
	}
	if d := time.Duration(lc.Duration); d != 0 && (d < minLeaseDuration || d > maxLeaseDuration) {
		bad("balance_leases.duration: %v: want %v to %v (default %v)", d, minLeaseDuration, maxLeaseDuration, stores.DefaultLeaseDuration)
	}
	if g := time.Duration(lc.Grace); g != 0 {
		floor := max(requestTimeout, backendTimeout)
		switch {
		case g <= floor:
			bad("balance_leases.grace: %v: want more than the longest a lookup takes (request_timeout and backend_timeout: %v), so that a killed node's lookups are recorded within it", g, floor)
		case g > maxLeaseGrace:
			bad("balance_leases.grace: %v: want at most %v (default %v)", g, maxLeaseGrace, stores.DefaultLeaseGrace)
		}
	}
}

// options returns the store options of the key.
func (lc *balanceLeasesConfig) options() []stores.Option {
	if lc == nil {
		return nil
	}
	return []stores.Option{stores.WithLeases(time.Duration(lc.Duration), time.Duration(lc.Grace))}
}

// limits returns the account's limits (none without the key).
func (bc *balanceConfig) limits() engine.Limits {
	if bc == nil {
		return engine.Limits{}
	}
	return engine.Limits{Prepaid: bc.Prepaid, MonthlyCap: bc.MonthlyCap}
}

// check returns the problems of the key.
func (bc *balanceConfig) check() error {
	if bc == nil {
		return nil
	}
	var errs []error
	if len(bc.TopUps) > 0 && !bc.Prepaid {
		errs = append(errs, errors.New(`top_ups: the account is not prepaid (add "prepaid": true)`))
	}
	seen := map[string]bool{}
	for i, t := range bc.TopUps {
		switch {
		case t.ID == "":
			errs = append(errs, fmt.Errorf("top_ups[%d].id: is required (a top-up is added once per id)", i))
		case seen[t.ID]:
			errs = append(errs, fmt.Errorf("top_ups[%d].id: %q is given twice", i, t.ID))
		}
		seen[t.ID] = true
		if t.Amount <= 0 {
			errs = append(errs, fmt.Errorf("top_ups[%d].amount: must be more than 0", i))
		}
	}
	return errors.Join(errs...)
}

// balanceStore is a store that keeps balances and spending limits
// (pgstore.Store across nodes, sqlitestore.Store in one process).
type balanceStore interface {
	Balances() store.Balances
}

// applyBalances gives the accounts with a "balance" key their limits and
// the store's budget, and adds the config's top-ups (each once). It returns
// the store's balances for GET /balance, nil when the store keeps none
// (both stores do); an account with limits on such a store is an error.
// The budgets count their refusals in metrics (nil: not counted), which
// also watch what each limit leaves and the leases.
func applyBalances(ctx context.Context, db store.Database, metrics *httpapi.Metrics, acs []accountConfig, accounts []*account.Account) (store.Balances, error) {
	var balances store.Balances
	if bs, ok := db.(balanceStore); ok {
		balances = bs.Balances()
	}
	for i, ac := range acs {
		limits := ac.Balance.limits()
		if err := ac.Balance.check(); err != nil {
			return nil, fmt.Errorf("accounts[%d] (%s): balance: %w", i, ac.Key, err)
		}
		if limits.None() {
			continue
		}
		if balances == nil {
			return nil, fmt.Errorf("accounts[%d] (%s): balance: this store keeps no balances", i, ac.Key)
		}
		for _, t := range ac.Balance.TopUps {
			if _, err := balances.TopUp(ctx, ac.Key, t.ID, t.Amount); err != nil {
				return nil, fmt.Errorf("accounts[%d] (%s): balance: top_ups: %w", i, ac.Key, err)
			}
		}
		a := accounts[i]
		a.Limits = limits
		b := balances.Budget(a.Key, limits)
		if metrics != nil {
			b = metrics.CountBudget(a.Key, b)
		}
		a.Profile = a.Profile.WithBudget(b)
	}
	if metrics != nil {
		metrics.WatchBalances(balances, accounts)
	}
	return balances, nil
}

const balanceUsage = `Usage: numen balance [--database URL] [--config FILE] show KEY
       numen balance [--database URL] [--config FILE] top-up --id ID KEY AMOUNT

Shows or tops up the prepaid balance of an API key on the PostgreSQL
database that the sidecars share (balances and spending limits are kept
there; an account's limits are its "balance" key in the config).

  show     prints the balance, the monthly cap (the config's, or --cap),
           this month's spending and what lookups under way hold
  top-up   adds AMOUNT (EUR, such as 50 or 12.50) to the balance, once per
           --id: run again with the same id, it adds nothing

  --database  the PostgreSQL URL (default: the config's database or
              database_env, else $NUMEN_DATABASE)
  --config    the sidecar's config file: KEY's limits (its "balance" key)
              and the database; KEY must be one of its accounts
  --id        the top-up's id, such as an invoice number (required)
  --cap       show: the account's monthly cap, to print beside its spending
              (default: the config's)
  --prepaid   show: print the balance (default: the config's, else true)

Exit status 0 on success, 1 for errors, 2 for usage errors.
`

func (c *cli) balance(args []string) int {
	fs := newFlagSet("balance")
	database := fs.String("database", os.Getenv("NUMEN_DATABASE"), "")
	configFile := fs.String("config", "", "")
	id := fs.String("id", "", "")
	capFlag := fs.String("cap", "", "")
	prepaid := fs.Bool("prepaid", true, "")
	rest, code, ok := c.parseInterleaved(fs, "balance", balanceUsage, args)
	if !ok {
		return code
	}
	if len(rest) == 0 {
		return c.usageError("balance", "want show or top-up")
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var limits engine.Limits
	limits.Prepaid = *prepaid
	sqliteConfig := "" // the data directory of a config without a database
	if *configFile != "" && len(rest) >= 2 {
		cfg, err := loadConfig(*configFile)
		if err != nil {
			fmt.Fprintf(c.stderr, "numen balance: %v\n", err)
			return exitError
		}
		i := slices.IndexFunc(cfg.Accounts, func(a accountConfig) bool { return a.Key == rest[1] })
		if i < 0 {
			fmt.Fprintf(c.stderr, "numen balance: %s has no account %q\n", *configFile, rest[1])
			return exitError
		}
		if !given["prepaid"] {
			limits = cfg.Accounts[i].Balance.limits()
		} else {
			limits.MonthlyCap = cfg.Accounts[i].Balance.limits().MonthlyCap
		}
		if !given["database"] {
			switch {
			case cfg.Database != "":
				*database = cfg.Database
			case cfg.DatabaseEnv != "":
				*database = os.Getenv(cfg.DatabaseEnv)
			default:
				sqliteConfig = cfg.Data
			}
		}
	}
	if !stores.IsURL(*database) && sqliteConfig != "" {
		// The running server holds its SQLite database, which keeps its
		// spending; it answers GET /balance.
		fmt.Fprintf(c.stderr, "numen balance: %s keeps its results in SQLite (%s), which its running server holds: ask the server (numen call GET /balance with the account's key); numen balance works on PostgreSQL (database, or --database URL), and on SQLite the top-ups are the config's\n", *configFile, sqliteConfig)
		return exitError
	}
	if !stores.IsURL(*database) {
		return c.usageError("balance", "--database (or the config's database, or $NUMEN_DATABASE) must be a postgres:// URL")
	}
	if *capFlag != "" {
		m, err := engine.ParseMoney(*capFlag)
		if err != nil {
			return c.usageError("balance", "--cap: %v", err)
		}
		limits.MonthlyCap = &m
	}
	var amount engine.Money
	switch rest[0] {
	case "show":
		if len(rest) != 2 {
			return c.usageError("balance", "want show KEY")
		}
	case "top-up":
		if len(rest) != 3 {
			return c.usageError("balance", "want top-up --id ID KEY AMOUNT")
		}
		if *id == "" {
			return c.usageError("balance", "top-up: --id is required (a top-up is added once per id)")
		}
		if strings.HasPrefix(rest[2], "-") {
			return c.usageError("balance", "top-up: AMOUNT %q: want more than 0 EUR, such as 50 or 12.50", rest[2])
		}
		var err error
		if amount, err = engine.ParseMoney(rest[2]); err != nil {
			return c.usageError("balance", "top-up: %v (EUR, such as 50 or 12.50)", err)
		}
		if amount <= 0 {
			return c.usageError("balance", "top-up: AMOUNT %q: want more than 0 EUR, such as 50 or 12.50", rest[2])
		}
	default:
		return c.usageError("balance", "unknown subcommand %q; want show or top-up", rest[0])
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := stores.Open(ctx, *database)
	if err != nil {
		fmt.Fprintf(c.stderr, "numen balance: %v\n", err)
		return exitError
	}
	defer db.Close()
	bs, ok := db.(balanceStore)
	if !ok {
		fmt.Fprintln(c.stderr, "numen balance: this store keeps no balances")
		return exitError
	}
	key := rest[1]
	if rest[0] == "top-up" {
		added, err := bs.Balances().TopUp(ctx, key, *id, amount)
		if err != nil {
			fmt.Fprintf(c.stderr, "numen balance: %v\n", err)
			return exitError
		}
		if added {
			fmt.Fprintf(c.stdout, "added %s EUR to %s (top-up %s)\n", amount, key, *id)
		} else {
			fmt.Fprintf(c.stdout, "top-up %s of %s was added before; nothing added\n", *id, key)
		}
		limits.Prepaid = true
	}
	b, err := bs.Balances().Balance(ctx, key, limits)
	if err != nil {
		fmt.Fprintf(c.stderr, "numen balance: %v\n", err)
		return exitError
	}
	if b.Balance != nil {
		fmt.Fprintf(c.stdout, "balance            %s EUR\n", b.Balance)
	}
	if b.MonthlyCap != nil {
		fmt.Fprintf(c.stdout, "monthly cap        %s EUR\n", b.MonthlyCap)
	}
	fmt.Fprintf(c.stdout, "spent this month   %s EUR\nreserved           %s EUR\n", b.SpentThisMonth, b.Reserved)
	return exitOK
}
