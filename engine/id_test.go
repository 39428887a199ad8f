package engine

import (
	"testing"
	"time"
)

// TestIDEpoch checks the constant idEpoch against the time it stands for.
func TestIDEpoch(t *testing.T) {
	t.Parallel()
	if want := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(); idEpoch != want {
		t.Errorf("idEpoch = %d, want %d", idEpoch, want)
	}
}
