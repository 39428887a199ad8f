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
	r := engine.Record{Account: account, Product: product, Storage: storage, ID: id, Time: t}
	ts, s := apiv2.String(engine.Timestamp(t)), apiv2.String(storage)
	switch product {
	case engine.ProductHLR:
		res := &apiv2.HLRResult{
			ID: id, MSISDN: "+4915123456789", ConnectivityStatus: "CONNECTED",
			MCCMNC: apiv2.String("26203"), MCC: apiv2.String("262"), MNC: apiv2.String("03"),
			IMSI: apiv2.String("26203*********"), MSIN: apiv2.String("**********"), MSC: apiv2.String("491770******"),
			OriginalNetworkName: apiv2.String("Telekom"), OriginalCountryName: apiv2.String("Germany"),
			OriginalCountryCode: apiv2.String("DE"), OriginalCountryPrefix: apiv2.String("+49"),
			IsPorted:          apiv2.Bool(true),
			PortedNetworkName: apiv2.String("Telefónica Germany GmbH & Co. OHG"), PortedCountryName: apiv2.String("Germany"),
			PortedCountryCode: apiv2.String("DE"), PortedCountryPrefix: apiv2.String("+49"),
			IsRoaming: apiv2.Bool(false),
			Timestamp: ts, Storage: s, Route: apiv2.String("DS7"),
			ProcessingStatus: "COMPLETED", DataSource: engine.LiveHLR,
			RoutingInstruction: "AUTO:DS7:SCORE",
		}
		r.Cost = 100
		switch variant % 3 {
		case 1:
			*res = apiv2.HLRResult{
				ID: id, MSISDN: "+4930123456", ConnectivityStatus: "UNDETERMINED",
				OriginalCountryName: apiv2.String("Germany"), OriginalCountryCode: apiv2.String("DE"),
				OriginalCountryPrefix: apiv2.String("+49"),
				Timestamp:             ts, Storage: s, Route: apiv2.String("DS7"),
				ProcessingStatus: "REJECTED", ErrorCode: apiv2.Int(2),
				ErrorDescription: apiv2.String("number is not a mobile number"), DataSource: engine.LiveHLR,
				RoutingInstruction: "AUTO:DS7:SCORE",
			}
			r.Cost = 0
		case 2:
			res.ErrorDescription = apiv2.String("said \"no\", then hung up,\nagain")
			res.IsRoaming = apiv2.Bool(true)
			res.RoamingNetworkName = apiv2.String("Movistar")
			res.RoamingCountryName = apiv2.String("Spain")
			res.RoamingCountryCode = apiv2.String("ES")
			res.RoamingCountryPrefix = apiv2.String("+34")
			res.Cached = true
			r.Cost = 0
		}
		res.Cost = apiv2.String(r.Cost.String())
		r.Result = res
	case engine.ProductMNP:
		res := &apiv2.MNPResult{
			ID: id, MSISDN: "+33612345678", QueryStatus: "OK",
			MCCMNC: apiv2.String("20810"), MCC: apiv2.String("208"), MNC: apiv2.String("10"),
			IsPorted:            apiv2.Bool(true),
			OriginalNetworkName: apiv2.String("Orange"), OriginalCountryName: apiv2.String("France"),
			OriginalCountryCode: apiv2.String("FR"), OriginalCountryPrefix: apiv2.String("+33"),
			PortedNetworkName: apiv2.String("SFR"), PortedCountryName: apiv2.String("France"),
			PortedCountryCode: apiv2.String("FR"), PortedCountryPrefix: apiv2.String("+33"),
			Extra:     apiv2.String("ported 2024-05-01"),
			Timestamp: ts, Storage: s, Route: apiv2.String("MP1"),
			ProcessingStatus: "COMPLETED",
		}
		r.Cost = 50
		if variant%3 == 1 {
			*res = apiv2.MNPResult{
				ID: id, MSISDN: "+33612", QueryStatus: "FAILED",
				OriginalCountryName: apiv2.String("France"), OriginalCountryCode: apiv2.String("FR"),
				OriginalCountryPrefix: apiv2.String("+33"),
				Timestamp:             ts, Storage: s, Route: apiv2.String("MP1"),
				ProcessingStatus: "REJECTED", ErrorCode: apiv2.Int(1),
				ErrorDescription: apiv2.String("number is not a valid phone number: too short"),
			}
			r.Cost = 0
		}
		res.Cost = apiv2.String(r.Cost.String())
		r.Result = res
	case engine.ProductNT:
		res := &apiv2.NTResult{
			ID: id, Number: "+4930123456", NumberType: "LANDLINE", QueryStatus: "OK",
			IsValid: apiv2.Bool(true), IsPossiblyPorted: apiv2.Bool(false), IsVanityNumber: apiv2.Bool(false),
			QualifiesForHLRLookup: apiv2.Bool(false),
			OriginalCountryName:   apiv2.String("Germany"), OriginalCountryCode: apiv2.String("DE"),
			OriginalCountryPrefix: apiv2.String("+49"),
			Regions:               []string{"Berlin", "Brandenburg"}, Timezones: []string{"Europe/Berlin"},
			InternationalFormat: apiv2.String("+49 30 123456"), NationalFormat: apiv2.String("030 123456"),
			Timestamp: ts, Storage: s, Route: apiv2.String("NT1"),
		}
		r.Cost = 10
		switch variant % 3 {
		case 1:
			*res = apiv2.NTResult{
				ID: id, Number: "hello", NumberType: "UNKNOWN", QueryStatus: "FAILED",
				IsValid: apiv2.Bool(false), InvalidReason: apiv2.String("not a number"),
				Timestamp: ts, Storage: s, Route: apiv2.String("NT1"),
			}
			r.Cost = 0
		case 2:
			res.Number, res.NumberType = "+4915123456789", "MOBILE"
			res.InternationalFormat, res.NationalFormat = apiv2.String("+49 1512 3456789"), apiv2.String("01512 3456789")
			res.IsPossiblyPorted, res.QualifiesForHLRLookup = apiv2.Bool(true), apiv2.Bool(true)
			res.MCCMNC, res.MCC, res.MNC = apiv2.String("26201"), apiv2.String("262"), apiv2.String("01")
			res.OriginalNetworkName = apiv2.String("Telekom, \"T-Mobile\"")
			res.Regions = []string{}
			res.InfoText = apiv2.String("personal number")
		}
		res.Cost = apiv2.String(r.Cost.String())
		r.Result = res
	default:
		panic(fmt.Sprintf("storetest: product %q", product))
	}
	return r
}
