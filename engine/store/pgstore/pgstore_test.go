package pgstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/engine/store/storetest"
)

func open(t *testing.T) *pgstore.Store {
	t.Helper()
	s, err := pgstore.Open(context.Background(), pgtest.Database(t), pgstore.Options{})
	require.NoError(t, err)
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return open(t) })
}

func TestQueueConformance(t *testing.T) {
	storetest.RunQueue(t, func(t *testing.T) store.Database { return open(t) })
}
