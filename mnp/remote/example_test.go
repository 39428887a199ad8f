package remote_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/engine/auth"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/mnp/remote"
	"github.com/numenhq/numen/numbering"
)

// provider starts a stand-in for a lookup provider on loopback: it checks
// every request's authentication with engine/auth, as a real server does,
// and answers with fixed bodies. skew moves its clock.
func provider(skew time.Duration) *httptest.Server {
	creds, err := auth.NewStaticCredentials(map[string][]string{"demo-key": {"demo-secret"}})
	if err != nil {
		log.Fatal(err)
	}
	verifier := auth.NewVerifier(creds)
	bodies := map[string]string{
		"POST /hlr-lookup": `{"id":"f94ef092cb53","msisdn":"+14156226819","connectivity_status":"CONNECTED",
			"mccmnc":"310260","mcc":"310","mnc":"260","is_ported":true,"ported_network_name":"T-Mobile US",
			"ported_country_code":"US","is_roaming":false,"processing_status":"COMPLETED","route":"IP1",
			"data_source":"LIVE_HLR","routing_instruction":"AUTO:IP1:SCORE","cost":"0.0100"}`,
		"GET /route":        `{"route":"IP1","confidence_level":"HIGH","mccmnc":"310260","origin":"SCORE"}`,
		"POST /hlr-lookups": `{"accepted":[{"id":"abcdefabcdef","msisdn":"+14156226819"}],"accepted_count":1,"rejected":[{"id":null,"msisdn":"+1"}],"rejected_count":1,"total_count":2,"cost":"0.0100","storage":"ASYNC-API-2026-01","route":"IP1","webhook_urls":["https://example.com/hook"]}`,
	}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now().Add(skew)
		rel, _ := auth.RelativePath(r.URL.Path, auth.BasePath)
		w.Header().Set("Content-Type", "application/json")
		if rel == "/time" {
			fmt.Fprintf(w, `{"time":%d}`, now.Unix())
			return
		}
		body, _ := io.ReadAll(r.Body)
		if _, err := verifier.Verify(r, rel, body, now); err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"errors":[%q]}`, err.Error())
			return
		}
		if rel == "/routes" {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"errors":["rate limit of 10 requests per second exceeded"]}`)
			return
		}
		b, ok := bodies[r.Method+" "+rel]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"errors":["unknown endpoint `+strconv.Quote(rel)+`"]}`)
			return
		}
		fmt.Fprint(w, b)
	}))
}

// A synchronous HLR lookup with the SDK. Digest authentication is the default.
func Example() {
	srv := provider(0)
	defer srv.Close()

	c, err := remote.New(srv.URL+"/api/v2", "demo-key", "demo-secret")
	if err != nil {
		log.Fatal(err)
	}
	res, err := c.HLRLookup(context.Background(), "+14156226819", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.ProcessingStatus, res.ConnectivityStatus, apiv2.Deref(res.MCCMNC), apiv2.Deref(res.PortedNetworkName))
	// Output: COMPLETED CONNECTED 310260 T-Mobile US
}

func ExampleClient_Route() {
	srv := provider(0)
	defer srv.Close()

	c, err := remote.New(srv.URL+"/api/v2", "demo-key", "demo-secret", remote.WithXBasic())
	if err != nil {
		log.Fatal(err)
	}
	d, err := c.Route(context.Background(), "+14156226819")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Route, d.ConfidenceLevel, d.Origin)
	// Output: IP1 HIGH SCORE
}

// A bulk submission with an idempotency key may be retried safely, so the
// client retries it after a 503 or a broken connection.
func ExampleClient_HLRLookups() {
	srv := provider(0)
	defer srv.Close()

	c, err := remote.New(srv.URL+"/api/v2", "demo-key", "demo-secret")
	if err != nil {
		log.Fatal(err)
	}
	rcpt, err := c.HLRLookups(context.Background(), []string{"+14156226819", "+1"},
		&remote.BulkOptions{IdempotencyKey: "batch-2026-01-15-0001"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rcpt.AcceptedCount, "accepted,", rcpt.RejectedCount, "rejected, cost", rcpt.Cost)
	// Output: 1 accepted, 1 rejected, cost 0.0100
}

// The client as an HLR backend of a Numen engine: the engine hands it a
// classified number and gets an mnp.HLRAnswer back.
func ExampleClient_HLR() {
	srv := provider(0)
	defer srv.Close()

	var backend mnp.HLRBackend
	c, err := remote.New(srv.URL+"/api/v2", "demo-key", "demo-secret",
		remote.WithUpstreamRoute("IP1"), remote.WithName("provider-a"))
	if err != nil {
		log.Fatal(err)
	}
	backend = c

	plan, err := numbering.Load()
	if err != nil {
		log.Fatal(err)
	}
	n, err := plan.Parse("+1 415 622 6819")
	if err != nil {
		log.Fatal(err)
	}
	a, err := backend.HLR(context.Background(), mnp.Query{Number: n, Region: "US"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Status, a.Connectivity, a.MCCMNC, a.Ported, a.PortedTo.Name, a.Roaming)
	// Output: COMPLETED CONNECTED 310260 true T-Mobile US false
}

// A status other than 200 is an *APIError; branch on the sentinels.
func ExampleAPIError() {
	srv := provider(0)
	defer srv.Close()

	c, err := remote.New(srv.URL+"/api/v2", "demo-key", "demo-secret", remote.WithMaxRetryAfter(time.Second))
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.Routes(context.Background())
	var apiErr *remote.APIError
	if errors.Is(err, remote.ErrRateLimited) && errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Errors[0], "- retry after", apiErr.RetryAfter)
	}
	fmt.Println("another backend may answer:", mnp.Retryable(err))
	// Output:
	// 429 rate limit of 10 requests per second exceeded - retry after 30s
	// another backend may answer: true
}

// A client whose clock is off gets 401 with a stale timestamp; SyncClock
// fixes that.
func ExampleClient_SyncClock() {
	srv := provider(2 * time.Minute) // the server's clock is two minutes ahead
	defer srv.Close()

	c, err := remote.New(srv.URL+"/api/v2", "demo-key", "demo-secret")
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	_, err = c.HLRLookup(ctx, "+14156226819", nil)
	fmt.Println("stale:", errors.Is(err, remote.ErrStaleTimestamp))

	offset, err := c.SyncClock(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("offset:", offset.Round(time.Minute))
	_, err = c.HLRLookup(ctx, "+14156226819", nil)
	fmt.Println("error:", err)
	// Output:
	// stale: true
	// offset: 2m0s
	// error: <nil>
}
