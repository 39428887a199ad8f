package auth

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func sigOf(n int) (s [32]byte) {
	s[0], s[1], s[31] = byte(n), byte(n>>8), 1
	return s
}

func TestReplayMemory(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m := NewReplayMemory(30*time.Second, 4)
	now := time.Unix(1_700_000_000, 0)
	ts := now.Unix()

	require.NoError(t, m.ClaimSignature(ctx, "k", ts, sigOf(1), now))
	err := m.ClaimSignature(ctx, "k", ts, sigOf(1), now.Add(29*time.Second))
	require.True(t, IsReplayed(err), "%v", err)
	require.True(t, errors.Is(err, ErrUnauthorized))
	require.EqualError(t, err, MessageSignatureUsed)
	var ae *Error
	require.ErrorAs(t, err, &ae)
	require.Equal(t, ReasonReplayedSignature, ae.Reason)
	require.Equal(t, "replayed signature", ae.Reason.String())

	// Another timestamp, signature or key is another request.
	require.NoError(t, m.ClaimSignature(ctx, "k", ts+1, sigOf(1), now))
	require.NoError(t, m.ClaimSignature(ctx, "k", ts, sigOf(2), now))
	require.NoError(t, m.ClaimSignature(ctx, "other", ts, sigOf(1), now))

	// The bound: a fourth signature of "k" fits, a fifth is refused (not
	// forgotten) until the oldest second leaves the window.
	require.NoError(t, m.ClaimSignature(ctx, "k", ts+2, sigOf(3), now))
	err = m.ClaimSignature(ctx, "k", ts+3, sigOf(4), now.Add(10*time.Second))
	var full *ReplayMemoryFullError
	require.ErrorAs(t, err, &full)
	require.Equal(t, 21*time.Second, full.RetryAfter, "ts+30 is the last second the oldest is valid")
	require.Equal(t, 4, full.Limit)
	require.Contains(t, err.Error(), "retry after 21 s")
	require.True(t, IsReplayed(m.ClaimSignature(ctx, "k", ts, sigOf(1), now.Add(10*time.Second))), "a replay is still a replay when full")

	// Once the second of ts is out of the window, its signatures are
	// dropped: room again, and ts could not pass the timestamp check.
	later := now.Add(31 * time.Second)
	require.NoError(t, m.ClaimSignature(ctx, "k", ts+3, sigOf(4), later))
	require.True(t, IsReplayed(m.ClaimSignature(ctx, "k", ts+1, sigOf(1), later)), "ts+1 is still within the window")
}

func TestReplayMemoryConcurrent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m := NewReplayMemory(30*time.Second, 0)
	now := time.Unix(1_700_000_000, 0)
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				// Every goroutine presents the same 500 signatures, each
				// also under a key of its own.
				err := m.ClaimSignature(ctx, "shared", now.Unix(), sigOf(i%250+i/250), now)
				if err := m.ClaimSignature(ctx, string(rune('a'+g)), now.Unix(), sigOf(i), now.Add(time.Duration(i)*time.Millisecond)); err != nil {
					t.Error(err)
				}
				if err == nil {
					mu.Lock()
					accepted++
					mu.Unlock()
				} else if !IsReplayed(err) {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	require.Equal(t, 251, accepted, "each distinct signature accepted once")
}

// BenchmarkReplayMemory claims distinct signatures of one key at 2,000
// requests per second of timestamps, the memory full of a 61-second window
// of them (122,000 with the bound raised): what the replay check adds to a
// signed POST, and how often it allocates (a map's growth, amortised).
func BenchmarkReplayMemory(b *testing.B) {
	ctx := b.Context()
	m := NewReplayMemory(30*time.Second, 200_000)
	const perSecond = 2000
	start := time.Unix(1_700_000_000, 0)
	var sig [32]byte
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		now := start.Add(time.Duration(i/perSecond) * time.Second)
		sig[0], sig[1], sig[2], sig[3] = byte(i), byte(i>>8), byte(i>>16), byte(i>>24)
		if err := m.ClaimSignature(ctx, "k", now.Unix(), sig, now); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
