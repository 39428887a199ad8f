package storetest

import (
	"context"
	"fmt"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/store"
	"github.com/numenhq/numen/engine/store/internal/core"
)

// skewCountries are the countries of Skewed's report with their share of
// it (per 100,000 results) and their networks, the first the most used.
var skewCountries = []struct {
	code, name, prefix string
	per100k            int
	networks           []string // MCCMNC=name
}{
	{"DE", "Germany", "+4915", 35000, []string{"26201=Telekom", "26202=Vodafone", "26203=O2"}},
	{"GB", "United Kingdom", "+447", 20000, []string{"23410=O2", "23415=Vodafone", "23430=EE"}},
	{"FR", "France", "+336", 12000, []string{"20801=Orange", "20810=SFR", "20820=Bouygues"}},
	{"ES", "Spain", "+346", 8000, []string{"21401=Vodafone", "21403=Orange", "21407=Movistar"}},
	{"IT", "Italy", "+393", 7000, []string{"22201=TIM", "22210=Vodafone", "22288=WindTre"}},
	{"NL", "Netherlands", "+316", 5000, []string{"20408=KPN", "20416=Odido", "20404=Vodafone"}},
	{"PL", "Poland", "+485", 4000, []string{"26001=Plus", "26002=T-Mobile", "26003=Orange"}},
	{"US", "United States", "+1201", 3000, nil}, // no MCCMNC: ported and pooled ranges
	{"NG", "Nigeria", "+234803", 2000, []string{"62130=MTN", "62120=Airtel"}},
	{"ZA", "South Africa", "+2782", 1500, []string{"65501=Vodacom", "65510=MTN"}},
	{"SA", "Saudi Arabia", "+96650", 1000, []string{"42001=STC"}},
	{"BR", "Brazil", "+5511", 1000, []string{"72405=Claro"}},
	{"IN", "India", "+9198", 440, []string{"40410=Airtel Delhi"}},
	{"RU", "Russia", "+7916", 40, []string{"25001=MTS"}},
	{"MT", "Malta", "+35699", 10, []string{"27801=Epic"}},
	{"", "", "+999", 10, nil}, // invalid numbers: FAILED, without a country
}

// SkewedCount returns how many of the first n results of Skewed's report
// have the country code (a country's share is exact over every 100,000
// results).
func SkewedCount(code string, n int) int {
	c := 0
	for i := range n {
		if skewCountries[skewCountry(i)].code == code {
			c++
		}
	}
	return c
}

// skewCountry is the country of the i-th result: the countries' shares
// laid out over each block of 100,000 results, interleaved by a
// multiplicative permutation so that every country occurs all along.
func skewCountry(i int) int {
	slot := (i % 100_000) * 7919 % 100_000 // 7919 is prime to 100,000
	for k, c := range skewCountries {
		if slot < c.per100k {
			return k
		}
		slot -= c.per100k
	}
	return len(skewCountries) - 1
}

// Skewed returns the i-th result of a large NT report of account under
// storage whose values are as uneven as a real report's: Germany 35%, the
// United Kingdom 20%, then smaller countries down to Malta (0.01%) and
// invalid numbers (0.01%, FAILED); in each country its first network
// takes 60%, the second 30%, the third 10%; number types mostly MOBILE.
// Results are 2.5 s apart (a million span 29 days), from Base.
func Skewed(account, storage string, i int) engine.Record {
	c := skewCountries[skewCountry(i)]
	r := NewRecord(account, storage, engine.ProductNT, fmt.Sprintf("%s-%011d", account, i), Base.Add(time.Duration(i)*2500*time.Millisecond), 0)
	res := r.Result.(*apiv2.NTResult)
	res.Number = fmt.Sprintf("%s%07d", c.prefix, (i*104729)%10_000_000)
	res.OriginalCountryCode, res.OriginalCountryName = opt(c.code), opt(c.name)
	res.MCCMNC, res.OriginalNetworkName, res.MCC, res.MNC = nil, nil, nil, nil
	if n := len(c.networks); n > 0 {
		k := 0
		switch v := i % 10; {
		case v >= 9 && n > 2:
			k = 2
		case v >= 6 && n > 1:
			k = 1
		}
		code, name := c.networks[k][:5], c.networks[k][6:]
		res.MCCMNC, res.OriginalNetworkName = &code, &name
	}
	res.NumberType = []string{"MOBILE", "MOBILE", "MOBILE", "MOBILE", "MOBILE", "MOBILE", "MOBILE", "MOBILE", "LANDLINE", "VOIP"}[i%10]
	if c.code == "" {
		res.QueryStatus, res.NumberType, res.IsValid = "FAILED", "UNKNOWN", new(false)
	}
	return r
}

// PageQueries are the queries BenchPages times: what the report page asks
// for, on a report of Skewed's results, with the share of the report each
// selects.
func PageQueries() []struct {
	Name  string
	Query store.Query
} {
	w := func(f store.Field, v string) []store.Cond { return []store.Cond{{Field: f, Value: v}} }
	return []struct {
		Name  string
		Query store.Query
	}{
		{"time", store.Query{Desc: true}},
		{"number", store.Query{Sort: store.SortNumber}},
		{"country=DE(35%)", store.Query{Where: w(store.FieldCountry, "DE"), Desc: true}},
		{"country=US(3%)", store.Query{Where: w(store.FieldCountry, "US"), Desc: true}},
		{"country=MT(0.01%)", store.Query{Where: w(store.FieldCountry, "MT"), Desc: true}},
		{"network=25001(0.04%)", store.Query{Where: w(store.FieldNetwork, "25001"), Desc: true}},
		{"status=FAILED(0.01%)", store.Query{Where: w(store.FieldStatus, "FAILED"), Desc: true}},
		{"country=GB,type=LANDLINE(2%)", store.Query{Where: []store.Cond{{Field: store.FieldCountry, Value: "GB"}, {Field: store.FieldNumberType, Value: "LANDLINE"}}, Desc: true}},
		{"number=+4915(35%)", store.Query{NumberPrefix: "+4915", Desc: true}},
		{"number=+35699(0.01%)", store.Query{NumberPrefix: "+35699", Desc: true}},
		{"number=+4915,sort=number", store.Query{NumberPrefix: "+4915", Sort: store.SortNumber}},
		{"country=DE,asc", store.Query{Where: w(store.FieldCountry, "DE")}},
	}
}

// BenchPages times what a report page reads of account's report storage
// (filled with Skewed's results): the first page of 50 results of each of
// PageQueries, a page deep in the report (after the cursor of its middle
// result), and the report's summary (its charts).
func BenchPages(b *testing.B, r store.Reader, account, storage string, n int) {
	ctx := context.Background()
	for _, pq := range PageQueries() {
		b.Run("first/"+pq.Name, func(b *testing.B) {
			for b.Loop() {
				page, err := r.Query(ctx, account, storage, &pq.Query, "", 50)
				if err != nil {
					b.Fatal(err)
				}
				if len(page.Rows) == 0 {
					b.Fatal("no results")
				}
			}
		})
	}
	// The count, cost and cost per day of each filtered view (Totals,
	// without a limit): what a filtered view costs to count.
	for _, pq := range PageQueries() {
		if !pq.Query.Filtered() {
			continue
		}
		b.Run("totals/"+pq.Name, func(b *testing.B) {
			for b.Loop() {
				t, err := r.Totals(ctx, account, storage, &pq.Query, 0)
				if err != nil || t.Count == 0 {
					b.Fatal(t.Count, err)
				}
			}
		})
		// As the report page counts: at most 2,000.
		b.Run("totals2k/"+pq.Name, func(b *testing.B) {
			for b.Loop() {
				t, err := r.Totals(ctx, account, storage, &pq.Query, 2_000)
				if err != nil || t.Count == 0 && !t.More {
					b.Fatal(t.Count, err)
				}
			}
		})
	}
	b.Run("deep/time", func(b *testing.B) {
		q := store.Query{Desc: true}
		mid := Skewed(account, storage, n/2)
		after := core.NextCursor(&q, "", mid.Time.UnixMilli(), mid.ID)
		for b.Loop() {
			page, err := r.Query(ctx, account, storage, &q, after, 50)
			if err != nil || len(page.Rows) != 50 {
				b.Fatal(len(page.Rows), err)
			}
		}
	})
	// A download of the filtered view (350,000 results in CSV): its time,
	// and the live heap sampled every MiB written, which stays flat
	// whatever the size of the download.
	b.Run("download/country=DE(35%)", func(b *testing.B) {
		q := store.Query{Where: []store.Cond{{Field: store.FieldCountry, Value: "DE"}}, Desc: true}
		var peak uint64
		for b.Loop() {
			w := &heapWatch{}
			if err := r.Export(ctx, account, storage, &q, store.CSV, w); err != nil {
				b.Fatal(err)
			}
			peak = max(peak, w.peak)
		}
		b.ReportMetric(float64(peak)/(1<<20), "MiB-heap-peak")
	})
	b.Run("summary", func(b *testing.B) {
		for b.Loop() {
			s, err := r.Summary(ctx, account, storage)
			if err != nil || s.Count != int64(n) {
				b.Fatal(s.Count, err)
			}
		}
	})
}

// heapWatch discards what is written to it and samples the live heap
// (runtime/metrics) every MiB.
type heapWatch struct {
	n, next uint64
	peak    uint64
}

func (w *heapWatch) Write(p []byte) (int, error) {
	w.n += uint64(len(p))
	if w.n >= w.next {
		w.next = w.n + 1<<20
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(s)
		w.peak = max(w.peak, s[0].Value.Uint64())
	}
	return len(p), nil
}
