package storetest

import (
	"fmt"
	"time"

	"github.com/numenhq/numen/engine"
	"github.com/numenhq/numen/engine/apiv2"
)

// Base is the completion time of the first fixture; the others follow a
// second apart.
var Base = time.Date(2026, 11, 3, 9, 30, 0, 123e6, time.UTC)

// NewRecord returns a record of product with a result that fills every
// kind of attribute (text, null, booleans, numbers, arrays), for account and
// storage, with id and completion time t. Variant picks among outcomes: 0
// a completed lookup with every field set, 1 a rejected or failed one with
// many nulls, 2 text that needs quoting in CSV.
func NewRecord(account, storage string, product engine.Product, id string, t time.Time, variant int) engine.Record {
	r := engine.Record{Account: account, Storage: storage, ID: id, Time: t}
	filed := filing{id: id, timestamp: apiv2.String(engine.Timestamp(t)), storage: apiv2.String(storage)}
	switch product {
	case engine.ProductHLR:
		r.Result, r.Cost = hlrResult(filed, variant%3)
	case engine.ProductMNP:
		r.Result, r.Cost = mnpResult(filed, variant%3)
	case engine.ProductNT:
		r.Result, r.Cost = ntResult(filed, variant%3)
	default:
		panic(fmt.Sprintf("storetest: product %q", product))
	}
	return r
}

// filing is what every fixture's result shares: the record's id, time and
// report.
type filing struct {
	id                 string
	timestamp, storage *string
}

// hlrResult is the HLR result of a fixture variant (0, 1 or 2), with its
// cost.
func hlrResult(f filing, variant int) (*apiv2.HLRResult, engine.Money) {
	if variant == 1 {
		return &apiv2.HLRResult{
			ID: f.id, MSISDN: "+4930123456", ConnectivityStatus: "UNDETERMINED",
			OriginalCountryName: apiv2.String("Germany"), OriginalCountryCode: apiv2.String("DE"),
			OriginalCountryPrefix: apiv2.String("+49"),
			Timestamp:             f.timestamp, Storage: f.storage, Route: apiv2.String("DS7"),
			ProcessingStatus: "REJECTED", ErrorCode: apiv2.Int(2),
			ErrorDescription: apiv2.String("number is not a mobile number"), DataSource: engine.LiveHLR,
			RoutingInstruction: "AUTO:DS7:SCORE", Cost: apiv2.String("0.0000"),
		}, 0
	}
	res := &apiv2.HLRResult{
		ID: f.id, MSISDN: "+4915123456789", ConnectivityStatus: "CONNECTED",
		MCCMNC: apiv2.String("26203"), MCC: apiv2.String("262"), MNC: apiv2.String("03"),
		IMSI: apiv2.String("26203*********"), MSIN: apiv2.String("**********"), MSC: apiv2.String("491770******"),
		OriginalNetworkName: apiv2.String("Telekom"), OriginalCountryName: apiv2.String("Germany"),
		OriginalCountryCode: apiv2.String("DE"), OriginalCountryPrefix: apiv2.String("+49"),
		IsPorted:          apiv2.Bool(true),
		PortedNetworkName: apiv2.String("Telefónica Germany GmbH & Co. OHG"), PortedCountryName: apiv2.String("Germany"),
		PortedCountryCode: apiv2.String("DE"), PortedCountryPrefix: apiv2.String("+49"),
		IsRoaming: apiv2.Bool(false),
		Timestamp: f.timestamp, Storage: f.storage, Route: apiv2.String("DS7"),
		ProcessingStatus: "COMPLETED", DataSource: engine.LiveHLR,
		RoutingInstruction: "AUTO:DS7:SCORE",
	}
	cost := engine.Money(100)
	if variant == 2 {
		res.ErrorDescription = apiv2.String("said \"no\", then hung up,\nagain")
		res.IsRoaming = apiv2.Bool(true)
		res.RoamingNetworkName = apiv2.String("Movistar")
		res.RoamingCountryName = apiv2.String("Spain")
		res.RoamingCountryCode = apiv2.String("ES")
		res.RoamingCountryPrefix = apiv2.String("+34")
		res.Cached = true
		cost = 0
	}
	res.Cost = apiv2.String(cost.String())
	return res, cost
}

// mnpResult is the MNP result of a fixture variant (2 is 0), with its
// cost.
func mnpResult(f filing, variant int) (*apiv2.MNPResult, engine.Money) {
	if variant == 1 {
		return &apiv2.MNPResult{
			ID: f.id, MSISDN: "+33612", QueryStatus: "FAILED",
			OriginalCountryName: apiv2.String("France"), OriginalCountryCode: apiv2.String("FR"),
			OriginalCountryPrefix: apiv2.String("+33"),
			Timestamp:             f.timestamp, Storage: f.storage, Route: apiv2.String("MP1"),
			ProcessingStatus: "REJECTED", ErrorCode: apiv2.Int(1),
			ErrorDescription: apiv2.String("number is not a valid phone number: too short"),
			Cost:             apiv2.String("0.0000"),
		}, 0
	}
	return &apiv2.MNPResult{
		ID: f.id, MSISDN: "+33612345678", QueryStatus: "OK",
		MCCMNC: apiv2.String("20810"), MCC: apiv2.String("208"), MNC: apiv2.String("10"),
		IsPorted:            apiv2.Bool(true),
		OriginalNetworkName: apiv2.String("Orange"), OriginalCountryName: apiv2.String("France"),
		OriginalCountryCode: apiv2.String("FR"), OriginalCountryPrefix: apiv2.String("+33"),
		PortedNetworkName: apiv2.String("SFR"), PortedCountryName: apiv2.String("France"),
		PortedCountryCode: apiv2.String("FR"), PortedCountryPrefix: apiv2.String("+33"),
		Extra:     apiv2.String("ported 2024-05-01"),
		Timestamp: f.timestamp, Storage: f.storage, Route: apiv2.String("MP1"),
		ProcessingStatus: "COMPLETED", Cost: apiv2.String("0.0050"),
	}, 50
}

// ntResult is the NT result of a fixture variant (0, 1 or 2), with its
// cost.
func ntResult(f filing, variant int) (*apiv2.NTResult, engine.Money) {
	if variant == 1 {
		return &apiv2.NTResult{
			ID: f.id, Number: "hello", NumberType: "UNKNOWN", QueryStatus: "FAILED",
			IsValid: apiv2.Bool(false), InvalidReason: apiv2.String("not a number"),
			Timestamp: f.timestamp, Storage: f.storage, Route: apiv2.String("NT1"),
			Cost: apiv2.String("0.0000"),
		}, 0
	}
	res := &apiv2.NTResult{
		ID: f.id, Number: "+4930123456", NumberType: "LANDLINE", QueryStatus: "OK",
		IsValid: apiv2.Bool(true), IsPossiblyPorted: apiv2.Bool(false), IsVanityNumber: apiv2.Bool(false),
		QualifiesForHLRLookup: apiv2.Bool(false),
		OriginalCountryName:   apiv2.String("Germany"), OriginalCountryCode: apiv2.String("DE"),
		OriginalCountryPrefix: apiv2.String("+49"),
		Regions:               []string{"Berlin", "Brandenburg"}, Timezones: []string{"Europe/Berlin"},
		InternationalFormat: apiv2.String("+49 30 123456"), NationalFormat: apiv2.String("030 123456"),
		Timestamp: f.timestamp, Storage: f.storage, Route: apiv2.String("NT1"),
		Cost: apiv2.String("0.0010"),
	}
	if variant == 2 {
		res.Number, res.NumberType = "+4915123456789", "MOBILE"
		res.InternationalFormat, res.NationalFormat = apiv2.String("+49 1512 3456789"), apiv2.String("01512 3456789")
		res.IsPossiblyPorted, res.QualifiesForHLRLookup = apiv2.Bool(true), apiv2.Bool(true)
		res.MCCMNC, res.MCC, res.MNC = apiv2.String("26201"), apiv2.String("262"), apiv2.String("01")
		res.OriginalNetworkName = apiv2.String("Telekom, \"T-Mobile\"")
		res.Regions = []string{}
		res.InfoText = apiv2.String("personal number")
	}
	return res, 10
}
