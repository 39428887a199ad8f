package sqlitestore

import (
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/core"
)

// Balances returns the store's balances and spending limits
// (core.LocalBalances): one process owns a SQLite store, so an account's
// spending is read from its reports once a month (and at start) and
// counted in memory, exact after a crash. Top-ups are kept in memory: the
// sidecar adds the config's at every start, and the config is their
// record (numen balance top-up needs the PostgreSQL store).
func (s *Store) Balances() store.Balances {
	s.balancesOnce.Do(func() {
		s.balances = &core.LocalBalances{Reports: s.Reports}
	})
	return s.balances
}
