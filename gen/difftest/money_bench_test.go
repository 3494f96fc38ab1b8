package difftest

import (
	"testing"

	"github.com/worldc/worldc/generated/freight_billing"
	"github.com/worldc/worldc/runtime"
)

// Benchmarks of tool calls with money arithmetic in the compiled freight
// billing world (exact decimals since issue 23): each call decodes its
// JSON arguments, computes, writes, and encodes its observation as a
// server sends it. The same file runs against the float64 world of before
// to compare (issue 23's measurement).

func freightEpisode(b *testing.B) runtime.Episode {
	b.Helper()
	ep, err := freight_billing.New().NewEpisode("")
	if err != nil {
		b.Fatal(err)
	}
	return ep
}

// BenchmarkMoneyRateShipment prices a shipment: weight times price per kg,
// at least the minimum charge, plus a fuel surcharge percentage, rounded
// to cents (a product, a division by 100, a max and a round).
func BenchmarkMoneyRateShipment(b *testing.B) {
	tau2CallOn(b, freightEpisode(b), "rate_shipment", `{"shipment":"shp_nt031","rate_card":"rc_brl_eu_2026"}`)
}

// BenchmarkMoneyRepriceLine brings an invoice line up to the shipment's
// charge: a scan of the invoice lines, a subtraction, an addition and a
// round.
func BenchmarkMoneyRepriceLine(b *testing.B) {
	tau2CallOn(b, freightEpisode(b), "reprice_invoice_line", `{"invoice":"inv_nordlicht_mar","shipment":"shp_nt031"}`)
}

// BenchmarkMoneyGetInvoice reads an invoice: three amounts written as JSON.
func BenchmarkMoneyGetInvoice(b *testing.B) {
	tau2CallOn(b, freightEpisode(b), "get_invoice", `{"id":"inv_alpen_jan"}`)
}

// BenchmarkMoneyBookShipment decodes a decimal argument and compares it
// with bounds (the call fails its last require, so nothing is inserted).
func BenchmarkMoneyBookShipment(b *testing.B) {
	ep := freightEpisode(b)
	raw := []byte(`{"customer":"brenner","carrier":"weber","customer_ref":"X","origin_city":"A","destination_city":"B","destination_country":"de","weight_kg":1250.5,"pallets":3,"pickup_date":"2026-03-01"}`)
	b.ResetTimer()
	for b.Loop() {
		if o := ep.Call("book_shipment", raw); o.OK {
			b.Fatal("succeeded")
		}
	}
}
