package engine

import (
	"context"
	"time"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/routing"
)

// Record is one result on its way to the sink: what the store appends to
// the account's report and the webhook batcher delivers.
type Record struct {
	Account string    // API key
	Storage string    // report name, with month
	ID      string    // lookup id
	Time    time.Time // completion time
	Cost    Money     // what the lookup was charged
	// Result is the result object: *apiv2.HLRResult, *apiv2.MNPResult or
	// *apiv2.NTResult (apiv2.Result admits no other type); its type is
	// the record's product. The sink must not modify it.
	Result apiv2.Result
	// JSON is Result encoded as the API writes it (json.Marshal, without
	// a trailing newline). The engine sets it on every record it sends
	// to a sink, and a lookup's Answer carries the same bytes, so that a
	// result is encoded once; a record built elsewhere may leave it nil
	// (package store then encodes Result). The sink must not modify it.
	JSON []byte
	// Reserved is what the lookup holds of its account's budget, left
	// for the recorder to settle (SettleRecords) by an engine made with
	// WithSink; 0 otherwise (the engine settled it).
	Reserved Money
}

// Product returns the product of the record's result: HLR, MNP or NT
// ("" without a result).
func (r Record) Product() Product {
	if r.Result == nil {
		return ""
	}
	return Product(r.Result.Product())
}

// Sink receives every result before the engine returns it. A Sink that
// returns an error vetoes the result: the lookup fails with ErrNotRecorded
// rather than answer with a result that was not recorded. Implementations
// are safe for concurrent use.
type Sink interface {
	Record(ctx context.Context, r Record) error
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(ctx context.Context, r Record) error

// Record calls f.
func (f SinkFunc) Record(ctx context.Context, r Record) error { return f(ctx, r) }

// Product is what a lookup looks up: live subscriber state (HLR), the
// portability database (MNP) or the numbering plan (NT). It is routing's
// type, named here so that sinks and queues need not import routing.
type Product = routing.Product

// Products.
const (
	ProductHLR = routing.HLR
	ProductMNP = routing.MNP
	ProductNT  = routing.NT
)
