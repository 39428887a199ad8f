package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// refDigest is the digest signature computed directly from the algorithm's description, with
// the path and method already in their signed case: an independent check of SignDigest.
func refDigest(secret, signedText string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(signedText))
	return hex.EncodeToString(mac.Sum(nil))
}

func TestSignDigestKnownAnswers(t *testing.T) {
	t.Parallel()
	const (
		secret = "demo-secret"
		ts     = int64(1700000000)
		body   = `{"msisdn":"+14156226819"}`
	)
	tests := []struct {
		name       string
		path       string
		method     string
		body       string
		signedText string
		want       string // the values printed in the package documentation
	}{
		{
			name: "POST hlr-lookup (package doc)", path: "/hlr-lookup", method: "POST", body: body,
			signedText: `/hlr-lookup1700000000POST{"msisdn":"+14156226819"}`,
			want:       "0074d4248681d9f99ce67776f39795dfce161a8ad42bb4ae92e26ea2a8336f12",
		},
		{
			name: "GET route (package doc)", path: "/route", method: "GET",
			signedText: "/route1700000000GET",
			want:       "02751dcd3542ca7e33373bf37205e56f228794feb036bd081ae32c329dfeafa9",
		},
		{
			name: "path and method case are normalised", path: "/HLR-Lookup", method: "post", body: body,
			signedText: `/hlr-lookup1700000000POST{"msisdn":"+14156226819"}`,
			want:       "0074d4248681d9f99ce67776f39795dfce161a8ad42bb4ae92e26ea2a8336f12",
		},
		{
			name: "empty POST body", path: "/auth-test", method: "POST",
			signedText: "/auth-test1700000000POST",
		},
		{
			name: "only ASCII letters change case", path: "/ÄBC", method: "GET",
			signedText: "/Äbc1700000000GET",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SignDigest(secret, tt.path, tt.method, ts, []byte(tt.body))
			require.Equal(t, refDigest(secret, tt.signedText), got)
			if tt.want != "" {
				require.Equal(t, tt.want, got)
			}
		})
	}
}

func TestRelativePath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path, base string
		want       string
		wantErr    bool
	}{
		{path: "/api/v2/hlr-lookup", base: BasePath, want: "/hlr-lookup"},
		{path: "/prefix/api/v2/hlr-lookup", base: BasePath, want: "/hlr-lookup"},
		{path: "/api/v2/proxy/api/v2/route", base: BasePath, want: "/route"}, // the last one
		{path: "/API/V2/Route", base: BasePath, want: "/Route"},              // case of the base
		{path: "/api/v2", base: BasePath, want: "/"},
		{path: "/api/v2/", base: BasePath, want: "/"},
		{path: "/api/v2/routes/", base: BasePath, want: "/routes/"},
		{path: "/api/v2x/route", base: BasePath, wantErr: true}, // segments only
		{path: "/x/api/v2x/route", base: "/api/v2", wantErr: true},
		{path: "/route", base: BasePath, wantErr: true},
		{path: "", base: BasePath, wantErr: true},
		{path: "/v2/route", base: "v2/", want: "/route"},
		{path: "/route", base: "", want: "/route"},
		{path: "/route", base: "/", want: "/route"},
		{path: "", base: "", want: "/"},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.base, func(t *testing.T) {
			got, err := RelativePath(tt.path, tt.base)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestSignRequest(t *testing.T) {
	t.Parallel()
	now := time.Unix(1700000000, 900_000_000) // fractions of a second are dropped
	body := []byte(`{"msisdn":"+14156226819"}`)
	tests := []struct {
		name       string
		method     string
		url        string
		body       []byte
		opts       []SignOption
		signedText string
		wantErr    bool
	}{
		{
			name: "POST", method: "POST", url: "https://host/api/v2/hlr-lookup", body: body,
			signedText: `/hlr-lookup1700000000POST{"msisdn":"+14156226819"}`,
		},
		{
			name: "query string not signed", method: "GET", url: "https://host/api/v2/route?msisdn=%2B14156226819",
			signedText: "/route1700000000GET",
		},
		{
			name: "base URL with a prefix", method: "GET", url: "http://host:8080/lookup/api/v2/routes",
			signedText: "/routes1700000000GET",
		},
		{
			name: "path case", method: "GET", url: "https://host/api/v2/Routing-Map",
			signedText: "/routing-map1700000000GET",
		},
		{
			name: "empty method is GET", method: "", url: "https://host/api/v2/auth-test",
			signedText: "/auth-test1700000000GET",
		},
		{
			name: "escaped path is signed decoded", method: "GET", url: "https://host/api/v2/a%20b",
			signedText: "/a b1700000000GET",
		},
		{
			name: "other base", method: "GET", url: "https://host/v3/time", opts: []SignOption{WithBasePath("/v3")},
			signedText: "/time1700000000GET",
		},
		{
			name: "no base", method: "GET", url: "https://host/time", opts: []SignOption{WithBasePath("")},
			signedText: "/time1700000000GET",
		},
		{name: "path without the base", method: "GET", url: "https://host/v1/time", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, tt.url, nil)
			req.Method = tt.method
			err := SignRequest(req, "demo-key", "demo-secret", now, tt.body, tt.opts...)
			if tt.wantErr {
				require.Error(t, err)
				require.Empty(t, req.Header.Get(HeaderDigestSignature))
				return
			}
			require.NoError(t, err)
			require.Equal(t, "demo-key", req.Header.Get(HeaderDigestKey))
			require.Equal(t, "1700000000", req.Header.Get(HeaderDigestTimestamp))
			require.Equal(t, refDigest("demo-secret", tt.signedText), req.Header.Get(HeaderDigestSignature))
		})
	}

	t.Run("nil header map", func(t *testing.T) {
		req := httptest.NewRequest(http.MethodGet, "https://host/api/v2/time", nil)
		req.Header = nil
		require.NoError(t, SignRequest(req, "k", "s", now, nil))
		require.NotEmpty(t, req.Header.Get(HeaderDigestSignature))
	})
	t.Run("no URL", func(t *testing.T) {
		require.Error(t, SignRequest(&http.Request{}, "k", "s", now, nil))
		require.Error(t, SignRequest(nil, "k", "s", now, nil))
	})
}

func TestBasicHeaderAndXBasic(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Basic ZGVtby1rZXk6ZGVtby1zZWNyZXQ=", BasicHeader("demo-key", "demo-secret"))
	sum := sha256.Sum256([]byte("demo-key:demo-secret"))
	require.Equal(t, hex.EncodeToString(sum[:]), XBasic("demo-key", "demo-secret"))
	require.Equal(t, "148a0900d1850f88dcf294b4d899e93f1e0c53dc6b22abb516728ace3b71d6aa", XBasic("demo-key", "demo-secret"))

	// net/http reads what BasicHeader writes.
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set(HeaderAuthorization, BasicHeader("demo-key", "se:cret"))
	user, pass, ok := req.BasicAuth()
	require.True(t, ok)
	require.Equal(t, "demo-key", user)
	require.Equal(t, "se:cret", pass)
}

func BenchmarkSignDigest(b *testing.B) {
	body := []byte(`{"msisdn":"+14156226819","route":"IP1","storage":"CAMPAIGN"}`)
	b.ReportAllocs()
	for b.Loop() {
		SignDigest("demo-secret", "/hlr-lookup", "POST", 1700000000, body)
	}
}
