package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/numenhq/numen/engine/apiv2"
)

func TestPing(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	for _, sg := range []signer{noAuth, digest(secret, 0), digest("wrong", 0)} {
		// Public: credentials, right or wrong, are not looked at.
		status, _, b := s.do(t, "GET", "/api/v2/ping", "", sg)
		require.Equal(t, http.StatusOK, status, "%s", b)
		require.JSONEq(t, `{"success": true}`, string(b))
	}
}

func TestMCCMNCs(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	status, _, b := s.do(t, "GET", "/api/v2/mccmncs", "", digest(secret, 0))
	require.Equal(t, http.StatusOK, status, "%s", b)
	var all apiv2.MCCMNCs
	require.NoError(t, json.Unmarshal(b, &all))
	require.Greater(t, len(all.MCCMNCs), 1000, "the plan's list, every operational network")
	seen := map[string]bool{}
	var telekom *apiv2.MCCMNC
	for i, m := range all.MCCMNCs {
		require.False(t, seen[m.MCCMNC], "%s listed twice", m.MCCMNC)
		seen[m.MCCMNC] = true
		require.Equal(t, m.MCCMNC, m.MCC+m.MNC)
		require.Len(t, m.MCC, 3)
		require.NotEmpty(t, m.CountryCodes)
		require.Equal(t, m.CountryCode, m.CountryCodes[0], "home first")
		if i > 0 {
			require.Less(t, all.MCCMNCs[i-1].MCCMNC, m.MCCMNC, "by MCCMNC")
		}
		if m.MCCMNC == "26201" {
			telekom = &all.MCCMNCs[i]
		}
	}
	require.NotNil(t, telekom)
	require.Equal(t, "DE", telekom.CountryCode)
	require.Equal(t, "Germany", *telekom.CountryName)
	require.Equal(t, "+49", *telekom.CountryPrefix)
	nw, ok := loadPlan(t).Network("26201")
	require.True(t, ok)
	require.Equal(t, nw.Name(), *telekom.NetworkName, "the name lookup results give it")

	// One country, any case: its networks, shared ones included.
	status, _, b = s.do(t, "GET", "/api/v2/mccmncs?country=de", "", digest(secret, 0))
	require.Equal(t, http.StatusOK, status, "%s", b)
	var de apiv2.MCCMNCs
	require.NoError(t, json.Unmarshal(b, &de))
	require.NotEmpty(t, de.MCCMNCs)
	for _, m := range de.MCCMNCs {
		require.Contains(t, m.CountryCodes, "DE")
	}
	require.Len(t, de.MCCMNCs, len(loadPlan(t).Networks("DE")))

	for _, q := range []string{"?country=XY", "?country=DEU", "?country=DE&country=AT", "?mcc=262"} {
		status, _, b = s.do(t, "GET", "/api/v2/mccmncs"+q, "", digest(secret, 0))
		require.Equal(t, http.StatusBadRequest, status, "%s: %s", q, b)
	}
}

func TestMNPCoverage(t *testing.T) {
	t.Parallel()
	s := newServer(t, nil)
	status, _, b := s.do(t, "GET", "/api/v2/mnp-coverage", "", digest(secret, 0))
	require.Equal(t, http.StatusOK, status, "%s", b)
	var cov apiv2.MNPCoverage
	require.NoError(t, json.Unmarshal(b, &cov))
	byCode := map[string]apiv2.MNPCountry{}
	for _, c := range cov.Countries {
		byCode[c.CountryCode] = c
	}
	// The default coverage scores MP1 for Germany's three networks.
	de, ok := byCode["DE"]
	require.True(t, ok, "%s", b)
	require.Equal(t, "Germany", *de.CountryName)
	require.Equal(t, []apiv2.MNPRoute{{
		Route: "MP1", Name: "offline portability database", Networks: []string{"26201", "26202", "26203"}, Score: 95,
		Backends: []apiv2.MNPBackend{{Name: "test", Type: "httpapi", State: "ok"}}, // a backend's type names its package
	}}, de.Routes)
	_, ok = byCode["GB"]
	require.False(t, ok, "no portability route scores a British network")

	status, _, b = s.do(t, "GET", "/api/v2/mnp-coverage?country=DE", "", digest(secret, 0))
	require.Equal(t, http.StatusOK, status, "%s", b)
	var one apiv2.MNPCoverage
	require.NoError(t, json.Unmarshal(b, &one))
	require.Equal(t, []apiv2.MNPCountry{de}, one.Countries)
	status, _, b = s.do(t, "GET", "/api/v2/mnp-coverage?country=GB", "", digest(secret, 0))
	require.Equal(t, http.StatusOK, status, "%s", b)
	require.JSONEq(t, `{"countries": []}`, string(b))
	status, _, _ = s.do(t, "GET", "/api/v2/mnp-coverage?country=ZZ", "", digest(secret, 0))
	require.Equal(t, http.StatusBadRequest, status)
}
