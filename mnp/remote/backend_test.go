package remote

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/apiv2"
	"github.com/numenhq/numen/mnp"
	"github.com/numenhq/numen/numbering"
)

var sharedPlan = sync.OnceValues(func() (*numbering.Plan, error) { return numbering.Load() })

func mustNumber(t testing.TB, s string) numbering.Number {
	t.Helper()
	plan, err := sharedPlan()
	require.NoError(t, err)
	n, err := plan.Parse(s)
	require.NoError(t, err)
	return n
}

// hlrWith returns the canned HLR result changed by f.
func hlrWith(f func(r *apiv2.HLRResult)) apiv2.HLRResult {
	r := cannedHLR
	f(&r)
	return r
}

func mnpWith(f func(r *apiv2.MNPResult)) apiv2.MNPResult {
	r := cannedMNP
	f(&r)
	return r
}

func TestHLRAnswerMapping(t *testing.T) {
	t.Parallel()
	masked := func(a mnp.HLRAnswer) mnp.HLRAnswer {
		a.IMSI, a.MSIN, a.MSC = "***************", "**********", "************"
		return a
	}
	tests := []struct {
		name    string
		res     apiv2.HLRResult
		want    mnp.HLRAnswer
		wantErr string
	}{
		{
			name: "ported, at home",
			res:  cannedHLR,
			want: masked(mnp.HLRAnswer{
				Status: mnp.Completed, Connectivity: mnp.Connected, MCCMNC: "310260",
				Ported: mnp.True, PortedTo: mnp.NetworkRef{MCCMNC: "310260", Name: "T-Mobile US", Region: "US"},
				Roaming: mnp.False,
			}),
		},
		{
			name: "ported and roaming",
			res: hlrWith(func(r *apiv2.HLRResult) {
				r.MCCMNC, r.MCC, r.MNC = apiv2.String("23415"), apiv2.String("234"), apiv2.String("15")
				r.IsRoaming = apiv2.Bool(true)
				r.RoamingNetworkName, r.RoamingCountryCode = apiv2.String("Vodafone UK"), apiv2.String("GB")
			}),
			want: masked(mnp.HLRAnswer{
				Status: mnp.Completed, Connectivity: mnp.Connected, MCCMNC: "23415",
				Ported: mnp.True, PortedTo: mnp.NetworkRef{Name: "T-Mobile US", Region: "US"},
				Roaming: mnp.True, RoamingOn: mnp.NetworkRef{MCCMNC: "23415", Name: "Vodafone UK", Region: "GB"},
			}),
		},
		{
			name: "not ported, roaming",
			res: hlrWith(func(r *apiv2.HLRResult) {
				r.MCCMNC = apiv2.String("20801")
				r.IsPorted, r.PortedNetworkName, r.PortedCountryCode = apiv2.Bool(false), nil, nil
				r.IsRoaming, r.RoamingNetworkName, r.RoamingCountryCode = apiv2.Bool(true), apiv2.String("Orange"), apiv2.String("fr")
			}),
			want: masked(mnp.HLRAnswer{
				Status: mnp.Completed, Connectivity: mnp.Connected, MCCMNC: "20801",
				Ported: mnp.False, Roaming: mnp.True,
				RoamingOn: mnp.NetworkRef{MCCMNC: "20801", Name: "Orange", Region: "FR"},
			}),
		},
		{
			name: "porting and roaming unknown",
			res: hlrWith(func(r *apiv2.HLRResult) {
				r.IsPorted, r.IsRoaming = nil, nil
				r.IMSI, r.MSIN, r.MSC = nil, nil, nil
			}),
			want: mnp.HLRAnswer{Status: mnp.Completed, Connectivity: mnp.Connected, MCCMNC: "310260"},
		},
		{
			name: "ported, roaming unknown: the serving network is taken as the ported-to one",
			res:  hlrWith(func(r *apiv2.HLRResult) { r.IsRoaming = nil }),
			want: masked(mnp.HLRAnswer{
				Status: mnp.Completed, Connectivity: mnp.Connected, MCCMNC: "310260",
				Ported: mnp.True, PortedTo: mnp.NetworkRef{MCCMNC: "310260", Name: "T-Mobile US", Region: "US"},
			}),
		},
		{
			name: "rejected with a Numen code",
			res: apiv2.HLRResult{
				ID: "x", MSISDN: "+14156226819", ConnectivityStatus: "UNDETERMINED", ProcessingStatus: "REJECTED",
				ErrorCode: apiv2.Int(int(mnp.CodeNetworkUnreachable)), ErrorDescription: apiv2.String(mnp.CodeNetworkUnreachable.Description()),
			},
			want: mnp.HLRAnswer{Status: mnp.Rejected, Code: mnp.CodeNetworkUnreachable, Connectivity: mnp.Undetermined},
		},
		{
			name: "failed with a code and no description",
			res:  apiv2.HLRResult{ProcessingStatus: "FAILED", ConnectivityStatus: "UNDETERMINED", ErrorCode: apiv2.Int(12)},
			want: mnp.HLRAnswer{Status: mnp.Failed, Code: mnp.CodeInternal},
		},
		{
			name: "absent subscriber",
			res: apiv2.HLRResult{
				ProcessingStatus: "COMPLETED", ConnectivityStatus: "ABSENT",
				ErrorCode: apiv2.Int(5), ErrorDescription: apiv2.String("Subscriber is absent (handset off or out of coverage)"),
			},
			want: mnp.HLRAnswer{Status: mnp.Completed, Code: mnp.CodeAbsentSubscriber, Connectivity: mnp.Absent},
		},
		{
			name: "a foreign provider's code outside the table",
			res:  apiv2.HLRResult{ProcessingStatus: "REJECTED", ConnectivityStatus: "UNDETERMINED", ErrorCode: apiv2.Int(191)},
			want: mnp.HLRAnswer{Status: mnp.Rejected, Code: mnp.CodeNone},
		},
		{
			name: "a foreign provider's code inside the table, with its own description",
			res: apiv2.HLRResult{
				ProcessingStatus: "COMPLETED", ConnectivityStatus: "INVALID_MSISDN",
				ErrorCode: apiv2.Int(4), ErrorDescription: apiv2.String("Teleservice not provisioned"),
			},
			want: mnp.HLRAnswer{Status: mnp.Completed, Code: mnp.CodeNone, Connectivity: mnp.InvalidMSISDN},
		},
		{
			name: "error_code 0",
			res:  apiv2.HLRResult{ProcessingStatus: "COMPLETED", ConnectivityStatus: "CONNECTED", ErrorCode: apiv2.Int(0)},
			want: mnp.HLRAnswer{Status: mnp.Completed, Connectivity: mnp.Connected},
		},
		{
			name: "lower-case statuses",
			res:  apiv2.HLRResult{ProcessingStatus: " completed", ConnectivityStatus: "connected "},
			want: mnp.HLRAnswer{Status: mnp.Completed, Connectivity: mnp.Connected},
		},
		{
			name: "unknown connectivity is undetermined",
			res:  apiv2.HLRResult{ProcessingStatus: "COMPLETED", ConnectivityStatus: "ONLINE"},
			want: mnp.HLRAnswer{Status: mnp.Completed, Connectivity: mnp.Undetermined},
		},
		{
			name: "mccmnc from mcc and mnc",
			res:  apiv2.HLRResult{ProcessingStatus: "COMPLETED", MCC: apiv2.String("262"), MNC: apiv2.String("01")},
			want: mnp.HLRAnswer{Status: mnp.Completed, MCCMNC: "26201"},
		},
		{
			name: "malformed mccmnc and country code dropped",
			res: apiv2.HLRResult{
				ProcessingStatus: "COMPLETED", MCCMNC: apiv2.String("26x01"), MCC: apiv2.String("262"), MNC: apiv2.String("01"),
				IsPorted: apiv2.Bool(true), PortedNetworkName: apiv2.String("O2"), PortedCountryCode: apiv2.String("DEU"),
			},
			want: mnp.HLRAnswer{Status: mnp.Completed, Ported: mnp.True, PortedTo: mnp.NetworkRef{Name: "O2"}},
		},
		{
			name: "00 prefix is the same number",
			res:  apiv2.HLRResult{MSISDN: "0014156226819", ProcessingStatus: "COMPLETED"},
			want: mnp.HLRAnswer{Status: mnp.Completed},
		},
		{
			name:    "unknown processing_status",
			res:     apiv2.HLRResult{ProcessingStatus: "DONE", ConnectivityStatus: "CONNECTED"},
			wantErr: `processing_status "DONE" is not COMPLETED, REJECTED or FAILED`,
		},
		{
			name:    "missing processing_status",
			res:     apiv2.HLRResult{ConnectivityStatus: "CONNECTED"},
			wantErr: `processing_status "" is not`,
		},
		{
			name:    "another number",
			res:     hlrWith(func(r *apiv2.HLRResult) { r.MSISDN = "+14156226810" }),
			wantErr: `answer is about msisdn "+14156226810", not +14156226819`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := hlrAnswer(&tt.res, "+14156226819", NumenErrorCode)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestPortAnswerMapping(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		res     apiv2.MNPResult
		want    mnp.PortAnswer
		wantErr string
	}{
		{
			name: "ported",
			res:  cannedMNP,
			want: mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.True, Network: mnp.NetworkRef{MCCMNC: "310260", Name: "T-Mobile US", Region: "US"}},
		},
		{
			name: "not ported",
			res:  mnpWith(func(r *apiv2.MNPResult) { r.IsPorted, r.MCCMNC = apiv2.Bool(false), apiv2.String("311480") }),
			want: mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.False, Network: mnp.NetworkRef{MCCMNC: "311480", Name: "Verizon Wireless", Region: "US"}},
		},
		{
			name: "no portability data",
			res: apiv2.MNPResult{
				MSISDN: "+14156226819", QueryStatus: "FAILED", ProcessingStatus: "REJECTED",
				ErrorCode: apiv2.Int(9), ErrorDescription: apiv2.String(mnp.CodeNoPortabilityData.Description()),
			},
			want: mnp.PortAnswer{Status: mnp.Rejected, Code: mnp.CodeNoPortabilityData},
		},
		{
			name: "query_status only: OK",
			res:  mnpWith(func(r *apiv2.MNPResult) { r.ProcessingStatus = "" }),
			want: mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.True, Network: mnp.NetworkRef{MCCMNC: "310260", Name: "T-Mobile US", Region: "US"}},
		},
		{
			name: "query_status only: FAILED",
			res:  apiv2.MNPResult{QueryStatus: "FAILED"},
			want: mnp.PortAnswer{Status: mnp.Failed},
		},
		{
			name:    "no status at all",
			res:     apiv2.MNPResult{MSISDN: "+14156226819"},
			wantErr: `processing_status "" (query_status "") is not a known status`,
		},
		{
			name:    "unknown processing_status, query_status not consulted",
			res:     apiv2.MNPResult{ProcessingStatus: "PENDING", QueryStatus: "OK"},
			wantErr: `processing_status "PENDING"`,
		},
		{
			name:    "another number",
			res:     mnpWith(func(r *apiv2.MNPResult) { r.MSISDN = "+4915123456789" }),
			wantErr: "answer is about msisdn",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := portAnswer(&tt.res, "+14156226819", NumenErrorCode)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestNumenErrorCode(t *testing.T) {
	t.Parallel()
	for _, c := range mnp.Codes() {
		got, ok := NumenErrorCode(int(c), c.Description())
		require.True(t, ok, "code %d", c)
		require.Equal(t, c, got)
		got, ok = NumenErrorCode(int(c), "")
		require.True(t, ok)
		require.Equal(t, c, got)
	}
	for _, tt := range []struct {
		code int
		desc string
	}{{-1, ""}, {len(mnp.Codes()) + 1, ""}, {1 << 20, ""}, {1, "Unknown subscriber"}} {
		got, ok := NumenErrorCode(tt.code, tt.desc)
		require.False(t, ok, "%d %q", tt.code, tt.desc)
		require.Equal(t, mnp.CodeNone, got)
	}
}

func TestBackendHLR(t *testing.T) {
	t.Parallel()
	n := mustNumber(t, "+1 415 622 6819")
	q := mnp.Query{Number: n, Region: "US", MCCMNC: "310260", Route: "ZZ9"}

	t.Run("answer, no route sent by default", func(t *testing.T) {
		p := newFakeProvider(t)
		c, _ := newTestClient(t, p)
		a, err := c.HLR(t.Context(), q)
		require.NoError(t, err)
		require.Equal(t, mnp.Completed, a.Status)
		require.Equal(t, mnp.NetworkRef{MCCMNC: "310260", Name: "T-Mobile US", Region: "US"}, a.PortedTo)
		require.JSONEq(t, `{"msisdn":"+14156226819"}`, string(p.requests()[0].body))
	})
	t.Run("upstream route", func(t *testing.T) {
		p := newFakeProvider(t)
		c, _ := newTestClient(t, p, WithUpstreamRoute("IP1"))
		_, err := c.HLR(t.Context(), q)
		require.NoError(t, err)
		_, err = c.Portability(t.Context(), q)
		require.NoError(t, err)
		for _, h := range p.requests() {
			require.JSONEq(t, `{"msisdn":"+14156226819","route":"IP1"}`, string(h.body))
		}
	})
	t.Run("rejected is an answer", func(t *testing.T) {
		p := newFakeProvider(t)
		p.setBody("POST /hlr-lookup", mustJSON(t, apiv2.HLRResult{
			ID: "x", MSISDN: "+14156226819", ConnectivityStatus: "UNDETERMINED", ProcessingStatus: "REJECTED",
			ErrorCode: apiv2.Int(7), ErrorDescription: apiv2.String(mnp.CodeTimeout.Description()),
		}))
		c, _ := newTestClient(t, p)
		a, err := c.HLR(t.Context(), q)
		require.NoError(t, err)
		require.Equal(t, mnp.HLRAnswer{Status: mnp.Rejected, Code: mnp.CodeTimeout}, a)
	})
	t.Run("unknown processing_status", func(t *testing.T) {
		p := newFakeProvider(t)
		p.setBody("POST /hlr-lookup", `{"msisdn":"+14156226819","processing_status":"QUEUED","connectivity_status":"CONNECTED"}`)
		c, _ := newTestClient(t, p, WithName("provider-a"))
		_, err := c.HLR(t.Context(), q)
		var be *mnp.BackendError
		require.ErrorAs(t, err, &be)
		require.Equal(t, mnp.CodeBadProviderAnswer, be.Code)
		require.Equal(t, "provider-a", be.Backend)
		require.False(t, mnp.Retryable(err))
		require.ErrorContains(t, err, `provider-a: provider returned an answer that could not be read: POST /hlr-lookup: processing_status "QUEUED"`)
	})
	t.Run("503 fails over, one attempt", func(t *testing.T) {
		p := newFakeProvider(t)
		p.failNext("POST /hlr-lookup", failure{status: 503})
		p.failNext("POST /mnp-lookup", failure{status: 503})
		c, _ := newTestClient(t, p)
		_, err := c.HLR(t.Context(), q)
		require.ErrorIs(t, err, mnp.ErrUnavailable)
		require.Equal(t, mnp.CodeUnavailable, mnp.CodeOf(err))
		_, err = c.Portability(t.Context(), q)
		require.ErrorIs(t, err, mnp.ErrUnavailable)
		require.Equal(t, 1, p.count("POST /hlr-lookup"))
		require.Equal(t, 1, p.count("POST /mnp-lookup"))
	})
	t.Run("portability", func(t *testing.T) {
		p := newFakeProvider(t)
		c, _ := newTestClient(t, p)
		a, err := c.Portability(t.Context(), q)
		require.NoError(t, err)
		require.Equal(t, mnp.PortAnswer{Status: mnp.Completed, Ported: mnp.True, Network: mnp.NetworkRef{MCCMNC: "310260", Name: "T-Mobile US", Region: "US"}}, a)
	})
	t.Run("error codes through WithErrorCodes", func(t *testing.T) {
		p := newFakeProvider(t)
		p.setBody("POST /hlr-lookup", mustJSON(t, apiv2.HLRResult{
			MSISDN: "+14156226819", ConnectivityStatus: "UNDETERMINED", ProcessingStatus: "REJECTED",
			ErrorCode: apiv2.Int(191), ErrorDescription: apiv2.String("HLR timeout"),
		}))
		type seen struct {
			code int
			desc string
		}
		var mu sync.Mutex
		var got []seen
		c, _ := newTestClient(t, p, WithErrorCodes(func(code int, desc string) (mnp.ErrorCode, bool) {
			mu.Lock()
			got = append(got, seen{code, desc})
			mu.Unlock()
			if code == 191 {
				return mnp.CodeTimeout, true
			}
			return NumenErrorCode(code, desc)
		}))
		a, err := c.HLR(t.Context(), q)
		require.NoError(t, err)
		require.Equal(t, mnp.CodeTimeout, a.Code)
		require.Equal(t, []seen{{191, "HLR timeout"}}, got)
	})
	t.Run("zero number", func(t *testing.T) {
		p := newFakeProvider(t)
		c, _ := newTestClient(t, p)
		_, err := c.HLR(t.Context(), mnp.Query{})
		require.ErrorContains(t, err, "query without a number")
		_, err = c.Portability(t.Context(), mnp.Query{})
		require.Error(t, err)
		require.Empty(t, p.requests())
	})
}

// TestCannedBodiesRoundTrip: the canned bodies decode back into the values
// they were made from (a check of the fake, and of apiv2's types).
func TestCannedBodiesRoundTrip(t *testing.T) {
	t.Parallel()
	var r apiv2.HLRResult
	require.NoError(t, json.Unmarshal([]byte(mustJSON(t, cannedHLR)), &r))
	require.Equal(t, cannedHLR, r)
}
