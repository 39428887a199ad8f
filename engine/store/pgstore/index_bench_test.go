package pgstore_test

import (
	"context"
	"testing"

	"github.com/numenhq/numen/engine/store/pgstore"
	"github.com/numenhq/numen/engine/store/pgstore/pgtest"
	"github.com/numenhq/numen/engine/store/storetest"
)

// BenchmarkSummary times what a report's page reads besides its rows, the
// report's summary and the account's list of reports, in a report of
// 20,000 results (storetest.Varied) beside another account's 2,000.
//
//	go test -run '^$' -bench BenchmarkSummary -count 6 ./engine/store/pgstore
func BenchmarkSummary(b *testing.B) {
	ctx := context.Background()
	s, err := pgstore.Open(ctx, pgtest.Database(b))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const acct, name = "acct-big", "campaign-2026-11"
	rs := storetest.Varied(acct, name, 20_000)
	for i := 0; i < len(rs); i += 1000 {
		if err := s.RecordAll(ctx, rs[i:i+1000]); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.RecordAll(ctx, storetest.Varied("acct-other", name, 2000)); err != nil {
		b.Fatal(err)
	}
	b.Run("Summary", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Summary(ctx, acct, name); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Reports", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Reports(ctx, acct); err != nil {
				b.Fatal(err)
			}
		}
	})
}
