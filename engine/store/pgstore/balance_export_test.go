package pgstore

import "time"

// SetLeaseTiming sets how long the budgets' leases last and the grace
// after their end, for the stores a test opens after it.
func SetLeaseTiming(t interface{ Cleanup(func()) }, ttl, grace time.Duration) {
	oldTTL, oldGrace := leaseTTL, leaseGrace
	leaseTTL, leaseGrace = ttl, grace
	t.Cleanup(func() { leaseTTL, leaseGrace = oldTTL, oldGrace })
}

// Grants returns the number of grant transactions the budgets ran.
func (bs *Budgets) Grants() int64 { return bs.grants.Load() }
