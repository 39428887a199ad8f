package pgstore

import "time"

// SetIdleCheck sets how often the queue's idle check runs, for the stores
// a test opens after it.
func SetIdleCheck(t interface{ Cleanup(func()) }, d time.Duration) {
	old := idleCheck
	idleCheck = d
	t.Cleanup(func() { idleCheck = old })
}

// QueueWorking reports whether the working River client runs.
func (s *Store) QueueWorking() bool { return s.Switch().Running() }

// Migration returns the SQL of schema migration v (from 1).
func Migration(v int) string { return migrations[v-1] }
