package routing

import (
	"sync"
	"testing"

	"github.com/numenhq/numen/numbering"
	"github.com/stretchr/testify/require"
)

var testPlan = sync.OnceValues(func() (*numbering.Plan, error) { return numbering.Load() })

func plan(t testing.TB) *numbering.Plan {
	t.Helper()
	p, err := testPlan()
	require.NoError(t, err)
	return p
}

// testCoverage is a small coverage made for the precedence tests:
//
//	network  HA1  HB1  HC1  MA1 (MNP)
//	26201     90   70    -   80
//	26202     60   95    -    -
//	23415     85   85    -    -
//	20801     40    -    -   70
//	21404      -    -   30   90
//	21407      -   55    -    -
//	23201      -    -    -   75   (AT: no live HLR route at all)
//	23203      -    -    -    -   (AT: a network nothing reaches)
const testCoverage = `{
  "routes": [
    {"id": "HA1", "product": "HLR", "name": "a"}, {"id": "HB1", "product": "HLR", "name": "b"},
    {"id": "HC1", "product": "HLR", "name": "c"}, {"id": "MA1", "product": "MNP", "name": "mnp"},
    {"id": "NT1", "product": "NT", "name": "nt"}
  ],
  "networks": [
    {"mccmnc": "26201", "countrycode": "DE", "mno": "Telekom"}, {"mccmnc": "26202", "countrycode": "DE", "mno": "Vodafone"},
    {"mccmnc": "23415", "countrycode": "GB", "mno": "Vodafone UK"}, {"mccmnc": "20801", "countrycode": "FR", "mno": "Orange"},
    {"mccmnc": "21404", "countrycode": "ES", "mno": "Yoigo"}, {"mccmnc": "21407", "countrycode": "ES", "mno": "Movistar"},
    {"mccmnc": "23201", "countrycode": "AT", "mno": "A1"}, {"mccmnc": "23203", "countrycode": "AT", "mno": "Magenta"}
  ],
  "scores": [
    {"route": "HA1", "mccmnc": "26201", "score": 90}, {"route": "HA1", "mccmnc": "26202", "score": 60},
    {"route": "HA1", "mccmnc": "23415", "score": 85}, {"route": "HA1", "mccmnc": "20801", "score": 40},
    {"route": "HB1", "mccmnc": "26201", "score": 70}, {"route": "HB1", "mccmnc": "26202", "score": 95},
    {"route": "HB1", "mccmnc": "23415", "score": 85}, {"route": "HB1", "mccmnc": "21407", "score": 55},
    {"route": "HC1", "mccmnc": "21404", "score": 30},
    {"route": "MA1", "mccmnc": "26201", "score": 80}, {"route": "MA1", "mccmnc": "20801", "score": 70},
    {"route": "MA1", "mccmnc": "21404", "score": 90}, {"route": "MA1", "mccmnc": "23201", "score": 75},
    {"route": "HC1", "mccmnc": "23203", "score": 0}
  ]
}`

func coverage(t testing.TB) *Coverage {
	t.Helper()
	c, err := ParseCoverage([]byte(testCoverage))
	require.NoError(t, err)
	return c
}

func parseMap(t testing.TB, s string) *Map {
	t.Helper()
	if s == "" {
		return nil
	}
	m, err := ParseMap([]byte(s))
	require.NoError(t, err, s)
	return m
}

// number classifies s and sets the original network's MCCMNC, which the
// numbering data does not know yet.
func number(t testing.TB, s, mccmnc string) *numbering.Result {
	t.Helper()
	res := plan(t).ClassifyString(s)
	res.MCCMNC = mccmnc
	return &res
}

func resolver(t testing.TB, platform, account string) *Resolver {
	t.Helper()
	p, err := NewPlatform(plan(t), coverage(t), parseMap(t, platform))
	require.NoError(t, err)
	r, err := p.Resolver(parseMap(t, account))
	require.NoError(t, err)
	return r
}
